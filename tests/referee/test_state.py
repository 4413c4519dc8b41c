"""The table and the legality of every move (R5–R17, R20, R24)."""
import pytest

from referee.cards import Card, UnknownCardError
from referee.moves import Play, Refill, Spit, TakeBack, TurnUp
from referee.rules import RulesConfig
from referee.state import (IllegalMove, RoundEndCase, Table, TableError, standard_layout)
from tests.referee.builders import make_table

C = Card.parse
# 49 stock cards whose tops fit neither J nor K, and no slot to uncover: with 9C, JD and KC
# this leaves no spit cards at all.
BLOCKED_P1 = "5S+9 4S+9 3S+9 2S+9 6S+8"


# --- R2, R10: plays --------------------------------------------------------------------------

def test_king_plays_on_ace_R2():
    t = make_table("KS+1", "2D+1", left="AH", right="9C")
    v = t.push(Play("p1", 0, "spit.left", C("KS")))
    assert v.ok and v.rule == "R10" and t.top("spit.left") == C("KS")


def test_ace_plays_on_two_R2():
    t = make_table("AS", "2D+1", left="2H", right="9C")
    assert t.check(Play("p1", 0, "spit.left", C("AS"))).ok


def test_two_does_not_play_on_king_R2():
    t = make_table("2S", "3D+1", left="KH", right="9C")
    v = t.check(Play("p1", 0, "spit.left", C("2S")))
    assert not v.ok and v.kind == "not-adjacent"


def test_not_adjacent_play_message_names_rule_and_remedy_R10_R24():
    t = make_table("5S", "9C+2", left="6D", right="KC")
    v = t.check(Play("p2", 0, "spit.left", C("9C")))
    assert v == v.__class__(False, "R10", "not-adjacent",
                            "P2: 9♣ on 6♦ is not adjacent (R10) — take it back")


def test_equal_rank_is_refused_by_default_R10():
    t = make_table("5S", "9C+2", left="5D", right="KC")
    v = t.check(Play("p1", 0, "spit.left", C("5S")))
    assert not v.ok and v.kind == "equal-rank" and v.rule == "R10"
    assert "take it back" in v.message


def test_equal_rank_plays_when_the_decision_allows_it_R10():
    t = make_table("5S", "9C+2", left="5D", right="KC",
                   config=RulesConfig(equal_ranks_adjacent=True))
    assert t.check(Play("p1", 0, "spit.left", C("5S"))).ok


def test_a_card_may_go_on_either_spit_pile_R10():
    t = make_table("5S", "9C+2", left="4D", right="6C")
    assert {(m.pile) for m in t.legal_plays("p1")} == {"spit.left", "spit.right"}


def test_playing_onto_an_empty_spit_pile_is_refused_R10():
    t = make_table("5S", "9C+2", left="4D", right="")
    v = t.check(Play("p1", 0, "spit.right", C("5S")))
    assert not v.ok and v.kind == "empty-pile"


def test_playing_the_opponents_card_is_refused_R10():
    t = make_table("5S", "9C+2", left="8D", right="")
    v = t.check(Play("p1", 0, "spit.left", C("9C")))
    assert not v.ok and v.kind == "not-your-card" and "P2's card" in v.message


def test_players_play_without_turns_R9():
    t = make_table("5S 4S", "9C+2", left="6D", right="KC")
    t.push(Play("p1", 0, "spit.left", C("5S")))
    t.push(Play("p1", 1, "spit.left", C("4S")))  # the same player twice: no turns (R9)
    assert t.piles["spit.left"] == [C("6D"), C("5S"), C("4S")]


def test_legal_plays_lists_every_fitting_top():
    t = make_table("5S 7H+1 #2 - KD", "9C+2", left="6D", right="AC")
    plays = {(m.slot, m.pile) for m in t.legal_plays("p1")}
    assert plays == {(0, "spit.left"), (1, "spit.left"), (4, "spit.right")}


# --- R11: face-down cards ------------------------------------------------------------------------

def test_face_down_card_played_without_turning_is_refused_R11():
    t = make_table("#3", "9C+2", left="6D", right="")
    v = t.check(Play("p1", 0, "spit.left", C("7S")))
    assert not v.ok and v.kind == "face-down" and v.rule == "R11"
    assert "turn it face up" in v.message


def test_next_card_is_turned_up_after_the_top_leaves_R11():
    t = make_table("5S+2", "9C+2", left="6D", right="")
    t.push(Play("p1", 0, "spit.left", C("5S")))
    assert t.slot("p1", 0).up is None and t.slot("p1", 0).down == 2
    t.push(TurnUp("p1", 0, C("QH")))
    assert t.slot("p1", 0).up == C("QH") and t.slot("p1", 0).down == 1


