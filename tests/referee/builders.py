"""Compact table positions for the referee tests.

A slot is written `7H` (face-up 7♥ with nothing beneath), `7H+2` (7♥ on two face-down cards),
`#3` (three face-down cards, top not yet turned) or `-` (empty). Spit hands not given take
whatever is left of the 52 cards, so every built table is a possible one.
"""
from __future__ import annotations

from referee.rules import RulesConfig
from referee.state import Table


def _slot(text: str) -> dict:
    if text == "-":
        return {"down": 0, "up": None}
    if text.startswith("#"):
        return {"down": int(text[1:]), "up": None}
    up, _, down = text.partition("+")
    return {"down": int(down or 0), "up": up}


def make_table(p1: str, p2: str, left: str = "", right: str = "", hand1: int | None = None,
               hand2: int | None = None, config: RulesConfig | None = None,
               side1: str | None = None, side2: str | None = None) -> Table:
    stocks = {"p1": [_slot(s) for s in p1.split()], "p2": [_slot(s) for s in p2.split()]}
    for p in stocks:
        stocks[p] += [{"down": 0, "up": None}] * (5 - len(stocks[p]))
    piles = {"spit.left": left.split(), "spit.right": right.split()}
    used = sum(s["down"] + (s["up"] is not None) for p in stocks for s in stocks[p])
    used += sum(len(c) for c in piles.values())
    if hand1 is None and hand2 is None:
        hand1, hand2 = 0, 52 - used
    elif hand1 is None:
        hand1 = 52 - used - hand2
    elif hand2 is None:
        hand2 = 52 - used - hand1
    data = {
        "players": {
            "p1": {"stock": stocks["p1"], "spit_hand": hand1,
                   "side": side1 or ("spit.left" if left else None)},
            "p2": {"stock": stocks["p2"], "spit_hand": hand2,
                   "side": side2 or ("spit.right" if right else None)},
        },
        "spit": piles,
    }
    return Table.from_dict(data, config or RulesConfig())
