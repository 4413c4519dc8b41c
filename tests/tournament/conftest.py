"""Fixtures for the tournament tests: a real Mosquitto on a loopback port with the generated
configuration, and the programs the tests run (skipped when absent, failed under CI=true)."""
from __future__ import annotations

import os
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import need_program  # noqa: F401 (the tournament tests import it here)
from tournament.brokerconf import InitResult, init_event
from tournament.credentials import Credentials, load

EVENT = "test-open"
BROKER_START_S = 5.0  # a loopback broker answers within milliseconds; this is the give-up time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.02)
    return False


@dataclass
class Broker:
    """A real Mosquitto started from `tournament init`'s files."""

    program: str
    init: InitResult
    port: int
    proc: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def cred(self, user: str) -> Credentials:
        return load(self.init.credentials[user])

    def start(self) -> None:
        self.proc = subprocess.Popen([self.program, "-c", str(self.init.config)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not wait_port(self.port, BROKER_START_S):
            self.proc.kill()
            err = self.proc.communicate()[1].decode(errors="replace")
            pytest.fail(f"mosquitto did not start with the generated config: {err}")

    def kill(self) -> None:
        """SIGKILL: no chance to save or to say goodbye."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=5)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
            self.proc = None


def make_broker(tmp_path: Path, tables: int = 3, **kw) -> Broker:
    program = need_program("mosquitto")
    port = free_port()
    run_as = "root" if os.geteuid() == 0 else None  # pytest's tmp folders are private to us
    init = init_event(EVENT, tables, tmp_path / "broker", port=port, run_as=run_as, **kw)
    return Broker(program, init, port)


@pytest.fixture
def broker(tmp_path: Path):
    b = make_broker(tmp_path)
    b.start()
    yield b
    b.stop()