def test_turning_up_a_face_up_top_is_refused_R11():
    t = make_table("5S+2", "9C+2", left="6D")
    v = t.check(TurnUp("p1", 0, C("QH")))
    assert not v.ok and v.kind == "already-face-up"


def test_turning_up_an_empty_slot_is_refused_R11():
    t = make_table("5S+2 -", "9C+2", left="6D")
    assert t.check(TurnUp("p1", 1, C("QH"))).kind == "nothing-to-turn"


def test_a_revealed_card_already_face_up_elsewhere_is_refused_R1():
    t = make_table("#2", "9C+2", left="6D")
    v = t.check(TurnUp("p1", 0, C("9C")))
    assert not v.ok and v.kind == "duplicate-card" and v.rule == "R1"
    assert "p2.stock1" in v.message


# --- R12, R13: moving between stockpiles -----------------------------------------------------

def test_refill_moves_a_top_into_an_empty_slot_and_uncovers_the_card_beneath_R12():
    t = make_table("5S+2 -", "9C+2", left="JD")
    t.push(Refill("p1", 0, 1, C("5S")))
    assert t.slot("p1", 1).up == C("5S") and t.slot("p1", 0).up is None
    t.push(TurnUp("p1", 0, C("8H")))
    assert t.slot("p1", 0).up == C("8H")


def test_moving_a_card_when_no_slot_is_empty_is_refused_R12():
    t = make_table("5S+2 6S 7S 8S 9S", "9C+2", left="JD")
    v = t.check(Refill("p1", 0, 1, C("5S")))
    assert not v.ok and v.kind == "no-empty-slot" and v.rule == "R12"


def test_stacking_onto_a_stockpile_is_refused_by_default_R12():
    t = make_table("5S+2 5H -", "9C+2", left="JD")
    v = t.check(Refill("p1", 0, 1, C("5S")))
    assert not v.ok and v.kind == "stacking" and "put it back" in v.message


def test_stacking_equal_ranks_is_legal_when_the_decision_allows_it_R12():
    t = make_table("5S+2 5H -", "9C+2", left="4D",
                   config=RulesConfig(stacking_allowed=True))
    t.push(Refill("p1", 0, 1, C("5S")))
    assert t.slot("p1", 1).up == C("5S") and t.slot("p1", 1).under == [C("5H")]
    t.push(Play("p1", 1, "spit.left", C("5S")))
    assert t.slot("p1", 1).up == C("5H")  # the stacked card beneath is face up again
    assert t.card_count() == 52


def test_a_sixth_stockpile_is_refused_R13():
    t = make_table("5S+2 6S 7S 8S 9S", "9C+2", left="JD")
    v = t.check(Refill("p1", 0, 5, C("5S")))
    assert not v.ok and v.kind == "sixth-stockpile" and v.rule == "R13"


def test_a_layout_with_six_piles_is_refused_R13():
    with pytest.raises(TableError, match="R13"):
        Table(counts={"p1": 26, "p2": 26}, layouts={"p1": [1, 1, 1, 1, 1, 1]})


# --- R14, R15 --------------------------------------------------------------------------------

def test_taking_back_a_played_card_is_refused_R14():
    t = make_table("5S+2", "9C+2", left="6D")
    t.push(Play("p1", 0, "spit.left", C("5S")))
    v = t.check(TakeBack("p1", "spit.left", 0, C("5S")))
    assert not v.ok and v.kind == "taken-back" and v.rule == "R14"


def test_replaying_a_card_from_a_spit_pile_is_refused_R14():
    t = make_table("5S+2", "9C+2", left="6D 7D", right="4C")
    v = t.check(Play("p1", 0, "spit.right", C("7D")))
    assert not v.ok and v.rule == "R14"


def test_a_card_from_the_spit_hand_is_refused_R15():
    t = make_table("5S+2", "9C+2", left="6D", hand1=5)
    v = t.check(Play("p1", None, "spit.left", C("7H")))
    assert not v.ok and v.kind == "from-spit-hand" and v.rule == "R15"


# --- R5–R8: deal and the first spit ------------------------------------------------------------

def test_a_full_deal_lays_out_fifteen_cards_and_keeps_eleven_spit_cards_R5_R6():
    t = Table()
    assert [s.down for s in t.slots["p1"]] == [1, 2, 3, 4, 5]
    assert t.spit_hand == {"p1": 11, "p2": 11} and t.card_count() == 52


