"""The rules monitor on hand-written observation logs: each inference case and each illegal play
(R10–R18) gets its own test, and bad input gives warnings that name the line."""
import json

import pytest

from referee.cards import Card
from referee.monitor import Monitor
from referee.scene import Step
from referee.steps import stacked
from referee.moves import Play, Refill
from referee.rulings import RulingKind
from tests.referee.builders import make_table

# A fresh deal (26 each, R5): the ten face-up tops, then both players spit (R8).
DEAL = {"p1.stock1": "7H", "p1.stock2": "8C", "p1.stock3": "9D", "p1.stock4": "10S",
        "p1.stock5": "JH", "p2.stock1": "2H", "p2.stock2": "3C", "p2.stock3": "4D",
        "p2.stock4": "5S", "p2.stock5": "6H", "spit.left": "empty", "spit.right": "empty"}


def _run(*observations, monitor=None):
    m = monitor or Monitor()
    lines = [{"t": 0.0, "start": {"p1": 26, "p2": 26}},
             {"t": 1.0, "observe": DEAL},
             {"t": 2.0, "observe": {"spit.left": "6C", "spit.right": "KD"}}]
    t = 3.0
    for obs in observations:
        if isinstance(obs, dict) and ("slap" in obs or "t" in obs):
            lines.append(obs)
        else:
            lines.append({"t": t, "observe": obs})
        t += 1.0
    out = []
    for line in lines:
        out.extend(m.feed(line))
    return m, [r.to_json() for r in out]


def _after_setup(rulings):
    return [r for r in rulings if r["ruling"] not in ("deal", "spit")]


def test_deal_and_both_spits_are_ruled_with_each_players_side():
    _, rulings = _run()
    assert [r["ruling"] for r in rulings] == ["deal", "spit", "spit"]
    assert {(r["player"], r["card"], r["to"]) for r in rulings[1:]} == {
        ("p1", "6C", "spit.left"), ("p2", "KD", "spit.right")}


def test_adjacent_play_is_ruled_a_play_R10():
    _, rulings = _run({"p1.stock1": "empty", "spit.left": "7H"})
    assert _after_setup(rulings) == [{
        "t": 3.0, "ruling": "play", "player": "p1", "card": "7H", "from": "p1.stock1",
        "to": "spit.left", "rule": "R10", "message": "P1 plays 7♥ on 6♣"}]


def test_not_adjacent_card_is_illegal_and_ruled_once_until_taken_back_R10():
    m, rulings = _run({"p1.stock3": "back", "spit.left": "9D"},
                      {"p2.stock2": "?"},                     # the table goes on; no new ruling
                      {"p1.stock3": "9D", "spit.left": "6C"},  # taken back, as ruled
                      {"p2.stock2": "3C"})
    after = _after_setup(rulings)
    assert len(after) == 1
    assert after[0]["ruling"] == "illegal" and after[0]["rule"] == "R10"
    assert after[0]["player"] == "p1" and after[0]["card"] == "9D"
    assert after[0]["illegal_kind"] == "not-adjacent" and "take it back" in after[0]["message"]
    assert m.scene.loose == [] and m.scene.table.slot("p1", 2).up.code == "9D"


def test_equal_rank_is_illegal_by_default_R10():
    _, rulings = _run({"p2.stock5": "back", "spit.left": "6H"})
    (r,) = _after_setup(rulings)
    assert (r["ruling"], r["player"], r["illegal_kind"], r["rule"]) == (
        "illegal", "p2", "equal-rank", "R10")


def test_face_down_card_played_without_turning_is_illegal_R11():
    _, rulings = _run({"p1.stock1": "empty", "spit.left": "7H"},
                      {"p1.stock2": "back", "spit.left": "8C"},
                      {"p1.stock2": "empty", "spit.left": "9S"})
    r = _after_setup(rulings)[-1]
    assert (r["ruling"], r["player"], r["card"], r["from"], r["rule"], r["illegal_kind"]) == (
        "illegal", "p1", "9S", "p1.stock2", "R11", "face-down")


