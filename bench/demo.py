"""The demo's figures (issue 6): rulings against the bots' true moves over many demo games,
ruling latency in frames, and the demo's speed.

    python bench/demo.py [--games 20] [--first-seed 1] [--max-frames N]

Each game is the whole `spit-referee demo` pipeline: rendered frames at 30 fps, the real vision
reader, the monitor, pads on gpiozero's MockFactory. Prints one line per game and the totals:
wrong rulings (must be 0), true moves matched, illegal plays caught, latency median and p99.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.live.demo import DemoConfig, run_demo  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--max-frames", type=int, default=None)
    ap.add_argument("--fast", action="store_true", help="bots at racing speed (FAST_BOT)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    wrong = matched = moves = caught = illegal = 0
    latency: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.first_seed, args.first_seed + args.games):
            r = run_demo(DemoConfig(seed=seed, plain=True, max_frames=args.max_frames, fast=args.fast,
                                    log=Path(tmp) / f"demo-{seed}.jsonl"))
            c = r.comparison
            m = c.true_moves - (c.missed - c.missed_illegal)
            wrong += c.wrong
            matched += m
            moves += c.true_moves
            caught += c.true_illegal - c.missed_illegal
            illegal += c.true_illegal
            latency += r.latency_frames
            print(f"seed {seed:3d}: {r.frames:5d} frames in {r.wall_s:6.1f} s "
                  f"({1000 * r.wall_s / max(1, r.frames):5.1f} ms/frame), moves matched {m}/"
                  f"{c.true_moves}, illegal caught {c.true_illegal - c.missed_illegal}/"
                  f"{c.true_illegal}, wrong {c.wrong}", flush=True)
    lat = sorted(latency)
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else None
    print(f"total over {args.games} games: wrong rulings {wrong}; moves matched {matched}/{moves} "
          f"({100 * matched / max(1, moves):.1f} %); illegal plays caught {caught}/{illegal}; "
          f"ruling latency in frames: median {statistics.median(lat) if lat else None}, p99 {p99}")
    return 0 if wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
