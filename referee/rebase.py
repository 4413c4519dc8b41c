"""Taking the table as the camera reads it when the moves that led there cannot be known.

Hands over the piles for seconds while both players play fast can hide more moves than any
search can put in order (demo seed 3: a dozen cards onto a pile that read `?` for 3 s). The
referee then cannot rule those moves, but it need not stay lost for the rest of the round
either: every top is in view, so the position is known where it matters for the next
rulings, the tops. `rebase` builds that position from the last sure one, moving cards only
between the places they can have gone, so the 52 cards stay 52 (R1):

- a stockpile's top that changed left it; a new unknown card there was turned up from it
  (R11), or, if it has no face-down card left, on another of the player's stockpiles and
  moved there (R12); a known one was moved there (R12); a card the camera saw on it
  meanwhile, and nowhere before, was one of its face-down cards turned up (R11);
- a stockpile now empty gave its remaining face-down cards away unseen (they are counted in
  the player's hand: where exactly is not known, which is why the monitor then treats the
  card counts as uncertain);
- the stock cards that left and show nowhere lie under a spit pile's new top (R14); a new top
  nobody has seen is a spit card (R16); a spit still owed onto a pile that changed may lie
  under it, so nobody owes it any more.

Where the hidden cards lie in a pile is not seen either. Those the camera saw on the pile for a
while go in the order it saw them; those it never saw lie above them, just under the new top
(they were covered as soon as they landed, so most likely in the last moments under the hand).

A card an earlier rebase placed on a pile (`placed`) lies where that rebase guessed, which may
be wrong: it may show on a stockpile again (an illegal card taken back, R10) or on top of its
pile (the cards guessed above it lie beneath). Any other card on a pile stays there.

It refuses (None) a table that no moves can have led to: a card that lay under a pile's top
showing elsewhere, a pile that lost its cards, a face-down card from an empty stockpile; and
it waits while a spit pile is hidden, or a stockpile a card seen elsewhere came from (a hidden
stockpile keeps what the belief had). Pure: no clocks, no I/O.
"""
from __future__ import annotations

from typing import AbstractSet, Mapping, Sequence

from referee.candidates import may_spit_here
from referee.cards import Card
from referee.scene import Scene
from referee.state import Table
from referee.zones import BACK, EMPTY, PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN


