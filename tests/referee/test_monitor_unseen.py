"""The monitor where the camera missed something: it rules only what every explanation of the
table agrees on, and never an illegal play that a move it could not see would make legal."""
import random

import pytest

from referee.monitor import EARLY_SLAP_GRACE_S, RESYNC_AFTER_S, Monitor, MonitorConfig
from referee.obslog import ObsConfig, observation_log
from referee.simulate import BotConfig, SimConfig, simulate_game

from tests.referee.demologs import demo_log_rulings

# P1's tops J♦ Q♦ 2♣ 3♣ 4♣, P2's K♠ 5♥ 6♥ 7♥ 8♥ (stockpile N holds N cards, R5); P1 spits
# 10♠ left, P2 A♣ right (R8).
DEAL = {"p1.stock1": "JD", "p1.stock2": "QD", "p1.stock3": "2C", "p1.stock4": "3C",
        "p1.stock5": "4C", "p2.stock1": "KS", "p2.stock2": "5H", "p2.stock3": "6H",
        "p2.stock4": "7H", "p2.stock5": "8H", "spit.left": "empty", "spit.right": "empty"}


def _feed(m: Monitor, *observations: dict) -> list[dict]:
    out = []
    t = m.t + 1.0
    for obs in observations:
        out += [r.to_json() for r in m.feed({"t": t, "observe": obs})]
        t += 1.0
    return out


def _observe(m: Monitor, t: float, readings: dict) -> list[dict]:
    """The rulings (as JSON) of an observation of `readings` at log time `t`."""
    return [r.to_json() for r in m.feed({"t": t, "observe": readings})]


def _slap(m: Monitor, t: float, player: str, pile: str) -> list[dict]:
    """The rulings (as JSON) of `player`'s slap on `pile` at log time `t`."""
    return [r.to_json() for r in m.feed({"t": t, "slap": {"player": player, "pile": pile}})]


def _dealt(p1: str = "JD QD 2C 3C 4C", p2: str = "KS 5H 6H 7H 8H",
           spits: str = "10S AC") -> Monitor:
    """A monitor after a fresh deal of 26 each with these tops, and both players' spits."""
    tops = {f"{p}.stock{i}": code for p, row in (("p1", p1), ("p2", p2))
            for i, code in enumerate(row.split(), 1)}
    m = Monitor()
    m.feed({"t": 0.0, "start": {"p1": 26, "p2": 26}})
    m.feed({"t": 1.0, "observe": {**tops, "spit.left": "empty", "spit.right": "empty"}})
    left, right = spits.split()
    m.feed({"t": 2.0, "observe": {"spit.left": left, "spit.right": right}})
    return m


def test_cards_covered_on_a_pile_in_an_order_the_camera_missed_are_not_ruled_illegal_R14():
    # Under a hand, K♠ goes on A♣, Q♦ on K♠ and J♦ on Q♦ (all legal); the camera then sees
    # J♦ on top. "Q♦ on A♣, K♠ on A♣, J♦ on K♠" fits the same view with two illegal plays,
    # so the referee does not rule those.
    m = _dealt()
    rulings = _feed(m, {"spit.right": "?", "p1.stock1": "?", "p1.stock2": "?", "p2.stock1": "?"},
                    {"p2.stock1": "empty", "p1.stock1": "empty", "p1.stock2": "back",
                     "spit.right": "JD"})
    assert not [r for r in rulings if r["ruling"] in ("illegal", "false-spit")]


def test_a_stockpile_seen_empty_was_emptied_before_a_card_moved_onto_it_R12():
    # J♦ leaves stockpile 1 while a hand hides the left pile; 2♣ then moves into the empty
    # slot. The referee knew J♦ on stockpile 1, but the camera saw the slot empty: the move
    # is not "no empty slot" (R12); it waits for the pile, then rules both legal.
    m = _dealt()
    rulings = _feed(m, {"spit.left": "?", "p1.stock1": "?"},
                    {"p1.stock1": "empty"},
                    {"p1.stock3": "back", "p1.stock1": "2C"})
    assert not [r for r in rulings if r["ruling"] == "illegal"]
    rulings = _feed(m, {"spit.left": "JD"})
    assert sorted((r["ruling"], r["card"]) for r in rulings) == [("play", "JD"),
                                                                  ("refill", "2C")]


def test_no_false_spit_while_a_stockpile_is_hidden_then_ruled_when_it_is_seen_R16():
    # Q♦ could go on K♠... or the hidden stockpile might have changed: whether anybody could
    # play depends on every top (R16), so the spit is judged once it is visible again.
    m = _dealt()
    rulings = _feed(m, {"p2.stock5": "?"}, {"spit.left": "9C"})
    assert not [r for r in rulings if r["ruling"] == "false-spit"]
    rulings = _feed(m, {"p2.stock5": "8H"})
    assert [(r["ruling"], r["player"], r["card"]) for r in rulings] == [
        ("false-spit", "p1", "9C")]


def _p1_holds_one_card(p2_stock2: str = "5H") -> Monitor:
    """P1 holds one card, Q♦ (one stockpile, R6, and no spit cards); P2 K♠, `p2_stock2`, 6♥
    7♥ 8♥; P2 has spat A♣ on the right pile (the only one in use, R20)."""
    m = Monitor()
    layout = {"p1.stock1": "QD", **{f"p1.stock{i}": "empty" for i in range(2, 6)},
              "p2.stock1": "KS", "p2.stock2": p2_stock2, "p2.stock3": "6H", "p2.stock4": "7H",
              "p2.stock5": "8H", "spit.left": "empty", "spit.right": "empty"}
    m.feed({"t": 0.0, "start": {"p1": 1, "p2": 51}})
    m.feed({"t": 1.0, "observe": layout})
    m.feed({"t": 2.0, "observe": {"spit.right": "AC"}})
    return m


def test_a_slap_while_the_player_s_illegal_card_lies_on_a_pile_is_a_false_slap_R18():
    # P1 holds one card (one stockpile, R6); it is played, illegally, so P1's stockpiles all
    # read empty while it lies on the pile to be taken back: P1 has not played them all (R17),
    # and a slap now is false (R18).
    m = _p1_holds_one_card()
    illegal = _feed(m, {"p1.stock1": "empty", "spit.right": "QD"})
    assert [(r["ruling"], r["card"]) for r in illegal] == [("illegal", "QD")]
    out = _slap(m, 20.0, "p2", "spit.right")
    assert [(r["ruling"], r["player"]) for r in out] == [("false-slap", "p2")]


def test_one_unread_layout_top_does_not_stop_the_round_R5_R8():
    # The camera cannot read P1's stockpile 3 (a '?' that never clears), but both players
    # spit: the deal is ruled with a warning naming the zone, the spits are ruled, and play is
    # followed on the rest of the table.
    m = Monitor()
    m.feed({"t": 0.0, "start": {"p1": 26, "p2": 26}})
    out = _observe(m, 1.0, {**DEAL, "p1.stock3": "?"})
    assert out == []  # still waiting: the players may still be turning it up
    rulings = _feed(m, {"spit.left": "10S", "spit.right": "AC"},
                    {"p1.stock1": "empty", "spit.left": "JD"})
    assert [(r["ruling"], r.get("card")) for r in rulings] == [
        ("warning", None), ("deal", None), ("spit", "10S"), ("spit", "AC"), ("play", "JD")]
    assert rulings[0]["zones"] == ["p1.stock3"]


def test_cards_left_on_the_piles_from_the_last_round_are_not_taken_for_spits_R8():
    # The piles were never seen cleared since the round began, so cards on them may be the
    # last round's: with a top unread, the referee does not start the round from them.
    m = Monitor()
    m.feed({"t": 0.0, "start": {"p1": 26, "p2": 26}})
    layout = {**DEAL, "p1.stock3": "?", "spit.left": "?", "spit.right": "?"}
    out = [r.to_json() for r in m.feed({"t": 1.0, "observe": layout})]
    out += _feed(m, {"spit.left": "10S", "spit.right": "AC"})
    assert out == []


def test_spit_is_not_called_while_a_hand_hides_a_zone_R16_R23():
    # Nobody can play (no 9 or jack on the table): "Spit!" falls due 1.5 s after the spits,
    # but a hand hides a stockpile then, so the call waits until the table is seen again.
    m = _dealt("2C 3C 4C 5C 6D", "2H 3H 4H 5H 6H", "10S 10C")
    hidden = [r.kind.value for r in m.feed({"t": 2.5, "observe": {"p1.stock1": "?"}})]
    assert m.deadline() is None
    hidden += [r.kind.value for r in m.feed({"t": 5.0, "observe": {"p2.stock2": "?"}})]
    assert "spit-call" not in hidden
    seen = [r.kind.value for r in m.feed({"t": 6.0, "observe": {"p1.stock1": "2C",
                                                                 "p2.stock2": "3H"}})]
    assert seen == ["spit-call"]


def _only_uncover_moves_left(hand_from: float | None = None) -> Monitor:
    # P1 plays 2♣ on P2's 3♦ and empties stockpile 1; then nobody can play and only P1's
    # uncovering move is left (5♣ into the empty slot, R12): prompted at 4.4, "Spit!" due at
    # 5.9 (R16 Decision, settle 1.5 s from the play seen at 3.0 less 0.1 s latency). With
    # `hand_from`, a hand hid the play's zones from then until it was seen: it may have been
    # made as early, and the call fallen due as early (Monitor._call_in_race).
    m = _dealt("2C 5C 6C 7C 8D", "4H 5H 6H 7H 8H", "10S 3D")
    if hand_from is not None:
        m.feed({"t": hand_from, "observe": {"p1.stock1": "?", "spit.right": "?"}})
    m.feed({"t": 3.0, "observe": {"p1.stock1": "empty", "spit.right": "2C"}})
    assert [r.kind.value for r in m.feed({"t": 4.5, "observe": {}})] == ["warning"]
    return m


def test_an_uncovering_move_seen_just_before_the_forced_spit_may_have_come_after_it_R16():
    # The play the call is timed from was made under a hand that came at 2.5: the call may
    # have fallen due at 5.4. The refill is seen at 5.6, made at 5.5 at the latest: the call
    # may have come first, and the spits after it are not ruled false.
    m = _only_uncover_moves_left(hand_from=2.5)
    out = _observe(m, 5.6, {"p1.stock1": "5C", "p1.stock2": "back"})
    out += _observe(m, 6.5, {"spit.left": "QS", "spit.right": "KH"})
    assert [r["ruling"] for r in out] == ["spit-call", "refill", "spit", "spit"]
    assert out[0]["forced"] is True


def test_an_uncovering_move_seen_before_the_forced_spit_could_fall_due_came_first_R16():
    # As above, but the play was made in full view: the call fell due at 5.9 at the earliest
    # (5.8, a frame's rounding, SEEN_EARLY_S), and the refill was made by 5.5. No "Spit!":
    # P1 can still turn up stockpile 2, so spits then are false (game 1000446 had "Spit!"
    # called here, when a hand's 0.6 s was allowed over every move).
    m = _only_uncover_moves_left()
    out = _observe(m, 5.6, {"p1.stock1": "5C", "p1.stock2": "back"})
    out += _observe(m, 6.5, {"spit.left": "QS", "spit.right": "KH"})
    assert [r["ruling"] for r in out] == ["refill", "false-spit", "false-spit"]


