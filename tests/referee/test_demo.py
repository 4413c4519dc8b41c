"""The demo end to end, briefly: rendered frames → vision → monitor ← mock pads → log."""
import json

import pytest

from referee.live.demo import DemoConfig, run_demo, truth_path
from referee.monitor import Monitor
from referee.rulings import RulingKind
from referee.simulate import GameRecord


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    log = tmp_path_factory.mktemp("demo") / "demo.jsonl"
    # Fifteen seconds of game: the layout, the first spit and the first plays.
    return run_demo(DemoConfig(seed=52, max_frames=450, log=log, plain=True))


def test_the_demo_deals_and_referees_from_rendered_frames(demo):
    kinds = [r.kind for r in demo.rulings]
    assert RulingKind.DEAL in kinds and RulingKind.SPIT in kinds and RulingKind.PLAY in kinds
    assert demo.frames == 450


def test_the_demo_never_rules_a_move_the_bots_did_not_make(demo):
    assert demo.comparison.wrong == 0, demo.comparison.details


def test_the_demo_log_replays_to_the_same_rulings(demo):
    objs = [json.loads(ln) for ln in demo.log_path.read_text().splitlines()]
    again = Monitor()
    for o in objs:
        if "ruling" not in o:
            again.feed(o)
    assert [r.to_json() for r in again.rulings] == [o for o in objs if "ruling" in o]


def test_the_true_moves_are_written_beside_the_log(demo):
    record = GameRecord.from_jsonl(truth_path(demo.log_path).read_text())
    assert record.seed == 52 and record.events
