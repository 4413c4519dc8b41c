"""The demo's figures (issue 6): rulings against the bots' true moves over many demo games,
ruling latency in frames, and the demo's speed.

    python bench/demo.py [--games 20] [--first-seed 1 | --seeds SEED ...] [--max-frames N]
                         [--fast] [--logs DIR] [--slowest K] [--slow] [--stable-frames N]
                         [--steady-light]
    python bench/demo.py --totals DIR [DIR ...]

Each game is the whole `spit-referee demo` pipeline: rendered frames at 30 fps, the real vision
reader, the monitor, pads on gpiozero's MockFactory. Prints one line per game and the totals:
wrong rulings (must be 0), true moves matched, illegal plays caught, ruling latency, seconds
per game, and the camera against the true table (every true top of every zone: reported by the
stabiliser, unread in plain view, covered before it could be seen, or misread; see
referee.live.demo.SightTally). `--max-frames N` stops each game after N frames (N / 30 s of
game); the true moves counted are then those the bots made up to that point, and the camera
goes on for 30 frames over the table as it stands (STOP_TAIL_FRAMES), so that a card laid in
the last frames is seen whole before the count.

Ruling latency (frames, median and p99) is counted two ways:
- from sight: from the first frame in which no hand covers the zone the card landed on (not
  even a fingertip: 0.2 % of the zone; the first frame a camera can see the card whole) to the
  frame of its ruling. This is the referee's own delay: the frame the hand leaves shows as
  motion, and counts as the first of the stabiliser's `stable_frames` (3) frames of the same
  reading when the next frame shows the zone unchanged (so 2 is the floor), then whatever the
  monitor waits for (another zone hidden by a hand). A card covered
  by the next card before the hand left counts from the first clear frame of the card covering
  it; a ruling made while the zone is still covered counts 0. Where the stabiliser reported the
  ruled card on its zone, the latency is split into vision's part (first clear frame to that
  report) and the monitor's (report to ruling); the rulings later than stable_frames are
  counted by why (referee.live.demo.Slow: a hand back over the card before vision reported
  it, the monitor waiting for a zone a hand hid, vision late with no hand back, or the card
  never reported there).
- from touch-down: from the frame where the card touches the pile, the player's hand still
  over it, to its ruling; it adds the time the demo's hands rest on a card they put down.

The room's light changes during each game as in the demo (vision.roomlight: clouds, a lamp
switched on and off; each game's line lists them); `--steady-light` keeps the game's light
throughout.

With `--logs DIR`, each game's figures are also kept in DIR as `demo-SEED.figures.json` as
soon as it ends, and `--totals DIR [DIR ...]` prints the totals of every game kept there: a
run split over several processes (one a core), or stopped before its end, still gives its
totals over all the games it finished.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.live.demo import DemoConfig, Sight, Slow, run_demo  # noqa: E402


def _median_p99(values: list[int]) -> str:
    if not values:
        return "n/a"
    v = sorted(values)
    return f"median {statistics.median(v):g}, p99 {v[min(len(v) - 1, int(0.99 * len(v)))]}"


def _figures(seed: int, r) -> dict:
    """One game's figures (a DemoResult), as kept in `demo-SEED.figures.json`."""
    c = r.comparison
    return {"seed": seed, "frames": r.frames, "wall_s": r.wall_s, "wrong": c.wrong,
            "matched": c.matched, "moves": c.true_moves,
            "caught": c.true_illegal - c.missed_illegal, "illegal": c.true_illegal,
            "latency": list(r.latency_frames), "touch": list(r.touch_latency_frames),
            "vision": list(r.vision_frames), "monitor": list(r.monitor_frames),
            "slow": [cause.name for cause in r.latency_causes if cause is not None],
            "sight": {k.name: n for k, n in r.sight.counts().items()},
            "stable_frames": r.sight.stable_frames}


_FIELDS = frozenset({"seed", "frames", "wall_s", "wrong", "matched", "moves", "caught", "illegal",
                     "latency", "touch", "vision", "monitor", "slow", "sight", "stable_frames"})


def _print_totals(games: list[dict]) -> None:
    """The totals over `games` (_figures of each)."""
    def total(key: str) -> int:
        return sum(g[key] for g in games)

    def joined(key: str) -> list[int]:
        return [x for g in games for x in g[key]]

    matched, moves = total("matched"), total("moves")
    latency = joined("latency")
    vision = joined("vision")
    slow = {k: sum(g["slow"].count(k.name) for g in games) for k in Slow}
    sight = {k: sum(g["sight"].get(k.name, 0) for g in games) for k in Sight}
    stable = sorted({g["stable_frames"] for g in games})
    print(f"total over {len(games)} games ({total('frames')} frames, "
          f"{total('wall_s') / max(1, len(games)):.1f} s per game, stable_frames "
          f"{'/'.join(map(str, stable)) or None}): wrong rulings {total('wrong')}; "
          f"moves matched {matched}/{moves} ({100 * matched / max(1, moves):.1f} %); "
          f"illegal plays caught {total('caught')}/{total('illegal')}")
    print(f"ruling latency in frames from sight: {_median_p99(latency)}; "
          f"from touch-down: {_median_p99(joined('touch'))} ({len(latency)} rulings)")
    print(f"  of which vision (first clear frame to the stabiliser's report): "
          f"{_median_p99(vision)}; the monitor (report to ruling): "
          f"{_median_p99(joined('monitor'))} ({len(vision)} rulings whose card was reported)")
    print(f"  rulings later than stable_frames from sight: {sum(slow.values())}; why: "
          + "; ".join(f"{n} {k.value}" for k, n in slow.items()))
    print("the camera against the true table: tops "
          + ", ".join(f"{k.value} {n}" for k, n in sight.items()))


