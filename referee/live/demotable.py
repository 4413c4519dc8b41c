"""The demo's physical table over time: a simulated game (GameRecord) turned into what lies on
each zone and where the players' hands are, moment by moment, for the renderer.

The cards follow the record exactly, illegal cards included: an illegal card lies on its pile
in plain view until the player's hand comes back for it, PICK_S before it is home on its
stockpile, and lifts it there, under the hand, as a real player takes a card back (R14's
remedy). Hands reach from each player's side: over the stockpile a card leaves, across the
table, over the pile it lands on, and away; over the piles while dealing. One hand per player
(R9). Card positions are drawn once per card, so a card does not jump about between frames.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace

from calibration.layout import Layout, default_layout
from referee.moves import Play, Refill, Spit, TurnUp
from referee.scene import Loose, Scene
from referee.simulate import (Attempt, GameRecord, Moved, RoundOver, RoundStart, SlapCall,
                              SlapMade, SlapResult)
from referee.state import Table
from referee.cards import Card
from referee.zones import ALL_ZONES, PLAYERS, SPIT_PILES, STOCK_ZONES
from vision.render import BACK, Hand, PlacedCard

# Hand timing (seconds): a card touching down at t was picked up over its stockpile PICK_S
# before; the hand rests over a zone HOLD_S either side of being there, and glides between two
# places it must be within MAX_GLIDE_S of each other (else it leaves the table between).
PICK_S = 0.25
HOLD_S = 0.08
MAX_GLIDE_S = 0.3
# Where the palm sits relative to a zone's centre, toward its player (mm): the fingers, about
# 110 mm long, then end just past the card's far edge, as when picking it up.
PALM_BACK_MM = 55.0
# Stock tops lie within ±STOCK_TURN_DEG; spit cards land within ±SPIT_TURN_DEG and
# SPIT_SPREAD_MM of the pile's centre. The demo's players are tidy: a messier table is the
# vision benchmark's job (bench/vision.py turns cards up to 20°), while the demo shows the
# referee at work on a table it can read.
STOCK_TURN_DEG = 10.0
SPIT_TURN_DEG = 10.0
SPIT_SPREAD_MM = 2.5
# The players look at the table this long after a round's last card before they gather the
# cards (R19): the camera sees the last card land. The simulator deals the next round 3 s
# after the end, and the deal's hands come DEALING_S (2 s) before it.
GATHER_S = 0.8


@dataclass(frozen=True)
class Moment:
    piles: dict[str, tuple[PlacedCard, ...]]
    hands: tuple[Hand, ...]


@dataclass(frozen=True)
class _Key:
    t: float
    zone: str


class DemoTable:
    """`at(t)` gives the piles and hands at record time t; times must not go backwards."""

    def __init__(self, record: GameRecord, rng: random.Random,
                 layout: Layout | None = None, dealing_s: float = 2.5) -> None:
        self.record = record
        self.rng = rng
        self.layout = layout or default_layout()
        self.dealing_s = dealing_s
        self.events = list(record.events)
        self._i = 0
        self.scene: Scene | None = None
        # Illegal cards on their way home, by when they next change: (when, order, card, home
        # time). A card still on its pile (`at` set) is lifted into the hand at `when`; one in
        # the hand (`at` None) is back home at `when` (the Table never held it).
        self._pending: list[tuple[float, int, Loose, float]] = []
        self._gather_at: float | None = None  # when the players clear the mat (GATHER_S)
        self._seq = 0
        self._geometry: dict[tuple, PlacedCard] = {}
        self._tones = {p: rng.randrange(6) for p in PLAYERS}
        self._keys: dict[str, list[_Key]] = {p: [] for p in PLAYERS}
        self._build_hand_keys()

    @property
    def end_t(self) -> float:
        return self.events[-1].t if self.events else 0.0

    def due(self, t: float) -> list:
        """The events not shown yet that happen by `t`, in order."""
        out = []
        for e in self.events[self._i:]:
            if e.t > t:
                break
            out.append(e)
        return out

    # --- cards ------------------------------------------------------------------------------

    def _advance(self, t: float) -> None:
        while True:
            tb = self._pending[0][0] if self._pending else None
            e = self.events[self._i] if self._i < len(self.events) else None
            g = self._gather_at
            if g is not None and g <= t and (e is None or g <= e.t) and (tb is None or g <= tb):
                # The players gather every card to shuffle and deal again (R19).
                self.scene, self._pending, self._gather_at = None, [], None
                continue
            if tb is not None and tb <= t and (e is None or tb <= e.t):
                _, seq, lc, home_t = self._pending.pop(0)
                i = self.scene.loose.index(lc)
                if lc.at is None:
                    del self.scene.loose[i]  # back on its stockpile (or in the spit hand)
                else:
                    # The hand over the pile picks it up: it leaves the pile under the hand.
                    held = replace(lc, at=None)
                    self.scene.loose[i] = held
                    self._queue(home_t, seq, held, home_t)
                continue
            if e is None or e.t > t:
                return
            self._i += 1
            self._apply(e)

    def _apply(self, e) -> None:
        if isinstance(e, RoundStart):
            table = Table(self.record.rules, dict(e.counts), e.layouts)
            for p in PLAYERS:
                for k, z in enumerate(STOCK_ZONES[p]):
                    if z in e.tops:
                        table.apply(TurnUp(p, k, Card.parse(e.tops[z])))
            self.scene = Scene(table)
            self._pending = []
            self._gather_at = None
            self._geometry.clear()
        elif isinstance(e, Moved) and self.scene is not None:
            self.scene.table.apply(e.move)
        elif isinstance(e, Attempt) and self.scene is not None:
            m = e.move
            if isinstance(m, (Play, Spit)):
                t = self.scene.table
                home = (STOCK_ZONES[m.player][m.slot] if isinstance(m, Play) and m.slot is not None
                        else "hand:" + m.player)
                lc = Loose(m.card, m.player, home, m.pile, e.verdict, m, len(t.piles[m.pile]))
                self.scene.loose.append(lc)
                self._seq += 1
                self._queue(_lift_t(e), self._seq, lc, e.taken_back_t)
        elif isinstance(e, RoundOver):
            self._gather_at = e.t + GATHER_S  # then the mat is cleared (_advance)

    def _queue(self, when: float, seq: int, lc: Loose, home_t: float) -> None:
        self._pending.append((when, seq, lc, home_t))
        self._pending.sort(key=lambda x: (x[0], x[1]))

    def _place(self, key: tuple, face: str, turn_deg: float, spread_mm: float) -> PlacedCard:
        g = self._geometry.get(key)
        if g is None or g.face != face:
            r = self.rng
            g = PlacedCard(face, r.uniform(-spread_mm, spread_mm), r.uniform(-spread_mm, spread_mm),
                           r.uniform(-turn_deg, turn_deg))
            self._geometry[key] = g
        return g

    def piles(self) -> dict[str, tuple[PlacedCard, ...]]:
        if self.scene is None:
            return {z: () for z in ALL_ZONES}
        t, loose = self.scene.table, self.scene.loose
        out: dict[str, tuple[PlacedCard, ...]] = {}
        for p in PLAYERS:
            for k, zone in enumerate(STOCK_ZONES[p]):
                s = t.slots[p][k]
                down = s.down - sum(1 for lc in loose if lc.home == "down:" + zone)
                cards = [self._place((zone, "down", i), BACK, 5.0, 2.0) for i in range(max(0, down))]
                lifted = any(lc.home == zone and lc.card == s.up for lc in loose)
                if s.up is not None and not lifted:
                    cards.append(self._place((zone, s.up.code), s.up.code, STOCK_TURN_DEG, 3.0))
                for lc in loose:
                    if lc.at == zone:
                        cards.append(self._place((zone, lc.card.code), lc.card.code,
                                                 STOCK_TURN_DEG, 3.0))
                out[zone] = tuple(cards)
        for zone in SPIT_PILES:
            on = list(t.piles[zone])
            lifted = sum(1 for lc in loose if lc.home == zone)
            faces = [c.code for c in on[:len(on) - lifted]]
            for lc in loose:
                if lc.at == zone:
                    faces.insert(min(lc.pile_len, len(faces)), lc.card.code)
            out[zone] = tuple(self._place((zone, f), f, SPIT_TURN_DEG, SPIT_SPREAD_MM) for f in faces)
        return out

    # --- hands ------------------------------------------------------------------------------

    def _build_hand_keys(self) -> None:
        """Each player's hand as anchors (time, zone): where the hand must be at that instant.
        The hand stays over an anchor's zone for HOLD_S either side, glides between anchors
        closer than MAX_GLIDE_S, and is off the table otherwise. A card touching down is an
        anchor, so at that instant the player's hand is always over the pile (R14)."""
        anchors: dict[str, list[_Key]] = {p: [] for p in PLAYERS}

        def at(p: str, t: float, zone: str) -> None:
            anchors[p].append(_Key(t, zone))

        for e in self.events:
            if isinstance(e, RoundStart):
                for p in PLAYERS:
                    mine = STOCK_ZONES[p]
                    step = self.dealing_s / (len(mine) + 1)
                    for j, z in enumerate(mine):
                        at(p, e.t - self.dealing_s + (j + 0.5) * step, z)
            elif isinstance(e, (Moved, Attempt)):
                m, t = e.move, e.t
                if isinstance(m, Play) and m.slot is not None:
                    at(m.player, t - PICK_S, STOCK_ZONES[m.player][m.slot])
                    at(m.player, t, m.pile)
                elif isinstance(m, (Play, Spit)):
                    at(m.player, t, m.pile)
                elif isinstance(m, TurnUp):
                    at(m.player, t, STOCK_ZONES[m.player][m.slot])
                elif isinstance(m, Refill):
                    at(m.player, t - PICK_S, STOCK_ZONES[m.player][m.from_slot])
                    at(m.player, t, STOCK_ZONES[m.player][m.to_slot])
                if isinstance(e, Attempt) and isinstance(m, (Play, Spit)):
                    # The hand comes back over the pile for the illegal card (lifted then,
                    # _advance) and carries it home.
                    at(m.player, _lift_t(e), m.pile)
                    if isinstance(m, Play) and m.slot is not None:
                        at(m.player, e.taken_back_t, STOCK_ZONES[m.player][m.slot])
            elif isinstance(e, SlapMade):
                at(e.slap.player, e.t, e.slap.pile)
        for p in PLAYERS:
            # A touch outranks a pick-up at the same moment: stable sort keeps touches later.
            self._keys[p] = sorted(anchors[p], key=lambda k: k.t)

    def hands(self, t: float) -> tuple[Hand, ...]:
        out = []
        for p in PLAYERS:
            keys = self._keys[p]
            j = _bisect_keys(keys, t)
            before = keys[j] if j >= 0 else None
            after = keys[j + 1] if j + 1 < len(keys) else None
            if before is not None and t - before.t <= HOLD_S:
                x, y = self._palm(p, before.zone)
            elif after is not None and after.t - t <= HOLD_S:
                x, y = self._palm(p, after.zone)
            elif before is not None and after is not None and after.t - before.t <= MAX_GLIDE_S:
                x0, y0 = self._palm(p, before.zone)
                x1, y1 = self._palm(p, after.zone)
                f = (t - before.t) / (after.t - before.t)
                x, y = x0 + (x1 - x0) * f, y0 + (y1 - y0) * f
            else:
                continue  # the hand is off the table
            out.append(Hand(x, y, p, 0.0, self._tones[p], 0.95))
        return tuple(out)

    def _palm(self, player: str, zone: str) -> tuple[float, float]:
        cx, cy = self.layout.zones[zone].center
        return cx, cy + (PALM_BACK_MM if player == "p1" else -PALM_BACK_MM)

    # --- the moment -------------------------------------------------------------------------

    def at(self, t: float) -> Moment:
        self._advance(t)
        return Moment(self.piles(), self.hands(t))


def _lift_t(e: Attempt) -> float:
    """When the player's hand, back over the pile, picks up the illegal card of `e`: PICK_S
    before it is home at `taken_back_t`, as a card played is picked up PICK_S before it lands
    (never before it has landed)."""
    return max(e.t, e.taken_back_t - PICK_S)


def _bisect_keys(keys: list[_Key], t: float) -> int:
    lo, hi = 0, len(keys)
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid].t <= t:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


__all__ = ["DemoTable", "Moment", "SlapCall", "SlapResult"]
