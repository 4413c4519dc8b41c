"""The steps that could change what a zone reads: the branches of the move search
(referee.infer). Pure.

The search asks, for a zone that still reads otherwise than the camera shows, which single
steps could change it (`candidates`): a loose card going home, a card played onto a spit pile
(where it shows, or under the card that now covers it, R14) or lifted back off one, a
stockpile's top moved to another stockpile (R12) or laid out as a sixth pile (R13), a
face-down card turned up, or played without turning (R11), a spit card nobody has seen.
Each comes with the verdict `Table.check` gives it. The camera cannot see whose hand a spit
card came from: `may_spit_here` says to whom it is attributed (R16 Decision, `assumed_side`).
"""
from __future__ import annotations

from typing import Iterator, Mapping, Sequence

from referee.cards import Card
from referee.moves import Play, Refill, Spit, TakeBack, TurnUp
from referee.scene import PILES, SIXTH_SLOT, SLOT_OF, Loose, Scene, Step
from referee.state import DEFAULT_SIDE, Table
from referee.zones import (ALL_ZONES, BACK, EMPTY, PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN,
                           other_pile, other_player)


def candidates(scene: Scene, readings: Mapping[str, str], zone: str,
               no_face_down: frozenset[str], seen: Mapping[str, Sequence[str]],
               sixth: bool, away: bool = False) -> Iterator[Step]:
    """Steps that change what `zone` reads (the first zone that still differs). `away`: the
    zone has readings of its trail still to pass (its top must leave, even if it shows there
    at the end)."""
    t = scene.table
    want = readings[zone]
    # A loose card lying on this zone goes home (taken back / returned); so does one that is
    # visibly back home already (other steps may depend on its leaving the pile), and one
    # that shows on this pile now, lying on the other: taken back, from under the cards that
    # covered it there too, and played here from its home (R14; demo seed 19: K♦, illegal
    # on J♠, covered by 10♦ and 9♦, taken back and played on A♣); or on another stockpile of
    # its player's: taken back and moved to an empty one (R12; demo seed 19: 5♣, illegal on
    # 7♥, laid from the pile into the empty stockpile 1 while stockpile 3 showed its back).
    # So does a card held in a hand (lift) that a pile showed since: played from there and
    # covered (demo seed 12: 3♠, lifted off 5♠, seen on 2♣ and covered by 3♣).
    for lc in scene.loose:
        if (lc.at == zone or lc.home == zone or lc.home == "down:" + zone
                or readings.get(lc.home) == lc.card.code
                or lc.card.code in seen.get(lc.home, ())
                or (want == lc.card.code and lc.at != zone
                    and (zone in PILES or SLOT_OF[zone][0] == lc.player))
                or (lc.at is None and isinstance(lc.move, Play)
                    and lc.card.code in seen.get(zone, ()))):
            yield from _returns(scene, lc, readings)
        held = lift(scene, lc, readings, zone, seen)
        if held is not None:
            yield held
    if zone in PILES:
        yield from _pile_candidates(scene, readings, zone, want, no_face_down, seen)
        # A played card lifted back off this pile onto a stockpile (R14).
        top = t.top(zone)
        if top is not None and scene.expected(zone) == top.code:
            for p in PLAYERS:
                for i, z in enumerate(STOCK_ZONES[p]):
                    if readings.get(z) == top.code:
                        move = TakeBack(p, zone, i, top)
                        yield Step(move, t.check(move))
        return
    player, slot = SLOT_OF[zone]
    s = t.slots[player][slot]
    exp = scene.expected(zone)
    if exp not in (BACK, EMPTY):
        # The face-up top leaves: played onto a pile, moved to another slot, or out of view.
        card = Card.parse(exp)
        if s.up == card:
            yield from _departures(scene, readings, player, slot, card, seen, sixth, away)
        return
    if exp == BACK:
        # Turned up: the card it shows now, or one it showed for a while since the referee was
        # last sure of the table (it may have been played since).
        shown = [want] if want not in (BACK, EMPTY, UNKNOWN) else []
        for code in dict.fromkeys(shown + list(seen.get(zone, ()))):
            card = Card.parse(code)
            if not scene.known(card):
                move = TurnUp(player, slot, card)
                yield Step(move, t.check(move))
    if exp == BACK and want in (EMPTY, BACK) and zone in no_face_down:
        # The zone was hidden: a card may have been turned up unseen and then played.
        for pile in SPIT_PILES:
            for code in dict.fromkeys([readings.get(pile, UNKNOWN)] + list(seen.get(pile, ()))):
                if code in (UNKNOWN, BACK, EMPTY) or _seen_on_stock(seen, code):
                    continue
                c = Card.parse(code)
                if not scene.known(c):
                    move = TurnUp(player, slot, c)
                    yield Step(move, t.check(move))
    if exp == BACK and want == EMPTY and zone not in no_face_down:
        # Face-down cards played without turning (R11): the card shows up on a pile.
        for pile in SPIT_PILES:
            shows = readings.get(pile, UNKNOWN)
            if shows not in (UNKNOWN, BACK, EMPTY) and not _seen_on_stock(seen, shows):
                c = Card.parse(shows)
                if not scene.known(c):
                    move = Play(player, slot, pile, c)
                    yield Step(move, t.check(move))
    if (exp == EMPTY and want not in (BACK, EMPTY, UNKNOWN)
            and not scene.known(Card.parse(want)) and not _seen_on_stock(
                {q: v for q, v in seen.items() if q != zone}, want)):
        # A card nobody has seen fills this empty slot: turned up unseen on another
        # stockpile of the player's that a hand hid, then moved here (R12).
        for j, z in enumerate(STOCK_ZONES[player]):
            if z != zone and z in no_face_down and scene.expected(z) == BACK:
                move = TurnUp(player, j, Card.parse(want))
                yield Step(move, t.check(move))
    if exp == EMPTY:
        # A card of the player's seen in this empty slot for a while, and gone from it since:
        # moved here (R12) and played from here while a hand hid the pile (game 1000801 with
        # hands over a tenth of the moves: P2's Q♠ moved from stockpile 4 into the empty
        # stockpile 1, seen there, and played on K♣; only "Q♠ played from stockpile 4" was
        # searched, which the camera's Q♠ on stockpile 1 ruled out, and the table was taken as
        # read).
        for code in seen.get(zone, ()):
            if code not in (want, BACK, EMPTY, UNKNOWN):
                yield from _refill_into(scene, player, slot, Card.parse(code))
    if want not in (BACK, EMPTY, UNKNOWN):
        card = Card.parse(want)
        for pile in SPIT_PILES:
            if t.top(pile) == card and scene.expected(pile) == card.code:
                # A played card lifted back off its pile onto this stockpile (R14).
                move = TakeBack(player, pile, slot, card)
                yield Step(move, t.check(move))
        yield from _refill_into(scene, player, slot, card)