def rebase(scene: Scene, readings: Mapping[str, str],
           seen: Mapping[str, Sequence[str]] | None = None,
           placed: AbstractSet[Card] = frozenset()) -> Scene | None:
    """A position that reads as `readings` on every zone read (a `?` keeps what the belief
    had), reached from `scene` by moves the camera did not see; None if there is none.
    `seen`: the cards each zone showed since `scene` (their order on a pile); `placed`: the
    cards an earlier rebase put on the piles where it guessed."""
    seen = seen or {}
    old, lifted = _lift_placed(scene.table, readings, placed)
    codes = [r for r in readings.values() if r not in (BACK, EMPTY, UNKNOWN)]
    if len(codes) != len(set(codes)):
        return None  # a card seen twice (R1)
    if any(readings.get(p, UNKNOWN) == UNKNOWN for p in SPIT_PILES):
        return None  # cards may have gone there: wait until it shows
    on_stock = {s.up.code: (p, i) for p in PLAYERS for i, s in enumerate(old.slots[p])
                if s.up is not None}
    if any(readings.get(STOCK_ZONES[p][i], UNKNOWN) == UNKNOWN
           for code, (p, i) in on_stock.items() if code in codes):
        return None  # a card seen elsewhere may still be on its hidden stockpile: wait
    in_pile = {c.code: pile for pile, cards in old.piles.items() for c in cards}
    turned = _turned_up_seen(old, seen, on_stock, in_pile)
    if any(readings.get(STOCK_ZONES[p][i], UNKNOWN) == UNKNOWN for p, i in turned.values()):
        return None  # a card turned up there may still be on the hidden stockpile: wait
    t = old.copy()
    departed: list[Card] = []
    orphans: list[tuple[str, int]] = []
    freed = {p: 0 for p in PLAYERS}
    known_up = {**on_stock, **turned}  # where each face-up card seen on a stockpile was
    for p in PLAYERS:
        for i, zone in enumerate(STOCK_ZONES[p]):
            reading = readings.get(zone, UNKNOWN)
            mine = [Card.parse(c) for c, at in turned.items() if at == (p, i) and c != reading]
            if not _restock(old, t, p, i, reading, known_up, in_pile, departed, lifted,
                            orphans, freed, mine):
                return None
    for p, i in orphans:
        if not _turned_elsewhere(t, readings, p, i, freed):
            return None  # a card turned up from nothing
    # Stock cards that left and show on no stockpile went onto the spit piles.
    shown = {r for z, r in readings.items() if z not in SPIT_PILES}
    departed = [c for c in departed if c.code not in shown]
    changed = []
    for pile in SPIT_PILES:
        reading = readings.get(pile, UNKNOWN)
        top = old.piles[pile][-1] if old.piles[pile] else None
        if reading == (top.code if top is not None else EMPTY):
            continue  # as it was (a pile nobody has spat on yet reads empty, R20)
        if reading in (EMPTY, BACK) or reading in in_pile:
            return None  # cards do not leave a spit pile before the round ends (R14, R18)
        changed.append(pile)
    tops = {pile: Card.parse(readings[pile]) for pile in changed}
    hidden = [c for c in departed if c not in tops.values()]
    if hidden and not changed:
        return None  # cards left the stockpiles and are nowhere: not a table moves made
    under = _under_new_tops(hidden, tops, seen)
    for pile, card in tops.items():
        if card not in departed and not _spat(t, pile):
            return None
        t.piles[pile].extend(under[pile] + [card])
    for p in sorted(t.pending_spits):
        if any(may_spit_here(t, p, pile) for pile in tops):
            # Its spit card may lie under what covers the pile now: kept owing, it would block
            # every "Spit!" call for the rest of the round (demo seed 18: Q♠ spat and covered
            # by K♣ at once). The counts are uncertain from here anyway.
            t.pending_spits.discard(p)
    t._visible |= {Card.parse(c) for c in codes}
    t._recount()
    if t.card_count() != scene.table.card_count():
        return None
    return Scene(t)


def _under_new_tops(hidden: Sequence[Card], tops: Mapping[str, Card],
                    seen: Mapping[str, Sequence[str]]) -> dict[str, list[Card]]:
    """The hidden cards under each new top: a card seen on a pile goes on that pile, in the
    order seen; the rest (which pile they went on is not known) on the first new top's pile,
    above the cards seen there."""
    under: dict[str, list[Card]] = {pile: [] for pile in tops}
    rest = list(hidden)
    for pile in tops:
        for code in seen.get(pile, ()):
            card = next((c for c in rest if c.code == code), None)
            if card is not None:
                rest.remove(card)
                under[pile].append(card)
    if tops:
        under[next(iter(tops))].extend(rest)
    return under


def _turned_up_seen(old: Table, seen: Mapping[str, Sequence[str]],
                    on_stock: Mapping[str, tuple[str, int]],
                    in_pile: Mapping[str, str]) -> dict[str, tuple[str, int]]:
    """The cards the camera saw on a stockpile that the belief had nowhere in view: face-down
    cards of that stockpile turned up out of sight (R11; nothing is put on a stockpile that
    still has cards, R12). Each left the stockpile one face-down card fewer, wherever it went
    after (game 23000082: 9♥ turned up and played, the stockpile read face down again, and the
    belief kept 9♥'s place among its face-down cards, so the pile ran out "too early")."""
    known = set(on_stock) | set(in_pile) | {
        c.code for p in PLAYERS for s in old.slots[p] for c in s.under}
    return {code: (p, i) for p in PLAYERS for i, zone in enumerate(STOCK_ZONES[p])
            for code in seen.get(zone, ()) if code not in known}


