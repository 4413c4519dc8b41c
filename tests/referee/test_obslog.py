"""The camera's view of a simulated game (referee.obslog), `simulate --log` files, and the
comparison of a monitor's round-end calls with the true ends (obslog.compare)."""
import json
import random
from dataclasses import replace

import pytest

from referee.log import LogReader, ObserveInput
from referee.live.simlog import log_paths, write_game_logs
from referee.monitor import Monitor, MonitorConfig
from referee.obslog import (END_CALL, FalseCall, ObsConfig, compare, monitor_items,
                            observation_log, replay, true_items)
from referee.simulate import (Attempt, BotConfig, GameEnd, GameRecord, Moved, RoundOver, SimConfig,
                              SlapCall, game_seed, simulate_game)
from referee.moves import TurnUp

BOT = BotConfig(mistake_rate=0.05)
SIM = SimConfig(bots=(BOT, BOT))


@pytest.fixture(scope="module")
def record():
    return simulate_game(7, SIM)


def test_log_lines_are_valid_and_in_time_order(record):
    lines = observation_log(record, ObsConfig.noisy(), random.Random(1))
    reader = LogReader()
    entries = [reader.read(line) for line in lines]  # raises on a bad line or time going back
    assert "start" in lines[0]
    assert sum(isinstance(e, ObserveInput) for e in entries) > 50


def test_without_noise_every_turned_up_card_is_seen_on_its_zone(record):
    lines = observation_log(record, ObsConfig(), random.Random(1))
    shown = {(z, r) for ln in lines if "observe" in ln for z, r in ln["observe"].items()}
    for e in record.events:
        if isinstance(e, Moved) and isinstance(e.move, TurnUp):
            assert (f"{e.move.player}.stock{e.move.slot + 1}", e.move.card.code) in shown


def test_with_occlusion_every_illegal_card_is_still_seen_on_its_pile(record):
    lines = observation_log(record, ObsConfig(occlusion_p=1.0), random.Random(3))
    shown = {(z, r) for ln in lines if "observe" in ln for z, r in ln["observe"].items()}
    attempts = [e for e in record.events if isinstance(e, Attempt)]
    assert attempts, "the bots made no mistake in this game: pick another seed"
    for e in attempts:
        assert (e.move.pile, e.move.card.code) in shown
    assert any(r == "?" for ln in lines if "observe" in ln for r in ln["observe"].values())


def _shown_nowhere_on_the_way_home(record, config):
    """Of the illegal cards tried from a stockpile: how many the camera, after seeing them on
    the pile, saw in no zone before they showed at home again."""
    state, states = {}, []
    for ln in observation_log(record, config, random.Random(1)):
        if "observe" in ln:
            state.update(ln["observe"])
            states.append((ln["t"], dict(state)))
    nowhere = tried = 0
    for e in record.events:
        if not isinstance(e, Attempt) or e.move.slot is None:
            continue
        tried += 1
        card, home = e.move.card.code, f"{e.move.player}.stock{e.move.slot + 1}"
        after = [s for t, s in states if e.t < t <= e.taken_back_t + 0.5]
        on = next((k for k, s in enumerate(after) if s.get(e.move.pile) == card), None)
        if on is None:
            continue
        way = after[on:]
        back = next((k for k, s in enumerate(way) if s.get(home) == card), len(way))
        nowhere += any(card not in s.values() for s in way[:back])
    return nowhere, tried


def test_an_illegal_card_taken_back_can_be_in_a_hand_on_its_way_home_R9_R14(record):
    # ObsConfig.in_hand_s: the card leaves the pile, the pile shows what lies beneath, and the
    # card shows nowhere until it lands on its stockpile (bench/monitor.py --in-hand). By
    # default it is taken back at once: it shows nowhere only when covered by the next card.
    at_once, tried = _shown_nowhere_on_the_way_home(record, ObsConfig())
    in_hand, _ = _shown_nowhere_on_the_way_home(record, ObsConfig(in_hand_s=(0.3, 0.3)))
    assert tried > 20
    assert in_hand == tried > at_once


