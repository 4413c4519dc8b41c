"""The `Observation`: what the camera saw on each zone at one moment (DESIGN.md, contracts.md).

A reading is a card code (`7H`), `back`, `empty` or `?`; `confidence` is the reader's belief
in that reading, 0..1. An observation may name only some of the twelve zones: in the event log
a zone it omits keeps its last reading. `t_ns` is CLOCK_MONOTONIC in nanoseconds, the one clock
of DESIGN.md; the log line carries it as seconds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from referee.cards import CARD_CODES
from referee.errors import UserError
from referee.zones import ALL_ZONES, SPECIAL_READINGS, UNKNOWN, check_zone

NS_PER_S = 1_000_000_000


class InvalidObservationError(UserError, ValueError):
    """An observation with an unknown zone, a reading that is no card code, or a bad confidence."""


def check_reading(reading: str) -> str:
    """`reading` if it is a card code, `back`, `empty` or `?`; else InvalidObservationError."""
    # Exact codes only: a reader that printed "7h" has a bug we want to see, not hide.
    if reading in SPECIAL_READINGS or reading in CARD_CODES:
        return reading
    raise InvalidObservationError(
        f"reading {reading!r} is neither a card code (like 7H, 10S, AC) nor back/empty/?"
    )


@dataclass(frozen=True)
class Observation:
    """Zone readings at time `t_ns`. Confidence defaults to 1.0 for `?` and to 0.0 for any
    zone the reader gave none for, so a missing confidence never reads as certainty."""

    t_ns: int
    readings: Mapping[str, str]
    confidence: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.t_ns, int) or isinstance(self.t_ns, bool):
            raise InvalidObservationError(f"t_ns must be integer nanoseconds, got {self.t_ns!r}")
        readings: dict[str, str] = {}
        for zone, reading in self.readings.items():
            try:
                check_zone(zone)
            except UserError as exc:
                raise InvalidObservationError(str(exc)) from exc
            readings[zone] = check_reading(reading)
        confidence: dict[str, float] = {}
        for zone, value in self.confidence.items():
            if zone not in readings:
                raise InvalidObservationError(f"confidence given for {zone!r}, which has no reading")
            value = float(value)
            if not 0.0 <= value <= 1.0:
                raise InvalidObservationError(f"confidence of {zone} must be in 0..1, got {value}")
            confidence[zone] = value
        for zone, reading in readings.items():
            confidence.setdefault(zone, 1.0 if reading == UNKNOWN else 0.0)
        # Frozen means frozen: the mappings cannot be changed behind the dataclass's back.
        object.__setattr__(self, "readings", MappingProxyType(_ordered(readings)))
        object.__setattr__(self, "confidence", MappingProxyType(_ordered(confidence)))

    @classmethod
    def unknown(cls, t_ns: int, zones: tuple[str, ...] = ALL_ZONES) -> "Observation":
        """Every zone `?`: nothing can be read (no table in view, a bad frame)."""
        return cls(t_ns, {z: UNKNOWN for z in zones}, {z: 1.0 for z in zones})

    @property
    def t(self) -> float:
        """Seconds on the monotonic clock, as in the event log."""
        return self.t_ns / NS_PER_S

    def to_log_line(self) -> dict:
        """The DESIGN.md `observe` line: `{"t": seconds, "observe": {zone: reading}}`."""
        return {"t": round(self.t, 6), "observe": dict(self.readings)}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Observation):
            return NotImplemented
        return (self.t_ns == other.t_ns and dict(self.readings) == dict(other.readings)
                and dict(self.confidence) == dict(other.confidence))

    def __hash__(self) -> int:
        return hash((self.t_ns, tuple(self.readings.items())))


def _ordered(d: dict[str, object]) -> dict:
    """Zones in DESIGN.md order, so printed observations and log lines are stable."""
    return {z: d[z] for z in ALL_ZONES if z in d}
