"""Reading a log file for `replay` and `report`: run the monitor over its input lines.

Blank lines are skipped (their numbers still count, so warnings name the file's real line);
a torn or broken line becomes a `warning` ruling, as any bad input does. A file with no input
line at all (empty, blank, only rulings, or nothing readable) is refused: there is nothing to
referee, and a run that prints nothing would look like a game without events.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Iterator

from referee.errors import UserError
from referee.log import LogLineError, RulingRecord, parse_line
from referee.monitor import Monitor, MonitorConfig
from referee.rulings import Ruling

_WHAT_A_LOG_HOLDS = ("a log must hold the table's `observe` lines (with `slap` lines from the "
                     "pads, and a `start` line to begin mid-game), as `spit-referee run`, "
                     "`demo` and `simulate --log` write them")


class LogFileError(UserError):
    """The log file cannot be read."""


class NoInputsError(LogFileError):
    """The log file holds no `start`, `observe` or `slap` line: nothing to referee."""


def read_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line of a JSONL file. A UTF-8 byte order mark at
    the start (some Windows editors write one) is not part of line 1."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
    except FileNotFoundError:
        raise LogFileError(f"{path}: no such log file; check the path") from None
    except IsADirectoryError:
        raise LogFileError(f"{path} is a directory: give one .jsonl log file") from None
    except OSError as exc:
        raise LogFileError(f"{path}: cannot read the log ({exc.strerror})") from None
    for i, line in enumerate(text.split("\n"), start=1):  # as the event log counts them
        if line.strip():
            yield i, line


def has_inputs(lines: Iterable[tuple[int, str]]) -> bool:
    """Whether any line is a well-formed `start`, `observe` or `slap` (stops at the first)."""
    for lineno, line in lines:
        try:
            if not isinstance(parse_line(line, lineno), RulingRecord):
                return True
        except LogLineError:
            continue
    return False


def no_inputs_error(path: str | os.PathLike[str],
                    lines: Iterable[tuple[int, str]]) -> NoInputsError:
    """The error for a log without inputs, saying what the file holds instead."""
    rulings, first_problem, count = 0, None, 0
    for lineno, line in lines:
        count += 1
        try:
            if isinstance(parse_line(line, lineno), RulingRecord):
                rulings += 1
        except LogLineError as exc:  # the examples of a good line follow below: not twice
            first_problem = first_problem or str(exc).split(": each line must be")[0]
    if count == 0:
        holds = "holds no line (it is empty or blank)"
    elif rulings == count:
        holds = (f"holds only rulings ({rulings} lines, which `spit-referee report` reads "
                 "as they are)")
    else:
        holds = f"holds {count} line(s) but no usable one (first: {first_problem})"
    return NoInputsError(f"{path} {holds}: no start, observe or slap line to referee; "
                         f"{_WHAT_A_LOG_HOLDS}")


def replay(path: str | os.PathLike[str], config: MonitorConfig | None = None) -> list[Ruling]:
    """The rulings the monitor makes over the log's `start`, `observe` and `slap` lines;
    NoInputsError when it has none."""
    return replay_lines(list(read_lines(path)), path, config)


def replay_lines(lines: list[tuple[int, str]], path: str | os.PathLike[str],
                 config: MonitorConfig | None = None) -> list[Ruling]:
    """`replay` of lines already read from `path` (a pipe can be read only once)."""
    if not has_inputs(lines):
        raise no_inputs_error(path, lines)
    monitor = Monitor(config)
    out: list[Ruling] = []
    for lineno, line in lines:
        out.extend(monitor.feed(line, lineno))
    return out
