"""bench/monitor.py: the rules monitor against the truth on simulated games (issue 3).

Plays N bot games with a mistake rate (illegal plays, lost races, false slaps), turns each into
the observation log a camera would have produced with occlusion noise (referee.obslog), replays
it through the Monitor (with the players' answer to a "Slap again!" the log cannot hold,
referee.obslog.replay), and compares the inferred moves and round results (the next round's
counts, who took which pile, the winner) and each round's end call ("Slap!", or the round-over
of an end that needs no slap) with the true ones: prints wrong rulings, missed moves, missed
illegal plays, warnings, the replay speed in observations/s, and the time per line (the live
referee feeds one line at a time: its slowest is how long a ruling can wait on the search).
Every round-end call made before the round truly ended (a false "Slap!") is listed with its
game seed, time and message, and so is every R10 ruling that names none of the cards its card
truly landed on (referee.misnamed: `compare` does not look at that card for an illegal play),
and every "Spit!" called after the round had truly ended (no move is ruled wrong by it, but it
is a wrong call all the same).

    .venv/bin/python bench/monitor.py [--games 1000] [--seed 1] [--occlusion 0.5] [--in-hand 0.5]
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.misnamed import misnamed  # noqa: E402
from referee.monitor import Monitor, MonitorConfig  # noqa: E402
from referee.obslog import (ObsConfig, compare, monitor_items, observation_log, replay,  # noqa: E402
                            true_items)
from referee.simulate import (BotConfig, RoundOver, RoundStart, SimConfig, game_seed,  # noqa: E402
                              simulate_game)

MISTAKE_RATE = 0.05  # per look: a few illegal plays and false slaps in every game


def run(games: int, seed: int, obs: ObsConfig, show: int = 5) -> dict:
    bot = BotConfig(mistake_rate=MISTAKE_RATE)
    sim = SimConfig(bots=(bot, bot))
    totals = dict(games=0, wrong=0, missed=0, missed_illegal=0, true_moves=0, true_illegal=0,
                  true_ends=0, false_calls=0, missed_ends=0, warnings=0, observations=0,
                  lines=0, r10_rulings=0, misnamed=0, spit_calls=0, spit_calls_after_end=0)
    false_calls = []
    late_spits = []
    wrong_cards = []
    feed_s = 0.0
    line_s: list[tuple[float, int, float]] = []  # each line's time, its game's seed, its t
    bad_games = []
    for i in range(games):
        s = game_seed(seed, i)
        record = simulate_game(s, sim)
        lines = observation_log(record, obs, random.Random(s))
        monitor = Monitor(MonitorConfig(rules=record.rules))
        monitor.feed = _timed(monitor.feed, line_s, s)
        t0 = time.perf_counter()
        replay(monitor, lines, record)
        feed_s += time.perf_counter() - t0
        c = compare(true_items(record), monitor_items(monitor.moves, monitor.rulings))
        warnings = sum(1 for r in monitor.rulings
                       if r.kind.value == "warning" and not r.extra.get("prompt"))
        totals["games"] += 1
        totals["wrong"] += c.wrong
        totals["missed"] += c.missed
        totals["missed_illegal"] += c.missed_illegal
        totals["true_moves"] += c.true_moves
        totals["true_illegal"] += c.true_illegal
        totals["true_ends"] += c.true_ends
        totals["false_calls"] += len(c.false_calls)
        totals["missed_ends"] += c.missed_ends
        for fc in c.false_calls:
            said = next((r.message for r in monitor.rulings if r.t == fc.t and r.kind.value in
                         ("slap-call", "round-over", "game-over")), "")
            false_calls.append((s, fc, said))
        totals["warnings"] += warnings
        totals["r10_rulings"] += sum(1 for r in monitor.rulings
                                     if r.kind.value == "illegal" and r.rule == "R10")
        calls = [r.t for r in monitor.rulings if r.kind.value == "spit-call"]
        totals["spit_calls"] += len(calls)
        for at in _after_round_end(record, calls):
            totals["spit_calls_after_end"] += 1
            late_spits.append((s, at))
        bad = misnamed(record, monitor.rulings)
        totals["misnamed"] += len(bad)
        wrong_cards += [(s, r) for r in bad]
        totals["observations"] += sum(1 for ln in lines if "observe" in ln)
        totals["lines"] += len(lines)
        if c.wrong or c.missed or warnings:
            bad_games.append((i, s, c, warnings))
    totals["feed_s"] = feed_s
    line_s.sort()
    totals["line_s"] = line_s
    totals["obs_per_s"] = totals["observations"] / feed_s if feed_s else 0.0
    totals["games_with_errors"] = len(bad_games)
    # Wrong rulings first: they are what the referee must never make.
    bad_games.sort(key=lambda g: -g[2].wrong)
    for i, s, c, w in bad_games[:show]:
        print(f"  game {i} (seed {s}): {c.wrong} wrong, {c.missed} missed, {w} warnings; "
              + "; ".join(c.details[:3]))
    for s, fc, said in false_calls:
        end = f"{fc.true_end:.3f} s" if fc.true_end is not None else "never"
        print(f"  false round-end call: seed {s}, round {fc.round}, at {fc.t:.3f} s (true end "
              f"{end}): {said}")
    for s, at in late_spits:
        print(f"  \"Spit!\" called after the round had ended: seed {s}, at {at:.3f} s")
    for s, r in wrong_cards:
        print(f"  ruled on a card it did not land on: seed {s}, at {r.t:.3f} s: {r.message}")
    return totals


def _after_round_end(record, calls: list[float]) -> list[float]:
    """The "Spit!" calls (log times) made after a round had truly ended and before the next
    deal: wrong calls (R16 cannot hold in a round that is over, R17), though no move is
    ruled wrong by them."""
    gaps, over = [], None
    for e in record.events:
        if isinstance(e, RoundOver):
            over = e.t
        elif isinstance(e, RoundStart) and over is not None:
            gaps.append((over, e.t))
            over = None
    if over is not None:
        gaps.append((over, float("inf")))
    return [t for t in calls if any(a < t < b for a, b in gaps)]


def _timed(feed, times: list, seed: int):
    """Monitor.feed, noting how long each line takes: the live referee feeds one line at a
    time, so its slowest line is how long it can keep a ruling waiting."""
    def timed(line: dict):
        t0 = time.perf_counter()
        out = feed(line)
        times.append((time.perf_counter() - t0, seed, line.get("t", 0.0)))
        return out
    return timed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--occlusion", type=float, default=ObsConfig.benchmark().occlusion_p,
                    help="probability that a move's hand hides the zones it touches")
    ap.add_argument("--delayed-turnups", type=float,
                    default=ObsConfig.benchmark().delayed_turnup_p)
    ap.add_argument("--idle", type=float, default=ObsConfig.benchmark().idle_rate_per_s,
                    help="hands resting over random zones, per second")
    ap.add_argument("--in-hand", type=float, default=0.0, metavar="S",
                    help="an illegal card taken back is in its player's hand for up to S "
                         "seconds (from 0.05) between the pile and its stockpile (default: 0, "
                         "at once)")
    args = ap.parse_args()
    obs = ObsConfig(occlusion_p=args.occlusion, delayed_turnup_p=args.delayed_turnups,
                    idle_rate_per_s=args.idle,
                    in_hand_s=(0.05, args.in_hand) if args.in_hand > 0 else (0.0, 0.0))
    print(f"monitor bench: {args.games} games, seed {args.seed}, bot mistake rate "
          f"{MISTAKE_RATE}, occlusion {obs.occlusion_p}, delayed turn-ups "
          f"{obs.delayed_turnup_p}, idle hands {obs.idle_rate_per_s}/s, illegal cards in a "
          f"hand {obs.in_hand_s[0]}-{obs.in_hand_s[1]} s")
    t = run(args.games, args.seed, obs)
    print(f"true moves:            {t['true_moves']}")
    print(f"true illegal actions:  {t['true_illegal']} (illegal plays, lost races, false slaps)")
    print(f"true round ends:       {t['true_ends']}")
    print(f"wrong rulings:         {t['wrong']} (round ends called before they came: "
          f"{t['false_calls']})")
    print(f"missed moves:          {t['missed']} (round ends never called: {t['missed_ends']})")
    print(f"\"Spit!\" calls:         {t['spit_calls']}, of them after the round had ended: "
          f"{t['spit_calls_after_end']}")
    print(f"missed illegal plays:  {t['missed_illegal']}")
    print(f"illegal plays ruled on a card they did not land on: {t['misnamed']} of "
          f"{t['r10_rulings']} R10 rulings (referee.misnamed)")
    print(f"warnings:              {t['warnings']}")
    print(f"games with any error:  {t['games_with_errors']}/{t['games']}")
    print(f"observations replayed: {t['observations']} in {t['feed_s']:.1f} s = "
          f"{t['obs_per_s']:.0f} observations/s (one core)")
    ls = t["line_s"]
    if ls:
        worst = ls[-1]
        print(f"time per line:         median {ls[len(ls) // 2][0] * 1e3:.2f} ms, p99.9 "
              f"{ls[int(len(ls) * 0.999)][0] * 1e3:.0f} ms, max {worst[0] * 1e3:.0f} ms (seed "
              f"{worst[1]}, t {worst[2]:.3f} s); {sum(1 for x in ls if x[0] > 1.0)} lines over 1 s")
    ok = t["wrong"] == 0 and t["spit_calls_after_end"] == 0 and t["missed_illegal"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
