"""`spit-referee calibrate pads`: find which GPIO pin each slap pad is on, measure how the pads
bounce and how long a slap holds, and save the wiring and timing to the calibration file.

Guided: for each pad in turn the player presses it a few times and presses Enter; the pin that
moved is that pad's pin, and its raw edges (kernel timestamps, no debounce) give the bounce and
hold times. From them the step sets `pads.bounce_ms` and records `measured` (with the
`min_press_ms` hardware.pads uses). `--check` runs a press test with the saved settings and
prints each press's timings and any pad fault, without saving.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from hardware.clock import Clock, NS_PER_MS, monotonic_ns
from hardware.pads import (
    PAD_NAMES,
    PadDebouncer,
    PadEvent,
    Pads,
    PadTiming,
    PadWarning,
    PressRecord,
    SlapEvent,
    pad_player_pile,
)
from referee.errors import UserError

DEFAULT_PRESSES = 3
# Measuring timing: presses are split where the line has been still for this long. Longer than
# any contact bounce we have seen (bench/slap.py: ≤ 6 ms) so bounce never splits a press.
SEGMENT_GAP_MS = 30.0
# Recommended debounce: twice the longest bounce train measured (worn switches bounce longer),
# never below 10 ms (bench/slap.py: 5 ms already lets a few 1–6 ms trains through late).
MIN_BOUNCE_MS = 10.0
BOUNCE_SAFETY = 2.0
# Healthy microswitches settle within ~6 ms (bench/slap.py's model); a pad bouncing longer than
# this has a worn or loose switch worth replacing before a tournament.
WORN_BOUNCE_MS = 10.0
# Presses shorter than this are pulses (piezo pads): min_press_ms 0, report at the first edge.
PULSE_HOLD_MS = 20.0
BUTTON_MIN_PRESS_MS = PadTiming().min_press_ms
# Length of the --check press test: time to walk round the table and press every pad a few times.
CHECK_SECONDS = 30.0


class PadCalibrationError(UserError):
    """The guided pad calibration cannot go on (no press seen, several pins moved, …)."""


Ask = Callable[[str], str]
Say = Callable[[str], None]


@dataclass(frozen=True)
class PadMeasure:
    """The timings of one pad's presses during calibration (ms)."""

    pin: int
    presses: int
    bounce_ms_max: float
    bounce_ms_median: float
    release_bounce_ms_max: float
    hold_ms_min: float
    hold_ms_median: float

    def to_dict(self) -> dict[str, Any]:
        return {k: (round(v, 3) if isinstance(v, float) else v)
                for k, v in dataclasses.asdict(self).items()}


@dataclass(frozen=True)
class PadCalibration:
    pins: Mapping[str, int]
    measures: Mapping[str, PadMeasure]
    bounce_ms: float
    min_press_ms: float
    notes: tuple[str, ...]

    def measured(self) -> dict[str, Any]:
        """The `pads.measured` object of the calibration file."""
        return {"min_press_ms": self.min_press_ms,
                "pads": {pad: m.to_dict() for pad, m in self.measures.items()},
                "notes": list(self.notes)}


class EdgeRecorder:
    """Raw edges (t_ns, pressed) of every candidate pin, with no debounce at all."""

    def __init__(self, factory: Any, pins: Iterable[int], pull_up: bool) -> None:
        self.pull_up = pull_up
        self._lock = threading.Lock()
        self.edges: dict[int, list[tuple[int, bool]]] = {}
        self._pins: dict[int, Any] = {}
        self._handlers: dict[int, Callable[[float, int], None]] = {}
        try:
            for number in pins:
                self._open(factory, number)
        except BaseException:
            self.close()
            raise

    def _open(self, factory: Any, number: int) -> None:
        try:
            pin = factory.pin(number)
            pin.function = "input"
            pin.pull = "up" if self.pull_up else "down"
            pin.bounce = None
            pin.edges = "both"
        except Exception as exc:
            raise PadCalibrationError(f"cannot open GPIO {number}: {exc} — give pins that exist "
                                      "and that no other program uses (--pins)") from exc
        self.edges[number] = []

        def handler(ticks: float, state: int, number: int = number) -> None:
            if state in (0, 1):
                with self._lock:
                    self.edges[number].append((round(ticks * 1e9), bool(state) != self.pull_up))
        # gpiozero keeps a weak reference to the handler: we keep the strong one.
        self._handlers[number] = handler
        self._pins[number] = pin
        pin.when_changed = handler

    def pressed_now(self) -> list[int]:
        return [n for n, pin in self._pins.items() if bool(pin.state) != self.pull_up]

    def mark(self) -> dict[int, int]:
        with self._lock:
            return {n: len(e) for n, e in self.edges.items()}

    def since(self, mark: Mapping[int, int]) -> dict[int, list[tuple[int, bool]]]:
        with self._lock:
            return {n: list(e[mark.get(n, 0):]) for n, e in self.edges.items()}

    def close(self) -> None:
        for pin in self._pins.values():
            try:
                pin.when_changed = None
                pin.close()
            except Exception:
                pass
        self._pins = {}


