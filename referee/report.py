"""Game statistics from a game's rulings (`spit-referee report`): pure, no I/O.

Per round: duration, plays per player, plays per minute, reaction time from each spit to the
first play (per player and for whoever played first), slap margins in ms and illegal plays per
player; for the game: the totals, the winner and the scores. A round runs from its `deal` (or
the first ruling of the log) to its `round-over`; a log that stops mid-round reports that round
as unfinished.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from referee.rulings import Ruling, RulingKind
from referee.zones import PLAYERS

SECONDS_PER_MINUTE = 60.0

# Rulings that count against a player as an illegal action.
_ILLEGAL_KINDS = (RulingKind.ILLEGAL, RulingKind.FALSE_SPIT, RulingKind.FALSE_SLAP)


@dataclass(frozen=True)
class RoundStats:
    index: int
    start_t: float
    end_t: float
    finished: bool
    plays: dict[str, int]
    illegal: dict[str, int]
    illegal_kinds: dict[str, dict[str, int]]
    spits: int
    reaction_s: dict[str, list[float]]      # per player: spit moment → that player's first play
    first_reaction_s: list[float]          # spit moment → the first play by anyone
    slap_margins_ms: list[float]
    cards_after: dict[str, int] | None

    @property
    def duration_s(self) -> float:
        return self.end_t - self.start_t

    def plays_per_minute(self, player: str | None = None) -> float | None:
        plays = sum(self.plays.values()) if player is None else self.plays[player]
        return _per_minute(plays, self.duration_s)


@dataclass(frozen=True)
class GameReport:
    rounds: list[RoundStats]
    winner: str | None
    finished: bool
    scores: dict[str, int] | None
    warnings: int
    duration_s: float = 0.0
    totals: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "finished": self.finished,
            "winner": self.winner,
            "scores": self.scores,
            "duration_s": _r(self.duration_s),
            "warnings": self.warnings,
            "totals": self.totals,
            "rounds": [_round_json(r) for r in self.rounds],
        }


def build_report(rulings: Iterable[Ruling]) -> GameReport:
    """Statistics of one game from its rulings in log order."""
    rulings = list(rulings)
    rounds: list[RoundStats] = []
    current: list[Ruling] = []
    ended: list[Ruling] = []  # the last finished round's rulings
    winner: str | None = None
    finished = False
    scores: dict[str, int] | None = None
    warnings = 0
    for r in rulings:
        if "coach" in r.extra:
            continue  # the coach's hints and explanations (referee.coach) are not game events
        if r.kind is RulingKind.WARNING:
            warnings += 1
            continue
        if r.kind is RulingKind.DEAL and finished:
            # Dealt again after a game-over called from counts the referee was unsure of: the
            # game went on (Monitor._play_on).
            finished, winner = False, None
        if r.kind is RulingKind.DEAL and current:
            # A deal without a round-over before it: the earlier round was cut off.
            rounds.append(_round(len(rounds) + 1, current, finished=False))
            current = []
        if r.extra.get("confirmed"):
            continue  # the same end ruled again, its counts sure (Monitor._look_again)
        if r.extra.get("after_end") and rounds and rounds[-1].finished:
            # A move of the last round, made under a hand and seen once it had gone, after
            # the end was called (Monitor._look_again): that round's, before its end.
            ended = ended[:-1] + [r] + ended[-1:]
            rounds[-1] = _round(len(rounds), ended, finished=True)
            continue
        if r.kind is RulingKind.GAME_OVER:
            finished = True
            winner = r.extra.get("winner")
            if scores is not None:  # (a standard game's game-over carries 0 points each)
                scores = r.extra.get("scores") or scores
            continue
        current.append(r)
        if r.kind is RulingKind.ROUND_OVER:
            rounds.append(_round(len(rounds) + 1, current, finished=True))
            ended = current
            if r.extra.get("scores"):
                scores = dict(r.extra["scores"])
            current = []
    if any(r.kind is not RulingKind.DEAL for r in current):
        rounds.append(_round(len(rounds) + 1, current, finished=False))
    duration = rounds[-1].end_t - rounds[0].start_t if rounds else 0.0
    return GameReport(rounds, winner, finished, scores, warnings, duration, _totals(rounds))


def _round(index: int, rulings: Sequence[Ruling], finished: bool) -> RoundStats:
    plays = {p: 0 for p in PLAYERS}
    illegal = {p: 0 for p in PLAYERS}
    kinds: dict[str, dict[str, int]] = {p: {} for p in PLAYERS}
    reaction: dict[str, list[float]] = {p: [] for p in PLAYERS}
    first_reaction: list[float] = []
    margins: list[float] = []
    spits = 0
    spit_moment: float | None = None       # time of the latest spit
    waiting: set[str] = set()               # players who have not played since that spit
    cards_after = None
    for r in rulings:
        if r.kind is RulingKind.SPIT:
            spits += 1
            # Both players' spits of one moment restart the clock: the later card completes
            # the centre, and nobody can react before seeing it.
            spit_moment, waiting = r.t, set(PLAYERS)
        elif r.kind is RulingKind.PLAY and r.player in plays:
            plays[r.player] += 1
            if spit_moment is not None and r.player in waiting:
                if waiting == set(PLAYERS):
                    first_reaction.append(r.t - spit_moment)
                reaction[r.player].append(r.t - spit_moment)
                waiting.discard(r.player)
        elif r.kind in _ILLEGAL_KINDS and r.player in illegal:
            illegal[r.player] += 1
            key = r.extra.get("illegal_kind") or r.kind.value
            kinds[r.player][key] = kinds[r.player].get(key, 0) + 1
        elif r.kind is RulingKind.SLAP_RESULT and r.extra.get("margin_ms") is not None:
            margins.append(float(r.extra["margin_ms"]))
        elif r.kind is RulingKind.ROUND_OVER and r.extra.get("cards"):
            cards_after = dict(r.extra["cards"])
    start = rulings[0].t if rulings else 0.0
    end = rulings[-1].t if rulings else 0.0
    return RoundStats(index, start, end, finished, plays, illegal, kinds, spits, reaction,
                      first_reaction, margins, cards_after)


def _totals(rounds: Sequence[RoundStats]) -> dict[str, Any]:
    duration = sum(r.duration_s for r in rounds)
    plays = {p: sum(r.plays[p] for r in rounds) for p in PLAYERS}
    reaction = {p: [x for r in rounds for x in r.reaction_s[p]] for p in PLAYERS}
    return {
        "rounds": len(rounds),
        "plays": plays,
        "plays_per_minute": {p: _r(_per_minute(plays[p], duration)) for p in PLAYERS},
        "illegal": {p: sum(r.illegal[p] for r in rounds) for p in PLAYERS},
        "reaction_s": {p: _summary(reaction[p]) for p in PLAYERS},
        "first_reaction_s": _summary([x for r in rounds for x in r.first_reaction_s]),
        "slap_margins_ms": [m for r in rounds for m in r.slap_margins_ms],
    }


def _round_json(r: RoundStats) -> dict[str, Any]:
    return {
        "round": r.index,
        "finished": r.finished,
        "start_t": _r(r.start_t),
        "duration_s": _r(r.duration_s),
        "plays": r.plays,
        "plays_per_minute": {p: _r(r.plays_per_minute(p)) for p in PLAYERS}
        | {"all": _r(r.plays_per_minute())},
        "spits": r.spits,
        "reaction_s": {p: _summary(r.reaction_s[p]) for p in PLAYERS},
        "first_reaction_s": _summary(r.first_reaction_s),
        "slap_margins_ms": r.slap_margins_ms,
        "illegal": r.illegal,
        "illegal_kinds": r.illegal_kinds,
        "cards_after": r.cards_after,
    }


def _summary(values: Sequence[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0, "mean": None, "median": None}
    return {"n": len(values), "mean": _r(statistics.fmean(values)),
            "median": _r(statistics.median(values))}


def _per_minute(count: int, seconds: float) -> float | None:
    return count * SECONDS_PER_MINUTE / seconds if seconds > 0 else None


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def format_text(report: GameReport) -> str:
    """The report in plain words, one block per round."""
    lines = []
    state = "finished" if report.finished else "not finished"
    who = {None: "a draw"}.get(report.winner, (report.winner or "").upper() + " wins")
    lines.append(f"Game {state}" + (f": {who}" if report.finished else "")
                 + f", {len(report.rounds)} round(s), {report.duration_s:.1f} s")
    if report.scores:
        lines.append("Scores: " + ", ".join(f"{p.upper()} {s}" for p, s in report.scores.items()))
    for r in report.rounds:
        head = f"Round {r.index}{'' if r.finished else ' (unfinished)'}: {r.duration_s:.1f} s"
        lines.append(head)
        for p in PLAYERS:
            ppm = r.plays_per_minute(p)
            react = _summary(r.reaction_s[p])
            lines.append(
                f"  {p.upper()}: {r.plays[p]} plays"
                + (f" ({ppm:.1f}/min)" if ppm is not None else "")
                + (f", reaction after spit median {react['median']:.2f} s" if react["n"] else "")
                + f", {r.illegal[p]} illegal")
        if r.slap_margins_ms:
            lines.append("  slap margin: " + ", ".join(f"{m:.2f} ms" for m in r.slap_margins_ms))
        if r.cards_after:
            lines.append("  cards for next round: "
                         + ", ".join(f"{p.upper()} {n}" for p, n in r.cards_after.items()))
    if report.warnings:
        lines.append(f"{report.warnings} warning(s) in the log")
    return "\n".join(lines)