def test_fewer_than_fifteen_cards_deal_piles_in_order_and_no_spit_cards_R7():
    assert standard_layout(12) == (1, 2, 3, 4, 2)
    assert standard_layout(4) == (1, 2, 1, 0, 0)
    t = Table(counts={"p1": 12, "p2": 40})
    assert [s.down for s in t.slots["p1"]] == [1, 2, 3, 4, 2] and t.spit_hand["p1"] == 0


def test_any_layout_is_accepted_by_default_R7():
    t = Table(counts={"p1": 12, "p2": 40}, layouts={"p1": [3, 3, 3, 3]})
    assert [s.down for s in t.slots["p1"]] == [3, 3, 3, 3, 0]


def test_a_non_standard_layout_is_refused_when_the_decision_requires_it_R7():
    with pytest.raises(TableError, match="R7"):
        Table(RulesConfig(accept_any_layout=False), counts={"p1": 12, "p2": 40},
              layouts={"p1": [3, 3, 3, 3]})


def test_counts_not_summing_to_52_are_refused():
    with pytest.raises(TableError, match="52"):
        Table(counts={"p1": 26, "p2": 25})


def test_spit_is_due_once_the_tops_are_turned_up_at_the_start_R8():
    t = Table()
    assert not t.spit_due()  # face-down tops must be turned up first (R5)
    cards = iter(Card.parse(c) for c in "2S 4S 6S 8S 10S 2H 4H 6H 8H 10H".split())
    for p in ("p1", "p2"):
        for i in range(5):
            t.push(TurnUp(p, i, next(cards)))
    assert t.spit_due()
    t.push(Spit("p1", "spit.left", C("KC")))
    assert t.pending_spits == {"p2"} and not t.spit_due()
    t.push(Spit("p2", "spit.right", C("QC")))
    assert t.pending_spits == set() and t.spit_hand == {"p1": 10, "p2": 10}


def test_a_player_without_spit_cards_does_not_spit_R8():
    t = make_table("5S", "9C 8C 7C 6C 4C", left="", right="", hand1=0)
    v = t.check(Spit("p1", "spit.left", C("KC")))
    assert not v.ok and v.kind == "no-spit-cards"
    assert t.check(Spit("p2", "spit.right", C("KC"))).ok  # the other spits alone (R16)


# --- R16: spit ------------------------------------------------------------------------------

def test_spit_is_due_when_nobody_can_play_R16():
    t = make_table("5S", "9C", left="JD", right="KC", hand1=3)
    assert t.spit_due()
    assert t.check(Spit("p1", "spit.left", C("7H"))).ok


def test_spitting_while_a_play_exists_is_a_false_spit_R16():
    t = make_table("5S", "9C", left="10D", right="KC", hand1=3)
    v = t.check(Spit("p1", "spit.left", C("7H")))
    assert not v.ok and v.kind == "false-spit" and v.rule == "R16"
    assert "P2's 9♣ goes on 10♦" in v.message


def test_a_card_left_to_turn_up_blocks_the_spit_by_default_R16():
    t = make_table("5S #2", "9C", left="JD", right="KC", hand1=3)
    assert not t.spit_due()
    assert t.check(Spit("p1", "spit.left", C("7H"))).kind == "false-spit"


def test_a_refill_that_uncovers_a_card_blocks_the_spit_by_default_R16():
    t = make_table("5S+1 - 2H 3H 4H", "9C", left="JD", right="KC", hand1=3)
    assert [type(m).__name__ for m in t.uncover_moves("p1")] == ["Refill"]
    assert not t.spit_due()


def test_uncover_moves_do_not_block_the_spit_when_the_decision_says_so_R16():
    t = make_table("5S #2", "9C", left="JD", right="KC", hand1=3,
                   config=RulesConfig(uncover_moves_count_as_available=False))
    assert t.spit_due()


def test_the_referee_may_call_spit_when_only_uncover_moves_are_left_R16():
    t = make_table("5S #2", "9C", left="JD", right="KC", hand1=3)
    t.call_spit()
    assert t.check(Spit("p1", "spit.left", C("7H"))).ok


def test_each_player_spits_onto_their_own_side_R16():
    t = make_table("5S", "9C", left="JD", right="KC", hand1=3)
    v = t.check(Spit("p1", "spit.right", C("7H")))
    assert not v.ok and v.kind == "wrong-pile" and "left spit pile" in v.message


