"""The order the camera saw the table change in, and whether an explanation can have happened
in that order. Pure.

The search (referee.infer) checks each zone's readings in the order that zone showed them. Across
zones it did not: an explanation could put a card on a pile only after another player's card
that the camera still saw on its stockpile at the time the first card showed on the pile (game
48000159: P1's Q♥ seen on the right pile while P2's Q♣ lay home; "Q♣ on J♦, Q♥ on Q♣, the same
rank" was ruled, and the truth was Q♥ on J♦ and Q♣ illegal on Q♥).

A `Timeline` keeps what the visible zones read after each observation since the position the
referee last took (a snapshot per line). `fits` asks whether the steps of an explanation can be
timed to agree with every snapshot, taking only what must be true of any timing:

- a step changes each zone it touches once: where its card leaves (the lift) and where it
  lands; a card is lifted before it lands, and lies in the hand meanwhile (so a snapshot may
  show it gone from its stockpile and not yet on the pile);
- the steps that change one zone change it in the explanation's order (a pile's cards land in
  the order they lie, a stockpile's cards leave and come in the order the rules allow);
- a snapshot reading zone z shows z after some number of its changes: the numbers after which
  z reads that.

Nothing else is assumed (not even the order of independent steps the search happened to pick),
so a timing the players could have made is never refused. Each zone's changes are timed
against the snapshots as bounds, and bounds propagated along the orders above: the steps fit
unless some change must come both before and after one snapshot.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from referee.moves import Play
from referee.zones import ALL_ZONES, SPIT_PILES, UNKNOWN

# Snapshots kept at most: the oldest are dropped first (fewer snapshots only refuse less).
MAX_SNAPSHOTS = 400


class Timeline:
    """The snapshots of the visible zones since the referee took `base` as the position."""

    def __init__(self) -> None:
        self.base: object = None
        self.snapshots: list[dict[str, str]] = []

    def reset(self, base: object) -> None:
        """Start afresh from `base`: what was seen before it is explained by it."""
        self.base = base
        self.snapshots = []

    def note(self, base: object, readings: Mapping[str, str]) -> None:
        """What the camera reads now, the referee's position being `base`."""
        if base is not self.base:
            self.reset(base)
        snap = {z: r for z, r in readings.items() if r != UNKNOWN}
        if self.snapshots and self.snapshots[-1] == snap:
            return
        self.snapshots.append(snap)
        if len(self.snapshots) > MAX_SNAPSHOTS:
            del self.snapshots[0]

    def since(self, base: object) -> tuple[dict[str, str], ...]:
        """The snapshots taken since `base` was the position; none for another position."""
        return tuple(self.snapshots) if base is self.base else ()


def fits(scene, steps: Sequence, snapshots: Sequence[Mapping[str, str]]) -> bool:
    """The `steps` (referee.scene.Step) from `scene` (referee.scene.Scene) can be timed so that
    the table read like every one of `snapshots` (in their order) at some moment."""
    if not steps or not snapshots:
        return True
    # Every change a step makes to a zone is an event, numbered in the order made. Per zone:
    # its events in order, and what it reads before them and after each. The orders every
    # timing keeps are edges (a, b), event a no later than b: a zone's changes in turn, and
    # a step's lifts (its card leaving a zone) before its landings.
    chain: dict[str, list[int]] = {z: [] for z in ALL_ZONES}
    reads: dict[str, list[str]] = {z: [scene.expected(z)] for z in ALL_ZONES}
    edges: list[tuple[int, int]] = []
    # Each stock card played onto a spit pile: its landing event, with the card and player.
    played: dict[int, tuple[str, str]] = {}
    n = 0
    now = scene.copy()
    for step in steps:
        before = {z: now.expected(z) for z in ALL_ZONES}
        now.apply(step)
        card = step.move.card
        code = card.code if card is not None else None  # (a turn-up the rules left unnamed)
        lifts, lands = [], []
        for z in ALL_ZONES:
            after = now.expected(z)
            if after != before[z]:
                if chain[z]:
                    edges.append((chain[z][-1], n))
                chain[z].append(n)
                reads[z].append(after)
                (lands if after == code else lifts).append(n)
                if (after == code and z in SPIT_PILES and isinstance(step.move, Play)
                        and step.returned is None and step.move.slot is not None):
                    played[n] = (code, step.move.player)
                n += 1
        edges += [(a, b) for a in lifts for b in lands]
    # Event variables: the number of the first snapshot taken after the change (0..m).
    m = len(snapshots)
    lo = [0] * n
    hi = [m] * n
    for k, z, (first, last) in _counts_read(reads, snapshots):
        # The zone had made `first` changes at least, and `last` at most, by snapshot k.
        if first > 0:
            e = chain[z][first - 1]
            hi[e] = min(hi[e], k)
        if last < len(chain[z]):
            e = chain[z][last]
            lo[e] = max(lo[e], k + 1)
    # Bounds along the orders until nothing moves (the orders have no cycle: they follow the
    # explanation's steps, lifts before landings within one).
    changed = True
    while changed:
        changed = False
        for a, b in edges:
            if lo[b] < lo[a]:
                lo[b] = lo[a]
                changed = True
            if hi[a] > hi[b]:
                hi[a] = hi[b]
                changed = True
    if not all(lo[e] <= hi[e] for e in range(n)):
        return False
    return all(_one_hand(chain[p], played, snapshots, p, lo, hi) for p in SPIT_PILES)


