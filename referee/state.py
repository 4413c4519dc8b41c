"""The table: what a referee watching a game of Spit can know, and the legality of every move.

Like python-chess's `Board`, a `Table` is mutable, holds the position and answers `check(move)`,
`push(move)`, `legal_plays(player)`. It holds ONLY public information: for each player five
stockpile slots with the number of face-down cards and the face-up top (unknown identities stay
unknown until a card is turned up), the number of spit cards in hand (face down, unseen), and
the cards on the two spit piles. So the same Table serves the simulator, which knows the hidden
cards, and the camera monitor, which learns a card only when it is turned up.

Every refusal is a `Verdict` citing the rule it applies, in plain words with the remedy (R24).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Mapping, Sequence

from referee.cards import DECK, Card
from referee.errors import UserError
from referee.moves import (BadMoveError, Move, Play, Refill, Spit, TakeBack, TurnUp,
                           trusted_play)
from referee.rules import RulesConfig
from referee.zones import PLAYERS, SPIT_PILES, STOCKS_PER_PLAYER, other_player

DECK_SIZE = 52  # R1
START_COUNT = 26  # R4: 26 cards to each player
LAYOUT_PILES = (1, 2, 3, 4, 5)  # R5: pile sizes of a full layout (15 cards)

# Each player's own side for the first spit of a round when a bot or a test does not choose
# (R8 puts the two spit piles "side by side"; R16's Decision keeps each player on theirs).
DEFAULT_SIDE: dict[str, str] = {"p1": SPIT_PILES[0], "p2": SPIT_PILES[1]}


class TableError(UserError, ValueError):
    """An impossible table: counts that do not sum to 52, a card twice, a sixth stockpile."""


class IllegalMove(UserError):
    """`Table.push` refused a move; `.verdict` says which rule and what to do. The table is
    unchanged."""

    def __init__(self, verdict: "Verdict") -> None:
        super().__init__(verdict.message)
        self.verdict = verdict


@dataclass(frozen=True, slots=True)
class Verdict:
    """The referee's answer to one move: `ok`, the rule applied, a short kind, plain words."""

    ok: bool
    rule: str
    kind: str
    message: str


class RoundEndCase(Enum):
    CLEARED = "cleared"  # R17: a player has played all their stock cards
    BLOCKED = "blocked"  # R17: nobody can play and neither player has spit cards left


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """Why the round ended (R17). `player` is who cleared their stockpiles (CLEARED only).
    `single_pile` is True when only one spit pile was in use (R20)."""

    case: RoundEndCase
    player: str | None
    single_pile: bool

    @property
    def single_pile_ending(self) -> bool:
        """R20: one spit pile in use and a player cleared: no slap; the clearer takes nothing."""
        return self.single_pile and self.case is RoundEndCase.CLEARED

    @property
    def rule(self) -> str:
        return "R20" if self.single_pile_ending else "R17"

    @property
    def headline(self) -> str:
        """Why the round is over, without what the players do next."""
        if self.case is RoundEndCase.CLEARED:
            text = f"{_p(self.player)} has played all their stock cards: the round is over"
        else:
            text = "Nobody can play and nobody has spit cards left: the round is over"
        return text + f" ({self.rule})"

    @property
    def message(self) -> str:
        if self.single_pile_ending:
            taker = _p(other_player(self.player))
            return self.headline + f" — no slap: {taker} takes the spit pile"
        return self.headline + " — slap the smaller spit pile (R18)"


def standard_layout(count: int) -> tuple[int, ...]:
    """The R5/R7 layout for a player holding `count` cards: pile sizes for the five slots
    (1, 2, 3, 4, 5 as far as the cards go; a short last pile; empty slots get 0)."""
    if count < 0:
        raise TableError(f"a player cannot hold {count} cards")
    sizes = []
    left = count
    for size in LAYOUT_PILES:
        n = min(size, left)
        sizes.append(n)
        left -= n
    return tuple(sizes)


