"""The crash-safe event log: append-only JSONL, flushed and fsynced per ruling, read back on resume.

A line reaches the disk whole or is recognisably torn: each line is written with one `write`
on an O_APPEND descriptor and ends with a newline, and `fsync` follows every ruling, so after a
crash every ruling the players heard is on disk. Reading back keeps every complete line and
reports a torn last line (a crash mid-write) instead of failing; resuming cuts that fragment
off so new lines start clean.
"""
from __future__ import annotations

import errno
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from referee.errors import UserError
from referee.log import encode
from referee.rulings import Ruling


class EventLogError(UserError):
    """The log file cannot be created, opened or read; the message says what to do."""


@dataclass(frozen=True)
class ReadBack:
    """What an existing log holds: `objects` are the complete, well-formed lines in order (with
    their 1-based line numbers in `linenos`); `bad_lines` the complete lines that are not JSON
    objects; `torn_tail` the bytes after the last newline (a write cut short by a crash)."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    linenos: list[int] = field(default_factory=list)
    bad_lines: list[tuple[int, str]] = field(default_factory=list)
    torn_tail: str | None = None
    complete_bytes: int = 0
    lines: int = 0  # complete lines, blank and bad ones included: the next line's number - 1


def read_log(path: str | os.PathLike[str]) -> ReadBack:
    """Read a log written by EventLog (or any JSONL file) without ever failing on its content."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise EventLogError(f"{path}: no such log file; check the path") from None
    except OSError as exc:
        raise EventLogError(f"{path}: cannot read the log ({exc.strerror})") from None
    end = data.rfind(b"\n") + 1
    body, tail = data[:end], data[end:]
    result = ReadBack(complete_bytes=end, lines=body.count(b"\n"),
                      torn_tail=tail.decode("utf-8", "replace") if tail else None)
    for i, raw in enumerate(body.split(b"\n")[:-1], start=1):
        # A byte-order mark (an editor's) before the first line is no part of it, as replay has it.
        text = raw.decode("utf-8-sig" if i == 1 else "utf-8", "replace")
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            result.bad_lines.append((i, text))
            continue
        if not isinstance(obj, dict):
            result.bad_lines.append((i, text))
            continue
        result.objects.append(obj)
        result.linenos.append(i)
    return result


class EventLog:
    """Append-only JSONL writer. `append(obj)` writes one line; `ruling(r)` writes and fsyncs.

    Open a new log with `EventLog(path)` (refuses to overwrite a file), or continue one with
    `EventLog(path, resume=True)`, which refuses a file that holds no log line, mends a torn
    last line (`_read_back`) and exposes what was read in `self.readback`. Use it as a context manager so the file is always closed.
    """

    def __init__(self, path: str | os.PathLike[str], *, resume: bool = False) -> None:
        self.path = Path(path)
        self.readback: ReadBack | None = None
        self.set_aside: Path | None = None  # where a torn last line was kept (resume)
        if resume:
            self.readback = self._read_back()
            flags = os.O_WRONLY | os.O_APPEND
        else:
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL
        try:
            self._fd: int | None = os.open(self.path, flags, 0o644)
        except FileExistsError:
            raise _exists(self.path) from None
        except OSError as exc:
            raise EventLogError(f"{self.path}: cannot open the log for writing "
                                f"({exc.strerror})") from None
        if not resume:
            _fsync_dir(self.path.parent)
        # Lines in the file: the number of the next line written is one more (the monitor
        # names a bad input by its line in the file, as a replay of the file does).
        self.lines = self.readback.lines if self.readback is not None else 0

    @staticmethod
    def check_new(path: str | os.PathLike[str]) -> None:
        """Refuse, before anything is opened, a new log that EventLog(path) would refuse."""
        path = Path(path)
        if path.exists():
            raise _exists(path)
        if not path.parent.is_dir():
            raise EventLogError(f"{path}: no folder {path.parent}; create it or choose another "
                                "place for the log")

    @staticmethod
    def check_resumable(path: str | os.PathLike[str]) -> ReadBack:
        """What the log to continue holds, or EventLogError if it is no log: a file with no
        log line at all is refused (writing to it would spoil it)."""
        back = read_log(path)
        if not any(_is_log_line(o) for o in back.objects):
            what = (f"{len(back.bad_lines)} lines that are not JSON objects" if back.bad_lines
                    else "no complete line")
            raise EventLogError(
                f"{path} holds no log lines ({what}), so it is not the log of a game: give "
                "--resume the .jsonl log of the game to continue (a new game needs no --resume)")
        return back

    def _read_back(self) -> ReadBack:
        """What the log to continue holds, its last line made whole: a last line that parses
        but lost its newline gets one; a fragment (a write cut short: no ruling in it was
        ever complete) is cut off and kept beside the log in `<log>.torn`. A file with no log
        line at all is refused: it is not a log, and writing to it would spoil it."""
        back = self.check_resumable(self.path)
        tail = back.torn_tail
        if tail is None:
            return back
        try:
            whole = _is_log_line(json.loads(tail))
        except json.JSONDecodeError:
            whole = False
        try:
            if whole:
                with open(self.path, "ab") as f:
                    f.write(b"\n")
            else:
                self.set_aside = self.path.with_name(self.path.name + ".torn")
                with open(self.set_aside, "ab") as f:
                    f.write(tail.encode("utf-8", "replace") + b"\n")
                os.truncate(self.path, back.complete_bytes)
        except OSError as exc:
            raise EventLogError(f"{self.path}: cannot mend the log's last line "
                                f"({exc.strerror})") from None
        return replace(read_log(self.path), torn_tail=tail)  # (the tail as found)

    def append(self, obj: Mapping[str, Any], *, sync: bool = False) -> int:
        """Write one line. Inputs (observe, slap) need not sync: the next ruling's fsync carries
        them, and they are replayable from the camera only until then anyway."""
        if self._fd is None:
            raise EventLogError(f"{self.path}: the log is closed")
        data = (encode(obj) + "\n").encode("utf-8")
        view = memoryview(data)
        start = None
        try:
            start = os.lseek(self._fd, 0, os.SEEK_END)
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
            if sync:
                os.fsync(self._fd)
        except OSError as exc:
            self._cut_back(start)
            raise EventLogError(
                f"{self.path}: cannot write to the log ({exc.strerror}); every ruling made "
                "before it is on disk. " + ("Free some space, then " if exc.errno == errno.ENOSPC
                                           else "Mend the disk, then ")
                + f"continue the game with --resume {self.path}") from None
        self.lines += 1
        return self.lines

    def _cut_back(self, size: int | None) -> None:
        """A write that failed part-way leaves no fragment for the next line to join: the
        file is cut back to where the line began (if that fails too, the fragment stays a
        torn line, which reading back reports and resuming cuts off)."""
        if size is None:
            return
        try:
            os.ftruncate(self._fd, size)
        except OSError:
            pass

    def ruling(self, ruling: Ruling) -> None:
        """Write a ruling and make it durable before returning (flush + fsync)."""
        self.append(ruling.to_json(), sync=True)

    def sync(self) -> None:
        if self._fd is not None:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.fsync(fd)
            except OSError:
                pass  # a failed write has said so; every ruling before it was synced
            finally:
                os.close(fd)

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _exists(path: Path) -> EventLogError:
    return EventLogError(f"{path} already exists: continue it with --resume or choose a new "
                         "log file")


