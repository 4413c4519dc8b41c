"""Who won a game whose end a hand hid part of (referee.monitor.afterend, R21). The flows
(an owed spit seen after the end, a table that shows nothing moved, a card played under the
hand) are tested on simulated games in test_monitor_sim.py."""
import pytest

from referee.game import GameOver
from referee.monitor import Monitor
from referee.zones import ALL_ZONES, UNKNOWN

from tests.referee.builders import make_table

P1_WINS = GameOver("p1", {"p1": 0, "p2": 0}, "R21", "P1 has got rid of all their cards (R21)")


def _sure(p2: str, hidden: set[str]) -> bool:
    """Whether P1's win is sure: P1 has cleared (no spit cards), P2 holds the stock `p2`
    (builders' notation) and many spit cards, the left pile's top is 4♠ and the right's K♦,
    and a hand hides the zones `hidden`."""
    m = Monitor()
    table = make_table("", p2, left="9C 4S", right="QH KD", hand1=0)
    m.readings.update({z: UNKNOWN if z in hidden else "x" for z in ALL_ZONES})
    return m._winner_sure(table, P1_WINS)


@pytest.mark.parametrize("p2, hidden, sure", [
    # P2's last stock card, 5♥, fits 4♠ on the hidden pile: P2 may have cleared first, and
    # with spit cards left the game would go on (R21).
    ("5H", {"p2.stock1", "spit.left"}, False),
    # It fits no hidden top (K♦), nor one it may have been played on.
    ("5H", {"p2.stock1", "spit.right"}, True),
    # The card is in view: it was not played.
    ("5H", {"spit.left"}, True),
    # No spit pile hidden: a card played would show.
    ("5H", {"p2.stock1"}, True),
    # A card beneath it nobody has seen: it may fit anything.
    ("7D+1", {"p2.stock1", "spit.right"}, False),
    # Two cards under the hand, the one played on the other (6♥ on 5♥, after 5♥ on 4♠).
    ("6H 5H", {"p2.stock1", "p2.stock2", "spit.left"}, False),
    ("6H JC", {"p2.stock1", "p2.stock2", "spit.right"}, True),
    # One of P2's cards in view: P2 cannot have cleared.
    ("6H 5H", {"p2.stock2", "spit.left"}, True),
])
def test_a_win_is_sure_unless_the_loser_may_have_cleared_under_the_hand_first_R21(
        p2, hidden, sure):
    assert _sure(p2, hidden) is sure


def test_a_win_by_points_or_with_no_winner_is_never_taken_as_sure_R22():
    m = Monitor()
    table = make_table("", "5H", left="9C 4S", right="QH KD", hand1=0)
    points = GameOver("p1", {"p1": 40, "p2": 101}, "R22", "P1 has the fewest points (R22)")
    draw = GameOver(None, {"p1": 101, "p2": 101}, "R22", "A draw (R22)")
    assert not m._winner_sure(table, points) and not m._winner_sure(table, draw)
