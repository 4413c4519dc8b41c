"""The monitor against the truth: simulated games (bots that make mistakes) replayed from the
observation logs a camera would have produced, with camera noise. Every inferred move must equal
a true move, and every illegal play and false slap must be ruled."""
import random

import pytest

from referee.monitor import Monitor, MonitorConfig
from referee.obslog import ObsConfig, compare, monitor_items, observation_log, replay, true_items
from referee.simulate import BotConfig, SimConfig, game_seed, simulate_game

BOT = BotConfig(mistake_rate=0.05)
SIM = SimConfig(bots=(BOT, BOT))
# Camera noise the monitor is held to: the hand stays over a stockpile from a play until the
# next card is turned up (delayed turn-ups), with the vision stabiliser's latency.
NOISE = ObsConfig.benchmark()


def _replay(index: int, seed: int = 1):
    s = game_seed(seed, index)
    record = simulate_game(s, SIM)
    monitor = Monitor(MonitorConfig(rules=record.rules))
    replay(monitor, observation_log(record, NOISE, random.Random(s)), record)
    return record, monitor, compare(true_items(record), monitor_items(monitor.moves,
                                                                      monitor.rulings))


def _replay_with_hands(game_seed_: int, occlusion: float = 0.5):
    """A game replayed with hands over half the moves (occlusion 0.5), as in the benchmark,
    or over another share of them."""
    record = simulate_game(game_seed_, SIM)
    monitor = Monitor(MonitorConfig(rules=record.rules))
    lines = observation_log(record, ObsConfig(occlusion_p=occlusion, delayed_turnup_p=0.3),
                            random.Random(game_seed_))
    replay(monitor, lines, record)
    return record, monitor, compare(true_items(record), monitor_items(monitor.moves,
                                                                      monitor.rulings))


# A move these games leave unruled on purpose, with the warning that says why: the other
# player's spit card may lie under it unseen (Monitor._over_owed_spit). Game 1000012, round 7:
# a forced "Spit!" raced by a turn-up; P1, holding no spit card, played 9♥ on 10♣, the pile P2
# would spit on, and P2 never spat, so no frame tells.
DOUBTED = {9: ("('pile', 7, 'spit.right', '10C', 'p1', '9H')", "9H")}


def _followed_whole(monitor: Monitor, c) -> None:
    """The game was refereed with its card counts known throughout (no table taken as read,
    no counts "which may be off"), and no move or illegal action was missed."""
    assert not [r for r in monitor.rulings if r.extra.get("uncertain") or r.extra.get("rebase")]
    assert (c.missed, c.missed_illegal) == (0, 0), c.details


def _round_end_with_counts(monitor: Monitor, number: int, cards: dict):
    """Round `number`'s one round-over ruling, with `cards` as the next round's counts, and
    no ruling in the game saying the counts may be off (R19)."""
    end = [r for r in monitor.rulings if r.kind.value == "round-over"
           and r.extra["round"] == number]
    assert len(end) == 1 and end[0].extra["cards"] == cards
    assert not end[0].extra.get("uncertain")
    assert not [r for r in monitor.rulings if r.extra.get("uncertain")]
    return end[0]


def _replay_with_hands_until(game_seed_: int, t_end: float) -> Monitor:
    """The monitor after a game's first `t_end` seconds, replayed with hands over half the
    moves (as _replay_with_hands)."""
    record = simulate_game(game_seed_, SIM)
    monitor = Monitor(MonitorConfig(rules=record.rules))
    lines = observation_log(record, ObsConfig(occlusion_p=0.5, delayed_turnup_p=0.3),
                            random.Random(game_seed_))
    replay(monitor, [ln for ln in lines if ln["t"] < t_end], record)
    return monitor


@pytest.mark.parametrize("index", range(12))
def test_inferred_moves_equal_the_true_moves(index):
    record, monitor, c = _replay(index)
    assert record.finished
    warnings = [(r.card, r.extra.get("owed_spit")) for r in monitor.rulings
                if r.kind.value == "warning" and not r.extra.get("prompt")]
    if index in DOUBTED:
        item, card = DOUBTED[index]
        assert (c.wrong, c.missed_illegal, c.details) == (0, 0, (f"missed {item}",))
        assert warnings == [(card, True)]
    else:
        assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details
        assert not warnings
    over = [r for r in monitor.rulings if r.kind.value == "game-over"]
    assert len(over) == 1 and over[0].extra["winner"] == record.winner


def test_replaying_a_game_twice_gives_identical_rulings():
    _, a, _ = _replay(3)
    _, b, _ = _replay(3)
    assert [r.to_json() for r in a.rulings] == [r.to_json() for r in b.rulings]


# Illegal actions the monitor misses in bench/monitor.py's 1,000 games (issue 3's target is 0):
# 1 on 2026-12-01 late evening, game 1000684's 5♠ on a spit card covered 18 ms after it landed
# and never seen (test_a_spit_never_seen_is_found_from_the_round_end_...).
MISSED_ILLEGAL_BOUND = 1
# True moves and round results missed there: 12 of 390,727 since e1681e6 (28 before): 7 plays
# left unruled where a spit card may lie under them unseen, 4 in game 1000684 around its spit
# card never seen, and a turn-up seen only after the game was over (docs/monitor.md).
MISSED_BOUND = 12


def test_a_thousand_games_are_refereed_without_a_wrong_ruling_and_miss_no_more_than_today():
    # (About 3 minutes of one core: issue 3's figure, so it runs in every test run and CI.)
    wrong = missed = missed_illegal = 0
    for index in range(1000):
        _, _, c = _replay(index, seed=1)
        wrong += c.wrong
        missed += c.missed
        missed_illegal += c.missed_illegal
    assert wrong == 0
    assert missed_illegal <= MISSED_ILLEGAL_BOUND
    assert missed <= MISSED_BOUND


def test_an_illegal_play_ruled_with_two_kinds_matches_the_true_one_of_them_R10():
    # Doubts.either_way: 3♥ illegal on 8♣ (not adjacent) or on 3♣ (the same rank), the camera
    # could not tell which. It is caught if the truth is either kind; never anything else.
    true = [("illegal", 4, "Play", "p2", "3H", "not-adjacent")]
    ruled = [("illegal", 4, "Play", "p2", "3H", "equal-rank or not-adjacent")]
    c = compare(true, ruled)
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0)
    c = compare([("illegal", 4, "Play", "p2", "3H", "empty-pile")], ruled)
    assert (c.wrong, c.missed, c.missed_illegal) == (1, 1, 1)
    c = compare([("illegal", 4, "Play", "p2", "3D", "not-adjacent")], ruled)
    assert (c.wrong, c.missed_illegal) == (1, 1)


def _game_190(hand_over_the_left_pile: bool):
    """Game 190 of the benchmark (seed 1000193), round 14: P1's 9♦ left its stockpile under a
    hand and went on 8♥ unseen, P2's 8♦ covered it at once, then P1's 9♠ went on 8♦. With
    `hand_over_the_left_pile`, a hand also hid the left pile as 8♦ landed, and again before
    9♠ did (the pile in view between, 9♦ could not have come after 8♦: P1's own 9♠ would
    have covered it unseen, R9, referee.timeline._one_hand)."""
    s = game_seed(1, 190)
    record = simulate_game(s, SIM)
    lines = observation_log(record, NOISE, random.Random(s))
    if hand_over_the_left_pile:
        for card in ("8D", "9S"):
            at = next(i for i, ln in enumerate(lines)
                      if ln.get("observe", {}).get("spit.left") == card and ln["t"] > 822.0)
            lines.insert(at, {"t": lines[at]["t"] - 0.02, "observe": {"spit.left": "?"}})
    monitor = Monitor(MonitorConfig(rules=record.rules))
    replay(monitor, lines, record)
    return monitor, compare(true_items(record), monitor_items(monitor.moves, monitor.rulings))


def test_an_illegal_play_alike_in_every_order_the_camera_left_open_is_ruled_R10():
    # With the left pile hidden, the camera cannot tell in which order 9♦ and 9♠ went onto
    # it; P1's 4♠ then lands there, not adjacent to the card beneath in either order. When the
    # referee gets back in step it rules 4♠ naming both cards (it used to rule neither), and
    # every other ruling still matches the truth.
    monitor, c = _game_190(hand_over_the_left_pile=True)
    illegal = [r for r in monitor.rulings if r.kind.value == "illegal" and r.card == "4S"
               and "(or on" in r.message]
    assert [r.message for r in illegal] == [
        "P1: 4♠ on 9♠ (or on 9♦, in an order of moves the camera could not tell apart) is not "
        "adjacent (R10) — take it back"]
    assert (c.wrong, c.missed_illegal) == (0, 0), c.details


def test_an_illegal_play_every_order_agrees_on_is_ruled_once_not_again_as_alike_R10():
    # Game 44000151, round 4, under hands: P2's 5♥ went on 5♦ (the same rank) and then on 7♠
    # (not adjacent), taken back each time. Zone by zone, another order has it on 7♠ twice;
    # both orders agree on one "not adjacent on 7♠", and the second was once ruled as well,
    # as alike in both, though in truth it was the same rank on 5♦. In the order the camera
    # saw the table change in (referee.timeline) only the true order is left, and both
    # attempts are ruled as they were.
    _, monitor, c = _replay_with_hands(44000151)
    ruled = [r.message for r in monitor.rulings
             if r.kind.value == "illegal" and r.card == "5H" and 251 < r.t < 253]
    assert ruled == ["P2: 5♥ on 5♦ is the same rank, and equal ranks are not adjacent (R10) — "
                     "take it back", "P2: 5♥ on 7♠ is not adjacent (R10) — take it back"]
    assert (c.wrong, c.missed_illegal) == (0, 0), c.details


def test_a_round_end_read_from_a_table_taken_as_read_is_not_called_R10_R17():
    # Game 4000022, round 3: lost under hands, the referee took the table as the camera read
    # it, with P1's stockpiles empty and 7♣ on 9♦ on the right pile. 7♣ was P1's last card,
    # not adjacent, and went home a moment later; "Slap!" was called though the round went
    # on. The end rests on a top taken as read, so it is not called, and the referee says so.
    _, monitor, c = _replay_with_hands(4000022)
    near = [r for r in monitor.rulings if 166.9 < r.t < 168]
    assert not [r for r in near if r.kind.value in ("slap-call", "round-over", "game-over")]
    said = [r.message for r in near if r.kind.value == "warning" and r.rule == "R17"]
    assert len(said) == 1 and "does not call the round's end" in said[0], said
    assert c.wrong == 0, c.details


def test_a_play_just_after_a_raced_spit_call_may_lie_on_an_unseen_spit_card_R14_R16():
    # Game 45000138, round 3, under hands: nobody made the turn-up left, so "Spit!" was forced
    # as P2 turned up 7♣. P1 spat 4♠ on the left pile (8♥); P2's 7♣ covered it 4 ms later,
    # before any frame showed it: not adjacent, taken back at 164.2. "7♣ on 8♥" was ruled
    # legal, and its going home an illegal take-back: two wrong rulings. Whether the call or
    # the turn-up came first, and so whether a spit lay under 7♣, is not known until 7♣ is
    # seen lifted off; here the pile was hidden then, so neither is ruled.
    _, monitor, c = _replay_with_hands(45000138)
    said = [(r.kind.value, r.message) for r in monitor.rulings
            if r.card == "7C" and 162.8 < r.t < 166]
    assert said == [("warning", "not ruled yet: P2 plays 7♣ on 8♥, or on a spit card of P1's "
                                "that may lie under it unseen (R8, R16) — the referee rules it "
                                "if the table shows which")]
    assert c.wrong == 0, c.details


