"""The live terminal view of `run` and `demo`: the table as read, the last rulings, the round
clock and the card counts, drawn with rich (a full-screen `Live` on a terminal). Where the
output is not a terminal (a pipe, CI, a log file), it prints one plain line per ruling instead.
"""
from __future__ import annotations

import sys
import time
from collections import deque
from typing import TextIO

from referee.monitor import Monitor
from referee.rulings import Ruling, RulingKind
from referee.zones import PLAYERS, SPIT_PILES, STOCK_ZONES

LAST_RULINGS = 8
# Redraw at most this often (seconds of wall time): the eye needs no more, the referee's loop
# should not spend its frame budget on drawing.
REDRAW_S = 0.2
_STYLE = {RulingKind.ILLEGAL: "bold red", RulingKind.FALSE_SPIT: "bold red",
          RulingKind.FALSE_SLAP: "bold red", RulingKind.WARNING: "yellow",
          RulingKind.SPIT_CALL: "bold cyan", RulingKind.SLAP_CALL: "bold magenta",
          RulingKind.SLAP_RESULT: "magenta", RulingKind.ROUND_OVER: "bold green",
          RulingKind.GAME_OVER: "bold green"}
_SUIT = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def _reading(code: str) -> str:
    if code in ("?", "back", "empty"):
        return {"?": "?", "back": "▒▒", "empty": "·"}[code]
    return code[:-1] + _SUIT.get(code[-1], code[-1])


class PlainView:
    """One line per ruling on a stream; used when the output is not a terminal. Each line
    starts with the game's clock, minutes and seconds since the first ruling (the log keeps
    the camera's clock, seconds since the machine started)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self._t0: float | None = None

    def __enter__(self) -> "PlainView":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def announce(self, ruling: Ruling) -> None:
        if self._t0 is None:
            self._t0 = ruling.t
        minutes, seconds = divmod(max(0.0, ruling.t - self._t0), 60)
        print(f"{int(minutes):3d}:{seconds:04.1f}  {ruling.words()}", file=self.stream,
              flush=True)

    def update(self, monitor: Monitor, t: float, status: str = "") -> None:
        pass


class LiveView:
    """A rich `Live` display redrawn from the monitor's state."""

    def __init__(self, title: str = "spit-referee", console=None) -> None:
        from rich.console import Console
        from rich.live import Live

        self.title = title
        self.console = console or Console()
        self.rulings: deque[Ruling] = deque(maxlen=LAST_RULINGS)
        self._live = Live(console=self.console, auto_refresh=False, transient=False)
        self._drawn = 0.0
        self._round_t0: float | None = None

    def __enter__(self) -> "LiveView":
        self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._live.__exit__(*exc)

    def announce(self, ruling: Ruling) -> None:
        self.rulings.append(ruling)
        if ruling.kind is RulingKind.DEAL or self._round_t0 is None:
            self._round_t0 = ruling.t
        if ruling.kind is RulingKind.ROUND_OVER:
            self._round_t0 = None

    def update(self, monitor: Monitor, t: float, status: str = "", force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._drawn < REDRAW_S:
            return
        self._drawn = now
        self._live.update(self._render(monitor, t, status), refresh=True)

    def _render(self, monitor: Monitor, t: float, status: str):
        from rich.console import Group
        from rich.panel import Panel
        from rich.table import Table as RichTable
        from rich.text import Text

        reads = monitor.readings
        grid = RichTable.grid(padding=(0, 2))
        for _ in range(5):
            grid.add_column(justify="center", min_width=5)
        grid.add_row(*[_reading(reads[z]) for z in reversed(STOCK_ZONES["p2"])])
        grid.add_row("", _reading(reads[SPIT_PILES[0]]), "", _reading(reads[SPIT_PILES[1]]), "")
        grid.add_row(*[_reading(reads[z]) for z in STOCK_ZONES["p1"]])

        counts = Text()
        table = monitor.scene.table if monitor.scene is not None else None
        for p in PLAYERS:
            if table is not None:
                counts.append(f"{p.upper()}: stock {table.stock_count(p):2d}, spit cards "
                              f"{table.spit_hand[p]:2d}   ")
            else:
                counts.append(f"{p.upper()}: {monitor.game.counts.get(p, '?')} cards   ")
        clock = t - self._round_t0 if self._round_t0 is not None else 0.0
        head = Text(f"round {monitor.game.round}   clock {clock:6.1f} s   {status}")
        lines = Text()
        for r in self.rulings:
            lines.append(r.text() + "\n", style=_STYLE.get(r.kind, ""))
        return Panel(Group(head, Panel(grid, title="table as read"), counts,
                           Panel(lines, title="last rulings")), title=self.title)


def make_view(plain: bool | None = None, title: str = "spit-referee"):
    """A LiveView on a terminal, else a PlainView (or as asked)."""
    if plain is None:
        plain = not sys.stdout.isatty()
    return PlainView() if plain else LiveView(title)
