"""Value checks for command-line options (argparse `type=`), shared by every command.

A bad value is a usage error: argparse prints `argument --settle: must be a number above 0, got
'inf'` with the command's usage and exits 2, before any work starts. Numbers must be finite
("nan" and "inf" parse as floats but are never a sensible setting).
"""
from __future__ import annotations

import argparse
import math
from pathlib import PurePath
from typing import Callable


def _number(text: str, wanted: str, ok: Callable[[float], bool]) -> float:
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not math.isfinite(x) or not ok(x):
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
    return x


def _whole(text: str, wanted: str, ok: Callable[[int], bool]) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}") from None
    if not ok(n):
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
    return n


def positive_float(text: str) -> float:
    """A finite number above 0 (seconds, millimetres, ...)."""
    return _number(text, "a number above 0", lambda x: x > 0)


def probability(text: str) -> float:
    """A number from 0 to 1 (a confidence)."""
    return _number(text, "a number from 0 to 1", lambda x: 0.0 <= x <= 1.0)


def positive_int(text: str) -> int:
    """A whole number above 0 (a count of games, ...)."""
    return _whole(text, "a whole number above 0", lambda n: n > 0)


def float_between(low: float, high: float, why: str = "") -> Callable[[str], float]:
    """A finite number from `low` to `high`; `why` is added to the message."""
    wanted = f"a number from {low:g} to {high:g}" + (f" ({why})" if why else "")

    def check(text: str) -> float:
        return _number(text, wanted, lambda x: low <= x <= high)

    check.__name__ = wanted
    return check


def file_ending(*suffixes: str) -> Callable[[str], str]:
    """A file name ending in one of `suffixes` (".pdf", ".png"; any case)."""
    def check(text: str) -> str:
        if PurePath(text).suffix.lower() not in {s.lower() for s in suffixes}:
            raise argparse.ArgumentTypeError(
                f"{text!r}: the file name must end in {' or '.join(suffixes)}")
        return text
    check.__name__ = f"file name ending in {' or '.join(suffixes)}"
    return check