def test_a_move_seen_just_after_a_forced_spit_call_may_have_raced_it_R16():
    # Game 1000028, no hands: the forced "Spit!" fell due at 157.83; P1's refill, made 64 ms
    # before it, was seen 67 ms after it. The call may have come second, and then nobody
    # owed a spit. P1, holding no spit card, turned up A♣ and played it on K♣, on the pile
    # P2 would spit on: P2's spit card may lie under A♣, so A♣ is not ruled (P2 never spat:
    # no frame tells). The cards on A♣ are: nobody owes a spit once play went on.
    _, monitor, c = _replay(25)
    ruled = [r.message for r in monitor.rulings
             if 157.8 < r.t < 162.6 and r.kind.value in ("play", "spit", "illegal")]
    assert ruled == ["P2: 9♥ on A♣ is not adjacent (R10) — take it back",
                     "P1 plays 2♦ on A♣", "P1 plays 3♣ on 2♦", "P1 plays 4♥ on 3♣"]
    assert c.wrong == 0 and c.details == (
        "missed ('pile', 3, 'spit.right', 'KC', 'p1', 'AC')",), c.details


def test_a_move_seen_before_a_forced_spit_call_fell_due_did_not_race_it_R16():
    # Game 1000446, no hands, round 3: the prompt's turn-up was timed from P2's refill of
    # K♦, made in full view (seen at 161.03); the forced "Spit!" fell due at 163.93. P2 turned
    # up 2♦ at 163.35, seen at 163.47, before it: no "Spit!" is called, and 2♦ on 3♥ is ruled.
    # Allowing a hand's 0.6 s (CALL_RACE_S) over a move no hand hid, the referee called
    # "Spit!" as it saw 2♦, and left 2♦ unruled: a spit card of P1's might lie under it.
    _, monitor, c = _replay(443)
    said = [(r.kind.value, r.message) for r in monitor.rulings if 163 < r.t < 166]
    assert said == [("play", "P2 plays 2♦ on 3♥")]
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details


def test_a_play_where_a_spit_is_still_owed_is_ruled_once_that_spit_shows_elsewhere_R8_R16():
    # Game 1000016, no hands: after "Spit!" at 351.0 P2 spat A♣, its last spit card, and
    # played 2♣ on it before P1's spit showed. P1, the only player still holding spit cards,
    # may spit on either pile (R16), so its spit card may have lain under 2♣, covered at
    # once. It showed on the left pile one frame later: 2♣ lay on A♣, ruled then, late.
    _, monitor, c = _replay(13)
    ruled = [(r.t, r.message) for r in monitor.rulings
             if 351.5 < r.t < 352.5 and r.kind.value in ("play", "spit")]
    assert ruled == [(351.6, "P2 spits A♣ onto the right spit pile"),
                     (352.1, "P2 plays 2♣ on A♣"),
                     (352.1, "P1 spits Q♣ onto the left spit pile")]
    assert (c.wrong, c.missed) == (0, 0), c.details


def test_a_deal_after_a_doubtful_game_over_is_followed_R19_R21():
    # Game 43000224, hands over half the moves: the referee lost the counts in round 8 (the
    # piles gathered after an end it could not follow) and in round 10 took the table as read
    # (585.4 s). P2's last card ended round 10, and from counts it had lost the referee called
    # P2's win (R21) "if the counts are right". The players dealt again 20 s later: the game
    # was not over, and the new deal is followed as round 11, its spits ruled. (Game 34000196
    # showed a deal already on the table as such a game-over was called, skipped, and every
    # later ruling naming the round before, 464 wrong items, mended in fa12957; games 34000196
    # and 48000240 showed this until the referee stopped losing their counts.)
    _, monitor, c = _replay_with_hands(43000224)
    assert c.wrong == 0, c.details
    over = [r for r in monitor.rulings if r.kind.value == "game-over"]
    assert over[0].t == pytest.approx(606.57, abs=0.01) and "if the counts are right" in over[0].message
    said = [r.message for r in monitor.rulings if 626.8 < r.t < 627.0]
    assert "the players have dealt again, so the game was not over" in said[0]
    assert said[-1].startswith("Round 11 dealt")
    assert [r.message for r in monitor.rulings if r.kind.value == "spit" and 627 < r.t < 630] == [
        "P2 spits K♦ onto the right spit pile", "P1 spits 9♥ onto the left spit pile"]


def test_counts_of_an_end_seen_while_a_hand_hides_a_stockpile_and_a_pile_are_uncertain_R17_R19():
    # Game 4000034, hands over half the moves, round 4: P2 cleared (and won, R21) while a
    # hand hid P1's stockpile 3 and the left pile, under which P1 had just played K♠ and Q♥.
    # "Next round P1 15" was ruled as known; P1 held 13. The counts are said to be uncertain.
    monitor = _replay_with_hands_until(4000034, 258)
    over = [r for r in monitor.rulings if r.kind.value == "round-over" and r.t > 257]
    assert len(over) == 1 and over[0].extra.get("uncertain"), over
    assert "a hand hid a stockpile of P1 and a spit pile as the round ended" in over[0].message


def test_a_play_on_a_top_the_resync_s_candidates_differ_on_is_ruled_once_they_are_out_R10():
    # Game 1000234, hands over a tenth of the moves, round 6: six cards went on the right pile
    # under a hand in an order the camera could not tell (a resync, 358.4 s): J♦ on top in
    # the position taken, 3♦ in another. P2's 10♦ then went on it: legal on J♦, not on 3♦, so
    # it was not ruled. The next table ruled out the other position (359.8 s) and the six
    # cards were ruled, late, but 10♦, played after the resync, never was: it is now.
    _, monitor, c = _replay_with_hands(1000234, occlusion=0.1)
    late = [(r.t, r.message) for r in monitor.rulings if 359.8 < r.t < 359.9]
    assert late[-2:] == [
        (359.833333, "P1: J♣ on J♦ is the same rank, and equal ranks are not adjacent (R10) — "
                     "take it back"),
        (359.833333, "P2 plays 10♦ on J♦")]
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details


def test_a_round_end_resting_on_a_take_back_nobody_ruled_is_not_called_R14_R17():
    # Game 45000146, hands over half the moves, round 2: P2's last card, 2♥, landed on P1's 2♠
    # (the same rank, R10) and went home; the camera saw 2♥ on top, then 2♠, with 2♥ on P2's
    # stockpile 3. A resync took 2♥ for played legally and lifted back (R14), which would
    # have emptied P2's stock, and called "round over" and the game at 116.5, 3.2 s early.
    # Neither order was ruled, so neither is the end: the round is followed as going on, and
    # its end is called when 2♥ is played on A♣.
    monitor = _replay_with_hands_until(45000146, 120)
    held = [r for r in monitor.rulings if r.extra.get("end_on_take_back")]
    assert [(round(r.t, 1), r.player) for r in held] == [(116.5, "p2")]
    assert "2♥ lies on their stockpile again" in held[0].message
    ruled = [(round(r.t, 1), r.kind.value) for r in monitor.rulings
             if r.t > 116 and r.kind.value != "warning"]
    assert ruled == [(117.9, "spit-call"), (119.8, "play"), (119.8, "round-over"),
                     (119.8, "game-over")]


@pytest.mark.parametrize("game, t0, t1", [(46000190, 237, 241)])
def test_cards_not_fitting_a_guessed_top_leave_it_guessed_for_the_next_card_R10(game, t0, t1):
    # Hands over half the moves. 46000190, round 4: a rebase took K♣ (illegal, lying) for the
    # left pile's top over a belief gone stale; K♣ went home, leaving 5♠ as a top the referee
    # only guessed. A♦ (on the true top) did not fit 5♠ and was not ruled; but K♣ on A♦ was
    # then ruled "not adjacent on 5♠", and Q♠ too. (Game 4000089, round 12, showed it too, 4♥
    # then 5♠ on a guessed Q♥, until the referee followed up to 32 orders of moves,
    # MAX_BRANCHES: it no longer loses that table.) A card the belief lets lie on a guessed
    # top, to be taken back, does not make a top the camera never showed known: nothing is
    # ruled on that pile until a card fits it.
    monitor = _replay_with_hands_until(game, t1)
    assert [r.message for r in monitor.rulings
            if t0 < r.t and r.kind.value == "illegal"] == []


@pytest.mark.parametrize("game, t0, t1, untrue", [
    (7000054, 137.0, 138.0, "P1 plays 3♣ on 2♣"),
    (7000117, 260.0, 261.0, "P2 plays 6♣ on 5♥")])
def test_a_resync_rules_no_step_only_the_orders_it_followed_agree_on_R10(game, t0, t1, untrue):
    # Hands over half the moves. 7000054, round 3: under a hand P2 played 2♣ and moved 10♣
    # into its slot; the referee followed the orders where 10♣ was stacked on 2♣ (one move,
    # not two), and 2♣ later had to come out and go on 3♦ in every one of them, with 3♣ on it.
    # In truth 2♣ lay under 3♦ and 4♦, and 3♣ went on 4♦. 7000117, round 5: the same with 2♠
    # and 6♣ on 5♣. The orders followed from table to table are not every order since the last
    # sure position (Monitor._every_order): what only they agree on is not ruled.
    monitor = _replay_with_hands_until(game, t1)
    said = [r.message for r in monitor.rulings if t0 < r.t and r.kind.value == "play"]
    assert untrue not in said
    assert any(r.extra.get("resync") for r in monitor.rulings if t0 < r.t)


def test_a_card_covered_unseen_on_a_pile_in_view_was_covered_by_the_other_players_hand_R9():
    # The same moment with the left pile in view throughout: a card the camera never saw there
    # was covered faster than one hand can fetch and lay a second card (R9), so by P2's 8♦,
    # not by P1's own 9♠ (referee.seen_order.order_after). The order is known: every move of the
    # game is ruled, 4♠ on 9♠ alone.
    monitor, c = _game_190(hand_over_the_left_pile=False)
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details
    assert [r.message for r in monitor.rulings if r.kind.value == "illegal" and r.card == "4S"
            and 825 < r.t < 826] == ["P1: 4♠ on 9♠ is not adjacent (R10) — take it back"]


def test_a_card_on_a_top_an_earlier_resync_only_guessed_is_ruled_once_the_order_is_seen_R10():
    # Game 8000035 with hands over half the moves (occlusion 0.5), round 2: a resync took a
    # position with four loose cards on the right pile (which of them were legal it could not
    # tell); K♣ went on them, then P1's 5♥, not adjacent to K♣. A later resync, where every
    # option agreed, ruled "5♥ on 5♣ is the same rank": the table's top under the guessed
    # cards (Monitor._on_unsure_card now keeps a resync from ruling such a card). In the
    # order the camera saw the whole table change in (referee.timeline) only one of those
    # orders is left: no resync is needed, and 5♥ is ruled on K♣, where it landed.
    _, monitor, c = _replay_with_hands(8000035)
    assert [r.message for r in monitor.rulings if r.card == "5H" and r.kind.value == "illegal"
            and r.t < 125.0] == ["P1: 5♥ on K♣ is not adjacent (R10) — take it back"]
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details


