"""referee.infer's Scene: what the camera should read where cards lie loose (R10, R14)."""
from referee.cards import Card
from referee.infer import Scene, Step
from referee.moves import Play, TakeBack

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


def test_a_card_taken_back_from_under_a_later_card_while_a_hand_hid_the_pile_is_found_R10_R14():
    # Demo seed 11: for five seconds hands hid the left pile. P2 played 3♦ on 2♠, P1's A♠
    # went on 3♦ (not adjacent), P2's 4♠ on top of it, A♠ was taken back from beneath; then
    # 5♣, 6♥ (seen for a moment) and 7♥. A♠ shows at home again, but its stockpile was seen
    # face down meanwhile: the search must let it leave, and lists every order that fits
    # (before, it never moved A♠, found nothing, and the referee warned for the rest of it).
    from referee.infer import explain

    scene = Scene(make_table("5C+1 AS+1 6H+1", "3D+1 4S+1 7H+1", left="2S", right="10H"))
    readings = {**scene.readings(), "p1.stock1": "back", "p1.stock3": "back",
                "p2.stock1": "back", "p2.stock2": "back", "p2.stock3": "back",
                "spit.left": "7H"}
    o = explain(scene, readings, trails={"p1.stock2": ["back", "AS"]},
                seen={"spit.left": ["6H"]}, max_options=40, max_nodes=50000)
    assert o.complete and len(o.options) > 1
    truth = sorted([("3D", "ok", False), ("AS", "not-adjacent", False), ("4S", "ok", False),
                    ("AS", "not-adjacent", True), ("5C", "ok", False), ("6H", "ok", False),
                    ("7H", "ok", False)])
    found = [sorted((s.move.card.code, s.verdict.kind, s.returned is not None) for s in e.steps)
             for e in o.options]
    assert truth in found
    # Whatever the order, A♠ was an illegal action: played where it did not fit (R10), or
    # played legally and taken back (R14).
    assert all(any(s.move.card.code == "AS" and not s.verdict.ok for s in e.steps)
               for e in o.options)


def test_the_change_bound_never_hides_an_explanation(monkeypatch):
    # infer._change_bound prunes the search by the zone changes still to come. It must never
    # prune a sequence that fits: every search the monitor makes over a game with hands
    # hiding half the moves finds the same outcomes without it (where both list them all).
    import copy
    import random

    from referee import infer, monitor
    from referee.monitor import Monitor, MonitorConfig
    from referee.obslog import ObsConfig, observation_log, replay
    from referee.simulate import BotConfig, SimConfig, simulate_game

    calls = []
    explain = infer.explain

    def keys(o):
        return {infer.outcome_key(e) for e in ([o.explanation] if o.explanation else [])
                + list(o.options)}

    def recording(scene, readings, **kw):
        out = explain(scene, readings, **kw)
        if out.complete and (out.explanation or out.options):
            # (Keys now: the monitor goes on to change the scenes it adopts.)
            calls.append((scene.copy(), dict(readings), copy.deepcopy(kw), keys(out)))
        return out

    monkeypatch.setattr(monitor, "explain", recording)
    rec = simulate_game(2000001, SimConfig(bots=(BotConfig(mistake_rate=0.05),) * 2))
    lines = observation_log(rec, ObsConfig(occlusion_p=0.5, delayed_turnup_p=0.3),
                            random.Random(2000001))
    replay(Monitor(MonitorConfig(rules=rec.rules)), lines[:1500], rec)
    monkeypatch.setattr(infer, "_change_bound", lambda *a, **k: 0)
    compared = 0
    for scene, readings, kw, found in calls:
        again = explain(scene, readings, **{**kw, "max_nodes": 100000})
        if again.complete and len(keys(again)) <= kw.get("max_options", 1):
            assert keys(again) == found
            compared += 1
    assert compared > 100
