"""The demo log excerpts in tests/referee/logs: each a stretch of a real `demo` game's camera
log that once showed the monitor missing or doubting a move (the test that reads it says
which), replayed through a fresh Monitor."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from referee.monitor import Monitor
from referee.rulings import Ruling

LOGS = Path(__file__).parent / "logs"


def demo_log_monitor(name: str, edits: Mapping[str, str] | None = None
                     ) -> tuple[Monitor, list[Ruling]]:
    """A fresh Monitor fed `logs/<name>.jsonl`, and every ruling it made, in order. `edits`
    replaces lines of the log (each must be there): the same game with a frame's reading
    changed."""
    lines = (LOGS / f"{name}.jsonl").read_text().splitlines()
    for old, new in (edits or {}).items():
        assert lines.count(old) == 1, f"not one line {old!r} in {name}"
        lines[lines.index(old)] = new
    monitor = Monitor()
    return monitor, [r for line in lines for r in monitor.feed(line)]


def demo_log_rulings(name: str, edits: Mapping[str, str] | None = None) -> list[Ruling]:
    """Every ruling a fresh Monitor makes on `logs/<name>.jsonl` (with `edits`), in order."""
    return demo_log_monitor(name, edits)[1]