def test_a_spit_never_seen_is_found_from_the_round_end_and_the_counts_stay_known_R16_R20():
    # Game 1000684, round 6 (one spit pile, R20): P2 spat 5♣ and P1's 5♠ covered it 18 ms
    # later, before the camera could report it; P2's 4♠ then cleared P2's stockpiles. Without
    # the spit, 5♠ lies illegally on Q♥ and 4♠ does not end the round; with it, whatever card
    # it was, the round is over and P1 takes the pile. The gathered piles show the round was
    # over, so the referee rules the end with its true counts instead of refereeing the other
    # 14 rounds with counts "which may be off" (16 illegal plays and the winner were missed).
    record, monitor, c = _replay(681)
    assert c.wrong == 0, c.details
    end = [r for r in monitor.rulings if r.kind.value == "round-over"
           and r.extra["round"] == 6]
    assert len(end) == 1 and end[0].extra["cards"] == {"p1": 36, "p2": 16}
    assert not end[0].extra.get("uncertain")
    assert [r for r in monitor.rulings if r.extra.get("unseen_spit")]
    # 5♠'s ruling depends on the card the camera never saw: it is the one illegal play missed.
    assert c.missed_illegal == 1, c.details
    over = [r for r in monitor.rulings if r.kind.value == "game-over"]
    assert len(over) == 1 and over[0].extra["winner"] == record.winner


def test_a_game_over_called_from_counts_the_referee_lost_is_followed_on_R19_R21():
    # Game 10000036, hands over half the moves: the referee lost the counts in round 18 and,
    # from the counts it believed, called the game over in round 20 ("if the counts are
    # right"). The players dealt again: it follows the next deal (Monitor._play_on) instead
    # of ignoring the seven rounds still played. (Until the search's memo was mended, 4d324d0,
    # it lost the counts in round 15 and this game also showed a short layout, P2's four
    # stockpiles, dealt again from the table, Monitor._fit_layout; it now follows round 15.)
    record, monitor, c = _replay_with_hands(10000036)
    assert c.wrong == 0, c.details
    deals = {r.extra["round"]: r for r in monitor.rulings if r.kind.value == "deal"}
    assert deals[16].extra["cards"] == {"p1": 42, "p2": 10}
    overs = [r for r in monitor.rulings if r.kind.value == "game-over"]
    assert overs[0].extra.get("uncertain") and overs[0].t < deals[21].t
    assert record.rounds == 27 and max(deals) == 27


def test_a_round_end_every_order_the_camera_missed_agrees_on_is_ruled_with_its_counts_R17():
    # Game 10000035, hands over half the moves, round 1: a resync could not tell the order of
    # 3♥, 3♦, 4♥, 4♦ (its other position followed as a rival), so P2's A♥ "on 3♣" was held,
    # not ruled; P1's 2♣ then ended the round under a hand, and the piles were gathered. The
    # round was "not followed" and the next 14 were refereed with counts that may be off.
    # Every position the referee could list ends the round alike, so it rules the end with
    # the true counts (Monitor._end_from_held). A♥ is not adjacent to 3♣ in every position,
    # so it is ruled too (Doubts.alike_in_rivals), and so is 2♣, once the rivals are gone.
    _, monitor, c = _replay_with_hands(10000035)
    end = [r for r in monitor.rulings if r.kind.value == "round-over" and r.extra["round"] == 1]
    assert len(end) == 1 and end[0].extra["cards"] == {"p1": 30, "p2": 22}
    assert not end[0].extra.get("uncertain")
    assert [(r.kind.value, r.card) for r in monitor.rulings if r.card in ("AH", "2C")
            and 48.0 < r.t < 70.0] == [("illegal", "AH"), ("play", "2C")]
    assert c.wrong == 0, c.details


def test_a_last_round_ended_in_an_order_the_camera_missed_is_ruled_from_the_gathered_piles_R17():
    # Game 1001001, hands over a tenth of the moves, round 7, the game's last: 9♠, 8♠ and
    # 10♦ went on the right pile under a hand, then 7♥ and P1's last card, 8♥. Five orders
    # fit the table; two end the round, alike (P1 cleared, R20, and won, R21): 9♠, 8♠,
    # 10♦ not adjacent on 8♠, or 10♦ first, the same rank on 10♠. The referee followed all
    # five and, the game over, no change came to tell them apart, until the players
    # gathered the cards: it rules that end, the moves both orders rule alike, and 10♦
    # naming both ways (Monitor._end_from_branches, doubts.r10_in_every_order).
    _, monitor, c = _replay_with_hands(1001001, occlusion=0.1)
    last = [(r.kind.value, r.card) for r in monitor.rulings if r.t > 442.0
            and r.kind.value != "warning"]
    assert last == [("play", "9S"), ("play", "8S"), ("illegal", "10D"), ("play", "7H"),
                    ("play", "8H"), ("round-over", None), ("game-over", None)]
    ten = next(r for r in monitor.rulings if r.card == "10D" and r.t > 442.0)
    assert "on 8♠ is not adjacent" in ten.message and "on 10♠ is the same rank" in ten.message
    assert monitor.rulings[-1].extra["winner"] == "p1"
    assert c.wrong == 0 and (c.missed, c.missed_illegal) == (0, 0), c.details


def test_slaps_after_a_last_card_seen_landing_are_not_false_when_the_end_is_read_late_R18():
    # Game 48000206, hands over half the moves, round 2: P1's last card, 6♣, was read on the
    # left pile (105.17 s) and both players slapped it (105.47, 105.54), while the referee
    # followed several orders of moves made under hands. It could tell them apart only when
    # the piles were gathered, 17 s later, under the gathering hands: the end came before
    # that hand, since the camera had seen 6♣ land, so the slaps count (R18), where both
    # were called false (Judging._ended_after).
    _, monitor, c = _replay_with_hands(48000206)
    assert not [r for r in monitor.rulings if r.kind.value == "false-slap" and r.t < 130.0]
    result = next(r for r in monitor.rulings if r.kind.value == "slap-result" and r.t > 120.0)
    assert result.player == "p2" and result.extra["piles"] == {"spit.left": "p2",
                                                               "spit.right": "p1"}
    assert result.extra["margin_ms"] == pytest.approx(73.70, abs=0.01)
    _round_end_with_counts(monitor, 2, {"p1": 18, "p2": 34})
    assert c.wrong == 0, c.details


@pytest.mark.parametrize("index", [187, 255])
def test_moves_out_of_sight_in_an_order_the_search_once_skipped_are_ruled_R14(index):
    # Games 1000190 and 1000258: a card played under a hand, covered at once, and an illegal
    # card lifted off it; the one order of the moves that fits was skipped by the search as a
    # position already searched (referee.infer._search), so the referee found "more than one
    # sequence" or none, and lost the counts (the rest of the game) or a round's rulings.
    record, monitor, c = _replay(index)
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details
    over = [r for r in monitor.rulings if r.kind.value == "game-over"]
    assert len(over) == 1 and over[0].extra["winner"] == record.winner


def test_a_lone_first_spit_under_lost_counts_is_ruled_once_the_other_player_spits_R8_R20():
    # Game 48000205, hands over half the moves: the referee lost track of some moves in round
    # 1, so round 2 is dealt from counts that may be off. P2's 4♣ shows alone on the right
    # pile first (72.33 s). Alone it may be P1's card, spat there by the only player holding
    # spit cards (R20), so it is not ruled yet. P1's 3♦ then lands on the left pile: both
    # players spat, so each card is its side's (R8), and 4♣ is ruled too, late
    # (Monitor._rule_lone_first). (Games 10000031, 48000175, 48000192 and 48000206 showed
    # this until the referee stopped losing their counts.)
    record, monitor, c = _replay_with_hands(48000205)
    assert c.wrong == 0, c.details
    deal = next(r for r in monitor.rulings if r.kind.value == "deal" and r.extra["round"] == 2)
    assert deal.extra.get("uncertain")
    spits = [(r.player, r.card) for r in monitor.rulings
             if r.kind.value == "spit" and deal.t <= r.t < deal.t + 5]
    assert spits == [("p2", "4C"), ("p1", "3D")]
    seen_at = next(im.t for im in monitor.moves if im.round == 2 and im.step.move.card.code == "4C")
    assert seen_at < next(r.t for r in monitor.rulings if r.card == "4C" and r.t >= deal.t)


def test_a_spit_that_fits_either_side_of_a_card_taken_back_is_ruled_R14_R16():
    # Game 1000020, round 4: P2's 3♥ lay illegally on the left pile and went back home as P1's
    # spit card 3♣ showed there. 3♣ was spat before 3♥ (under it) or after: the table the
    # rules judge was the same, so "P1 spits 3♣" either way, and it is ruled (it was not:
    # one of the 17 moves missed in bench/monitor.py's 1,000 games, 12 of them this one case).
    _, monitor, c = _replay(17)
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details
    assert [r.message for r in monitor.rulings if r.kind.value == "spit" and r.card == "3C"
            and 224 < r.t < 225] == ["P1 spits 3♣ onto the left spit pile"]


def test_a_card_back_home_over_an_unseen_spit_card_is_ruled_illegal_either_way_R10_R14():
    # Game 1000315, round 6: P1's 4♠ showed on K♥, then back on P1's stockpile with P2's spit
    # card 3♣ on the pile. Not adjacent to K♥ (R10), or, had 3♣ come first, played on it and
    # taken back (R14): illegal either way, and ruled (it was one of the three illegal plays
    # bench/monitor.py's 1,000 games missed).
    _, monitor, c = _replay(312)
    # (7♠ on 6♥ at 347.8 was left unruled until SEEN_EARLY_S: P1's refill of 4♦, seen before
    # the forced "Spit!" could have fallen due, was taken as raced by it, and a spit card of
    # P2's might then have lain under 7♠. The refill was made in full view: no call, 7♠ ruled.)
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details
    assert [r.message for r in monitor.rulings if r.card == "7S" and 347 < r.t < 349] == [
        "P1 plays 7♠ on 6♥"]
    ruled = [r for r in monitor.rulings if r.kind.value == "illegal" and r.card == "4S"
             and 389 < r.t < 391]
    assert [r.extra["illegal_kind"] for r in ruled] == ["not-adjacent or taken-back"]


def test_candidates_are_not_followed_past_a_card_they_buried_and_the_camera_saw_R14():
    # Game 4000022, hands over half the moves, round 3: two orders of 6♦, 5♦, 6♣ and 7♥ under
    # a hand were followed. The camera then saw 6♣ on the left pile as P2's 10♣ went home;
    # the wrong order had 6♣ under 5♦, yet it was kept, and its moves were ruled: "7♥ moved
    # to a stockpile with no slot empty (R12)", "5♦ on 6♣" (referee.branches.follow, with
    # referee.seen_order.uncovers_seen).
    _, monitor, c = _replay_with_hands(4000022)
    assert c.wrong == 0, c.details
    assert not [r for r in monitor.rulings if r.card == "7H" and r.kind.value == "illegal"
                and 160 < r.t < 170]