def _refill_into(scene: Scene, player: str, slot: int, card: Card) -> Iterator[Step]:
    """`card`, the face-up top of another of `player`'s stockpiles, moved into `slot` (R12)."""
    t = scene.table
    src = scene.located(card)
    if src in SLOT_OF and SLOT_OF[src][0] == player:
        from_slot = SLOT_OF[src][1]
        if t.slots[player][from_slot].up == card:
            move = Refill(player, from_slot, slot, card)
            yield Step(move, t.check(move))


def _pile_candidates(scene: Scene, readings: Mapping[str, str], pile: str, want: str,
                     no_face_down: frozenset[str],
                     seen: Mapping[str, Sequence[str]]) -> Iterator[Step]:
    t = scene.table
    for code in seen.get(pile, ()):
        # A spit card seen on this pile for a while and covered since.
        if code != want and not scene.known(Card.parse(code)) and not _seen_on_stock(seen, code):
            for p in PLAYERS:
                if t.spit_hand[p] > 0 and may_spit_here(t, p, pile):
                    move = Spit(p, pile, Card.parse(code))
                    yield Step(move, t.check(move))
        elif code != want:
            # A stockpile's top seen on this pile for a while and back home (or covered)
            # since: played there, then taken back.
            src = scene.located(Card.parse(code))
            if src in SLOT_OF:
                p, i = SLOT_OF[src]
                if t.slots[p][i].up is not None and t.slots[p][i].up.code == code:
                    move = Play(p, i, pile, t.slots[p][i].up)
                    yield Step(move, t.check(move))
    if want in (BACK, EMPTY, UNKNOWN):
        return
    card = Card.parse(want)
    src = scene.located(card)
    if src is not None:
        if src in SLOT_OF:
            p, i = SLOT_OF[src]
            if t.slots[p][i].up == card:
                move = Play(p, i, pile, card)
                yield Step(move, t.check(move))
        return
    if not scene.known(card) and not _seen_on_stock(seen, want):
        # A card nobody has seen: a spit, or (illegal) a spit card or face-down card played.
        for p in PLAYERS:
            if t.spit_hand[p] > 0 and may_spit_here(t, p, pile):
                move = Spit(p, pile, card)
                yield Step(move, t.check(move))
        for p in PLAYERS:
            for i, z in enumerate(STOCK_ZONES[p]):
                s = t.slots[p][i]
                if (s.up is None and s.down > 0 and z not in no_face_down
                        and readings.get(z, UNKNOWN) == (BACK if s.down > 1 else EMPTY)
                        and scene.expected(z) == BACK and s.down == 1):
                    move = Play(p, i, pile, card)
                    yield Step(move, t.check(move))
    yield from _covered_plays(scene, readings, pile, seen)


