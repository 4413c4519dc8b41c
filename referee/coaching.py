"""The coaching section of the game report: how well each player saw their plays. Pure, no I/O.

The log's lines are replayed through a Monitor, so the coaching figures know when each play
became available, not only when it was made. Per player:
- missed plays: a card that stayed playable (R10) for more than `missed_after_s` and that the
  player never played while it was;
- time to see a play: from the moment a card became playable to the player playing it;
- illegal actions by kind (the `illegal_kind` of illegal, false-spit and false-slap rulings).
Availability is judged only on the monitor's confirmed table (referee.coach.sure_table): while
the monitor is unsure, nothing starts or ends, and a play counts as available only as long as
it was seen to be — the figures never claim more than the referee saw. No line in the log means
the camera saw nothing change, so the table as last confirmed held until the next line.

`compare` sets a game's figures beside the average of earlier games' (lower is better for all
three), for `report` to say better or worse.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from referee.coach import sure_table
from referee.monitor import Monitor, MonitorConfig, Phase
from referee.rulings import RulingKind
from referee.zones import PLAYERS

# Rulings that count against a player as an illegal action (as in referee.report).
_ILLEGAL_KINDS = (RulingKind.ILLEGAL, RulingKind.FALSE_SPIT, RulingKind.FALSE_SLAP)

# The figures compared between games, each lower-is-better, with how it is said.
FIGURES: dict[str, str] = {"missed": "missed plays", "seen_s": "time to see a play",
                           "illegal": "illegal actions"}
# Differences in the mean time to see a play below this (seconds) are noise: two camera frames
# at 30 fps, and the stabiliser's own timing spread is about one.
SAME_SEEN_S = 0.07


@dataclass(frozen=True)
class CoachingConfig:
    """`missed_after_s`: seconds a card must stay playable, unplayed, to count as a missed play;
    5 s is longer than the coach's hint time (4 s), so a missed play is one the player did not
    take even with time to see it."""

    missed_after_s: float = 5.0

    def __post_init__(self) -> None:
        if not self.missed_after_s > 0:
            raise ValueError(f"missed_after_s must be a positive number of seconds, "
                             f"got {self.missed_after_s}")


@dataclass(frozen=True)
class PlayerCoaching:
    missed: int
    seen_s: tuple[float, ...]              # each play's time from available to played
    illegal_kinds: Mapping[str, int] = field(default_factory=dict)

    @property
    def illegal(self) -> int:
        return sum(self.illegal_kinds.values())

    @property
    def mean_seen_s(self) -> float | None:
        return statistics.fmean(self.seen_s) if self.seen_s else None

    def figure(self, name: str) -> float | None:
        return {"missed": float(self.missed), "seen_s": self.mean_seen_s,
                "illegal": float(self.illegal)}[name]

    def to_json(self) -> dict[str, Any]:
        mean = self.mean_seen_s
        return {"missed": self.missed, "seen": len(self.seen_s),
                "mean_seen_s": None if mean is None else round(mean, 3),
                "illegal": self.illegal, "illegal_kinds": dict(self.illegal_kinds)}


@dataclass(frozen=True)
class Coaching:
    players: Mapping[str, PlayerCoaching]
    missed_after_s: float
    rounds: int

    def to_json(self) -> dict[str, Any]:
        return {"missed_after_s": self.missed_after_s, "rounds": self.rounds,
                "players": {p: c.to_json() for p, c in self.players.items()}}


@dataclass
class _Episode:
    since: float      # first seen playable on a confirmed table
    last: float       # last moment it was seen still playable


def coaching_from_lines(lines: Iterable[str | Mapping[str, Any]],
                        monitor_config: MonitorConfig | None = None,
                        config: CoachingConfig | None = None) -> Coaching:
    """The coaching figures of one game from its log lines (an event log or a camera
    observation log; ruling lines are skipped by the monitor)."""
    config = config or CoachingConfig()
    monitor = Monitor(monitor_config)
    open_: dict[tuple[str, str], _Episode] = {}
    missed = {p: 0 for p in PLAYERS}
    seen: dict[str, list[float]] = {p: [] for p in PLAYERS}
    kinds: dict[str, dict[str, int]] = {p: {} for p in PLAYERS}
    was_sure = False
    rounds = 0

    def close(key: tuple[str, str]) -> None:
        ep = open_.pop(key)
        if ep.last - ep.since > config.missed_after_s:
            missed[key[0]] += 1

    for lineno, line in enumerate(lines, start=1):
        t_before = monitor.t
        rulings = monitor.feed(line, lineno)
        if was_sure and monitor.t > t_before:
            for ep in open_.values():
                ep.last = monitor.t  # the confirmed table held until this line came
        for r in rulings:
            if r.kind is RulingKind.PLAY and r.player in seen and r.card is not None:
                ep = open_.pop((r.player, r.card), None)
                if ep is not None:
                    seen[r.player].append(r.t - ep.since)
            elif r.kind in _ILLEGAL_KINDS and r.player in kinds:
                kind = r.extra.get("illegal_kind") or r.kind.value
                kinds[r.player][kind] = kinds[r.player].get(kind, 0) + 1
            elif r.kind is RulingKind.DEAL:
                rounds += 1
        table = sure_table(monitor)
        was_sure = table is not None
        if table is None:
            if monitor.phase is not Phase.PLAYING:
                for key in list(open_):
                    close(key)  # the round is over or a new one is being dealt
            continue
        now = {(p, play.card.code) for p in PLAYERS for play in table.legal_plays(p)}
        for key in [k for k in open_ if k not in now]:
            close(key)
        for key in now:
            ep = open_.get(key)
            if ep is None:
                open_[key] = _Episode(monitor.t, monitor.t)
            else:
                ep.last = monitor.t
    for key in list(open_):
        close(key)
    players = {p: PlayerCoaching(missed[p], tuple(seen[p]), dict(sorted(kinds[p].items())))
               for p in PLAYERS}
    return Coaching(players, config.missed_after_s, rounds)


# --- comparison with earlier games ------------------------------------------------------------

@dataclass(frozen=True)
class Trend:
    """One figure of one player: this game's value, the earlier games' average and how many
    earlier games had it, and whether this game is `better`, `worse` or the `same`."""

    now: float | None
    before: float | None
    games: int
    verdict: str | None   # None: nothing to compare (no earlier value, or none now)

    def to_json(self) -> dict[str, Any]:
        return {"now": _r(self.now), "before": _r(self.before), "games": self.games,
                "verdict": self.verdict}


def compare(now: Coaching, earlier: Sequence[Coaching]) -> dict[str, dict[str, Trend]]:
    """Per player and figure: this game against the mean of the earlier games."""
    out: dict[str, dict[str, Trend]] = {}
    for p in PLAYERS:
        out[p] = {}
        for name in FIGURES:
            value = now.players[p].figure(name)
            past = [v for c in earlier if (v := c.players[p].figure(name)) is not None]
            before = statistics.fmean(past) if past else None
            out[p][name] = Trend(value, before, len(past), _verdict(name, value, before))
    return out


def _verdict(name: str, now: float | None, before: float | None) -> str | None:
    if now is None or before is None:
        return None
    same_within = SAME_SEEN_S if name == "seen_s" else 0.0
    if abs(now - before) <= same_within:
        return "same"
    return "better" if now < before else "worse"  # fewer, faster: better


def comparison_json(trends: Mapping[str, Mapping[str, Trend]]) -> dict[str, Any]:
    return {p: {name: t.to_json() for name, t in figs.items()} for p, figs in trends.items()}


def format_coaching(coaching: Coaching,
                    trends: Mapping[str, Mapping[str, Trend]] | None = None) -> str:
    """The coaching section in plain words."""
    lines = [f"Coaching (a card playable for more than {coaching.missed_after_s:g} s and not "
             "played is a missed play)"]
    for p in PLAYERS:
        c = coaching.players[p]
        mean = c.mean_seen_s
        seen = (f"saw a play in {mean:.2f} s on average ({len(c.seen_s)} plays)"
                if mean is not None else "no play timed")
        kinds = ", ".join(f"{k} {n}" for k, n in c.illegal_kinds.items())
        lines.append(f"  {p.upper()}: {c.missed} missed play(s), {seen}, {c.illegal} illegal"
                     + (f" ({kinds})" if kinds else ""))
        if trends is not None:
            parts = []
            for name, words in FIGURES.items():
                t = trends[p][name]
                if t.verdict is None:
                    continue
                past = f"{t.before:.2f} s" if name == "seen_s" else f"{t.before:.1f}"
                parts.append(f"{words} {t.verdict} (before: {past})")
            games = max((t.games for t in trends[p].values()), default=0)
            if parts:
                lines.append(f"      against {games} earlier game(s): " + "; ".join(parts))
    if trends is not None and not any(t.games for figs in trends.values()
                                      for t in figs.values()):
        lines.append("  no earlier games in this folder to compare with")
    return "\n".join(lines)


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)