def test_a_card_seen_turned_up_before_a_rebase_left_its_stockpile_a_card_fewer_R11():
    # Game 23000082, hands over half the moves, round 6: P1 played A♠ and turned up 9♥ on
    # stockpile 5 under hands, then played 9♥; the referee took the table as read (a rebase)
    # with 9♥ still among the stockpile's face-down cards. The stockpile then ran out a card
    # "early", and P1's spit card 3♦ was ruled turned up there and played (referee.rebase,
    # _turned_up_seen).
    _, monitor, c = _replay_with_hands(23000082)
    assert c.wrong == 0, c.details
    assert not [mv for mv in monitor_items(monitor.moves, monitor.rulings)
                if mv[:2] == ("turn-up", 6) and mv[-1] == "3D"]


@pytest.mark.parametrize("game, round_", [(19000075, 3), (2000024, 6)])
def test_a_round_ending_while_a_hand_hides_an_owed_spit_leaves_the_counts_uncertain_R16_R19(
        game, round_):
    # Game 19000075, hands over half the moves, round 3: "Spit!" was called, P1 spat 5♠, and a
    # hand hid the right pile as P2 spat A♦ there; P1's 4♠ then cleared P1's stockpiles and
    # won the game. The referee ruled the end at once with "P2 10 cards": P2 held 9, A♦ having
    # landed 0.2 s before. Game 2000024, round 6, the same with P1's 4♣, P2's 3♠ and P1's 5♣:
    # "P2 15 cards" where P2 held 14. A spit owed under a hand may have landed: the counts may
    # be a card off, and the referee says so (Monitor._spit_owed_out_of_sight).
    record, monitor, c = _replay_with_hands(game)
    assert c.wrong == 0, c.details
    end = [r for r in monitor.rulings
           if r.kind.value == "round-over" and r.extra["round"] == round_]
    assert len(end) == 1 and end[0].extra.get("uncertain")
    assert "P2 owed a spit" in end[0].message
    over = [r for r in monitor.rulings if r.kind.value == "game-over"]
    assert len(over) == 1 and over[0].extra["winner"] == record.winner


def _after(monitor: Monitor, t: float) -> list[tuple]:
    """The rulings from log time `t` on, but warnings: kind, card, and whether the ruling
    says its counts are uncertain, or sure after a doubt, or that it was seen after the end."""
    return [(r.kind.value, r.card, *(bool(r.extra.get(k)) for k in
                                     ("uncertain", "confirmed", "after_end")))
            for r in monitor.rulings if r.t >= t and r.kind.value != "warning"]


def test_a_game_end_under_a_hand_over_an_owed_spit_is_looked_at_again_when_it_goes_R16_R21():
    # Game 1000131, hands over a tenth of the moves, round 2, the game's last: after "Spit!"
    # P1 spat 7♣ and played their last card, 6♦, on it while a hand hid the right pile, where
    # P2 owed a spit. 6♦ may lie on P2's spit card (R16), and P2's count may be a card off;
    # neither changes P1's win (R21), ruled sure at once (it was ruled "if the counts are
    # right", and never confirmed). 0.4 s later the right pile shows 10♥: P2 spat there, so
    # 6♦ lay on 7♣. Whether 10♥ landed before P1's last card or after it, when it no longer
    # counts, no frame tells: the counts stay uncertain.
    _, monitor, c = _replay_with_hands(1000131, occlusion=0.1)
    assert _after(monitor, 124.2) == [
        ("round-over", None, True, False, False), ("game-over", None, False, False, False),
        ("spit", "10H", False, False, True), ("play", "6D", False, False, False)]
    over = next(r for r in monitor.rulings if r.kind.value == "game-over")
    assert over.extra["winner"] == "p1" and "if the counts are right" not in over.message
    assert c.wrong == 0 and c.details == (
        "missed ('round-over', 2, (('p1', 0), ('p2', 13)), ())",)


def test_a_game_end_under_a_hand_is_sure_once_the_hand_shows_nothing_moved_under_it_R17_R19():
    # Game 1000942, round 7, the game's last: P1's last card, 6♠, ended it while a hand hid
    # P2's stockpile 4 and the left pile, taking P2's 5♥ (ruled not adjacent on J♦) home: a
    # card of P2's may have been played under it, so the counts were uncertain. The hand
    # gone, 5♥ is home and J♦ on top: the round-over is ruled again, sure.
    _, monitor, c = _replay_with_hands(1000942, occlusion=0.1)
    assert _after(monitor, 472.3) == [
        ("play", "6S", False, False, False), ("round-over", None, True, False, False),
        ("game-over", None, False, False, False), ("round-over", None, False, True, False)]
    sure = monitor.rulings[-1]
    assert sure.extra["cards"] == {"p1": 0, "p2": 4} and sure.t == pytest.approx(472.87, abs=0.01)
    assert "nothing moved under it: these counts are sure" in sure.message
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details


def test_a_card_played_under_the_hand_that_ended_the_game_is_ruled_when_it_shows_R14_R21():
    # Game 1000945, round 14: P2's last card, 10♠, was seen as a hand hid P1's stockpile 2
    # and the left pile, where P1 had played J♠ on Q♦. P2's win is sure (P1 still had cards
    # in view); J♠ is ruled when the hand leaves. Before P2's last card or after it, no frame
    # tells: the counts (P1 26 or 27) stay uncertain.
    _, monitor, c = _replay_with_hands(1000945, occlusion=0.1)
    assert _after(monitor, 892.0) == [
        ("play", "10S", False, False, False), ("round-over", None, True, False, False),
        ("game-over", None, False, False, False), ("play", "JS", False, False, True)]
    assert monitor.rulings[-1].message == ("P1 plays J♠ on Q♦ — seen once the hand had gone, "
                                           "after the end was called")
    assert c.wrong == 0 and c.details == (
        "missed ('round-over', 14, (('p1', 26), ('p2', 0)), ())",)


def test_a_forced_spit_call_may_have_come_earlier_than_a_move_seen_late_says_R16():
    # Game 18000068, hands over half the moves, round 4: P2's 7♥ went on 8♦ under a hand,
    # seen 1 s late. The referee's R16 prompt and forced "Spit!" ran from when it saw 7♥; P2
    # turned up 10♦ 0.3 s after the forced call fell due in truth, and then spat: the referee
    # ruled a false spit ("P2 can still move 10♦"), then A♥ and K♠ "not adjacent" on the 7♥
    # it believed still on top. The call may have come as early as the hand came over the
    # pile (Monitor._call_in_race): it is called before the turn-up is judged.
    _, monitor, c = _replay_with_hands(18000068)
    assert (c.wrong, c.missed_illegal) == (0, 0), c.details
    calls = [r for r in monitor.rulings if r.kind.value == "spit-call" and 238 < r.t < 240]
    assert len(calls) == 1 and calls[0].extra.get("forced")
    assert not [r for r in monitor.rulings if r.kind.value == "false-spit" and 239 < r.t < 241]


def test_a_round_ending_soon_after_moves_out_of_sight_ends_with_known_counts_R14_R19():
    # Game 2000021, hands over half the moves, round 3: 10♥, J♥ and J♦ went on the left pile
    # under hands, in an order that is legal (J♥, 10♥, J♦, with J♦ once tried too early and
    # taken back), or, zone by zone, in one where 10♥ (on 10♣) and J♦ (on J♥) were the same
    # rank and lie there. P2 cleared a few seconds later. The referee once followed both
    # orders and ended the round with known counts only because the illegal one needed more
    # moves to end it (Rivals.left_at_end). The order the camera saw the table change in
    # leaves only the true one (referee.timeline): it is ruled as it happened, and the
    # round's end counts and the winner are known.
    record, monitor, c = _replay_with_hands(2000021)
    assert c.wrong == 0, c.details
    assert [r.message for r in monitor.rulings if r.card in ("JD", "10H") and 176 < r.t < 180] == [
        "P2: J♦ on J♥ is the same rank, and equal ranks are not adjacent (R10) — take it back",
        "P1 plays 10♥ on J♥", "P2 plays J♦ on 10♥"]
    ends = {r.extra["round"]: r.extra for r in monitor.rulings if r.kind.value == "round-over"}
    assert ends[3]["cards"] == {"p1": 20, "p2": 32} and not ends[3].get("uncertain")
    assert not any(e.get("uncertain") for e in ends.values())
    over = [r for r in monitor.rulings if r.kind.value == "game-over"]
    assert len(over) == 1 and over[0].extra["winner"] == record.winner
    assert c.missed_illegal == 0, c.details


def test_orders_the_camera_left_open_are_followed_and_the_referee_gets_back_in_step_R14():
    # Game 2000007, hands over half the moves, round 4: P2's 8♣, 9♠, 8♥ and P1's 7♠ (seen
    # illegal on 7♦ and taken back) went on the left pile under a hand. Zone by zone ten
    # orders fit, then too many to follow (MAX_BRANCHES was 6): the referee waited, more moves
    # piled up out of sight, and after 2 s it took the table as read and lost the counts for
    # the rest of the game. In the order the camera saw the whole table change in
    # (referee.timeline) six are left: it follows them and gets back in step within 4 s; the
    # orders left differ only beneath the pile's top, so the round's end counts are known
    # (Monitor._counts_known) and so is the winner.
    record, monitor, c = _replay_with_hands(2000007)
    assert c.wrong == 0, c.details
    assert not [r for r in monitor.rulings if "cannot explain" in r.message
                or r.extra.get("rebase")]
    resync = [r for r in monitor.rulings if r.extra.get("resync") and 262 < r.t < 266]
    assert len(resync) == 1 and "8♣, 8♥, 9♠" in resync[0].message
    ends = {r.extra["round"]: r.extra for r in monitor.rulings if r.kind.value == "round-over"}
    assert ends[4]["cards"] == {"p1": 52, "p2": 0} and not ends[4].get("uncertain")
    over = [r for r in monitor.rulings if r.kind.value == "game-over"]
    assert len(over) == 1 and over[0].extra["winner"] == record.winner
    assert c.missed_illegal == 0, c.details


def test_seven_orders_are_followed_and_ruled_once_the_table_tells_them_apart_R14():
    # Game 2000039, hands over half the moves, round 3: 6♠, 7♠, 7♣, 7♦ and 8♣ moved under
    # hands; seven orders fit, even in the order the camera saw the table change in. Until
    # the referee followed as many as 32 (MAX_BRANCHES), seven were too many: it listed them
    # and took one position at once, ruling only what they all agreed on, and P2's 7♣ on 6♠
    # went unruled. Followed, they are told apart by the next table, 0.57 s later, and every
    # move is ruled in the true order.
    _, monitor, c = _replay_with_hands(2000039)
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details
    assert not [r for r in monitor.rulings if r.extra.get("resync") and 131 < r.t < 133]
    assert [r.message for r in monitor.rulings if 131.4 < r.t < 132.1] == [
        "P2 plays 9♣ on 10♥", "P1 plays 8♣ on 9♣", "P2 plays 7♠ on 8♣", "P1 plays 6♠ on 7♠",
        "P2 plays 7♣ on 6♠", "P1 moves 7♦ from stockpile 3 to the empty stockpile 1",
        "P2 plays 6♥ on 7♣", "P1 plays 7♦ on 6♥"]


