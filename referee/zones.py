"""Zone names and zone readings of DESIGN.md.

Zones: `p1.stock1` … `p1.stock5`, `p2.stock1` … `p2.stock5`, `spit.left`, `spit.right`
(left and right as seen by the camera; p1 sits at the bottom of the image). A reading is a
card code, `back` (a face-down card on top), `empty`, or `?` (unknown).
"""
from __future__ import annotations

from referee.errors import UserError

PLAYERS: tuple[str, str] = ("p1", "p2")
SPIT_PILES: tuple[str, str] = ("spit.left", "spit.right")
STOCKS_PER_PLAYER = 5  # R5, R13
STOCK_ZONES: dict[str, tuple[str, ...]] = {
    p: tuple(f"{p}.stock{i}" for i in range(1, STOCKS_PER_PLAYER + 1)) for p in PLAYERS
}
ALL_ZONES: tuple[str, ...] = STOCK_ZONES["p1"] + STOCK_ZONES["p2"] + SPIT_PILES

BACK = "back"
EMPTY = "empty"
UNKNOWN = "?"
SPECIAL_READINGS = frozenset({BACK, EMPTY, UNKNOWN})


class UnknownZoneError(UserError, ValueError):
    """A zone name that is not one of the twelve of DESIGN.md."""


def check_zone(name: str) -> str:
    if name not in _ZONE_SET:
        raise UnknownZoneError(
            f"unknown zone {name!r}: zones are {', '.join(ALL_ZONES)}"
        )
    return name


def other_player(player: str | None) -> str:
    """The opponent of `player`."""
    return PLAYERS[1] if player == PLAYERS[0] else PLAYERS[0]


def other_pile(pile: str) -> str:
    """The other spit pile."""
    return SPIT_PILES[1] if pile == SPIT_PILES[0] else SPIT_PILES[0]


def zone_owner(name: str) -> str | None:
    """`p1`/`p2` for a stock zone, None for a spit pile."""
    check_zone(name)
    return None if name.startswith("spit.") else name.split(".", 1)[0]


def stock_index(name: str) -> int:
    """0-based slot index of a stock zone (`p1.stock3` → 2)."""
    check_zone(name)
    if name.startswith("spit."):
        raise UnknownZoneError(f"{name!r} is a spit pile, not a stockpile")
    return int(name.rsplit("stock", 1)[1]) - 1


_ZONE_SET = frozenset(ALL_ZONES)
