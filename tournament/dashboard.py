"""`spit-referee tournament serve`: the event's live picture, from the broker to a web page.

`Feed` subscribes (paho-mqtt, QoS 1, a persistent session so the broker keeps the messages of a
short outage) to every table's rulings and state, applies them to `standings.Standings`
exactly once and in order, and appends each new ruling message to a journal
(`<data>/journal.jsonl`) so a restarted dashboard rebuilds its standings before it listens
again. It also measures the lag from a ruling's first publication (`sent`, the table's wall
clock) to the standings update.

`make_app` is the web side (Bottle, one file, WSGI): `/` the page (plain HTML and a few lines of
JS polling `/api/state` every second), `/api/state` everything the page shows, `/results.json`,
`/results.csv` (one row per game) and `/standings.csv` (one row per seat). `Dashboard` serves it
with a threaded wsgiref server.
"""
from __future__ import annotations

import csv
import io
import json
import os
import socketserver
import ssl
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from referee.errors import UserError
from tournament.credentials import Credentials, parse_broker
from tournament.standings import RESULT_COLUMNS, SEAT_COLUMNS, Standings
from tournament.topics import RULINGS, STATE, event_filter, parse_topic

PAGE = Path(__file__).with_name("static") / "dashboard.html"
JOURNAL = "journal.jsonl"
# Lag samples kept for /api/state and the bench.
LAG_SAMPLES = 10_000
# Reconnect backoff to the broker (seconds): back within a second of a broker restart.
RECONNECT_MIN_S = 0.1
RECONNECT_MAX_S = 1.0
KEEPALIVE_S = 5


class DashboardError(UserError):
    """The dashboard cannot start; the message says what to do."""


@dataclass(frozen=True)
class FeedStatus:
    connected: bool
    messages: int
    applied: int
    duplicates: int
    last_error: str | None
    # The broker acknowledged the subscriptions: from here it keeps every message for the
    # dashboard, even while it is away (a persistent session). Before, a table's rulings are
    # lost to it, so a tournament starts its tables once this is true.
    subscribed: bool = False


class Feed:
    """The standings kept up to date from the broker. Thread-safe reads via `snapshot`."""

    def __init__(self, cred: Credentials, broker: str | None = None,
                 data: str | os.PathLike[str] | None = None,
                 on_applied: Callable[[str, list[dict[str, Any]]], None] | None = None) -> None:
        self.cred = cred
        self.event = cred.event
        self.host, self.port = parse_broker(broker or cred.broker)
        self.standings = Standings(cred.event)
        self.lock = threading.Lock()
        self.lags: deque[float] = deque(maxlen=LAG_SAMPLES)
        self.received: dict[str, float] = {}  # table → wall time of its last message
        self.messages = 0
        self.connected = False
        self.subscribed = False
        self.last_error: str | None = None
        self.updates = 0  # bumped on every change
        # Called (under the lock, on paho's thread) with each table's newly applied rulings.
        self.on_applied = on_applied
        self._journal = None
        self._client: Any = None
        if data is not None:
            folder = Path(data)
            try:
                folder.mkdir(parents=True, exist_ok=True)
                self._replay_journal(folder / JOURNAL)
                self._journal = open(folder / JOURNAL, "a", encoding="utf-8")
            except OSError as exc:
                raise DashboardError(f"cannot use the data folder {folder}: {exc.strerror}; "
                                     "give a writable one with --data DIR") from None

    # --- the journal --------------------------------------------------------------------------

    def _replay_journal(self, path: Path) -> None:
        if not path.exists():
            return
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    obj = json.loads(line)
                    self.standings.add(obj["table"], obj)
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line after a crash

    # --- the subscriber -----------------------------------------------------------------------

    def start(self) -> None:
        import paho.mqtt.client as mqtt

        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                             client_id=f"spit-dashboard-{self.event}", clean_session=False)
        client.username_pw_set(self.cred.username, self.cred.password)
        if self.cred.cafile:
            client.tls_set(ca_certs=self.cred.cafile, cert_reqs=ssl.CERT_REQUIRED)
        client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        self._client = client
        try:
            client.connect_async(self.host, self.port, keepalive=KEEPALIVE_S)
        except (OSError, ValueError) as exc:
            raise DashboardError(f"cannot reach the broker {self.host}:{self.port}: {exc}") \
                from None
        client.loop_start()

    def stop(self) -> None:
        if self._client is not None:
            self._client.disconnect()
            self._client.loop_stop()
            self._client = None
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    props: Any) -> None:
        if reason.is_failure:
            self.last_error = (f"the broker refused the dashboard: {reason} (check "
                               "--credentials: it must be dashboard.json from `tournament init`)")
            return
        self.connected = True
        self.last_error = None
        # Subscribe every time: a broker restarted without its saved state has no session.
        self.subscribed = False
        client.subscribe([(event_filter(self.event, RULINGS), 1),
                          (event_filter(self.event, STATE), 1)])

    def _on_subscribe(self, client: Any, userdata: Any, mid: Any, reason_codes: Any,
                      props: Any) -> None:
        refused = [str(r) for r in reason_codes if r.is_failure]
        if refused:
            self.last_error = (f"the broker refused the dashboard's subscriptions: "
                               f"{', '.join(refused)} (check the broker's ACL from `tournament "
                               "init`)")
            return
        self.subscribed = True

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       props: Any) -> None:
        self.connected = False
        self.subscribed = False

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        parsed = parse_topic(msg.topic)
        if parsed is None or parsed[0] != self.event:
            return
        _, table, kind = parsed
        try:
            obj = json.loads(msg.payload)
        except ValueError:
            return
        if not isinstance(obj, dict):
            return
        self.handle(table, kind, obj)

    def handle(self, table: str, kind: str, obj: dict[str, Any]) -> None:
        """One decoded message (also the entry point the tests feed directly)."""
        now = time.time()
        with self.lock:
            self.messages += 1
            self.received[table] = now
            if kind == STATE:
                self.standings.set_state(table, obj)
                self.updates += 1
                return
            rec = self.standings.record(table)
            before = (rec.next_seq, len(rec.held), rec.stream)
            try:
                applied = rec.add(obj)
            except ValueError:
                return
            if (rec.next_seq, len(rec.held), rec.stream) == before:
                return  # a duplicate
            if self._journal is not None:
                self._journal.write(json.dumps({"table": table} | obj, ensure_ascii=False)
                                    + "\n")
                self._journal.flush()
            sent = obj.get("sent")
            if applied and isinstance(sent, (int, float)):
                # Measured for the message that completed the update (the latest to arrive).
                self.lags.append(now - float(sent))
            self.updates += 1
            if applied and self.on_applied is not None:
                self.on_applied(table, applied)

    # --- reading ------------------------------------------------------------------------------

    def status(self) -> FeedStatus:
        with self.lock:
            applied = sum(r.applied for r in self.standings.tables.values())
            dups = sum(r.duplicates for r in self.standings.tables.values())
        return FeedStatus(self.connected, self.messages, applied, dups, self.last_error,
                          self.subscribed)

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            out = self.standings.to_json()
            received = dict(self.received)
            lags = list(self.lags)[-200:]
        now = time.time()
        for t in out["tables"]:
            t["received_ago_s"] = round(now - received[t["table"]], 3) \
                if t["table"] in received else None
        out["now"] = now
        out["broker"] = {"host": self.host, "port": self.port, "connected": self.connected,
                         "subscribed": self.subscribed, "error": self.last_error}
        out["lag_s"] = {"last": round(lags[-1], 4) if lags else None,
                        "max_recent": round(max(lags), 4) if lags else None}
        return out


