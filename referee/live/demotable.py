"""The demo's physical table over time: a simulated game (GameRecord) turned into what lies on
each zone and where the players' hands are, moment by moment, for the renderer.

The cards follow the record exactly, illegal cards included (an illegal card lies on its pile
until the bot takes it back, as on a real table). Hands reach from each player's side: over the
stockpile a card leaves, across the table, over the pile it lands on, and away; over the piles
while dealing. One hand per player (R9). Card positions are drawn once per card, so a card
does not jump about between frames.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from calibration.layout import Layout, default_layout
from referee.infer import Loose, Scene
from referee.moves import Play, Refill, Spit, TurnUp
from referee.simulate import (Attempt, GameRecord, Moved, RoundOver, RoundStart, SlapCall,
                              SlapMade, SlapResult)
from referee.state import Table
from referee.cards import Card
from referee.zones import ALL_ZONES, PLAYERS, SPIT_PILES, STOCK_ZONES
from vision.render import BACK, Hand, PlacedCard

# Hand timing around a card touching down at t (seconds): the hand picks the card up over its
# stockpile, crosses the table and lets go over the pile, then pulls back.
PICK_S = (0.30, 0.18)   # over the source zone from t-0.30 to t-0.18
DROP_S = (0.10, 0.12)   # over the target zone from t-0.10 to t+0.12
TURN_S = (0.20, 0.10)   # over a stockpile while turning its top card up
MAX_GLIDE_S = 0.35      # a hand moves between two positions closer in time than this
DEAL_SWEEP_S = 0.45     # while dealing, a hand rests this long over each zone in turn
# Where the palm sits relative to a zone's centre, toward its player (mm): the fingers then
# lie over the card, as when picking it up.
PALM_BACK_MM = 30.0
# Stock tops lie within ±STOCK_TURN_DEG; spit cards are dropped in a hurry, more askew.
STOCK_TURN_DEG = 14.0
SPIT_TURN_DEG = 20.0


@dataclass(frozen=True)
class Moment:
    piles: dict[str, tuple[PlacedCard, ...]]
    hands: tuple[Hand, ...]


@dataclass
class _Key:
    t: float
    zone: str | None  # None: the hand is off the table


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
        self._pending: list[tuple[float, int, Loose]] = []
        self._seq = 0
        self._geometry: dict[tuple, PlacedCard] = {}
        self._tones = {p: rng.randrange(6) for p in PLAYERS}
        self._keys: dict[str, list[_Key]] = {p: [] for p in PLAYERS}
        self._build_hand_keys()

    @property
    def end_t(self) -> float:
        return self.events[-1].t if self.events else 0.0

    def next_event(self):
        return self.events[self._i] if self._i < len(self.events) else None

    # --- cards ------------------------------------------------------------------------------

    def _advance(self, t: float) -> None:
        while True:
            tb = self._pending[0][0] if self._pending else None
            e = self.events[self._i] if self._i < len(self.events) else None
            if tb is not None and tb <= t and (e is None or tb <= e.t):
                _, _, lc = self._pending.pop(0)
                self.scene.loose.remove(lc)
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
                self._pending.append((e.taken_back_t, self._seq, lc))
                self._pending.sort(key=lambda x: (x[0], x[1]))
        elif isinstance(e, RoundOver):
            # The players gather every card to shuffle and deal again (R19): the mat is cleared.
            self.scene = None
            self._pending = []

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
            out[zone] = tuple(self._place((zone, f), f, SPIT_TURN_DEG, 5.0) for f in faces)
        return out

    # --- hands ------------------------------------------------------------------------------

    def _build_hand_keys(self) -> None:
        """Keyframes of each player's hand: (time, zone or None), in time order."""
        spans: dict[str, list[tuple[float, float, str]]] = {p: [] for p in PLAYERS}

        def over(p: str, zone: str, a: float, b: float) -> None:
            spans[p].append((a, b, zone))

        for e in self.events:
            if isinstance(e, RoundStart):
                zones = [z for z in ALL_ZONES if z.startswith("p")]
                for p in PLAYERS:
                    mine = [z for z in zones if z.startswith(p)]
                    step = min(DEAL_SWEEP_S, self.dealing_s / max(1, len(mine)))
                    for j, z in enumerate(mine):
                        a = e.t - self.dealing_s + j * step
                        over(p, z, a, a + step * 0.8)
            elif isinstance(e, (Moved, Attempt)):
                m, t = e.move, e.t
                if isinstance(m, Play) and m.slot is not None:
                    over(m.player, STOCK_ZONES[m.player][m.slot], t - PICK_S[0], t - PICK_S[1])
                    over(m.player, m.pile, t - DROP_S[0], t + DROP_S[1])
                elif isinstance(m, (Play, Spit)):
                    over(m.player, m.pile, t - DROP_S[0], t + DROP_S[1])
                elif isinstance(m, TurnUp):
                    over(m.player, STOCK_ZONES[m.player][m.slot], t - TURN_S[0], t + TURN_S[1])
                elif isinstance(m, Refill):
                    over(m.player, STOCK_ZONES[m.player][m.from_slot], t - PICK_S[0], t - PICK_S[1])
                    over(m.player, STOCK_ZONES[m.player][m.to_slot], t - DROP_S[0], t + DROP_S[1])
                if isinstance(e, Attempt) and isinstance(m, (Play, Spit)):
                    tb = e.taken_back_t
                    over(m.player, m.pile, tb - 0.2, tb - 0.05)
                    if isinstance(m, Play) and m.slot is not None:
                        over(m.player, STOCK_ZONES[m.player][m.slot], tb + 0.05, tb + 0.2)
            elif isinstance(e, SlapMade):
                over(e.slap.player, e.slap.pile, e.t - 0.08, e.t + 0.15)
        for p in PLAYERS:
            keys: list[_Key] = []
            for a, b, zone in sorted(spans[p]):
                if keys and keys[-1].t > a:
                    a = keys[-1].t  # one hand: a later reach waits for the earlier one
                    if a >= b:
                        continue
                if keys and a - keys[-1].t > MAX_GLIDE_S:
                    keys.append(_Key(keys[-1].t + 1e-6, None))
                keys.append(_Key(a, zone))
                keys.append(_Key(b, zone))
            keys.append(_Key((keys[-1].t if keys else 0.0) + 1e-6, None))
            self._keys[p] = keys

    def hands(self, t: float) -> tuple[Hand, ...]:
        out = []
        for p in PLAYERS:
            keys = self._keys[p]
            j = _bisect_keys(keys, t)
            if j < 0 or j + 1 >= len(keys):
                continue
            k0, k1 = keys[j], keys[j + 1]
            if k0.zone is None:
                continue
            x0, y0 = self._palm(p, k0.zone)
            if k1.zone is None or k1.zone == k0.zone:
                x, y = x0, y0
            else:
                x1, y1 = self._palm(p, k1.zone)
                f = (t - k0.t) / max(1e-6, k1.t - k0.t)
                x, y = x0 + (x1 - x0) * f, y0 + (y1 - y0) * f
            out.append(Hand(x, y, p, 0.0, self._tones[p], 0.95))
        return tuple(out)

    def _palm(self, player: str, zone: str) -> tuple[float, float]:
        cx, cy = self.layout.zones[zone].center
        return cx, cy + (PALM_BACK_MM if player == "p1" else -PALM_BACK_MM)

    # --- the moment -------------------------------------------------------------------------

    def at(self, t: float) -> Moment:
        self._advance(t)
        return Moment(self.piles(), self.hands(t))


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