def measure_presses(pad: str, edges: Sequence[tuple[int, bool]]) -> list[PressRecord]:
    """Split raw edges into presses and time each (bounce, hold, release bounce)."""
    timing = PadTiming(bounce_ms=SEGMENT_GAP_MS, min_press_ms=1.0, chatter_presses=10_000,
                       glitch_pulses=10_000, stuck_ms=600_000)
    deb = PadDebouncer(pad, timing)
    deb.start(edges[0][0] - 1 if edges else 0, False)
    out: list[PadEvent] = []
    for t, pressed in edges:
        out += deb.edge(t, pressed)
    if edges:
        out += deb.poll(edges[-1][0] + 10 * round(SEGMENT_GAP_MS * NS_PER_MS))
    return [e for e in out if isinstance(e, PressRecord) and e.reported]


def summarise(pin: int, records: Sequence[PressRecord]) -> PadMeasure:
    ms = NS_PER_MS
    bounces = [r.bounce_ns / ms for r in records]
    holds = [r.hold_ns / ms for r in records]
    return PadMeasure(pin, len(records), max(bounces), statistics.median(bounces),
                      max(r.release_bounce_ns / ms for r in records), min(holds),
                      statistics.median(holds))


def recommend(measures: Mapping[str, PadMeasure]) -> tuple[float, float, list[str]]:
    """(bounce_ms, min_press_ms, notes) from the measured presses of all pads."""
    notes: list[str] = []
    worst = max(max(m.bounce_ms_max, m.release_bounce_ms_max) for m in measures.values())
    bounce = max(MIN_BOUNCE_MS, math.ceil(BOUNCE_SAFETY * worst))
    if worst > WORN_BOUNCE_MS:
        notes.append(f"a pad bounced for {worst:.1f} ms: its switch is worn or loose; replace it "
                     f"(the debounce now has to be {bounce:g} ms)")
    shortest = min(m.hold_ms_min for m in measures.values())
    if shortest < PULSE_HOLD_MS:
        min_press = 0.0
        notes.append(f"shortest press {shortest:.1f} ms: pulse pads (piezo); presses are taken "
                     "at their first edge with no settle check")
    else:
        min_press = BUTTON_MIN_PRESS_MS
    return float(bounce), min_press, notes


def _pad_words(pad: str) -> str:
    player, pile = pad_player_pile(pad)
    return f"{pad} (player {player[1]}, beside the {pile.split('.')[1]} spit pile)"