def test_spitting_onto_either_pile_is_allowed_when_the_decision_says_so_R16():
    t = make_table("5S", "9C", left="JD", right="KC", hand1=3,
                   config=RulesConfig(spit_onto_own_side=False))
    assert t.check(Spit("p1", "spit.right", C("7H"))).ok


def test_a_lone_spitter_spits_and_play_resumes_R16():
    t = make_table(BLOCKED_P1, "9C", left="JD", right="", hand2=0)
    assert t.spit_due()
    t.push(Spit("p1", "spit.left", C("10H")))
    assert t.pending_spits == set()
    assert [m.card.code for m in t.legal_plays("p2")] == ["9C"]


# --- R17, R20: end of round ------------------------------------------------------------------

def test_round_ends_when_a_player_has_played_all_stock_cards_R17():
    t = make_table("5S", "9C+3", left="6D", right="KC", hand1=2)
    assert t.round_end() is None
    t.push(Play("p1", 0, "spit.left", C("5S")))
    end = t.round_end()
    assert end.case is RoundEndCase.CLEARED and end.player == "p1" and not end.single_pile
    assert "slap" in end.message and end.rule == "R17"


def test_round_ends_when_nobody_can_play_and_nobody_has_spit_cards_R17():
    t = make_table(BLOCKED_P1, "9C", left="JD", right="KC", hand2=0)
    assert t.spit_hand == {"p1": 0, "p2": 0}
    end = t.round_end()
    assert end.case is RoundEndCase.BLOCKED and end.player is None


def test_no_round_end_while_a_spit_card_is_left_R17():
    t = make_table("5S", "9C", left="JD", right="KC", hand1=1)
    assert t.round_end() is None and t.spit_due()


def test_moves_after_the_round_ended_are_refused_R17():
    t = make_table(BLOCKED_P1, "9C", left="JD", right="KC", hand2=0)
    assert t.check(Play("p1", 0, "spit.left", C("5S"))).kind == "round-over"


def test_single_pile_ending_when_only_one_spit_pile_was_used_R20():
    t = make_table("5S", "9C+3", left="6D", right="", hand1=0)
    t.push(Play("p1", 0, "spit.left", C("5S")))
    end = t.round_end()
    assert end.single_pile and end.single_pile_ending and end.rule == "R20"
    assert "no slap" in end.message


# --- bad input: refusals leave the table unchanged ----------------------------------------------

def test_an_illegal_push_raises_and_leaves_the_table_unchanged():
    t = make_table("5S+2", "9C+2", left="6D")
    before = t.to_dict()
    with pytest.raises(IllegalMove) as info:
        t.push(Play("p1", 0, "spit.left", C("5S")).__class__("p2", 0, "spit.left", C("9C")))
    assert info.value.verdict.kind == "not-adjacent"
    assert t.to_dict() == before


def test_table_round_trips_through_json():
    t = make_table("5S+2 #3 -", "9C+2 KD", left="6D 7D", right="2C", hand1=4)
    t2 = Table.from_dict(t.to_dict())
    assert t2 == t and t2.card_count() == 52


def test_copy_is_independent():
    t = make_table("5S+2", "9C+2", left="6D")
    c = t.copy()
    c.push(Play("p1", 0, "spit.left", C("5S")))
    assert t.slot("p1", 0).up == C("5S") and c.slot("p1", 0).up is None


def test_a_card_twice_on_the_table_is_refused_R1():
    with pytest.raises(TableError, match="7H appear twice"):
        make_table("7H+2", "7H+2", left="6D")


def test_an_unknown_card_code_is_refused():
    with pytest.raises(UnknownCardError, match="unknown card code"):
        make_table("7X+2", "9C+2", left="6D")


def test_a_table_not_holding_52_cards_is_refused():
    with pytest.raises(TableError, match="not 52"):
        make_table("7H+2", "9C+2", left="6D", hand1=3, hand2=3)


def test_a_sixth_stockpile_in_a_table_description_is_refused_R13():
    with pytest.raises(TableError, match="R13"):
        make_table("7H 8H 9H 10H JH QH", "9C+2", left="6D")


def test_is_face_up_and_where_follow_a_card_across_the_table():
    t = make_table("5S+2", "9C+2", left="6D")
    assert t.is_face_up(C("5S")) and t.where(C("5S")) == "p1.stock1"
    t.push(Play("p1", 0, "spit.left", C("5S")))
    assert t.is_face_up(C("5S")) and t.where(C("5S")) == "spit.left"
    assert not t.is_face_up(C("QH")) and t.where(C("QH")) is None
