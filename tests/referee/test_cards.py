"""Card codes and the rank ring (R1, R2, R10)."""
import pytest

from referee.cards import DECK, Card, Rank, UnknownCardError, adjacent


def test_deck_has_52_distinct_cards_R1():
    assert len(DECK) == 52 and len(set(DECK)) == 52


@pytest.mark.parametrize("code", ["7H", "10S", "AC", "QD", "kh"])
def test_card_codes_round_trip(code):
    assert Card.parse(code).code == code.upper()


@pytest.mark.parametrize("bad", ["", "1H", "11S", "7X", "joker", "10", None])
def test_unknown_card_code_is_refused_with_a_clear_error(bad):
    with pytest.raises(UnknownCardError, match="card code"):
        Card.parse(bad)


def test_king_and_ace_are_adjacent_R2():
    assert adjacent(Rank.KING, Rank.ACE) and adjacent(Rank.ACE, Rank.KING)


def test_ace_and_two_are_adjacent_R2():
    assert adjacent(Rank.ACE, Rank.TWO)


def test_two_and_king_are_not_adjacent_R2():
    assert not adjacent(Rank.TWO, Rank.KING)


def test_equal_ranks_are_not_adjacent_by_default_R10():
    assert not adjacent(Rank.FIVE, Rank.FIVE)
    assert adjacent(Rank.FIVE, Rank.FIVE, equal_ranks_adjacent=True)


def test_pretty_uses_suit_symbols():
    assert Card.parse("7H").pretty == "7♥" and Card.parse("9C").pretty == "9♣"
