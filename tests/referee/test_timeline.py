"""referee.timeline: whether an explanation's steps can have happened in the order the camera
saw the table change in (R10, R14)."""
from referee.cards import Card
from referee.moves import Play, TurnUp
from referee.scene import Scene, Step
from referee.timeline import Timeline, fits

from tests.referee.builders import make_table

BACK_HOME = "back home"  # the last card lying loose goes home (taken back, R14)


def _scene() -> Scene:
    # Game 48000159, round 5, in small: P2's Q♣ and Q♠ (J♦ beneath it) on their stockpiles,
    # P1's Q♥ on stockpile 2, K♦ on the right pile.
    return Scene(make_table("5C QH+1", "QC+1 QS+1", left="2S", right="KD"))


def _steps(scene: Scene, *moves) -> tuple[Step, ...]:
    """The steps of `moves` from `scene` (BACK_HOME: the last loose card goes home)."""
    now = scene.copy()
    out = []
    for move in moves:
        if move == BACK_HOME:
            lc = now.loose[-1]
            step = Step(lc.move, lc.verdict, returned=lc)
        else:
            step = Step(move, now.table.check(move))
        now.apply(step)
        out.append(step)
    return tuple(out)


def _without(readings: dict[str, str], *zones: str) -> dict[str, str]:
    """`readings` with `zones` under a hand (a snapshot holds the visible zones)."""
    return {z: r for z, r in readings.items() if z not in zones}


def _card(code: str) -> Card:
    return Card.parse(code)


QS_ON_KD = Play("p2", 1, "spit.right", _card("QS"))
JD_UP = TurnUp("p2", 1, _card("JD"))
JD_ON_QS = Play("p2", 1, "spit.right", _card("JD"))
QC_ON = Play("p2", 0, "spit.right", _card("QC"))
QH_ON = Play("p1", 1, "spit.right", _card("QH"))


def test_a_card_cannot_have_landed_on_a_card_still_seen_at_home_then_R10():
    # The camera saw Q♥ on the right pile while Q♣ still lay on P2's stockpile, then Q♥ back
    # home and Q♣ on the pile. "Q♣ on J♦, then Q♥ on Q♣ (the same rank) and back" reads the
    # same at the end, zone by zone, but Q♥ cannot have landed on Q♣ before Q♣ left home.
    scene = _scene()
    seen = [{**_without(scene.readings(), "p2.stock2"), "spit.right": "QH", "p1.stock2": "back"}]
    wrong = _steps(scene, QS_ON_KD, JD_UP, JD_ON_QS, QC_ON, QH_ON, BACK_HOME)
    assert wrong[4].verdict.kind == "equal-rank"
    assert not fits(scene, wrong, seen)
    # Q♥ on Q♠ first (the same rank) and back, then J♦ and Q♣ fits: Q♣ left home later.
    right = _steps(scene, QS_ON_KD, QH_ON, BACK_HOME, JD_UP, JD_ON_QS, QC_ON)
    assert fits(scene, right, seen)


def test_a_card_in_the_hand_between_its_stockpile_and_the_pile_fits_R10():
    # A card is lifted before it lands: the camera may see Q♠ gone from its stockpile (J♦
    # face down showing) while the pile still shows K♦.
    scene = _scene()
    in_hand = {**scene.readings(), "p2.stock2": "back"}
    steps = _steps(scene, QS_ON_KD)
    assert fits(scene, steps, [in_hand])
    # It cannot land before it leaves: Q♠ on the pile while still seen at home.
    assert not fits(scene, steps, [{**scene.readings(), "spit.right": "QS"}])


def test_independent_steps_fit_in_either_order_whatever_order_the_search_wrote_R10():
    # P2's Q♠ on K♦ (right) and P1's 3♠ on 2♦ (left) touch no zone in common. The steps are
    # written Q♠ first; the camera saw 3♠ land while Q♠ still lay home.
    scene = Scene(make_table("3S QH+1", "QC+1 QS+1", left="2D", right="KD"))
    steps = _steps(scene, QS_ON_KD, Play("p1", 0, "spit.left", _card("3S")))
    first_p1 = {**scene.readings(), "p1.stock1": "empty", "spit.left": "3S"}
    assert fits(scene, steps, [first_p1])


