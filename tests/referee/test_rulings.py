"""Ruling values and their DESIGN.md JSON shape (R24)."""
from referee.rulings import Ruling, RulingKind, play_message


def test_play_ruling_serialises_in_the_design_shape():
    r = Ruling(4.215, RulingKind.PLAY, player="p1", card="7H", from_="p1.stock1",
               to="spit.left", rule="R10", message=play_message("p1", "7H", "8C"))
    assert r.to_json() == {"t": 4.215, "ruling": "play", "player": "p1", "card": "7H",
                           "from": "p1.stock1", "to": "spit.left", "rule": "R10",
                           "message": "P1 plays 7♥ on 8♣"}


def test_extra_fields_sit_at_the_top_level_and_absent_fields_are_left_out():
    r = Ruling(9.0, RulingKind.SLAP_RESULT, rule="R18", message="P2 takes the left pile",
               extra={"piles": {"spit.left": "p2", "spit.right": "p1"}, "margin_ms": 12.5})
    assert r.to_json() == {"t": 9.0, "ruling": "slap-result", "rule": "R18",
                           "message": "P2 takes the left pile",
                           "piles": {"spit.left": "p2", "spit.right": "p1"}, "margin_ms": 12.5}


def test_ruling_round_trips_through_json():
    r = Ruling(1.5, RulingKind.GAME_OVER, rule="R21", message="P1 wins",
               extra={"winner": "p1", "scores": None})
    assert Ruling.from_json(r.to_json()) == r


def test_every_design_kind_is_a_ruling_kind():
    design = ["deal", "spit-call", "spit", "play", "refill", "illegal", "false-spit",
              "slap-call", "false-slap", "slap-result", "round-over", "game-over", "warning"]
    assert [k.value for k in RulingKind] == design


def test_the_plain_words_line_cites_the_rule_once_R24():
    play = Ruling(4.215, RulingKind.PLAY, player="p1", card="7H", from_="p1.stock1",
                  to="spit.left", rule="R10", message="P1 plays 7♥ on 8♣")
    assert play.text().endswith("P1 plays 7♥ on 8♣ (R10)")
    bad = Ruling(5.0, RulingKind.ILLEGAL, player="p2", card="9C", rule="R10",
                 message="P2: 9♣ on 6♦ is not adjacent (R10) — take it back")
    assert bad.text().endswith(bad.message)
    note = Ruling(6.0, RulingKind.WARNING, message="camera lost")
    assert note.text().endswith("camera lost")
