"""Rules-engine benchmark (issue 2): simulated games per second on one core, and a long run of
bot games that must all finish with every card accounted for.

    .venv/bin/python bench/rules.py [--games 10000] [--speed-games 400] [--seed 2026]

Speed is CPU time of this one process (one core), so other work on the machine does not count
against it. Two figures: the bare engine and bots, and with the per-move conservation check that
`spit-referee simulate` runs (public count plus the 52 hidden identities). Target: 1,000 games/s.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.rules import RulesConfig, Variant  # noqa: E402
from referee.simulate import (MAX_MOVES_PER_ROUND, MAX_ROUNDS, Moved,  # noqa: E402
                              SimConfig, game_seed, simulate_game)

TARGET_GAMES_PER_S = 1_000


def speed(games: int, seed: int, check: bool) -> tuple[float, float]:
    """Best of three runs: games per CPU second and moves per CPU second."""
    cfg = SimConfig(check_conservation=check)
    best_gps, best_mps = 0.0, 0.0
    for rep in range(3):
        moves = 0
        t0 = time.process_time()
        for i in range(games):
            rec = simulate_game(game_seed(seed + rep, i), cfg)
            moves += rec.count(Moved)
        dt = time.process_time() - t0
        best_gps = max(best_gps, games / dt)
        best_mps = max(best_mps, moves / dt)
    return best_gps, best_mps


def long_run(games: int, seed: int, variant: Variant) -> int:
    cfg = SimConfig(rules=RulesConfig(variant=variant), check_conservation=True)
    failures, finished, max_rounds, max_moves = [], 0, 0, 0
    rounds_total = 0
    t0 = time.perf_counter()
    for i in range(games):
        s = game_seed(seed, i)
        rec = simulate_game(s, cfg)
        if rec.finished and rec.conservation_ok and rec.error is None:
            finished += 1
        else:
            failures.append(f"seed {s}: {rec.error}")
        rounds_total += rec.rounds
        max_rounds = max(max_rounds, rec.rounds)
        max_moves = max([max_moves, *rec.moves_per_round()])
    wall = time.perf_counter() - t0
    print(f"{variant.value:8s} {games} games: {finished} finished, {len(failures)} failures, "
          f"conservation checked at every move; rounds per game mean "
          f"{rounds_total / games:.1f}, max {max_rounds} (cap {MAX_ROUNDS}); "
          f"moves in one round max {max_moves} (cap {MAX_MOVES_PER_ROUND}); {wall:.1f} s wall")
    for f in failures[:10]:
        print("  FAIL", f)
    return len(failures)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000, help="games in the long run")
    ap.add_argument("--speed-games", type=int, default=400, help="games per speed run")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--points-games", type=int, default=1_000,
                    help="games of the points variant in the long run")
    args = ap.parse_args()
    gps, mps = speed(args.speed_games, args.seed, check=False)
    print(f"speed, engine + bots:            {gps:7.1f} games/s  ({mps:,.0f} moves/s) "
          f"on one core; target {TARGET_GAMES_PER_S}")
    gps, mps = speed(args.speed_games, args.seed, check=True)
    print(f"speed, with conservation checks: {gps:7.1f} games/s  ({mps:,.0f} moves/s)")
    bad = long_run(args.games, args.seed, Variant.STANDARD)
    if args.points_games:
        bad += long_run(args.points_games, args.seed, Variant.POINTS)
    print("result:", "no failure" if bad == 0 else f"{bad} FAILED")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