def test_a_reading_seen_twice_in_a_zone_is_matched_to_either_time_R14():
    # Q♥ seen home, on Q♠ (illegal), home again: the readings home fit before and after.
    scene = _scene()
    steps = _steps(scene, QS_ON_KD, QH_ON, BACK_HOME)
    base = scene.readings()
    seen = [{**base, "spit.right": "QS", "p2.stock2": "back"},
            {**base, "spit.right": "QH", "p1.stock2": "back", "p2.stock2": "back"},
            {**base, "spit.right": "QS", "p2.stock2": "back"}]
    assert fits(scene, steps, seen)
    # Out of order: Q♥ on the pile before Q♠ was seen leaving home.
    assert not fits(scene, steps, [{**base, "spit.right": "QH", "p1.stock2": "back"}])


def test_a_timeline_starts_afresh_with_each_position_the_referee_takes():
    scene = _scene()
    timeline = Timeline()
    timeline.note(scene, {"spit.right": "KD", "p1.stock1": "?"})
    timeline.note(scene, {"spit.right": "KD", "p1.stock1": "?"})  # nothing new: kept once
    assert timeline.since(scene) == ({"spit.right": "KD"},)
    assert timeline.since(scene.copy()) == ()
    later = scene.copy()
    timeline.note(later, {"spit.right": "QS"})
    assert timeline.since(later) == ({"spit.right": "QS"},)


def test_one_hand_cannot_cover_its_own_unseen_card_on_a_pile_in_view_R9():
    # The left pile showed 8♠, then 9♥, in view between. "P1's 8♠, then P2's 7♦ and 8♣,
    # then 9♥" reads the same, but P2's 7♦ was never seen: covered by P2's own 8♣ while the
    # pile was in view, faster than one hand fetches a card (R9; game 1000760, P1's 6♠ under
    # P1's 8♣). P2's 8♣ and 7♦ before 8♠ (under a hand, before the first snapshot) fits; so
    # does the first order if a hand hid the pile between 8♠ and 9♥.
    scene = Scene(make_table("8S 9H KC", "8C 7D KH", left="9S"))
    p1_8s, p1_9h = (Play("p1", i, "spit.left", _card(c)) for i, c in enumerate(("8S", "9H")))
    p2_8c, p2_7d = (Play("p2", i, "spit.left", _card(c)) for i, c in enumerate(("8C", "7D")))
    seen = [{"spit.left": "8S"}, {"spit.left": "9H"}]
    unseen_own = _steps(scene, p1_8s, p2_7d, p2_8c, p1_9h)
    assert all(s.verdict.ok for s in unseen_own)
    assert not fits(scene, unseen_own, seen)
    assert fits(scene, _steps(scene, p2_8c, p2_7d, p1_8s, p1_9h), seen)
    assert fits(scene, unseen_own, [seen[0], {}, seen[1]])


def test_a_card_read_again_on_a_pile_is_read_after_the_cards_between_R9():
    # Game 1000155 in small: P1's 9♥ lay on 9♠ (the same rank) and went home; under a hand
    # P2's 8♣ and 7♦ went on 9♠; then the camera read P1's 8♠ on top, and 9♥ on 8♠. Read
    # as "8♠, P2's 7♦ and 8♣ unseen, 9♥", the last 9♥ could be taken for the first (a
    # reading's bounds once took every time the pile showed it), and the two cards timed
    # after it: a time the pile was in view. Placed in order, 9♥ is the last, and P2 would
    # have covered their own 7♦ unseen in view (R9).
    scene = Scene(make_table("9H 8S KC", "8C 7D KH", left="9S"))
    p1_9h, p1_8s = (Play("p1", i, "spit.left", _card(c)) for i, c in enumerate(("9H", "8S")))
    p2_8c, p2_7d = (Play("p2", i, "spit.left", _card(c)) for i, c in enumerate(("8C", "7D")))
    seen = [{"spit.left": "9H"}, {}, {"spit.left": "8S"}, {"spit.left": "9H"}]
    wrong = _steps(scene, p1_9h, BACK_HOME, p1_8s, p2_7d, p2_8c, p1_9h)
    assert wrong[0].verdict.kind == "equal-rank" and all(s.verdict.ok for s in wrong[2:])
    assert not fits(scene, wrong, seen)
    assert fits(scene, _steps(scene, p1_9h, BACK_HOME, p2_8c, p2_7d, p1_8s, p1_9h), seen)