def test_an_illegal_play_after_an_order_the_camera_missed_is_ruled_on_the_top_it_landed_on_R10():
    # Game 2000012, hands over half the moves, round 3: zone by zone the referee could not
    # tell in which order 2♣ and K♦ went on the left pile; in the order it did not take, 2♣
    # lay there illegally on K♦. P1's Q♦ then landed: not adjacent on 2♣, legal on K♦. It
    # was ruled once Q♦ went home, naming both ("not adjacent, or played and taken back",
    # Doubts.alike_in_rivals); before that, every illegal-looking play on that pile waited,
    # and the round's last 30 s went unruled (50 missed, 9 of them illegal plays). In the
    # order the camera saw the whole table change in (referee.timeline) 2♣ came last: Q♦ is
    # ruled on 2♣ each time it was tried there, as it happened.
    _, monitor, c = _replay_with_hands(2000012)
    assert c.wrong == 0, c.details
    qd = [r for r in monitor.rulings if r.card == "QD" and 152 < r.t < 154]
    assert [r.message for r in qd] == ["P1: Q♦ on 2♣ is not adjacent (R10) — take it back"] * 2
    assert c.missed_illegal == 0, c.details


@pytest.mark.parametrize("game, card, t0, t1, ruled", [
    (48000210, "JH", 134, 135, ["P2 plays J♥ on 10♦"]),
    (48000243, None, 0, 0, None),
])
def test_an_order_the_camera_saw_is_not_cut_off_below_a_position_reached_in_another_R10(
        game, card, t0, t1, ruled):
    # The search keeps to the order the camera saw the table change in (referee.timeline),
    # and searches a position again when an order below it was refused. Its memo must tell
    # apart two ways to one position that changed the zones in different orders: a first
    # version did not, and the order that fits was cut off below a position first reached
    # in one that does not. Game 48000210, round 3: 9♣, P1's 7♠ (not adjacent, back), then
    # 10♦ and J♥ went on the left pile under hands; "J♥ on 9♣, not adjacent, and back" was
    # ruled, an attempt that never was. Game 48000243, round 2: three wrong rulings the same
    # way ("P1 plays K♦ on Q♥", and P2's 10♠ and J♦ "not adjacent").
    _, monitor, c = _replay_with_hands(game)
    assert (c.wrong, c.missed_illegal) == (0, 0), c.details
    if ruled is not None:
        assert [r.message for r in monitor.rulings if r.card == card and t0 < r.t < t1] == ruled


@pytest.mark.parametrize("game, card, t0, t1, message", [
    (6000025, "KH", 240, 245, "P1: K♥ on 7♦ (or on 8♦, in an order of moves the camera could "
                              "not tell apart) is not adjacent (R10) — take it back"),
    (6000054, "4H", 232, 238, "P1: 4♥ on 8♠ (or on 9♠, in an order of moves the camera could "
                              "not tell apart) is not adjacent (R10) — take it back"),
    (48000243, "5D", 17, 18, "P2: 5♦ on 3♦ (or on 2♥, in an order of moves the camera could "
                             "not tell apart) is not adjacent (R10) — take it back"),
])
def test_an_illegal_play_names_every_card_it_may_have_landed_on_R10(game, card, t0, t1,
                                                                    message):
    # Game 6000025, round 4: P1 played 8♦ on 7♦ and tried K♥ on 8♦ (not adjacent), under a
    # hand. "K♥ tried on 7♦ and back, then 8♦" reads the same and leaves the same position,
    # and the search kept whichever order it found first: "K♥ on 7♦" was ruled. Game
    # 6000054: "4♥ on 8♠" where 9♠ had just been played on 8♠. The card an illegal play
    # landed on is part of what an explanation rules (infer._named), so both orders are
    # found and the ruling names both cards. Game 48000243, round 1: P1 played 3♦ on 2♥
    # and P2 tried 5♦ on it under a hand; the search's memo took "3♦, then 5♦ tried and
    # back" for the position "5♦ tried on 2♥ and back, then 3♦" had reached, and skipped it:
    # "5♦ on 2♥" was ruled alone. The memo now tells steps apart by that card too.
    _, monitor, c = _replay_with_hands(game)
    assert c.wrong == 0, c.details
    assert [r.message for r in monitor.rulings
            if r.card == card and r.kind.value == "illegal" and t0 < r.t < t1] == [message]


def test_orders_that_differ_only_in_the_card_beneath_are_ruled_at_once_not_followed_R10_R17():
    # Game 48000225, round 6, under hands: P1 played 7♠ on 6♦, P2 tried 3♦ on it (not
    # adjacent) and P1 played 8♥. "3♦ tried on 6♦, then 7♠" fits the table as well, and
    # once 3♦ was back home both orders left one position. Followed as two candidates, they
    # never parted; P2 played their last card, the round ended and went unruled, and the rest
    # of the game with it (269 missed moves, 23 missed illegal plays). One outcome, ruled
    # when the table shows it, naming both cards (doubts.one_outcome).
    _, monitor, c = _replay_with_hands(48000225)
    assert (c.wrong, c.missed_illegal) == (0, 0), c.details
    assert c.missed <= 11, c.details
    assert [(r.kind.value, r.card, r.message) for r in monitor.rulings
            if r.card in ("7S", "3D", "8H") and 362 < r.t < 363] == [
        ("play", "7S", "P1 plays 7♠ on 6♦"),
        ("illegal", "3D", "P2: 3♦ on 7♠ (or on 6♦, in an order of moves the camera could "
                          "not tell apart) is not adjacent (R10) — take it back"),
        ("play", "8H", "P1 plays 8♥ on 7♠"),
        ("play", "3D", "P2 plays 3♦ on 2♦")]
    assert any(r.kind.value == "round-over" and "Round 6 over" in r.message
               for r in monitor.rulings)


def test_moves_a_resync_left_unruled_are_ruled_late_once_its_other_positions_are_ruled_out_R10():
    # Game 48000194, round 5, under hands: P2 played 6♥, 5♣ and 3♥ on the left pile, P1 4♠
    # and 3♦, P2 4♥, and P1 tried 10♥ (not adjacent). Orders that leave different positions
    # fit the table at 199.6 s: the referee rules none of those moves "for now" and follows
    # the table. A second later the next table rules out every other position (they need
    # more moves to reach it), so the moves every order leaving the position taken agreed
    # on were the truth: they are ruled then (Monitor._position_known), where they were
    # never ruled (5 moves missed).
    _, monitor, c = _replay_with_hands(48000194)
    assert c.wrong == 0, c.details
    assert c.missed == 0, c.details
    resync = [r.message for r in monitor.rulings if r.extra.get("resync") and 199 < r.t < 200]
    assert len(resync) == 1 and "rules none of them for now" in resync[0]
    assert [(r.t, r.message) for r in monitor.rulings if 200 < r.t < 200.62] == [
        (200.6, "P2 plays 5♣ on 6♥"), (200.6, "P1 plays 4♠ on 5♣"), (200.6, "P2 plays 3♥ on 4♠"),
        (200.6, "P2 plays 4♥ on 3♥"), (200.6, "P1 plays 3♦ on 4♥")]


def test_a_candidate_whose_search_runs_out_is_dropped_once_the_others_reach_the_table_sooner():
    # Game 48000171, round 1, under hands: two candidate positions followed from 20 s, one
    # with 5♣, 6♠ and 7♥ lying illegally on the piles, one with only 4♥. At 22.67 s the
    # first could not be carried to the table in 20,000 positions, and that alone left the
    # referee undecided: it warned "cannot explain the table", took the table as read at
    # 25.1 s and lost the card counts for the rest of the game (57 moves missed, 10 of them
    # illegal). The second reaches the table in one move; the first cannot within one (a
    # search that shallow is small), so it is not the shortest, and the moves are ruled.
    _, monitor, c = _replay_with_hands(48000171)
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details
    assert [r.message for r in monitor.rulings if 22.6 < r.t < 22.7] == [
        "P1 plays 4♠ on 3♠", "P1 plays 5♣ on 4♠", "P2 plays 6♠ on 5♠",
        "P2: 4♥ on 6♠ is not adjacent (R10) — take it back", "P1 plays 7♥ on 6♠",
        "P2 plays 6♥ on 7♥", "P1: 8♣ on 6♥ is not adjacent (R10) — take it back",
        "P1 plays 7♠ on 6♥", "P2 plays 4♥ on 5♣"]
    assert not any(r.extra.get("rebase") for r in monitor.rulings)


def test_a_resync_rival_needing_more_moves_than_the_position_taken_is_searched_no_deeper_R10():
    # Game 48000212, round 6, under hands: P2 tried Q♠ on Q♥ (the same rank) and took it
    # back, P1 played K♠ on Q♥ out of sight, P2 Q♠ on K♠ and J♥ on it. At 327.8 s the referee
    # could not tell that from K♠ lying illegally on 8♣ under 9♣ (two positions), took the
    # first and followed the other. At 331.2 s P1 tried 6♥ on 9♦: illegal in both positions,
    # but the other one's search for it ran out of budget, so the referee doubted it, and the
    # doubts that followed lost the round (36 moves missed, 5 illegal). That position could
    # only be the truth by reaching the table in no more moves than the one taken (the
    # referee's rule: the shortest explanation); searched no deeper, it is ruled out, 6♥ is
    # ruled, and with it the moves the resync left "for now".
    _, monitor, c = _replay_with_hands(48000212)
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details
    assert [r.message for r in monitor.rulings if 331.1 < r.t < 331.3] == [
        "P1: 6♥ on 9♦ is not adjacent (R10) — take it back", "P1 plays K♠ on Q♥",
        "P2 plays Q♠ on K♠", "P2 plays J♥ on Q♠"]


def test_a_play_illegal_one_r10_way_here_and_the_other_in_a_rival_position_is_ruled_R10():
    # Game 48000215, round 2, under hands: at 116.5 s two orders fit the table, one with
    # 2♥, A♥ and both players' spit cards lying loose on the piles. At 118.8 s P2 tried J♦
    # on J♠ (the same rank) in the position taken; in the other it lay on 5♥, not adjacent.
    # Illegal either way, but only a ruling of the same kind in every position counted as
    # alike, so J♦ was doubted, and the round was lost from there (24 moves missed, 2 of them
    # illegal). Ruled, naming both ways.
    _, monitor, c = _replay_with_hands(48000215)
    assert (c.wrong, c.missed_illegal) == (0, 0), c.details
    assert c.missed <= 2, c.details
    jd = [r for r in monitor.rulings if r.card == "JD" and 118.7 < r.t < 118.8]
    assert [(r.kind.value, r.extra.get("illegal_kind")) for r in jd] == [
        ("illegal", "equal-rank or not-adjacent")]
    assert jd[0].message.startswith(
        "P2: J♦ on J♠ is the same rank, and equal ranks are not adjacent (R10); or, in an order "
        "of moves the camera could not tell apart, J♦ on 5♥ is not adjacent (R10)")


