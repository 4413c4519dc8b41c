"""`spit-referee tournament table`: a refereed game published as one table; the spool carries
what a run could not send over to the next run, and seqs keep counting across runs."""
from __future__ import annotations

import json
from collections import defaultdict

from referee.cli import main
from tournament.dashboard import Feed
from tournament.simtable import SimulatedTable, game_lines

from .test_broker import wait_until


def test_table_runs_publish_through_an_outage_and_keep_counting(broker, tmp_path,
                                                                capsys) -> None:
    creds = str(broker.init.credentials["table-2"])
    spool = str(tmp_path / "spool")
    lines, rules = game_lines(1)
    ref = SimulatedTable(lines, rules, [], speed=0)
    ref.run()
    n = len(ref.rulings)
    broker.stop()
    # No broker: the game is refereed all the same and queued on disk.
    assert main(["tournament", "table", "--credentials", creds, "--spool", spool,
                 "--seed", "1", "--speed", "0", "--drain", "0.5"]) == 1
    assert f"{n} still queued" in capsys.readouterr().out
    broker.start()
    applied = defaultdict(list)
    feed = Feed(broker.cred("dashboard"), broker.address, None,
                on_applied=lambda t, rs: applied[t].extend(rs))
    feed.start()
    assert wait_until(lambda: feed.subscribed, 10)  # else the rulings are not the feed's
    log = tmp_path / "game.jsonl"
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    try:
        # The second run (a recorded log this time) sends the queued game first, then its own.
        assert main(["tournament", "table", "--credentials", creds, "--spool", spool,
                     "--log", str(log), "--speed", "0"]) == 0
        assert f"seq up to {2 * n}" in capsys.readouterr().out
        assert wait_until(lambda: len(applied["table-2"]) == 2 * n, 10)
    finally:
        feed.stop()
    want = [r.to_json() for r in ref.rulings]
    assert applied["table-2"] == want + want
    rec = feed.standings.tables["table-2"]
    assert [g.finished for g in rec.games] == [True, True]


def test_table_refuses_the_dashboard_credentials(broker, tmp_path, capsys) -> None:
    assert main(["tournament", "table", "--credentials",
                 str(broker.init.credentials["dashboard"]), "--spool",
                 str(tmp_path / "s")]) == 1
    assert "table" in capsys.readouterr().err
