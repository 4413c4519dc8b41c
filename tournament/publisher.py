"""A table's referee publishing to the tournament broker: a `RefereeSession` sink.

`TablePublisher.announce(ruling)` is called on the referee's thread for every ruling. It only
appends the message to the on-disk spool (tournament.spool: one buffered write, no network, no
fsync) and wakes the sender thread, so the referee never waits for the network. The sender
thread fsyncs the spool, then publishes each message on `spit/<event>/<table>/rulings` with
QoS 1, in seq order, and moves the spool's acknowledged mark as the broker's PUBACKs arrive.
The table's compact state (standings.Game of the current game, seq, spool counts) goes to
`spit/<event>/<table>/state`, retained, after every change.

When the broker is unreachable the referee goes on and the spool grows (bounded); the sender
retries every `RETRY_MAX_S` at most, and on reconnecting sends from the first unacknowledged seq,
in order. Each connection is a fresh paho client, so paho never replays its own in-memory queue
behind ours. A broker that dies may have acknowledged messages it had not yet passed on (or
saved): after a lost connection, the messages acknowledged in the last `RESEND_WINDOW_S` are
sent again. Subscribers drop duplicates by seq (tournament.standings), so nothing is lost and
nothing is applied twice. Slap decisions are made at the table (referee.slaps); the broker only
carries the results.
"""
from __future__ import annotations

import json
import os
import ssl
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.rulings import Ruling
from tournament.credentials import Credentials, parse_broker
from tournament.spool import DEFAULT_MAX_PENDING, Spool
from tournament.standings import TableRecord
from tournament.topics import check_name, rulings_topic, state_topic

# Unacknowledged messages in flight at once: enough to keep a loopback or LAN link busy, few
# enough that a lost connection resends little.
WINDOW = 64
# Reconnect backoff (seconds): first retry soon, then at most every RETRY_MAX_S, so a table is
# back within about a second of the broker.
RETRY_MIN_S = 0.1
RETRY_MAX_S = 1.0
# How long a connection attempt may take before it counts as failed (seconds).
CONNECT_TIMEOUT_S = 3.0
# MQTT keepalive (seconds): a dead broker is noticed within 1.5 keepalives at worst.
KEEPALIVE_S = 5
# Messages acknowledged this recently (seconds) before a lost connection are sent again: a
# broker killed mid-flight may have acknowledged them without delivering them.
RESEND_WINDOW_S = 2.0
# The sender wakes at least this often (seconds) to notice a dropped connection.
IDLE_WAKE_S = 0.2


@dataclass(frozen=True)
class PublisherConfig:
    event: str
    table: str
    host: str = "127.0.0.1"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    cafile: str | None = None
    spool: Path = Path("spit-spool")
    max_pending: int = DEFAULT_MAX_PENDING

    @classmethod
    def from_credentials(cls, cred: Credentials, spool: str | os.PathLike[str],
                         broker: str | None = None) -> "PublisherConfig":
        host, port = parse_broker(broker or cred.broker)
        return cls(cred.event, cred.username, host, port, cred.username, cred.password,
                   cred.cafile, Path(spool))


@dataclass(frozen=True)
class PublisherStatus:
    connected: bool
    last_seq: int
    acked: int
    pending: int
    overflowed: int
    connects: int
    last_error: str | None