def test_turned_up_then_played_under_a_hand_is_not_called_face_down_R11():
    # The zone was hidden in between: the card may have been turned up unseen, so no R11 guess.
    _, rulings = _run({"p1.stock1": "empty", "spit.left": "7H"},
                      {"p1.stock2": "back", "spit.left": "8C"},
                      {"p1.stock2": "?"},
                      {"p1.stock2": "empty", "spit.left": "9S"})
    after = _after_setup(rulings)
    assert [r["ruling"] for r in after] == ["play", "play", "play"]
    assert (after[-1]["card"], after[-1]["from"]) == ("9S", "p1.stock2")


def test_moving_a_card_onto_another_stockpile_with_no_empty_slot_is_illegal_R12():
    _, rulings = _run({"p1.stock3": "back", "p1.stock4": "9D"})
    (r,) = _after_setup(rulings)
    assert (r["ruling"], r["rule"], r["illegal_kind"], r["from"], r["to"]) == (
        "illegal", "R12", "no-empty-slot", "p1.stock3", "p1.stock4")


def test_stacking_while_a_slot_is_empty_is_illegal_R12():
    _, rulings = _run({"p1.stock1": "empty", "spit.left": "7H"},
                      {"p1.stock3": "back", "p1.stock4": "9D"})
    r = _after_setup(rulings)[-1]
    assert (r["ruling"], r["rule"], r["illegal_kind"]) == ("illegal", "R12", "stacking")


def test_refill_into_an_empty_slot_is_legal_R12():
    _, rulings = _run({"p1.stock1": "empty", "spit.left": "7H"},
                      {"p1.stock3": "back", "p1.stock1": "9D"})
    r = _after_setup(rulings)[-1]
    assert (r["ruling"], r["rule"], r["from"], r["to"]) == (
        "refill", "R12", "p1.stock3", "p1.stock1")


def test_a_card_laid_out_as_a_sixth_stockpile_is_illegal_R13():
    # J♥ leaves its stockpile and shows in no zone. For the settle time (1.5 s) it may still
    # be in the player's hand on its way to another stockpile; gone longer, it was laid out.
    _, rulings = _run({"p1.stock5": "back"}, {}, {})
    (r,) = _after_setup(rulings)
    assert (r["ruling"], r["rule"], r["illegal_kind"], r["card"], r["t"]) == (
        "illegal", "R13", "sixth-stockpile", "JH", 5.0)


def test_a_card_in_the_hand_between_two_stockpiles_is_not_a_sixth_stockpile_R12_R13():
    # 9♦ leaves stockpile 3 and is out of every zone while the camera sees the whole table
    # (in the player's hand), then lands in the empty stockpile 1 a second later: a refill.
    _, rulings = _run({"p1.stock1": "empty", "spit.left": "7H"}, {"p1.stock3": "back"},
                      {"p1.stock1": "9D"})
    assert [(r["ruling"], r.get("card")) for r in _after_setup(rulings)] == [
        ("play", "7H"), ("refill", "9D")]


def test_taking_back_a_played_card_is_illegal_and_it_is_expected_back_R14():
    m, rulings = _run({"p1.stock1": "empty", "spit.left": "7H"},
                      {"p1.stock1": "7H", "spit.left": "6C"},
                      {"p1.stock1": "empty", "spit.left": "7H"})
    after = _after_setup(rulings)
    assert [r["ruling"] for r in after] == ["play", "illegal"]
    assert (after[1]["rule"], after[1]["illegal_kind"]) == ("R14", "taken-back")
    assert m.scene.loose == []


