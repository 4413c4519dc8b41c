"""MQTT topic names and the message shapes a table publishes (issue 7).

`spit/<event>/<table>/rulings`: one message per ruling, QoS 1, in order:
    {"stream": "<id>", "seq": n, "table": "table-3", "ruling": {DESIGN.md ruling object},
     "sent": wall-clock seconds when first queued}
`seq` counts from 1 per table and per stream (a spool folder: a table whose spool is wiped
starts a new stream id, so a subscriber never mistakes its new seq 1 for a duplicate).
`spit/<event>/<table>/state`: the table's compact state (retained), the latest one wins.

Names are single topic levels: MQTT wildcards (`+`, `#`) and `/` would let a table's
credentials reach another table's topics, so they are refused.
"""
from __future__ import annotations

import re

from referee.errors import UserError

ROOT = "spit"
RULINGS = "rulings"
STATE = "state"
# Letters, digits, `-`, `_`, `.`: safe as one topic level, a file name and a user name.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class TopicNameError(UserError, ValueError):
    """An event or table name that cannot be one MQTT topic level."""


def check_name(name: str, what: str = "name") -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise TopicNameError(
            f"{what} {name!r} is not usable: use 1-64 letters, digits, '-', '_' or '.', "
            "starting with a letter or digit (no spaces, '/', '+' or '#')")
    return name


def table_name(k: int) -> str:
    """The name of table k (1-based), as `tournament init` assigns them."""
    return f"table-{k}"


def table_prefix(event: str, table: str) -> str:
    return f"{ROOT}/{check_name(event, 'event')}/{check_name(table, 'table')}"


def rulings_topic(event: str, table: str) -> str:
    return f"{table_prefix(event, table)}/{RULINGS}"


def state_topic(event: str, table: str) -> str:
    return f"{table_prefix(event, table)}/{STATE}"


def event_filter(event: str, kind: str) -> str:
    """The subscription for one kind of message from every table of an event."""
    return f"{ROOT}/{check_name(event, 'event')}/+/{kind}"


def parse_topic(topic: str) -> tuple[str, str, str] | None:
    """`spit/<event>/<table>/<kind>` → (event, table, kind); None for any other topic."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != ROOT or parts[3] not in (RULINGS, STATE):
        return None
    return parts[1], parts[2], parts[3]
