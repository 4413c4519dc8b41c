"""What every part of the rules monitor (referee.monitor) shares: its configuration, the
phases of a round, the moves it infers, and the timing constants more than one part uses."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Mapping

from referee.rules import RulesConfig
from referee.scene import Step
from referee.slaps import DEFAULT_TIE_WINDOW_NS
from referee.zones import PLAYERS, STOCK_ZONES


NS_PER_S = 1_000_000_000
STOCK_ORDER = tuple(z for p in PLAYERS for z in STOCK_ZONES[p])
STOCK = frozenset(STOCK_ORDER)
# How long the referee keeps the last position it was sure of, waiting for the moves to become
# clear (a card taken back, a card seen from under another), before it takes a position that
# one of several explanations leaves (Monitor._resync): most ambiguities clear within a second
# or two, and the position it was sure of is the better one to follow the table from.
RESYNC_AFTER_S = 2.0


@dataclass(frozen=True)
class MonitorConfig:
    """`settle_s`: how long R16 must hold (seconds of log time) before the referee calls "Spit!"
    (R23); 1.5 s lets players see the table is blocked without slowing the game. When only
    moves that uncover a card are left (R16 Decision), the player is prompted after one settle
    time and spit is called after a second. `tie_window_ns`: slaps on one pile closer than this
    are too close to call (R18; referee.slaps explains the 0.5 ms)."""

    rules: RulesConfig = field(default_factory=RulesConfig)
    settle_s: float = 1.5
    tie_window_ns: int = DEFAULT_TIE_WINDOW_NS
    # From a card landing to its observation line: the vision stabiliser's 3 frames at 30 fps.
    # Settle times run from when a move was made, so this is taken off the time it was seen.
    latency_s: float = 0.1


class Phase(Enum):
    DEALING = "dealing"      # waiting for the layout of a round to be laid out and turned up
    PLAYING = "playing"
    SLAPPING = "slapping"    # R17 holds, "Slap!" called, waiting for both slaps (R18)
    OVER = "over"            # game over


@dataclass(frozen=True)
class InferredMove:
    """One step the monitor inferred, with the time of the observation that showed it."""

    t: float
    step: Step
    round: int
    dealing: bool = False  # inferred while the layout was being laid out (the R5 tops)
    # One of several sequences that fit (Monitor._resync): not ruled, but it takes its place
    # in the order of the cards on a pile.
    unsure: bool = False
    # The card a play or spit landed on as the referee believed it (its ruling names it), or
    # "empty"; None for other moves and for steps not ruled one by one.
    beneath: str | None = None


@dataclass(frozen=True)
class Sightings:
    """What the zones showed since the last sure position (`seen`, `shown`, `trails`) and
    since the resync's other positions were last carried forward (`r_*`, referee.rivals), as
    they stood before an observation."""

    seen: dict[str, list[str]]
    shown: dict[str, set[str]]
    trails: dict[str, list[str]]
    r_hidden: set[str]
    r_seen: dict[str, list[str]]
    r_shown: dict[str, set[str]]


def frozen_shown(shown: Mapping[str, set[str]]) -> dict[str, frozenset[str]]:
    return {z: frozenset(v) for z, v in shown.items()}
