"""Tournament standings from the ruling streams of all tables: pure (no I/O, no clocks).

Each table's rulings arrive as messages `{"stream", "seq", "ruling"}` (tournament.topics), maybe
twice (QoS 1 resends after a broker restart) and maybe out of order. `TableRecord.add` applies
each ruling exactly once and in sequence order: a seq already applied is a duplicate and is
dropped; a seq beyond the next expected one is held until the missing ones arrive (the table
then shows which seqs it is waiting for: the standings never guess what they missed).

From the rulings in order it keeps every game of the table: rounds, each player's cards (R18,
R19), plays and illegal plays, the points-variant scores (R21, R22), the clocks (log seconds on
the table's own clock), the spit-pile tops and the winner. `Standings` ranks the seats of all
tables (wins, then points, then cards played) and gives the CSV/JSON rows of every game.
A game starts at a round-1 `deal` (R5); a `deal` of round 1 while a game is unfinished closes
that game as unfinished.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from referee.zones import PLAYERS, SPIT_PILES

# Out-of-order messages held per table while waiting for a missing seq: a whole day of rulings
# (a game has a few hundred), so a gap never costs memory without bound.
MAX_HELD = 20_000
# Latest rulings kept per table for the dashboard.
LAST_RULINGS = 12
_ILLEGAL = ("illegal", "false-spit", "false-slap")
_MOVES = ("play", "spit", "refill")


@dataclass
class Game:
    """One game at one table, folded from its rulings. Times are the table's log seconds."""

    number: int
    start_t: float
    last_t: float
    first_seq: int
    last_seq: int
    complete_start: bool = True  # False when the game's first rulings were never seen
    round: int = 0
    rounds_finished: int = 0
    round_start_t: float | None = None
    phase: str = "dealing"  # dealing | playing | slapping | between-rounds | over
    cards: dict[str, int] = field(default_factory=lambda: {p: 26 for p in PLAYERS})
    scores: dict[str, int] | None = None
    plays: dict[str, int] = field(default_factory=lambda: {p: 0 for p in PLAYERS})
    illegal: dict[str, int] = field(default_factory=lambda: {p: 0 for p in PLAYERS})
    spits: int = 0
    tops: dict[str, str | None] = field(default_factory=lambda: {z: None for z in SPIT_PILES})
    slap_margins_ms: list[float] = field(default_factory=list)
    round_times_s: list[float] = field(default_factory=list)
    finished: bool = False
    abandoned: bool = False
    winner: str | None = None

    @property
    def duration_s(self) -> float:
        return self.last_t - self.start_t

    def apply(self, seq: int, r: Mapping[str, Any]) -> None:
        kind = r.get("ruling")
        t = float(r.get("t", self.last_t))
        self.last_t = max(self.last_t, t)
        self.last_seq = seq
        player = r.get("player")
        if kind == "deal":
            self.round = int(r.get("round", self.round + 1))
            cards = r.get("cards")
            if isinstance(cards, Mapping):
                self.cards = {p: int(cards.get(p, self.cards[p])) for p in PLAYERS}
            self.round_start_t = t
            self.phase = "playing"
            self.tops = {z: None for z in SPIT_PILES}
        elif kind in _MOVES:
            if kind == "play" and player in self.plays:
                self.plays[player] += 1
            if kind == "spit":
                self.spits += 1
            if kind in ("play", "spit") and r.get("to") in self.tops:
                self.tops[r["to"]] = r.get("card")
        elif kind in _ILLEGAL and player in self.illegal:
            self.illegal[player] += 1
        elif kind == "slap-call":
            self.phase = "slapping"
        elif kind == "slap-result" and r.get("margin_ms") is not None:
            self.slap_margins_ms.append(float(r["margin_ms"]))
        elif kind == "round-over":
            self.rounds_finished += 1
            if self.round_start_t is not None:
                self.round_times_s.append(t - self.round_start_t)
            cards = r.get("cards")
            if isinstance(cards, Mapping):
                self.cards = {p: int(cards.get(p, 0)) for p in PLAYERS}
            if isinstance(r.get("scores"), Mapping):
                self.scores = {p: int(r["scores"].get(p, 0)) for p in PLAYERS}
            self.phase = "between-rounds"
        elif kind == "game-over":
            self.finished = True
            self.phase = "over"
            self.winner = r.get("winner")
            # Scores mean something only under the points variant (R22), where every
            # round-over carries them; a standard game's game-over lists zeros.
            if self.scores is not None and isinstance(r.get("scores"), Mapping):
                self.scores = {p: int(r["scores"].get(p, 0)) for p in PLAYERS}

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.number, "finished": self.finished, "abandoned": self.abandoned,
            "complete_start": self.complete_start, "winner": self.winner, "phase": self.phase,
            "round": self.round, "rounds_finished": self.rounds_finished,
            "start_t": _r(self.start_t), "last_t": _r(self.last_t),
            "duration_s": _r(self.duration_s),
            "round_start_t": _r(self.round_start_t),
            "round_times_s": [_r(x) for x in self.round_times_s],
            "cards": dict(self.cards), "scores": dict(self.scores) if self.scores else None,
            "plays": dict(self.plays), "illegal": dict(self.illegal), "spits": self.spits,
            "tops": dict(self.tops), "slap_margins_ms": list(self.slap_margins_ms),
            "first_seq": self.first_seq, "last_seq": self.last_seq,
        }