def test_two_cards_on_one_pile_between_observations_the_later_one_no_longer_fits_R14():
    # P1's 7♥ and P2's 5♠ both fit the 6♣; 7♥ lies underneath, so it touched first, and 5♠
    # on 7♥ does not fit: P2 must take it back.
    _, rulings = _run({"p1.stock1": "empty", "p2.stock4": "back", "spit.left": "5S"})
    after = _after_setup(rulings)
    assert [(r["ruling"], r["player"], r["card"]) for r in after] == [
        ("play", "p1", "7H"), ("illegal", "p2", "5S")]
    assert after[1]["rule"] == "R10" and "take it back" in after[1]["message"]


def test_both_players_playing_in_one_observation_are_both_ruled():
    _, rulings = _run({"p1.stock1": "empty", "spit.left": "7H",
                       "p2.stock1": "empty", "spit.right": "2H"})
    after = _after_setup(rulings)
    assert sorted((r["ruling"], r["player"], r["card"]) for r in after) == [
        ("illegal", "p2", "2H"), ("play", "p1", "7H")]


def test_spitting_while_a_play_exists_is_a_false_spit_R16():
    _, rulings = _run({"spit.left": "QS"})
    (r,) = _after_setup(rulings)
    assert (r["ruling"], r["player"], r["rule"]) == ("false-spit", "p1", "R16")


def test_slap_before_the_round_ended_is_a_false_slap_R18():
    _, rulings = _run({"t": 3.0, "slap": {"player": "p2", "pile": "spit.left"}})
    (r,) = _after_setup(rulings)
    assert (r["ruling"], r["player"], r["rule"]) == ("false-slap", "p2", "R18")


def test_hidden_zone_is_inferred_when_visible_again():
    # 9♦ with two face-down cards under it goes under a hand; the left pile shows 9♦ on 8♣
    # and later the stockpile shows Q♠: 9♦ was played there and Q♠ turned up.
    m, rulings = _run({"p1.stock1": "empty", "spit.left": "7H"},
                      {"p1.stock2": "back", "spit.left": "8C"},
                      {"p1.stock3": "?"},
                      {"p1.stock3": "QS", "spit.left": "9D"})
    after = _after_setup(rulings)
    assert after[-1]["ruling"] == "play" and after[-1]["card"] == "9D"
    s = m.scene.table.slot("p1", 2)
    assert s.up.code == "QS" and s.down == 1


def test_no_ruling_from_a_guess_while_the_pile_is_hidden():
    m, rulings = _run({"spit.left": "?", "p1.stock1": "empty"})
    assert _after_setup(rulings) == []
    rest = m.feed({"t": 9.0, "observe": {"spit.left": "7H"}})
    assert [r.kind for r in rest] == [RulingKind.PLAY]


def test_bad_lines_give_warnings_naming_the_line_and_the_game_goes_on():
    m = Monitor()
    _, rulings = _run("not a dict", monitor=m)
    for i, bad in enumerate(["{not json", '{"t": 5, "observe": {"p9.stock1": "7H"}}',
                             '{"t": 5, "observe": {"p1.stock1": "ZZ"}}',
                             '{"t": 1, "observe": {}}',
                             '{"t": 6, "observe": {"spit.right": "9D"}}']):
        out = m.feed(bad)
        assert [r.kind for r in out] == [RulingKind.WARNING], bad
        assert f"line {5 + i}" in out[0].message
    assert "seen twice" in out[0].message
    # Nothing of a line showing a card twice is kept: not even when a stockpile last showed
    # its card, which times the round's last card (Judging._ended_after).
    seen_at = dict(m._card_seen_at)
    out = m.feed('{"t": 6.5, "observe": {"p2.stock1": "7H"}}')
    assert "seen twice" in out[0].message and m._card_seen_at == seen_at
    out = m.feed('{"t": 7, "observe": {"p1.stock1": "empty", "spit.left": "7H"}}')
    assert [r.kind for r in out] == [RulingKind.PLAY]