def test_after_the_game_the_players_gather_the_cards_and_the_camera_sees_the_table_bare(
        record):
    # The last round's end is seen in the gathered piles, as between rounds (R19), when the
    # camera could not follow it: the log does not stop at the game's last card.
    cfg = ObsConfig()
    lines = observation_log(record, cfg, random.Random(1))
    end = next(e.t for e in record.events if isinstance(e, GameEnd))
    hidden, bare = [ln for ln in lines if ln["t"] > end + 1.0]
    assert set(hidden["observe"].values()) == {"?"} and len(hidden["observe"]) == 12
    assert set(bare["observe"].values()) == {"empty"} and len(bare["observe"]) == 12
    assert bare["t"] - hidden["t"] == pytest.approx(cfg.dealing_s)
    assert hidden["t"] - end == pytest.approx(cfg.gather_after_s + cfg.stable_frames / cfg.fps,
                                              abs=1.0 / cfg.fps)


def test_the_same_seed_gives_the_same_log(record):
    a = observation_log(record, ObsConfig.noisy(), random.Random(5))
    b = observation_log(record, ObsConfig.noisy(), random.Random(5))
    assert a == b


def test_simulate_log_writes_the_camera_log_beside_the_true_moves(tmp_path, record):
    obs, moves = write_game_logs(record, tmp_path / "logs", 3, 11)
    assert (obs, moves) == log_paths(tmp_path / "logs", 3)
    assert obs.name == "game-0003.jsonl" and moves.name == "game-0003.moves.jsonl"
    back = GameRecord.from_jsonl(moves.read_text())
    assert true_items(back) == true_items(record)
    first = json.loads(obs.read_text().splitlines()[0])
    assert first["start"] == {"p1": 26, "p2": 26}
    assert not list((tmp_path / "logs").glob("*.tmp"))


# --- round-end calls: never before the round truly ended (R17, R23) ---------------------------

def _refereed(seed: int, noise: ObsConfig):
    record = simulate_game(seed, SIM)
    monitor = Monitor(MonitorConfig(rules=record.rules))
    replay(monitor, observation_log(record, noise, random.Random(seed)), record)
    return record, monitor


@pytest.fixture(scope="module")
def two_rounds():
    """Game 1 of the benchmark (seed 1000004): round 1 ends with "Slap!" (R18), round 2 with
    P2 clearing their stockpiles and winning (R21, no slap), both refereed without a fault."""
    record, monitor = _refereed(game_seed(1, 1), ObsConfig.benchmark())
    calls = [e.t for e in record.events if isinstance(e, SlapCall)]
    overs = [e for e in record.events if isinstance(e, RoundOver)]
    assert len(calls) == 1 and len(overs) == 2 and overs[1].t > calls[0], "pick another seed"
    return record, monitor, {1: calls[0], 2: overs[1].t}


def _first_slap_call(monitor):
    return next(r for r in monitor.rulings if r.kind.value == "slap-call")


def test_round_end_calls_after_the_true_end_are_right_R23(two_rounds):
    record, monitor, ends = two_rounds
    truth = true_items(record)
    assert [k for k in truth if k[0] == END_CALL] == [(END_CALL, 1, ends[1]),
                                                       (END_CALL, 2, ends[2])]
    called = [k for k in monitor_items(monitor.moves, monitor.rulings) if k[0] == END_CALL]
    # "Slap!" in round 1, the round-over in round 2, each seen a few frames after the end.
    assert [k[:2] for k in called] == [(END_CALL, 1), (END_CALL, 2)]
    assert called[0][2] == _first_slap_call(monitor).t
    assert all(0 < t - ends[n] < 0.5 for _, n, t in called)
    c = compare(truth, monitor_items(monitor.moves, monitor.rulings))
    assert (c.true_ends, c.false_calls, c.missed_ends) == (2, (), 0), c.details
    # The referee may learn of an end late (a hand over the last card): still right.
    call = _first_slap_call(monitor)
    late = [replace(r, t=ends[1] + 30.0) if r is call else r for r in monitor.rulings]
    assert compare(truth, monitor_items(monitor.moves, late)) == c


