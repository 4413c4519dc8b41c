"""referee.misnamed: illegal plays ruled on a card they did not land on (R10, R14)."""
from referee.misnamed import misnamed, named_beneath, true_beneath
from referee.rulings import Ruling, RulingKind
from referee.simulate import BotConfig, SimConfig, simulate_game

SIM = SimConfig(bots=(BotConfig(mistake_rate=0.05),) * 2)


def _illegal(message: str, card: str = "KH", player: str = "p1") -> Ruling:
    return Ruling(241.3, RulingKind.ILLEGAL, player=player, card=card, rule="R10",
                  message=message, extra={"illegal_kind": "not-adjacent"})


def test_the_cards_a_ruling_names_beneath_its_card_R10():
    assert named_beneath(_illegal("P1: K♥ on 7♦ is not adjacent (R10) — take it back")) == {"7D"}
    assert named_beneath(_illegal(
        "P1: 10♥ on 10♣ (or on 5♠, had that spit card come first) is the same rank, and equal "
        "ranks are not adjacent (R10) — take it back")) == {"10C", "5S"}
    # Three cards it may have landed on (game 48000153: J♠, the true one, was not counted).
    assert named_beneath(_illegal(
        "P1: 7♠ on 10♥ (or on 9♥, J♠, in an order of moves the camera could not tell apart) "
        "is not adjacent (R10) — take it back", card="7S")) == {"10H", "9H", "JS"}


def test_an_illegal_play_ruled_on_the_card_before_the_one_it_landed_on_is_misnamed_R10_R14():
    # Game 6000025, round 4: P1 played 8♦ on 7♦, then tried K♥ on 8♦ (not adjacent).
    record = simulate_game(6000025, SIM)
    assert "8D" in true_beneath(record)[("p1", "KH")]
    wrong = _illegal("P1: K♥ on 7♦ is not adjacent (R10) — take it back")
    both = _illegal("P1: K♥ on 7♦ (or on 8♦, in an order of moves the camera could not tell "
                    "apart) is not adjacent (R10) — take it back")
    right = _illegal("P1: K♥ on 8♦ is not adjacent (R10) — take it back")
    assert misnamed(record, [wrong, both, right]) == [wrong]
    # A ruling of another rule or with no card named is not this measure's.
    spit = Ruling(241.3, RulingKind.ILLEGAL, player="p1", card="KH", rule="R15",
                  message="P1: K♥ is not a card of your stockpiles (R15) — take it back")
    assert misnamed(record, [spit]) == []