class Slot:
    """One stockpile slot: `down` face-down cards, `up` the face-up top (None when the top is
    face down or the slot is empty). `under` holds face-up cards beneath `up`, which exist only
    when stacking is allowed (R12 Decision), bottom first."""

    __slots__ = ("down", "up", "under")

    def __init__(self, down: int = 0, up: Card | None = None,
                 under: list[Card] | None = None) -> None:
        self.down = down
        self.up = up
        self.under = under if under is not None else []

    @property
    def count(self) -> int:
        return self.down + (self.up is not None) + len(self.under)

    @property
    def empty(self) -> bool:
        return self.down == 0 and self.up is None

    def __repr__(self) -> str:
        return f"Slot(down={self.down}, up={self.up}, under={self.under})"


def _adjacency(equal_ranks_adjacent: bool) -> tuple[tuple[bool, ...], ...]:
    # Indexed by rank value (1..13); precomputed because legality is the simulator's hot path.
    table = []
    for a in range(14):
        row = []
        for b in range(14):
            if a == 0 or b == 0:
                row.append(False)
                continue
            d = (a - b) % 13
            d = min(d, 13 - d)
            row.append(d == 1 or (equal_ranks_adjacent and d == 0))
        table.append(tuple(row))
    return tuple(table)


_ADJ = {False: _adjacency(False), True: _adjacency(True)}


# Suit symbols cost an Enum hash per lookup; verdict messages are built on the simulator's hot
# path, so the 52 pretty names are looked up by object identity (cards are DECK's singletons
# whenever they come from Card.parse or DECK; any other equal Card falls back to `.pretty`).
_PRETTY_BY_ID = {id(c): c.pretty for c in DECK}


def _pretty(card: Card) -> str:
    return _PRETTY_BY_ID.get(id(card)) or card.pretty


def _p(player: str | None) -> str:
    return (player or "?").upper()


def _slot_name(slot: int) -> str:
    return f"stockpile {slot + 1}"


def _pile_name(pile: str) -> str:
    return f"the {pile.split('.', 1)[1]} spit pile"


def _ok(rule: str, message: str) -> Verdict:
    return Verdict(True, rule, "ok", message)


def _no(rule: str, kind: str, message: str) -> Verdict:
    return Verdict(False, rule, kind, message)


