"""Illegal plays ruled on a card they did not land on: a measure beside referee.obslog.compare.

`compare` counts an illegal play by who played which card with which R10 kind, not by the card
it landed on, so "K♥ on 7♦ is not adjacent" matched the truth "K♥ on 8♦ is not adjacent" (game
6000025). `misnamed` lists the monitor's R10 rulings that name none of the cards (the first, or
those after "or on") that the same player's same card truly landed on when it was tried.

The truth is the simulator's: the top of the pile when the card touched it (R14: the card that
touched first stands). Where two cards landed within a frame of each other the camera may have
seen them stacked the other way (game 6000039: P2's 10♥ tried on 4♦, P1's 5♣ played on 4♦ 0.2 s
later and seen beneath 10♥), and the referee names the card the camera saw beneath.
"""
from __future__ import annotations

import re
from typing import Iterable

from referee.cards import DECK
from referee.moves import Play, Spit
from referee.rulings import Ruling, RulingKind
from referee.simulate import Attempt, GameRecord, Moved, RoundStart

_CODE_OF = {c.pretty: c.code for c in DECK}
_ON = re.compile(r"\bon ([^\s,()]+(?:, [^\s,()]+)*)")


def true_beneath(record: GameRecord) -> dict[tuple[str, str], set[str]]:
    """(player, card) → the cards it was tried on in an R10 attempt (the pile's top then)."""
    out: dict[tuple[str, str], set[str]] = {}
    tops: dict[str, str] = {}
    for e in record.events:
        if isinstance(e, RoundStart):
            tops = {}
        elif isinstance(e, Moved) and isinstance(e.move, (Play, Spit)):
            tops[e.move.pile] = e.move.card.code
        elif (isinstance(e, Attempt) and isinstance(e.move, Play) and e.verdict.rule == "R10"
              and e.move.pile in tops):
            out.setdefault((e.move.player, e.move.card.code), set()).add(tops[e.move.pile])
    return out


def named_beneath(ruling: Ruling) -> set[str]:
    """The cards an R10 ruling says its card landed on ("on 7♦ (or on 8♦, …)", "on 10♥ (or
    on 9♥, J♠, …)")."""
    return {_CODE_OF[c] for m in _ON.findall(ruling.message) for c in m.split(", ")
            if c in _CODE_OF}


def misnamed(record: GameRecord, rulings: Iterable[Ruling]) -> list[Ruling]:
    """The R10 illegal-play rulings naming no card their card was truly tried on."""
    truth = true_beneath(record)
    out = []
    for r in rulings:
        if r.kind is not RulingKind.ILLEGAL or r.rule != "R10" or r.card is None:
            continue
        named = named_beneath(r)
        if named and not named & truth.get((r.player, r.card), set()):
            out.append(r)
    return out
