"""The one clock of DESIGN.md: CLOCK_MONOTONIC in integer nanoseconds.

The kernel's GPIO edge timestamps, picamera2's SensorTimestamp and `time.monotonic_ns()` all
read CLOCK_MONOTONIC, so a slap and a camera frame can be put in order. Log lines carry seconds
(float); everything inside the program carries integer nanoseconds, so that two slaps 10 µs
apart never collapse into the same float.
"""
from __future__ import annotations

import time
from typing import Callable

Clock = Callable[[], int]
"""Anything returning the current time in monotonic nanoseconds (injectable in tests)."""

NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000


def monotonic_ns() -> int:
    """Now, on CLOCK_MONOTONIC, in nanoseconds."""
    return time.monotonic_ns()


def ticks_to_ns(ticks: float) -> int:
    """A gpiozero edge tick (seconds as a float, as the lgpio and mock pin factories report it)
    to integer nanoseconds. A double holds ~15.9 significant digits, so after days of uptime
    (1e5–1e6 s) the rounding error is far below 1 ns."""
    return round(ticks * NS_PER_S)


def ns_to_seconds(t_ns: int) -> float:
    """Nanoseconds to the float seconds of the log's `t` field."""
    return t_ns / NS_PER_S


def ms_to_ns(ms: float) -> int:
    return round(ms * NS_PER_MS)