def test_replaying_the_same_lines_twice_gives_identical_rulings():
    obs = [{"p1.stock1": "empty", "p2.stock4": "back", "spit.left": "5S"},
           {"p2.stock4": "5S", "spit.left": "7H"}, {"p1.stock3": "back", "p1.stock4": "9D"}]
    _, a = _run(*obs)
    _, b = _run(*obs)
    assert json.dumps(a) == json.dumps(b) and len(a) > 3


def test_a_slap_when_a_player_s_stockpiles_all_look_empty_is_not_called_false_R17_R18():
    # The face-down cards under a top are never seen: when a player's five stock zones all
    # read empty, the round may be over (R17) whatever the referee believed, so an early slap
    # gets a warning, not a false-slap call.
    from referee.monitor import Monitor
    from referee.rulings import RulingKind

    m = Monitor()
    layout = {f"p1.stock{i}": "empty" for i in range(1, 6)}
    layout.update({"p2.stock1": "KC", "p2.stock2": "back", "p2.stock3": "back",
                   "p2.stock4": "back", "p2.stock5": "back", "spit.left": "empty",
                   "spit.right": "empty"})
    m.feed({"t": 1.0, "observe": layout})
    out = m.feed({"t": 2.0, "slap": {"player": "p2", "pile": "spit.left"}})
    assert [r.kind for r in out] == [RulingKind.WARNING]
    assert "does not call the slap false" in out[0].message


def test_a_card_stacked_on_and_then_played_may_have_left_first_R12():
    # Q♠ moved onto A♦'s stockpile (stacking, R12), put back, A♦ played on 2♠, Q♠ moved into
    # the slot A♦ left: A♦ came off again, so it may as well have left first, and Q♠'s move
    # been legal (game 26000095). Plain stacking covers A♦ and uncovers nothing.
    table = make_table("AD QD - QS+2", "5H", left="AC 2S", right="7C")
    ad, qs = Card.parse("AD"), Card.parse("QS")
    stack = Refill("p1", 3, 0, qs)
    steps = (Step(stack, table.check(stack)),)
    assert not steps[0].verdict.ok
    assert stacked(table, steps) == ({ad}, None)
    play, fill = Play("p1", 0, "spit.left", ad), Refill("p1", 3, 0, qs)
    steps += (Step(play, table.check(play)),)
    after = table.copy()
    after.apply(play)
    steps += (Step(fill, after.check(fill)),)
    assert steps[1].verdict.ok and steps[2].verdict.ok
    assert stacked(table, steps) == ({ad}, ad)


def _rulings_of(lines):
    m = Monitor()
    out = []
    for i, line in enumerate(lines, 1):
        out += m.feed(line, i)
    return out


_LAYOUT_P1 = {"p1.stock1": "7H", "p1.stock2": "2H", "p1.stock3": "KC", "p1.stock4": "9C",
              "p1.stock5": "2D"}
_LAYOUT_P2 = {"p2.stock1": "7C", "p2.stock2": "2C", "p2.stock3": "8D", "p2.stock4": "6S",
              "p2.stock5": "8S"}


def test_a_start_line_where_a_player_holds_no_cards_says_the_game_is_won_R21():
    out = _rulings_of([{"t": 100.0, "start": {"p1": 0, "p2": 52}},
                       {"t": 100.1, "observe": {**_LAYOUT_P1, **_LAYOUT_P2,
                                                "spit.left": "empty", "spit.right": "empty"}}])
    assert [(r.kind, r.rule) for r in out] == [(RulingKind.WARNING, "R21")]
    assert out[0].t == 100.0 and "line 1: P1 holds no cards" in out[0].message


@pytest.mark.parametrize("start", [{"p1": -4, "p2": 56}, {"p1": 16, "p2": 30},
                                   {"P1": 16, "P2": 36}, {"p1": 16, "p2": 36, "p3": 7}])