class Table:
    """The public state of one round. `Table()` is a fresh deal of 26 cards each (R4, R5) with
    every stockpile's top still face down; `deal(counts)` starts any later round (R19)."""

    __slots__ = ("config", "slots", "spit_hand", "piles", "side", "pending_spits", "_adj",
                 "_visible", "_stock")

    def __init__(self, config: RulesConfig | None = None,
                 counts: Mapping[str, int] | None = None,
                 layouts: Mapping[str, Sequence[int]] | None = None) -> None:
        self.config = config if config is not None else RulesConfig()
        self._adj = _ADJ[self.config.equal_ranks_adjacent]
        self.deal(counts if counts is not None else {p: START_COUNT for p in PLAYERS}, layouts)

    # --- setup --------------------------------------------------------------------------------

    def deal(self, counts: Mapping[str, int],
             layouts: Mapping[str, Sequence[int]] | None = None) -> "Table":
        """Start a round: each player's cards laid out (R5–R7), every top still face down,
        the rest held as spit cards (R6), spit piles empty. `layouts` gives each player's pile
        sizes when they did not use the R5/R7 shape (accepted under the R7 Decision)."""
        if set(counts) != set(PLAYERS):
            raise TableError(f"a deal needs a card count for each of {', '.join(PLAYERS)}, "
                             f"got {sorted(counts)}")
        for p in PLAYERS:
            n = counts[p]
            if not isinstance(n, int) or isinstance(n, bool) or n < 1:
                raise TableError(f"{_p(p)} would be dealt {n!r} cards: each player needs at "
                                 "least one card (a player with none has won, R21)")
        total = sum(counts.values())
        if total != DECK_SIZE:
            raise TableError(f"card counts {dict(counts)} sum to {total}, not {DECK_SIZE}: "
                             "one deck has 52 cards (R1) — recount the cards")
        self.slots = {}
        self.spit_hand = {}
        for p in PLAYERS:
            sizes = self._layout_for(p, counts[p], layouts)
            self.slots[p] = [Slot(n) for n in sizes]
            self.spit_hand[p] = counts[p] - sum(sizes)
        self.piles = {pile: [] for pile in SPIT_PILES}
        self.side = {p: None for p in PLAYERS}
        self.pending_spits = set()
        self._visible = set()
        self._recount()
        return self

    def _recount(self) -> None:
        # Stock cards per player, kept up to date by `apply` so that R17's "no stock cards
        # left" is a lookup on the hot path; `card_count()` still counts from scratch.
        self._stock = {p: sum(s.down + (s.up is not None) + len(s.under) for s in self.slots[p])
                       for p in PLAYERS}

    def _layout_for(self, player: str, count: int,
                    layouts: Mapping[str, Sequence[int]] | None) -> tuple[int, ...]:
        standard = standard_layout(count)
        if layouts is None or player not in layouts:
            return standard
        sizes = tuple(layouts[player])
        if len(sizes) > STOCKS_PER_PLAYER:
            raise TableError(f"{_p(player)} laid out {len(sizes)} stockpiles: a player never "
                             f"has more than five (R13) — gather the sixth pile in")
        if any(not isinstance(n, int) or isinstance(n, bool) or n < 0 for n in sizes):
            raise TableError(f"{_p(player)}'s pile sizes {sizes} must be whole numbers >= 0")
        sizes = sizes + (0,) * (STOCKS_PER_PLAYER - len(sizes))
        if sum(sizes) > count:
            raise TableError(f"{_p(player)}'s piles hold {sum(sizes)} cards but they have "
                             f"only {count}")
        if not self.config.accept_any_layout and sizes != standard:
            raise TableError(f"{_p(player)} laid out piles {sizes}; with {count} cards the "
                             f"layout is {standard} (R5, R7) — deal again")
        return sizes

    # --- reading the position -----------------------------------------------------------------

    def slot(self, player: str, index: int) -> Slot:
        return self.slots[player][index]

    def top(self, pile: str) -> Card | None:
        cards = self.piles[pile]
        return cards[-1] if cards else None

    def stock_count(self, player: str) -> int:
        return sum(s.down + (s.up is not None) + len(s.under) for s in self.slots[player])

    def cards_held(self, player: str) -> int:
        """Stock cards plus spit cards in hand: the R22 points of this round."""
        return self.stock_count(player) + self.spit_hand[player]

    def card_count(self) -> int:
        """All cards on the table counted from scratch; 52 in every reachable state (R1)."""
        n = sum(self.stock_count(p) + self.spit_hand[p] for p in PLAYERS)
        return n + sum(len(c) for c in self.piles.values())

    def visible_cards(self) -> list[Card]:
        """Every face-up card, recomputed from the position (tops, stacked cards, spit piles)."""
        cards: list[Card] = []
        for p in PLAYERS:
            for s in self.slots[p]:
                cards.extend(s.under)
                if s.up is not None:
                    cards.append(s.up)
        for pile in SPIT_PILES:
            cards.extend(self.piles[pile])
        return cards

    def is_face_up(self, card: Card) -> bool:
        """Whether `card` is face up somewhere on the table; a card seen once cannot appear a
        second time (R1)."""
        return card in self._visible

    def where(self, card: Card) -> str | None:
        """The zone where `card` is face up (a stock zone or a spit pile), or None if unseen."""
        if card not in self._visible:
            return None
        for p in PLAYERS:
            for i, s in enumerate(self.slots[p]):
                if s.up == card or card in s.under:
                    return f"{p}.stock{i + 1}"
        for pile in SPIT_PILES:
            if card in self.piles[pile]:
                return pile
        return None

    # --- legality -----------------------------------------------------------------------------

    def check(self, move: Move) -> Verdict:
        """Whether `move` is legal now, with the rule and plain words (R24). Never changes the
        table."""
        if self.round_end() is not None:
            return _no("R17", "round-over",
                       f"{_p(move.player)}: the round is over (R17) — stop and slap (R18)")
        t = type(move)
        if t is Play:
            return self._check_play(move)
        if t is TurnUp:
            return self._check_turn_up(move)
        if t is Refill:
            return self._check_refill(move)
        if t is Spit:
            return self._check_spit(move)
        if t is TakeBack:
            return _no("R14", "taken-back",
                       f"{_p(move.player)}: {_pretty(move.card)} was played on "
                       f"{_pile_name(move.pile)} and can never be taken back (R14) — put it "
                       "back on the pile")
        raise BadMoveError(f"not a move: {move!r}")

    def _seen_elsewhere(self, player: str, card: Card) -> Verdict | None:
        if card in self._visible:  # is_face_up, inlined on the hot path
            return _no("R1", "duplicate-card",
                       f"{_p(player)}: {_pretty(card)} is already face up at {self.where(card)}; "
                       "one deck has each card once (R1) — check the card and take it back")
        return None

    def _check_play(self, move: Play) -> Verdict:
        player, card, pile = move.player, move.card, move.pile
        who = _p(player)
        if move.slot is None:
            seen = self._seen_elsewhere(player, card)
            if seen:
                return seen
            return _no("R15", "from-spit-hand",
                       f"{who}: {_pretty(card)} did not come from a stockpile; only stockpile "
                       "cards are played, spit cards enter only by spitting (R15) — take it back")
        if move.slot >= STOCKS_PER_PLAYER:
            return _no("R13", "sixth-stockpile",
                       f"{who}: there is no {_slot_name(move.slot)}; a player never has more "
                       "than five stockpiles (R13) — take the card back")
        s = self.slots[player][move.slot]
        if s.up != card:
            return self._wrong_source(player, move.slot, card, "R10")
        top = self.top(pile)
        if top is None:
            return _no("R10", "empty-pile",
                       f"{who}: {_pile_name(pile)} has no card yet; a card is played onto a "
                       "spit pile's top card (R10) — take it back and wait for the spit (R8)")
        if self._adj[card.rank][top.rank]:
            return _ok("R10", f"{who} plays {_pretty(card)} on {_pretty(top)}")
        if card.rank == top.rank:
            return _no("R10", "equal-rank",
                       f"{who}: {_pretty(card)} on {_pretty(top)} is the same rank, and equal "
                       "ranks are not adjacent (R10) — take it back")
        return _no("R10", "not-adjacent",
                   f"{who}: {_pretty(card)} on {_pretty(top)} is not adjacent (R10) — take it "
                   "back")

    def _wrong_source(self, player: str, slot: int, card: Card, rule: str) -> Verdict:
        """`card` is not the face-up top of `player`'s slot: say where it really was."""
        who = _p(player)
        s = self.slots[player][slot]
        where = self.where(card)
        if where is None:
            if s.up is None and s.down > 0:
                return _no("R11", "face-down",
                           f"{who}: {_pretty(card)} was taken from {_slot_name(slot)} without "
                           "being turned face up first (R11) — take it back, turn it face up")
            return _no("R15", "from-spit-hand",
                       f"{who}: {_pretty(card)} is not a card of your stockpiles; spit cards enter "
                       "only by spitting (R15) — take it back")
        if where in SPIT_PILES:
            return _no("R14", "taken-back",
                       f"{who}: {_pretty(card)} is already on {_pile_name(where)} and can never be "
                       "taken back (R14) — put it back on the pile")
        owner = where.split(".", 1)[0]
        if owner != player:
            return _no(rule, "not-your-card",
                       f"{who}: {_pretty(card)} is {_p(owner)}'s card; you play only from your own "
                       f"stockpiles ({rule}) — give it back")
        if s.up is None and s.down > 0:
            return _no("R11", "face-down",
                       f"{who}: {_slot_name(slot)} has a face-down top (R11) — turn it face up "
                       "before playing it")
        if s.empty:
            return _no(rule, "empty-slot", f"{who}: {_slot_name(slot)} is empty, so "
                       f"{_pretty(card)} did not come from it ({rule}) — put it back where it "
                       "was")
        return _no(rule, "not-on-top",
                   f"{who}: {_pretty(card)} is not the top card of {_slot_name(slot)} "
                   f"(it is at {where}) ({rule}) — move one card at a time, from the top")

    def _check_turn_up(self, move: TurnUp) -> Verdict:
        who = _p(move.player)
        if move.slot >= STOCKS_PER_PLAYER:
            return _no("R13", "sixth-stockpile",
                       f"{who}: there is no {_slot_name(move.slot)}; a player never has more "
                       "than five stockpiles (R13) — gather that pile back in")
        s = self.slots[move.player][move.slot]
        if s.up is not None:
            return _no("R11", "already-face-up",
                       f"{who}: the top of {_slot_name(move.slot)} is already face up "
                       f"({_pretty(s.up)}) (R11) — put the card back")
        if s.down == 0:
            return _no("R11", "nothing-to-turn",
                       f"{who}: {_slot_name(move.slot)} is empty; there is nothing to turn up "
                       "(R11) — put the card back where it came from")
        if move.card is not None:
            seen = self._seen_elsewhere(move.player, move.card)
            if seen:
                return seen
            return _ok("R11", f"{who} turns up {_pretty(move.card)} on {_slot_name(move.slot)}")
        return _ok("R11", f"{who} may turn up the top of {_slot_name(move.slot)}")

    def _check_refill(self, move: Refill) -> Verdict:
        who = _p(move.player)
        if move.to_slot >= STOCKS_PER_PLAYER or move.from_slot >= STOCKS_PER_PLAYER:
            return _no("R13", "sixth-stockpile",
                       f"{who}: a player never has more than five stockpiles (R13) — put "
                       f"{_pretty(move.card)} back on one of your five")
        if move.from_slot == move.to_slot:
            return _no("R12", "same-slot",
                       f"{who}: {_pretty(move.card)} was moved onto its own stockpile (R12) — "
                       "leave it where it is")
        slots = self.slots[move.player]
        src, dst = slots[move.from_slot], slots[move.to_slot]
        if src.up != move.card:
            return self._wrong_source(move.player, move.from_slot, move.card, "R12")
        if dst.empty:
            return _ok("R12", f"{who} moves {_pretty(move.card)} from {_slot_name(move.from_slot)} "
                              f"to the empty {_slot_name(move.to_slot)}")
        if (self.config.stacking_allowed and dst.up is not None
                and dst.up.rank == move.card.rank):
            return _ok("R12", f"{who} stacks {_pretty(move.card)} on {_pretty(dst.up)}")
        if any(s.empty for s in slots):
            return _no("R12", "stacking",
                       f"{who}: {_pretty(move.card)} was stacked on {_slot_name(move.to_slot)}; "
                       "a card moves only into an empty slot (R12) — put it back")
        return _no("R12", "no-empty-slot",
                   f"{who}: {_pretty(move.card)} was moved to {_slot_name(move.to_slot)} but no "
                   "slot is empty; cards move between stockpiles only into an empty slot (R12) "
                   "— put it back")

    def _check_spit(self, move: Spit) -> Verdict:
        who = _p(move.player)
        if self.spit_hand[move.player] == 0:
            return _no("R16", "no-spit-cards",
                       f"{who}: you have no spit cards left, so you do not spit (R16) — take "
                       f"{_pretty(move.card)} back")
        seen = self._seen_elsewhere(move.player, move.card)
        if seen:
            return seen
        if move.player not in self.pending_spits and not self.spit_due():
            hint = self._a_legal_play_or_uncover()
            return _no("R16", "false-spit",
                       f"{who}: false spit — {hint}, so nobody may spit yet (R16) — take "
                       f"{_pretty(move.card)} back")
        if self.config.spit_onto_own_side:
            own = self.side[move.player]
            theirs = self.side[other_player(move.player)]
            if (own is not None and move.pile != own) or (own is None and move.pile == theirs):
                right = own or next(p for p in SPIT_PILES if p != theirs)
                return _no("R16", "wrong-pile",
                           f"{who}: spit onto your own side's pile, {_pile_name(right)} (R16) "
                           f"— move {_pretty(move.card)} there")
        return _ok("R16", f"{who} spits {_pretty(move.card)} onto {_pile_name(move.pile)}")

    def _a_legal_play_or_uncover(self) -> str:
        for p in PLAYERS:
            plays = self.legal_plays(p)
            if plays:
                m = plays[0]
                return f"{_p(p)}'s {_pretty(m.card)} goes on {_pretty(self.top(m.pile))}"
        for p in PLAYERS:
            ups = self.uncover_moves(p)
            if ups:
                m = ups[0]
                if type(m) is TurnUp:
                    return f"{_p(p)} can still turn up {_slot_name(m.slot)}"
                return (f"{_p(p)} can still move {_pretty(m.card)} into the empty "
                        f"{_slot_name(m.to_slot)}")
        return "a spit is not due"

    # --- applying moves -------------------------------------------------------------------------

    def push(self, move: Move) -> Verdict:
        """Apply a legal move and return its verdict; raise IllegalMove (table unchanged)."""
        if type(move) is TurnUp and move.card is None:
            raise BadMoveError("a turn-up can be applied only with the card it revealed")
        verdict = self.check(move)
        if not verdict.ok:
            raise IllegalMove(verdict)
        self.apply(move)
        return verdict

    def apply(self, move: Move) -> None:
        """Apply a move already known to be legal (`check(move).ok`), without checking again.
        The simulator's hot path uses this after its own `check`."""
        t = type(move)
        if t is Play:
            s = self.slots[move.player][move.slot]
            s.up = s.under.pop() if s.under else None
            self.piles[move.pile].append(move.card)
            self._stock[move.player] -= 1
        elif t is TurnUp:
            s = self.slots[move.player][move.slot]
            s.down -= 1
            s.up = move.card
            self._visible.add(move.card)
        elif t is Refill:
            slots = self.slots[move.player]
            src, dst = slots[move.from_slot], slots[move.to_slot]
            src.up = src.under.pop() if src.under else None
            if dst.up is not None:
                dst.under.append(dst.up)
            dst.up = move.card
        elif t is Spit:
            p = move.player
            if p in self.pending_spits:
                self.pending_spits.discard(p)
            else:
                # This spit starts a spit (R16 held): everyone else with spit cards owes one.
                self.pending_spits = {q for q in PLAYERS if q != p and self.spit_hand[q] > 0}
            self.spit_hand[p] -= 1
            self.piles[move.pile].append(move.card)
            self._visible.add(move.card)
            if self.side[p] is None:
                self.side[p] = move.pile
        else:
            raise BadMoveError(f"cannot apply {move!r}")

    def call_spit(self) -> None:
        """The referee calls "Spit!" after the R16 settle escalation (only uncover moves were
        left and nobody made them): every player with spit cards may now spit."""
        self.pending_spits = {p for p in PLAYERS if self.spit_hand[p] > 0}

    # --- what can happen next ---------------------------------------------------------------

    def fits(self, card: Card, top: Card) -> bool:
        """`card` may be played on `top` (R10, with this game's equal-ranks decision)."""
        return self._adj[card.rank][top.rank]

    def legal_plays(self, player: str) -> list[Play]:
        """Every legal play of `player` onto a spit pile (R10)."""
        adj = self._adj
        tops = [(pile, cards[-1].rank) for pile, cards in self.piles.items() if cards]
        out = []
        if not tops:
            return out
        i = 0
        for s in self.slots[player]:
            c = s.up
            if c is not None:
                row = adj[c.rank]
                for pile, rank in tops:
                    if row[rank]:
                        out.append(trusted_play(player, i, pile, c))
            i += 1
        return out

    def can_play(self, player: str) -> bool:
        adj = self._adj
        top_ranks = [cards[-1].rank for cards in self.piles.values() if cards]
        if not top_ranks:
            return False
        for s in self.slots[player]:
            c = s.up
            if c is not None:
                row = adj[c.rank]
                for r in top_ranks:
                    if row[r]:
                        return True
        return False

    def uncover_moves(self, player: str) -> list[TurnUp | Refill]:
        """Moves that only uncover a card (R16 Decision): turning up a face-down top (the card
        is None: unknown until seen), and refilling an empty slot from a pile that has a card
        beneath its top (R12)."""
        slots = self.slots[player]
        out: list[TurnUp | Refill] = []
        empties = [i for i, s in enumerate(slots) if s.down == 0 and s.up is None]
        for i, s in enumerate(slots):
            if s.up is None:
                if s.down:
                    out.append(TurnUp(player, i, None))
            elif empties and (s.down or s.under):
                for j in empties:
                    out.append(Refill(player, i, j, s.up))
        return out

    def can_uncover(self, player: str) -> bool:
        has_empty = False
        has_source = False
        for s in self.slots[player]:
            if s.up is None:
                if s.down:
                    return True
                has_empty = True
            elif s.down or s.under:
                has_source = True
        return has_empty and has_source

    def nobody_can_play(self) -> bool:
        """The first half of R16: no stockpile top fits a spit pile and, under the R16
        Decision, nothing is left to turn up or to move into an empty slot to uncover a card."""
        if self.can_play(PLAYERS[0]) or self.can_play(PLAYERS[1]):
            return False
        if self.config.uncover_moves_count_as_available:
            return not (self.can_uncover(PLAYERS[0]) or self.can_uncover(PLAYERS[1]))
        return True

    def spit_due(self) -> bool:
        """R16 holds: nobody can play, someone has spit cards, no spit is under way, and the
        round is not over."""
        if self.pending_spits:
            return False
        if not (self.spit_hand[PLAYERS[0]] or self.spit_hand[PLAYERS[1]]):
            return False
        if self._someone_cleared():
            return False
        return self.nobody_can_play()

    def _someone_cleared(self) -> bool:
        stock = self._stock
        return stock[PLAYERS[0]] == 0 or stock[PLAYERS[1]] == 0

    def round_end(self) -> RoundEnd | None:
        """R17: the round is over when a player has played all their stock cards, or nobody can
        play and nobody has spit cards left. None while the round goes on."""
        stock = self._stock
        for p in PLAYERS:
            if stock[p] == 0:
                return RoundEnd(RoundEndCase.CLEARED, p, self._single_pile())
        if (self.spit_hand[PLAYERS[0]] == 0 and self.spit_hand[PLAYERS[1]] == 0
                and not self.pending_spits and self.nobody_can_play()):
            return RoundEnd(RoundEndCase.BLOCKED, None, self._single_pile())
        return None

    def _single_pile(self) -> bool:
        return sum(1 for cards in self.piles.values() if cards) == 1

    # --- copies, equality, JSON ---------------------------------------------------------------

    def copy(self) -> "Table":
        t = Table.__new__(Table)
        t.config = self.config
        t._adj = self._adj
        t.slots = {p: [Slot(s.down, s.up, list(s.under)) for s in self.slots[p]]
                   for p in PLAYERS}
        t.spit_hand = dict(self.spit_hand)
        t.piles = {pile: list(cards) for pile, cards in self.piles.items()}
        t.side = dict(self.side)
        t.pending_spits = set(self.pending_spits)
        t._visible = set(self._visible)
        t._stock = dict(self._stock)
        return t

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Table):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable, like chess.Board

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.config.to_dict(),
            "players": {
                p: {
                    "stock": [{"down": s.down, "up": s.up.code if s.up else None,
                               "under": [c.code for c in s.under]} for s in self.slots[p]],
                    "spit_hand": self.spit_hand[p],
                    "side": self.side[p],
                }
                for p in PLAYERS
            },
            "spit": {pile: [c.code for c in self.piles[pile]] for pile in SPIT_PILES},
            "pending_spits": sorted(self.pending_spits),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], config: RulesConfig | None = None) -> "Table":
        """Rebuild a table from `to_dict()`; refuses impossible positions with TableError."""
        try:
            if config is None:
                config = RulesConfig.from_dict(data.get("rules", {}))
            t = cls.__new__(cls)
            t.config = config
            t._adj = _ADJ[config.equal_ranks_adjacent]
            players = data["players"]
            if set(players) != set(PLAYERS):
                raise TableError(f"a table has players {', '.join(PLAYERS)}, got "
                                 f"{sorted(players)}")
            t.slots, t.spit_hand, t.side = {}, {}, {}
            for p in PLAYERS:
                pd = players[p]
                stock = pd["stock"]
                if len(stock) > STOCKS_PER_PLAYER:
                    raise TableError(f"{_p(p)} has {len(stock)} stockpiles: a player never has "
                                     "more than five (R13)")
                if len(stock) < STOCKS_PER_PLAYER:
                    raise TableError(f"{_p(p)} has {len(stock)} stockpile slots: give all five "
                                     "(empty ones as down 0, up null)")
                slots = []
                for sd in stock:
                    down = sd.get("down", 0)
                    if not isinstance(down, int) or isinstance(down, bool) or down < 0:
                        raise TableError(f"{_p(p)}: face-down count {down!r} must be a whole "
                                         "number >= 0")
                    up = Card.parse(sd["up"]) if sd.get("up") is not None else None
                    under = [Card.parse(c) for c in sd.get("under", [])]
                    if under and up is None:
                        raise TableError(f"{_p(p)}: face-up cards {under} lie under nothing")
                    slots.append(Slot(down, up, under))
                t.slots[p] = slots
                hand = pd.get("spit_hand", 0)
                if not isinstance(hand, int) or isinstance(hand, bool) or hand < 0:
                    raise TableError(f"{_p(p)}: spit-hand count {hand!r} must be a whole "
                                     "number >= 0")
                t.spit_hand[p] = hand
                side = pd.get("side")
                if side is not None and side not in SPIT_PILES:
                    raise TableError(f"{_p(p)}: unknown spit side {side!r}")
                t.side[p] = side
            spit = data.get("spit", {})
            unknown = set(spit) - set(SPIT_PILES)
            if unknown:
                raise TableError(f"unknown spit pile(s) {sorted(unknown)}: use "
                                 f"{', '.join(SPIT_PILES)}")
            t.piles = {pile: [Card.parse(c) for c in spit.get(pile, [])] for pile in SPIT_PILES}
            pending = set(data.get("pending_spits", []))
            if pending - set(PLAYERS):
                raise TableError(f"unknown player(s) owing a spit: {sorted(pending)}")
            t.pending_spits = pending
        except (KeyError, TypeError, AttributeError) as exc:
            raise TableError(f"not a table description ({exc!r}): expected the shape of "
                             "Table.to_dict()") from None
        visible = t.visible_cards()
        if len(set(visible)) != len(visible):
            dupes = sorted({c.code for c in visible if visible.count(c) > 1})
            raise TableError(f"card(s) {', '.join(dupes)} appear twice: one deck has each card "
                             "once (R1)")
        t._visible = set(visible)
        t._recount()
        if t.card_count() != DECK_SIZE:
            raise TableError(f"the table holds {t.card_count()} cards, not {DECK_SIZE} (R1) — "
                             "recount the face-down and spit cards")
        return t

    def __repr__(self) -> str:
        def slot(s: Slot) -> str:
            up = s.up.code if s.up else ("▮" if s.down else "·")
            return f"{up}+{s.down}" if s.up and s.down else up
        rows = [f"{p}: " + " ".join(slot(s) for s in self.slots[p])
                + f"  spit cards {self.spit_hand[p]}" for p in PLAYERS]
        piles = "  ".join(f"{pile}: {self.top(pile).code if self.top(pile) else '·'}"
                          f"({len(self.piles[pile])})" for pile in SPIT_PILES)
        return "Table(" + " | ".join(rows) + " | " + piles + ")"

