"""The publisher's on-disk queue: every ruling a table publishes, kept until the broker has it.

Folder layout (one per table):
- `stream`: a random id made when the folder is created (tournament.topics explains why);
- `spool.jsonl`: append-only, one message per line (`{"stream", "seq", "table", "ruling",
  "sent"}`), seq 1, 2, 3, …; each line is written with one `write` and ends with a newline,
  so a crash leaves at most a torn last line, which is cut off when the folder is opened again;
- `acked`: the highest seq the broker acknowledged with every lower one, replaced atomically
  (write a temporary file, fsync, rename). After a crash the spool resends from there: a
  subscriber may get a message twice, never miss one (it deduplicates by seq).

Bounded: at most `max_pending` messages wait unsent. A ruling that arrives while the spool is
full is not queued (its seq is still used, so subscribers see the gap, and `overflowed`
counts it); the table's event log still has it. Acknowledged lines are dropped by rewriting the
file (atomically) once there are `compact_after` of them.
"""
from __future__ import annotations

import json
import os
import secrets
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import UserError

SPOOL_FILE = "spool.jsonl"
ACKED_FILE = "acked"
STREAM_FILE = "stream"
# About 2,000 games of rulings (a game has a few hundred, each line ~250 bytes: ~100 MB).
DEFAULT_MAX_PENDING = 400_000
# Acknowledged lines kept before the file is rewritten without them (~2 MB).
DEFAULT_COMPACT_AFTER = 8_000


class SpoolError(UserError):
    """The spool folder cannot be created, read or written; the message says what to do."""


@dataclass(frozen=True)
class SpoolStats:
    last_seq: int
    acked: int
    pending: int
    overflowed: int


class Spool:
    """Thread-safe: the referee's thread `append`s, the sender thread reads and acknowledges."""

    def __init__(self, folder: str | os.PathLike[str], *, max_pending: int = DEFAULT_MAX_PENDING,
                 compact_after: int = DEFAULT_COMPACT_AFTER) -> None:
        if max_pending < 1:
            raise SpoolError(f"max_pending must be at least 1, got {max_pending}")
        self.folder = Path(folder)
        self.max_pending = max_pending
        self.compact_after = compact_after
        self._lock = threading.Lock()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.stream = self._stream_id()
            self.acked = self._read_acked()
            self._pending: deque[dict[str, Any]] = deque()
            self.last_seq = self.acked
            self._acked_lines = self._load()
            self._file = open(self.folder / SPOOL_FILE, "ab", buffering=0)
        except OSError as exc:
            raise SpoolError(f"cannot use the spool folder {self.folder}: {exc.strerror}; "
                             "give the publisher a writable spool folder") from None
        self.overflowed = 0
        self._dirty = False

    # --- opening ------------------------------------------------------------------------------

    def _stream_id(self) -> str:
        path = self.folder / STREAM_FILE
        if path.exists():
            text = path.read_text().strip()
            if text:
                return text
        sid = secrets.token_hex(8)
        _atomic_write(path, sid + "\n")
        return sid

    def _read_acked(self) -> int:
        path = self.folder / ACKED_FILE
        try:
            return int(path.read_text().strip() or 0)
        except FileNotFoundError:
            return 0
        except ValueError:
            # A damaged ack file: resend everything (duplicates are harmless, losses are not).
            return 0

    def _load(self) -> int:
        """Read the spool: pending messages after `acked`; cut a torn last line off."""
        path = self.folder / SPOOL_FILE
        if not path.exists():
            return 0
        data = path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            with open(path, "r+b") as f:  # a crash mid-write: that line was never sent
                f.truncate(end)
                os.fsync(f.fileno())
        acked_lines = 0
        for raw in data[:end].splitlines():
            try:
                msg = json.loads(raw)
                seq = int(msg["seq"])
            except (ValueError, KeyError, TypeError):
                continue  # not ours; never resend a line we cannot read
            self.last_seq = max(self.last_seq, seq)
            if seq > self.acked:
                self._pending.append(msg)
            else:
                acked_lines += 1
        return acked_lines

    # --- the referee's side -------------------------------------------------------------------

    def append(self, table: str, ruling: dict[str, Any], sent: float) -> dict[str, Any] | None:
        """Queue one ruling; returns its message, or None when the spool is full (the seq is
        used all the same, so subscribers see the gap)."""
        with self._lock:
            self.last_seq += 1
            msg = {"stream": self.stream, "seq": self.last_seq, "table": table,
                   "ruling": ruling, "sent": sent}
            if len(self._pending) >= self.max_pending:
                self.overflowed += 1
                return None
            line = json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n"
            try:
                self._file.write(line.encode())  # one write on an O_APPEND file: whole or torn
            except OSError:
                self.overflowed += 1
                return None
            self._pending.append(msg)
            self._dirty = True
            return msg

    # --- the sender's side --------------------------------------------------------------------

    def sync(self) -> None:
        """fsync the lines appended so far (the sender calls it before publishing them)."""
        with self._lock:
            if self._dirty:
                os.fsync(self._file.fileno())
                self._dirty = False

    def pending(self, after: int, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` queued messages with seq > `after`, in order."""
        with self._lock:
            out = []
            for msg in self._pending:
                if msg["seq"] > after:
                    out.append(msg)
                    if len(out) >= limit:
                        break
            return out

    def acknowledge(self, seq: int) -> None:
        """The broker has every message up to `seq`: drop them from the queue, persist."""
        with self._lock:
            if seq <= self.acked:
                return
            while self._pending and self._pending[0]["seq"] <= seq:
                self._pending.popleft()
                self._acked_lines += 1
            self.acked = seq
            # No fsync: a lost or stale ack file only makes the spool resend (duplicates,
            # which subscribers drop), never skip.
            _atomic_write(self.folder / ACKED_FILE, f"{seq}\n", durable=False)
            if self._acked_lines >= self.compact_after:
                self._compact()

    def _compact(self) -> None:
        path = self.folder / SPOOL_FILE
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            for msg in self._pending:
                f.write((json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
                         + "\n").encode())
            f.flush()
            os.fsync(f.fileno())
        self._file.close()
        os.replace(tmp, path)
        _fsync_dir(self.folder)
        self._file = open(path, "ab", buffering=0)
        self._acked_lines = 0

    def stats(self) -> SpoolStats:
        with self._lock:
            return SpoolStats(self.last_seq, self.acked, len(self._pending), self.overflowed)

    def close(self) -> None:
        with self._lock:
            if not self._file.closed:
                os.fsync(self._file.fileno())
                self._file.close()


def _atomic_write(path: Path, text: str, durable: bool = True) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        if durable:
            os.fsync(f.fileno())
    os.replace(tmp, path)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
