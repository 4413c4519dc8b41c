"""`spit-referee tournament serve` end to end: refereed games published to a real Mosquitto,
the page read by headless Chromium for the standings it shows, and the CSV/JSON exports."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import time
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

from tournament.publisher import PublisherConfig, TablePublisher
from tournament.simtable import SimulatedTable, game_lines

from .conftest import EVENT, free_port, need_program, wait_port

GAMES = {"table-1": 1, "table-2": 7}  # seed per table: P1 wins game 1, P2 wins game 7
CHROMIUM_TIMEOUT_S = 40


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.read()


class StandingsRows(HTMLParser):
    """The cells of each `<tr data-table data-seat>` of the standings table."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[tuple[str, str], list[str]] = {}
        self._key = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "data-seat" in a:
            self._key = (a["data-table"], a["data-seat"])
            self.rows[self._key] = []
        elif tag == "td" and self._key:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._key and self._cell is not None:
            self.rows[self._key].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr":
            self._key = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_dashboard_page_shows_the_standings_in_chromium(broker, tmp_path: Path) -> None:
    chromium = need_program("chromium")
    port = free_port()
    serve = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "tournament", "serve", "--event", EVENT,
         "--broker", broker.address, "--credentials", str(broker.init.credentials["dashboard"]),
         "--port", str(port), "--data", str(tmp_path / "dash")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert wait_port(port, 10), serve.stderr.read1().decode() if serve.poll() else ""
        # A table's rulings published before the broker acknowledged the dashboard's
        # subscriptions are not kept for it: under the whole suite on two cores the dashboard
        # once subscribed after both games were sent, and never showed them.
        deadline = time.monotonic() + 20
        while not json.loads(get(f"http://127.0.0.1:{port}/api/state"))["broker"]["subscribed"]:
            assert time.monotonic() < deadline, "the dashboard never subscribed"
            time.sleep(0.1)
        tables = {}
        for name, seed in GAMES.items():
            lines, rules = game_lines(seed)
            cfg = PublisherConfig.from_credentials(broker.cred(name), tmp_path / name,
                                                   broker.address)
            with TablePublisher(cfg) as pub:
                tables[name] = SimulatedTable(lines, rules, [pub], speed=0)
                tables[name].run()
                assert pub.wait_sent(10)
        winners = {n: t.rulings[-1].extra["winner"] for n, t in tables.items()}
        assert winners == {"table-1": "p1", "table-2": "p2"}

        def finished() -> bool:
            state = json.loads(get(f"http://127.0.0.1:{port}/api/state"))
            return sum(t["games_played"] for t in state["tables"]) == len(GAMES)

        # Generous: under the whole suite on two cores the broker and the dashboard's reader
        # share the machine with pytest, and 10 s was once not enough.
        deadline = time.monotonic() + 30
        while not finished():
            assert time.monotonic() < deadline, "the dashboard never showed both games"
            time.sleep(0.1)

        dom = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--no-first-run", f"--user-data-dir={tmp_path / 'chromium'}",
             "--virtual-time-budget=5000", "--dump-dom", f"http://127.0.0.1:{port}/"],
            capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT_S).stdout
        rows = StandingsRows()
        rows.feed(dom)
        # Columns: rank, table, seat, games, wins, losses, draws, points, ...
        assert set(rows.rows) == {(t, p) for t in GAMES for p in ("p1", "p2")}, dom[:2000]
        for table, winner in winners.items():
            for seat in ("p1", "p2"):
                cells = rows.rows[(table, seat)]
                assert cells[1:3] == [table, seat.upper()]
                assert cells[3] == "1"  # games
                assert cells[4] == ("1" if seat == winner else "0")  # wins
                assert cells[5] == ("0" if seat == winner else "1")  # losses
        winners_first = [k for k in rows.rows][:2]
        assert set(winners_first) == {(t, w) for t, w in winners.items()}
        assert 'data-table="table-1"' in dom and "game-over" in dom

        games = list(csv.DictReader(io.StringIO(
            get(f"http://127.0.0.1:{port}/results.csv").decode())))
        assert [(g["table"], g["status"], g["winner"]) for g in games] == \
            [("table-1", "finished", "p1"), ("table-2", "finished", "p2")]
        last_round = {n: [r for r in t.rulings if r.kind.value == "round-over"][-1]
                      for n, t in tables.items()}
        for g in games:
            assert int(g["p1_cards"]) == last_round[g["table"]].extra["cards"]["p1"]
        seats = list(csv.DictReader(io.StringIO(
            get(f"http://127.0.0.1:{port}/standings.csv").decode())))
        assert {(s["table"], s["seat"]) for s in seats[:2]} == set(winners.items())
        results = json.loads(get(f"http://127.0.0.1:{port}/results.json"))
        assert [g["winner"] for g in results["games"]] == ["p1", "p2"]
    finally:
        serve.terminate()
        serve.wait(timeout=10)
