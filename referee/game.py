"""Round flow and winning: slap resolution (R18), re-deal (R19), the single-pile ending (R20),
the standard win (R21) and the points variant (R22).

A `Game` carries what lasts between rounds (card counts, scores, the round number) and turns a
finished round's `Table` into the next round's counts or the game's result. It knows nothing of
hidden card identities: the simulator and the camera monitor both drive it with public facts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from referee.errors import UserError
from referee.rules import RulesConfig, Variant
from referee.slaps import DEFAULT_TIE_WINDOW_NS, Slap, SlapOutcome, resolve_slaps
from referee.state import (DECK_SIZE, LAYOUT_PILES, START_COUNT, RoundEnd, RoundEndCase,
                           Table, _p, standard_layout)
from referee.zones import PLAYERS, SPIT_PILES, other_player

__all__ = ["GameFlowError", "GameOver", "RoundResult", "Game", "next_round_counts",
           "standard_winner", "slap_needed", "piles_from_slaps", "standard_layout",
           "counts_fitting_layouts", "round_counts"]


class GameFlowError(UserError, RuntimeError):
    """A round was finished out of order: not over yet, or missing the slap it needs."""


@dataclass(frozen=True, slots=True)
class GameOver:
    """`winner` is `p1`/`p2`, or None for a draw (R22 Decision)."""

    winner: str | None
    scores: Mapping[str, int]
    rule: str
    message: str


@dataclass(frozen=True, slots=True)
class RoundResult:
    """What a finished round leads to.

    `held`: each player's stock plus spit cards at the end, before taking a centre pile (the
    R22 points of the round). `piles_taken`: which player takes each spit pile (R18, R20).
    `counts`: each player's cards for the next round (R19); `fresh_deal` when the points
    variant starts a new deal of 26 each because a player got rid of every card.
    """

    number: int
    end: RoundEnd
    held: Mapping[str, int]
    piles_taken: Mapping[str, str]
    counts: Mapping[str, int]
    scores: Mapping[str, int]
    game_over: GameOver | None
    slap: SlapOutcome | None = None
    fresh_deal: bool = False

    @property
    def message(self) -> str:
        counts = ", ".join(f"{_p(p)} {self.counts[p]}" for p in PLAYERS)
        return f"Round {self.number} over ({self.end.rule}): next round {counts} cards (R19)"


def standard_winner(table: Table, end: RoundEnd) -> str | None:
    """R21 (and R3): the player who clears their stockpiles first while holding no spit cards
    has got rid of all their cards and wins."""
    if end.case is RoundEndCase.CLEARED and table.spit_hand[end.player] == 0:
        return end.player
    return None


def slap_needed(table: Table, end: RoundEnd) -> bool:
    """Whether the players slap for the spit piles (R18): not in the single-pile ending (R20),
    and not when the standard game is already won (R21)."""
    if end.single_pile_ending:
        return False
    if table.config.variant is Variant.STANDARD and standard_winner(table, end) is not None:
        return False
    return True


def piles_from_slaps(p1: Slap, p2: Slap,
                     tie_window_ns: int = DEFAULT_TIE_WINDOW_NS) -> SlapOutcome:
    """R18 by timestamp, via `referee.slaps` (the one implementation the live pads use)."""
    return resolve_slaps(p1, p2, tie_window_ns)


def next_round_counts(table: Table, end: RoundEnd,
                      piles_taken: Mapping[str, str] | None = None) -> tuple[dict[str, int],
                                                                             dict[str, str]]:
    """Each player's cards for the next round (R19): leftover stock and spit cards plus the
    centre pile(s) they take. In the single-pile ending (R20) the clearer takes nothing and the
    opponent takes the spit pile; otherwise `piles_taken` (from the slap, R18) says who takes
    which pile. Returns the counts and the piles each player took."""
    if end.single_pile_ending:
        taker = other_player(end.player)
        taken = {pile: taker for pile in SPIT_PILES if table.piles[pile]}
    else:
        if piles_taken is None or set(piles_taken) != set(SPIT_PILES):
            raise GameFlowError("the round ended with two spit piles in use: resolve the slap "
                                "(R18) to say who takes each pile")
        if set(piles_taken.values()) != set(PLAYERS):
            raise GameFlowError(f"each player takes one spit pile (R18), got {dict(piles_taken)}")
        taken = dict(piles_taken)
    counts = {p: table.cards_held(p) for p in PLAYERS}
    for pile, player in taken.items():
        counts[player] += len(table.piles[pile])
    return counts, taken


def round_counts(table: Table, end: RoundEnd,
                 piles_taken: Mapping[str, str] | None = None) -> tuple[dict[str, int],
                                                                        dict[str, str]]:
    """The next round's counts and the piles each player took, for a round that ended so
    (R18-R21): under the standard game a winner who cleared with two piles in use takes
    nothing (R21); a round that needs a slap (R18) takes the piles from `piles_taken`, the
    single-pile ending gives its pile to the opponent (R20). Raises GameFlowError when the
    slap is needed and `piles_taken` is None."""
    if (table.config.variant is Variant.STANDARD and standard_winner(table, end)
            and not end.single_pile_ending):
        return {p: table.cards_held(p) for p in PLAYERS}, {}
    if slap_needed(table, end):
        if piles_taken is None:
            raise GameFlowError("the spit piles are not decided: both players slap, and a "
                                "slap too close to call is repeated (R18)")
        return next_round_counts(table, end, piles_taken)
    return next_round_counts(table, end)


def _count_range(piles: int) -> tuple[int, int]:
    """The card counts whose R5/R7 layout fills exactly the first `piles` stockpiles."""
    if piles >= len(LAYOUT_PILES):
        return sum(LAYOUT_PILES[:-1]) + 1, DECK_SIZE - 1
    return sum(LAYOUT_PILES[:piles - 1]) + 1, sum(LAYOUT_PILES[:piles])


def counts_fitting_layouts(piles: Mapping[str, int],
                           believed: Mapping[str, int]) -> dict[str, int] | None:
    """Card counts that deal layouts of `piles` stockpiles each (R5, R7: with fewer than 11
    cards a player fills fewer than five), nearest to `believed`: `believed` itself when it
    fits. None when no counts of one 52-card deck (R1) do (a player with no pile, or a layout
    with a gap, is not a deal). A count guessed here is the largest or smallest that fits,
    not a sighting: how deep a short layout's last pile is the camera cannot see."""
    if set(piles) != set(PLAYERS) or any(not 1 <= n <= len(LAYOUT_PILES)
                                         for n in piles.values()):
        return None
    first, second = PLAYERS
    lo1, hi1 = _count_range(piles[first])
    lo2, hi2 = _count_range(piles[second])
    lo, hi = max(lo1, DECK_SIZE - hi2), min(hi1, DECK_SIZE - lo2)
    if lo > hi:
        return None
    n = min(max(believed[first], lo), hi)
    return {first: n, second: DECK_SIZE - n}


