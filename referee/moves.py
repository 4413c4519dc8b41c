"""Moves a player makes on the table, as small immutable values (like python-chess's `Move`).

- `Play`: a stockpile's face-up top onto a spit pile (R10). `slot` is 0-based (0..4); `slot=None`
  means the card did not come from a stockpile (from the spit cards in hand, illegal by R15).
- `TurnUp`: turning a stockpile's face-down top face up (R11); `card` is what was revealed.
  `Table.uncover_moves` lists turn-ups with `card=None` (the card is unknown until it is seen).
- `Refill`: moving a face-up top into an empty slot (R12); `to_slot` outside 0..4 would be a
  sixth stockpile (R13).
- `Spit`: turning the top spit card onto a spit pile (R8, R16).
- `TakeBack`: lifting a card that was played back off a spit pile; never legal (R14), listed so
  the referee can name it.

Values are JSON-able through `move_to_dict` / `move_from_dict` (card codes and zone names).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Union

from referee.cards import Card
from referee.errors import UserError
from referee.zones import PLAYERS, SPIT_PILES


class BadMoveError(UserError, ValueError):
    """A move description that names an unknown player, pile, slot or move kind."""


def _check_player(player: str) -> None:
    if player not in PLAYERS:
        raise BadMoveError(f"unknown player {player!r}: use one of {', '.join(PLAYERS)}")


def _check_pile(pile: str) -> None:
    if pile not in SPIT_PILES:
        raise BadMoveError(f"unknown spit pile {pile!r}: use one of {', '.join(SPIT_PILES)}")


def _check_slot(slot: Any, name: str = "slot") -> None:
    if not isinstance(slot, int) or isinstance(slot, bool) or slot < 0:
        raise BadMoveError(f"{name} must be a stockpile index 0..4, got {slot!r}")


def _check_card(card: Any) -> None:
    if not isinstance(card, Card):
        raise BadMoveError(f"expected a Card, got {card!r}: parse codes with Card.parse")


@dataclass(frozen=True, slots=True)
class Play:
    player: str
    slot: int | None
    pile: str
    card: Card

    def __post_init__(self) -> None:
        _check_player(self.player)
        if self.slot is not None:
            _check_slot(self.slot)
        _check_pile(self.pile)
        _check_card(self.card)


@dataclass(frozen=True, slots=True)
class TurnUp:
    player: str
    slot: int
    card: Card | None

    def __post_init__(self) -> None:
        _check_player(self.player)
        _check_slot(self.slot)
        if self.card is not None:
            _check_card(self.card)


@dataclass(frozen=True, slots=True)
class Refill:
    player: str
    from_slot: int
    to_slot: int
    card: Card

    def __post_init__(self) -> None:
        _check_player(self.player)
        _check_slot(self.from_slot, "from_slot")
        _check_slot(self.to_slot, "to_slot")
        _check_card(self.card)


@dataclass(frozen=True, slots=True)
class Spit:
    player: str
    pile: str
    card: Card

    def __post_init__(self) -> None:
        _check_player(self.player)
        _check_pile(self.pile)
        _check_card(self.card)


@dataclass(frozen=True, slots=True)
class TakeBack:
    player: str
    pile: str
    slot: int | None
    card: Card

    def __post_init__(self) -> None:
        _check_player(self.player)
        _check_pile(self.pile)
        if self.slot is not None:
            _check_slot(self.slot)
        _check_card(self.card)


Move = Union[Play, TurnUp, Refill, Spit, TakeBack]

_set = object.__setattr__


def trusted_play(player: str, slot: int, pile: str, card: Card) -> Play:
    """A Play built without re-validating its fields, for the engine's own hot path
    (`Table.legal_plays`), whose values come from the table itself."""
    m = object.__new__(Play)
    _set(m, "player", player)
    _set(m, "slot", slot)
    _set(m, "pile", pile)
    _set(m, "card", card)
    return m

_KINDS: dict[type, str] = {Play: "play", TurnUp: "turn-up", Refill: "refill", Spit: "spit",
                           TakeBack: "take-back"}


def move_kind(move: Move) -> str:
    return _KINDS[type(move)]


def move_to_dict(move: Move) -> dict[str, Any]:
    """`{"move": "play", "player": "p1", "slot": 0, "pile": "spit.left", "card": "7H"}`."""
    d: dict[str, Any] = {"move": _KINDS[type(move)]}
    for name in move.__slots__:  # type: ignore[union-attr]
        value = getattr(move, name)
        d[name] = value.code if isinstance(value, Card) else value
    return d


def move_from_dict(data: Mapping[str, Any]) -> Move:
    """Inverse of `move_to_dict`; raises BadMoveError (or UnknownCardError) on bad input."""
    kinds = {v: k for k, v in _KINDS.items()}
    try:
        cls = kinds[data["move"]]
    except (KeyError, TypeError):
        raise BadMoveError(
            f"not a move: {data!r}: expected \"move\" one of {', '.join(kinds)}") from None
    kwargs = {}
    for name in cls.__slots__:
        if name not in data:
            raise BadMoveError(f"{data['move']} move is missing {name!r}: {data!r}")
        value = data[name]
        if name == "card" and value is not None:
            value = Card.parse(value)
        kwargs[name] = value
    return cls(**kwargs)
