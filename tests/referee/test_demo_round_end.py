"""A demo round's end (57 s of rendered frames through vision): the referee sees the
last card, calls "Slap!", and the bots' slaps on the mock pads decide the piles (R17, R18,
R23)."""
from referee.live.demo import DemoConfig, run_demo
from referee.rulings import RulingKind


def test_the_demo_waits_for_the_referee_s_slap_call_when_it_comes_with_the_last_card_R18_R23(
        tmp_path):
    # Seed 1: P2's last stock card (J♠) and the simulator's "Slap!" share one moment. The
    # demo used to look only at the next event (the card), so it never waited for the
    # referee's call: nobody slapped, the piles were gathered, and round 2 was refereed with
    # counts "which may be off". It also froze the table with the hand still over J♠.
    result = run_demo(DemoConfig(seed=1, max_frames=1700, log=tmp_path / "d.jsonl", plain=True))
    kinds = [r.kind for r in result.rulings]
    assert RulingKind.SLAP_CALL in kinds and RulingKind.ROUND_OVER in kinds
    result_ruling = next(r for r in result.rulings if r.kind is RulingKind.SLAP_RESULT)
    assert result_ruling.extra["piles"] == {"spit.right": "p1", "spit.left": "p2"}
    assert result.missed_calls == 0
    assert result.comparison.wrong == 0 and result.comparison.missed == 0
