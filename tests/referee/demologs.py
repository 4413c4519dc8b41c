"""The demo log excerpts in tests/referee/logs: each a stretch of a real `demo` game's camera
log that once showed the monitor missing or doubting a move (the test that reads it says
which), replayed through a fresh Monitor."""
from __future__ import annotations

from pathlib import Path

from referee.monitor import Monitor
from referee.rulings import Ruling

LOGS = Path(__file__).parent / "logs"


def demo_log_monitor(name: str) -> tuple[Monitor, list[Ruling]]:
    """A fresh Monitor fed `logs/<name>.jsonl`, and every ruling it made, in order."""
    monitor = Monitor()
    rulings = [r for line in (LOGS / f"{name}.jsonl").read_text().splitlines()
               for r in monitor.feed(line)]
    return monitor, rulings


def demo_log_rulings(name: str) -> list[Ruling]:
    """Every ruling a fresh Monitor makes on `logs/<name>.jsonl`, in order."""
    return demo_log_monitor(name)[1]
