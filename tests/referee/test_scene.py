"""referee.scene's Scene: what the camera should read where cards lie loose (R10, R14)."""
from referee.cards import Card
from referee.moves import Play, TakeBack
from referee.scene import Scene, Step

from tests.referee.builders import make_table


def _after(scene: Scene, *moves) -> Scene:
    for move in moves:
        scene.apply(Step(move, scene.table.check(move)))
    return scene


def test_a_played_card_lifted_off_shows_the_card_beneath_R14():
    # P1's 10♦ goes on 9♠ (legal) and is taken back to its stockpile: the pile shows 9♠ again,
    # the stockpile 10♦, though for the rules 10♦ still lies on the pile until it is put back.
    scene = _after(Scene(make_table("10D 2C", "8H", left="9S")),
                   Play("p1", 0, "spit.left", Card.parse("10D")),
                   TakeBack("p1", "spit.left", 0, Card.parse("10D")))
    assert scene.table.top("spit.left") == Card.parse("10D")
    assert (scene.expected("spit.left"), scene.expected("p1.stock1")) == ("9S", "10D")


def test_a_card_played_on_a_lifted_card_shows_on_top_R14():
    # Then P1's 9♣ goes on (for the rules) 10♦: it lies on top and shows. The lifted card is
    # left out of the pile wherever it lies in it, not counted off the top (game 10000045:
    # the pile "showed" 10♦'s neighbour instead, and a later card was ruled on the wrong one).
    scene = _after(Scene(make_table("10D 9C", "8H", left="9S")),
                   Play("p1", 0, "spit.left", Card.parse("10D")),
                   TakeBack("p1", "spit.left", 0, Card.parse("10D")),
                   Play("p1", 1, "spit.left", Card.parse("9C")))
    assert scene.expected("spit.left") == "9C"