def _counts_read(reads: Mapping[str, Sequence[str]], snapshots: Sequence[Mapping[str, str]]
                 ) -> list[tuple[int, str, tuple[int, int]]]:
    """For each snapshot k and zone z it reads: after how many of the zone's changes (`reads`:
    what it reads before them and after each) it reads that, at the fewest and at the most.
    A zone changes in order, so the counts of its snapshots never go down: a reading the
    zone shows at several points of its changes (a card back on top after others left it,
    a stockpile's `back`) is placed no earlier than the zone's reading before it allows, and
    no later than the one after it (game 1000155: 9♥ read on a pile before and after four
    cards went on it; taken anywhere between, the four could be timed after the reading
    between them). A reading the explanation does not account for is not this check's. If
    no such placement exists, the fewest and the most of each reading are taken as they
    come."""
    where: dict[str, dict[str, list[int]]] = {}
    for z, rs in reads.items():
        for i, r in enumerate(rs):
            where.setdefault(z, {}).setdefault(r, []).append(i)
    seen: dict[str, list[tuple[int, list[int]]]] = {}
    for k, snap in enumerate(snapshots):
        for z, reading in snap.items():
            at = where.get(z, {}).get(reading)
            if at:
                seen.setdefault(z, []).append((k, at))
    out = []
    for z, got in seen.items():
        fewest, most, floor = [], [], 0
        for _, at in got:
            fewest.append(next((i for i in at if i >= floor), None))
            floor = fewest[-1] if fewest[-1] is not None else floor
        ceiling = len(reads[z]) - 1
        for _, at in reversed(got):
            most.append(next((i for i in reversed(at) if i <= ceiling), None))
            ceiling = most[-1] if most[-1] is not None else ceiling
        most.reverse()
        placed = None not in fewest and None not in most
        for (k, at), f, m in zip(got, fewest, most):
            out.append((k, z, (f, m) if placed else (at[0], at[-1])))
    return out


def _one_hand(chain: Sequence[int], played: Mapping[int, tuple[str, str]],
              snapshots: Sequence[Mapping[str, str]], pile: str, lo: Sequence[int],
              hi: Sequence[int]) -> bool:
    """No stock card the camera never saw on `pile` is covered there by the same player's
    next card while the pile was in view (R9: one hand moves one card at a time, and cannot
    fetch and lay a second card before the stabiliser reports the first; the camera then
    shows the pile, `?` in no snapshot from before the first card to after the second).
    `chain`: the pile's change events in order; an event's value is the number of the first
    snapshot after it, bounded by `lo` and `hi` (fits). Game 1000760: the left pile showed
    P2's 7♦, then P1's 8♣, in view between; "7♦ on 5♦ (not adjacent), then P1's 6♠ unseen
    and 8♣ on it" was an order as good as the truth (6♠ under a hand, 7♦, 8♣), and the
    round's last moves were never ruled. The search's own check (seen_order.order_after)
    looks only at piles in view throughout since the position."""
    shown = {snap[pile] for snap in snapshots if pile in snap}
    m = len(snapshots)

    def in_view(k: int) -> bool:
        return 0 <= k < m and pile in snapshots[k]

    for a, b in zip(chain, chain[1:]):
        if a not in played or b not in played:
            continue
        (code, player), (_, other) = played[a], played[b]
        if player != other or code in shown:
            continue
        # Some timing puts the two down before every snapshot, or the second after every
        # one, or a snapshot from the one before the first to the one after the second does
        # not show the pile: the earliest first and the latest second leave the most.
        first, second = lo[a], hi[b]
        if not (first == 0 or second == m
                or any(not in_view(k) for k in range(first - 1, second + 1))):
            return False
    return True
