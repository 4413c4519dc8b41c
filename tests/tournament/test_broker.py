"""Tables → a real Mosquitto → the dashboard feed: exactly once and in order through a broker
killed mid-game, and the generated security (passwords, ACL) enforced by Mosquitto itself."""
from __future__ import annotations

import json
import threading
import time
from collections import defaultdict

from referee.rulings import Ruling, RulingKind
from tournament.dashboard import Feed
from tournament.publisher import PublisherConfig, TablePublisher
from tournament.simtable import SimulatedTable, game_lines
from tournament.topics import rulings_topic

from .conftest import make_broker

SEEDS = (1, 7, 8)  # three short standard games (122, 153 and 164 rulings)
# Each game is played 60 times faster than live: ~2.5 s a table, so the kill lands mid-game.
SPEED = 60.0
DELIVERY_TIMEOUT_S = 15.0


def wait_until(cond, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def publisher(broker, table: str, tmp_path) -> TablePublisher:
    cfg = PublisherConfig.from_credentials(broker.cred(table), tmp_path / f"spool-{table}",
                                           broker.address)
    return TablePublisher(cfg)


def test_every_ruling_arrives_once_in_order_through_a_broker_restart(broker, tmp_path) -> None:
    applied: dict[str, list[dict]] = defaultdict(list)
    feed = Feed(broker.cred("dashboard"), broker.address, tmp_path / "dash",
                on_applied=lambda t, rs: applied[t].extend(rs))
    feed.start()
    assert wait_until(lambda: feed.subscribed, 10)
    time.sleep(2.5)  # past the broker's autosave (2 s): the dashboard's session is on disk
    names = [f"table-{k}" for k in range(1, len(SEEDS) + 1)]
    pubs = {n: publisher(broker, n, tmp_path) for n in names}
    tables = {}
    for n, seed in zip(names, SEEDS):
        lines, rules = game_lines(seed)
        tables[n] = SimulatedTable(lines, rules, [pubs[n]], speed=SPEED)
    threads = [threading.Thread(target=tables[n].run, kwargs={"max_s": 30}) for n in names]
    for th in threads:
        th.start()
    time.sleep(0.8)
    broker.kill()  # mid-game, without warning
    time.sleep(1.0)
    during = {n: p.status() for n, p in pubs.items()}
    broker.start()
    for th in threads:
        th.join(timeout=30)
    try:
        for n in names:
            assert pubs[n].wait_sent(DELIVERY_TIMEOUT_S), pubs[n].status()
        want = {n: [r.to_json() for r in tables[n].rulings] for n in names}
        assert wait_until(lambda: all(len(applied[n]) >= len(want[n]) for n in names),
                          DELIVERY_TIMEOUT_S)
    finally:
        for p in pubs.values():
            p.close()
        feed.stop()
    # The tables kept refereeing while the broker was away, and queued on disk.
    assert all(not s.connected for s in during.values())
    assert sum(s.pending for s in during.values()) > 0
    for n in names:
        assert tables[n].rulings[-1].kind is RulingKind.GAME_OVER
        assert applied[n] == want[n]  # exactly once, in order
        rec = feed.standings.tables[n]
        assert rec.held == {} and rec.next_seq == len(want[n]) + 1
        assert rec.current.finished
        assert rec.current.winner == tables[n].rulings[-1].extra["winner"]
    # The table's retained state came through too, and no longer says rulings are queued.
    assert wait_until(lambda: all(feed.standings.tables[n].state["last_seq"] == len(want[n])
                                  and feed.standings.tables[n].state["spool"]["pending"] == 0
                                  for n in names), 5)


def test_a_restarted_dashboard_rebuilds_from_its_journal(broker, tmp_path) -> None:
    feed = Feed(broker.cred("dashboard"), broker.address, tmp_path / "dash")
    feed.start()
    # Rulings sent before the broker holds the dashboard's subscription are not its to keep
    # (FeedStatus.subscribed); a tournament starts its tables after this.
    assert wait_until(lambda: feed.subscribed, 10)
    pub = publisher(broker, "table-2", tmp_path)
    try:
        for i in range(5):
            pub.announce(Ruling(float(i), RulingKind.PLAY, player="p1", card="7H",
                                to="spit.left"))
        assert wait_until(lambda: "table-2" in feed.standings.tables
                          and feed.standings.tables["table-2"].applied == 5, 10)
    finally:
        pub.close()
        feed.stop()
    again = Feed(broker.cred("dashboard"), broker.address, tmp_path / "dash")
    rec = again.standings.tables["table-2"]
    assert rec.applied == 5 and rec.current.plays["p1"] == 5
    again.stop()


def _raw_client(broker, user: str, password: str | None = None):
    import paho.mqtt.client as mqtt

    cred = broker.cred(user)
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"raw-{user}")
    c.username_pw_set(cred.username, password if password is not None else cred.password)
    result = {}
    done = threading.Event()

    def on_connect(cl, ud, flags, reason, props):
        result["reason"] = reason
        done.set()

    c.on_connect = on_connect
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    assert done.wait(10)
    return c, result["reason"]


