"""The rules configuration: one option per **Decision** of RULES.md, with its documented default.

Where the rule texts are silent or ambiguous, RULES.md takes a decision and marks it; each such
decision is a field here so that a club playing by other house rules can switch it. The engine
(`referee.state`, `referee.game`) reads only these fields, never hard-codes a decision.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import Enum
from typing import Any, Mapping

from referee.errors import UserError


class RulesConfigError(UserError, ValueError):
    """A rules option with an unknown name or a value of the wrong type."""


class Variant(Enum):
    """How a game is won: R21 (get rid of all your cards) or R22 (points over rounds)."""

    STANDARD = "standard"
    POINTS = "points"


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """The rules decisions (RULES.md) the referee applies; defaults are the documented ones."""

    # R7 Decision: any layout of at most five piles, each with its top face up, is accepted at
    # the start of a round; only the card counts are checked. False: the layout must be the
    # R5/R7 shape (piles 1, 2, 3, 4, 5 as far as the cards go).
    accept_any_layout: bool = True
    # R10 Decision: equal ranks are not adjacent (a 5 never goes on a 5).
    equal_ranks_adjacent: bool = False
    # R12 Decision: moving a card between stockpiles when no slot is empty, or stacking it on
    # another stockpile, is illegal. True allows the common house rule instead: a face-up top
    # may be stacked on another own face-up top of the same rank.
    stacking_allowed: bool = False
    # R16 Decision: each player spits onto the pile they spat on before (their own side's pile).
    # False: each spit may go onto either pile.
    spit_onto_own_side: bool = True
    # R16 Decision: moves that only uncover a card (turning up a face-down top, refilling an
    # empty slot from a pile with cards beneath its top) count as available plays, so spit is
    # not due while they remain. False: only plays onto a spit pile count.
    uncover_moves_count_as_available: bool = True
    # R22 Decision: a tie on the lowest total is a draw. False: further rounds are played until
    # the totals differ.
    tie_is_draw: bool = True
    # R21 / R22: which way a game is won.
    variant: Variant = Variant.STANDARD
    # R22: the game ends when at least one player has this many points or more.
    points_limit: int = 100

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "variant":
                if not isinstance(value, Variant):
                    raise RulesConfigError(
                        f"rules option variant must be 'standard' or 'points', got {value!r}")
            elif f.name == "points_limit":
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise RulesConfigError(
                        f"rules option points_limit must be a whole number >= 1, got {value!r}")
            elif not isinstance(value, bool):
                raise RulesConfigError(
                    f"rules option {f.name} must be true or false, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["variant"] = self.variant.value
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RulesConfig":
        """Build from a JSON mapping (the calibration file's `referee.rules`); unknown names
        are refused so that a misspelt option is never silently ignored."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesConfigError(
                f"unknown rules option(s) {', '.join(unknown)}: known options are "
                f"{', '.join(sorted(known))}")
        kwargs = dict(data)
        if "variant" in kwargs and not isinstance(kwargs["variant"], Variant):
            try:
                kwargs["variant"] = Variant(kwargs["variant"])
            except ValueError:
                raise RulesConfigError(
                    f"rules option variant must be 'standard' or 'points', "
                    f"got {kwargs['variant']!r}") from None
        return cls(**kwargs)
