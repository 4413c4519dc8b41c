"""`demo --coach` end to end (rendered frames through vision): the referee waits the
beginner settle time before calling "Spit!", any coach ruling in the log is a `warning` marked by
its `coach` key, and the log's inputs replay to exactly the monitor's rulings."""
import json

import pytest

from referee.coach import COACH_SETTLE_S
from referee.live.demo import DemoConfig, run_demo
from referee.monitor import Monitor, MonitorConfig


def test_coached_demo_waits_the_beginner_settle_time_and_replays_exactly(tmp_path):
    log = tmp_path / "coached.jsonl"
    result = run_demo(DemoConfig(seed=12, max_frames=240, log=log, plain=True, coach=True))
    objs = [json.loads(ln) for ln in log.read_text().splitlines()]
    rulings = [o for o in objs if "ruling" in o]
    deal = next(o for o in rulings if o["ruling"] == "deal")
    call = next(o for o in rulings if o["ruling"] == "spit-call")
    latency = MonitorConfig().latency_s  # the settle time runs from when the layout was made
    assert call["t"] - deal["t"] == pytest.approx(COACH_SETTLE_S - latency, abs=1e-6)
    assert all(o["ruling"] == "warning" for o in rulings if "coach" in o)
    again = Monitor(MonitorConfig(settle_s=COACH_SETTLE_S))
    for o in objs:
        if "ruling" not in o:
            again.feed(o)
    assert [r.to_json() for r in again.rulings] == [o for o in rulings if "coach" not in o]
    assert result.comparison.wrong == 0
