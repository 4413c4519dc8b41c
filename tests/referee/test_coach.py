"""referee.coach on hand-written observation logs: a hint comes once a legal play (R10) has
stayed unplayed for the hint time and names the right card and pile; nothing is hinted while
the monitor is unsure (a zone `?`, a loose card); every illegal kind the rules engine or the
monitor can rule gets its plain-words explanation."""
import re
from pathlib import Path

import pytest

import referee.monitor as monitor_module
import referee.state as state_module
from referee.coach import KIND_TEXT, RULE_TEXT, Coach, CoachConfig, is_coach
from referee.monitor import Monitor
from referee.rulings import Ruling, RulingKind

# A fresh deal (R5) and both spits (R8): P1 can play 7♥ on 6♣, P2 can play 5♠ on 6♣; nothing
# goes on K♦.
DEAL = {"p1.stock1": "7H", "p1.stock2": "8C", "p1.stock3": "9D", "p1.stock4": "10S",
        "p1.stock5": "JH", "p2.stock1": "2H", "p2.stock2": "3C", "p2.stock3": "4D",
        "p2.stock4": "5S", "p2.stock5": "6H", "spit.left": "empty", "spit.right": "empty"}
SETUP = [{"t": 0.0, "start": {"p1": 26, "p2": 26}},
         {"t": 1.0, "observe": DEAL},
         {"t": 2.0, "observe": {"spit.left": "6C", "spit.right": "KD"}}]


def _feed(monitor, coach, lines):
    """Each line into the monitor, then the coach, as the session does; all rulings out."""
    out = []
    for line in lines:
        for r in monitor.feed(line):
            out.append(r)
            why = coach.explain(r)
            if why is not None:
                out.append(why)
        out += coach.update(monitor, monitor.t)
    return out


def _hints(rulings):
    return [r for r in rulings if r.extra.get("coach") == "hint"]


def test_hint_comes_after_the_hint_time_and_names_card_and_pile_R10():
    m, coach = Monitor(), Coach(CoachConfig(hint_after_s=4.0))
    assert _hints(_feed(m, coach, SETUP)) == []
    assert coach.deadline() == pytest.approx(6.0)  # the spits were confirmed at 2.0
    assert _hints(_feed(m, coach, [{"t": 5.9, "observe": {}}])) == []
    hints = coach.update(m, 6.0)
    assert {(h.player, h.card, h.from_, h.to, h.rule) for h in hints} == {
        ("p1", "7H", "p1.stock1", "spit.left", "R10"),
        ("p2", "5S", "p2.stock4", "spit.left", "R10")}
    p1 = next(h for h in hints if h.player == "p1")
    assert p1.kind is RulingKind.WARNING and p1.t == 6.0
    assert p1.message == "P1: your 7♥ goes on the 6♣ (R10)"
    assert p1.to_json()["coach"] == "hint"


def test_each_hint_is_given_once():
    m, coach = Monitor(), Coach()
    _feed(m, coach, SETUP)
    first = coach.update(m, 6.5)
    assert len(first) == 2
    assert coach.update(m, 9.0) == [] and coach.deadline() is None


def test_a_play_made_before_the_hint_time_gets_no_hint_and_the_new_top_restarts_the_clock():
    m, coach = Monitor(), Coach()
    _feed(m, coach, SETUP)
    # P1 plays 7♥ on 6♣ at 3.0: P1's 8♣ and P2's 6♥ now fit the 7♥, from 3.0 on.
    _feed(m, coach, [{"t": 3.0, "observe": {"p1.stock1": "empty", "spit.left": "7H"}}])
    assert coach.deadline() == pytest.approx(7.0)
    hints = coach.update(m, 7.0)
    assert {(h.player, h.card, h.extra["top"]) for h in hints} == {
        ("p1", "8C", "7H"), ("p2", "6H", "7H")}


def test_no_hint_while_a_zone_is_unknown():
    m, coach = Monitor(), Coach()
    _feed(m, coach, SETUP)
    # A hand covers P2's stockpile 2 from 3.0 to 9.0: the monitor is not sure of the table.
    assert _hints(_feed(m, coach, [{"t": 3.0, "observe": {"p2.stock2": "?"}},
                                   {"t": 8.0, "observe": {}}])) == []
    assert coach.deadline() is None
    hints = _hints(_feed(m, coach, [{"t": 9.0, "observe": {"p2.stock2": "3C"}}]))
    assert {(h.player, h.card) for h in hints} == {("p1", "7H"), ("p2", "5S")}
    assert all(h.t == 9.0 for h in hints)


