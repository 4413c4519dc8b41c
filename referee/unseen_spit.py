"""A spit card the camera never saw, shown by the round's end.

A card can cover a spit card before the camera reports it: the spit and a stock card landing
18 ms apart (game 1000684). The referee then cannot tell whether a spit lies under the card,
and the card's ruling depends on it (R10: legal on the spit card, illegal on the pile's old
top), so it follows the table without ruling it (Monitor._hold). When the piles are then
gathered, the round was over (R17, R18), and that can settle whether the spit happened: the
moves without it may not end the round, while with it they do. Which card was spat stays
unknown, but the round's result (who took which pile and the next round's counts, R18-R20) can
be the same whichever card it was. Then the result is known, and the referee need not referee
the rest of the game with counts "which may be off".

`spat_unseen` lists every explanation of the table that starts with such a spit, over every
player who may have made it and every card it may have been; `round_result` is what one
explanation's end gives, to compare them. Pure: no clocks, no I/O.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from referee.cards import DECK
from referee.game import round_counts, slap_needed, standard_winner
from referee.infer import MAX_NODES, Explanation, explain
from referee.moves import Spit
from referee.rules import Variant
from referee.scene import Scene, Step
from referee.state import Table
from referee.zones import PLAYERS

# Explanations one supposed spit card may have; more and the search says it is not complete.
MAX_OPTIONS = 8


def spat_unseen(scene: Scene, readings: Mapping[str, str],
                spitters: Mapping[str, set[str]], *, seen: Mapping[str, Sequence[str]],
                no_face_down: frozenset[str] = frozenset(),
                shown: Mapping[str, frozenset[str]] | None = None,
                trails: Mapping[str, Sequence[str]] | None = None,
                max_nodes: int = MAX_NODES) -> list[tuple[Scene, Explanation]] | None:
    """Every explanation of `readings` from `scene` after a legal spit the camera never saw:
    by a player in `spitters[pile]` onto that pile, of any card the referee has not seen
    this round (one still in some hand or face down). Each comes with the scene the spit
    left (its start). None when a search ran out of budget: the list may miss the truth."""
    seen_codes = {c for cards in seen.values() for c in cards} | set(readings.values())
    cards = [c for c in DECK if not scene.known(c) and c.code not in seen_codes]
    found: list[tuple[Scene, Explanation]] = []
    for pile, players in sorted(spitters.items()):
        for player in sorted(players):
            for card in cards:
                start = _after_spit(scene, Spit(player, pile, card))
                if start is None:
                    continue  # not a legal spit: the referee does not suppose a false one
                o = explain(start, readings, no_face_down=no_face_down, seen=seen,
                            shown=shown, trails=trails, max_nodes=max_nodes,
                            max_options=MAX_OPTIONS)
                if not o.complete:
                    return None
                options = (o.explanation,) if o.explanation is not None else o.options
                found.extend((start, e) for e in options)
    return found


def _after_spit(scene: Scene, spit: Spit) -> Scene | None:
    verdict = scene.table.check(spit)
    if not verdict.ok:
        return None
    start = scene.copy()
    start.apply(Step(spit, verdict))
    return start


def round_result(table: Table, piles: Mapping[str, str] | None) -> tuple | None:
    """What an ended round gives (R18-R22): the end's case and who cleared, the winner under
    the standard game, who takes which pile and each player's next count, and under the points
    variant each player's score for the round. `piles`: who slapped which pile, when a slap
    decides them (R18). None when the round is not over, or its piles need a slap and `piles`
    is None."""
    end = table.round_end()
    if end is None or (piles is None and slap_needed(table, end)):
        return None
    counts, taken = round_counts(table, end, piles)
    winner = (standard_winner(table, end)
              if table.config.variant is Variant.STANDARD else None)
    score = (tuple(table.cards_held(p) for p in PLAYERS)
             if table.config.variant is Variant.POINTS else ())
    return (end.case, end.player, winner, tuple(sorted(taken.items())),
            tuple(counts[p] for p in PLAYERS), score)