@dataclass
class Game:
    """A game in progress: the rules, the round number, the counts for the next deal, the
    points scores (R22), and the result once it is over."""

    config: RulesConfig = field(default_factory=RulesConfig)
    counts: dict[str, int] = field(default_factory=lambda: {p: START_COUNT for p in PLAYERS})
    scores: dict[str, int] = field(default_factory=lambda: {p: 0 for p in PLAYERS})
    round: int = 0
    result: GameOver | None = None
    history: list[RoundResult] = field(default_factory=list)

    @property
    def over(self) -> bool:
        return self.result is not None

    def new_table(self, layouts: Mapping[str, Sequence[int]] | None = None) -> Table:
        """Deal the next round (R5–R7, R19): a Table with every top still face down."""
        if self.over:
            raise GameFlowError(f"the game is over ({self.result.message}); start a new game")
        self.round += 1
        return Table(self.config, dict(self.counts), layouts)

    def finish_round(self, table: Table, slap: SlapOutcome | None = None) -> RoundResult:
        """Close a round whose Table says it is over (R17): take the piles (R18/R20), score
        (R22), decide the winner (R21/R22) and set the next round's counts (R19)."""
        end = table.round_end()
        if end is None:
            raise GameFlowError("the round is not over yet (R17): finish it before dealing again")
        held = {p: table.cards_held(p) for p in PLAYERS}
        game_over: GameOver | None = None
        fresh = False
        decided = slap is not None and not slap.too_close and slap.piles
        counts, taken = round_counts(table, end, slap.piles if decided else None)
        if self.config.variant is Variant.STANDARD and standard_winner(table, end):
            winner = standard_winner(table, end)
            game_over = GameOver(winner, dict(self.scores), "R21",
                                 f"{_p(winner)} has got rid of all their cards and wins (R21)")
        else:
            if self.config.variant is Variant.POINTS:
                for p in PLAYERS:
                    self.scores[p] += held[p]
                game_over = self._points_result()
                if game_over is None and min(counts.values()) == 0:
                    # A player got rid of every card: under the points variant the series goes
                    # on with a new game's deal (R4), since nobody can deal from no cards.
                    counts = {p: START_COUNT for p in PLAYERS}
                    fresh = True
            elif min(counts.values()) == 0:  # pragma: no cover - R21 above catches this
                winner = min(counts, key=counts.get)
                game_over = GameOver(winner, dict(self.scores), "R3",
                                     f"{_p(winner)} has no cards left and wins (R3)")
        self.counts = counts
        result = RoundResult(self.round, end, held, taken, dict(counts), dict(self.scores),
                             game_over, slap, fresh)
        self.history.append(result)
        self.result = game_over
        return result

    def _points_result(self) -> GameOver | None:
        """R22: once someone has `points_limit` points or more, the lowest total wins; a tie on
        the lowest total is a draw (Decision) or, if configured, play goes on."""
        limit = self.config.points_limit
        if max(self.scores.values()) < limit:
            return None
        a, b = (self.scores[p] for p in PLAYERS)
        score_text = ", ".join(f"{_p(p)} {self.scores[p]}" for p in PLAYERS)
        if a == b:
            if not self.config.tie_is_draw:
                return None
            return GameOver(None, dict(self.scores), "R22",
                            f"Draw on {a} points each (R22): {score_text}")
        winner = PLAYERS[0] if a < b else PLAYERS[1]
        return GameOver(winner, dict(self.scores), "R22",
                        f"{_p(winner)} wins on points, the lowest total (R22): {score_text}")