def run_guided(factory: Any, candidates: Sequence[int], *, pull_up: bool = True,
               presses: int = DEFAULT_PRESSES, ask: Ask = input, say: Say = print,
               pads: Sequence[str] = PAD_NAMES, retries: int = 2) -> PadCalibration:
    """Map each pad to the pin that moves when it is pressed, and measure its presses.

    `ask(prompt)` returns the user's answer after they pressed the pad (Enter) — "q" stops;
    tests pass an `ask` that drives mock pins."""
    if len(set(candidates)) < len(pads):
        raise PadCalibrationError(f"{len(pads)} pads need at least {len(pads)} different "
                                  f"candidate pins, got {', '.join(map(str, candidates))}")
    rec = EdgeRecorder(factory, candidates, pull_up)
    try:
        down = rec.pressed_now()
        if down:
            raise PadCalibrationError(
                f"GPIO {', '.join(map(str, down))} already reads pressed with nobody touching "
                f"the pads: a stuck switch, a short, or pads wired to 3.3 V "
                f"({'use --pull-down' if pull_up else 'drop --pull-down'})")
        pins: dict[str, int] = {}
        measures: dict[str, PadMeasure] = {}
        for pad in pads:
            for attempt in range(retries + 1):
                mark = rec.mark()
                answer = ask(f"Press {_pad_words(pad)} {presses} times, about a second apart, "
                             "then press Enter (q to stop): ")
                if answer.strip().lower() == "q":
                    raise PadCalibrationError("stopped: nothing was saved")
                try:
                    pin, m = _identify(pad, rec.since(mark), pins, presses)
                except PadCalibrationError as exc:
                    if attempt == retries:
                        raise
                    say(f"  {exc} — try again")
                    continue
                pins[pad], measures[pad] = pin, m
                say(f"  {pad}: GPIO {pin}, {m.presses} presses, bounce up to "
                    f"{m.bounce_ms_max:.2f} ms (release {m.release_bounce_ms_max:.2f} ms), "
                    f"held {m.hold_ms_min:.0f}–{m.hold_ms_median:.0f} ms")
                break
        bounce, min_press, notes = recommend(measures)
        for n in notes:
            say(f"  note: {n}")
        return PadCalibration(pins, measures, bounce, min_press, tuple(notes))
    finally:
        rec.close()


def _identify(pad: str, edges: Mapping[int, list[tuple[int, bool]]], taken: Mapping[str, int],
              presses: int) -> tuple[int, PadMeasure]:
    moved = {n: e for n, e in edges.items() if e}
    if not moved:
        raise PadCalibrationError(
            f"no edge on any candidate pin while {pad} was pressed: check that pad's wiring "
            "(a disconnected pad shows no edges) and that its pin is among --pins")
    if len(moved) > 1:
        raise PadCalibrationError(
            f"GPIO {', '.join(map(str, sorted(moved)))} all changed: press only {pad}, or "
            "check for pads sharing a wire")
    (pin, pin_edges), = moved.items()
    owner = next((p for p, n in taken.items() if n == pin), None)
    if owner is not None:
        raise PadCalibrationError(f"GPIO {pin} is {owner}'s pin: press {pad}, not {owner}")
    records = measure_presses(pad, pin_edges)
    if len(records) < presses:
        raise PadCalibrationError(
            f"saw {len(records)} complete presses of {pad} on GPIO {pin}, wanted {presses}: "
            "press and release fully, about a second apart")
    return pin, summarise(pin, records)


def format_event(ev: PadEvent, t0_ns: int) -> str | None:
    t = (ev.t_ns - t0_ns) / 1e9
    if isinstance(ev, SlapEvent):
        return f"{t:8.3f} s  {ev.pad:<9} slap"
    if isinstance(ev, PressRecord):
        state = "" if ev.reported else "  (not reported)"
        return (f"{t:8.3f} s  {ev.pad:<9} bounce {ev.bounce_ns / 1e6:6.2f} ms  held "
                f"{ev.hold_ns / 1e6:7.1f} ms  release bounce {ev.release_bounce_ns / 1e6:6.2f} ms"
                f"  {ev.edges} edges{state}")
    if isinstance(ev, PadWarning):
        return f"{t:8.3f} s  WARNING {ev.message}"
    return None


