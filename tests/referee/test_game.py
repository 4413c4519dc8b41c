"""Round flow and winning: R17 end of round, R18 slaps, R19 re-deal, R20, R21, R22."""
import pytest

from referee.game import Game, GameFlowError, next_round_counts, slap_needed
from referee.rules import RulesConfig, Variant
from referee.slaps import Slap, resolve_slaps
from referee.state import Table
from tests.referee.builders import make_table

POINTS = RulesConfig(variant=Variant.POINTS)


def _cleared_two_piles(config=None):
    # P1 has played every stock card but still holds 2 spit cards; both piles in use.
    return make_table("", "9C+3", left="6D 5S 4S", right="KC", hand1=2, config=config)


def _slap(p1_pile, p2_pile, p1_ns=1_000_000, p2_ns=5_000_000):
    return resolve_slaps(Slap(p1_ns, "p1", p1_pile), Slap(p2_ns, "p2", p2_pile))


def test_finishing_a_round_that_is_not_over_is_refused_R17():
    t = make_table("5S", "9C+3", left="6D", right="KC", hand1=2)
    with pytest.raises(GameFlowError, match="R17"):
        Game().finish_round(t)


def test_players_slapping_different_piles_each_take_their_own_R18():
    t = _cleared_two_piles()
    r = Game().finish_round(t, _slap("spit.left", "spit.right"))
    assert r.piles_taken == {"spit.left": "p1", "spit.right": "p2"}
    assert r.counts == {"p1": 2 + 3, "p2": t.cards_held("p2") + 1}


def test_on_the_same_pile_the_first_slap_takes_it_and_the_other_takes_the_other_R18():
    t = _cleared_two_piles()
    r = Game().finish_round(t, _slap("spit.right", "spit.right", p1_ns=9_000_000,
                                     p2_ns=2_000_000))
    assert r.piles_taken == {"spit.right": "p2", "spit.left": "p1"}


def test_a_slap_too_close_to_call_must_be_repeated_R18():
    t = _cleared_two_piles()
    outcome = _slap("spit.left", "spit.left", p1_ns=1_000_000, p2_ns=1_100_000)
    assert outcome.too_close
    with pytest.raises(GameFlowError, match="R18"):
        Game().finish_round(t, outcome)


def test_a_round_with_two_piles_needs_a_slap_R18():
    with pytest.raises(GameFlowError, match="slap"):
        Game().finish_round(_cleared_two_piles())


def test_redeal_gives_unequal_counts_and_unequal_spit_cards_R19():
    t = _cleared_two_piles()
    g = Game()
    r = g.finish_round(t, _slap("spit.left", "spit.right"))
    assert sum(r.counts.values()) == 52 and r.counts["p1"] != r.counts["p2"]
    nxt = g.new_table()
    assert g.round == 1 and nxt.card_count() == 52
    assert nxt.spit_hand == {p: max(0, r.counts[p] - 15) for p in ("p1", "p2")}


def test_next_round_counts_add_leftover_stock_spit_cards_and_the_pile_taken_R19():
    # Blocked (R17): 49 + 1 stock cards, no spit cards, J and K on the piles.
    t = make_table("5S+9 4S+9 3S+9 2S+9 6S+8", "9C", left="JD", right="KC", hand2=0)
    end = t.round_end()
    counts, taken = next_round_counts(t, end, {"spit.left": "p2", "spit.right": "p1"})
    assert counts == {"p1": 50, "p2": 2} and taken == {"spit.left": "p2", "spit.right": "p1"}


def test_single_pile_ending_the_clearer_takes_nothing_and_no_slap_is_needed_R20():
    # P2 holds spit cards and clears first; P1 (no spit cards) takes the one spit pile.
    t = make_table("5S+42 9H", "", left="6D 7D 8D", right="", hand1=0, hand2=5)
    end = t.round_end()
    assert end.single_pile_ending and not slap_needed(t, end)
    r = Game().finish_round(t)
    assert r.piles_taken == {"spit.left": "p1"}
    assert r.counts == {"p1": 44 + 3, "p2": 5} and r.game_over is None


def test_the_player_without_spit_cards_who_clears_first_wins_R21():
    t = make_table("", "9C+3", left="6D 5S", right="", hand1=0)
    end = t.round_end()
    assert not slap_needed(t, end)
    r = Game().finish_round(t)
    assert r.game_over is not None and r.game_over.winner == "p1" and r.game_over.rule == "R21"


def test_when_the_opponent_clears_first_the_game_goes_on_R21():
    t = make_table("5S+42 9H", "", left="6D 7D 8D", right="", hand1=0, hand2=5)
    g = Game()
    r = g.finish_round(t)
    assert r.game_over is None and not g.over


def test_a_player_who_cleared_after_spitting_their_last_card_wins_R21():
    # Two piles in use, but P1 has no spit cards left and no stock: every card is gone (R3).
    t = make_table("", "9C+3", left="6D 5S", right="KC", hand1=0)
    r = Game().finish_round(t)
    assert r.game_over.winner == "p1"


