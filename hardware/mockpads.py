"""Simulated slap pads on gpiozero's MockFactory, with edge timestamps we choose.

`MockPin.drive_low()` stamps an edge with the time the Python call ran; a real kernel stamps
the instant the contact closed. `StampedMockPin.edge_at` delivers an edge with a given stamp
through the same `when_changed(ticks, state)` path the lgpio factory uses, so tests, the demo
and bench/slap.py drive exactly the code that runs on a Pi.
"""
from __future__ import annotations

import random
from typing import Iterable, Mapping

from gpiozero.pins.mock import MockFactory, MockPin, PinState
from gpiozero.pins.pi import PiPin

from hardware.clock import NS_PER_MS, NS_PER_S


class StampedMockPin(MockPin):
    """A MockPin whose level changes carry an injected timestamp (monotonic ns)."""

    _held: bool | None = None

    def hold_at(self, level: bool) -> None:
        """Force the input to `level` whatever the pull, as a hand on a pad (or a stuck switch)
        does; MockPin would otherwise snap to the pull when the pads set it."""
        self._held = level
        self._state = level

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        if self._held is not None:
            self._state = self._held

    def edge_at(self, t_ns: int, level: bool) -> None:
        """The input goes to `level` (True = high) at `t_ns`; fires `when_changed` like lgpio."""
        assert self._function == "input", "edge_at drives inputs only"
        self._held = None
        if self._state == level:
            return
        t = t_ns / NS_PER_S
        self._state = level
        self.states.append(PinState(t - self._last_change, level))
        self._last_change = t
        wanted = ("both", "rising") if level else ("both", "falling")
        if self._edges in wanted and self._when_changed is not None:
            PiPin._call_when_changed(self, t, int(level))


def mock_factory() -> MockFactory:
    return MockFactory(pin_class=StampedMockPin)


def bounce_train(t0_ns: int, to_level: bool, duration_ns: int, rng: random.Random,
                 ) -> list[tuple[int, bool]]:
    """Edges of a contact settling to `to_level`: the first edge at `t0_ns`, then bounces until
    `duration_ns` later, ending at `to_level`. duration 0 gives one clean edge."""
    edges = [(t0_ns, to_level)]
    if duration_ns <= 0:
        return edges
    # Bounces get shorter as the contact settles; 2–8 flips for a 1–6 ms train is typical of
    # microswitches.
    flips = rng.randrange(1, 4) * 2
    times = sorted(rng.randrange(1, duration_ns + 1) for _ in range(flips))
    level = to_level
    for t in times:
        level = not level
        edges.append((t0_ns + t, level))
    if edges[-1][1] != to_level:
        edges.append((t0_ns + duration_ns, to_level))
    return _strictly_increasing(edges)


def _strictly_increasing(edges: list[tuple[int, bool]]) -> list[tuple[int, bool]]:
    out: list[tuple[int, bool]] = []
    for t, lv in edges:
        if out and t <= out[-1][0]:
            t = out[-1][0] + 1
        out.append((t, lv))
    return out


class PadPresser:
    """Presses pads on mock pins: `press(pad, t_ns, bounce_ms)` / `release(...)`."""

    def __init__(self, factory: MockFactory, pins: Mapping[str, int], pull_up: bool = True,
                 rng: random.Random | None = None) -> None:
        self.factory = factory
        self.pins = dict(pins)
        self.pull_up = pull_up
        self.rng = rng or random.Random(0)

    def pin(self, pad: str) -> StampedMockPin:
        pin = self.factory.pin(self.pins[pad])
        if not isinstance(pin, StampedMockPin):
            raise TypeError("use hardware.mockpads.mock_factory() for stamped mock pins")
        return pin

    def level_for(self, pressed: bool) -> bool:
        return pressed != self.pull_up  # pull-up: pressed pulls the line low

    def edges(self, pad: str, edges: Iterable[tuple[int, bool]]) -> None:
        """Deliver raw edges given as (t_ns, pressed)."""
        pin = self.pin(pad)
        for t, pressed in edges:
            pin.edge_at(t, self.level_for(pressed))

    def press(self, pad: str, t_ns: int, bounce_ms: float = 0.0) -> None:
        self.edges(pad, bounce_train(t_ns, True, round(bounce_ms * NS_PER_MS), self.rng))

    def release(self, pad: str, t_ns: int, bounce_ms: float = 0.0) -> None:
        self.edges(pad, bounce_train(t_ns, False, round(bounce_ms * NS_PER_MS), self.rng))

    def slap(self, pad: str, t_ns: int, hold_ms: float = 80.0, bounce_ms: float = 3.0) -> None:
        """A whole slap: press with bounce, hold, release with bounce."""
        self.press(pad, t_ns, bounce_ms)
        self.release(pad, t_ns + round(hold_ms * NS_PER_MS), bounce_ms)