def test_acl_refuses_a_table_publishing_under_another_tables_topic(broker, tmp_path) -> None:
    seen: list[tuple[str, dict]] = []
    feed = Feed(broker.cred("dashboard"), broker.address, None,
                on_applied=lambda t, rs: seen.extend((t, r) for r in rs))
    feed.start()
    assert wait_until(lambda: feed.subscribed, 10)
    intruder, reason = _raw_client(broker, "table-1")
    dash, _ = _raw_client(broker, "dashboard")
    try:
        fake = {"stream": "x", "seq": 1, "ruling": {"t": 0, "ruling": "game-over",
                                                    "winner": "p1"}}
        intruder.publish(rulings_topic("test-open", "table-2"), json.dumps(fake), qos=1) \
            .wait_for_publish(5)
        dash.publish(rulings_topic("test-open", "table-3"), json.dumps(fake), qos=1) \
            .wait_for_publish(5)
        # Its own topic is allowed: once this arrives, the refused ones would have too.
        own = dict(fake, ruling={"t": 0, "ruling": "warning", "message": "hello"})
        intruder.publish(rulings_topic("test-open", "table-1"), json.dumps(own), qos=1) \
            .wait_for_publish(5)
        assert wait_until(lambda: any(t == "table-1" for t, _ in seen), 10)
        time.sleep(0.3)
    finally:
        for c in (intruder, dash):
            c.loop_stop()
            c.disconnect()
        feed.stop()
    assert [t for t, _ in seen] == ["table-1"]
    assert "table-2" not in feed.standings.tables and "table-3" not in feed.standings.tables


def test_a_wrong_password_is_refused_and_the_referee_goes_on(broker, tmp_path) -> None:
    client, reason = _raw_client(broker, "table-1", password="not-it")
    client.loop_stop()
    assert reason.is_failure
    cred = broker.cred("table-1")
    cfg = PublisherConfig(cred.event, cred.username, "127.0.0.1", broker.port, cred.username,
                          "not-it", None, tmp_path / "spool")
    with TablePublisher(cfg) as pub:
        pub.announce(Ruling(1.0, RulingKind.PLAY, player="p1", card="7H", to="spit.left"))
        assert wait_until(lambda: pub.status().last_error is not None, 10)
        st = pub.status()
        assert "refused" in st.last_error and st.pending == 1 and not st.connected


def test_a_python_hashed_password_file_works_with_mosquitto(tmp_path) -> None:
    b = make_broker(tmp_path, tables=1, use_mosquitto_passwd=False)
    assert b.init.hashed_with == "python"
    b.start()
    try:
        ok, reason = _raw_client(b, "table-1")
        ok.loop_stop()
        ok.disconnect()
        assert not reason.is_failure
    finally:
        b.stop()
