"""`spit-referee run --publish`: a live table's rulings reach the event's broker, every one, in
order (the publisher was built but never given the rulings before e4e9896)."""
from __future__ import annotations

from collections import defaultdict

from referee.live.run import RunOptions, run_live
from referee.live.view import PlainView
from tests.referee.test_run import _monitor_rulings, calibration, video  # noqa: F401 (fixtures)
from tournament.dashboard import Feed

from .test_broker import wait_until


def test_run_publishes_every_ruling_of_a_recorded_game(broker, video, calibration,  # noqa: F811
                                                       tmp_path) -> None:
    import json

    applied = defaultdict(list)
    feed = Feed(broker.cred("dashboard"), broker.address, None,
                on_applied=lambda t, rs: applied[t].extend(rs))
    feed.start()
    assert wait_until(lambda: feed.subscribed, 10)  # else the rulings are not the feed's
    log = tmp_path / "game.jsonl"
    try:
        run_live(RunOptions(camera=str(video), calibration=calibration, log=log, no_pads=True,
                            publish=broker.init.credentials["table-2"],
                            spool=tmp_path / "spool"), PlainView())
        logged = [o for o in map(json.loads, log.read_text().splitlines()) if "ruling" in o]
        assert _monitor_rulings(logged), "the recording gives rulings to publish"
        assert wait_until(lambda: len(applied["table-2"]) == len(logged), 10)
    finally:
        feed.stop()
    assert applied["table-2"] == logged