def test_no_hint_while_an_illegal_card_lies_on_a_pile_and_explanation_follows_it():
    m, coach = Monitor(), Coach()
    _feed(m, coach, SETUP)
    out = _feed(m, coach, [{"t": 3.0, "observe": {"p1.stock3": "back", "spit.left": "9D"}},
                           {"t": 8.0, "observe": {}}])
    kinds = [(r.kind, r.extra.get("coach")) for r in out]
    assert kinds == [(RulingKind.ILLEGAL, None), (RulingKind.WARNING, "explain")]
    assert "one step away" in out[1].message and out[1].rule == "R10"
    assert out[1].player == "p1" and out[1].card == "9D"
    # Taken back at 9.0: the table is sure again and the old plays are hinted.
    hints = _hints(_feed(m, coach, [{"t": 9.0, "observe": {"p1.stock3": "9D",
                                                            "spit.left": "6C"}}]))
    assert {(h.player, h.card) for h in hints} == {("p1", "7H"), ("p2", "5S")}


def test_false_spit_and_false_slap_rulings_are_explained_R16_R18():
    m, coach = Monitor(), Coach()
    out = _feed(m, coach, SETUP + [
        {"t": 3.0, "observe": {"spit.right": "QS"}},   # P2 spits while 7♥ and 5♠ can play
        {"t": 3.5, "slap": {"player": "p1", "pile": "spit.left"}}])
    explained = {r.extra["explains"]: r for r in out if r.extra.get("coach") == "explain"}
    assert set(explained) == {"false-spit", "false-slap"}
    assert explained["false-spit"].rule == "R16" and "nobody can play" in \
        explained["false-spit"].message
    assert explained["false-slap"].rule == "R18" and "Slap only after" in \
        explained["false-slap"].message


def _source(module) -> str:
    """A module's source, or a package's: every module in it (referee.monitor)."""
    path = Path(module.__file__)
    files = sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def _kinds_in_source(module) -> set[str]:
    src = _source(module)
    kinds = set(re.findall(r'_no\((?:"R\d+"|rule), "([a-z-]+)"', src))
    kinds |= set(re.findall(r'"illegal_kind": "([a-z-]+)"', src))
    return kinds


def _illegal_rules() -> set[str]:
    """The rules an illegal ruling can cite: every rule of a Table.check refusal, and R18 of
    the monitor's false slap (its ruling is the one with `"illegal_kind": "false-slap"`)."""
    src = Path(state_module.__file__).read_text(encoding="utf-8")
    rules = set(re.findall(r'_no\("(R\d+)"', src))
    mon = _source(monitor_module)
    rules |= set(re.findall(r'FALSE_SLAP[^)]*?rule="(R\d+)"', mon, re.S))
    return rules


def test_every_illegal_kind_the_referee_can_rule_has_plain_words():
    kinds = _kinds_in_source(state_module) | _kinds_in_source(monitor_module)
    assert {"not-adjacent", "false-spit", "false-slap", "stacking"} <= kinds
    for kind in sorted(kinds):
        ruling_kind = {"false-spit": RulingKind.FALSE_SPIT,
                       "false-slap": RulingKind.FALSE_SLAP}.get(kind, RulingKind.ILLEGAL)
        why = Coach.explain(Ruling(1.0, ruling_kind, player="p2", card="9D", rule="R10",
                                   extra={"illegal_kind": kind}))
        assert why is not None, kind
        assert why.message.startswith("P2: Not allowed: " + KIND_TEXT[kind])


def test_every_rule_a_ruling_can_cite_has_plain_words():
    rules = _illegal_rules()
    assert {"R10", "R12", "R16", "R18"} <= rules
    for rule in sorted(rules):
        why = Coach.explain(Ruling(1.0, RulingKind.ILLEGAL, player="p1", rule=rule,
                                   extra={"illegal_kind": "not-adjacent"}))
        assert RULE_TEXT[rule] in why.message


def test_legal_moves_and_the_coachs_own_rulings_are_not_explained():
    assert Coach.explain(Ruling(1.0, RulingKind.PLAY, player="p1", card="7H", rule="R10")) is None
    own = Coach.explain(Ruling(1.0, RulingKind.ILLEGAL, player="p1", rule="R10",
                               extra={"illegal_kind": "not-adjacent"}))
    assert is_coach(own) and Coach.explain(own) is None


def test_hint_time_must_be_positive():
    with pytest.raises(ValueError):
        CoachConfig(hint_after_s=0)
