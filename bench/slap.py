"""Slap timing bench: are slap decisions right, how fast are they, what debounce do pads need?

Simulates both players slapping the same spit pile (the case where timing decides, R18) with
true offsets from 0.01 ms to 200 ms, bounce trains of 1–6 ms, 10 µs (σ) timestamp jitter and
random delivery order, through the real code path: stamped gpiozero MockFactory pins →
hardware.pads.Pads → referee.slaps.SlapArbiter. Prints, per offset band, the fraction decided
correctly, called too close (re-slap), and decided wrongly; then the callback-to-decision
latency with the real watcher thread; then debounce-window sweeps for arcade buttons and piezo
pads.

    .venv/bin/python bench/slap.py [--trials 4000] [--live 60] [--seed 1]
"""
from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hardware.mockpads import PadPresser, bounce_train, mock_factory  # noqa: E402
from hardware.pads import PadDebouncer, Pads, PadTiming, SlapEvent  # noqa: E402
from referee.slaps import DEFAULT_TIE_WINDOW_NS, Slap, SlapArbiter  # noqa: E402

PINS = {"p1.left": 17, "p1.right": 27, "p2.left": 22, "p2.right": 23}
MS = 1_000_000
JITTER_NS = 10_000  # σ of the kernel timestamp error assumed per edge
BANDS_MS = [(0.01, 0.1), (0.1, 0.5), (0.5, 1.0), (1.0, 10.0), (10.0, 200.0)]


def _jittered(edges, rng):
    out = [(t + round(rng.gauss(0, JITTER_NS)), lv) for t, lv in edges]
    # a line's kernel stamps never go backwards
    for i in range(1, len(out)):
        if out[i][0] <= out[i - 1][0]:
            out[i] = (out[i - 1][0] + 1, out[i][1])
    return out


def _slap_edges(t0, rng):
    press = bounce_train(t0, True, rng.randrange(1 * MS, 6 * MS + 1), rng)
    hold = rng.randrange(40 * MS, 150 * MS)
    release = bounce_train(t0 + hold, False, rng.randrange(1 * MS, 6 * MS + 1), rng)
    return _jittered(press + release, rng)


def accuracy(trials: int, seed: int, tie_window_ns: int = DEFAULT_TIE_WINDOW_NS) -> None:
    rng = random.Random(seed)
    counts = {band: [0, 0, 0] for band in BANDS_MS}  # correct, too close, wrong
    widest_tie_ms = 0.0
    cpu_ns: list[int] = []
    factory = mock_factory()
    now = [0]
    events: list[SlapEvent] = []
    pads = Pads(PINS, factory, clock=lambda: now[0], watch=False,
                sink=lambda e: events.append(e) if isinstance(e, SlapEvent) else None)
    presser = PadPresser(factory, PINS)
    base = 1_000 * 1_000_000_000
    for _ in range(trials):
        offset_ms = math.exp(rng.uniform(math.log(0.01), math.log(200.0)))
        offset = round(offset_ms * MS)
        first = rng.choice(("p1", "p2"))
        second = "p2" if first == "p1" else "p1"
        side = rng.choice(("left", "right"))
        t_first, t_second = base + 10 * MS, base + 10 * MS + offset
        deliveries = [(f"{first}.{side}", _slap_edges(t_first, rng)),
                      (f"{second}.{side}", _slap_edges(t_second, rng))]
        rng.shuffle(deliveries)  # arrival order is random; only the stamps may decide
        events.clear()
        arb = SlapArbiter(tie_window_ns)
        arb.arm(base)
        start = time.perf_counter_ns()
        for pad, edges in deliveries:
            presser.edges(pad, edges)
        now[0] = base + 500 * MS
        pads.poll(now[0])
        for e in events:
            arb.record(Slap(e.t_ns, e.player, e.pile))
        out = arb.decision()
        cpu_ns.append(time.perf_counter_ns() - start)
        band = next(b for b in BANDS_MS if b[0] <= offset_ms <= b[1])
        if out is None:
            raise SystemExit(f"no decision at offset {offset_ms} ms: a slap was lost")
        if out.too_close:
            counts[band][1] += 1
            widest_tie_ms = max(widest_tie_ms, offset_ms)
        elif out.piles[f"spit.{side}"] == first:
            counts[band][0] += 1
        else:
            counts[band][2] += 1
        base += 1_000 * MS
    pads.close()
    print(f"== decisions: {trials} same-pile slap pairs, bounce 1-6 ms, jitter σ "
          f"{JITTER_NS / 1000:g} µs, tie window {tie_window_ns / MS:g} ms")
    print(f"{'true offset (ms)':>18} {'n':>6} {'correct':>8} {'too close':>10} {'wrong':>6}")
    for (lo, hi), (ok, tie, bad) in counts.items():
        n = ok + tie + bad
        if n:
            print(f"{lo:>8g} – {hi:<7g} {n:>6} {ok / n:>8.4f} {tie / n:>10.4f} {bad / n:>6.4f}")
    decided_ok = sum(c[0] for b, c in counts.items() if b[0] >= 0.1)
    wrong = sum(c[2] for c in counts.values())
    print(f"wrong decisions: {wrong}; widest true offset called too close: "
          f"{widest_tie_ms:.3f} ms; correct decisions at >= 0.1 ms: {decided_ok}")
    cpu_ns.sort()
    print(f"CPU per slap pair (two bounce trains through mock pins, debounce, arbitration): "
          f"median {statistics.median(cpu_ns) / 1000:.0f} µs, p99 "
          f"{cpu_ns[int(len(cpu_ns) * 0.99)] / 1000:.0f} µs")