class TablePublisher:
    """Use as a RefereeSession sink; `close()` (or a `with` block) stops the sender thread."""

    def __init__(self, config: PublisherConfig) -> None:
        import paho.mqtt.client  # noqa: F401  (fail here, clearly, when it is not installed)

        self.config = config
        check_name(config.event, "event")
        check_name(config.table, "table")
        self.spool = Spool(config.spool, max_pending=config.max_pending)
        self._rulings_topic = rulings_topic(config.event, config.table)
        self._state_topic = state_topic(config.event, config.table)
        self._fold = TableRecord(config.table)
        self._fold_lock = threading.Lock()
        self._state_version = 0
        self._wake = threading.Condition()
        self._stop = threading.Event()
        self._connected = threading.Event()
        self._client: Any = None
        # Sender-thread state: paho mid → message (None for a state message), PUBACKed
        # messages waiting for a lower seq, and (acknowledged at, message) of recent ones.
        self._inflight: dict[int, dict[str, Any] | None] = {}
        self._acked_seqs: dict[int, dict[str, Any]] = {}
        self._recent: deque[tuple[float, dict[str, Any]]] = deque()
        self._acks: deque[int] = deque()  # mids from paho's thread (deque appends are atomic)
        self.connects = 0
        self.last_error: str | None = None
        self._thread = threading.Thread(target=self._run, name=f"publish-{config.table}",
                                        daemon=True)
        self._thread.start()

    # --- the referee's side (never blocks on the network) --------------------------------------

    def announce(self, ruling: Ruling) -> None:
        msg = self.spool.append(self.config.table, ruling.to_json(), time.time())
        if msg is not None:
            with self._fold_lock:
                self._fold.add(msg)
                self._state_version += 1
        with self._wake:
            self._wake.notify()

    def status(self) -> PublisherStatus:
        s = self.spool.stats()
        return PublisherStatus(self._connected.is_set(), s.last_seq, s.acked, s.pending,
                               s.overflowed, self.connects, self.last_error)

    def wait_sent(self, timeout: float) -> bool:
        """Wait until the broker has acknowledged every spooled message (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            s = self.spool.stats()
            if s.pending == 0:
                return True
            time.sleep(0.02)
        return self.spool.stats().pending == 0

    def close(self, drain_s: float = 0.0) -> None:
        """Stop the sender (after up to `drain_s` seconds of sending what is queued). Whatever
        is still unsent stays in the spool and goes out when the table publishes again."""
        if drain_s > 0:
            self.wait_sent(drain_s)
        self._stop.set()
        with self._wake:
            self._wake.notify()
        self._thread.join(timeout=CONNECT_TIMEOUT_S + 2)
        if not self._thread.is_alive():
            self._drop_client()
        self.spool.close()

    def __enter__(self) -> "TablePublisher":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the sender thread (the only one that touches the client and the in-flight map) ---------

    def _run(self) -> None:
        delay = RETRY_MIN_S
        sent_upto = 0
        state_sent: tuple | None = None
        while not self._stop.is_set():
            if not self._connected.is_set():
                if self._client is not None:
                    self._lost()
                if not self._connect():
                    self._stop.wait(delay)
                    delay = min(RETRY_MAX_S, delay * 2)
                    continue
                delay = RETRY_MIN_S
                try:
                    sent_upto = self._resend_recent()
                except (OSError, ValueError, RuntimeError) as exc:
                    self.last_error = f"publish failed: {exc}"
                    self._connected.clear()
                    continue
                state_sent = None
            try:
                self._take_acks()
                sent_upto = self._send_rulings(sent_upto)
                state_sent = self._send_state(state_sent)
            except (OSError, ValueError, RuntimeError) as exc:
                self.last_error = f"publish failed: {exc}"
                self._connected.clear()
                continue
            with self._wake:
                if not self._stop.is_set() and not self._has_work(sent_upto, state_sent):
                    self._wake.wait(IDLE_WAKE_S)

    def _has_work(self, sent_upto: int, state_sent: tuple | None) -> bool:
        if not self._connected.is_set() or self._acks:
            return True
        if self._state_key() != state_sent:
            return True
        return len(self._inflight) < WINDOW and bool(self.spool.pending(sent_upto, 1))

    def _send_rulings(self, sent_upto: int) -> int:
        room = WINDOW - len(self._inflight)
        if room <= 0:
            return sent_upto
        batch = self.spool.pending(max(sent_upto, self.spool.acked), room)
        if not batch:
            return sent_upto
        self.spool.sync()  # on disk before anyone hears it
        for msg in batch:
            self._publish_ruling(msg)
            sent_upto = msg["seq"]
        return sent_upto

    def _publish_ruling(self, msg: dict[str, Any]) -> None:
        payload = json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
        info = self._client.publish(self._rulings_topic, payload, qos=1)
        if info.rc != 0:
            raise RuntimeError(f"paho error {info.rc}")
        self._inflight[info.mid] = msg

    def _state_key(self) -> tuple[int, bool]:
        # A new state after every ruling, and once more when the spool empties or starts
        # to fill, so the retained state never keeps saying rulings are queued.
        return self._state_version, self.spool.stats().pending == 0

    def _send_state(self, state_sent: tuple | None) -> tuple | None:
        version = self._state_key()
        if version == state_sent:
            return state_sent
        with self._fold_lock:
            state = self._fold.to_json()
        s = self.spool.stats()
        state.pop("state", None)
        state["event"] = self.config.event
        state["spool"] = {"pending": s.pending, "overflowed": s.overflowed}
        state["updated"] = time.time()
        info = self._client.publish(self._state_topic, json.dumps(state, ensure_ascii=False),
                                    qos=1, retain=True)
        if info.rc != 0:
            raise RuntimeError(f"paho error {info.rc}")
        self._inflight[info.mid] = None
        return version

    def _take_acks(self) -> None:
        """Turn the PUBACKs received so far into the spool's acknowledged mark."""
        acked = self.spool.acked
        while self._acks:
            msg = self._inflight.pop(self._acks.popleft(), None)
            if msg is not None and msg["seq"] > acked:
                self._acked_seqs[msg["seq"]] = msg
        new = acked
        done = []
        while new + 1 in self._acked_seqs:
            new += 1
            done.append(self._acked_seqs.pop(new))
        if new > acked:
            self.spool.acknowledge(new)
            now = time.monotonic()
            self._recent.extend((now, m) for m in done)
            self._trim_recent(now)

    def _trim_recent(self, now: float) -> None:
        while self._recent and now - self._recent[0][0] > RESEND_WINDOW_S:
            self._recent.popleft()

    def _resend_recent(self) -> int:
        """After a lost connection: send again what was acknowledged just before the loss.
        Returns the seq the sending resumes after."""
        recent = [m for _, m in self._recent]
        self._recent.clear()
        for msg in recent:
            self._publish_ruling(msg)
        return self.spool.acked

    # --- connection ---------------------------------------------------------------------------

    def _connect(self) -> bool:
        import paho.mqtt.client as mqtt

        cfg = self.config
        done = threading.Event()
        result: dict[str, Any] = {}
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                             client_id=f"spit-{cfg.event}-{cfg.table}", clean_session=True,
                             reconnect_on_failure=False)
        if cfg.username:
            client.username_pw_set(cfg.username, cfg.password)
        if cfg.cafile:
            client.tls_set(ca_certs=cfg.cafile, cert_reqs=ssl.CERT_REQUIRED)
        client.max_inflight_messages_set(WINDOW + 1)  # our window plus one state message
        client.connect_timeout = CONNECT_TIMEOUT_S

        def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
            result["reason"] = reason
            done.set()

        def on_disconnect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
            if self._client is c:
                self._connected.clear()
                with self._wake:
                    self._wake.notify()

        def on_publish(c: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
            # Called with paho's message lock held: only hand the mid to the sender thread.
            if self._client is c:
                self._acks.append(mid)
                with self._wake:
                    self._wake.notify()

        client.on_connect = on_connect
        client.on_disconnect = on_disconnect
        client.on_publish = on_publish
        try:
            client.connect(cfg.host, cfg.port, keepalive=KEEPALIVE_S)
        except (OSError, ssl.SSLError, ValueError) as exc:
            self.last_error = f"broker {cfg.host}:{cfg.port} unreachable: {exc}"
            return False
        self._inflight.clear()
        self._acked_seqs.clear()
        self._acks.clear()
        self._client = client
        client.loop_start()
        if not done.wait(CONNECT_TIMEOUT_S) or result["reason"].is_failure:
            reason = result.get("reason")
            self.last_error = (f"broker refused the connection: {reason} (check the "
                               "credentials file)" if reason is not None
                               else "broker did not answer the connection")
            self._drop_client()
            return False
        self._connected.set()
        self.connects += 1
        self.last_error = None
        return True

    def _lost(self) -> None:
        """The connection dropped: keep the recently acknowledged messages for a resend."""
        self._take_acks()
        self._trim_recent(time.monotonic())
        self._drop_client()

    def _drop_client(self) -> None:
        client, self._client = self._client, None
        self._connected.clear()
        if client is not None:
            try:
                client.disconnect()  # first: it wakes paho's loop, so loop_stop returns at once
            except (OSError, ValueError):
                pass
            client.loop_stop()