def run_check(factory: Any, section: Any, *, duration_s: float = CHECK_SECONDS,
              say: Say = print, clock: Clock = monotonic_ns, watch: bool = True,
              drive: Callable[[], None] | None = None) -> int:
    """Press test with the saved settings: print every press's timings and every fault.
    Returns 0 when every pad was pressed and none reported a fault, else 1.

    `drive` (tests) pushes edges on mock pins instead of waiting `duration_s` for real ones."""
    timing = PadTiming.from_section(section)
    seen: set[str] = set()
    faults: list[PadWarning] = []
    t0 = clock()

    def show(ev: PadEvent) -> None:
        if isinstance(ev, SlapEvent):
            seen.add(ev.pad)
        if isinstance(ev, PadWarning):
            faults.append(ev)
        line = format_event(ev, t0)
        if line:
            say(line)

    say(f"Press each pad a few times ({duration_s:g} s; Ctrl-C stops). Debounce "
        f"{timing.bounce_ms:g} ms, settle {timing.min_press_ms:g} ms.")
    with Pads(dict(section.pins), factory, timing=timing, pull_up=section.pull_up, clock=clock,
              watch=watch) as pads:
        if drive is not None:
            drive()
            pads.poll(clock())
        else:
            end = time.monotonic() + duration_s
            try:
                while time.monotonic() < end:
                    ev = pads.get(timeout=0.2)
                    if ev is not None:
                        show(ev)
            except KeyboardInterrupt:
                say("stopped")
        for ev in pads.drain():
            show(ev)
    missing = [p for p in section.pins if p not in seen]
    if missing:
        say(f"not pressed (or not seen): {', '.join(missing)} — check their wiring, or run "
            "`spit-referee calibrate pads` to map the pins again")
    real_faults = [f for f in faults if f.fault.value != "recovered"]
    if not missing and not real_faults:
        say("all pads OK")
    return 0 if not missing and not real_faults else 1


# --- command line -----------------------------------------------------------------------------

def _pin_list(text: str) -> list[int]:
    try:
        pins = [int(p) for p in text.replace(" ", "").split(",") if p]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--pins wants GPIO numbers like 17,27,22,23, got "
                                         f"{text!r}") from None
    return pins


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--calibration", metavar="FILE", default="calibration.json",
                        help="calibration file to update (default calibration.json)")
    parser.add_argument("--check", action="store_true",
                        help="press test with the saved settings: print timings, save nothing")
    parser.add_argument("--pins", type=_pin_list, metavar="N,N,...",
                        help="candidate BCM GPIO numbers the pads may be on (default: the "
                             "file's pads.pins)")
    parser.add_argument("--presses", type=int, default=DEFAULT_PRESSES,
                        help=f"presses per pad (default {DEFAULT_PRESSES})")
    parser.add_argument("--pull-down", action="store_true",
                        help="pads switch to 3.3 V (pull-down) instead of to ground")
    parser.add_argument("--seconds", type=float, default=CHECK_SECONDS,
                        help=f"length of the --check press test (default {CHECK_SECONDS:g} s)")


def command(args: argparse.Namespace, *, factory: Any = None, ask: Ask = input,
            say: Say = print) -> int:
    from calibration import store
    from hardware.backend import open_pin_factory

    if not args.check:
        # Starts afresh over an older file, or over a bad pads section (keeping a backup), so
        # that the advice "re-run `calibrate pads`" works when followed.
        cal = store.load_for_update(args.calibration, "pads", say)
    elif _exists(args.calibration):
        cal = store.load(args.calibration)
    else:
        cal = store.default_calibration()
        say(f"no calibration file at {args.calibration}: checking the default pins "
            f"({', '.join(f'{p} GPIO {n}' for p, n in cal.pads.pins.items())})")
    if factory is None:
        factory = open_pin_factory()
    try:
        if args.check:
            return run_check(factory, cal.pads, duration_s=args.seconds, say=say)
        if args.presses < 1:
            raise PadCalibrationError("--presses must be at least 1")
        candidates = args.pins or list(cal.pads.pins.values())
        pull_up = not args.pull_down
        say(f"Calibrating slap pads on GPIO {', '.join(map(str, candidates))} "
            f"({'pull-up, pads switch to ground' if pull_up else 'pull-down'}).")
        result = run_guided(factory, candidates, pull_up=pull_up, presses=args.presses,
                            ask=ask, say=say)
        section = dataclasses.replace(cal.pads, pins=dict(result.pins), pull_up=pull_up,
                                      bounce_ms=result.bounce_ms, measured=result.measured())
        store.save(cal.replace_section("pads", section), args.calibration)
        say(f"saved pads to {args.calibration}: debounce {result.bounce_ms:g} ms, settle "
            f"{result.min_press_ms:g} ms; run `spit-referee calibrate pads --check` to test")
        return 0
    finally:
        close = getattr(factory, "close", None)
        if callable(close):
            close()


def _exists(path: str) -> bool:
    from pathlib import Path
    return Path(path).exists()