@dataclass
class TableRecord:
    """One table's ruling stream: exactly-once, in-order application and its games."""

    table: str
    stream: str | None = None
    next_seq: int = 1
    held: dict[int, dict[str, Any]] = field(default_factory=dict)
    duplicates: int = 0
    dropped_held: int = 0
    retired_streams: set[str] = field(default_factory=set)
    games: list[Game] = field(default_factory=list)
    last: deque = field(default_factory=lambda: deque(maxlen=LAST_RULINGS))
    warnings: int = 0
    applied: int = 0
    state: dict[str, Any] | None = None  # the table's latest retained state message

    @property
    def current(self) -> Game | None:
        return self.games[-1] if self.games else None

    @property
    def missing(self) -> tuple[int, int] | None:
        """The first and last seq waited for, when later ones are held."""
        if not self.held:
            return None
        return self.next_seq, min(self.held) - 1

    def add(self, message: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Apply one published message; returns the rulings applied now (in order, possibly
        several when it fills a gap, none for a duplicate or an early one)."""
        seq = message.get("seq")
        ruling = message.get("ruling")
        if not isinstance(seq, int) or seq < 1 or not isinstance(ruling, Mapping):
            raise ValueError("a rulings message needs an integer seq >= 1 and a ruling object")
        stream = message.get("stream")
        if stream is not None and stream != self.stream:
            if stream in self.retired_streams:
                return []  # a late resend from a spool the table has since replaced
            if self.stream is not None:
                # The table's spool was replaced: its seq starts again from 1.
                self.retired_streams.add(self.stream)
                self.next_seq, self.held = 1, {}
            self.stream = stream
        if seq < self.next_seq or seq in self.held:
            self.duplicates += 1
            return []
        if seq > self.next_seq:
            if len(self.held) >= MAX_HELD:
                self.dropped_held += 1
                return []
            self.held[seq] = dict(ruling)
            return []
        out = [dict(ruling)]
        self._apply(seq, out[0])
        while self.next_seq in self.held:
            r = self.held.pop(self.next_seq)
            out.append(r)
            self._apply(self.next_seq, r)
        return out

    def _apply(self, seq: int, r: dict[str, Any]) -> None:
        self.next_seq = seq + 1
        self.applied += 1
        t = float(r.get("t", 0.0))
        kind = r.get("ruling")
        if kind == "warning":
            self.warnings += 1
        game = self.current
        new_game = kind == "deal" and int(r.get("round", 1)) == 1
        if new_game and game is not None and not game.finished:
            game.abandoned = True
            game.phase = "abandoned"
        if new_game or game is None or (game.finished and kind != "warning"):
            game = Game(len(self.games) + 1, t, t, seq, seq, complete_start=new_game)
            self.games.append(game)
        game.apply(seq, r)
        self.last.append({"seq": seq} | r)

    def to_json(self) -> dict[str, Any]:
        g = self.current
        return {
            "table": self.table, "stream": self.stream, "last_seq": self.next_seq - 1,
            "waiting_for": list(self.missing) if self.missing else None,
            "held": len(self.held), "duplicates": self.duplicates, "warnings": self.warnings,
            "games_played": sum(1 for x in self.games if x.finished),
            "current": g.to_json() if g else None,
            "last_rulings": list(self.last),
            "state": self.state,
        }


@dataclass
class Standings:
    """Every table of one event; feed it messages with `add(table, message)`."""

    event: str
    tables: dict[str, TableRecord] = field(default_factory=dict)

    def record(self, table: str) -> TableRecord:
        if table not in self.tables:
            self.tables[table] = TableRecord(table)
        return self.tables[table]

    def add(self, table: str, message: Mapping[str, Any]) -> list[dict[str, Any]]:
        return self.record(table).add(message)

    def set_state(self, table: str, state: Mapping[str, Any]) -> None:
        self.record(table).state = dict(state)

    def games(self) -> Iterable[tuple[str, Game]]:
        for name in sorted(self.tables, key=_table_key):
            for g in self.tables[name].games:
                yield name, g

    def seats(self) -> list[dict[str, Any]]:
        """One row per table seat, best first: finished games won, then points (R22 variant),
        then cards played."""
        rows = []
        for name in sorted(self.tables, key=_table_key):
            games = self.tables[name].games
            for p in PLAYERS:
                other = PLAYERS[1 - PLAYERS.index(p)]
                done = [g for g in games if g.finished]
                rows.append({
                    "table": name, "seat": p,
                    "games": len(done),
                    "wins": sum(1 for g in done if g.winner == p),
                    "losses": sum(1 for g in done if g.winner == other),
                    "draws": sum(1 for g in done if g.winner is None),
                    "points": sum((g.scores or {}).get(p, 0) for g in done),
                    "rounds": sum(g.rounds_finished for g in games),
                    "plays": sum(g.plays[p] for g in games),
                    "illegal": sum(g.illegal[p] for g in games),
                    "cards_now": games[-1].cards[p] if games else None,
                    "time_s": _r(sum(g.duration_s for g in games)),
                })
        rows.sort(key=lambda r: (-r["wins"], -r["points"], -r["plays"], _table_key(r["table"]),
                                 r["seat"]))
        for i, r in enumerate(rows, 1):
            r["rank"] = i
        return rows

    def result_rows(self) -> list[dict[str, Any]]:
        """One flat row per game (the CSV export)."""
        rows = []
        for name, g in self.games():
            row: dict[str, Any] = {
                "event": self.event, "table": name, "game": g.number,
                "status": "finished" if g.finished else "abandoned" if g.abandoned
                else "in progress",
                "winner": g.winner if g.finished else None,
                "rounds": g.rounds_finished, "duration_s": _r(g.duration_s),
                "start_t": _r(g.start_t),
            }
            for p in PLAYERS:
                row[f"{p}_cards"] = g.cards[p]
                row[f"{p}_score"] = g.scores.get(p) if g.scores else None
                row[f"{p}_plays"] = g.plays[p]
                row[f"{p}_illegal"] = g.illegal[p]
            row["first_seq"], row["last_seq"] = g.first_seq, g.last_seq
            row["complete"] = g.complete_start
            rows.append(row)
        return rows

    def to_json(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "tables": [self.tables[n].to_json() for n in sorted(self.tables, key=_table_key)],
            "standings": self.seats(),
            "games": self.result_rows(),
        }


RESULT_COLUMNS = ("event", "table", "game", "status", "winner", "rounds", "duration_s",
                  "start_t", *(f"{p}_{k}" for p in PLAYERS
                               for k in ("cards", "score", "plays", "illegal")),
                  "first_seq", "last_seq", "complete")
SEAT_COLUMNS = ("rank", "table", "seat", "games", "wins", "losses", "draws", "points",
                "rounds", "plays", "illegal", "cards_now", "time_s")


def _table_key(name: str) -> tuple:
    # table-2 before table-10
    head, _, tail = name.rpartition("-")
    return (head, int(tail), "") if tail.isdigit() else (name, 0, name)


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)
