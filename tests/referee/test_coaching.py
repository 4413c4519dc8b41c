"""referee.coaching on hand-written logs: missed plays, time to see a play and illegal actions
per player, judged on the monitor's confirmed table, and the comparison with earlier games."""
import pytest

from referee.coaching import (CoachingConfig, coaching_from_lines, compare, comparison_json,
                              format_coaching)

from tests.referee.test_coach import SETUP


def _game(t5s=8.0, t4d=9.0, t3c=21.0, hidden=True, illegal=True, end=30.0):
    """After the spits at 2.0 (P1's 7♥ and P2's 5♠ fit 6♣): P2 plays 5♠, 4♦, 3♣ on the left
    pile at the given times (each leaves a face-down card showing); a hand hides P1's
    stockpile 2 from 10 to 20; P1 plays 9♦ on 3♣ at 22 (not adjacent, R10) and takes it back at
    23; the log ends with a still frame at `end`."""
    lines = list(SETUP)
    lines.append({"t": t5s, "observe": {"p2.stock4": "back", "spit.left": "5S"}})
    lines.append({"t": t4d, "observe": {"p2.stock3": "back", "spit.left": "4D"}})
    if hidden:
        lines.append({"t": 10.0, "observe": {"p1.stock2": "?"}})
        lines.append({"t": 20.0, "observe": {"p1.stock2": "8C"}})
    lines.append({"t": t3c, "observe": {"p2.stock2": "back", "spit.left": "3C"}})
    if illegal:
        lines.append({"t": 22.0, "observe": {"p1.stock3": "back", "spit.left": "9D"}})
        lines.append({"t": 23.0, "observe": {"p1.stock3": "9D", "spit.left": "3C"}})
    lines.append({"t": end, "observe": {}})
    return lines


def test_missed_plays_time_to_see_and_illegal_kinds_per_player():
    c = coaching_from_lines(_game())
    p1, p2 = c.players["p1"], c.players["p2"]
    # P1's 7♥ fitted 6♣ from 2.0 until P2 covered it at 8.0: 6 s, never played.
    assert p1.missed == 1 and p1.seen_s == ()
    assert dict(p1.illegal_kinds) == {"not-adjacent": 1} and p1.illegal == 1
    # P2: 5♠ after 6 s, 4♦ after 1 s, 3♣ after 12 s (hidden hands do not stop the clock);
    # 2♥ fits 3♣ from 21.0 to the end of the log at 30.0: missed.
    assert p2.seen_s == pytest.approx((6.0, 1.0, 12.0))
    assert p2.mean_seen_s == pytest.approx(19 / 3)
    assert p2.missed == 1 and p2.illegal == 0
    assert c.rounds == 1


def test_a_play_is_missed_only_after_the_missed_time():
    c = coaching_from_lines(_game(end=25.0), config=CoachingConfig(missed_after_s=5.0))
    assert c.players["p2"].missed == 0  # 2♥ fitted for 4 s only
    c = coaching_from_lines(_game(end=25.0), config=CoachingConfig(missed_after_s=3.0))
    assert c.players["p2"].missed == 1


def test_nothing_is_counted_as_available_while_the_table_is_unsure():
    # 5♠ is played at 8.0 under a hand that hides the pile from 3.0: the monitor only knows
    # the play when the hand lifts at 8.5, and P1's 7♥ was last seen fitting at 3.0.
    lines = list(SETUP) + [
        {"t": 3.0, "observe": {"spit.left": "?"}},
        {"t": 8.5, "observe": {"p2.stock4": "back", "spit.left": "5S"}},
        {"t": 9.0, "observe": {}}]
    c = coaching_from_lines(lines)
    assert c.players["p1"].missed == 0
    assert c.players["p2"].seen_s == pytest.approx((6.5,))


def test_comparison_with_an_earlier_game_says_better_or_worse_per_figure():
    earlier = coaching_from_lines(_game(t5s=3.0, t4d=4.0, t3c=5.0, hidden=False,
                                        illegal=False, end=6.0))
    now = coaching_from_lines(_game())
    trends = compare(now, [earlier])
    assert trends["p2"]["seen_s"].verdict == "worse"         # 6.33 s against 1.0 s
    assert trends["p2"]["seen_s"].before == pytest.approx(1.0)
    assert trends["p1"]["missed"].verdict == "worse"         # 1 against 0
    assert trends["p1"]["illegal"].verdict == "worse"
    assert trends["p2"]["illegal"].verdict == "same"
    assert trends["p1"]["seen_s"].verdict is None            # P1 made no play in either game
    back = compare(earlier, [now])
    assert back["p2"]["seen_s"].verdict == "better" and back["p1"]["missed"].verdict == "better"
    assert comparison_json(trends)["p2"]["seen_s"]["games"] == 1
    text = format_coaching(now, trends)
    assert "P2: 1 missed play(s), saw a play in 6.33 s on average (3 plays)" in text
    assert "time to see a play worse (before: 1.00 s)" in text


def test_without_earlier_games_the_section_says_so():
    now = coaching_from_lines(_game())
    assert "no earlier games" in format_coaching(now, compare(now, []))