def test_a_bad_start_line_leaves_the_counts_unknown_not_26_each(start):
    """The deal is not ruled as if the counts were known: 26 each was ruled as sure."""
    out = _rulings_of([{"t": 100.0, "start": start},
                       {"t": 100.1, "observe": {**_LAYOUT_P1, **_LAYOUT_P2,
                                                "spit.left": "empty", "spit.right": "empty"}}])
    assert out[0].kind is RulingKind.WARNING and out[0].t == 100.0
    assert "without knowing the card counts" in out[0].message
    deal = next(r for r in out if r.kind is RulingKind.DEAL)
    assert "may be off" in deal.message


def test_a_short_layout_of_one_card_a_pile_is_dealt_so_R7():
    """R7 Decision: any layout of at most five piles. Five cards as five piles of one each
    were never dealt (the referee waited for R7's 1, 2, 2 in silence)."""
    out = _rulings_of([{"t": 100.0, "start": {"p1": 5, "p2": 47}},
                       {"t": 100.1, "observe": {**_LAYOUT_P1, **_LAYOUT_P2,
                                                "spit.left": "empty", "spit.right": "empty"}},
                       {"t": 102.0, "observe": {"spit.left": "3S"}},
                       {"t": 102.5, "observe": {"p1.stock2": "empty", "spit.left": "2H"}}])
    kinds = [r.kind for r in out]
    assert kinds[0] is RulingKind.DEAL and "P1 5 cards" in out[0].message
    play = next(r for r in out if r.kind is RulingKind.PLAY)
    assert play.card == "2H" and play.to == "spit.left"


def test_a_short_layout_whose_piles_are_not_known_says_what_to_do_R7():
    lay = {**_LAYOUT_P1, "p1.stock4": "empty", "p1.stock5": "empty"}  # 10 cards, 3 piles
    out = _rulings_of([{"t": 100.0, "start": {"p1": 10, "p2": 42}},
                       {"t": 100.1, "observe": {**lay, **_LAYOUT_P2, "spit.left": "empty",
                                                "spit.right": "empty"}},
                       {"t": 100.2, "observe": {}}])
    assert not [r for r in out if r.rule == "R7"], "it may still be being dealt"
    out = _rulings_of([{"t": 100.0, "start": {"p1": 10, "p2": 42}},
                       {"t": 100.1, "observe": {**lay, **_LAYOUT_P2, "spit.left": "empty",
                                                "spit.right": "empty"}},
                       {"t": 102.0, "observe": {"spit.left": "3S", "spit.right": "QC"}}])
    warned = [r for r in out if r.kind is RulingKind.WARNING and r.rule == "R7"]
    assert len(warned) == 1 and "P1 has 3 stockpiles of 10 cards, where R7 deals 4" in warned[0].message


def test_the_uncover_prompt_names_every_player_who_can_uncover_R16():
    out = _rulings_of([{"t": 100.0, "start": {"p1": 16, "p2": 36}},
                       {"t": 100.1, "observe": {**_LAYOUT_P1, **_LAYOUT_P2,
                                                "spit.left": "empty", "spit.right": "empty"}},
                       {"t": 102.0, "observe": {"spit.left": "3H", "spit.right": "QC"}},
                       {"t": 103.0, "observe": {"spit.left": "2C", "p2.stock2": "back"}},
                       {"t": 103.5, "observe": {"spit.right": "KC", "p1.stock3": "back"}},
                       {"t": 106.0, "observe": {}}])
    prompt = next(r for r in out if r.kind is RulingKind.WARNING and r.rule == "R16")
    assert prompt.message == ("P1: turn up stockpile 3; P2: turn up stockpile 2 — nobody can "
                              "play until then (R16)")


def _first_slap_race():
    """A simulated game's observation log as an outside log would have it (no `t_ns`), and
    the index of its first two slap lines, the race at the end of round 1."""
    import random

    from referee.obslog import ObsConfig, observation_log
    from referee.simulate import SimConfig, simulate_game

    lines = observation_log(simulate_game(3, SimConfig()), ObsConfig(), random.Random(3))
    for line in lines:
        if "slap" in line:
            line["slap"].pop("t_ns", None)
    i = next(k for k, line in enumerate(lines) if "slap" in line)
    assert "slap" in lines[i + 1] and lines[i]["t"] < lines[i + 1]["t"]
    return lines, i


