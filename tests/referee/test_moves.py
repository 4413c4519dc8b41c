"""Move values and their JSON form."""
import pytest

from referee.cards import Card, UnknownCardError
from referee.moves import (BadMoveError, Play, Refill, Spit, TakeBack, TurnUp, move_from_dict,
                           move_to_dict)

C = Card.parse


@pytest.mark.parametrize("move", [
    Play("p1", 2, "spit.left", C("7H")), Play("p2", None, "spit.right", C("AC")),
    TurnUp("p1", 0, C("10S")), Refill("p2", 4, 0, C("QD")), Spit("p1", "spit.left", C("2C")),
    TakeBack("p1", "spit.right", 3, C("KH")),
])
def test_moves_round_trip_through_json(move):
    assert move_from_dict(move_to_dict(move)) == move


def test_play_to_dict_uses_card_codes_and_zone_names():
    assert move_to_dict(Play("p1", 2, "spit.left", C("7H"))) == {
        "move": "play", "player": "p1", "slot": 2, "pile": "spit.left", "card": "7H"}


def test_unknown_player_pile_or_slot_is_refused():
    with pytest.raises(BadMoveError, match="player"):
        Play("p3", 0, "spit.left", C("7H"))
    with pytest.raises(BadMoveError, match="spit pile"):
        Play("p1", 0, "spit.middle", C("7H"))
    with pytest.raises(BadMoveError, match="slot"):
        TurnUp("p1", -1, C("7H"))


def test_a_move_with_an_unknown_card_code_is_refused():
    with pytest.raises(UnknownCardError):
        move_from_dict({"move": "play", "player": "p1", "slot": 0, "pile": "spit.left",
                        "card": "7X"})


def test_an_unknown_move_kind_is_refused():
    with pytest.raises(BadMoveError, match="expected"):
        move_from_dict({"move": "shuffle"})
