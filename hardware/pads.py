"""Slap pads: GPIO edges with kernel timestamps → `SlapEvent`s, and pad faults → `PadWarning`s.

Four pads, one per player beside each spit pile (`p1.left`, `p1.right`, `p2.left`, `p2.right`).
Each pin is read through a gpiozero pin factory whose `when_changed(ticks, state)` handler gets
the edge's own time (on the lgpio factory: the kernel's event timestamp, CLOCK_MONOTONIC; see
hardware/backend.py). Library and kernel debounce are switched off because they report the time
debounce *ended*; our own debounce keeps the time of a press's FIRST edge.

A press is reported only once it is real: the pad has stayed pressed, with no edge, for
`min_press_ms` (EMI spikes and a floating pin's flicker do not), and its reported time is still
that first edge. Edges inside a press (bounce) are ignored. Faults are reported as warnings and
never as slaps: a pad down when opened (stuck), a pad held longer than `stuck_ms` (never
released), more presses per second than a hand can make (chatter), edges that never make a press
(a disconnected or floating input). A chattering or flickering pad is muted until it has been
quiet for `quiet_ms`, so a faulty pad can never decide a slap (R18).

Nothing here decides anything: `referee.slaps` does, from the `slap` log lines these events become.
"""
from __future__ import annotations

import queue
import threading
from collections import deque
from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable, Iterator, Mapping, Union

from hardware.clock import Clock, monotonic_ns, ms_to_ns, ns_to_seconds, ticks_to_ns
from referee.errors import UserError
from referee.zones import PLAYERS

# The watcher settles a press from the clock, while edges reach us a little after their kernel
# stamp (lgpio's callback thread: well under a millisecond). Settling only deadlines older than
# this margin means no edge still in flight can belong before a settled deadline.
DELIVERY_MARGIN_NS = 2_000_000

PAD_NAMES: tuple[str, ...] = tuple(f"{p}.{side}" for p in PLAYERS for side in ("left", "right"))


def pad_for(player: str, pile: str) -> str:
    """(`p1`, `spit.left`) → `p1.left`: the pad a player slaps a pile on (pad_player_pile's
    inverse)."""
    return f"{player}.{pile.split('.', 1)[1]}"


def pad_player_pile(pad: str) -> tuple[str, str]:
    """`p1.left` → (`p1`, `spit.left`)."""
    if pad not in PAD_NAMES:
        raise PadConfigError(f"unknown pad {pad!r}: pads are {', '.join(PAD_NAMES)}")
    player, side = pad.split(".")
    return player, f"spit.{side}"


class PadConfigError(UserError, ValueError):
    """Pad wiring or timing that cannot work (unknown pad, pin used twice, negative time)."""


class PadSetupError(UserError):
    """A pad's pin could not be opened (invalid pin, pin in use, no edge detection)."""


@dataclass(frozen=True)
class SlapEvent:
    """One pad's press: `player` slapped `pile` at `t_ns` (the first edge, monotonic ns)."""

    t_ns: int
    player: str
    pile: str

    @property
    def pad(self) -> str:
        return pad_for(self.player, self.pile)

    def to_log_line(self) -> dict[str, Any]:
        """The DESIGN.md `slap` line: `{"t": seconds, "slap": {"player": .., "pile": ..}}`."""
        return {"t": ns_to_seconds(self.t_ns), "slap": {"player": self.player, "pile": self.pile}}


class PadFault(Enum):
    STUCK_DOWN = "stuck-down"          # pressed when the pads were opened
    NEVER_RELEASED = "never-released"  # held longer than stuck_ms
    CHATTER = "chatter"                # more presses per second than a hand can make
    DISCONNECTED = "disconnected"      # edges that never make a press: floating input, loose wire
    RECOVERED = "recovered"            # the pad behaves again after one of the faults above


_ADVICE = {
    PadFault.STUCK_DOWN: "is pressed already: lift your hand; if nobody touches it, the switch "
                         "is stuck or wired to the wrong pin or with the wrong pull (pads.pull_up)",
    PadFault.NEVER_RELEASED: "has been held down for {held:.1f} s: lift your hand; if nobody "
                             "touches it, the switch is stuck — its slaps are ignored until it "
                             "is released",
    PadFault.CHATTER: "chatters ({n} presses in {win:.1f} s, more than a hand can make): check "
                      "its switch and wiring, or raise pads.bounce_ms — ignored until quiet",
    PadFault.DISCONNECTED: "flickers without a press ({n} short pulses in {win:.1f} s): a wire "
                           "is loose or the pin is floating (check pads.pull_up) — ignored "
                           "until quiet",
    PadFault.RECOVERED: "works again",
}