# --- the web side -------------------------------------------------------------------------------

def make_app(feed: Feed) -> Any:
    import bottle

    app = bottle.Bottle()

    @app.get("/")
    def page() -> Any:
        bottle.response.content_type = "text/html; charset=utf-8"
        return PAGE.read_text(encoding="utf-8")

    @app.get("/api/state")
    def api_state() -> Any:
        bottle.response.set_header("Cache-Control", "no-store")
        return feed.snapshot()

    @app.get("/results.json")
    def results_json() -> Any:
        snap = feed.snapshot()
        return {"event": snap["event"], "standings": snap["standings"], "games": snap["games"]}

    @app.get("/results.csv")
    def results_csv() -> str:
        return _csv(feed.snapshot()["games"], RESULT_COLUMNS, f"{feed.event}-results.csv")

    @app.get("/standings.csv")
    def standings_csv() -> str:
        return _csv(feed.snapshot()["standings"], SEAT_COLUMNS, f"{feed.event}-standings.csv")

    def _csv(rows: list[dict[str, Any]], columns: tuple[str, ...], name: str) -> str:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow({k: "" if row.get(k) is None else row[k] for k in columns})
        bottle.response.content_type = "text/csv; charset=utf-8"
        bottle.response.set_header("Content-Disposition", f'attachment; filename="{name}"')
        return buf.getvalue()

    return app


class _ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:  # one line per poll would drown the console
        pass


class Dashboard:
    """The feed plus its web server; `start()` runs both in background threads."""

    def __init__(self, feed: Feed, bind: str = "127.0.0.1", port: int = 8080) -> None:
        self.feed = feed
        try:
            self.server = make_server(bind, port, make_app(feed), server_class=_ThreadingServer,
                                      handler_class=_QuietHandler)
        except OSError as exc:
            raise DashboardError(f"cannot serve on {bind}:{port}: {exc.strerror}; choose "
                                 "another --port") from None
        self.port = self.server.server_address[1]
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.feed.start()
        self._thread = threading.Thread(target=self.server.serve_forever, name="dashboard-web",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.feed.stop()