def test_one_observation_line_makes_at_most_a_few_deep_searches(monkeypatch):
    # Game 43000151 under hands, 289.1 s: ten candidates followed, the first reaching the
    # table in 7 moves and nine out of the usual budget that deep. Each was then searched
    # with the deep budget, a second or more apiece: 8 s on one line, the live referee held
    # up that long. A line makes at most MAX_DEEP_SEARCHES; the rest wait for the next line.
    import referee.branches as branches

    deep_per_line: list[int] = []
    carried = branches._carried

    def counting(*args):
        if args[5] == branches.MAX_NODES_DEEP:
            deep_per_line[-1] += 1
        return carried(*args)

    real_follow = branches.follow

    def follow(*args, **kw):
        deep_per_line.append(0)
        return real_follow(*args, **kw)

    monkeypatch.setattr(branches, "_carried", counting)
    monkeypatch.setattr("referee.monitor.core.follow", follow)
    _replay_with_hands_until(43000151, 289.2)
    assert max(deep_per_line) == branches.MAX_DEEP_SEARCHES == 3


def test_ten_orders_of_moves_are_followed_until_the_table_tells_them_apart_R10_R14():
    # Game 48000231, round 6, under hands: P2 played 8♣ on 9♥, P1 7♥ on it, P2 7♣ and 8♠ on
    # the right pile, and P1 tried 8♥ on 8♠ (the same rank), took it back and played it on
    # 7♥. At 354.67 s ten orders fit the table (which 8 went where, which cards lay there
    # illegally). The referee followed at most six, so it took one position at once, with
    # 8♥ played legally on 7♣, which the table then contradicted as 8♥ went back home: it
    # lost the round's counts (26 moves missed, 3 illegal). Followed, the orders are told
    # apart as the table goes on, and at the round's end the one left is ruled.
    _, monitor, c = _replay_with_hands(48000231)
    assert (c.wrong, c.missed_illegal) == (0, 0), c.details
    assert c.missed <= 4, c.details
    assert [r.message for r in monitor.rulings if 363.4 < r.t < 363.6
            and r.card in ("8C", "7H", "7C", "8S", "8H")] == [
        "P2 plays 8♣ on 9♥", "P1 plays 7♥ on 8♣", "P2 plays 7♣ on 6♥", "P2 plays 8♠ on 7♣",
        "P1: 8♥ on 8♠ is the same rank, and equal ranks are not adjacent (R10) — take it back",
        "P1 plays 8♥ on 7♥"]


def test_an_order_taking_more_moves_to_an_earlier_table_is_followed_and_ruled_R10_R14():
    # Game 33000118, round 3, under hands: 3♣ went on 4♦, P2's 3♦ on it (the same rank) and
    # back. Every candidate the referee then followed had 3♦ legal on 4♦, because the order
    # with 3♣ first took more moves to reach the table where 3♦ showed; "3♦ on 4♦" and "2♥ on
    # 3♦" were ruled as agreed by every order, until a card an option lifts off its pile
    # after a legal play (and a play onto it) was no longer taken as agreed (Monitor._resync),
    # and then nothing was ruled. Following up to 32 orders (MAX_BRANCHES), the truth is
    # among them: 3♦ is ruled illegal on 3♣, and 2♥ on 3♣.
    _, monitor, c = _replay_with_hands(33000118)
    assert c.wrong == 0, c.details
    assert [r.message for r in monitor.rulings if 140.1 < r.t < 140.2
            and r.kind.value in ("play", "illegal")] == [
        "P1 plays 3♣ on 4♦",
        "P2: 3♦ on 3♣ is the same rank, and equal ranks are not adjacent (R10) — take it back",
        "P1: Q♥ on 3♣ is not adjacent (R10) — take it back", "P2 plays 2♥ on 3♣"]


def test_a_card_seen_on_a_pile_and_back_home_is_ruled_illegal_in_whichever_order_R10_R14():
    # Game 48000166, round 2, under hands: P1 played 7♦ on 6♣, P2 tried 7♠ on it (the same
    # rank), took it back, P2 played 8♦ and then 7♠ on 8♦. The camera saw 7♠ on the left
    # pile, then home, then on the pile again. "7♠ played on 8♦ and lifted off it again"
    # (R14) fits as well as the truth, and the referee could not tell the orders apart, so
    # it ruled neither and 7♠ went unruled. Illegal in both: ruled, naming both.
    _, monitor, c = _replay_with_hands(48000166)
    assert c.wrong == 0, c.details
    said = [(r.kind.value, r.extra.get("illegal_kind"), r.message) for r in monitor.rulings
            if r.card == "7S" and 88 < r.t < 93]
    assert said == [(
        "illegal", "equal-rank or taken-back",
        "P2: 7♠ on 7♦ is the same rank, and equal ranks are not adjacent (R10); or, in an "
        "order of moves the camera could not tell apart, 7♠ was played on 8♦, and then taken "
        "back, which is never allowed (R14) — either way an illegal move; the card went back "
        "to its stockpile")]


def test_after_a_rebase_a_card_that_does_not_fit_the_top_is_ruled_R10():
    # Game 48000177, hands over half the moves: moves out of sight, and the referee took the
    # table as read (a rebase, at 292.4). Cards then went on the piles in view, not fitting
    # their tops whatever the counts, and are ruled (they waited for the next round,
    # unruled). (Game 2000023 showed this until the referee followed up to 32 orders of
    # moves, MAX_BRANCHES, and dropped a candidate it could not search once the others
    # reached the table sooner: it no longer takes that table as read.)
    _, monitor, c = _replay_with_hands(48000177)
    assert c.wrong == 0, c.details
    rebase_at = next(r.t for r in monitor.rulings if r.extra.get("rebase"))
    assert rebase_at == pytest.approx(292.4, abs=0.05)
    ruled = [(r.card, r.extra["illegal_kind"], r.message) for r in monitor.rulings
             if r.kind.value == "illegal" and rebase_at < r.t < rebase_at + 12]
    assert ruled == [
        ("AD", "equal-rank", "P2: A♦ on A♣ is the same rank, and equal ranks are not adjacent "
                             "(R10) — take it back"),
        ("10H", "not-adjacent", "P2: 10♥ on A♦ is not adjacent (R10) — take it back")]


def test_after_a_doubtful_resync_the_first_card_on_a_pile_waits_and_a_later_misfit_is_ruled_R10():
    # Game 7000040, hands over half the moves, round 4: the referee took a position it could
    # not be sure of (7♠ "on 7♦" and 8♥ "moved to a full row" may have been legal, with cards
    # it never saw). One of the cards it has land on each pile may lie there illegally, so
    # the next card onto it is not ruled either way (10♣ on 9♥ and 3♠ on 2♣ were ruled
    # legal); from there the tops are known, and P2's Q♥ on 10♠ is ruled (R10), where every
    # illegal move waited for the next round.
    _, monitor, c = _replay_with_hands(7000040)
    assert c.wrong == 0, c.details
    resync = next(r.t for r in monitor.rulings if r.extra.get("resync") and 230 < r.t < 231)
    after = [(r.kind.value, r.card) for r in monitor.rulings if resync < r.t < resync + 4
             and r.kind.value in ("play", "illegal")]
    assert ("play", "10C") not in after and ("play", "3S") not in after
    assert ("illegal", "QH") in after


def test_a_candidate_the_table_rules_out_is_searched_deeper_before_the_referee_gives_up_R10():
    # Game 15000056, round 3: 2♠, 3♣ and A♣ went on the right pile under a hand; A♣ showed on
    # top. Two orders fit: 2♠, 3♣, A♣ (not adjacent) or 3♣ (equal rank), 2♠, A♣. Then A♣ went
    # home and 3♣ showed on top, which rules the second out, but refuting it took more than
    # the follow's first search budget, and the referee lost track for the rest of the round.
    _, monitor, c = _replay_with_hands(15000056)
    assert c.wrong == 0, c.details
    ruled = [(r.kind.value, r.card) for r in monitor.rulings if 161.5 < r.t < 161.6]
    assert ("play", "2S") in ruled and ("play", "3C") in ruled, ruled
    assert not [r for r in monitor.rulings if 161 < r.t < 165 and "cannot explain" in r.message]


def test_a_forced_spit_call_may_have_come_before_the_referee_could_prompt_R16():
    # Game 14000058, hands over half the moves, round 2: P2's 6♣ and P1's 5♣ went on the right
    # pile under a hand and were ruled 3.7 s after the first landed; only a turn-up was left
    # (R16 Decision). The players' forced "Spit!" came before the referee's own prompt fell
    # due, and their spits were doubted as false. The call may have come as early as the hand
    # came: the referee calls it first, and rules the spits and the plays after them.
    _, monitor, c = _replay_with_hands(14000058)
    assert c.wrong == 0, c.details
    ruled = [(r.kind.value, r.card) for r in monitor.rulings if 74.5 < r.t < 76.2
             and r.kind.value in ("spit-call", "spit", "play", "false-spit")]
    assert ruled == [("spit-call", None), ("spit", "7D"), ("spit", "4H"), ("play", "8C"),
                     ("play", "5H")]