def _fed(lines):
    m = Monitor()
    for line in lines:
        m.feed(line)
    return [r.to_json() for r in m.rulings]


def test_slaps_logged_in_the_order_they_arrived_are_judged_by_their_stamps_R18():
    # The pads report a press once its bounce settles: a log written as events arrive may
    # hold the later-stamped slap first. The race goes by the stamps (R18), not the lines.
    lines, i = _first_slap_race()
    in_order = _fed(lines)
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    arrived = _fed(lines)
    result = next(r for r in in_order if r["ruling"] == "slap-result")
    assert result == next(r for r in arrived if r["ruling"] == "slap-result")
    assert result["player"] == "p2" and result["margin_ms"] > 0  # p2's slap is stamped first
    assert arrived == in_order  # (the result is known at the later stamp either way)


def test_a_slap_stamped_long_before_the_line_above_it_is_a_bad_line():
    lines, i = _first_slap_race()
    lines[i + 1] = dict(lines[i + 1], t=lines[i]["t"] - 1.5)  # 1.5 s before the line above
    warning = next(r for r in _fed(lines) if r["ruling"] == "warning")
    assert f"line {i + 2}: time goes backwards" in warning["message"]
    assert "a slap may come up to 1 s after lines stamped later" in warning["message"]


def test_one_slap_and_the_piles_gathered_settles_the_piles_R18():
    # Only P2's pad reported a slap; the players then gathered the spit piles. P2 takes the
    # pile P2 slapped and P1 the other (R18), ruled with the round's end; without it the
    # round's result was lost ("ended in a way the referee could not follow").
    lines, i = _first_slap_race()
    del lines[i + 1]  # P1's slap
    slap = lines[i]["slap"]
    rulings = _fed(lines)
    k = next(k for k, r in enumerate(rulings) if r["ruling"] == "slap-result")
    result, over = rulings[k], rulings[k + 1]
    other = "spit.right" if slap["pile"] == "spit.left" else "spit.left"
    assert result["piles"] == {slap["pile"]: "p2", other: "p1"} and result["player"] == "p2"
    assert result["margin_ms"] is None and result["rule"] == "R18"
    assert result["message"].startswith("Only P2 slapped before the spit piles were gathered")
    assert over["ruling"] == "round-over" and over["t"] == result["t"] > lines[i]["t"]
    assert not any("could not follow" in r["message"] for r in rulings)


def test_the_monitor_is_referee_monitor_as_the_design_names_it():
    import referee

    assert referee.Monitor is Monitor
    assert referee.Monitor().feed({"t": 1.0, "observe": DEAL})[0].kind is RulingKind.DEAL


def test_a_slap_that_comes_late_after_the_race_was_decided_is_not_called_false_R18():
    # P1's hand bounces onto the other pad 2 ms after P1's slap; the line comes after P2's
    # slap, which decided the race. It belongs to that race (only the first slap counts):
    # judged as it arrives, the pads disarmed, it would be a false slap.
    lines, i = _first_slap_race()
    first, second = lines[i]["slap"], lines[i + 1]["slap"]
    other = "spit.right" if second["pile"] == "spit.left" else "spit.left"
    bounce = {"t": lines[i + 1]["t"] - 0.001, "slap": {"player": second["player"], "pile": other}}
    assert first["player"] != second["player"]
    in_order = _fed(lines)
    lines.insert(i + 2, bounce)
    rulings = _fed(lines)
    late = [r for r in rulings if r["ruling"] == "warning" and "came late" in r["message"]]
    assert len(late) == 1 and late[0]["player"] == second["player"]
    assert [r for r in rulings if r not in late] == in_order  # no false slap, nothing else