def _lift_placed(old: Table, readings: Mapping[str, str],
                 placed: AbstractSet[Card]) -> tuple[Table, set[str]]:
    """`old` with the placed cards that now show elsewhere, or on top of their own pile, moved
    where they show: to the top of their pile, or off it (the codes returned: a stockpile
    that shows one has it as its top, _restock)."""
    shows = {r: z for z, r in readings.items()
             if r not in (BACK, EMPTY, UNKNOWN) and z not in SPIT_PILES}
    shows.update({readings[p]: p for p in SPIT_PILES if readings.get(p, UNKNOWN) != UNKNOWN})
    moved = [(pile, card, shows[card.code]) for pile in SPIT_PILES
             for card in old.piles[pile][:-1] if card in placed and card.code in shows]
    moved += [(pile, old.piles[pile][-1], shows[old.piles[pile][-1].code])
              for pile in SPIT_PILES if old.piles[pile] and old.piles[pile][-1] in placed
              and shows.get(old.piles[pile][-1].code, pile) != pile]
    # Not from one spit pile to the other: no move does that.
    moved = [m for m in moved if m[2] == m[0] or m[2] not in SPIT_PILES]
    if not moved:
        return old, set()
    t = old.copy()
    lifted = set()
    for pile, card, zone in moved:
        t.piles[pile].remove(card)
        if zone == pile:
            t.piles[pile].append(card)
        else:
            lifted.add(card.code)
    return t, lifted


def _restock(old: Table, t: Table, player: str, i: int, reading: str,
             on_stock: Mapping[str, tuple[str, int]], in_pile: Mapping[str, str],
             departed: list[Card], lifted: AbstractSet[str],
             orphans: list[tuple[str, int]], freed: dict[str, int],
             turned: Sequence[Card] = ()) -> bool:
    """Make stockpile `i` of `player` read `reading`; the cards that left go to `departed`.
    `turned`: cards seen turned up on it that have left it (_turned_up_seen). A card nobody
    has seen on a stockpile with no face-down card left is put in `orphans` (turned up on
    another, _turned_elsewhere); face-down cards counted with the spit cards are added to
    `freed`."""
    before = old.slots[player][i]
    slot = t.slots[player][i]
    if turned:
        # Turned up from beneath the old top, which had left first (R11).
        if slot.down < len(turned) or (before.up is not None and reading == before.up.code):
            return False
        slot.down -= len(turned)
        departed.extend(turned)
    if reading == UNKNOWN or (before.up is not None and reading == before.up.code):
        return True
    if before.up is None and reading == BACK and before.down > 0:
        return slot.down > 0
    if before.up is not None:
        departed.append(before.up)
    departed.extend(before.under)
    slot.up = None
    slot.under = []
    if reading == EMPTY:
        # Its face-down cards were turned up and played out of sight: where they went is not
        # known, so they are counted with the player's spit cards (the counts are uncertain).
        t.spit_hand[player] += slot.down
        freed[player] += slot.down
        slot.down = 0
        return True
    if reading == BACK:
        return slot.down > 0
    if reading in in_pile:
        return False  # a played card stays on its pile (R14)
    card = Card.parse(reading)
    if reading in lifted:
        slot.up = card  # taken back off the pile where a rebase had guessed it lay
        return True
    if on_stock.get(reading, (player, i)) == (player, i):  # unseen, or seen turned up here
        if slot.down == 0:
            orphans.append((player, i))  # turned up elsewhere, or from nothing
        else:
            slot.down -= 1  # turned up (R11)
    slot.up = card
    return True


def _turned_elsewhere(t: Table, readings: Mapping[str, str], player: str, i: int,
                      freed: dict[str, int]) -> bool:
    """A card nobody had seen shows on stockpile `i`, which has no face-down card: it was
    turned up on another of the player's stockpiles and moved here (R11, R12). Which one is
    not known: one that still shows a face-down card beneath, or one now empty (whose cards
    the rebase counted with the spit cards). False when none can have given it."""
    for j, s in enumerate(t.slots[player]):
        if j == i or s.down == 0:
            continue
        if readings.get(STOCK_ZONES[player][j], UNKNOWN) == BACK and s.up is None:
            if s.down >= 2:
                s.down -= 1
                return True
        elif s.up is not None:
            s.down -= 1
            return True
    if freed[player] > 0:
        freed[player] -= 1
        t.spit_hand[player] -= 1
        return True
    return False


def _spat(t: Table, pile: str) -> bool:
    """A card nobody has seen tops `pile`: a spit card (R16) of a player who may spit there."""
    for p in PLAYERS:
        if t.spit_hand[p] > 0 and may_spit_here(t, p, pile):
            t.spit_hand[p] -= 1
            t.pending_spits.discard(p)
            if t.side[p] is None:
                t.side[p] = pile
            return True
    return False