def test_play_going_on_after_a_forced_spit_in_a_race_means_nobody_owes_a_spit_R16():
    # As above, the call made in a race with the refill; but the players do not spit: P1 turns
    # up J♠ and plays it on 10♠. The refill came first and the call was needless: P2's 8♥ on
    # J♠ is then ruled at once, not held as if a spit card might lie under it (game 1000433).
    m = _only_uncover_moves_left(hand_from=2.5)
    out = _observe(m, 5.6, {"p1.stock1": "5C", "p1.stock2": "back"})
    assert [r["ruling"] for r in out] == ["spit-call", "refill"]
    out = _observe(m, 6.2, {"p1.stock2": "JS"})
    out += _observe(m, 6.8, {"p1.stock2": "empty", "spit.left": "JS"})
    assert [r["ruling"] for r in out] == ["play"]
    assert m.scene.table.pending_spits == set()
    out = _observe(m, 7.4, {"p2.stock5": "back", "spit.left": "8H"})
    assert [(r["ruling"], r["card"]) for r in out] == [("illegal", "8H")]


def test_spits_right_after_an_uncovering_move_well_before_the_call_are_false_R16():
    m = _only_uncover_moves_left()
    out = _observe(m, 4.8, {"p1.stock1": "5C", "p1.stock2": "back"})
    out += _observe(m, 5.0, {"spit.left": "QS"})
    assert [r["ruling"] for r in out] == ["refill", "false-spit"]


def test_after_an_order_it_could_not_see_the_referee_follows_the_table_again_R10():
    # The three covered cards of the first test. The referee follows every order that fits
    # for RESYNC_AFTER_S (the cards might yet show which), then rules what every order agrees
    # on (K♠ went on A♣ in each), and warns that it rules neither Q♦ nor J♦ and follows the
    # table from here "for now". P1 turns up 10♥ on stockpile 2: had J♦ been played from it
    # illegally, it would have had to go home first (R14), so the other order is ruled out,
    # and Q♦ and J♦ were legal: they are ruled then, late (Monitor._position_known). P1
    # plays 10♥ on J♦: that play is ruled.
    m = _dealt()
    seen_at = m.t + 2.0
    rulings = _feed(m, {"spit.right": "?", "p1.stock1": "?", "p1.stock2": "?", "p2.stock1": "?"},
                    {"p2.stock1": "empty", "p1.stock1": "empty", "p1.stock2": "back",
                     "spit.right": "JD"}, {}, {},
                    {"p1.stock2": "10H"},
                    {"p1.stock2": "empty", "spit.right": "10H"})
    assert [r["ruling"] for r in rulings] == ["play", "warning", "play", "play", "play"]
    assert rulings[0]["message"] == "P2 plays K♠ on A♣"
    assert rulings[1]["resync"] is True and "more than one sequence" in rulings[1]["message"]
    assert "J♦, Q♦" in rulings[1]["message"] and "K♠" not in rulings[1]["message"]
    assert "rules none of them for now" in rulings[1]["message"]
    assert rulings[1]["t"] - seen_at >= RESYNC_AFTER_S
    assert [(r["t"] - rulings[1]["t"], r["message"]) for r in rulings[2:4]] == [
        (1.0, "P1 plays Q♦ on K♠"), (1.0, "P1 plays J♦ on Q♦")]
    assert (rulings[4]["card"], rulings[4]["message"]) == ("10H", "P1 plays 10♥ on J♦")


def _resynced_after_covered_cards() -> Monitor:
    """The three covered cards of the first test, followed until the referee took a position
    (RESYNC_AFTER_S): K♠, Q♦, J♦ went on A♣ in an order it could not see."""
    m = _dealt()
    _feed(m, {"spit.right": "?", "p1.stock1": "?", "p1.stock2": "?", "p2.stock1": "?"},
          {"p2.stock1": "empty", "p1.stock1": "empty", "p1.stock2": "back", "spit.right": "JD"},
          {}, {})
    assert m.rulings[-1].extra.get("resync")
    return m


def test_after_an_order_it_could_not_see_a_play_illegal_in_every_order_is_ruled_R10():
    # 2♣ lands on the pile whose order the referee could not see. In the position it took,
    # 2♣ lies on J♦; in the other (Q♦ and J♦ lying there illegally), on K♠. Not adjacent
    # either way: it is ruled, naming both (Doubts.alike_in_rivals). (It used to be left
    # unruled, as every illegal-looking play on that pile until the next round.)
    m = _resynced_after_covered_cards()
    rulings = _feed(m, {"p1.stock3": "back", "spit.right": "2C"})
    assert [(r["ruling"], r["card"], r["illegal_kind"]) for r in rulings] == [
        ("illegal", "2C", "not-adjacent")]
    assert "2♣ on J♦ (or on K♠," in rulings[0]["message"]


def test_once_the_table_rules_out_the_other_order_illegal_plays_are_ruled_again_R10_R14():
    # The other order left Q♦ lying on A♣ illegally, to be taken back to stockpile 2. P1
    # turns up that stockpile's next card instead: Q♦ did not lie there, so the position the
    # referee took is the truth: Q♦ and J♦, legal in it, are ruled now, late
    # (Monitor._position_known), and 2♣ on J♦ is ruled (game 1000193).
    m = _resynced_after_covered_cards()
    assert [r["message"] for r in _feed(m, {"p1.stock2": "10H"})] == [
        "P1 plays Q♦ on K♠", "P1 plays J♦ on Q♦"]
    rulings = _feed(m, {"p1.stock3": "back", "spit.right": "2C"})
    assert [(r["ruling"], r["card"], r["message"]) for r in rulings] == [
        ("illegal", "2C", "P1: 2♣ on J♦ is not adjacent (R10) — take it back")]