def _covered_plays(scene: Scene, readings: Mapping[str, str], pile: str,
                   seen: Mapping[str, Sequence[str]], exclude: Card | None = None
                   ) -> Iterator[Step]:
    """Plays of stock cards that left their visible zone, are seen nowhere, and may lie under
    the card that now shows on `pile` (R14: the card underneath touched first)."""
    t = scene.table
    if readings.get(pile) == scene.expected(pile):
        return
    for p in PLAYERS:
        for i, z in enumerate(STOCK_ZONES[p]):
            s = t.slots[p][i]
            if s.up is None or s.up == exclude or scene.expected(z) != s.up.code:
                continue
            now = readings.get(z, UNKNOWN)
            if now == UNKNOWN or now == s.up.code:
                continue
            if not _could_be_covered(readings, p, s.up.code, _empties(scene, p)) or _seen_elsewhere(
                    seen, s.up.code, pile):
                continue
            move = Play(p, i, pile, s.up)
            yield Step(move, t.check(move))


def _departures(scene: Scene, readings: Mapping[str, str], player: str, slot: int,
                card: Card, seen: Mapping[str, Sequence[str]], sixth: bool,
                away: bool = False) -> Iterator[Step]:
    t = scene.table
    code = card.code
    # Seen gone from its stockpile and back home now: it may have gone under the card that
    # covers a pile now, and been taken back from beneath it (R14).
    back_home = away and readings.get(STOCK_ZONES[player][slot]) == code and all(
        readings.get(p, UNKNOWN) != UNKNOWN for p in SPIT_PILES)
    for pile in SPIT_PILES:
        # Onto a pile where it shows, or under a card that now covers it there.
        shows = readings.get(pile, UNKNOWN)
        changed = shows not in (UNKNOWN, EMPTY) and shows != scene.expected(pile)
        if shows == code or (changed and (back_home or _could_be_covered(
                readings, player, code, _empties(scene, player)))
                             and not _seen_elsewhere(seen, code, pile)):
            move = Play(player, slot, pile, card)
            yield Step(move, t.check(move))
        if shows == code:
            # Another departed card may have landed there first, underneath this one (R14).
            yield from _covered_plays(scene, readings, pile, seen, exclude=card)
    for j, z in enumerate(STOCK_ZONES[player]):
        if j != slot and readings.get(z) == code:
            move = Refill(player, slot, j, card)
            yield Step(move, t.check(move))
    if sixth and not _visible_anywhere(readings, code) and all(
            readings.get(z, UNKNOWN) != UNKNOWN for z in ALL_ZONES):
        # Every zone is visible and the card is in none of them: laid out as a sixth pile (R13).
        move = Refill(player, slot, SIXTH_SLOT, card)
        yield Step(move, t.check(move))


