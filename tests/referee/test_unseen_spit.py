"""referee.unseen_spit: the explanations after a spit the camera never saw, and what a
round's end gives (R16, R18-R20)."""
from referee.cards import Rank
from referee.game import Game
from referee.rules import RulesConfig, Variant
from referee.scene import Scene
from referee.unseen_spit import round_result, spat_unseen
from tests.referee.builders import make_table


def _spit_due():
    # Nobody can play (R16): 5♠ and 8♦, 9♥ and 10♣ fit neither 2♣ nor Q♥, nothing to uncover.
    t = make_table("5S 8D", "9H 10C", left="2C", right="QH", hand1=10)
    assert t.spit_due()
    return t


def test_every_unseen_card_p2_may_have_spat_under_p1s_card_is_an_explanation_R16():
    t = _spit_due()
    readings = Scene(t).readings() | {"p1.stock1": "empty", "spit.right": "5S"}
    found = spat_unseen(Scene(t), readings, {"spit.right": {"p2"}},
                        seen={"spit.right": ["5S"]})
    # One explanation per card not seen this round: 52 minus the six face up.
    assert len(found) == 46
    for start, e in found:
        assert start.table.spit_hand["p2"] == t.spit_hand["p2"] - 1
        spat = start.table.piles["spit.right"][-1]
        (play,) = e.steps
        assert play.move.card.code == "5S"
        # 5♠ is legal exactly on a 4 or a 6 (R10): on the card the camera never saw.
        assert play.verdict.ok == (spat.rank in (Rank.FOUR, Rank.SIX))
        assert e.scene.expected("spit.right") == "5S"


def test_a_spit_that_was_not_due_is_not_supposed_R16():
    t = make_table("5S 8D", "9H 10C", left="2C", right="4H", hand1=10)  # 5♠ fits 4♥
    assert not t.spit_due()
    readings = Scene(t).readings() | {"p1.stock1": "empty", "spit.right": "5S"}
    assert spat_unseen(Scene(t), readings, {"spit.right": {"p2"}},
                       seen={"spit.right": ["5S"]}) == []


def test_round_result_is_what_finishing_the_round_gives_R20():
    # P2 clears first with one spit pile in use: P1 takes it, no slap (R20).
    t = make_table("5S+42 9H", "", left="6D 7D 8D", right="", hand1=0, hand2=5)
    r = Game().finish_round(t.copy())
    got = round_result(t, None)
    assert got[3] == tuple(sorted(r.piles_taken.items()))
    assert got[4] == (r.counts["p1"], r.counts["p2"])


def test_round_result_needs_the_slaps_when_two_piles_are_in_use_R18():
    t = make_table("", "9C+3", left="6D 5S 4S", right="KC", hand1=2)
    assert round_result(t, None) is None
    got = round_result(t, {"spit.left": "p1", "spit.right": "p2"})
    assert got[4] == (2 + 3, t.cards_held("p2") + 1)


def test_round_result_of_a_round_not_over_is_none_and_points_count_the_cards_held_R22():
    assert round_result(_spit_due(), None) is None
    t = make_table("5S+42 9H", "", left="6D 7D 8D", right="", hand1=0, hand2=5,
                   config=RulesConfig(variant=Variant.POINTS))
    assert round_result(t, None)[5] == (t.cards_held("p1"), t.cards_held("p2"))
