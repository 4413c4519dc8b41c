"""A referee's or the dashboard's broker credentials file (written by `tournament init`).

One JSON object, readable by its owner only (mode 0600):
    {"version": 1, "event": "spring-open", "role": "table" | "dashboard", "username": "table-3",
     "password": "...", "broker": "127.0.0.1:1883", "tls": {"cafile": "/path/ca.crt"} | null}
A table's user name is its table name: the broker's ACL lets it publish only under
`spit/<event>/<table>/#`; the dashboard's user can only read.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import UserError
from tournament.topics import check_name

ROLES = ("table", "dashboard")
DEFAULT_PORT = 1883
DEFAULT_TLS_PORT = 8883


class CredentialsError(UserError):
    """A credentials file that is missing or malformed; the message says how to fix it."""


@dataclass(frozen=True)
class Credentials:
    event: str
    role: str
    username: str
    password: str
    broker: str = f"127.0.0.1:{DEFAULT_PORT}"
    cafile: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"version": 1, "event": self.event, "role": self.role,
                "username": self.username, "password": self.password, "broker": self.broker,
                "tls": {"cafile": self.cafile} if self.cafile else None}


def parse_broker(text: str) -> tuple[str, int]:
    """`HOST:PORT` (or `HOST`, port 1883) → (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, str(DEFAULT_PORT)
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise CredentialsError(f"broker {text!r} is not HOST:PORT (e.g. 127.0.0.1:1883)")
    return host, int(port)


def save(cred: Credentials, path: str | os.PathLike[str]) -> None:
    path = Path(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(cred.to_json(), f, indent=2)
        f.write("\n")
    os.chmod(path, 0o600)  # an existing file keeps its old mode otherwise


def load(path: str | os.PathLike[str], role: str | None = None) -> Credentials:
    """Read and check a credentials file; `role` refuses the other kind of file."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise CredentialsError(f"credentials file {path} not found: `spit-referee tournament "
                               "init` writes one per table and one for the dashboard") from None
    except (OSError, ValueError) as exc:
        raise CredentialsError(f"credentials file {path} is not readable JSON ({exc}); "
                               "write it again with `spit-referee tournament init`") from None
    if not isinstance(data, dict) or data.get("version") != 1:
        raise CredentialsError(f"{path}: not a version-1 credentials file from "
                               "`spit-referee tournament init`")
    for key in ("event", "role", "username", "password"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise CredentialsError(f"{path}: field {key!r} is missing or empty; write the file "
                                   "again with `spit-referee tournament init`")
    if data["role"] not in ROLES:
        raise CredentialsError(f"{path}: role must be one of {', '.join(ROLES)}, "
                               f"got {data['role']!r}")
    if role is not None and data["role"] != role:
        raise CredentialsError(f"{path} holds {data['role']} credentials; this command needs "
                               f"the {role}'s file ({role}.json from `tournament init`)")
    check_name(data["event"], "event")
    check_name(data["username"], "user name")
    broker = data.get("broker") or f"127.0.0.1:{DEFAULT_PORT}"
    parse_broker(broker)
    tls = data.get("tls")
    cafile = tls.get("cafile") if isinstance(tls, dict) else None
    return Credentials(data["event"], data["role"], data["username"], data["password"],
                       broker, cafile)