# Wrong rulings bench/monitor.py --occlusion 0.5 found (seeds 12-27): the game, the card (None:
# any illegal play) and the seconds where a move was ruled on a guess. Nothing is ruled there
# now, and the game has no wrong ruling.
MENDED = [
    # Game 16000055, hands over half the moves, round 4: P2's 2♣ went on A♥ under a hand and
    # P1's A♣ on it; P2 moved K♦ into the stockpile 2♣ left. The shortest explanation had A♣
    # illegal on A♥ and K♦ stacked on 2♣, which the referee doubted (2♣ showed nowhere); the
    # candidates followed from it were resynced as if they were every order, and what they
    # agreed on was ruled: "A♣ on A♥ is the same rank", "K♦ moved with no slot empty".
    (16000055, None, 236, 238),
    # Game 16000057, hands over half the moves, round 2: P1 played 5♥ from a stockpile a hand
    # then hid, and 6♣ on it, both under a hand over the right pile; P2's 4♥ landed on 6♣,
    # not adjacent. The search, which takes no card for covered while it may lie on a hidden
    # stockpile, found only "6♣ on 6♦, the same rank" (then 5♥, then 4♥ legal), and it was
    # ruled (Doubts.covered_illegal_near_hidden).
    (16000057, "6C", 85, 86),
    # Game 26000083, hands over half the moves, round 1: P1's J♥ went legally on Q♣ under a
    # hand, P2's K♥ landed on it (not adjacent), and P1 moved K♦ into the slot J♥ had left.
    # The shortest explanation kept J♥ home under K♦ ("K♦ moved with no slot empty", R12)
    # and K♥ legal on Q♣, and was ruled. A card only stacked over may as well have been
    # played and covered: doubted (Doubts.gone_from_hidden_stock, stacked).
    (26000083, "KD", 22, 23),
    # Game 21000077, hands over half the moves, round 2: the orders of 7♥, 8♦, 9♠ and 9♥ on
    # the left pile were resynced; in the position taken 7♥ lay legally on 8♦, in another it
    # lay illegally on 9♠. P2's 8♠ was then ruled "on 7♥": it went on 9♠, 7♥ being taken back
    # (Monitor._resync, _unsure_tops).
    (21000077, "8S", 68, 69),
    # Game 26000095, hands over half the moves, round 6: P1 played A♦ under a hand and moved
    # Q♠ into the slot it left. Every shortest order had Q♠ stacked on A♦ (R12), and the
    # candidates followed put it back, played A♦ and moved Q♠ in; the resync ruled "Q♠ was
    # stacked on stockpile 1". A card uncovered again may have left first (Doubts.doubt,
    # stacked).
    (26000095, "QS", 347, 348),
    # Game 30000094, round 1: P2's 2♥, seen illegal on 2♠ and back home, went on 3♣ under a
    # hand with its stockpile hidden, and P1's 3♠ on it; the referee took 2♥ for still home
    # ("3♠ on 3♣, the same rank"): a card seen landing and taken home may have been played
    # again (Doubts.may_hide_a_play).
    (30000094, "3S", 14.9, 15.0),
    # Game 31000094, round 3: the camera saw K♦ on the left pile, then J♠ on top, with P2's
    # stockpile hidden: "K♦ on Q♣", "J♠ on K♦, not adjacent", where J♠ had gone on Q♣ first
    # and K♦, not adjacent to it, went home (Doubts.covered_may_be_home).
    (31000094, "JS", 171.6, 171.8),
    # Game 3000012, round 24: P1 spat 7♦ with the counts uncertain (the referee had P1 holding
    # no spit card): "P2 spits 7♦", ruled as a step alike whichever came first (Doubts.either_way);
    # whose spit card it is the counts decide (R8), so it is followed, not ruled.
    (3000012, "7D", 1559.6, 1559.8),
    # Game 36000122, round 11: P2's 7♥ went on 8♣ under a hand and P1's 8♠ on it; the search
    # cut that order off below a position it had reached through another (its memo did not
    # hold the step before, which decides what is left to the other order), and "8♠ on 8♣,
    # the same rank" was ruled as the only order (infer._search).
    (36000122, "8S", 687.8, 687.9),
    # Game 15000056, round 8, with the counts uncertain: P1's K♥ spat, which the options took
    # for P2's spit on the wrong pile (P1 held no spit card by the count); J♦, Q♥ and K♣, played
    # on it, were ruled "not adjacent on 8♠" as alike in every option (Monitor._resync: the
    # options are not every order when an illegal spit in them rests on the counts).
    (15000056, None, 496.2, 497.3),
    # Game 10000043, round 3: the referee rebased with 2♣ on top of the left pile, as its
    # belief had it; 2♣ had been taken back and played again, illegally, on 4♠, and 3♥ was
    # ruled "on 2♣" (Monitor._rebase: a top the pile showed other cards over is unsure).
    (10000043, "3H", 162.3, 162.4),
    # Game 39000160, round 1: after a resync on one doubted explanation, which had 6♣ lying
    # illegally on the left pile, P1's 4♣ moved into 6♣'s slot was ruled "stacked" (R12); 6♣
    # had been played legally and the slot was empty (Monitor._resync: the zones a loose card
    # lies on and belongs to are uncertain).
    (39000160, "4C", 30.2, 30.3),
    # Game 48000159, round 5: the camera saw P1's Q♥ on the right pile while P2's Q♣ still lay
    # home, then Q♥ home again and Q♣ on the pile. Zone by zone, "Q♣ on J♦, Q♥ on Q♣ (the
    # same rank) and back" fitted, and was ruled; in truth Q♥ went on Q♠ and back, then
    # legally on J♦, and Q♣ illegally on Q♥ (infer: the search keeps to the order the camera
    # saw the whole table change in, referee.timeline).
    (48000159, "QC", 266.9, 267.0),
    # Game 47000213, round 5: P2's Q♠, seen on the left pile (the same rank as Q♥) and gone,
    # was ruled "a sixth stockpile" (R13), and P1's last card ending the round was called
    # 3.5 s early, from an order of the moves hidden under hands that the camera's order of
    # readings rules out (referee.timeline).
    (47000213, "QS", 313.1, 313.3),
]


@pytest.mark.parametrize("game, card, t0, t1", MENDED)
def test_a_move_the_camera_left_in_doubt_is_not_ruled_on_a_guess_R10_R12_R14(game, card, t0,
                                                                             t1):
    _, monitor, c = _replay_with_hands(game)
    assert c.wrong == 0, c.details
    ruled = [r for r in monitor.rulings if t0 < r.t < t1
             and r.kind.value in ("play", "illegal", "spit")
             and (card is None and r.kind.value == "illegal" or r.card == card)]
    assert not ruled, [r.message for r in ruled]


def test_the_last_round_s_cards_left_on_the_stockpiles_are_not_the_next_layout_R5_R19():
    # Demo seed 1: as round 4 ended, P1's 6♥ lay face up on stockpile 5. The players
    # gathered the spit piles first, the stockpiles a moment later; 6♥, read while the piles
    # were hidden, was taken for round 5's top there, the table dealt with 8♥ was never
    # explained, and two spits were ruled wrong 14 s later, from a table already in play.
    # Here: after every round's end, the spit piles are hidden and then seen cleared while
    # the stockpiles still show the last round's cards.
    s = 1000006
    record = simulate_game(s, SIM)
    lines = observation_log(record, NOISE, random.Random(s))
    ends = [e.t for e in record.events if type(e).__name__ == "RoundOver"]
    assert len(ends) >= 3
    for t in ends:
        lines += [{"t": t + 1.0, "observe": {"spit.left": "?", "spit.right": "?"}},
                  {"t": t + 1.5, "observe": {"spit.left": "empty", "spit.right": "empty"}}]
    lines.sort(key=lambda line: line["t"])
    monitor = Monitor(MonitorConfig(rules=record.rules))
    replay(monitor, lines, record)
    c = compare(true_items(record), monitor_items(monitor.moves, monitor.rulings))
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details
    deals = [r for r in monitor.rulings if r.kind.value == "deal"]
    assert len(deals) == len(ends) + (0 if record.finished else 1)


def test_a_card_dealt_again_where_it_lay_at_the_round_s_end_is_known_at_the_spit_R5_R8():
    # Game 4: P1's 4♦ (round 1's end, stockpile 3) is round 2's top there again, and K♠ in
    # round 8 likewise. Here no hand is seen over that stockpile between rounds, so the
    # camera never shows whether it was dealt again: the deal is ruled once the players
    # spit (R8), and the card is the layout's top, not a card turned up in play.
    record = simulate_game(4, SIM)
    lines = []
    for line in observation_log(record, NOISE, random.Random(4)):
        seen = line.get("observe", {})
        if len(seen) == 12 and set(seen.values()) == {"?"}:  # hands gather and deal
            line = {**line, "observe": {z: r for z, r in seen.items() if z != "p1.stock3"}}
        lines.append(line)
    monitor = Monitor(MonitorConfig(rules=record.rules))
    replay(monitor, lines, record)
    c = compare(true_items(record), monitor_items(monitor.moves, monitor.rulings))
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details
    again = [m for m in monitor.moves if m.dealing and m.round in (2, 8)
             and getattr(m.step.move, "slot", None) == 2 and m.step.move.player == "p1"]
    assert [(m.round, m.step.move.card.code) for m in again] == [(2, "4D"), (8, "KS")]


def test_a_deal_hands_hid_until_play_went_on_is_ruled_and_the_table_taken_as_read_R5_R8():
    # Game 1000005, round 2: hands over three stockpiles from the deal until 3 s later, by
    # when both players had spat and played on. The referee never saw the layout with the
    # piles empty; it waited in the deal for the rest of the game (289 moves missed). Now
    # the deal is ruled once the table is seen, taken as read (a rebase, counts uncertain),
    # and every later round is followed; nothing is ruled from the layout and the piles'
    # tops as if those were the first spits.
    s, hide = 1000005, ("p1.stock1", "p1.stock2", "p2.stock1")
    record = simulate_game(s, SIM)
    lines = observation_log(record, NOISE, random.Random(s))
    start = next(e.t for e in record.events
                 if type(e).__name__ == "RoundStart" and e.number == 2)
    deal = next(ln["t"] for ln in lines if ln["t"] >= start and len(ln.get("observe", {})) == 12
                and "?" not in ln["observe"].values())
    table: dict[str, str] = {}
    hidden_lines, shown = [], False
    for ln in lines:
        seen = ln.get("observe")
        if seen:
            table.update(seen)
        if seen and deal <= ln["t"] < deal + 3.0:
            ln = {**ln, "observe": {**seen, **{z: "?" for z in hide}}}
        elif seen and ln["t"] >= deal + 3.0 and not shown:
            shown = True
            ln = {**ln, "observe": {**{z: table[z] for z in hide}, **seen}}
        hidden_lines.append(ln)
    monitor = Monitor(MonitorConfig(rules=record.rules))
    replay(monitor, hidden_lines, record)
    c = compare(true_items(record), monitor_items(monitor.moves, monitor.rulings))
    assert c.wrong == 0, c.details
    kinds = [(r.kind.value, r.extra.get("round"), bool(r.extra.get("rebase")))
             for r in monitor.rulings if r.kind.value == "deal" or r.extra.get("rebase")]
    rounds = sum(1 for e in record.events if type(e).__name__ == "RoundStart")
    assert kinds[1:3] == [("deal", 2, False), ("warning", None, True)]
    deal2 = next(r for r in monitor.rulings if r.kind.value == "deal" and r.extra["round"] == 2)
    assert "did not see the deal" in deal2.message
    assert [k[1] for k in kinds if k[0] == "deal"] == list(range(1, rounds + 1))
    assert c.missed < 20  # the rest of round 2 and what rests on its uncertain counts


def test_a_card_seen_home_after_another_landed_is_not_doubted_to_lie_under_it_R9_R10():
    # Game 43000145, round 7: P2's K♣ landed on Q♥, and P1's 8♣ on it (not adjacent), while
    # hands hid both. The camera had seen 8♣ still on its stockpile after K♣ lay on the pile,
    # and no hand hides it now, so 8♣ cannot have gone first with K♣ lifted off it into a
    # hand (Doubts.under_a_lifted, Doubts.home_while_on; either condition keeps this game
    # ruled). Doubted, K♣ never showed again, and 13 moves went unruled.
    monitor = _replay_with_hands_until(43000145, 102.1)
    illegal = [r.message for r in monitor.rulings if r.kind.value == "illegal"]
    assert "P1: 8♣ on K♣ is not adjacent (R10) — take it back" in illegal
    assert not any("first, while a hand hides" in r.message for r in monitor.rulings)


@pytest.mark.parametrize("seed, rule, why", [
    (6, "R20", "the round ended with one spit pile in use"),  # round 9: the game goes on
    (5, "R21", "the game is over"),                           # round 8 ends the game
])
def test_a_slap_after_a_round_that_needs_none_is_no_false_slap_R18_R20(seed, rule, why):
    """R18: only a slap before the round ended is false. After the single-pile ending (R20),
    or once the game is won, a slap needs no race and counts for nothing; it was answered
    "slapped before 'Slap!' ... the referee has not followed the table"."""
    from referee.rulings import RulingKind

    rec = simulate_game(seed, SimConfig(bots=(BotConfig(), BotConfig()), ready_s=3.0))
    m = Monitor()
    for line in observation_log(rec, ObsConfig(), random.Random(seed)):
        if any(r.kind is RulingKind.ROUND_OVER and r.rule == "R20" for r in m.feed(line)):
            break
    out = m.feed({"t": m.t + 0.3, "slap": {"player": "p1", "pile": "spit.left"}})
    assert [(r.kind, r.rule) for r in out] == [(RulingKind.WARNING, rule)]
    assert why in out[0].message and "no slap is needed" in out[0].message


