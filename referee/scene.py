"""The monitor's belief: where every card lies, as the referee knows it. Pure.

The belief is a `Scene`: the rules engine's `Table` (the legal, public position) plus the
`Loose` cards that physically lie where the Table says they do not: a card ruled illegal that
still sits on a spit pile until it is taken back, a played card lifted back off a pile (R14), a
card stacked on another stockpile (R12) or laid out as a sixth pile (R13). From a Scene the
referee knows what each zone should read (`expected`). A `Step` (a move judged by
`Table.check`, or a loose card going home) changes it (`Scene.apply`); referee.infer searches
for the steps that make it read what the camera shows.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from referee.cards import Card
from referee.moves import Move, Play, Refill, Spit, TakeBack, TurnUp
from referee.state import Table, Verdict
from referee.zones import ALL_ZONES, BACK, EMPTY, PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN

SIXTH_SLOT = 5  # the slot index of a stockpile beyond the five zones (R13)

# The spit piles as a set, and each stock zone's player and slot index (`p1.stock3` → p1, 2).
PILES = frozenset(SPIT_PILES)
SLOT_OF: dict[str, tuple[str, int]] = {
    z: (p, i) for p in PLAYERS for i, z in enumerate(STOCK_ZONES[p])}
# The stockpiles a move, applied to the Table, changes (Scene.settle).
_SLOTS_MOVED = {
    Play: lambda m: (m.slot,), TurnUp: lambda m: (m.slot,), Spit: lambda m: (),
    Refill: lambda m: (m.from_slot, m.to_slot), TakeBack: lambda m: (m.slot,),
}


@dataclass(frozen=True, slots=True)
class Loose:
    """A card lying where the Table says it is not.

    `home` is where it belongs: a stock zone (it was that slot's face-up top), a spit pile (it
    was legally played there and lifted off, R14), `hand:p1` (from the spit cards) or
    `down:p1.stock3` (a face-down card taken without turning, R11). `at` is the zone it lies on
    now (None: out of every zone, e.g. a sixth stockpile). `verdict` is the ruling it got.
    """

    card: Card
    player: str
    home: str
    at: str | None
    verdict: Verdict
    move: Move
    # Cards on the pile (legal ones, in the Table) when this card landed: a legal card played
    # later lands on top of it and covers it until it is taken back from beneath.
    pile_len: int = 0


@dataclass(frozen=True, slots=True)
class Step:
    """One step of an explanation: a move with the verdict it got, or a loose card going home
    (`returned`). With `held`, the loose card only leaves the pile it lay on, into its
    player's hand on the way home (R9, R14): it lies in no zone until a later step sends it
    home (candidates.lift)."""

    move: Move
    verdict: Verdict
    returned: Loose | None = None
    held: bool = False

    @property
    def legal(self) -> bool:
        return self.verdict.ok and self.returned is None


@dataclass
class Scene:
    table: Table
    loose: list[Loose] = field(default_factory=list)
    # What each zone should read, kept while the search holds the scene still (settle): the
    # search asks the same zones of each position many times over. None: read afresh each
    # time, for a scene that may still change (the monitor's, one being stepped through).
    _memo: dict[str, str] | None = field(default=None, init=False, repr=False, compare=False)
    _known: set[Card] | None = field(default=None, init=False, repr=False, compare=False)

    def copy(self) -> "Scene":
        return Scene(self.table.copy(), list(self.loose))

    def settle(self, before: "Scene", step: Step) -> None:
        """Keep what each zone should read from now on, this scene being `before` after `step`:
        what `before` knew of the zones the step leaves as they were is kept. A zone reads
        from its own pile or slot and the loose cards at it or from it."""
        memo = before._memo
        if not memo:
            self._memo = {}
            return
        move = step.move
        lc = (step.returned if step.returned is not None
              else None if step.verdict.ok else self.loose[-1])
        touched = set() if lc is None else {lc.at, lc.home.rpartition(":")[2]}
        if step.verdict.ok and (step.returned is None or isinstance(move, Spit)):
            touched.add(getattr(move, "pile", None))
            stock = STOCK_ZONES[move.player]
            for slot in _SLOTS_MOVED[type(move)](move):
                if slot is not None and slot < SIXTH_SLOT:
                    touched.add(stock[slot])
        self._memo = {z: code for z, code in memo.items() if z not in touched}

    # --- what the camera should read --------------------------------------------------------

    def expected(self, zone: str) -> str:
        memo = self._memo
        if memo is None:
            return self._expected(zone)
        code = memo.get(zone)
        if code is None:
            code = memo[zone] = self._expected(zone)
        return code

    def _expected(self, zone: str) -> str:
        t = self.table
        for lc in reversed(self.loose):
            if lc.at == zone and (zone not in PILES or len(t.piles[zone]) <= lc.pile_len):
                return lc.card.code
        if zone in PILES:
            # Played cards lifted off this pile (R14) no longer show, wherever they lay in it:
            # a card played since on a lifted one shows (game 10000045: 3♠ on 2♠, 2♠ back on
            # its stockpile; counted from the top, the pile "showed" 2♠ until 2♦ went on 3♠,
            # and "2♦ on 3♠" was ruled where 3♠ was the pile's top).
            lifted = {lc.card for lc in self.loose if lc.home == zone}
            for card in reversed(t.piles[zone]):
                if card not in lifted:
                    return card.code
            return EMPTY
        player, slot = SLOT_OF[zone]
        s = t.slots[player][slot]
        if s.up is not None and not any(lc.home == zone and lc.card == s.up for lc in self.loose):
            return s.up.code
        down = s.down - sum(1 for lc in self.loose if lc.home == "down:" + zone)
        return BACK if down > 0 else EMPTY

    def readings(self) -> dict[str, str]:
        return {z: self.expected(z) for z in ALL_ZONES}

    def located(self, card: Card) -> str | None:
        """The zone where `card` physically lies face up now, or None."""
        for z in ALL_ZONES:
            if self.expected(z) == card.code:
                return z
        return None

    def known(self, card: Card) -> bool:
        """True when the referee has seen `card` face up this round (on the table or loose)."""
        if self._memo is not None:
            if self._known is None:
                t = self.table
                self._known = t._visible.union(lc.card for lc in self.loose).union(
                    *t.piles.values())
            return card in self._known
        return card in self.table._visible or any(lc.card == card for lc in self.loose) or any(
            card in cards for cards in self.table.piles.values())

    # --- applying steps ------------------------------------------------------------------------

    def apply(self, step: Step) -> None:
        if step.returned is not None:
            if step.held:
                self.loose[self.loose.index(step.returned)] = replace(step.returned, at=None)
                return
            self.loose.remove(step.returned)
            if isinstance(step.move, Spit) and step.verdict.ok:
                self.table.apply(step.move)
            return
        if step.verdict.ok:
            self.table.apply(step.move)
            return
        self.loose.append(_loose_for(self, step.move, step.verdict))


def _loose_for(scene: Scene, move: Move, verdict: Verdict) -> Loose:
    t = scene.table
    if isinstance(move, Play):
        if move.slot is None:
            home = "hand:" + move.player
        else:
            zone = STOCK_ZONES[move.player][move.slot]
            s = t.slots[move.player][move.slot]
            home = zone if s.up == move.card else "down:" + zone
        return Loose(move.card, move.player, home, move.pile, verdict, move,
                     len(t.piles[move.pile]))
    if isinstance(move, Spit):
        return Loose(move.card, move.player, "hand:" + move.player, move.pile, verdict, move,
                     len(t.piles[move.pile]))
    if isinstance(move, Refill):
        home = STOCK_ZONES[move.player][move.from_slot]
        at = STOCK_ZONES[move.player][move.to_slot] if move.to_slot < SIXTH_SLOT else None
        return Loose(move.card, move.player, home, at, verdict, move)
    if isinstance(move, TakeBack):
        at = STOCK_ZONES[move.player][move.slot] if move.slot is not None else None
        return Loose(move.card, move.player, move.pile, at, verdict, move)
    raise ValueError(f"no loose card for {move!r}")


def position_key(scene: Scene) -> tuple:
    """Equal for two scenes with the same cards in the same places, face-down counts and loose
    cards included."""
    t = scene.table
    return (tuple((s.down, s.up) for p in PLAYERS for s in t.slots[p]),
            tuple(tuple(t.piles[p]) for p in SPIT_PILES),
            tuple(t.spit_hand[p] for p in PLAYERS), frozenset(t.pending_spits),
            tuple((lc.card, lc.home, lc.at, lc.verdict.kind) for lc in scene.loose))


def mismatches(scene: Scene, readings: Mapping[str, str]) -> list[str]:
    return [z for z in ALL_ZONES
            if readings.get(z, UNKNOWN) != UNKNOWN and scene.expected(z) != readings[z]]


def cards_on(scene: Scene, pile: str) -> set[str]:
    """The codes of the cards on a spit pile in `scene`, those lying loose on it included."""
    codes = {c.code for c in scene.table.piles[pile]}
    codes.update(lc.card.code for lc in scene.loose if lc.at == pile)
    return codes

