"""Reading a log file for `replay` and `report`: run the monitor over its input lines.

Blank lines are skipped (their numbers still count, so warnings name the file's real line);
a torn or broken line becomes a `warning` ruling, as any bad input does.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from referee.errors import UserError
from referee.monitor import Monitor, MonitorConfig
from referee.rulings import Ruling


class LogFileError(UserError):
    """The log file cannot be read."""


def read_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line of a JSONL file."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise LogFileError(f"{path}: no such log file; check the path") from None
    except IsADirectoryError:
        raise LogFileError(f"{path} is a directory: give one .jsonl log file") from None
    except OSError as exc:
        raise LogFileError(f"{path}: cannot read the log ({exc.strerror})") from None
    for i, line in enumerate(text.split("\n"), start=1):  # as the event log counts them
        if line.strip():
            yield i, line


def replay(path: str | os.PathLike[str], config: MonitorConfig | None = None) -> list[Ruling]:
    """The rulings the monitor makes over the log's `start`, `observe` and `slap` lines."""
    monitor = Monitor(config)
    out: list[Ruling] = []
    for lineno, line in read_lines(path):
        out.extend(monitor.feed(line, lineno))
    return out
