"""The coaching section of `spit-referee report` from files: this log's coaching figures and
the earlier games' in the same folder (referee.coaching does the pure work).

Earlier games are the other `*.jsonl` logs in the log's folder modified before it, newest first
(the true move lists that `demo` and `simulate --log` write beside their logs, `.truth.jsonl`
and `.moves.jsonl`, are not logs). Only regular files are looked at (reading a FIFO or a device
named `*.jsonl` could wait for ever); a file that holds no dealt round is not a game and is left
out, and one that cannot be read or replayed is left out with a note (`skipped`): a neighbour
never stops the report of the log asked for.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.coaching import (Coaching, CoachingConfig, Trend, coaching_from_lines, compare,
                              comparison_json)
from referee.live.replay import LogFileError, read_lines
from referee.monitor import MonitorConfig

# The last five games say how a player is doing now, and each one more costs a replay of its
# log through the monitor (seconds of CPU for a game with many hidden moves).
MAX_EARLIER_GAMES = 5
_NOT_LOGS = (".truth.jsonl", ".moves.jsonl")  # true move lists written beside logs


@dataclass(frozen=True)
class CoachingSection:
    coaching: Coaching
    trends: dict[str, dict[str, Trend]]
    earlier: list[Path]          # the earlier games compared with, oldest first
    skipped: list[tuple[Path, str]] = field(default_factory=list)  # (log, why it was left out)

    def to_json(self) -> dict[str, Any]:
        return self.coaching.to_json() | {"comparison": comparison_json(self.trends),
                                          "earlier_logs": [p.name for p in self.earlier]}


def coaching_of(path: str | os.PathLike[str], monitor_config: MonitorConfig | None = None,
                config: CoachingConfig | None = None,
                lines: list[tuple[int, str]] | None = None) -> Coaching:
    """The coaching figures of the log at `path`; `lines`: its lines when the caller has read
    them already (a pipe given as the log can be read only once)."""
    read = read_lines(path) if lines is None else lines
    return coaching_from_lines((line for _, line in read), monitor_config, config)


def earlier_logs(path: str | os.PathLike[str], limit: int = MAX_EARLIER_GAMES) -> list[Path]:
    """Other logs in `path`'s folder modified before it: the newest `limit`, oldest first."""
    path = Path(path)
    try:
        mine = path.stat().st_mtime
        candidates = list(path.resolve().parent.glob("*.jsonl"))
    except OSError:
        return []
    older = []
    for other in candidates:
        if other.name.endswith(_NOT_LOGS) or other.resolve() == path.resolve():
            continue
        try:
            st = other.stat()
        except OSError:
            continue  # removed while we looked, or a broken link
        if not stat.S_ISREG(st.st_mode):
            continue  # a folder, FIFO or device named *.jsonl is no log
        mtime = st.st_mtime
        if mtime < mine:
            older.append((mtime, other))
    older.sort()
    return [p for _, p in older[-limit:]] if limit > 0 else []


def coaching_section(path: str | os.PathLike[str], monitor_config: MonitorConfig | None = None,
                     config: CoachingConfig | None = None,
                     lines: list[tuple[int, str]] | None = None) -> CoachingSection:
    """This log's coaching figures (`lines`: as for coaching_of) and its earlier games'."""
    now = coaching_of(path, monitor_config, config, lines)
    used: list[Path] = []
    figures: list[Coaching] = []
    skipped: list[tuple[Path, str]] = []
    for other in earlier_logs(path):
        try:
            c = coaching_of(other, monitor_config, config)
        except LogFileError as exc:
            skipped.append((other, str(exc)))
            continue
        except Exception as exc:  # a neighbour the monitor cannot replay: leave it out, say so
            skipped.append((other, f"cannot be replayed ({type(exc).__name__}: {exc})"))
            continue
        if c.rounds:
            used.append(other)
            figures.append(c)
    return CoachingSection(now, compare(now, figures), used, skipped)