def test_a_slap_call_before_the_true_end_is_a_wrong_ruling_R23(two_rounds):
    # "Slap!" half a second before P1's last card truly landed: the round was still on.
    record, monitor, ends = two_rounds
    call = _first_slap_call(monitor)
    early = [replace(r, t=ends[1] - 0.5) if r is call else r for r in monitor.rulings]
    before = compare(true_items(record), monitor_items(monitor.moves, monitor.rulings))
    c = compare(true_items(record), monitor_items(monitor.moves, early))
    assert (c.wrong, c.missed) == (before.wrong + 1, before.missed), c.details
    assert c.false_calls == (FalseCall(1, ends[1] - 0.5, ends[1]),)
    assert c.true_moves == before.true_moves  # the other figures are unchanged
    assert any("('end-call', 1): called at" in d for d in c.details)


def test_a_round_end_the_referee_never_called_is_missed(two_rounds):
    record, monitor, ends = two_rounds
    # Round 1's "Slap!" and round-over left out (the next deal, round 2's, is ruled).
    kept = [r for r in monitor.rulings if r.kind.value not in ("slap-call", "round-over")
            or r.t > ends[2] - 10.0]
    c = compare(true_items(record), monitor_items(monitor.moves, kept))
    assert c.missed_ends == 1 and not c.false_calls
    assert "missed ('end-call', 1)" in c.details
    # Of the moves matched, only round 1's result (its counts, its piles) is gone: the call
    # itself is not among the true moves.
    full = compare(true_items(record), monitor_items(monitor.moves, monitor.rulings))
    assert c.matched == full.matched - 1


def test_an_end_call_for_a_round_that_never_ended_is_wrong(two_rounds):
    # The truth stops a second before round 2 ended (as the demo's does when stopped early):
    # the referee's round-over of round 2 calls an end that had not come.
    record, monitor, ends = two_rounds
    cut = replace(record, events=[e for e in record.events if e.t < ends[2] - 1.0])
    c = compare(true_items(cut), monitor_items(monitor.moves, monitor.rulings))
    assert [fc.round for fc in c.false_calls] == [2]
    assert c.false_calls[0].true_end is None


def test_slap_again_for_an_end_the_camera_did_not_see_is_no_new_call_and_is_right_R18():
    # Seed 4000096 with hands over half the moves: round 6's last card landed under a hand
    # (true end 344.54 s); the referee called "Slap!" when the camera showed it, then
    # "Slap again!" (the slaps gave the piles differently depending on when it landed).
    # Both come after the true end: no false call, and the again is not a second end.
    # (Seeds 4000013 and 4000048 were this case until 27ac4d9 and the last card's stockpile
    # (2026-12-04) bounded when a hidden last card can have landed, which decided their
    # slaps; of the 200 seeds from 4000000 only this one still asks again.)
    record, monitor = _refereed(4000096, ObsConfig(occlusion_p=0.5, delayed_turnup_p=0.3))
    end = next(e.t for e in record.events if isinstance(e, SlapCall) and 340 < e.t < 350)
    again = [r for r in monitor.rulings
             if r.kind.value == "slap-call" and r.extra.get("unseen_end")]
    assert [round(r.t, 3) for r in again] == [344.986], "the monitor changed: pick another seed"
    called = [k for k in monitor_items(monitor.moves, monitor.rulings) if k[0] == END_CALL]
    assert [k[1] for k in called] == sorted({k[1] for k in called})  # one call per round
    round_6 = next(k for k in called if k[1] == 6)
    assert end < round_6[2] < again[0].t
    c = compare(true_items(record), monitor_items(monitor.moves, monitor.rulings))
    assert c.false_calls == () and c.missed_ends == 0, c.details
    # Had "Slap again!" been the round's only call, it would still be right: it came after.
    only_again = [r for r in monitor.rulings
                  if not (r.kind.value == "slap-call" and r.t < again[0].t and 340 < r.t)]
    called = [k for k in monitor_items(monitor.moves, only_again) if k[:2] == (END_CALL, 6)]
    assert called == [(END_CALL, 6, again[0].t)]
    c = compare(true_items(record), monitor_items(monitor.moves, only_again))
    assert c.false_calls == ()
