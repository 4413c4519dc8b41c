"""Bots and the simulator: whole games through the rules engine, replayed independently."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.moves import Play, Spit
from referee.rules import RulesConfig, Variant
from referee.simulate import (MAX_MOVES_PER_ROUND, MAX_ROUNDS, Attempt, BotConfig, GameRecord,
                              Moved, Prompt, RoundOver, RoundStart, SimConfig, SimulationError,
                              SlapCall, SlapMade, SlapResult, SpitCall, replay, run_games,
                              simulate_game)
from referee.slaps import SlapArbiter, SlapVerdictKind

SEEDS = st.integers(min_value=0, max_value=2**32)
CLUMSY = BotConfig(miss_rate=0.5, mistake_rate=0.3)


# --- properties --------------------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(SEEDS)
def test_52_cards_are_conserved_at_every_step(seed):
    rec = simulate_game(seed)  # the simulator checks public counts and hidden identities
    assert rec.conservation_ok and rec.error is None
    for _event, table in replay(rec):  # and an independent engine counts them again
        assert table.card_count() == 52


@settings(max_examples=25, deadline=None)
@given(SEEDS, st.sampled_from([Variant.STANDARD, Variant.POINTS]))
def test_every_game_ends_within_the_caps(seed, variant):
    rec = simulate_game(seed, SimConfig(rules=RulesConfig(variant=variant)))
    assert rec.finished and rec.error is None
    assert rec.rounds < MAX_ROUNDS
    assert max(rec.moves_per_round()) <= MAX_MOVES_PER_ROUND
    assert type(rec.events[-1]).__name__ == "GameEnd"


@settings(max_examples=10, deadline=None)
@given(SEEDS)
def test_the_same_seed_gives_the_same_game(seed):
    assert simulate_game(seed).to_jsonl() == simulate_game(seed).to_jsonl()


@settings(max_examples=15, deadline=None)
@given(SEEDS)
def test_clumsy_bots_still_finish_and_every_recorded_move_is_legal(seed):
    rec = simulate_game(seed, SimConfig(bots=(CLUMSY, CLUMSY)))
    assert rec.finished and rec.conservation_ok
    for _ in replay(rec):  # raises IllegalMove / ReplayError on any disagreement
        pass


def test_different_seeds_give_different_games():
    assert simulate_game(1).to_jsonl() != simulate_game(2).to_jsonl()


# --- the record ------------------------------------------------------------------------------

def test_game_record_round_trips_through_jsonl():
    rec = simulate_game(7, SimConfig(bots=(CLUMSY, CLUMSY)))
    back = GameRecord.from_jsonl(rec.to_jsonl())
    assert back.events == rec.events and back.winner == rec.winner
    assert back.to_jsonl() == rec.to_jsonl()


def test_events_are_in_time_order():
    rec = simulate_game(11, SimConfig(bots=(CLUMSY, CLUMSY)))
    times = [e.t for e in rec.events]
    assert times == sorted(times)


def test_a_broken_record_is_refused_with_a_clear_error():
    with pytest.raises(SimulationError, match="game record"):
        GameRecord.from_jsonl('{"type": "move"}\n')


# --- rules seen in whole games ---------------------------------------------------------------

def test_first_round_deals_26_each_and_both_players_spit_R4_R8():
    rec = simulate_game(3)
    start = rec.events[0]
    assert type(start) is RoundStart and dict(start.counts) == {"p1": 26, "p2": 26}
    assert start.layouts["p1"] == (1, 2, 3, 4, 5) and len(start.tops) == 10
    assert type(rec.events[1]) is SpitCall
    spits = [e.move.player for e in rec.events[2:4]]
    assert sorted(spits) == ["p1", "p2"] and all(type(e.move) is Spit for e in rec.events[2:4])


def test_spits_happen_only_after_a_call_when_nobody_can_play_R16():
    rec = simulate_game(5)
    replayed = list(replay(rec))  # replay refuses a call where R16 does not hold
    calls = [e for e, _t in replayed if type(e) is SpitCall]
    assert calls and all(not e.forced for e in calls)


def test_races_on_one_pile_happen_and_the_later_card_goes_back_R14():
    # Plain bots make no mistakes, so every refused card lost a race for a pile (R14).
    races = 0
    for seed in range(20):
        rec = simulate_game(seed)
        last_on = {}
        for e in rec.events:
            if type(e) is Moved and type(e.move) in (Play, Spit):
                last_on[e.move.pile] = e
            elif type(e) is Attempt:
                winner = last_on[e.move.pile]
                assert winner.move.player != e.move.player
                assert e.t - winner.t < 1.0  # the other card landed just before
                assert e.taken_back_t > e.t and not e.verdict.ok
                races += 1
    assert races > 20


def test_slaps_that_are_too_close_are_slapped_again_R18():
    twins = BotConfig(slap_spread_s=0.0003, slap_error_rate=0.0)
    rec = simulate_game(4, SimConfig(bots=(twins, twins)))
    results = [e for e in rec.events if type(e) is SlapResult]
    assert any(r.too_close for r in results)
    assert rec.finished
    for i, e in enumerate(rec.events):  # every too-close result is followed by a new call
        if type(e) is SlapResult and e.too_close:
            assert type(rec.events[i + 1]) is SlapCall


def test_slaps_go_to_the_earlier_timestamp_R18():
    rec = simulate_game(9)
    slaps, checked = [], 0
    for e in rec.events:
        if type(e) is SlapCall:
            slaps = []
        elif type(e) is SlapMade:
            slaps.append(e.slap)
        elif type(e) is SlapResult and not e.too_close:
            a, b = sorted(slaps, key=lambda s: s.t_ns)
            if a.pile == b.pile:
                assert e.piles[a.pile] == a.player
            checked += 1
    assert checked > 0


def test_mistaken_bots_make_false_slaps_that_the_arbiter_calls_false_R18():
    rec = simulate_game(2, SimConfig(bots=(CLUMSY, CLUMSY)))
    false = [e for e in rec.events if type(e) is SlapMade and e.false]
    assert false
    arbiter = SlapArbiter()
    for e in rec.events:
        if type(e) is SlapCall:
            arbiter.arm(int(round(e.t * 1e9)))
        elif type(e) is SlapMade:
            kind = arbiter.record(e.slap).kind
            assert (kind is SlapVerdictKind.FALSE_SLAP) == e.false
        elif type(e) is RoundOver:
            arbiter.disarm()


def test_mistaken_bots_drop_illegal_cards_that_are_ruled_and_taken_back_R10():
    rec = simulate_game(2, SimConfig(bots=(CLUMSY, CLUMSY)))
    kinds = {e.verdict.kind for e in rec.events if type(e) is Attempt}
    assert {"not-adjacent"} <= kinds
    assert all("take it back" in e.verdict.message for e in rec.events if type(e) is Attempt
               and e.verdict.rule == "R10")


def test_slow_bots_are_prompted_to_uncover_and_spit_is_called_anyway_R16():
    sleepy = BotConfig(miss_rate=0.9)
    rec = simulate_game(1, SimConfig(bots=(sleepy, sleepy)))
    assert rec.count(Prompt) > 0
    assert any(e.forced for e in rec.events if type(e) is SpitCall)
    for _ in replay(rec):
        pass


def test_next_round_deals_the_counts_of_the_previous_round_R19():
    rec = simulate_game(6)
    overs = [e for e in rec.events if type(e) is RoundOver]
    starts = [e for e in rec.events if type(e) is RoundStart]
    assert len(starts) == len(overs) > 1
    for over, start in zip(overs, starts[1:]):
        assert dict(start.counts) == dict(over.counts) and sum(start.counts.values()) == 52
    assert any(s.counts["p1"] != s.counts["p2"] for s in starts[1:])


def test_single_pile_rounds_need_no_slap_R20():
    seen = 0
    for seed in range(30):
        rec = simulate_game(seed)
        for i, e in enumerate(rec.events):
            if type(e) is RoundOver and e.single_pile and e.case == "cleared":
                assert len(e.piles_taken) <= 1 and e.cleared_by not in e.piles_taken.values()
                seen += 1
    assert seen > 0


def test_standard_games_are_won_by_the_player_who_got_rid_of_all_cards_R3_R21():
    rec = simulate_game(8)
    last = [e for e in rec.events if type(e) is RoundOver][-1]
    assert last.cleared_by == rec.winner and last.held[rec.winner] == 0


def test_points_games_end_when_someone_reaches_100_and_lowest_wins_R22():
    rec = simulate_game(8, SimConfig(rules=RulesConfig(variant=Variant.POINTS)))
    assert max(rec.scores.values()) >= 100
    if rec.winner is not None:
        assert rec.scores[rec.winner] == min(rec.scores.values())


# --- settings and summaries --------------------------------------------------------------------

def test_impossible_bot_settings_are_refused():
    with pytest.raises(SimulationError, match="miss_rate"):
        BotConfig(miss_rate=1.0)
    with pytest.raises(SimulationError, match="reaction_s"):
        BotConfig(reaction_s=-1)


def test_run_games_summarises_every_game():
    s = run_games(5, seed=0)
    assert s.games == 5 and s.finished == 5 and s.conservation_ok
    assert sum(s.winners.values()) == 5 and s.plays > 0 and s.spits > 0


@pytest.mark.slow
def test_ten_thousand_games_finish_with_no_failure():
    s = run_games(10_000, seed=2026, config=SimConfig(check_conservation=True))
    assert s.errors == [] and s.finished == 10_000 and s.conservation_ok
    assert s.max_rounds < MAX_ROUNDS


@pytest.mark.parametrize("rules", [
    RulesConfig(equal_ranks_adjacent=True),
    RulesConfig(stacking_allowed=True),
    RulesConfig(spit_onto_own_side=False),
    RulesConfig(uncover_moves_count_as_available=False),
    RulesConfig(accept_any_layout=False),
    RulesConfig(variant=Variant.POINTS, tie_is_draw=False, points_limit=40),
], ids=lambda r: ",".join(f"{k}={v}" for k, v in r.to_dict().items()
                          if v != RulesConfig().to_dict()[k]))
def test_games_under_every_rules_decision_finish_and_replay(rules):
    for seed in range(5):
        rec = simulate_game(seed, SimConfig(rules=rules, bots=(CLUMSY, CLUMSY)))
        assert rec.finished and rec.conservation_ok, rec.error
        for _ in replay(rec):
            pass


def test_equal_ranks_are_played_in_games_only_when_the_decision_allows_it_R10():
    def equal_plays(rules):
        n = 0
        for seed in range(5):
            rec = simulate_game(seed, SimConfig(rules=rules))
            last = {}
            for e in rec.events:
                if type(e) is RoundStart:
                    last = {}
                elif type(e) is Moved and type(e.move) in (Play, Spit):
                    before = last.get(e.move.pile)
                    if (type(e.move) is Play and before is not None
                            and before.rank == e.move.card.rank):
                        n += 1
                    last[e.move.pile] = e.move.card
        return n
    assert equal_plays(RulesConfig()) == 0
    assert equal_plays(RulesConfig(equal_ranks_adjacent=True)) > 0


def test_the_same_seed_gives_the_same_game_in_processes_with_different_hash_seeds():
    # Iterating a set of strings follows PYTHONHASHSEED; a game must not.
    import hashlib
    import os
    import subprocess
    import sys
    code = ("import hashlib; from referee.simulate import simulate_game; "
            "print(hashlib.sha256(simulate_game(12).to_jsonl().encode()).hexdigest())")
    digests = set()
    for hash_seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        digests.add(out.stdout.strip())
    assert digests == {hashlib.sha256(simulate_game(12).to_jsonl().encode()).hexdigest()}