def live_latency(trials: int, seed: int) -> None:
    """Real threads and the real clock: from the callback of the second player's last press
    edge to the moment the arbiter has its decision."""
    rng = random.Random(seed)
    factory = mock_factory()
    presser = PadPresser(factory, PINS)
    done = threading.Event()
    state: dict = {}

    def sink(e):
        if isinstance(e, SlapEvent):
            state["arb"].record(Slap(e.t_ns, e.player, e.pile))
            if state["arb"].decision() is not None:
                state["decided"] = time.monotonic_ns()
                done.set()

    lat: list[float] = []
    settle: list[float] = []
    with Pads(PINS, factory, sink=sink):
        for _ in range(trials):
            done.clear()
            state["arb"] = SlapArbiter()
            state["arb"].arm(time.monotonic_ns())
            t = time.monotonic_ns()
            presser.press("p1.left", t)
            t2 = time.monotonic_ns()
            bounce = bounce_train(t2, True, rng.randrange(1 * MS, 6 * MS), rng)
            for when, level in bounce:  # deliver each edge no earlier than its stamp
                while time.monotonic_ns() < when:
                    pass
                presser.edges("p2.left", [(when, level)])
            last_callback = time.monotonic_ns()
            if not done.wait(2):
                raise SystemExit("live: no decision within 2 s")
            lat.append((state["decided"] - last_callback) / MS)
            settle.append((state["decided"] - t2) / MS)
            presser.release("p1.left", time.monotonic_ns())
            presser.release("p2.left", time.monotonic_ns())
            time.sleep(0.2)  # a hand's pace: faster than ~8 slaps a second is chatter
    print(f"== live latency ({trials} slaps, watcher thread, real clock, min_press "
          f"{PadTiming().min_press_ms:g} ms)")
    print(f"last edge callback → decision: median {statistics.median(lat):.2f} ms, max "
          f"{max(lat):.2f} ms; second slap's first edge → decision: median "
          f"{statistics.median(settle):.2f} ms, max {max(settle):.2f} ms")


def _doubles(timing: PadTiming, make_edges, trials: int, rng) -> tuple[float, float, float]:
    """Fractions of physical presses reported twice or more, not at all, and stamped later
    than their first edge."""
    double = missed = late = 0
    for _ in range(trials):
        deb = PadDebouncer("p1.left", timing)
        deb.start(0, False)
        edges = make_edges(10 * MS, rng)
        slaps = []
        for t, lv in edges:
            slaps += [e for e in deb.edge(t, lv) if isinstance(e, SlapEvent)]
        slaps += [e for e in deb.poll(10_000 * MS) if isinstance(e, SlapEvent)]
        double += len(slaps) > 1
        missed += not slaps
        late += bool(slaps) and slaps[0].t_ns != edges[0][0]
    return double / trials, missed / trials, late / trials


def _button(t0, rng):
    return _slap_edges(t0, rng)


def _piezo(t0, rng):
    # A piezo disc behind a comparator: a slap rings for 5–30 ms as a train of 0.05–1 ms
    # pulses with gaps of up to 4 ms; there is no steady "held" level.
    edges, t = [], t0
    end = t0 + rng.randrange(5 * MS, 30 * MS)
    while t < end:
        edges.append((t, True))
        t += rng.randrange(50_000, 1 * MS)
        edges.append((t, False))
        t += rng.randrange(100_000, 4 * MS)
    return _jittered(edges, rng)


def sweeps(trials: int, seed: int) -> None:
    rng = random.Random(seed)
    print("== debounce windows: fraction of presses reported twice / missed / stamped late")
    print(f"{'bounce_ms':>10} {'arcade button (min_press 5)':>29} {'piezo (min_press 0)':>24}")
    for window in (1, 2, 5, 10, 20, 30):
        b = _doubles(PadTiming(bounce_ms=window), _button, trials, rng)
        p = _doubles(PadTiming(bounce_ms=window, min_press_ms=0), _piezo, trials, rng)
        print(f"{window:>10}   {b[0]:>7.3f} {b[1]:>7.3f} {b[2]:>7.3f}      "
              f"{p[0]:>7.3f} {p[1]:>7.3f} {p[2]:>7.3f}")
    p = _doubles(PadTiming(bounce_ms=40), _piezo, trials, rng)
    print(f"piezo with the button default min_press 5 ms, bounce 40 ms: twice {p[0]:.3f}, "
          f"missed {p[1]:.3f} (a piezo never holds a level: set min_press_ms 0)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=4000)
    ap.add_argument("--live", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    accuracy(args.trials, args.seed)
    accuracy(args.trials, args.seed + 1, tie_window_ns=100_000)
    live_latency(args.live, args.seed)
    sweeps(max(200, args.trials // 8), args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