def test_points_each_player_scores_the_cards_they_still_hold_R22():
    t = _cleared_two_piles(POINTS)
    g = Game(POINTS)
    r = g.finish_round(t, _slap("spit.left", "spit.right"))
    assert r.scores == {"p1": 2, "p2": t.cards_held("p2")} and r.game_over is None


def test_points_game_ends_at_100_and_the_lowest_total_wins_R22():
    t = _cleared_two_piles(POINTS)
    g = Game(POINTS, scores={"p1": 97, "p2": 60})
    r = g.finish_round(t, _slap("spit.left", "spit.right"))
    assert r.scores["p1"] == 99
    assert r.game_over is not None  # p2 passed 100 with 60 + 45
    assert r.game_over.winner == "p1" and r.game_over.rule == "R22"


def test_points_game_goes_on_below_the_limit_R22():
    t = _cleared_two_piles(POINTS)
    g = Game(POINTS, scores={"p1": 10, "p2": 10})
    held = t.cards_held("p2")
    assert 10 + held < 100
    assert g.finish_round(t, _slap("spit.left", "spit.right")).game_over is None


def test_a_points_limit_can_be_configured_R22():
    cfg = RulesConfig(variant=Variant.POINTS, points_limit=5)
    g = Game(cfg)
    r = g.finish_round(_cleared_two_piles(cfg), _slap("spit.left", "spit.right"))
    assert r.game_over is not None


def test_a_tie_on_the_lowest_total_is_a_draw_by_default_R22():
    t = _cleared_two_piles(POINTS)
    held = t.cards_held("p2")
    g = Game(POINTS, scores={"p1": 100 + held - 2, "p2": 100})
    r = g.finish_round(t, _slap("spit.left", "spit.right"))
    assert r.scores["p1"] == r.scores["p2"]
    assert r.game_over is not None and r.game_over.winner is None and "Draw" in r.game_over.message


def test_a_tie_plays_on_when_ties_are_not_draws_R22():
    cfg = RulesConfig(variant=Variant.POINTS, tie_is_draw=False)
    t = _cleared_two_piles(cfg)
    held = t.cards_held("p2")
    g = Game(cfg, scores={"p1": 100 + held - 2, "p2": 100})
    r = g.finish_round(t, _slap("spit.left", "spit.right"))
    assert r.game_over is None and not g.over


def test_standard_variant_keeps_no_score_R21():
    g = Game()
    r = g.finish_round(_cleared_two_piles(), _slap("spit.left", "spit.right"))
    assert r.scores == {"p1": 0, "p2": 0}


def test_points_variant_deals_afresh_when_a_player_got_rid_of_every_card_R22():
    t = make_table("", "9C+3", left="6D 5S", right="", hand1=0, config=POINTS)
    g = Game(POINTS)
    r = g.finish_round(t)
    assert r.scores["p1"] == 0 and r.game_over is None
    assert r.fresh_deal and r.counts == {"p1": 26, "p2": 26}


def test_a_game_that_is_over_deals_no_more_rounds():
    g = Game()
    g.finish_round(make_table("", "9C+3", left="6D 5S", right="", hand1=0))
    with pytest.raises(GameFlowError, match="over"):
        g.new_table()


def test_first_round_deals_26_cards_each_R4():
    t = Game().new_table()
    assert all(t.cards_held(p) == 26 for p in ("p1", "p2"))


def test_a_deal_to_a_player_with_no_cards_is_refused():
    from referee.state import TableError
    with pytest.raises(TableError, match="at least one card"):
        Table(counts={"p1": 0, "p2": 52})


def test_counts_that_deal_a_short_layout_are_at_most_ten_cards_R7():
    from referee.game import counts_fitting_layouts
    # Four stockpiles: 7 to 10 cards (1+2+3+1 .. 1+2+3+4); the nearest to the belief is taken.
    assert counts_fitting_layouts({"p1": 5, "p2": 4}, {"p1": 36, "p2": 16}) == {"p1": 42,
                                                                               "p2": 10}
    assert counts_fitting_layouts({"p1": 4, "p2": 5}, {"p1": 5, "p2": 47}) == {"p1": 7,
                                                                              "p2": 45}
    # Counts that already deal the layout are kept.
    assert counts_fitting_layouts({"p1": 5, "p2": 5}, {"p1": 20, "p2": 32}) == {"p1": 20,
                                                                               "p2": 32}
    # Five piles each need 11 or more: a belief of 8 becomes 11.
    assert counts_fitting_layouts({"p1": 5, "p2": 5}, {"p1": 8, "p2": 44}) == {"p1": 11,
                                                                              "p2": 41}
    # Two short layouts cannot hold 52 cards (R1), and a player with no pile is not dealt.
    assert counts_fitting_layouts({"p1": 4, "p2": 4}, {"p1": 26, "p2": 26}) is None
    assert counts_fitting_layouts({"p1": 0, "p2": 5}, {"p1": 26, "p2": 26}) is None