@dataclass(frozen=True)
class PadWarning:
    """A pad fault, for a `warning` ruling and for `calibrate pads` diagnostics."""

    t_ns: int
    pad: str
    fault: PadFault
    message: str

    def to_log_line(self) -> dict[str, Any]:
        player, pile = pad_player_pile(self.pad)
        return {"t": ns_to_seconds(self.t_ns), "ruling": "warning", "player": player,
                "pad": self.pad, "fault": self.fault.value, "message": self.message}


@dataclass(frozen=True)
class PressRecord:
    """The timings of one complete press, for `calibrate pads` (all ns, on the edge clock).

    `bounce_ns`: first edge → last edge before the press settled; `hold_ns`: first edge → first
    release edge; `release_bounce_ns`: first release edge → last edge of the release.
    `reported` is False for a press that was muted (chatter) or rejected as a glitch."""

    pad: str
    t_ns: int
    bounce_ns: int
    hold_ns: int
    release_bounce_ns: int
    edges: int
    reported: bool


PadEvent = Union[SlapEvent, PadWarning, PressRecord]


@dataclass(frozen=True)
class PadTiming:
    """Debounce and fault thresholds. Defaults suit arcade buttons (bench/slap.py, README)."""

    # Edges within this long of a press's or release's last edge are contact bounce. Microswitch
    # bounce trains last 1–6 ms; 20 ms leaves room for worn switches and still lets a hand slap
    # the same pad again within a fraction of a second.
    bounce_ms: float = 20.0
    # A press counts once the pad has stayed down this long with no edge. EMI spikes (µs) and a
    # floating pin's flicker do not; a hand on a pad stays down for tens of ms. Piezo pads give
    # pulses of a few ms: set it below their pulse width (calibrate pads measures it).
    min_press_ms: float = 5.0
    # Held longer than this, a pad is reported as never released (a hand resting on it, or a
    # stuck switch). A slap lasts well under a second.
    stuck_ms: float = 3000.0
    # More than this many presses (or short pulses) on one pad within chatter_window_ms is not a
    # hand: people slap one pad at most a few times a second.
    chatter_presses: int = 8
    glitch_pulses: int = 3
    chatter_window_ms: float = 1000.0
    # A muted pad comes back after this long with no edge at all.
    quiet_ms: float = 2000.0

    def __post_init__(self) -> None:
        for name in ("bounce_ms", "min_press_ms", "stuck_ms", "chatter_window_ms", "quiet_ms"):
            if getattr(self, name) < 0:
                raise PadConfigError(f"pads timing {name} must be >= 0 ms, "
                                     f"got {getattr(self, name)}")
        if self.chatter_presses < 2 or self.glitch_pulses < 1:
            raise PadConfigError("chatter_presses must be >= 2 and glitch_pulses >= 1")

    @classmethod
    def from_section(cls, pads: Any) -> "PadTiming":
        """From calibration.store.PadsSection: bounce_ms, stuck_ms, and the min_press_ms that
        `calibrate pads` recommends in `measured` (default when it was not measured)."""
        measured = dict(getattr(pads, "measured", {}) or {})
        min_press = measured.get("min_press_ms", cls.min_press_ms)
        return cls(bounce_ms=float(pads.bounce_ms), stuck_ms=float(pads.stuck_ms),
                   min_press_ms=float(min_press))


class _State(Enum):
    IDLE = "idle"            # released and settled
    PENDING = "pending"      # first edge seen; waiting for the press to settle or vanish
    PRESSED = "pressed"      # a reported (or muted) press, pad still down
    RELEASING = "releasing"  # release edge seen; waiting for the release to settle
    STUCK = "stuck"          # down since opening, or held beyond stuck_ms: nothing counts