def test_doubts_read_the_cards_held_off_a_followed_candidates_steps_R9_R14():
    # Game 48000172 under hands: with a card seen lifted off its pile taken into the hand
    # (Monitor._seen_lifted), a candidate followed from another position was judged by
    # Doubts.played_over_held, which replayed its steps on the belief and crashed
    # (ValueError: the loose card it sent home was not the belief's).
    _, _, c = _replay_with_hands(48000172)
    assert c.wrong == 0


def test_no_spit_call_resting_on_a_guessed_illegal_card_R16_R17_R23():
    # Game 43000228, hands over half the moves, round 10: P2's last card, 2♥, went on P2's
    # spit card A♠ at 573.71 s, and the round was over. A resync at 559.0 s had taken a
    # position with cards lying illegally on a pile where, had one been legal, a play was open
    # or the round over; "nobody can play" held only in that guess, and "Spit!" was called at
    # 575.23 s, after the round had ended (TimedCalls._guess_may_unblock).
    record, monitor, c = _replay_with_hands(43000228)
    assert c.wrong == 0, c.details
    calls = [r.t for r in monitor.rulings if r.kind.value == "spit-call"]
    assert [t for t in calls if 573.7 < t < 593.9] == []
    # The call before that resync was made: the check withholds only calls resting on a guess.
    assert any(555.3 < t < 555.4 for t in calls)


def test_a_round_end_an_unseen_spit_may_have_made_is_held_for_the_gathered_piles_R16_R20():
    # Game 1000684 with a hand over a tenth of the moves, round 6 (one spit pile, R20): P2
    # spat, P1's 5♠ covered the spit card 18 ms later under a hand, and P2's last card, 4♠,
    # went on 5♠ at 388.19 s: the round was over. Taken after 2 s as lying illegally on Q♥,
    # 5♠ and 4♠ left the round going on in the referee's belief; its end was never ruled, and
    # the 13 rounds after were refereed with counts not known (97 moves, 15 illegal missed).
    # Every stock card P2 had left lay on a pile a spit card may lie beneath: the explanation
    # is held, and the gathered piles settle the end (RoundEnds._end_from_held).
    record, monitor, c = _replay_with_hands(1000684, occlusion=0.1)
    assert c.wrong == 0, c.details
    _round_end_with_counts(monitor, 6, {"p1": 36, "p2": 16})
    calls = [r.t for r in monitor.rulings if r.kind.value == "spit-call"]
    assert [t for t in calls if 388.2 < t < 408.3] == []
    assert (c.missed, c.missed_illegal) == (5, 2), c.details


def test_a_round_end_only_one_order_gives_is_judged_on_the_table_it_was_followed_to_R17_R18():
    # Game 1000447 with a hand over a tenth of the moves, round 2: P1's last cards, 3♠ and
    # 4♦, went on 2♦ while P2's 9♥ lay illegally on 9♦; the camera left open whether 3♠ had
    # gone under 9♥ instead, and both orders were followed. The piles were gathered (the
    # round was over: only the first order ends it), with the next deal on the table; what may
    # make that order untrue was read from that table, where P2's stock cards "left a hidden
    # stockpile and show nowhere", and the end was not ruled: every later round was refereed
    # with counts not known (19 moves missed). It is read from the table as the orders were
    # last followed, seen whole, and the end is ruled with the true counts and slaps (R18).
    record, monitor, c = _replay_with_hands(1000447, occlusion=0.1)
    assert c.wrong == 0, c.details
    end = _round_end_with_counts(monitor, 2, {"p1": 24, "p2": 28})
    assert end.extra["piles"] == {"spit.right": "p1", "spit.left": "p2"}
    assert (c.missed, c.missed_illegal) == (0, 0), c.details


def test_a_hidden_stockpile_whose_every_sighting_the_moves_passed_shows_nothing_more_R10_R14():
    # Game 1000367 with a hand over a tenth of the moves, round 1: P2's 5♦ was tried on 7♣
    # and taken back (stockpile 4 seen face down, then 5♦), and played again on 6♦ as a hand
    # came over the stockpile; ruled, "face down, then 5♦" was still looked for there, though
    # the moves had passed through both and left it face down again. Nothing explained the
    # table after that, which was taken as read: every round was refereed with counts not
    # known (36 moves missed).
    record, monitor, c = _replay_with_hands(1000367, occlusion=0.1)
    assert c.wrong == 0, c.details
    assert not [r for r in monitor.rulings if r.kind.value == "warning"
                and r.t < 30 and "cannot explain" in r.message]
    _followed_whole(monitor, c)
    plays = [r.message for r in monitor.rulings if 23.5 < r.t < 27.0 and r.kind.value == "play"]
    assert "P1 plays K♦ on A♣" in plays


def test_a_card_seen_in_an_empty_slot_and_played_from_it_was_moved_there_first_R12():
    # Game 1000801 with a hand over a tenth of the moves, round 1: P2 moved Q♠ from stockpile
    # 4 into the empty stockpile 1, the camera saw it there, and P2 played it on K♣ while a
    # hand hid the left pile. The search only tried "Q♠ played from stockpile 4", which the
    # Q♠ seen on stockpile 1 ruled out; nothing explained the table, which was taken as read,
    # and the game's counts were lost (22 moves and 2 illegal missed).
    record, monitor, c = _replay_with_hands(1000801, occlusion=0.1)
    assert c.wrong == 0, c.details
    said = [r.message for r in monitor.rulings if 30.5 < r.t < 30.7]
    assert said == ["P1 plays K♣ on Q♦", "P2 moves Q♠ from stockpile 4 to the empty stockpile 1",
                    "P2 plays Q♠ on K♣"]
    _followed_whole(monitor, c)


def test_a_doubted_explanation_gives_way_to_a_shorter_one_the_table_shows_since_R10_R12():
    # Game 1000941 with a hand over a tenth of the moves, round 21: under a hand P1's 5♦
    # went on 4♣, P2's 6♣ on it and P1's 7♥ into the empty stockpile 1. "6♣ on 4♣ (not
    # adjacent), 7♥ stacked on 5♦" was shorter, and doubted (5♦ gone from a hidden
    # stockpile). Once 7♥ was played and the slot seen empty, that one needed nine moves and
    # the truth six; followed, its position was taken unruled after 2 s, and the rest of the
    # game was refereed with counts not known (37 moves missed).
    record, monitor, c = _replay_with_hands(1000941, occlusion=0.1)
    assert c.wrong == 0, c.details
    said = [r.message for r in monitor.rulings if 1351.2 < r.t < 1351.3]
    assert said[:4] == ["P1 plays 5♦ on 4♣", "P2 plays 6♣ on 5♦",
                        "P1 moves 7♥ from stockpile 2 to the empty stockpile 1",
                        "P1 plays 7♥ on 6♣"]
    _followed_whole(monitor, c)


# A move in view is not ruled ahead while its card was seen on a zone hidden now: what it did
# there came first, and once the move was ruled nothing could explain it; the table was taken
# as read (Monitor._seen_out_of_view). Each game, hands over half the moves: the window of log
# time, and the start of each ruling made in it, in order.
SEEN_OUT_OF_VIEW = {
    # Round 8: P2's 5♣ tried on 3♦ under a hand and taken back (stockpile 3 seen face down,
    # then 5♣, the left pile hidden), then moved into the empty stockpile 1: the move ruled
    # ahead left "face down, then 5♣" to be looked for after it (19 moves, 2 illegal missed).
    48000164: ((408.2, 408.5), ["P1 plays 3♦ on 4♥",
                                "P2: 5♣ on 3♦ is not adjacent (R10) — take it back",
                                "P2 moves 5♣ from stockpile 3 to the empty stockpile 1",
                                "P1 plays 2♦ on 3♦"]),
    # Round 1: P2's 4♣ tried on J♦ while a hand hid the right pile (seen there a moment),
    # taken back, and played on 5♥ in view; "4♣ on 5♥" ruled first left the 4♣ seen on the
    # right pile unexplained (66 moves, 11 illegal missed).
    47000199: ((13.5, 13.7), ["P1 plays J♦ on Q♦", "P2: 4♣ on J♦", "P2 plays 4♣ on 5♥"]),
}


@pytest.mark.parametrize("game", sorted(SEEN_OUT_OF_VIEW))
def test_a_move_in_view_waits_for_what_its_card_did_on_a_hidden_zone_R10_R12_R14(game):
    (t0, t1), starts = SEEN_OUT_OF_VIEW[game]
    record, monitor, c = _replay_with_hands(game)
    assert c.wrong == 0, c.details
    said = [r.message for r in monitor.rulings if t0 < r.t < t1]
    assert len(said) == len(starts) and all(m.startswith(w) for m, w in zip(said, starts)), said
    _followed_whole(monitor, c)


def test_a_game_s_last_moves_are_not_held_up_by_an_order_one_hand_cannot_make_R9():
    # Game 1000760, hands over a tenth of the moves, round 8, the game's last: P1's 6♠ went on
    # 5♦ under a hand, then P2's 7♦ and P1's 8♣, seen. "7♦ on 5♦ (not adjacent), P1's 6♠
    # unseen on it and 8♣ on 6♠" read the same, but has P1 cover their own card unseen while
    # the pile was in view (R9, referee.timeline._one_hand): the moves were never ruled, nor
    # the round's end and the game's (8 items missed).
    _, monitor, c = _replay_with_hands(1000760, occlusion=0.1)
    assert [r.message for r in monitor.rulings if 548.5 < r.t < 548.6] == [
        "P1 plays 6♠ on 5♦", "P2 plays 7♦ on 6♠",
        "P1 moves 8♣ from stockpile 5 to the empty stockpile 4", "P1 plays 8♣ on 7♦"]
    assert monitor.rulings[-1].extra["winner"] == "p2"
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details


def test_four_cards_under_a_hand_are_ruled_in_the_one_order_one_hand_can_make_R9():
    # Game 1000155, hands over a tenth of the moves, round 2: P1's 9♥ tried on 9♠ (the same
    # rank) and taken back; under a hand P2's 8♣ and 7♦ and P1's 8♠ went on 9♠, then 9♥ on
    # 8♠, the camera reading 8♠ and then 9♥ on top. "8♠, then P2's 7♦ and 8♣, then 9♥"
    # read the same to a timeline that let the second 9♥ stand for the first; it has P2
    # cover their own unseen 7♦ in view (R9), and the four plays went unruled. Ruled as the
    # hand leaves, they are not taken for moves that may have been made as the hand came
    # (2.5 s before P2's 8♥, the last, went on 9♥ in view): no forced "Spit!" is timed from
    # that (Judging._made_after).
    _, monitor, c = _replay_with_hands(1000155, occlusion=0.1)
    assert [(r.kind.value, r.card) for r in monitor.rulings if 99.5 < r.t < 100.2] == [
        ("illegal", "9H"), ("play", "8C"), ("play", "7D"), ("play", "8S"), ("play", "9H"),
        ("play", "8H"), ("refill", "4S"), ("refill", "6H")]
    assert [r.message for r in monitor.rulings if r.card in ("8C", "7D", "8S")
            and 99.5 < r.t < 100] == [
        "P2 plays 8♣ on 9♠", "P2 plays 7♦ on 8♣", "P1 plays 8♠ on 7♦"]
    assert (c.wrong, c.missed, c.missed_illegal) == (0, 0, 0), c.details