def lift(scene: Scene, lc: Loose, readings: Mapping[str, str], zone: str,
         seen: Mapping[str, Sequence[str]]) -> Step | None:
    """The step lifting a loose card off the top of spit pile `zone` into its player's hand,
    on the way home (R9, R14), or None: the card lay there, ruled illegal, and now shows
    nowhere, the pile reading another card and its stockpile in view as it is without it.
    Until it lands home the card is in no zone; sent home at once instead it would have to
    show there, and only a guess (a sixth stockpile, a card played under the next one) could
    explain the table (bench/monitor.py --in-hand; seed 1000069: P2's 8♣, lifted off 6♣
    while P1 played A♣ on the other pile, "not adjacent on K♠" under A♣).

    Only where the camera saw the card gone: the pile shows, or showed since, the card
    beneath it (or that is another loose card, lifted in turn). A card covered on its pile is
    not lifted (taken back from beneath, it goes home), nor one whose stockpile no longer
    reads as it was (turned up or filled since: the card is elsewhere). Lifted wherever the
    rest held, a card lying loose in a candidate followed under hands made the search run
    out of nodes before refuting it (seeds 43000191, 48000206)."""
    code = lc.card.code
    if (lc.at != zone or zone not in PILES or lc.home not in SLOT_OF
            or scene.expected(zone) != code
            or readings.get(zone, UNKNOWN) in (UNKNOWN, code)
            or readings.get(lc.home, UNKNOWN) != scene.expected(lc.home)
            or code in readings.values()):
        return None
    beneath = shown_without(scene, lc)
    shown = (beneath == readings[zone] or beneath in seen.get(zone, ())
             or any(other is not lc and other.at == zone and other.card.code == beneath
                    for other in scene.loose))
    return Step(lc.move, lc.verdict, returned=lc, held=True) if shown else None


def shown_without(scene: Scene, lc: Loose) -> str:
    """What the zone the loose card `lc` lies on reads without it (a view of the scene: the
    table is only read)."""
    return Scene(scene.table, [other for other in scene.loose if other is not lc]).expected(lc.at)


def _returns(scene: Scene, lc: Loose, readings: Mapping[str, str]) -> Iterator[Step]:
    """A loose card goes where it belongs. A wrong-pile spit may instead move to the right pile,
    which is then the spit itself."""
    if lc.home.startswith("hand:") and isinstance(lc.move, Spit) and lc.verdict.kind == "wrong-pile":
        for pile in SPIT_PILES:
            if pile != lc.move.pile and readings.get(pile) == lc.card.code:
                fixed = Spit(lc.player, pile, lc.card)
                verdict = scene.table.check(fixed)
                if verdict.ok:
                    yield Step(fixed, verdict, returned=lc)
    yield Step(lc.move, lc.verdict, returned=lc)


def assumed_side(t: Table, player: str) -> str:
    """The pile a player spits onto (R16 Decision): the one they spat on before, else the one
    the other player did not use, else their default side (p1 left, p2 right as the camera
    sees it)."""
    own = t.side[player]
    if own is not None:
        return own
    other = t.side[other_player(player)]
    if other is not None:
        return other_pile(other)
    return DEFAULT_SIDE[player]


def may_spit_here(t: Table, player: str, pile: str) -> bool:
    """The camera cannot see whose hand a spit card came from: it is attributed to the player
    whose side the pile is, or to the only player holding spit cards (then a card on the other
    side is that player's wrong-pile spit)."""
    if pile == assumed_side(t, player):
        return True
    other = other_player(player)
    return t.spit_hand[other] == 0


def _empties(scene: Scene, player: str) -> list[tuple[str, bool]]:
    return [(z, scene.expected(z) == EMPTY) for z in STOCK_ZONES[player]]


def _seen_on_stock(seen: Mapping[str, Sequence[str]], code: str) -> bool:
    return any(code in seen.get(z, ()) for z in SLOT_OF)


def _seen_elsewhere(seen: Mapping[str, Sequence[str]], code: str, pile: str) -> bool:
    """The camera saw `code` on the other spit pile, so it did not go under this one."""
    return any(code in seen.get(q, ()) for q in SPIT_PILES if q != pile)


def _could_be_covered(readings: Mapping[str, str], player: str, code: str,
                      empties: Sequence[tuple[str, bool]] = ()) -> bool:
    """A card that left its stockpile may lie under a pile's new top only if it is seen nowhere
    and could be nowhere else: no spit pile and none of its owner's stockpiles is hidden."""
    if _visible_anywhere(readings, code):
        return False
    if any(readings.get(z, UNKNOWN) == UNKNOWN for z in SPIT_PILES):
        return False
    # A hidden stockpile of the owner could have received it only if it is empty (R12); one
    # with cards would be stacking, itself illegal, and is not assumed.
    return not any(readings.get(z, UNKNOWN) == UNKNOWN and scene_empty
                   for z, scene_empty in empties)


def _visible_anywhere(readings: Mapping[str, str], code: str) -> bool:
    return any(r == code for r in readings.values())