class PadDebouncer:
    """One pad's edge logic, pure: feed `edge(t_ns, pressed)` in time order and `poll(now_ns)`
    when `deadline()` passes; both return the events that became certain."""

    def __init__(self, pad: str, timing: PadTiming = PadTiming()) -> None:
        self.pad = pad
        self.player, self.pile = pad_player_pile(pad)
        self.timing = timing
        self._bounce = ms_to_ns(timing.bounce_ms)
        self._min_press = ms_to_ns(timing.min_press_ms)
        self._stuck = ms_to_ns(timing.stuck_ms)
        self._window = ms_to_ns(timing.chatter_window_ms)
        self._quiet = ms_to_ns(timing.quiet_ms)
        self._state = _State.IDLE
        self._pressed = False
        self._last_edge = 0
        self._t0 = 0               # first edge of the current press
        self._settled_edge = 0     # last edge before the press settled
        self._release_t = 0        # first release edge
        self._edges = 0
        self._reported = False
        self._presses: deque[int] = deque()
        self._glitches: deque[int] = deque()
        self._muted_fault: PadFault | None = None
        self._held_state = _State.PRESSED  # the state a RELEASING pad returns to on bounce
        self._stuck_warned = False

    # --- public -------------------------------------------------------------------------------

    @property
    def pressed(self) -> bool:
        return self._pressed

    @property
    def muted(self) -> bool:
        return self._muted_fault is not None or self._state is _State.STUCK

    def start(self, t_ns: int, pressed: bool) -> list[PadEvent]:
        """The pad's level when it was opened. Down already: stuck until released."""
        self._pressed = pressed
        self._last_edge = t_ns
        if pressed:
            self._state = _State.STUCK
            self._t0 = t_ns
            return [self._warn(t_ns, PadFault.STUCK_DOWN)]
        self._state = _State.IDLE
        return []

    def unsettled_since(self) -> int | None:
        """The first edge (ns) of a press not yet settled into a slap or a glitch, or None: a
        slap it may become is stamped then, earlier than slaps of other pads reported since
        (a bouncier press settles later), so no slap at or after it may be judged yet."""
        if self._state is _State.PENDING and self._muted_fault is None:
            return self._t0
        return None

    def deadline(self) -> int | None:
        """When `poll` next has something to decide (ns), or None."""
        s = self._state
        if s is _State.PENDING:
            return self._last_edge + (self._min_press if self._pressed else self._bounce)
        if s is _State.RELEASING:
            return self._last_edge + self._bounce
        if s is _State.PRESSED and not self._stuck_warned:
            return self._t0 + self._stuck
        if self._muted_fault is not None:
            return self._last_edge + self._quiet
        return None

    def poll(self, now_ns: int) -> list[PadEvent]:
        out: list[PadEvent] = []
        while True:
            d = self.deadline()
            if d is None or d > now_ns:
                return out
            out += self._expire(d)

    def edge(self, t_ns: int, pressed: bool) -> list[PadEvent]:
        """A level change stamped `t_ns`. Repeated levels (no change) are ignored."""
        t_ns = max(t_ns, self._last_edge)  # one line's kernel stamps never go back; be safe
        out = self.poll(t_ns - 1) if t_ns > 0 else []
        if pressed == self._pressed:
            return out
        self._pressed = pressed
        self._last_edge = t_ns
        self._edges += 1
        s = self._state
        if s is _State.IDLE:
            if pressed:
                self._begin_press(t_ns)
                if self._min_press == 0:
                    out += self._confirm(t_ns)
        elif s is _State.PENDING:
            pass  # bounce: the press keeps its first edge's time
        elif s in (_State.PRESSED, _State.STUCK):
            if not pressed:
                self._held_state = s
                self._state = _State.RELEASING
                self._release_t = t_ns
        elif s is _State.RELEASING:
            pass  # release bounce (or a bounce inside the press)
        out += self._check_unsettled(t_ns)
        return out

    def _check_unsettled(self, t_ns: int) -> list[PadEvent]:
        """Edges that go on and on without the line ever settling are noise, not a hand: a
        floating pin while pressing, a failing switch while releasing. Mute the pad."""
        if self._muted_fault is not None:
            return []
        if self._state is _State.PENDING and t_ns - self._t0 > self._window:
            return [self._mute(t_ns, PadFault.DISCONNECTED, self._edges // 2)]
        if self._state is _State.RELEASING and t_ns - self._release_t > self._window:
            return [self._mute(t_ns, PadFault.CHATTER, self._edges // 2)]
        return []

    # --- internals ----------------------------------------------------------------------------

    def _begin_press(self, t_ns: int) -> None:
        self._state = _State.PENDING
        self._t0 = t_ns
        self._settled_edge = t_ns
        self._edges = 1
        self._reported = False
        self._stuck_warned = False

    def _expire(self, d: int) -> list[PadEvent]:
        """The deadline `d` has passed with no edge."""
        s = self._state
        if s is _State.PENDING:
            if self._pressed:
                return self._confirm(d)
            return self._reject(d)
        if s is _State.RELEASING:
            if not self._pressed:
                out = self._finish_press()
                if self._held_state is _State.STUCK:
                    out.append(self._warn(d, PadFault.RECOVERED))
                return out
            # Down again before the release settled: the "release" was bounce inside the same
            # press (a hand shifting on the switch), never a second slap.
            if self._release_t - self._t0 < self._bounce:
                self._settled_edge = self._last_edge
            self._state = self._held_state
            return []
        if s is _State.PRESSED:
            self._stuck_warned = True
            self._state = _State.STUCK
            return [self._warn(d, PadFault.NEVER_RELEASED, held=(d - self._t0) / 1e9)]
        if self._muted_fault is not None:
            self._muted_fault = None
            self._presses.clear()
            self._glitches.clear()
            return [self._warn(d, PadFault.RECOVERED)]
        return []

    def _confirm(self, t_ns: int) -> list[PadEvent]:
        self._state = _State.PRESSED
        self._settled_edge = self._last_edge
        out: list[PadEvent] = []
        self._presses.append(self._t0)
        self._trim(self._presses, self._t0)
        if self._muted_fault is None and len(self._presses) > self.timing.chatter_presses:
            out.append(self._mute(t_ns, PadFault.CHATTER, len(self._presses)))
        if self._muted_fault is None:
            self._reported = True
            out.append(SlapEvent(self._t0, self.player, self.pile))
        return out

    def _reject(self, t_ns: int) -> list[PadEvent]:
        """The pad went back up and stayed up before the press settled: a glitch, not a press."""
        self._state = _State.IDLE
        self._glitches.append(self._t0)
        self._trim(self._glitches, self._t0)
        out: list[PadEvent] = [self._record(hold=self._last_edge - self._t0, release_bounce=0)]
        if self._muted_fault is None and len(self._glitches) >= self.timing.glitch_pulses:
            out.append(self._mute(t_ns, PadFault.DISCONNECTED, len(self._glitches)))
        return out

    def _finish_press(self) -> list[PadEvent]:
        self._state = _State.IDLE
        return [self._record(hold=self._release_t - self._t0,
                             release_bounce=self._last_edge - self._release_t)]

    def _record(self, hold: int, release_bounce: int) -> PressRecord:
        return PressRecord(self.pad, self._t0, self._settled_edge - self._t0, hold,
                           release_bounce, self._edges, self._reported)

    def _mute(self, t_ns: int, fault: PadFault, n: int) -> PadWarning:
        self._muted_fault = fault
        return self._warn(t_ns, fault, n=n, win=self.timing.chatter_window_ms / 1000)

    def _trim(self, times: deque[int], now: int) -> None:
        while times and times[0] <= now - self._window:
            times.popleft()

    def _warn(self, t_ns: int, fault: PadFault, **kw: Any) -> PadWarning:
        return PadWarning(t_ns, self.pad, fault,
                          f"pad {self.pad} (pin of {self.player.upper()} at the "
                          f"{self.pile.split('.')[1]} pile) " + _ADVICE[fault].format(**kw))


Sink = Callable[[PadEvent], None]


class _PadInput:
    """Holds one pin's handler. gpiozero keeps only a weak reference to `when_changed`, so the
    handler is a bound method of this object, which `Pads` keeps alive."""

    def __init__(self, owner: "Pads", pad: str, pin: Any) -> None:
        self.owner, self.pad, self.pin = owner, pad, pin

    def on_change(self, ticks: float, state: int) -> None:
        if state not in (0, 1):  # lgpio reports level 2 for a watchdog timeout: not an edge
            return
        self.owner._on_edge(self.pad, ticks_to_ns(ticks), bool(state) != self.owner.pull_up)


class Pads:
    """The four pads on a gpiozero pin factory. Events go to `sink` (default: an internal queue
    read with `get`/`drain`), from the pin callback thread or the deadline watcher thread, in
    order per pad. Use as a context manager, or call `close()`."""

    def __init__(self, pins: Mapping[str, int], factory: Any, *,
                 timing: PadTiming = PadTiming(), pull_up: bool = True,
                 sink: Sink | None = None, clock: Clock = monotonic_ns,
                 watch: bool = True) -> None:
        _check_pins(pins)
        self.pull_up = pull_up
        self.timing = timing
        self._clock = clock
        self._queue: queue.Queue[PadEvent] = queue.Queue()
        self._sink: Sink = sink if sink is not None else self._queue.put
        self._lock = threading.Condition()
        self._closed = False
        self._debouncers = {pad: PadDebouncer(pad, timing) for pad in pins}
        self._inputs: dict[str, _PadInput] = {}
        try:
            for pad, number in pins.items():
                self._inputs[pad] = _PadInput(self, pad, self._open_pin(factory, pad, number))
        except BaseException:
            self.close()
            raise
        now = clock()
        with self._lock:
            for pad, inp in self._inputs.items():
                self._emit(self._debouncers[pad].start(now, bool(inp.pin.state) != pull_up))
            for inp in self._inputs.values():
                inp.pin.when_changed = inp.on_change
        self._thread: threading.Thread | None = None
        if watch:
            self._thread = threading.Thread(target=self._watch, name="pads-deadlines",
                                            daemon=True)
            self._thread.start()

    @classmethod
    def from_section(cls, section: Any, factory: Any, **kwargs: Any) -> "Pads":
        """The pads a calibration file's `pads` section describes (pins, pull, timing)."""
        return cls(dict(section.pins), factory, timing=PadTiming.from_section(section),
                   pull_up=section.pull_up, **kwargs)

    def _open_pin(self, factory: Any, pad: str, number: int) -> Any:
        try:
            pin = factory.pin(number)
            pin.function = "input"
            pin.pull = "up" if self.pull_up else "down"
            pin.bounce = None  # library/kernel debounce off: it would move the timestamp
            pin.edges = "both"
        except Exception as exc:  # gpiozero raises many PinError kinds; all mean the same here
            raise PadSetupError(
                f"cannot open GPIO {number} for pad {pad}: {exc} — check pads.pins in the "
                f"calibration file (`spit-referee calibrate pads`) and that no other program "
                f"uses the pin") from exc
        return pin

    # --- events -------------------------------------------------------------------------------

    def _on_edge(self, pad: str, t_ns: int, pressed: bool) -> None:
        with self._lock:
            if self._closed:
                return
            self._emit(self._debouncers[pad].edge(t_ns, pressed))
            self._lock.notify_all()

    def poll(self, now_ns: int | None = None) -> None:
        """Settle every pad whose deadline has passed (the watcher thread calls this)."""
        with self._lock:
            now = self._clock() if now_ns is None else now_ns
            for deb in self._debouncers.values():
                self._emit(deb.poll(now))

    def _emit(self, events: list[PadEvent]) -> None:
        for ev in events:
            self._sink(ev)

    def _watch(self) -> None:
        with self._lock:
            while not self._closed:
                deadlines = [d for d in (x.deadline() for x in self._debouncers.values())
                             if d is not None]
                now = self._clock() - DELIVERY_MARGIN_NS
                if deadlines and min(deadlines) <= now:
                    for deb in self._debouncers.values():
                        self._emit(deb.poll(now))
                    continue
                wait_s = 0.5 if not deadlines else (min(deadlines) - now) / 1e9
                self._lock.wait(timeout=min(0.5, wait_s))

    def pressed(self) -> dict[str, bool]:
        """Each pad's current debounced level (True = down)."""
        with self._lock:
            return {pad: d.pressed for pad, d in self._debouncers.items()}

    def get(self, timeout: float | None = None) -> PadEvent | None:
        """The next event from the internal queue (None after `timeout` seconds)."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def drain(self) -> list[PadEvent]:
        out = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out

    def take(self) -> tuple[list[PadEvent], int | None]:
        """The events waiting, and the first edge (ns) of the earliest press still settling
        on any pad (None if none), read together: a slap is reported once its press has
        settled, so a pad that bounced longer reports a slap stamped before others already
        reported. R18 orders slaps by their stamps, so slaps at or after that edge must wait
        until it settles (RefereeSession.hold_slaps_from)."""
        with self._lock:
            since = [t for t in (d.unsettled_since() for d in self._debouncers.values())
                     if t is not None]
            return self.drain(), min(since, default=None)

    def slaps(self) -> Iterator[SlapEvent]:
        """The SlapEvents waiting in the internal queue (other events are dropped)."""
        return (e for e in self.drain() if isinstance(e, SlapEvent))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        thread = getattr(self, "_thread", None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2)
        for inp in self._inputs.values():
            try:
                inp.pin.when_changed = None
                inp.pin.close()
            except Exception:  # closing must never hide the error that brought us here
                pass
        self._inputs = {}

    def __enter__(self) -> "Pads":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_pins(pins: Mapping[str, int]) -> None:
    for pad in pins:
        pad_player_pile(pad)
    numbers = list(pins.values())
    dup = {n for n in numbers if numbers.count(n) > 1}
    if dup:
        raise PadConfigError(f"GPIO {', '.join(map(str, sorted(dup)))} is given to more than one "
                             "pad: each pad needs its own pin (pads.pins)")
    if not pins:
        raise PadConfigError("no pads configured (pads.pins is empty)")