def test_a_play_is_ruled_at_once_when_no_hidden_card_could_have_gone_under_it_R14():
    # A hand hides P2's 5♥, which cannot go on Q♣: whether or not it lies under J♦, J♦ is
    # judged on Q♣, so there is nothing to wait for.
    m = _dealt(spits="10S QC")
    rulings = _feed(m, {"p2.stock2": "?"}, {"p1.stock1": "empty", "spit.right": "JD"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("play", "JD")]


def test_a_play_waits_while_a_hidden_card_could_have_gone_under_it_R14():
    # A hand hides P2's K♠, which goes on Q♣: had it landed first, J♦ would be illegal on it.
    m = _dealt(spits="10S QC")
    rulings = _feed(m, {"p2.stock1": "?"}, {"p1.stock1": "empty", "spit.right": "JD"})
    assert rulings == []
    rulings = _feed(m, {"p2.stock1": "KS"})
    assert [(r["ruling"], r["card"], r["message"]) for r in rulings] == [
        ("play", "JD", "P1 plays J♦ on Q♣")]


def test_no_spit_call_while_the_referee_has_lost_track_of_the_table_R16_R23():
    # Nobody can play, but a card the rules cannot explain shows on a stockpile: whether
    # anybody can play is no longer known, so "Spit!" waits until the table is explained.
    m = _dealt("2C 3C 4C 5C 6D", "2H 3H 4H 5H 6H", "10S 10C")
    out = [r.kind.value for r in m.feed({"t": 2.5, "observe": {"p1.stock1": "JS"}})]
    assert out == ["warning"]
    assert [r.kind.value for r in m.feed({"t": 5.0, "observe": {}})] == []
    assert m.deadline() is None
    back = [r.kind.value for r in m.feed({"t": 6.0, "observe": {"p1.stock1": "2C"}})]
    assert back == ["spit-call"]


def test_while_two_explanations_fit_the_referee_follows_both_until_the_table_tells_R14():
    # A hand hides the right pile and P2's K♠ while P1 spits Q♠ left (ruled at once: after
    # the deal both owe a spit, R8, whatever the hand hides); then one hides the left pile
    # too. The camera sees J♣ spat right, 4♣ on the left pile, stockpile 1 empty. K♠ went
    # on Q♠ and 4♣ on K♠ (illegal), or K♠ onto an empty pile under a spit card: the referee
    # rules nothing yet. 4♣ taken back shows K♠ on Q♠: now it rules the moves of that one.
    m = Monitor()
    m.feed({"t": 0.0, "start": {"p1": 26, "p2": 26}})
    m.feed({"t": 1.0, "observe": DEAL})
    rulings = _feed(m, {"spit.left": "QS", "spit.right": "?", "p2.stock1": "?"})
    assert [(r["ruling"], r["player"], r["card"]) for r in rulings] == [("spit", "p1", "QS")]
    rulings = _feed(m, {"spit.left": "?", "p1.stock5": "?"},
                    {"spit.right": "JC", "p2.stock1": "empty", "spit.left": "4C",
                     "p1.stock5": "back"})
    assert rulings == []
    rulings = _feed(m, {"p1.stock5": "4C", "spit.left": "KS"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [
        ("play", "KS"), ("illegal", "4C"), ("spit", "JC")]
    assert rulings[1]["message"] == "P1: 4♣ on K♠ is not adjacent (R10) — take it back"


def test_a_card_seen_back_home_was_taken_back_before_it_was_played_again_R14():
    # P1's 3♣ lies illegally on A♣. While a hand hides that pile, 2♣ leaves its stockpile, the
    # camera sees 3♣ back home (taken back), then 3♣ and 4♣ leave; the pile then shows 4♣.
    # "2♣ on A♣, 4♣ on 2♣ (not adjacent)" with 3♣ still lying there is shorter, but the
    # camera saw 3♣ at home: 3♣ and 4♣ went back on, so 4♣ is not ruled illegal.
    m = _dealt()
    assert [(r["ruling"], r["card"]) for r in _feed(m, {"p1.stock4": "back",
                                                         "spit.right": "3C"})] == [
        ("illegal", "3C")]
    rulings = _feed(m, {"spit.right": "?"}, {"p1.stock3": "back"}, {"p1.stock4": "3C"},
                    {"p1.stock4": "back"}, {"p1.stock5": "back"}, {"spit.right": "4C"})
    assert not [r for r in rulings if r["ruling"] == "illegal"]


def test_a_play_waits_while_a_hidden_card_could_have_gone_on_a_card_played_meanwhile_R14():
    # Under a hand, 2♣ goes on A♣ and 4♣ lands on top. A hand still hides P1's 3♣: it cannot
    # go on A♣, but it can on 2♣, and under 4♣ it would make 4♣ legal. So 4♣ is not ruled
    # "not adjacent" while the camera cannot see whether 3♣ is still at home. (It is not.)
    m = _dealt()
    rulings = _feed(m, {"p1.stock4": "?", "spit.right": "?"},
                    {"p1.stock3": "back", "p1.stock5": "back", "spit.right": "4C"})
    assert rulings == []
    rulings = _feed(m, {"p1.stock4": "back"}, {}, {})
    assert not [r for r in rulings if r["ruling"] == "illegal"]


def test_an_uncovering_move_seen_under_a_hand_waits_for_the_forced_spit_R16():
    # The refill is seen at 6.0, after the forced "Spit!" fell due (5.9), while a hand hides
    # the left pile. It is not ruled until the whole table is seen: then the call comes
    # first, and the spits after it are not false.
    m = _only_uncover_moves_left()
    out = _observe(m, 5.5, {"spit.left": "?"})
    out += _observe(m, 6.0, {"p1.stock1": "5C", "p1.stock2": "back"})
    assert out == []
    out += _observe(m, 6.2, {"spit.left": "10S"})
    out += _observe(m, 6.8, {"spit.left": "QS", "spit.right": "KH"})
    assert [r["ruling"] for r in out] == ["spit-call", "refill", "spit", "spit"]


def test_a_card_seen_on_a_hidden_stockpile_and_played_since_is_not_looked_for_again_R11():
    # P2's 6♥ leaves under a hand, 7♣ shows on the stockpile, and then 7♣ shows on the pile
    # (6♥ under it): ruled while the stockpile is hidden again. When it shows 9♦ next, that
    # is a turn-up; 7♣ was accounted for and is not looked for on the stockpile again.
    m = _dealt(spits="10S 5C")
    rulings = _feed(m, {"p2.stock3": "?", "spit.right": "?"}, {"p2.stock3": "7C"},
                    {"p2.stock3": "?"}, {"spit.right": "7C"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("play", "6H"), ("play", "7C")]
    rulings = _feed(m, {"p2.stock3": "9D"})
    assert not [r for r in rulings if r["ruling"] == "warning"]
    assert m.scene.expected("p2.stock3") == "9D"


def _one_card_from_the_end() -> Monitor:
    """P1 (17 cards: fifteen in the layout, two spit cards) plays clubs 2 to K and then A♥ 2♥
    up the left pile from the A♦ spit card; this monitor has seen all but the last, 3♥ on
    stockpile 5."""
    stocks = [["2C"], ["3C", "4C"], ["5C", "6C", "7C"], ["8C", "9C", "10C", "JC"],
              ["QC", "KC", "AH", "2H", "3H"]]
    m = Monitor()
    m.feed({"t": 0.0, "start": {"p1": 17, "p2": 35}})
    m.feed({"t": 1.0, "observe": {
        **{f"p1.stock{i}": cards[0] for i, cards in enumerate(stocks, 1)},
        "p2.stock1": "5H", "p2.stock2": "5S", "p2.stock3": "6H", "p2.stock4": "6S",
        "p2.stock5": "7H", "spit.left": "empty", "spit.right": "empty"}})
    m.feed({"t": 2.0, "observe": {"spit.left": "AD", "spit.right": "KS"}})
    t = 2.0
    for i, cards in enumerate(stocks, 1):
        zone = f"p1.stock{i}"
        for k, code in enumerate(cards):
            if code == "3H":
                return m
            t += 0.5
            left = k + 1 < len(cards)
            m.feed({"t": t, "observe": {zone: "back" if left else "empty", "spit.left": code}})
            if left:
                t += 0.5
                m.feed({"t": t, "observe": {zone: cards[k + 1]}})
    raise AssertionError("3♥ is in the layout")


def _slaps_under_the_hand(*slaps: tuple[float, str, str]) -> tuple[Monitor, float, list]:
    """_one_card_from_the_end, then a hand hides P1's stockpile 5 and the left pile (0.3 s)
    while the players make `slaps` (seconds after, player, pile). The monitor, the time it
    started from, and the rulings."""
    m = _one_card_from_the_end()
    t = m.t
    out = m.feed({"t": t + 0.3, "observe": {"p1.stock5": "?", "spit.left": "?"}})
    for dt, player, pile in slaps:
        out += m.feed({"t": t + dt, "slap": {"player": player, "pile": pile}})
    return m, t, out


def test_slaps_made_while_a_hand_hid_the_end_of_the_round_are_counted_when_it_shows_R17_R18():
    # A hand hides P1's last card going on the left pile; both players slap before the camera
    # sees it there. The slaps came after the referee last saw the round still on, and players
    # slap when they see the last card land: they decide the piles (R18) once the camera
    # shows the end (R17), and nobody has slapped again in the grace after "Slap!" (a player
    # whose slap was false would have).
    m, t, out = _slaps_under_the_hand((0.8, "p2", "spit.right"), (0.9, "p1", "spit.left"))
    assert [r.kind.value for r in m.rulings].count("illegal") == 0
    assert [r.kind.value for r in out] == ["warning", "warning"]
    out = _observe(m, t + 1.0, {"p1.stock5": "empty", "spit.left": "3H"})
    assert [r["ruling"] for r in out] == ["play", "slap-call"]
    due = m.deadline()
    assert due == t + 1.0 + EARLY_SLAP_GRACE_S
    assert m.feed({"t": due - 0.1, "observe": {}}) == []
    out = _observe(m, due, {})
    assert [r["ruling"] for r in out] == ["slap-result", "round-over"]
    assert out[0]["piles"] == {"spit.left": "p1", "spit.right": "p2"}
    assert out[0]["early"] is True


def test_a_false_slap_under_a_hidden_end_is_not_counted_before_the_player_could_slap_again_R18():
    # P1 slaps the left pile while a hand hides the last card; after "Slap!" P2 slaps the
    # left, then P1 again. Counting P1's first slap gives P1 the left pile; had it been false
    # (made before the end), P2 was first. The referee waits for P1's second slap and asks
    # for the slaps again (game 5000018: it gave P1 the left pile at P2's slap).
    m, t, _ = _slaps_under_the_hand((0.5, "p1", "spit.left"))
    m.feed({"t": t + 1.0, "observe": {"p1.stock5": "empty", "spit.left": "3H"}})
    assert _slap(m, t + 1.4, "p2", "spit.left") == []
    out = _slap(m, t + 1.5, "p1", "spit.left")
    assert [r["ruling"] for r in out] == ["slap-call"]
    assert out[0]["message"].startswith("Slap again!")


def test_a_slap_before_the_referee_last_saw_the_round_on_is_still_false_R18():
    # P2 slaps while the whole table shows P1's last card still at home: a false slap, even
    # though a hand then hides the last play and the round ends.
    m = _one_card_from_the_end()
    t = m.t
    out = _slap(m, t + 0.2, "p2", "spit.right")
    assert [r["ruling"] for r in out] == ["false-slap"]
    m.feed({"t": t + 0.3, "observe": {"p1.stock5": "?", "spit.left": "?"}})
    out = _observe(m, t + 1.0, {"p1.stock5": "empty", "spit.left": "3H"})
    assert [r["ruling"] for r in out] == ["play", "slap-call"]


def test_a_slap_under_a_hand_is_called_false_once_the_table_shows_the_round_still_on_R18():
    # P2 slaps while a hand hides P1's last stockpile: the round may have ended there, so the
    # referee waits. The hand lifts and P1's last card, 3♥, is still at home: the round was
    # on when P2 slapped, a false slap, ruled then (game 1000999). The play that ends the round
    # after it is ruled as usual.
    m = _one_card_from_the_end()
    t = m.t
    m.feed({"t": t + 0.3, "observe": {"p1.stock5": "?"}})
    out = _slap(m, t + 0.5, "p2", "spit.left")
    assert [r["ruling"] for r in out] == ["warning"]
    out = _observe(m, t + 0.7, {"p1.stock5": "3H"})
    assert [(r["ruling"], r["player"], r["to"]) for r in out] == [
        ("false-slap", "p2", "spit.left")]
    assert "the round was still on" in out[0]["message"]
    out = _observe(m, t + 1.0, {"p1.stock5": "empty", "spit.left": "3H"})
    assert [r["ruling"] for r in out] == ["play", "slap-call"]


def test_a_slap_under_a_hand_is_not_called_false_when_the_round_ended_there_R17_R18():
    # As above, but when the hand lifts P1's last card is on the left pile: the round ended
    # under the hand, and the slap counts (it is no false slap).
    m = _one_card_from_the_end()
    t = m.t
    m.feed({"t": t + 0.3, "observe": {"p1.stock5": "?", "spit.left": "?"}})
    _slap(m, t + 0.5, "p2", "spit.left")
    out = _observe(m, t + 0.7, {"p1.stock5": "empty", "spit.left": "3H"})
    assert [r["ruling"] for r in out] == ["play", "slap-call"]
    assert not [r for r in m.rulings if r.kind.value == "false-slap"]


def test_an_illegal_looking_play_onto_a_pile_hidden_while_a_spit_was_due_is_not_ruled_R16():
    # Nobody can play on 8♠ / 8♣: "Spit!" is called. A hand hides the left pile, and then it
    # shows P1's 3♣: not adjacent to 8♠, but a spit card the camera never saw may lie under
    # it. The referee waits, follows the table on (P2's spit), and after RESYNC_AFTER_S takes
    # the position without ruling the 3♣, and says so.
    m = _dealt("2C 2D 2H 2S 3C", "3D 3H 3S 4C 4D", "8S 8C")
    assert [r["ruling"] for r in _feed(m, {}, {})] == ["spit-call"]
    rulings = _feed(m, {"spit.left": "?"}, {"p1.stock5": "back", "spit.left": "3C"},
                    {"spit.right": "9D"})
    assert rulings == []
    rulings = _feed(m, {}, {})
    assert [r["ruling"] for r in rulings] == ["warning"] and rulings[0]["resync"] is True
    assert not [r for r in m.rulings if r.kind.value == "illegal"]
    assert m.scene.expected("spit.right") == "9D"


def test_a_player_who_slapped_twice_under_a_hidden_end_is_asked_to_slap_again_R18():
    # P2 slaps the right pile and then the left, P1 the left, all while a hand hides P1's last
    # card. P2's first slap may have come before the end (a false slap) or not, and the piles
    # go differently either way: the referee asks for the slaps again instead of choosing.
    m, t, _ = _slaps_under_the_hand((0.5, "p2", "spit.right"), (0.7, "p2", "spit.left"),
                                    (0.8, "p1", "spit.left"))
    out = _observe(m, t + 1.0, {"p1.stock5": "empty", "spit.left": "3H"})
    assert [r["ruling"] for r in out] == ["play", "slap-call", "slap-call"]
    assert out[2]["message"].startswith("Slap again!")
    out = _slap(m, t + 2.0, "p1", "spit.right") + _slap(m, t + 2.1, "p2", "spit.left")
    assert [r["ruling"] for r in out] == ["slap-result", "round-over"]
    assert out[0]["piles"] == {"spit.left": "p2", "spit.right": "p1"}


def test_a_card_gone_from_a_hidden_stockpile_may_lie_under_what_the_camera_saw_R10_R12():
    # Under a hand, P2's K♠ goes on A♣, P1's Q♦ on K♠, and P2 moves 6♥ into the emptied
    # stockpile 1. The camera sees Q♦ on the right pile and 6♥ on stockpile 1: "Q♦ on A♣, 6♥
    # stacked on K♠" is shorter, but K♠ shows nowhere and fits A♣, so it may lie under Q♦:
    # neither is ruled (game 2000014).
    m = _dealt()
    rulings = _feed(m, {"p2.stock1": "?", "spit.right": "?"},
                    {"p1.stock2": "back", "spit.right": "QD"},
                    {"p2.stock1": "6H", "p2.stock3": "back"})
    assert [r["ruling"] for r in rulings] == ["warning"]
    assert "K♠ left p2.stock1 while a hand hid it" in rulings[0]["message"]


def test_a_player_who_slaps_again_after_the_hidden_end_shows_is_asked_to_slap_again_R18():
    # P1 slaps the right pile under the hand, which the referee keeps for when the end shows;
    # after "Slap!" P1 slaps the left, then P2 the right. P1's first slap may have been false
    # (R18) and the second the real one (P1 left, P2 right), or not (P1 first on the right):
    # the players slap again (game 2000013).
    m, t, _ = _slaps_under_the_hand((0.5, "p1", "spit.right"))
    out = _observe(m, t + 1.0, {"p1.stock5": "empty", "spit.left": "3H"})
    assert [r["ruling"] for r in out] == ["play", "slap-call"]
    assert _slap(m, t + 1.2, "p1", "spit.left") == []
    out = _slap(m, t + 1.3, "p2", "spit.right")
    assert [r["ruling"] for r in out] == ["slap-call"]
    assert out[0]["message"].startswith("Slap again!")
    out = _slap(m, t + 2.0, "p2", "spit.right") + _slap(m, t + 2.1, "p1", "spit.left")
    assert [r["ruling"] for r in out] == ["slap-result", "round-over"]
    assert out[0]["piles"] == {"spit.left": "p1", "spit.right": "p2"}


def test_piles_gathered_before_the_referee_saw_the_round_end_start_a_round_it_is_unsure_of_R19():
    _after_an_unseen_round_end()


def _after_an_unseen_round_end() -> Monitor:
    # The slaps never come to the referee (the pads are off) and the players gather the
    # piles and deal: the referee says it could not follow the round's end, and referees the
    # new deal with the counts it had. Who holds spit cards is not known, but both players
    # spit, each onto the pile on their side: both are ruled (spit_free_of_counts).
    m = _one_card_from_the_end()
    t = m.t
    m.feed({"t": t + 1.0, "observe": {"p1.stock5": "empty", "spit.left": "3H"}})
    assert m.rulings[-1].kind.value == "slap-call"
    m.feed({"t": t + 5.0, "observe": {z: "?" for z in DEAL}})
    out = [r.to_json() for r in m.feed({"t": t + 8.0, "observe": DEAL})]
    assert [r["ruling"] for r in out] == ["warning", "deal"]
    assert out[0]["uncertain"] is True and "could not follow" in out[0]["message"]
    out = _observe(m, t + 9.0, {"spit.left": "9S", "spit.right": "9C"})
    assert [(r["player"], r["card"]) for r in out if r["ruling"] == "spit"] == [
        ("p1", "9S"), ("p2", "9C")]
    assert m.scene.expected("spit.left") == "9S"
    return m


def test_after_a_round_end_it_could_not_follow_a_card_that_fits_no_top_is_still_ruled_R10():
    # The counts are uncertain, but J♦ from stockpile 1 on 9♠ is not adjacent whoever holds
    # how many cards: ruled (game 1000684: 81 illegal plays in the rounds after such an end).
    m = _after_an_unseen_round_end()
    out = _observe(m, m.t + 1.0, {"p1.stock1": "empty", "spit.left": "JD"})
    assert [(r["ruling"], r["card"], r["rule"]) for r in out] == [("illegal", "JD", "R10")]


def test_a_short_layout_the_counts_it_had_do_not_deal_is_dealt_again_from_the_table_R7_R12():
    # After the round end the referee could not follow, it holds P1 17 and P2 35 cards, which
    # deal five stockpiles each. P1 lays out four (fewer than 11 cards, R7): the empty fifth
    # is an empty slot, not a stockpile still to be dealt. The referee says so, takes the
    # counts that deal this layout, and rules the game on: P1 moves Q♦ into the empty slot
    # (R12), P2 spits alone (P1 holds no spit cards), P2's 8♥ goes on 9♣ (Monitor._fit_layout;
    # without it the referee waited for the rest of the deal, game 10000036).
    m = _one_card_from_the_end()
    t = m.t
    m.feed({"t": t + 1.0, "observe": {"p1.stock5": "empty", "spit.left": "3H"}})
    m.feed({"t": t + 5.0, "observe": {z: "?" for z in DEAL}})
    out = _observe(m, t + 8.0, {**DEAL, "p1.stock5": "empty"})
    assert [(r["ruling"], r.get("rule")) for r in out] == [
        ("warning", "R19"), ("warning", "R7"), ("deal", "R19")]
    assert "the layout has P1 4, P2 5 stockpiles" in out[1]["message"]
    assert out[1]["cards"] == out[2]["cards"] == {"p1": 10, "p2": 42}
    assert out[2]["uncertain"] is True
    out = _observe(m, t + 9.0, {"p1.stock2": "back", "p1.stock5": "QD"})
    assert [(r["ruling"], r["card"], r["to"]) for r in out] == [("refill", "QD", "p1.stock5")]
    _observe(m, t + 10.0, {"p1.stock2": "9D"})
    out = _observe(m, t + 11.0, {"spit.right": "9C"})
    assert [(r["ruling"], r["player"], r["card"]) for r in out] == [("spit", "p2", "9C")]
    out = _observe(m, t + 12.0, {"p2.stock5": "back", "spit.right": "8H"})
    assert [(r["ruling"], r["card"]) for r in out] == [("play", "8H")]


def test_a_table_back_as_it_was_after_cards_moved_under_a_hand_is_not_a_table_where_nothing_happened_R14():
    # P1's 3♣ lies illegally on A♣. Under hands, 2♣ shows on the pile, 3♣ shows back home,
    # and then 3♣ lies on top again: the table reads as before, but 2♣ went on A♣ and 3♣ was
    # taken back and played on it (legal). Once the hidden stockpiles show, both are ruled.
    m = _dealt()
    assert [r["ruling"] for r in _feed(m, {"p1.stock4": "back", "spit.right": "3C"})] == [
        "illegal"]
    rulings = _feed(m, {"p1.stock3": "?", "p2.stock1": "?"}, {"spit.right": "2C"},
                    {"p1.stock4": "3C"}, {"p1.stock4": "back", "spit.right": "3C"},
                    {"p1.stock3": "back", "p2.stock1": "KS"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("play", "2C"), ("play", "3C")]


def _spit_due_p1_pending() -> Monitor:
    """"Spit!" called on 8♠ / 8♣; P2 has spat 9♦ on the right pile, P1 not yet (left)."""
    m = _dealt("2C 2D 2H 2S 3C", "3D 3H 3S 4C 4D", "8S 8C")
    assert [r["ruling"] for r in _feed(m, {}, {})] == ["spit-call"]
    assert [r["ruling"] for r in _feed(m, {"spit.right": "9D"})] == ["spit"]
    return m


def test_a_spit_in_view_is_ruled_while_a_hand_hides_a_stockpile_after_the_call_R16():
    # "Spit!" is called on 8♠ / 8♣: nobody can play and nothing is left to uncover. A hand
    # hides P1's 2♣; P2 spits 9♦ in plain view. Nothing under the hand can have made a play
    # possible first (only a spit could, and then P2 owed one), so it is ruled at once (demo
    # seed 4: such spits waited up to 11 frames for the hand).
    m = _dealt("2C 2D 2H 2S 3C", "3D 3H 3S 4C 4D", "8S 8C")
    assert [r["ruling"] for r in _feed(m, {}, {})] == ["spit-call"]
    rulings = _feed(m, {"p1.stock1": "?"}, {"spit.right": "9D"})
    assert [(r["ruling"], r["player"], r["card"]) for r in rulings] == [("spit", "p2", "9D")]


def test_an_illegal_looking_play_in_plain_view_waits_while_a_spit_is_due_R16():
    # P2's 3♥ shows on the left pile, in plain view: not adjacent to 8♠, but P1's spit card
    # may have landed there first and been covered before the camera's frames could report
    # it (R14). Taken back, the pile shows 8♠ again: nothing lay beneath, so it is ruled.
    m = _spit_due_p1_pending()
    assert _feed(m, {"p2.stock2": "back", "spit.left": "3H"}) == []
    rulings = _feed(m, {"p2.stock2": "3H", "spit.left": "8S"})
    assert [(r["ruling"], r["card"], r["rule"]) for r in rulings] == [("illegal", "3H", "R10")]
    assert "8♠" in rulings[0]["message"]


def test_a_card_taken_back_off_an_unseen_spit_card_is_illegal_either_way_R10_R14():
    # As above, but taking 3♥ back shows P1's spit card 4♠ beneath it: 3♥ was played on 8♠
    # (not adjacent, R10) before 4♠ came, or on 4♠ (legal) and then taken back off it (R14).
    # The camera cannot tell which, but both are illegal: it is ruled, naming both. P1's
    # spit, owed and landing on 8♠ in either order, is ruled (Doubts.either_way; games
    # 1000315 and 1000827 of the 1,000-game bench).
    m = _spit_due_p1_pending()
    assert _feed(m, {"p2.stock2": "back", "spit.left": "3H"}) == []
    rulings = _feed(m, {"p2.stock2": "3H", "spit.left": "4S"}, {}, {})
    assert [(r["ruling"], r.get("player"), r.get("card")) for r in rulings] == [
        ("illegal", "p2", "3H"), ("spit", "p1", "4S")]
    assert rulings[0]["illegal_kind"] == "not-adjacent or taken-back"
    assert "on 8♠" in rulings[0]["message"] and "(R14)" in rulings[0]["message"]
    assert m.scene.expected("spit.left") == "4S" and m.scene.table.spit_hand["p1"] == 9
    # Either order leaves the same table, so the referee goes on ruling illegal plays.
    rulings = _feed(m, {"p1.stock1": "empty", "spit.right": "2C"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("illegal", "2C")]


def test_a_play_illegal_the_same_way_on_either_card_beneath_is_ruled_naming_both_R10():
    # Taking 3♥ back shows P1's spit card 5♠: not adjacent to 8♠ nor to 5♠, whichever came
    # first. The ruling names both cards. P1's owed spit is ruled too: due, and on 8♠, in
    # either order; with every move ruled, there is nothing to warn of.
    m = _spit_due_p1_pending()
    assert _feed(m, {"p2.stock2": "back", "spit.left": "3H"}) == []
    rulings = _feed(m, {"p2.stock2": "3H", "spit.left": "5S"})
    assert [(r["ruling"], r.get("illegal_kind")) for r in rulings] == [
        ("illegal", "not-adjacent"), ("spit", None)]
    assert rulings[0]["message"] == ("P2: 3♥ on 8♠ (or on 5♠, had that spit card come first) is "
                                     "not adjacent (R10) — take it back")

def test_a_play_in_view_is_ruled_while_a_hand_hides_the_pile_another_card_went_to_R10():
    # A hand hides the left pile; P1's J♦ leaves for it, and P2 plays K♠ on A♣ in plain
    # view. J♦ fits neither A♣ nor K♠, so wherever it went it does not change K♠'s ruling:
    # K♠ is ruled now, J♦ when the pile shows.
    m = _dealt()
    rulings = _feed(m, {"spit.left": "?"},
                    {"p1.stock1": "empty", "p2.stock1": "empty", "spit.right": "KS"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("play", "KS")]
    rulings = _feed(m, {"spit.left": "JD"})
    assert [(r["ruling"], r["card"], r["message"]) for r in rulings] == [
        ("play", "JD", "P1 plays J♦ on 10♠")]


def test_a_play_in_view_does_not_wait_for_a_hidden_card_that_fits_only_the_new_top_R14():
    # A hand hides P1's Q♦; P2 plays K♠ on A♣ in plain view. Q♦ fits K♠, not A♣: to lie
    # under K♠ it must have landed on A♣ first, illegally, which leaves K♠'s ruling as it is;
    # on K♠ it would show. K♠ is ruled at once (demo seed 1 waited 11 frames for such a hand).
    m = _dealt()
    rulings = _feed(m, {"p1.stock2": "?"}, {"p2.stock1": "empty", "spit.right": "KS"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("play", "KS")]


def test_a_play_in_view_waits_for_a_hidden_card_that_fits_the_old_top_R14():
    # As above, but the hidden card is P1's 2♣, which fits A♣: it may have gone on A♣ under
    # the hand and then K♠ on it (not adjacent), so K♠ waits for the hand to lift.
    m = _dealt()
    rulings = _feed(m, {"p1.stock3": "?"}, {"p2.stock1": "empty", "spit.right": "KS"})
    assert rulings == []
    rulings = _feed(m, {"p1.stock3": "2C"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("play", "KS")]


def test_a_hand_over_the_zone_it_could_not_explain_is_not_the_cards_put_back_R1():
    # K♥ shows where 2♣ was (from nowhere): the referee warns. A hand then hides that
    # stockpile: the rest of the table reads as believed, but that is not the cards put back,
    # so P2's K♠ is not ruled from a belief the referee knows is stale.
    m = _dealt()
    assert [r["ruling"] for r in _feed(m, {"p1.stock3": "KH"})] == ["warning"]
    rulings = _feed(m, {"p1.stock3": "?"}, {"p2.stock1": "empty", "spit.right": "KS"})
    assert rulings == []
    rulings = _feed(m, {"p1.stock3": "2C"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("play", "KS")]


def test_an_illegal_play_every_order_agrees_on_is_ruled_when_the_referee_gets_back_in_step_R10():
    # While the referee follows the two orders of the covered cards, P2 plays 8♥ on the left
    # pile's 10♠ in view: not adjacent in either order, so when it takes a position it rules
    # that play. (On J♦ it would not: in one order J♦ lies there illegally, on K♠.)
    m = _dealt()
    rulings = _feed(m, {"spit.right": "?", "p1.stock1": "?", "p1.stock2": "?", "p2.stock1": "?"},
                    {"p2.stock1": "empty", "p1.stock1": "empty", "p1.stock2": "back",
                     "spit.right": "JD"},
                    {"p2.stock5": "back", "spit.left": "8H"}, {})
    assert [(r["ruling"], r.get("card")) for r in rulings] == [
        ("play", "KS"), ("illegal", "8H"), ("warning", None)]
    assert rulings[1]["message"] == "P2: 8♥ on 10♠ is not adjacent (R10) — take it back"


def test_after_an_order_it_could_not_see_an_illegal_play_elsewhere_is_still_ruled_R10():
    # The two orders of the covered cards differ only on the right pile and the stockpiles
    # the cards came from: P2's 8♥ on the left pile's 10♠ is not adjacent in either.
    m = _resynced_after_covered_cards()
    rulings = _feed(m, {"p2.stock5": "back", "spit.left": "8H"})
    assert [(r["ruling"], r["message"]) for r in rulings] == [
        ("illegal", "P2: 8♥ on 10♠ is not adjacent (R10) — take it back")]


def test_a_play_illegal_a_different_way_on_either_card_beneath_is_ruled_naming_both_R10():
    # Taking 4♣ back shows P1's spit card 4♥: not adjacent to 8♠, or the same rank as 4♥,
    # depending on which came first, which the camera cannot tell (game 1000484: a spit card
    # covered 18 ms after it landed). Illegal either way (R10): ruled, naming both cards and
    # both kinds, never one it does not know. P1's owed spit is ruled too; with every move
    # ruled in either order, there is nothing to warn of.
    m = _spit_due_p1_pending()
    assert _feed(m, {"p2.stock4": "back", "spit.left": "4C"}) == []
    rulings = _feed(m, {"p2.stock4": "4C", "spit.left": "4H"})
    assert [(r["ruling"], r.get("card"), r.get("rule"), r.get("illegal_kind")) for r in rulings] == [
        ("illegal", "4C", "R10", "equal-rank or not-adjacent"), ("spit", "4H", "R16", None)]
    assert rulings[0]["message"] == (
        "P2: 4♣ on 8♠ is not adjacent; or, had the spit card 4♥ come first, 4♣ on 4♥ is the "
        "same rank, and equal ranks are not adjacent (R10) — take it back")


def test_an_illegal_play_on_the_other_pile_is_ruled_when_the_order_on_one_pile_is_unknown_R10():
    # While P2's 3♥ waits on the left pile (a spit card may lie under it), P2 plays 4♦ on the
    # right pile's 9♦ and takes it back: 9♦ shows again. Then 3♥ comes back and P1's spit card
    # 5♠ shows: the order on the left is unknown, but 4♦ lay on 9♦ whatever it was (game
    # 1000156).
    m = _spit_due_p1_pending()
    rulings = []
    for obs in ({"p2.stock2": "back", "spit.left": "3H"},
                {"p2.stock5": "back", "spit.right": "4D"},
                {"p2.stock5": "4D", "spit.right": "9D"},
                {"p2.stock2": "3H", "spit.left": "5S"}):
        rulings += [r.to_json() for r in m.feed({"t": m.t + 0.4, "observe": obs})]
    assert [(r["ruling"], r.get("card")) for r in rulings] == [
        ("illegal", "3H"), ("illegal", "4D"), ("spit", "5S")]
    assert rulings[1]["message"] == "P2: 4♦ on 9♦ is not adjacent (R10) — take it back"


def test_cards_seen_on_a_pile_showed_in_the_order_the_moves_make_them_its_top_R14():
    # A hand over P2's stockpile 5 (8♥). The left pile shows P1's 10♦, then, 10♦ back home,
    # 8♥, then P1's 9♣. 10♦ cannot have gone on 9♣ (legal) and been taken back from there,
    # which would have shown 9♣ before 8♥ (game 1000167). Two orders do fit: 8♥ on 9♠, 10♦
    # on 8♥ (not adjacent) taken back, 9♣ on 8♥; or 10♦ on 9♠ (legal) taken back (R14), 8♥
    # on it (not adjacent, for the rules 10♦ is still there), 9♣ on 10♦. The referee rules
    # neither order, and says so once the hand has lifted. P1's 10♦, seen on the pile and
    # then back home, was illegal in both (R10 on 8♥, or R14 taken back off 9♠): that is
    # ruled, naming both (doubts.illegal_in_every_order).
    m = _dealt("10D QD 2C 3C 9C", "KS 5H 6H 7H 8H", "9S AC")
    rulings = _feed(m, {"p2.stock5": "?"}, {"p1.stock1": "empty", "spit.left": "10D"},
                    {"p1.stock1": "10D", "spit.left": "8H"},
                    {"p1.stock5": "back", "spit.left": "9C"}, {"p2.stock5": "back"})
    assert rulings == []
    rulings = _feed(m, {}, {}, {})
    assert [(r["ruling"], r.get("card"), r.get("illegal_kind")) for r in rulings] == [
        ("illegal", "10D", "not-adjacent or taken-back"), ("warning", None, None)]
    assert rulings[0]["message"] == (
        "P1: 10♦ on 8♥ is not adjacent (R10); or, in an order of moves the camera could not "
        "tell apart, 10♦ was played on 9♠, and then taken back, which is never allowed (R14) "
        "— either way an illegal move; the card went back to its stockpile")
    assert "in which order 8♥, 9♣ moved" in rulings[1]["message"]


def test_a_card_taken_back_under_a_hand_may_have_been_played_again_under_the_next_R10_R14():
    # P2's 8♥ lands on 10♠ (not adjacent, R10) and is ruled. A hand then hides the pile: the
    # camera sees 8♥ back home and gone again, then 7♥ on top. "8♥ taken back, 9♣ on 10♠, 7♥
    # on 9♣" fits what it saw with 7♥ illegal, but so does 8♥ played again, on 9♣, under
    # 7♥ (game 3000017): 7♥ is not ruled. Nor once stockpile 5 shows: 8♥ may have gone on
    # 10♠ again and lie under 9♣, which makes 7♥ illegal after all; the referee follows both.
    m = _dealt(p1="JD 9C 2C 3C 4C")
    rulings = _feed(m, {"spit.left": "8H", "p2.stock5": "back"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("illegal", "8H")]
    rulings = _feed(m, {"spit.left": "?", "p2.stock5": "?"}, {"p1.stock2": "back"},
                    {"p2.stock5": "8H"}, {"p2.stock5": "back"}, {"p2.stock5": "?"},
                    {"p2.stock4": "back", "spit.left": "7H"})
    assert not [r for r in rulings if r["ruling"] == "illegal"]
    assert not _feed(m, {"p2.stock5": "back"})


def test_a_card_seen_back_home_and_gone_again_was_not_on_the_pile_all_along_R10_R14():
    # Under hands, P2's J♦ goes on Q♠ and P1's J♥ on J♦ (the same rank, R10); the camera sees
    # J♥ on the pile, then J♥ back home, then stockpile 5 hidden again and J♦ on top: J♥ was
    # taken back, and is then moved into P1's empty stockpile 1. "J♥ on Q♠, J♦ on J♥" fits
    # the pile, but not stockpile 5's face-down card seen before J♥ came home (game 4000021).
    m = _dealt(p1="2C QD 3C 4C JH", p2="KS 5H 6H JD 8H", spits="AC QS")
    assert [(r["ruling"], r["card"]) for r in _feed(
        m, {"p1.stock1": "empty", "spit.left": "2C"})] == [("play", "2C")]
    rulings = _feed(m, {"p2.stock4": "?"}, {"p1.stock5": "?", "spit.right": "?"},
                    {"p1.stock5": "back", "spit.right": "JH"},
                    {"p1.stock5": "?", "spit.right": "?"}, {"p1.stock1": "?"},
                    {"p1.stock5": "JH"}, {"p1.stock5": "?", "spit.right": "JD"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("play", "JD"), ("illegal", "JH")]
    rulings = _feed(m, {"p2.stock4": "2H"}, {"p1.stock1": "JH", "p1.stock5": "back"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("refill", "JH")]


def test_piles_gathered_while_two_orders_fit_end_the_round_the_one_way_that_ends_it_R17_R20():
    # P1 holds one card, Q♦ (no spit cards: one pile, R20). Under a hand K♠ and Q♠ of P2's
    # and P1's Q♦ go on A♣ and the camera sees Q♦ on top: K♠, Q♠, then Q♦ (the same rank as
    # Q♠, illegal), or Q♠ (not adjacent to A♣, illegal), K♠, then Q♦. The referee follows
    # both; then the players gather the cards. Only the second ends the round (P1's last card
    # played, R17), so it is the truth: its moves, the end and the win are ruled (game
    # 4000013).
    m = _p1_holds_one_card(p2_stock2="QS")
    rulings = _feed(m, {"p1.stock1": "?", "p2.stock1": "?", "p2.stock2": "?", "spit.right": "?"},
                    {"p1.stock1": "empty", "p2.stock1": "empty", "p2.stock2": "back",
                     "spit.right": "QD"}, {z: "?" for z in DEAL})
    assert rulings == []
    rulings = _feed(m, {z: "empty" for z in DEAL})
    assert [(r["ruling"], r.get("card")) for r in rulings] == [
        ("illegal", "QS"), ("play", "KS"), ("play", "QD"), ("round-over", None),
        ("game-over", None)]
    assert rulings[-1]["winner"] == "p1" and "uncertain" not in rulings[-2]


def test_a_doubted_sequence_followed_is_not_ruled_while_a_longer_one_fits_as_well_R10_R12():
    # J♥ lies illegally on K♦. Under hands: J♥ is taken back (seen home), P1's Q♠ goes on K♦,
    # 3♦ moves into the stockpile Q♠ left, and J♥ goes on Q♠ (legal). "J♥ on K♦ again, 3♦
    # stacked on Q♠" is shorter but doubted (Q♠ shows nowhere). When Q♣ then shows on the
    # pile, that sequence followed on ("Q♠ on K♦, Q♣ on Q♠ illegal") fits, but so does the
    # truth, longer, from the last sure position: nothing illegal is ruled (game 7000026).
    m = _dealt(p1="QS 2C 3C 4C 3D", p2="JH QC 6H 7H 8H", spits="KD 9S")
    assert [(r["ruling"], r["card"]) for r in _feed(
        m, {"p2.stock1": "empty", "spit.left": "JH"})] == [("illegal", "JH")]
    rulings = _feed(m, {"p1.stock1": "?", "spit.left": "?"}, {"p2.stock1": "?"},
                    {"p1.stock5": "?"}, {"p2.stock1": "JH"}, {"p2.stock1": "?"},
                    {"p1.stock1": "3D", "p1.stock5": "back"},
                    {"p2.stock1": "empty", "spit.left": "JH"}, {"p1.stock5": "?"},
                    {"p2.stock2": "?", "spit.left": "?"}, {"p1.stock5": "10C"},
                    {"p2.stock2": "back", "spit.left": "QC"}, {}, {})
    assert [r["ruling"] for r in rulings] == ["warning", "warning"]
    assert "not ruled" in rulings[0]["message"] and rulings[1]["resync"] is True


def test_a_card_seen_home_before_it_was_played_again_is_not_taken_back_again_R14():
    # A♣ lies illegally on 3♠, is seen back home, and is played again, on 4♠ (ruled). Hands
    # then hide the pile and A♣'s stockpile, and 5♣ shows on the pile, A♣'s stockpile empty:
    # A♣ still lies there. The sighting at home came before it was played again; it is not
    # a second taking back and playing (game 6000029: ruled "not adjacent" a third time).
    m = _dealt(p1="AC QD 2C 3C 4C", p2="KS 5H 3S 5C 4S", spits="10S 2S")
    rulings = _feed(m, {"p1.stock1": "?", "spit.right": "?"}, {"p2.stock3": "back"},
                    {"p1.stock1": "empty", "spit.right": "AC"},
                    {"p2.stock5": "?", "spit.right": "?"}, {"p1.stock1": "?"},
                    {"p1.stock1": "AC", "p2.stock5": "back"}, {"p1.stock1": "?"},
                    {"spit.right": "AC"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [
        ("play", "3S"), ("illegal", "AC"), ("play", "4S"), ("illegal", "AC")]
    rulings = _feed(m, {"spit.right": "?"}, {"p2.stock4": "back"},
                    {"p1.stock1": "empty", "spit.right": "5C"})
    assert [(r["ruling"], r["card"]) for r in rulings] == [("play", "5C")]


def test_after_an_unseen_end_a_player_who_had_no_spit_cards_may_spit_again_R8_R19():
    # P1 held 15 cards (no spit cards, R6). The round ends where the referee cannot see it and
    # the players deal again: cards have changed hands by then, so the referee does not deal
    # from the counts it had (P1 with no spit cards would make P1's spits P2's, and P2's own
    # then false), but says the counts are not known, and follows both players' spits. Once
    # each has spat onto a pile this round, their spits after a "Spit!" are theirs and due
    # whatever the counts (R16), and are ruled.
    m = Monitor()
    m.feed({"t": 0.0, "start": {"p1": 15, "p2": 37}})
    m.feed({"t": 1.0, "observe": DEAL})
    m.feed({"t": 2.0, "observe": {"spit.right": "AC"}})
    m.feed({"t": 5.0, "observe": {z: "?" for z in DEAL}})
    second = {"p1.stock1": "9D", "p1.stock2": "QD", "p1.stock3": "2C", "p1.stock4": "3C",
              "p1.stock5": "4C", "p2.stock1": "10D", "p2.stock2": "KS", "p2.stock3": "JH",
              "p2.stock4": "JS", "p2.stock5": "9H", "spit.left": "empty", "spit.right": "empty"}
    out = [r.to_json() for r in m.feed({"t": 8.0, "observe": second})]
    assert [r["ruling"] for r in out] == ["warning", "deal"]
    assert "card counts not known" in out[1]["message"] and out[1]["uncertain"] is True
    m.feed({"t": 9.0, "observe": {"spit.left": "6S", "spit.right": "6C"}})
    rulings = _feed(m, {}, {"spit.left": "AH"}, {"spit.right": "AD"}, {})
    assert [(r["ruling"], r.get("player"), r.get("card")) for r in rulings] == [
        ("spit-call", None, None), ("spit", "p1", "AH"), ("spit", "p2", "AD")]
    assert m.scene.expected("spit.left") == "AH" and m.scene.expected("spit.right") == "AD"


def test_a_move_ruled_from_a_stockpile_a_hand_has_just_covered_is_not_looked_for_again_R12():
    # Demo seed 14's log (the real vision pipeline on rendered frames, to 6920.2 s): P1 moves
    # 2♦ from stockpile 4 to the empty stockpile 3, seen; a hand then covers stockpile 4 and
    # the move is ruled from the rest of the table. Meanwhile P2's Q♣ went on K♦ under a hand
    # and 7♣ on it. What stockpile 4 showed (2♦, then a face-down card) is accounted for by
    # the refill: kept, the referee looked for 2♦ leaving it again and could explain nothing
    # for the rest of the round (18 "cannot explain" warnings).
    rulings = demo_log_rulings("demo14-refill-under-a-hand")
    assert not [r for r in rulings if r.kind.value == "warning"]
    assert [(r.kind.value, r.card, r.message) for r in rulings[-3:]] == [
        ("refill", "2D", "P1 moves 2♦ from stockpile 4 to the empty stockpile 3"),
        ("play", "QC", "P2 plays Q♣ on K♦"),
        ("illegal", "7C", "P2: 7♣ on Q♣ is not adjacent (R10) — take it back")]


def test_a_card_played_on_a_pile_a_played_card_was_taken_back_from_is_not_ruled_R14():
    # P1's J♦ goes on 10♠ and is taken back (R14, ruled). Q♦ then shows on the pile: for the
    # rules J♦ is still there and Q♦ fits it, but the camera cannot tell that from a card it
    # never saw lying under J♦ (game 11000047: 10♣ ruled "on J♣" where it went on 9♣). The
    # referee says so rather than rule Q♦.
    m = _dealt()
    assert [(r["ruling"], r["card"]) for r in _feed(m, {"p1.stock1": "empty",
                                                        "spit.left": "JD"})] == [("play", "JD")]
    rulings = _feed(m, {"p1.stock1": "JD", "spit.left": "10S"})
    assert [(r["ruling"], r.get("illegal_kind")) for r in rulings] == [("illegal", "taken-back")]
    rulings = _feed(m, {"p1.stock2": "back", "spit.left": "QD"})
    assert [r["ruling"] for r in rulings] == ["warning"]
    assert "J♦ was taken back off the left pile" in rulings[0]["message"]
    assert not [r for r in m.rulings if r.card == "QD"]


def test_with_uncertain_counts_a_spit_is_ruled_only_while_the_stand_in_gives_both_spit_cards_R8_R16():
    # referee.doubts.spit_free_of_counts: P2 spits onto the right pile, where P2 spat
    # before, nobody able to play. With both stand-in spit hands above 0 the spit is P2's and
    # due whatever the true counts; with P1's at 0 (a stand-in run out: P1 may truly still
    # owe a spit, which would make this one false) it is not ruled.
    from referee.cards import Card
    from referee.doubts import spit_free_of_counts
    from referee.moves import Spit
    from referee.scene import Step
    from tests.referee.builders import make_table

    spit = Spit("p2", "spit.right", Card.parse("9D"))
    for hand1, ruled in ((3, True), (0, False)):
        table = make_table("2C 2D", "3D 3H", left="8S", right="8C", hand1=hand1,
                           side2="spit.right")
        step = Step(spit, table.check(spit))
        assert step.verdict.ok
        assert spit_free_of_counts(step, table) is ruled
    # P2's first spit of the round (R8), onto the pile on P2's side, after P1's onto P1's:
    # both hold spit cards, and the side tells whose card it is (occlusion seeds 2 and 9:
    # the two first spits of every round with uncertain counts went unruled).
    table = make_table("2C 2D", "3D 3H", left="8S", right="8C", hand1=3)
    table.side["p2"] = None  # P2 has not spat onto a pile yet this round
    step = Step(spit, table.check(spit))
    assert step.verdict.ok and spit_free_of_counts(step, table) is True
    # Neither has spat yet: P2's card alone may be P1's, if P2 holds none (R20), or, onto
    # P1's side, may not be P2's. With P1's first spit in the same explanation it is ruled.
    table.side["p1"] = None
    step = Step(spit, table.check(spit))
    assert step.verdict.ok and spit_free_of_counts(step, table) is False
    p1 = Spit("p1", "spit.left", Card.parse("9S"))
    both = (Step(p1, table.check(p1)), step)
    assert spit_free_of_counts(step, table, both) is True
    left = Spit("p2", "spit.left", Card.parse("9D"))
    step = Step(left, table.check(left))
    assert step.verdict.ok and spit_free_of_counts(step, table, both) is False


def test_a_card_taken_back_home_under_a_hand_leaves_no_empty_slot_to_explain_R10_R14():
    # Demo seed 11's log from round 2's deal (the real vision pipeline on rendered frames).
    # P2's J♥, illegal on 7♠, went back home to stockpile 3 under a hand, which the camera
    # saw empty on the way. The position with J♥ home explained that "empty"; kept as still
    # to be explained, it left P2's next play, 8♣ on 7♠, unexplainable, and the referee lost
    # the rest of the round.
    rulings = demo_log_rulings("demo11-taken-back-seen-empty-on-the-way")
    back = next(i for i, r in enumerate(rulings) if r.card == "JH" and r.kind.value == "illegal")
    assert [(r.kind.value, r.card) for r in rulings[back + 1:back + 2]] == [("play", "8C")]
    assert not any("cannot explain" in r.message for r in rulings)


def test_a_card_laid_on_an_illegal_one_and_lifted_again_does_not_rule_that_one_twice_R9_R10():
    # Demo seed 3's log from round 6's deal. P1's J♥ lay illegally on K♠; P2 laid 5♥ on it
    # (illegal too) and took it back, under a hand, and the camera saw J♥ on top again
    # while 5♥ was still in P2's hand. The only explanation the search has, J♥ sent home,
    # 5♥ played under it and J♥ played again, ruled "J♥ on K♠" a second time. The referee
    # now holds it in doubt, and rules 5♥ once it shows at home.
    rulings = demo_log_rulings("demo3-card-laid-on-an-illegal-one-and-lifted")
    illegal = [(r.card, r.message.split(" is ")[0]) for r in rulings
               if r.kind.value == "illegal" and r.card in ("JH", "5H")]
    assert illegal == [("JH", "P1: J♥ on K♠"), ("5H", "P2: 5♥ on K♠")]
    doubt = next(r for r in rulings if r.extra.get("doubt"))
    assert "lifted again" in doubt.message


def test_a_card_in_a_hand_once_explained_by_a_replay_is_ruled_when_seen_again_R9_R10_R14():
    # Demo seed 3's round 6 again, filmed with vision.stable_frames 2: the camera saw P2's
    # stockpile 2 show a back (5♥ lifted, in P2's hand) while P1's J♥ still lay illegally on
    # K♠. The only explanation then, J♥ sent home, 5♥ tried under it and J♥ played again,
    # is doubted and followed. The camera then saw 5♥ on the pile, J♥ home, A♠ on the pile
    # and 5♥ home: from the last sure position that is J♥ taken back, 5♥ tried on K♠ and
    # taken back, A♠ played, in fewer moves than the candidate followed. Held to the
    # candidate, the referee took its position unruled, and the round's counts stayed
    # uncertain for the rest of the game (31 moves missed).
    rulings = demo_log_rulings("demo3-stable2-card-lifted-off-its-stockpile-while-an-illegal-one-lay")
    illegal = [(r.card, r.message.split(" is ")[0]) for r in rulings
               if r.kind.value == "illegal" and r.card in ("JH", "5H")][:2]
    assert illegal == [("JH", "P1: J♥ on K♠"), ("5H", "P2: 5♥ on K♠")]
    plays = [r.message for r in rulings if r.kind.value == "play" and r.card in ("AS", "2C")]
    assert plays == ["P1 plays A♠ on K♠", "P2 plays 2♣ on A♠"]
    assert not any(r.extra.get("resync") for r in rulings)
    over = next(r for r in rulings if r.kind.value == "round-over")
    assert over.extra["cards"] == {"p1": 37, "p2": 15} and not over.extra.get("uncertain")


@pytest.mark.parametrize("log_name, card, ruled", [
    # Demo seed 11's round 2 filmed with vision.stable_frames 2: P2's J♥, illegal on 7♠, was
    # lifted off the pile while a hand hid stockpile 3, which then showed empty (J♥ still in
    # P2's hand) before J♥ came home.
    ("demo11-stable2-illegal-card-in-a-hand-on-its-way-home", "JH", "P2: J♥ on 7♠"),
    # Demo seed 13's round 3: P1's 8♠, illegal on 3♣, lifted while stockpile 4 was hidden,
    # which then showed its face-down card before 8♠ came home.
    ("demo13-stable2-illegal-card-in-a-hand-on-its-way-home", "8S", "P1: 8♠ on 3♣"),
])
def test_an_illegal_card_on_its_way_home_in_a_hand_is_ruled_once_R9_R10_R14(log_name, card,
                                                                            ruled):
    # Sent home while its stockpile was hidden, the card was taken as home; the stockpile then
    # showed its slot without it, so the card had to leave again and be tried once more
    # where the camera never saw it: a second illegal play ruled for one attempt. The
    # referee now waits for the stockpile to show the card (Doubts.sent_home_unseen).
    rulings = demo_log_rulings(log_name)
    illegal = [r.message.split(" is ")[0] for r in rulings
               if r.kind.value == "illegal" and r.card == card]
    assert illegal == [ruled]
    assert not any("cannot explain" in r.message for r in rulings)


def _in_hand_rulings(game: int, until: float) -> list:
    """The rulings of a simulated game's first `until` seconds, each illegal card taken back
    held in its player's hand for 0.05 to 0.5 s on the way home (bench/monitor.py
    --in-hand 0.5), every zone in view."""
    bot = BotConfig(mistake_rate=0.05)
    record = simulate_game(game, SimConfig(bots=(bot, bot)))
    lines = observation_log(record, ObsConfig(delayed_turnup_p=0.3, in_hand_s=(0.05, 0.5)),
                            random.Random(game))
    monitor = Monitor(MonitorConfig(rules=record.rules))
    return [r for ln in lines if ln["t"] <= until for r in monitor.feed(ln)]


def test_an_illegal_card_lifted_and_held_is_not_ruled_played_under_another_card_R9_R14():
    # bench/monitor.py --in-hand, game 1000069: P2's 8♣, illegal on 6♣, lifted at 29.77 s
    # and held on its way home; P1's A♣ landed on K♠ on the other pile at 29.87 s; 8♣ showed
    # home at 30.03 s. With 8♣ in no zone, the search put it under A♣: "8♣ on K♠ is not
    # adjacent" was ruled, which never happened. The search now lifts it into P2's hand
    # (candidates.lift), so A♣ is ruled as it lands, and 8♣ goes home unruled.
    rulings = _in_hand_rulings(1000069, 30.5)
    eights = [r.message for r in rulings if r.kind.value == "illegal" and r.card == "8C"]
    assert eights == ["P2: 8♣ on 6♣ is not adjacent (R10) — take it back"]
    ace = next(r for r in rulings if r.kind.value == "play" and r.card == "AC")
    assert ace.message == "P1 plays A♣ on K♠" and ace.t == pytest.approx(29.867, abs=0.001)
    assert not any(r.kind.value == "warning" for r in rulings)


@pytest.mark.parametrize("game, until, ruled, guessed", [
    # P2's A♠ went on K♥ from stockpile 3, under a hand, and P1's Q♥ on it at once (not
    # adjacent); the camera saw Q♥ land, then A♠ when Q♥ was lifted into P1's hand.
    (1000138, 10.0, "P1: Q♥ on A♠ is not adjacent (R10) — take it back", "P2: A♠ on Q♥"),
    # P1's K♠ went on Q♦ from stockpile 5, under a hand, and P2's K♦ on it 15 ms later.
    (1000018, 148.1, "P2: K♦ on K♠ is the same rank, and equal ranks are not adjacent (R10) "
                     "— take it back", "P1: K♠ on K♦"),
])
def test_a_card_uncovered_by_a_card_lifted_into_a_hand_is_not_ruled_played_on_it_R9_R10_R14(
        game, until, ruled, guessed):
    # The camera saw the second card on the pile, then the first once the second was lifted
    # off into its player's hand: the shorter order, the first played on the second, was
    # ruled, and the second showing home could not be explained. The referee now waits while
    # the second card may be in a hand (Doubts.under_a_lifted), and rules the true order once
    # it shows home.
    rulings = _in_hand_rulings(game, until)
    illegal = [r.message for r in rulings if r.kind.value == "illegal"]
    assert ruled in illegal
    assert not any(m.startswith(guessed) for m in illegal)
    assert not any("cannot explain" in r.message for r in rulings)


@pytest.mark.parametrize("game, until, card, ruled, covering", [
    # P1's 7♦ went on 6♠ from stockpile 3 under a hand, and P2's Q♠ on it 2 ms later (not
    # adjacent); the camera saw Q♠ land, then 7♦ once Q♠ was in P2's hand. The search's
    # order, Q♠ on 6♠ and covered by 7♦, named 6♠ only; Q♠ was not adjacent on either.
    (1000199, 69.6, "QS", "P2: Q♠ on 6♠ (or on 7♦, had that card come first) is not adjacent "
                          "(R10) — take it back", ("play", "P1 plays 7♦ on 6♠")),
    # P2 spat Q♣ and P1's 2♥ went on it 17 ms later (not adjacent); the camera saw 2♥ on 2♣,
    # then Q♣ once 2♥ was in P1's hand. "The same rank on 2♣" was ruled, a spit card nobody
    # sees before it lands having come first (bench/monitor.py --in-hand, 1,000 games).
    (1000484, 113.2, "2H", "P1: 2♥ on 2♣ is the same rank, and equal ranks are not adjacent; "
                           "or, had the spit card Q♣ come first, 2♥ on Q♣ is not adjacent "
                           "(R10) — take it back", ("spit", "P2 spits Q♣ onto the right spit "
                                                            "pile")),
])
def test_a_card_lifted_into_a_hand_off_a_card_that_covers_it_now_is_ruled_naming_both_R10_R14(
        game, until, card, ruled, covering):
    # bench/monitor.py --in-hand: a card seen landing on a pile, then lifted into its
    # player's hand, showing the card beneath, which may have landed first. Illegal either
    # way, it is ruled naming both (Doubts.name_covered_by_first).
    rulings = _in_hand_rulings(game, until)
    assert [r.message for r in rulings if r.kind.value == "illegal" and r.card == card] == [
        ruled]
    assert covering in [(r.kind.value, r.message) for r in rulings]


def test_a_card_turned_up_and_moved_under_one_hand_is_not_from_nowhere_R11_R12():
    # Demo seed 18's log from round 2's deal. Under one hand P2 turned up 9♠ on stockpile 4
    # and moved it into the empty stockpile 2; stockpile 4 read a back before and after, and
    # came back into view while stockpile 2 was still hidden. Taken as unchanged, it left
    # 9♠ "from nowhere" and the referee lost the round. Stockpile 5 was hidden with it and
    # reads a back too, so which one 9♠ came from is ruled only once stockpile 4 empties.
    rulings = demo_log_rulings("demo18-turned-up-and-moved-under-one-hand")
    assert not any("cannot explain" in r.message for r in rulings)
    refills = [r.message for r in rulings if r.kind.value == "refill" and r.card == "9S"]
    assert refills == ["P2 moves 9♠ from stockpile 4 to the empty stockpile 2"]
    played = next(i for i, r in enumerate(rulings) if r.kind.value == "play" and r.card == "9S")
    wait = next(i for i, r in enumerate(rulings) if "when 9♠ moved" in r.message)
    assert wait < played and "for now" in rulings[wait].message


def test_an_illegal_card_covered_then_taken_back_and_played_on_the_other_pile_R14():
    # Demo seed 12's log from round 2's deal. P1's 6♠ landed illegally on Q♣ (R10), P2
    # covered it with K♣, and P1 took it back from beneath and played it on 5♣ on the left
    # pile in one sweep of the hand: the camera never saw it back home. The search only sent
    # a loose card home from where it lay or where it showed at home, so 6♠ on the left pile
    # "could not have moved there" and the referee lost the round.
    rulings = demo_log_rulings("demo12-covered-illegal-card-taken-back-and-played-elsewhere")
    assert not any(r.kind.value == "warning" and "cannot" in r.message for r in rulings)
    six = [(r.kind.value, r.message) for r in rulings if r.card == "6S"]
    assert six[-2:] == [("illegal", "P1: 6♠ on Q♣ is not adjacent (R10) — take it back"),
                        ("play", "P1 plays 6♠ on 5♣")]
    assert [r.card for r in rulings if r.kind.value == "spit"][-2:] == ["3D", "7C"]


# The line of demo seed 1's log where the camera saw 2♦ on the left pile again, between 9♥
# and A♣; hidden, the order of 9♥ and the spit is not known.
_TWO_OF_DIAMONDS_AGAIN = '{"t": 3747.587937443, "observe": {"spit.left": "2D", "spit.right": "?"}}'


@pytest.mark.parametrize("edits, nine", [
    ({}, "P1: 9♥ on 2♦ is not adjacent (R10) — take it back"),
    ({_TWO_OF_DIAMONDS_AGAIN: _TWO_OF_DIAMONDS_AGAIN.replace('"2D"', '"?"')},
     "P1: 9♥ on 2♦ (or on A♣, had that spit card come first) is not adjacent (R10) — take it "
     "back"),
])
def test_spits_due_whatever_the_order_are_ruled_beside_a_card_lifted_off_a_pile_R14_R16(
        edits, nine):
    # Demo seed 1's log from round 3's deal. With Spit! due, P1 tried 9♥ on 2♦ (R10) and
    # lifted it, while P2 spat 6♣ and played 7♦ on it and P1 spat A♣ onto 2♦. The spits
    # were due and landed on 2♦ and K♦ in any order, but were left unruled ("did not see in
    # which order 6♣, A♣ moved"). The camera saw 2♦ again between 9♥ and A♣, which settles
    # their order (test_a_card_seen_lifted_before_a_spit_landed_is_not_doubted_R10_R14_R16);
    # with that frame's reading hidden, 9♥ is ruled naming both cards, and the spits still.
    rulings = demo_log_rulings("demo1-spits-while-an-illegal-card-was-lifted", edits)
    assert not any("did not see" in r.message for r in rulings)
    at = next(i for i, r in enumerate(rulings) if r.card == "9H" and r.kind.value == "illegal")
    assert [(r.kind.value, r.message) for r in rulings[at:at + 5]] == [
        ("illegal", nine),
        ("spit", "P2 spits 6♣ onto the right spit pile"),
        ("play", "P2 plays 7♦ on 6♣"),
        ("spit", "P1 spits A♣ onto the left spit pile"),
        ("play", "P1 plays 2♥ on A♣")]


def test_a_card_seen_lifted_before_a_spit_landed_is_not_doubted_R10_R14_R16():
    # Demo seed 11's log from the start to round 1's 55th second. P2 tried 6♠ on 9♠ (R10);
    # the camera saw 6♠, then 9♠ again, then P2's spit Q♦ on that pile, and P2's K♣ on Q♦.
    # The referee took the order of 6♠ and the spit for unknown (Q♦ might have lain unseen
    # under 6♠), ruled 6♠ "on 9♠ (or on Q♦)" and left K♣ unruled ("did not see when K♣
    # moved"). 9♠ showing after 6♠ says nothing lay between them: no move lifts a spit card.
    rulings = demo_log_rulings("demo11-illegal-card-lifted-before-a-spit-landed")
    assert not any("did not see" in r.message for r in rulings)
    at = next(i for i, r in enumerate(rulings) if r.card == "6S" and r.kind.value == "illegal")
    assert [(r.kind.value, r.message) for r in rulings[at:at + 5]] == [
        ("illegal", "P2: 6♠ on 9♠ is not adjacent (R10) — take it back"),
        ("spit", "P1 spits 8♠ onto the left spit pile"),
        ("spit", "P2 spits Q♦ onto the right spit pile"),
        ("play", "P2 plays K♣ on Q♦"),
        ("play", "P1 plays A♠ on K♣")]


def test_an_illegal_card_taken_back_into_an_empty_stockpile_is_a_refill_R12_R14():
    # Demo seed 19's log from round 4's deal. P1's 5♣ from stockpile 3 landed illegally on 7♥
    # (R10); P1 lifted it off the pile and laid it straight into the empty stockpile 1, while
    # stockpile 3 showed the face-down card beneath. The search sent a loose card home only
    # from a spit pile it showed on, so "5♣ cannot have moved there" until stockpile 3 was
    # turned up 1.3 s later.
    rulings = demo_log_rulings("demo19-illegal-card-taken-back-into-an-empty-stockpile")
    assert not any("cannot explain" in r.message for r in rulings)
    five = [(r.kind.value, r.message, r.t) for r in rulings if r.card == "5C"]
    assert five == [
        ("illegal", "P1: 5♣ on 7♥ is not adjacent (R10) — take it back", pytest.approx(7784.91)),
        ("refill", "P1 moves 5♣ from stockpile 3 to the empty stockpile 1",
         pytest.approx(7786.743))]  # the line that first shows 5♣ there

def test_a_doubt_cleared_rules_the_orders_that_differ_only_in_the_card_beneath_as_one_R10_R14():
    # Demo seed 20's log from round 2's deal. "Spit!" was due when a hand hid the right
    # pile: P2 played 9♥ on 8♦, P1 tried 4♦ (not adjacent) and took it back, P2 played 10♦.
    # The first explanation was held in doubt (a spit card might lie under the pile). Once
    # the table cleared that doubt, the search from the sure position found two orders, 4♦
    # tried on 9♥ or on 8♦, which differ only in that card: the referee waited, then took
    # the table without ruling any of the four moves (16 missed in that game).
    rulings = demo_log_rulings("demo20-illegal-card-under-a-hand-on-either-card")
    at = next(i for i, r in enumerate(rulings) if r.card == "9H")
    assert [(r.kind.value, r.message) for r in rulings[at:at + 4]] == [
        ("play", "P2 plays 9♥ on 8♦"),
        ("illegal", "P1: 4♦ on 9♥ (or on 8♦, in an order of moves the camera could not tell "
                    "apart) is not adjacent (R10) — take it back"),
        ("play", "P2 plays 10♦ on 9♥"),
        ("play", "P2 plays J♠ on 10♦")]
    assert not any(r.kind.value == "warning" and "did not see" in r.message for r in rulings)


def test_a_slap_before_a_hand_reached_the_pile_of_the_last_card_is_false_R17_R18():
    # Demo seed 1's log from round 3's deal. P1 slapped the right pile while a hand hid P1's
    # last stockpile, 0.6 s before P1's last card, 10♦, landed on that pile: the pile was in
    # view, no hand over it, until 0.23 s after the slap, so the round was still on (R17).
    # The referee counted that slap as P1's deciding one ("first by 974 ms"); P1's real slap
    # came 83 ms before P2's.
    rulings = demo_log_rulings("demo1-slap-before-the-last-card-a-hand-hid")
    call = next(i for i, r in enumerate(rulings) if r.kind.value == "slap-call")
    assert [(r.kind.value, r.player) for r in rulings[call + 1:call + 4]] == [
        ("false-slap", "p1"), ("slap-result", "p1"), ("round-over", None)]
    assert rulings[call + 1].message == (
        "False slap: P1 slapped the right pile at 41560.284 s, before \"Slap!\": the last card "
        "landed on the right pile later: no hand had reached that pile yet (R18)")
    assert rulings[call + 2].message.startswith("P1 was first on the right pile by 82.60 ms")


@pytest.mark.parametrize("log_name, slapper, winner, why, result", [
    # Demo seed 8's log from round 11's deal. P1 slapped the right pile while hands hid it
    # and P2's last stockpile; 0.17 s later the camera still read P2's last card, 10♠, on
    # that stockpile, so the round was still on (R17).
    ("demo8-slap-before-the-last-card-left-its-stockpile", "p1", "p2",
     "P1 slapped the right pile at 6815.438 s, before \"Slap!\": the last card, 10♠, was "
     "still on P2's stockpile 5 after that", "P2 was first on the right pile by 20.13 ms"),
    # Demo seed 15's log from the start to the end of round 2. P2 slapped the left pile
    # 0.07 s before a hand hid the right pile, where P1's last card, 9♣, landed, and 0.23 s
    # before a hand came over P1's last stockpile, 9♣ still on it: a card leaving a zone
    # shows as a change at once, so the round was still on (R17).
    ("demo15-slap-before-a-hand-reached-the-last-stockpile", "p2", "p1",
     "P2 slapped the left pile at 4957.820 s, before \"Slap!\": the last card, 9♣, was "
     "still on P1's stockpile 3 after that", "P1 was first on the left pile by 73.03 ms"),
    # Demo seed 19's log of round 3. P2 slapped the left pile while hands hid it and P1's
    # stockpiles, P1's last card, K♦, in P1's hand (taken back from the right pile, R14);
    # 0.1 s later the camera read the left pile with A♣ still on top, and K♦ landed on that
    # A♣: the round was still on when P2 slapped (R17).
    ("demo19-slap-before-the-last-card-landed-on-a-pile-seen-after", "p2", "p1",
     "P2 slapped the left pile at 71207.017 s, before \"Slap!\": the left pile still showed "
     "A♣, the card the last card landed on, on top after that",
     "P1 was first on the left pile by 54.78 ms"),
])
def test_a_slap_before_the_last_card_left_its_stockpile_is_false_R17_R18(
        log_name, slapper, winner, why, result):
    # The pile the last card landed on was hidden from before the slap, so the referee took
    # the end for one it could not place, and called "Slap again!" where the first slaps
    # decided the piles. The card's stockpile, or the card it landed on seen on top of the
    # pile after the slap, places it (Judging._ended_after).
    rulings = demo_log_rulings(log_name)
    call = max(i for i, r in enumerate(rulings) if r.kind.value == "slap-call")
    assert [(r.kind.value, r.player) for r in rulings[call + 1:]] == [
        ("false-slap", slapper), ("slap-result", winner), ("round-over", None)]
    assert rulings[call + 1].message == f"False slap: {why} (R18)"
    assert rulings[call + 2].message.startswith(result)


def test_a_card_held_on_its_way_home_may_have_gone_onto_a_hidden_pile_first_R10_R14():
    # Demo seed 15's log from round 9's deal (stable_frames 3). P1 tried 2♠ on 7♣ and took it
    # back, and a hand hid P1's stockpile 3 while 2♠ went home and onto 3♥ on the right pile,
    # itself hidden; P2's 4♣ then landed on 2♠, illegally. Holding 2♠ in P1's hand (the
    # search's lift, db03fe5) explained the table in fewer steps, and "P2 plays 4♣ on 3♥"
    # and "P1 plays 3♣ on 4♣" were ruled: two wrong rulings, and the round lost after.
    rulings = demo_log_rulings("demo15-card-taken-back-went-home-and-onto-a-hidden-pile")
    assert not any("cannot" in r.message for r in rulings)
    right = [(r.kind.value, r.message) for r in rulings
             if r.to == "spit.right" and r.card in ("2S", "4C", "3C")]
    assert right[-4:] == [("play", "P1 plays 2♠ on 3♥"),
                          ("illegal", "P2: 4♣ on 2♠ is not adjacent (R10) — take it back"),
                          ("play", "P1 plays 3♣ on 2♠"), ("play", "P2 plays 4♣ on 3♣")]


def test_an_illegal_card_seen_lifted_off_and_laid_again_was_tried_again_R10_R14():
    # Demo seed 14's log from round 3's deal. P1 tried A♥ on 8♥, took it back and tried it
    # there again; the camera saw 8♥ on top between the two, but never A♥ home (its stockpile
    # under a hand). The take-back waited for the stockpile (Doubts.sent_home_unseen), A♥
    # stayed on 8♥ in the belief, and A♥ laid there again read as if it had never left: the
    # second try went unruled (since 1f72713).
    rulings = demo_log_rulings("demo14-illegal-card-lifted-off-and-laid-again")
    ace = [(r.kind.value, r.message) for r in rulings if r.card == "AH"]
    tried = ("illegal", "P1: A♥ on 8♥ is not adjacent (R10) — take it back")
    assert ace == [tried, tried, ("play", "P1 plays A♥ on 2♣")]