def _is_log_line(obj: Any) -> bool:
    """A line of the event log: an object with one of its keys (DESIGN.md)."""
    return isinstance(obj, dict) and any(k in obj for k in ("start", "observe", "slap", "ruling"))


def _fsync_dir(directory: Path) -> None:
    """Make a newly created file's directory entry durable too (POSIX needs this)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Resumed:
    """A monitor rebuilt from an interrupted log. `replayed`: input lines fed again;
    `recovered`: rulings the monitor makes from those inputs that the log did not hold yet (a
    crash between writing an input and its ruling), now written; `mismatched`: logged rulings
    the replay did not reproduce (a log from another version or other settings)."""

    monitor: Any
    log: EventLog
    replayed: int
    recovered: int
    mismatched: int
    torn_tail: str | None


def resume(path: str | os.PathLike[str], config: Any = None) -> Resumed:
    """Continue an interrupted game: read the log back, replay its inputs (`start`, `observe`,
    `slap`) through a new Monitor, which is deterministic and so reaches the same state, write
    any ruling the crash kept from the log, and return the monitor and the log open for
    appending. Nothing already ruled is lost or ruled twice."""
    from referee.monitor import Monitor

    log = EventLog(path, resume=True)
    back = log.readback
    monitor = Monitor(config)
    logged = [o for o in back.objects if "ruling" in o]
    produced: list[dict[str, Any]] = []
    replayed = 0
    for obj, lineno in zip(back.objects, back.linenos):
        if "ruling" in obj:
            continue
        replayed += 1
        produced.extend(r.to_json() for r in monitor.feed(obj, lineno))
    missing, mismatched = unlogged(logged, produced)
    for obj in missing:
        log.append(obj, sync=True)
    return Resumed(monitor, log, replayed, len(missing), mismatched, back.torn_tail)


def unlogged(logged: Sequence[Mapping[str, Any]],
             produced: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], int]:
    """The rulings a replay of a log's inputs `produced` that the log does not hold, and how
    many `logged` rulings the replay did not reproduce. The log holds the monitor's rulings in
    the order they were made, so they are the start of what the replay produces, and what
    follows them was never written: a crash came between an input and its rulings. Lines the
    monitor did not make are passed over: the coach's (`coach`) and the session's own
    warnings (a pad, the camera). A logged ruling the replay does not reproduce (a log from
    another version or other settings) leaves nothing to recover: the two do not agree on
    what was ruled."""
    n = mismatched = 0
    for obj in logged:
        if n < len(produced) and obj == produced[n]:
            n += 1
        elif not ("coach" in obj or obj.get("ruling") == "warning"):
            mismatched += 1
    return ([] if mismatched else list(produced[n:])), mismatched
