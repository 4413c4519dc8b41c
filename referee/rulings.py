"""What the referee says: `Ruling` values and their JSON shape in the event log (DESIGN.md).

A ruling names its kind (the closed list of DESIGN.md), the player, card and zones where they
apply, the rule it cites (R24) and a plain-words message with the remedy. Kind-specific data
(`piles`, `margin_ms`, `cards`, `scores`, `winner`, `line`, …) travels in `extra` and is
written at the top level of the JSON object, as DESIGN.md shows.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping

from referee.cards import Card


class RulingKind(str, Enum):
    """The ruling kinds of DESIGN.md, in the order they are listed there."""

    DEAL = "deal"
    SPIT_CALL = "spit-call"
    SPIT = "spit"
    PLAY = "play"
    REFILL = "refill"
    ILLEGAL = "illegal"
    FALSE_SPIT = "false-spit"
    SLAP_CALL = "slap-call"
    FALSE_SLAP = "false-slap"
    SLAP_RESULT = "slap-result"
    ROUND_OVER = "round-over"
    GAME_OVER = "game-over"
    WARNING = "warning"


# Kinds that record a legal move the players made (the rest are the referee's own calls).
# Turning up a face-down card is always legal and gets no ruling of its own (DESIGN.md list).
MOVE_KINDS = frozenset({RulingKind.SPIT, RulingKind.PLAY, RulingKind.REFILL})

_TIME_DECIMALS = 6  # microseconds: finer than any camera frame, coarser than float noise


@dataclass(frozen=True, slots=True)
class Ruling:
    """One ruling. `t` is seconds on the log's monotonic clock; `from_` is the JSON `from`."""

    t: float
    kind: RulingKind
    player: str | None = None
    card: str | None = None
    from_: str | None = None
    to: str | None = None
    rule: str | None = None
    message: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The DESIGN.md log object: `{"t": …, "ruling": kind, "player": …, …}`; absent fields
        are left out, `extra` keys sit at the top level."""
        out: dict[str, Any] = {"t": round(self.t, _TIME_DECIMALS), "ruling": self.kind.value}
        for key, value in (("player", self.player), ("card", self.card), ("from", self.from_),
                           ("to", self.to), ("rule", self.rule)):
            if value is not None:
                out[key] = value
        if self.message:
            out["message"] = self.message
        for key, value in self.extra.items():
            out[key] = value
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Ruling":
        """Inverse of `to_json` (used when a log is read back)."""
        known = {"t", "ruling", "player", "card", "from", "to", "rule", "message"}
        return cls(
            t=float(obj["t"]),
            kind=RulingKind(obj["ruling"]),
            player=obj.get("player"),
            card=obj.get("card"),
            from_=obj.get("from"),
            to=obj.get("to"),
            rule=obj.get("rule"),
            message=obj.get("message", ""),
            extra={k: v for k, v in obj.items() if k not in known},
        )

    def text(self) -> str:
        """One line of plain words for `replay --text` and the console, its log time first."""
        return f"{self.t:9.3f}  {self.words()}"

    def words(self) -> str:
        """Its kind and message, citing its rule (R24) where the message does not already
        ("play        P1 plays 7♥ on 8♣ (R10)")."""
        message = self.message
        if self.rule and f"({self.rule}" not in message and f"{self.rule})" not in message:
            message += f" ({self.rule})"
        return f"{self.kind.value:<11} {message}"


# --- message wording (R24: what happened, the rule, what to do) -------------------------------

def pretty(card: Card | str | None) -> str:
    """`7H` → `7♥`; None → `nothing`."""
    if card is None:
        return "nothing"
    if isinstance(card, str):
        card = Card.parse(card)
    return card.pretty


def player_name(player: str | None) -> str:
    return player.upper() if player else "?"


def play_message(player: str, card: str, onto: str | None) -> str:
    base = f"{player_name(player)} plays {pretty(card)}"
    return f"{base} on {pretty(onto)}" if onto else f"{base} on the empty pile"