def _kept_totals(folders: list[Path]) -> int:
    """--totals: the totals of the games whose figures `folders` keep."""
    games = {}
    for folder in folders:
        for path in sorted(folder.glob("demo-*.figures.json")):
            try:
                g = json.loads(path.read_text(encoding="utf-8"))
                missing = sorted(_FIELDS - g.keys())
            except (OSError, ValueError, AttributeError) as e:
                print(f"{path}: cannot read it ({e}); run that game again", file=sys.stderr)
                return 2
            if missing:
                print(f"{path}: no {', '.join(missing)} in it; run that game again",
                      file=sys.stderr)
                return 2
            games[g["seed"]] = g  # a seed run twice counts once (the later folder's)
    if not games:
        print(f"no demo-*.figures.json in {', '.join(map(str, folders))}: run "
              "`bench/demo.py --logs DIR` first", file=sys.stderr)
        return 2
    print(f"seeds {', '.join(map(str, sorted(games)))}")
    _print_totals([games[k] for k in sorted(games)])
    return 0 if all(g["wrong"] == 0 for g in games.values()) else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--seeds", type=int, nargs="+", default=None, metavar="SEED",
                    help="play these seeds instead of --games from --first-seed (to split "
                         "a run over the cores by the games' lengths)")
    ap.add_argument("--max-frames", type=int, default=None,
                    help="stop each game after this many frames (default: the whole game)")
    ap.add_argument("--slowest", type=int, default=0, metavar="K",
                    help="print each game's K slowest rulings (latency from sight)")
    ap.add_argument("--slow", action="store_true",
                    help="print every ruling later than stable_frames from sight, with why "
                         "(referee.live.demo.Slow)")
    ap.add_argument("--fast", action="store_true", help="bots at racing speed (FAST_BOT)")
    ap.add_argument("--stable-frames", type=int, default=None, metavar="N",
                    help="frames a reading must hold before vision reports it (default: the "
                         "calibration's vision.stable_frames)")
    ap.add_argument("--steady-light", action="store_true",
                    help="no light changes during the games (the demo has them)")
    ap.add_argument("--logs", metavar="DIR", type=Path, default=None,
                    help="keep each game's log and true moves in DIR (default: a temporary "
                         "folder, removed); `spit-referee replay` replays them")
    ap.add_argument("--totals", metavar="DIR", type=Path, nargs="+", default=None,
                    help="print the totals of the games whose figures these --logs folders "
                         "keep, and play none")
    args = ap.parse_args()
    if args.totals:
        return _kept_totals(args.totals)
    cv2.setNumThreads(1)
    games: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.logs or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        seeds = args.seeds or range(args.first_seed, args.first_seed + args.games)
        logs = {seed: folder / f"demo-{seed}.jsonl" for seed in seeds}
        taken = [str(log) for log in logs.values() if log.exists()]
        if taken:
            # Checked before the first game: a log in the way would stop the run at its game.
            print(f"bench/demo.py: {', '.join(taken)} already exist; move them away or give "
                  "another --logs folder", file=sys.stderr)
            return 2
        for seed in seeds:
            r = run_demo(DemoConfig(seed=seed, plain=True, max_frames=args.max_frames,
                                    fast=args.fast, stable_frames=args.stable_frames,
                                    light_changes=not args.steady_light,
                                    log=logs[seed]))
            c = r.comparison
            g = _figures(seed, r)
            games.append(g)
            if args.logs:
                (folder / f"demo-{seed}.figures.json").write_text(json.dumps(g),
                                                                   encoding="utf-8")
            lost = sum(1 for x in r.rulings if x.kind.value == "warning"
                       and "cannot explain" in x.message)
            print(f"seed {seed:3d}: {r.frames:5d} frames in {r.wall_s:6.1f} s "
                  f"({1000 * r.wall_s / max(1, r.frames):5.1f} ms/frame), moves matched "
                  f"{g['matched']}/{g['moves']}, illegal caught {g['caught']}/{g['illegal']}, "
                  f"wrong {g['wrong']}, 'cannot explain' warnings {lost}; tops "
                  + ", ".join(f"{k.value} {n}" for k, n in r.sight.counts().items()), flush=True)
            if r.light_changes:
                print(f"    light: {'; '.join(r.light_changes)}")
            for lat, frame, ruling in sorted(r.latency_rulings, key=lambda x: -x[0])[
                    :args.slowest]:
                print(f"    {lat:3d} frames (ruled in frame {frame}, t {ruling.t:.3f}): "
                      f"{ruling.message}")
            if args.slow:
                for (lat, frame, ruling), cause in zip(r.latency_rulings, r.latency_causes):
                    if cause is not None:
                        print(f"    slow: {lat:3d} frames (ruled in frame {frame}, t "
                              f"{ruling.t:.3f}), {cause.name}: {ruling.message}")
            for line in c.details if c.wrong else ():
                print(f"    {line}")
    _print_totals(games)
    return 0 if all(g["wrong"] == 0 for g in games) else 1


if __name__ == "__main__":
    sys.exit(main())
