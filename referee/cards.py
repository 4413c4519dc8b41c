"""Cards, ranks and suits (R1, R2), and the card codes of DESIGN.md (`7H`, `10S`, `AC`).

Ranks form a ring for plays: K–A and A–2 are both adjacent (R2). Whether equal ranks count as
adjacent is a rules decision (R10), so `adjacent` takes it as an argument.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, IntEnum

from referee.errors import UserError


class UnknownCardError(UserError, ValueError):
    """A card code that is not one of the 52 codes of DESIGN.md."""


class Rank(IntEnum):
    """Ranks in ring order; the value is the position on the ring (A=1 … K=13)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self]

    @classmethod
    def parse(cls, text: str) -> "Rank":
        try:
            return _RANK_BY_SYMBOL[text.upper()]
        except KeyError:
            raise UnknownCardError(
                f"unknown rank {text!r}: use one of {' '.join(_RANK_SYMBOLS.values())}"
            ) from None


class Suit(Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @classmethod
    def parse(cls, text: str) -> "Suit":
        try:
            return cls(text.upper())
        except ValueError:
            raise UnknownCardError(f"unknown suit {text!r}: use one of S H D C") from None


_RANK_SYMBOLS = {
    Rank.ACE: "A", Rank.TWO: "2", Rank.THREE: "3", Rank.FOUR: "4", Rank.FIVE: "5",
    Rank.SIX: "6", Rank.SEVEN: "7", Rank.EIGHT: "8", Rank.NINE: "9", Rank.TEN: "10",
    Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K",
}
_RANK_BY_SYMBOL = {v: k for k, v in _RANK_SYMBOLS.items()}
_SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card of the single 52-card deck (R1). `str(card)` is its code, `card.pretty` is `7♥`."""

    rank: Rank
    suit: Suit
    # The code is read, and the card hashed and compared, millions of times by the monitor's
    # search: code and hash are made once, not per read (a hash from the enums costs two more
    # Python calls), and there is one object per card (DECK), so equal is identical.
    code: str = field(init=False, compare=False, repr=False)
    _hash: int = field(init=False, compare=False, repr=False)

    def __new__(cls, rank: Rank, suit: Suit) -> "Card":
        card = _CARD_BY_KEY.get((rank, suit))
        return card if card is not None else object.__new__(cls)

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", self.rank.symbol + self.suit.value)
        object.__setattr__(self, "_hash", self.rank.value * 4 + list(Suit).index(self.suit))

    __eq__ = object.__eq__  # (one object per card: compared in C, not field by field)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple:
        return Card.parse, (self.code,)  # (a copy or an unpickled card is the deck's own)

    @property
    def pretty(self) -> str:
        return self.rank.symbol + self.suit.symbol

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"

    @classmethod
    def parse(cls, code: str) -> "Card":
        """`Card.parse("10S")`; raises UnknownCardError naming the bad code."""
        try:
            return _CARD_BY_CODE[code.strip().upper()]
        except (KeyError, AttributeError):
            raise UnknownCardError(
                f"unknown card code {code!r}: a card code is a rank (A 2-10 J Q K) "
                "followed by a suit (S H D C), e.g. 7H, 10S, AC"
            ) from None


_CARD_BY_KEY: dict[tuple[Rank, Suit], Card] = {}
DECK: tuple[Card, ...] = tuple(Card(r, s) for s in Suit for r in Rank)
"""The 52 cards (R1), in a fixed order."""
_CARD_BY_KEY.update(((c.rank, c.suit), c) for c in DECK)

_CARD_BY_CODE = {c.code: c for c in DECK}
CARD_CODES: frozenset[str] = frozenset(_CARD_BY_CODE)


def parse_card(code: str) -> Card:
    return Card.parse(code)


def ring_distance(a: Rank, b: Rank) -> int:
    """Steps between two ranks on the ring A 2 … K A (R2): 0 for equal ranks, at most 6."""
    d = (int(a) - int(b)) % 13
    return min(d, 13 - d)


def adjacent(a: Rank, b: Rank, equal_ranks_adjacent: bool = False) -> bool:
    """True when a card of rank `a` may go on a card of rank `b` (R2, R10).

    K–A and A–2 are adjacent. Equal ranks are not, unless the rules decision says so (R10).
    """
    d = ring_distance(a, b)
    return d == 1 or (equal_ranks_adjacent and d == 0)
