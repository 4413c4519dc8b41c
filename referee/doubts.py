"""Why an explanation of the table may not be the truth, and which of its rulings hold anyway.

The search (referee.infer) lists the moves that turn the referee's belief into what the camera
shows, but it cannot list what the camera never saw: a spit card covered before it was seen, a
card played under a hand and covered, a position the last resync guessed. Before the monitor
rules an illegal step it asks `Doubts.doubt` whether such an unseen alternative could make it
legal; before it rules while a hand hides part of the table it asks whether the hidden zones
could change the ruling (`may_hide_a_play` and the like). Some rulings are the same whichever
alternative is the truth (`alike_in_rivals`, `either_way`): those are ruled, their messages
naming every card the card may have landed on. The referee never rules from a guess.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import AbstractSet, Any, Mapping, Sequence

from referee.branches import follow
from referee.candidates import may_spit_here
from referee.cards import Card
from referee.infer import Explanation, Outcome, moves_key
from referee.moves import Play, Refill, Spit, TakeBack
from referee.rivals import Rivals
from referee.rulings import pretty
from referee.scene import SIXTH_SLOT, Scene, Step, cards_on
from referee.slaps import pile_words
from referee.state import DEFAULT_SIDE, Table, Verdict
from referee.steps import (R10_KINDS, TAKEN_BACK, advance, illegal_steps, is_lifted, move_zones,
                           stacked, step_keys, taken_back_after, top_beneath)
from referee.zones import PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN, other_player

# How a doubt about an unseen spit card begins (Doubts.doubt), to tell it from the others.
SPIT_BENEATH = "spit card: "
# The kind of a verdict illegal under R10 either way: not adjacent on one card it may have
# landed on, the same rank on the other (either_r10).
EITHER_R10 = "equal-rank or not-adjacent"


@dataclass(frozen=True)
class Doubts:
    """What the monitor knows of its belief when it comes to rule a change, read-only
    (referee.monitor.Monitor._doubts builds it from the monitor's state at that moment)."""

    scene: Scene                          # the belief: the last position the referee ruled
    readings: Mapping[str, str]           # the camera's reading of every zone now
    hidden: AbstractSet[str]              # zones hidden since the belief was confirmed
    seen: Mapping[str, Sequence[str]]     # the cards each zone showed since then
    counts_uncertain: bool                # the card counts are a stand-in or may be off
    spitless: AbstractSet[str]            # players known to hold no spit cards (R7)
    provisional: bool                     # the position was taken without knowing the moves
    uncertain_zones: AbstractSet[str] | None  # where that position's options differed
    lost: bool                            # the table could not be explained, not back in step
    rivals: Rivals | None                 # the positions the last resync did not take
    # What the visible zones read after each line since the position (referee.timeline).
    snapshots: Sequence[Mapping[str, str]] = ()

    def doubt(self, steps: tuple[Step, ...], alike: frozenset = frozenset()) -> str | None:
        """Why an explanation with an illegal step, or with a card played onto a pile a played
        card was lifted off, may not be the truth, or None. `alike`: moves of R10 plays every
        position the last resync left makes illegal the same way (alike_in_rivals)."""
        lifted = self.played_on_lifted(steps)
        if lifted is not None:
            card, pile = lifted
            return (f"{card.pretty} was taken back off {pile_words(pile)}, and a card played "
                    "there since may have gone on another card the camera did not see")
        over = self.replayed_over(steps)
        if over is not None:
            card, pile, other = over
            return (f"{other.pretty} may have been laid on {card.pretty} on {pile_words(pile)} "
                    f"and lifted again, still in a hand, and {card.pretty} never have left")
        over_held = self.played_over_held(steps)
        if over_held is not None:
            card, held, pile = over_held
            return (f"{held.pretty}, taken back into its player's hand, may have gone home and "
                    f"onto {pile_words(pile)} while a hand hid it, and {card.pretty} onto it")
        illegal = illegal_steps(steps)
        if not illegal:
            return None
        under = self.under_a_lifted(steps)
        if under is not None:
            card, other, pile = under
            return (f"{card.pretty} may have landed on {pile_words(pile)} first, while a hand "
                    f"hides its stockpile, and {other.pretty}, which does not fit on it, after; "
                    f"{other.pretty} may be in its player's hand on the way home")
        if self.lost:
            # The belief is stale since the table could not be explained: what is missing
            # from it (moves made meanwhile) may make these steps legal.
            return ("the referee lost track of the table earlier, so it rules only legal "
                    "moves until it is back in step")
        if self.provisional and self.on_uncertain_zones(
                [s for s in illegal if s.move not in alike]):
            return ("the referee could not see the order of some earlier moves this round, so "
                    "it rules only legal moves until the next round")
        if self.counts_uncertain and not all(count_free(s) for s in illegal):
            return ("the referee did not follow a round before this one whole, so the card "
                    "counts it holds may be off; it rules only legal moves until a start line "
                    "gives the counts")
        # Zones hidden now, or hidden for a while and changed meanwhile.
        hidden = sorted(z for z, r in self.readings.items() if r == UNKNOWN or (
            z in self.hidden and r != self.scene.expected(z)))
        if hidden and any(s.verdict.kind == "false-spit" for s in illegal):
            # Whether anybody could play (R16) depends on every top when the spit was made,
            # and some changed out of sight.
            return (f"{', '.join(hidden)} {'was' if len(hidden) == 1 else 'were'} hidden, so "
                    "the referee cannot tell whether anybody could still play when the spit "
                    "was made (R16)")
        covered, uncovered = stacked(self.scene.table, steps)
        if uncovered is not None:
            return (f"{uncovered.pretty} left its stockpile after a card was stacked on it, "
                    "so it may have left first, while a hand hid it, and the card gone into "
                    "an empty slot (R12)")
        gone = self.gone_from_hidden_stock(steps, covered)
        if gone is not None:
            zone, card = gone
            return (f"{card.pretty} left {zone} while a hand hid it and shows nowhere, so it "
                    "may have gone under a card the camera then saw (R14)")
        pile = self.spit_beneath(steps) or self.spit_first(steps)
        if pile is not None:
            where = "was hidden" if pile in self.hidden else "changed"
            return (f"{SPIT_BENEATH}{pile} {where} while a spit was due, so a spit card the "
                    "camera never saw may lie under it")
        return None

    def under_a_lifted(self, steps: tuple[Step, ...]) -> tuple[Card, Card, str] | None:
        """A stockpile's card the steps play illegally onto a card they play there before it,
        which the camera saw on the pile and shows nowhere now, the pile showing the first
        card while a hand still hides the stockpile it came from: (the card, the card
        beneath, the pile), or None. The first may have gone first, the camera seeing the
        pile only once the other lay on it, and the other, not fitting it (R10), be in its
        player's hand on the way home (R9, R14): the search lists the shorter order only
        (bench/monitor.py --in-hand; seed 1000138: P2's A♠ "not adjacent on Q♥", where A♠
        had gone on K♥, P1's Q♥ on it and into P1's hand again). A stockpile hidden at some
        moment since the position is not enough: the demo's hands hide each stockpile as its
        card is played (demo seed 8, stable_frames 2: a round held in doubt and taken
        unruled, 38 moves)."""
        shown = set(self.readings.values())
        before = self.scene.table.copy()
        played: set[Card] = set()
        for k, s in enumerate(steps):
            m = s.move
            if isinstance(m, (Play, Spit)) and s.returned is None:
                top = before.top(m.pile)
                if (not s.verdict.ok and isinstance(m, Play) and m.slot is not None
                        and m.slot < SIXTH_SLOT and top in played and top.code not in shown
                        and top.code in self.seen.get(m.pile, ())
                        and _last_on(steps, k) and not before.fits(top, m.card)):
                    src = STOCK_ZONES[m.player][m.slot]
                    if (self.readings.get(src) == UNKNOWN
                            and not self.home_while_on(m.card, src, top, m.pile)):
                        return m.card, top, m.pile
                if s.verdict.ok and isinstance(m, Play):
                    played.add(m.card)
            advance(before, s)
        return None

    def covered_by_first(self, steps: tuple[Step, ...]) -> list[tuple[int, int]]:
        """The illegal plays (R10) the camera saw on their pile that the steps leave covered
        there by a stockpile's card, the pile's top now, whose stockpile a hand hides (or
        hid), while the first shows nowhere: (the play's index, the covering play's) each.
        The covering card may have landed first and the other on it, then been lifted off
        into its player's hand on the way home (R9, R14): the camera saw it land and then
        the pile without it, and the search lists the shorter order only (bench/monitor.py
        --in-hand; seed 1000199: P2's Q♠ "not adjacent on 6♠", where P1's 7♦ had gone on
        6♠ first). So may a spit card, which nobody sees before it lands (seed 1000484: P1's
        2♥ "the same rank on 2♣", where P2's spit card Q♣ had come first). Either way the
        play was illegal (name_covered_by_first)."""
        shown = set(self.readings.values())
        out = []
        for k, s in enumerate(steps):
            m = s.move
            if (not isinstance(m, Play) or s.returned is not None or s.verdict.ok
                    or s.verdict.kind not in R10_KINDS or m.card.code in shown
                    or m.card.code not in self.seen.get(m.pile, ()) or is_lifted(s, steps)):
                continue
            j = next((j for j in range(k + 1, len(steps)) if steps[j].returned is None
                      and isinstance(steps[j].move, (Play, Spit))
                      and steps[j].move.pile == m.pile), None)
            if j is None:
                continue
            nxt = steps[j]
            if not nxt.verdict.ok or not _last_on(steps, j):
                continue
            if isinstance(nxt.move, Spit):
                out.append((k, j))  # (a spit card is seen first on the pile it lands on)
                continue
            if nxt.move.slot is None or nxt.move.slot >= SIXTH_SLOT:
                continue
            src = STOCK_ZONES[nxt.move.player][nxt.move.slot]
            if ((src in self.hidden or self.readings.get(src) == UNKNOWN)
                    and not self.home_while_on(nxt.move.card, src, m.card, m.pile)):
                out.append((k, j))
        return out

    def home_while_on(self, card: Card, zone: str, other: Card, pile: str) -> bool:
        """The camera saw `card` on its stockpile `zone` once it had seen `other` on `pile`
        (referee.timeline): `card` cannot have landed there under `other`."""
        first = next((i for i, snap in enumerate(self.snapshots)
                      if snap.get(pile) == other.code), None)
        return first is not None and any(snap.get(zone) == card.code
                                         for snap in self.snapshots[first:])

    def name_covered_by_first(self, explanation: Explanation) -> Explanation:
        """`explanation` with each play of covered_by_first ruled in both orders: illegal
        on the covering card the same way, its message names that card too ("Q♠ on 6♠ (or
        on 7♦, had that card come first) is not adjacent"); the other way (either_r10), or
        legal on it and so lifted off it again, which is a take-back (R14, either_taken_back),
        it names both."""
        steps = list(explanation.steps)
        for k, j in self.covered_by_first(explanation.steps):
            s, first = steps[k], steps[j].move
            before = _before(self.scene.table, steps, k)
            alt = before.copy()
            alt.apply(first)
            other = alt.check(s.move)
            card = s.move.card.pretty
            if not other.ok and other.kind not in R10_KINDS:
                continue  # (the other card ended the round, R17: left as the search has it)
            what = "the spit card " if isinstance(first, Spit) else ""
            if other.ok:
                verdict = either_taken_back(
                    s.verdict, f"had {what}{first.card.pretty} come first, {card} was played "
                               "on it", where="the card goes back to its stockpile")
            elif other.kind == s.verdict.kind:
                verdict = _also_on(s.verdict, top_beneath(before, s), {first.card.code},
                                   f", had that {'spit ' if what else ''}card come first")
            else:
                verdict = either_r10(s.verdict, other, first.card, what=what)
            steps[k] = replace(s, verdict=verdict)
        return replace(explanation, steps=tuple(steps))

    def played_on_lifted(self, steps: tuple[Step, ...]) -> tuple[Card, str] | None:
        """A played card lifted off its pile (R14, taken back) by a step or before, with a
        step playing onto that pile after it: (the lifted card, the pile), or None. For the
        rules the lifted card is still there, so the next card is judged on it; but the
        camera cannot tell a card taken back and another played on it from the other card
        played first and covered (game 11000047: J♣ "played legally and taken back", 10♣
        "on J♣", where 9♣ had gone under J♣, which was illegal on it)."""
        lifted = {lc.home: lc.card for lc in self.scene.loose
                  if lc.home in SPIT_PILES and isinstance(lc.move, TakeBack)}
        for s in steps:
            if isinstance(s.move, TakeBack) and s.returned is None:
                lifted[s.move.pile] = s.move.card
            elif (isinstance(s.move, (Play, Spit)) and s.returned is None
                  and s.move.pile in lifted):
                return lifted[s.move.pile], s.move.pile
        return None

    def played_over_held(self, steps: tuple[Step, ...]) -> tuple[Card, Card, str] | None:
        """A card the steps leave in a hand (lifted off the pile it was tried on, on its way
        home: Step.held, R9, R14), and a step playing another card onto a pile hidden since
        the position, on a top the held card fits, where the played card is judged otherwise
        on the held card (R10): (the played card, the held card, the pile), or None. The held
        card may have gone home and been played there first, out of sight, and the other card
        onto it: an explanation that keeps it in the hand is shorter, and the search lists it
        alone (demo seed 15, round 9: P1's 2♠, tried on 7♣ and taken back, went home and onto
        3♥ under a hand; P2's 4♣, not adjacent on it, was ruled "P2 plays 4♣ on 3♥")."""
        # The cards in a hand once the steps are done: read off the steps, not replayed on
        # the belief (the steps of a candidate followed start from another position).
        held = {lc.card for lc in self.scene.loose if lc.at is None and isinstance(lc.move, Play)}
        for s in steps:
            if s.returned is not None:
                if s.held and isinstance(s.returned.move, Play):
                    held.add(s.returned.card)
                else:
                    held.discard(s.returned.card)  # home
            elif s.move.card is not None:
                held.discard(s.move.card)  # played again, from home
        if not held:
            return None
        before = self.scene.table.copy()
        for s in steps:
            m = s.move
            if (isinstance(m, (Play, Spit)) and s.returned is None and not s.held
                    and (m.pile in self.hidden or self.readings.get(m.pile) == UNKNOWN)):
                top = before.top(m.pile)
                for card in held:
                    if (card != m.card and top is not None and before.fits(card, top)
                            and before.fits(m.card, top) != before.fits(m.card, card)):
                        return m.card, card, m.pile
            advance(before, s)
        return None

    def replayed_over(self, steps: tuple[Step, ...]) -> tuple[Card, str, Card] | None:
        """A card lying illegally on a pile (R10) that the steps send home and play there
        again, with another card played there in between that the camera never saw on the
        pile: (the card, the pile, the other card), or None. The camera cannot tell that from
        the other card laid on it and lifted again, still in its player's hand on the way
        home, which no explanation holds (demo seed 3: P2's 5♥ laid on P1's J♥, itself lying
        illegally on K♠, and taken back; "J♥ on K♠" was ruled a second time). Each player
        holds one card at a time (R9), and a card in a hand shows nowhere: more cards between
        than that, or one the camera shows, and the steps are the only way (demo seed 3: 10♦
        and 9♥, both P2's, played under J♥). So are they if a card between fitted the pile:
        lifting it again would be an illegal take-back (R14) of its own (demo seed 14: K♦
        lifted off K♣ and played again on P1's Q♣, which fitted K♣)."""
        shown = set(self.readings.values())
        for k, s in enumerate(steps):
            lc = s.returned
            if lc is None or lc.at not in SPIT_PILES:
                continue
            between: list[tuple[str, Card]] = []
            for later in steps[k + 1:]:
                m = later.move
                if (later.returned is not None or not isinstance(m, (Play, Spit))
                        or m.pile != lc.at):
                    continue
                if m.card != lc.card:
                    if later.verdict.ok:
                        break  # (lifted again, it would be a take-back (R14) nobody saw)
                    between.append((m.player, m.card))
                    continue
                players = [p for p, _ in between]
                if (between and len(set(players)) == len(players)
                        and not any(c.code in shown or c.code in self.seen.get(lc.at, ())
                                    for _, c in between)):
                    return lc.card, lc.at, between[0][1]
                break
        return None

    def gone_from_hidden_stock(self, steps: tuple[Step, ...],
                               stacked_over: set[Card]) -> tuple[str, Card] | None:
        """A stockpile hidden since the belief was last confirmed whose face-up top no longer
        shows there nor anywhere else, though the steps do not move it, and that fits a
        pile's top the steps pass (R10): it may have been played out of sight and covered,
        which the shortest explanation leaves out (game 2000014: 4♦ played on 5♥ under a
        hand, 5♠ then legal on it, not "5♠ on 5♥ again and 4♣ stacked on 4♦"). (zone, card),
        or None. `stacked_over`: the cards the steps cover by stacking (stacked)."""
        t = self.scene.table
        # A card the steps cover on its stockpile by stacking another on it (R12) is moved
        # only by a guess: it may as well have been played (game 26000083: J♥ "under K♦",
        # where it had gone on Q♣ under a hand and K♦ filled the slot it left).
        moved = {s.move.card for s in steps if getattr(s.move, "card", None) is not None}
        moved -= stacked_over
        shown = set(self.readings.values())
        tops = [c for p in SPIT_PILES for c in (t.top(p),) if c is not None]
        tops += [s.move.card for s in steps if isinstance(s.move, (Play, Spit)) and s.verdict.ok]
        for p in PLAYERS:
            for i, z in enumerate(STOCK_ZONES[p]):
                card = t.slots[p][i].up
                if (z in self.hidden and card is not None and card not in moved
                        and card.code not in shown and any(t.fits(card, top) for top in tops)):
                    return z, card
        return None

    def on_uncertain_zones(self, illegal: list[Step]) -> bool:
        """An illegal step whose ruling the provisional position may have wrong: it touches a
        zone where the options differed (its card's stockpile or hand, its pile; for a move
        between stockpiles any of the player's), or it is a spit (R16 depends on every top,
        and who holds spit cards)."""
        if self.uncertain_zones is None:
            return True
        for s in illegal:
            if isinstance(s.move, Spit):
                return True
            if isinstance(s.move, Refill) and set(STOCK_ZONES[s.move.player]) & (
                    self.uncertain_zones):
                return True  # whether a slot was free (R12, R13) depends on all of them
            src, dst = move_zones(s.move)
            if {src, dst, f"{s.move.player}.hand"} & self.uncertain_zones:
                return True
        return False

    def spit_beneath(self, steps: tuple[Step, ...]) -> str | None:
        """The pile where a card ruled illegal may lie on a spit card the camera never saw,
        or None. A spit was due: a spit card may lie under it, unseen because the pile was
        hidden or because the card covered it before the stabiliser's frames could report it
        (game 1000484: 18 ms). Under it, the card's ruling differs (R8, R16). Seeing the card
        beneath, once this one is taken back, settles it."""
        return min(self.spit_beneath_piles(steps), default=None)

    def spit_beneath_piles(self, steps: tuple[Step, ...]) -> set[str]:
        """Every pile spit_beneath could name."""
        # A player whose spit card the camera saw land (one card each per "Spit!", R16) has
        # no other spit card under this pile.
        seen = {s.move.player for s in steps if isinstance(s.move, Spit)}
        return {s.move.pile for s in illegal_steps(steps)
                if isinstance(s.move, Play) and not is_lifted(s, steps)
                and self.spitters_under(s.move) - seen}

    def spit_first(self, steps: tuple[Step, ...]) -> str | None:
        """The pile where a card ruled illegal was taken back and a spit card then showed, or
        None. The spit card may have landed before the card (and lain under it, unseen) as
        well as after it was taken back: the card's ruling depends on which."""
        return min(self.spit_first_piles(steps), default=None)

    def spit_first_piles(self, steps: tuple[Step, ...]) -> set[str]:
        """Every pile spit_first could name. Not one where the camera saw the card beneath
        the illegal one again after it (_seen_lifted): no spit card lay between them."""
        piles = set()
        beneath = [key[-1] for key in step_keys(self.scene.table, steps)]
        for k, s in enumerate(steps):
            if (isinstance(s.move, Play) and not s.verdict.ok and s.returned is None
                    and is_lifted(s, steps) and not self._seen_lifted(s.move, beneath[k])):
                spitters = self.spitters_under(s.move)
                if any(isinstance(later.move, Spit) and later.returned is None
                       and later.move.pile == s.move.pile and later.move.player in spitters
                       for later in steps[k + 1:]):
                    piles.add(s.move.pile)
        return piles

    def _seen_lifted(self, play: Play, beneath: str | None) -> bool:
        """The camera saw `beneath`, the card `play` landed on, on its pile again after it
        first saw `play`'s card there (the zone's sightings are in the order first seen): the
        card was lifted off before anything else landed, so a spit card that showed there
        later came after it, not under it (no move lifts a spit card off a pile, R14). Demo
        seed 11: 6♠ seen on 9♠, then 9♠, then P2's spit Q♦; the order was held in doubt, and
        K♣, played on Q♦, went unruled."""
        order = self.seen.get(play.pile, ())
        return (beneath in order and play.card.code in order
                and order.index(beneath) > order.index(play.card.code))

    def spitters_under(self, play: Play) -> set[str]:
        """The players whose spit card the camera may have missed under `play`'s card: a spit
        is due and they may spit on that pile. Not the player who played the card while the
        pile was in view: flipping a spit card and then covering it with a stock card takes
        one pair of hands longer than the camera needs to report the first (the bots' 0.25 s
        per move, a person's more) — only two players' cards land that close."""
        table = self.scene.table
        spitters = set(table.pending_spits)
        if self.counts_uncertain:
            # Who still holds spit cards, and so which pile each may spit on, is not known.
            if not table.round_end() and table.nobody_can_play():
                spitters |= set(PLAYERS) - self.spitless
        elif table.spit_due():
            spitters |= {p for p in PLAYERS if table.spit_hand[p] > 0}
        if play.pile not in self.hidden:
            spitters.discard(play.player)
        return {p for p in spitters
                if self.counts_uncertain or may_spit_here(table, p, play.pile)}

    def alike_in_rivals(self, explanation: Explanation,
                        other_kind: bool = True) -> tuple[Explanation, frozenset]:
        """The R10 plays of `explanation` that every position the resync did not take makes
        illegal the same way too, carried to this table (Rivals): their rulings do not depend
        on which position is the truth, so the provisional position does not doubt them
        (game 2000012: Q♦ not adjacent on 2♣, or on A♣ beneath it had 2♣ been an illegal
        card, in the order the resync did not take). Returns the explanation with those
        steps' messages naming every card they may have landed on, and their moves. With
        `other_kind`, a play a rival makes illegal the other R10 way is alike too, its verdict
        naming both (either_kind)."""
        rivals = self.rivals
        plays = [s for s in explanation.steps if isinstance(s.move, Play) and not s.verdict.ok
                 and s.verdict.kind in R10_KINDS]
        if (rivals is None or not plays or not self.provisional
                or self.uncertain_zones is None):
            return explanation, frozenset()
        tops: dict[Any, set[str]] = {s.move: set() for s in plays}
        lifted: dict[Any, set[str]] = {}  # legal in a rival on these, then taken back (R14)
        # Illegal in a rival the other R10 way (the same rank there, not adjacent here, on
        # another card beneath): by move, what those rulings say.
        other_way: dict[Any, set[str]] = {}
        # A position that needs more moves to reach a table seen whole than the one taken is
        # no longer a candidate (Rivals.ruled_out): its search stops there (game 48000212: K♠
        # lying loose under 9♣ in the other position, whose search for P1's 6♥ tried on 9♦
        # ran out of budget, and 6♥ was left unruled). A hand over part of the table leaves
        # the moves made under it to count once it is seen: no bound then.
        whole = UNKNOWN not in self.readings.values()
        for b in rivals.branches:
            followed = follow([Explanation((), b.scene)], self.readings,
                              no_face_down=frozenset(rivals.hidden), seen=rivals.seen,
                              shown={z: frozenset(v) for z, v in rivals.shown.items()},
                              most=(rivals.taken + len(explanation.steps) - len(b.steps)
                                    if whole else None))
            if followed.undecided:
                return explanation, frozenset()
            for e in followed.branches:  # (none: this position cannot be the truth)
                keys = step_keys(b.scene.table, e.steps)
                for s in plays:
                    if s.move not in tops:
                        continue
                    here = {k[-1] for r, k in zip(e.steps, keys) if r.move == s.move
                            and r.returned is None and not r.verdict.ok
                            and r.verdict.kind == s.verdict.kind}
                    back = ({k[-1] for n, (r, k) in enumerate(zip(e.steps, keys))
                             if r.move == s.move and r.returned is None and r.verdict.ok
                             and taken_back_after(r, e.steps[n + 1:])}
                            if is_lifted(s, explanation.steps) else set())
                    there = ({r.verdict.message for r in e.steps if r.move == s.move
                              and r.returned is None and not r.verdict.ok
                              and r.verdict.kind in R10_KINDS - {s.verdict.kind}}
                             if other_kind else set())
                    if not (here or back or there):
                        del tops[s.move]
                    else:
                        tops[s.move] |= here
                        if back:
                            lifted.setdefault(s.move, set()).update(back)
                        if there:
                            other_way.setdefault(s.move, set()).update(there)
        if not tops:
            return explanation, frozenset()
        steps = []
        before = self.scene.table.copy()
        for s in explanation.steps:
            if s.move in tops and s.returned is None:
                s = on_any_of(s, before, tops[s.move])
                if s.move in other_way and s.move not in lifted:
                    # Illegal either way (R10), one kind or the other (game 48000215: P2's
                    # J♦ the same rank on J♠ in the position taken, not adjacent on K♦ in
                    # the other, where cards lay loose on the piles; J♦ was left unruled).
                    s = replace(s, verdict=either_kind(s.verdict, other_way[s.move]))
                if s.move in lifted:
                    s = replace(s, verdict=either_taken_back(
                        s.verdict, f"in an order of moves the camera could not tell apart, "
                                   f"{s.move.card.pretty} was played on "
                                   f"{', '.join(sorted(pretty(c) for c in lifted[s.move]))}"))
            steps.append(s)
            advance(before, s)
        return Explanation(tuple(steps), explanation.scene), frozenset(tops)

    def either_way(self, explanation: Explanation) -> tuple[Explanation, frozenset[int]]:
        """The steps of `explanation` (see spit_first) that are ruled whichever came first.

        A card taken back before a spit card showed on its pile, illegal the same way whether
        that spit card lay under it or came after it: R10, 3♠ on 8♣ or on 9♦, not adjacent
        either way (its ruling names both cards); 3♥ on 8♣ or on 3♣ is ruled too, as not
        adjacent one way and the same rank the other (game 1000484: the spit card was covered
        18 ms after it landed; either_r10). 4♠ on K♥ or on 3♣ too: legal had the spit card
        come first, but then taken back off it (R14; game 1000315, either_taken_back). And
        every step other than a spit away from the piles in doubt
        (those where a spit card may lie unseen, spit_first and spit_beneath): its verdict
        does not depend on that order (game 1000156: 5♠ on 9♥, seen lifted off 9♥ on the other
        pile). A spit too, when nothing but illegal cards, taken back since, came between the
        earliest moment it may have landed and the latest (spit_alike_either_way); else it is
        left: whether one was due (R16) depends on when it came. Returns the explanation with
        those messages, and their indices."""
        steps = list(explanation.steps)
        before = self.scene.table.copy()
        doubted = (self.spit_first_piles(explanation.steps)
                   | self.spit_beneath_piles(explanation.steps))
        sure = set()
        for k, s in enumerate(explanation.steps):
            spit = next((later for later in explanation.steps[k + 1:]
                         if isinstance(later.move, Spit) and later.returned is None
                         and isinstance(s.move, Play) and later.move.pile == s.move.pile), None)
            if (spit is not None and not s.verdict.ok and s.returned is None
                    and is_lifted(s, explanation.steps) and spit.verdict.ok
                    and before.piles[s.move.pile]):
                alt = before.copy()
                alt.apply(spit.move)
                other = alt.check(s.move)
                top = before.piles[s.move.pile][-1].pretty
                said = f" on {top} "
                if not other.ok and other.kind == s.verdict.kind and said in s.verdict.message:
                    message = s.verdict.message.replace(
                        said, f" on {top} (or on {spit.move.card.pretty}, had that spit card "
                              "come first) ", 1)
                    steps[k] = replace(s, verdict=replace(s.verdict, message=message))
                    sure.add(k)
                elif not other.ok and {other.kind, s.verdict.kind} == R10_KINDS:
                    steps[k] = replace(s, verdict=either_r10(s.verdict, other,
                                                              spit.move.card))
                    sure.add(k)
                elif other.ok and s.verdict.kind in R10_KINDS:
                    # Legal on the spit card, but then lifted off it again: a played card
                    # taken back (R14). Illegal in both orders (games 1000315, 1000827).
                    card = s.move.card.pretty
                    steps[k] = replace(s, verdict=either_taken_back(
                        s.verdict, f"had the spit card {spit.move.card.pretty} come first, "
                                   f"{card} was played on it"))
                    sure.add(k)
            elif (not isinstance(s.move, Spit) and s.returned is None
                  and not ({z for z in move_zones(s.move) if z} & doubted)):
                sure.add(k)
            elif spit_alike_either_way(k, explanation.steps) and (
                    not self.counts_uncertain
                    or spit_free_of_counts(s, before, explanation.steps, self.spitless)):
                # (With uncertain counts, whose spit card it is may not be known, R8: game
                # 3000012, round 24, "P2 spits 7♦" where P2 held none and P1 spat.)
                sure.add(k)
            elif isinstance(s.move, Spit) and self._spit_in_any_order(k, explanation.steps):
                sure.add(k)
            advance(before, s)
        return Explanation(tuple(steps), explanation.scene), frozenset(sure)

    def _spit_in_any_order(self, k: int, steps: tuple[Step, ...]) -> bool:
        """Spit step `k` (see either_way) was legal and landed on the same card in any order of
        the steps: a spit was due, or its player owed one, at the last sure position whatever
        a hand hid (spit_sure, R16), so no order of the steps makes it false; no legal card
        lands on its pile before it, nor another spit after it, and no legal card played there
        after it would fit the card beneath it, so no order puts another card under it. Demo
        seed 1: P2's 6♣ and P1's A♣ spat while P1's 9♥, tried on 2♦, was lifted again; with
        the frame that showed 2♦ between 9♥ and A♣ hidden (_seen_lifted), the order of 9♥ and
        A♣ on the left pile is not known, but both spits are."""
        spit = steps[k]
        if spit.returned is not None or not spit.verdict.ok or not self.spit_sure(spit.move):
            return False
        pile = spit.move.pile
        lands = [(j, s) for j, s in enumerate(steps) if j != k and s.returned is None
                 and s.verdict.ok and isinstance(s.move, (Play, Spit)) and s.move.pile == pile]
        if any(j < k or isinstance(s.move, Spit) for j, s in lands):
            return False
        beneath = self.scene.table.top(pile)
        return beneath is None or not any(
            self.scene.table.fits(s.move.card, beneath) for _, s in lands)

    def sent_home_unseen(self, steps: tuple[Step, ...], readings: Mapping[str, str]) -> bool:
        """A step sends a loose card home (an illegal card taken back, R10, R14) into a zone
        a hand hides now, where the camera has not seen it since the position. It may still
        be in its player's hand on the way (R9), and the zone show its slot without it
        first. Taken as home, that reading would have the card leave again and, to come home
        a second time, be tried once more where the camera never saw it (demo seeds 11 and
        13 filmed with vision.stable_frames 2: J♥ and 8♠ each ruled illegal twice for one
        attempt)."""
        return any(s.returned is not None and readings.get(s.returned.home) == UNKNOWN
                   and s.returned.card.code not in self.seen.get(s.returned.home, ())
                   for s in steps)

    def may_hide_a_play(self, readings: Mapping[str, str], outcome: Outcome) -> bool:
        """A visible pile changed while a stockpile with a face-up top is hidden: that card may
        lie underneath the new top (R14), so the order cannot be known yet. Unless the hidden
        card could not have gone legally on the pile's top: then, under the new card or not, it
        does not change the new card's ruling (a card ruled illegal stays off the pile, R10),
        so there is nothing to wait for. A spit waits for any hidden top: whether it was due
        (R16) depends on what that card could do, unless nothing hidden can change that
        (spit_sure). The hidden stockpile's top after the steps
        counts too: a card they take back home may have been played again under the hand
        (game 3000017: 6♥ taken back, then played on 7♠ under 5♦, which was ruled "5♦ on 7♠
        not adjacent")."""
        steps = outcome.explanation.steps
        if not any(isinstance(s.move, (Play, Spit)) for s in steps):
            return False
        spit = any(isinstance(s.move, Spit) and not self.spit_sure(s.move) for s in steps)
        t = self.scene.table
        # Each pile's top before the steps and every card the steps leave on it a while: the
        # hidden card may have landed on any of them.
        tops: dict[str, list[Card]] = {}
        for s in steps:
            if isinstance(s.move, Play):
                pile = s.move.pile
                tops.setdefault(pile, [c for c in (t.top(pile),) if c is not None])
                if s.verdict.ok:
                    tops[pile].append(s.move.card)
        end = outcome.explanation.scene.table
        # A hidden card can lie under a pile's top only if it landed before that top did: not
        # on the top the camera shows now (it would show instead, or, taken back, would not
        # change how that top was ruled). Demo seed 1: P2's 8♣ on 7♠ waited 11 frames for the
        # hand over P1's stockpile, where 9♣ (which fits 8♣) was taken back to.
        for pile, tops_ in tops.items():
            if tops_ and readings[pile] == tops_[-1].code and end.top(pile) == tops_[-1]:
                tops_.pop()
        # A card seen landing is not hidden (a card ruled illegal stays its stockpile's top),
        # unless the steps take it home again: then it may have been played again under the
        # hand, on a top from then on (game 30000094: 2♥ taken back off 2♠, played on 3♣
        # with its stockpile hidden, 3♠ on it; ruled "3♠ on 3♣, the same rank").
        since_home: dict[Card, list[Card]] = {}
        if any(s.returned is not None for s in steps):  # (else no card goes home)
            replay = t.copy()
            for s in steps:
                if isinstance(s.move, Play) and s.returned is None:
                    since_home.pop(s.move.card, None)  # played again: seen landing
                    if s.legal:
                        for later in since_home.values():
                            later.append(s.move.card)
                if s.returned is not None:
                    since_home[s.move.card] = [c for q in SPIT_PILES for c in (replay.top(q),)
                                               if c is not None]
                advance(replay, s)
        showing = {end.top(q) for q in SPIT_PILES
                   if end.top(q) is not None and readings[q] == end.top(q).code}
        landed = {s.move.card for s in steps
                  if isinstance(s.move, Play) and s.returned is None} - since_home.keys()
        for p in PLAYERS:
            for i, z in enumerate(STOCK_ZONES[p]):
                if readings[z] != UNKNOWN:
                    continue
                # The top after the steps too: a card they take back home lies there.
                for card in {t.slots[p][i].up, end.slots[p][i].up} - landed - {None}:
                    onto = ([c for c in since_home[card] if c not in showing]
                            if card in since_home else
                            [top for tops_ in tops.values() for top in tops_])
                    if spit or any(t.fits(card, top) for top in onto):
                        return True
        return False

    def covered_illegal_near_hidden(self, steps: tuple[Step, ...],
                                    readings: Mapping[str, str]) -> bool:
        """An illegal play lies covered on its pile, never seen there, while a stockpile of
        its player is hidden: the search does not take a card for covered while it may lie
        on that stockpile (candidates._could_be_covered), so the orders in which the card came
        after another and was legal are not all listed (game 16000057: 6♣ "on 6♦, the same
        rank", where P1 had played 5♥ from the hidden stockpile first and 6♣ on it)."""
        for s in illegal_steps(steps):
            move = s.move
            if (not isinstance(move, Play) or s.returned is not None
                    or readings.get(move.pile) == move.card.code
                    or move.card.code in self.seen.get(move.pile, ())):
                continue
            if any(readings.get(z) == UNKNOWN for z in STOCK_ZONES[move.player]):
                return True
        return False

    def covered_may_be_home(self, explanation: Explanation,
                            readings: Mapping[str, str]) -> bool:
        """A card the camera saw on a pile, which `explanation` leaves under another there,
        while a hand hides its stockpile: it may have lain there illegally and gone home
        under the hand (R10, R14), the other card having landed beneath it first (game
        31000094: the camera saw K♦ on the left pile, then J♠ on top, P2's stockpile hidden;
        ruled "K♦ on Q♣" and "J♠ on K♦, not adjacent", where J♠ had gone on Q♣ first and
        K♦, not adjacent to it, went home)."""
        for s in explanation.steps:
            move = s.move
            if (isinstance(move, Play) and s.returned is None and move.slot is not None
                    and move.slot < SIXTH_SLOT
                    and move.card.code in self.seen.get(move.pile, ())
                    and readings.get(move.pile) not in (UNKNOWN, move.card.code)
                    and readings.get(STOCK_ZONES[move.player][move.slot]) == UNKNOWN
                    and move.card.code in cards_on(explanation.scene, move.pile)):
                return True
        return False

    def spit_sure(self, spit: Spit) -> bool:
        """Nothing a hand hides can have made `spit` false (R16): at the last sure position its
        player owed a spit, or a spit was due with nothing left to turn up or uncover. Under a
        hand a player can then only spit (after which the other owes one), move a top to an
        empty slot (it could not play before either) or play a card that does not fit (it
        stays off the pile): no card that could play shows up. Demo seed 4: P2's 9♣ waited 11
        frames for the hand over P1's stockpiles while P1 spat too."""
        t = self.scene.table
        if self.counts_uncertain:
            return False  # who holds spit cards, and so who owes a spit, is not known
        if spit.player in t.pending_spits:
            return True
        return t.spit_due() and not any(t.can_uncover(p) for p in PLAYERS)


def _last_on(steps: Sequence[Step], k: int) -> bool:
    """Step `k` lays the card its pile ends with: nothing lands on the pile after it, and it
    is not lifted off again."""
    pile = steps[k].move.pile
    return not is_lifted(steps[k], steps) and not any(
        s.returned is None and isinstance(s.move, (Play, Spit)) and s.move.pile == pile
        for s in steps[k + 1:])


def _before(table: Table, steps: Sequence[Step], k: int) -> Table:
    """`table` carried past the first `k` steps."""
    before = table.copy()
    for s in steps[:k]:
        advance(before, s)
    return before


def either_r10(verdict: Verdict, other: Verdict, spit: Card,
               what: str = "the spit card ") -> Verdict:
    """One R10 verdict for a card that lay on the pile's top or on a spit card that may have
    come first: not adjacent one way, the same rank the other (game 1000020: 3♥ on 8♣, or on
    3♣). Illegal either way, so it is ruled, naming both and the kind as both. `what`: how
    the message names the other card before its code (another played card: "")."""
    this = verdict.message.split(" (R10)")[0]
    that = other.message.split(": ", 1)[1].split(" (R10)")[0]
    message = (f"{this}; or, had {what}{spit.pretty} come first, {that} (R10) — "
               "take it back")
    return Verdict(False, "R10", EITHER_R10, message)


def either_kind(verdict: Verdict, others: AbstractSet[str]) -> Verdict:
    """One R10 verdict for a play illegal one way in the position taken and the other way
    (`others`: those rulings' messages) in orders of moves the camera could not tell apart:
    "J♦ on J♠ is the same rank …; or, in an order …, J♦ on K♦ is not adjacent"."""
    this = verdict.message.split(" (R10)")[0]
    those = "; or ".join(sorted({m.split(": ", 1)[1].split(" (R10)")[0] for m in others}))
    message = (f"{this} (R10); or, in an order of moves the camera could not tell apart, "
               f"{those} (R10) — either way an illegal play: take it back")
    return Verdict(False, "R10", EITHER_R10, message)


def either_taken_back(verdict: Verdict, other: str,
                      where: str = "the card is back on its stockpile") -> Verdict:
    """One verdict for a card seen on a pile and then back on its stockpile that fitted
    another card it may have lain on (`other` says how: a spit card that may have come
    first, unseen under it; another order of moves): not fitting the old top (R10), or
    played on the other card and then taken back off it (R14). Illegal either way, so it
    is ruled, naming both. `where`: what the message says of the card now."""
    this = verdict.message.split(" (R10)")[0]
    message = (f"{this} (R10); or, {other}, and then taken back, which is never allowed (R14) "
               f"— either way an illegal move; {where}")
    return Verdict(False, "R10", f"{verdict.kind} or {TAKEN_BACK}", message)


def r10_alike(steps: tuple[Step, ...], keys: Sequence[tuple], agreed: Counter) -> Counter:
    """The R10 plays (not adjacent, the same rank) an explanation rules illegal, by move and
    kind: the same ruling whichever card lay beneath. `keys`, `agreed`: the steps' keys
    (step_keys) and those every explanation shares, which are ruled as such and left out."""
    left = Counter(agreed)
    alike = Counter()
    for s, key in zip(steps, keys):
        if left[key] > 0:
            left[key] -= 1
        elif not s.verdict.ok and s.returned is None and s.verdict.kind in R10_KINDS:
            alike[(s.move, s.verdict.kind)] += 1
    return alike


def on_any_of(step: Step, before: Table, tops: set[str]) -> Step:
    """`step` with its message naming every card it may have landed on (r10_alike)."""
    return replace(step, verdict=_also_on(step.verdict, top_beneath(before, step), tops,
                                          ", in an order of moves the camera could not tell "
                                          "apart"))


def _also_on(verdict: Verdict, top: str | None, tops: AbstractSet[str | None],
             why: str = "") -> Verdict:
    """`verdict` with the card its message says it landed on (`top`) followed by the other
    cards of `tops` it may have landed on ("K♥ on 7♦ (or on 8♦) is not adjacent"), once."""
    others = sorted(pretty(c) for c in set(tops) - {top, "empty", None})
    said = f" on {pretty(top)} " if top not in (None, "empty") else None
    if (not others or said is None or said not in verdict.message
            or " (or on " in verdict.message):
        return verdict
    return replace(verdict, message=verdict.message.replace(
        said, f" on {pretty(top)} (or on {', '.join(others)}{why}) ", 1))


def r10_in_every_order(table: Table, chosen: Explanation, others: Sequence[Explanation],
                       keys: Sequence[list[tuple]], unsure: AbstractSet[int]) -> dict[int, Step]:
    """Of `chosen`'s steps numbered in `unsure` (those `others`, explanations from `table`
    too, do not all rule alike; `keys`: their step_keys from `table`), the R10 plays that
    every one of `others` makes illegal as well, once, not adjacent or the same rank, on
    whichever card lay beneath: illegal in every order, so ruled, by index, with a message
    naming every card they may have landed on (on_any_of) or both ways (either_kind). Game
    1001001: 10♦ the same rank on 10♠ in one order, not adjacent on 8♠ in the other."""
    keyed = [list(zip(o.steps, k)) for o, k in zip(others, keys)]
    out: dict[int, Step] = {}
    before = table.copy()
    for k, s in enumerate(chosen.steps):
        if (k in unsure and isinstance(s.move, Play) and not s.verdict.ok
                and s.returned is None and s.verdict.kind in R10_KINDS):
            same = [[(o, key) for o, key in steps if o.move == s.move] for steps in keyed]
            if all(len(x) == 1 and not x[0][0].verdict.ok and x[0][0].returned is None
                   and x[0][0].verdict.kind in R10_KINDS for x in same):
                kinds = {x[0][0].verdict.message for x in same
                         if x[0][0].verdict.kind != s.verdict.kind}
                out[k] = (replace(s, verdict=either_kind(s.verdict, kinds)) if kinds else
                          on_any_of(s, before, {x[0][1][-1] for x in same}))
        advance(before, s)
    return out


def illegal_in_every_order(options: Sequence[Explanation], table: Table, player: str,
                           code: str) -> Step | None:
    """A card of `player`'s that every option (every shortest explanation from `table`) has
    them use illegally once: tried on a pile it does not fit (R10, one kind of it) in some,
    played on a card it fits and then taken back off it (R14) in the others. Illegal either
    way: returns the R10 play with a verdict naming both (either_taken_back), or None (game
    48000166: P2's 7♠ the same rank on 7♦, or played on 8♦ and lifted off it again; the
    card was seen on the pile and then back home, which no legal move does, R14)."""
    r10: list[tuple[Step, str]] = []
    lifted: set[str] = set()
    for o in options:
        mine = []
        for n, (s, key) in enumerate(zip(o.steps, step_keys(table, o.steps))):
            if getattr(s.move, "card", None) is None or s.move.card.code != code \
                    or s.move.player != player or s.returned is not None:
                continue
            if isinstance(s.move, Play) and not s.verdict.ok and s.verdict.kind in R10_KINDS:
                mine.append(("r10", s, key[-1]))
            elif isinstance(s.move, Play) and s.verdict.ok and taken_back_after(s, o.steps[n + 1:]):
                mine.append(("lifted", s, key[-1]))
            elif isinstance(s.move, TakeBack):
                continue  # (the lifting of a card played legally, found above)
            elif not s.verdict.ok:
                return None  # another illegal use of the card: not this pattern
        if len(mine) != 1:
            return None
        how, s, top = mine[0]
        if how == "r10":
            r10.append((s, top))
        else:
            lifted.add(top)
    if not r10 or not lifted or len({s.verdict.kind for s, _ in r10}) > 1:
        return None
    step, top = r10[0]
    verdict = _also_on(step.verdict, top, {t for _, t in r10})
    # (It may have been played again since, legally: "went back", not "is back".)
    return replace(step, verdict=either_taken_back(
        verdict, f"in an order of moves the camera could not tell apart, {step.move.card.pretty}"
                 f" was played on {', '.join(sorted(pretty(t) for t in lifted))}",
        where="the card went back to its stockpile"))


def one_outcome(options: Sequence[Explanation], table: Table) -> Explanation | None:
    """Options (every shortest explanation of the table from `table`) that make the same
    moves with the same verdicts and leave the same position, differing only in their order
    and so in the card an illegal play landed on (R10), are one outcome: no later table can
    tell them apart. Returns the first, each R10 ruling naming every card its play may have
    landed on (on_any_of), or None. Followed as candidates instead, they would stay apart
    until a resync, and a round ending meanwhile went unruled (game 48000225: P2's 3♦ not
    adjacent on 7♠, or on 6♦ before P1 played 7♠; the two orders, one position once 3♦ was
    taken back, were followed until the piles were gathered, and the rest of the game was
    lost).

    A play tried twice the same way is not merged: which attempt landed on which card is
    part of what its two rulings say."""
    if len(options) < 2 or len({moves_key(o) for o in options}) > 1:
        return None
    first = options[0]
    r10 = [(s.move, s.verdict.kind) for s in first.steps
           if not s.verdict.ok and s.returned is None and s.verdict.kind in R10_KINDS]
    if len(set(r10)) < len(r10):
        return None
    tops: dict[tuple, set[str]] = {k: set() for k in r10}
    for o in options:
        for s, key in zip(o.steps, step_keys(table, o.steps)):
            if (s.move, s.verdict.kind) in tops and not s.verdict.ok and s.returned is None:
                tops[(s.move, s.verdict.kind)].add(key[-1])
    before = table.copy()
    steps = []
    for s in first.steps:
        k = (s.move, s.verdict.kind)
        named = s
        if k in tops and not s.verdict.ok and s.returned is None:
            named = on_any_of(s, before, tops[k])
        steps.append(named)
        advance(before, s)
    return replace(first, steps=tuple(steps))


def spit_free_of_counts(step: Step, before: Table, steps: tuple[Step, ...] = (),
                         spitless: frozenset[str] | set[str] = frozenset(),
                         other_first: bool = False) -> bool:
    """A legal spit whose ruling the uncertain counts cannot change: its player spat onto
    that pile earlier this round (so the card is theirs, R16), or it is one of the round's
    two first spits, each onto the pile on its player's side (R8: both players spat, so both
    hold spit cards, and the side tells whose card is whose; a lone first spit may be the
    other player's, if this one holds none, R20), and the referee's stand-in counts still
    give every player spit cards. Then whoever the referee has owing a spit includes whoever
    truly does (a player who spits has a card), so a spit it finds due or owed was so (R16);
    once a stand-in runs out it could believe no spit owed where one is, and call a second
    spit legal that was false. `steps`: the explanation the spit is part of. `spitless`:
    players known to hold no spit cards whatever the counts (a short layout, R7): the other
    player's spits are theirs, a lone first one included (R20), and nobody owes one to them.
    `other_first`: as if the other player's first spit, onto their side, were to follow
    (Monitor._rule_lone_first)."""
    move = step.move
    own = before.side[move.player]
    other = other_player(move.player)
    first_two = (own is None and move.pile == DEFAULT_SIDE[move.player] and (
        before.side[other] == DEFAULT_SIDE[other]
        or (other_first and before.side[other] is None)
        or any(isinstance(s.move, Spit) and s.returned is None and s.verdict.ok
               and s.move.player == other and s.move.pile == DEFAULT_SIDE[other]
               for s in steps)))
    alone = own is None and other in spitless
    return (step.verdict.ok and step.returned is None
            and (own == move.pile or first_two or alone)
            and all(before.spit_hand[p] > 0 or p in spitless for p in PLAYERS))


def spit_alike_either_way(k: int, steps: tuple[Step, ...]) -> bool:
    """Step `k` is a legal spit that may instead have landed under an illegal card played
    before it on its pile and taken back (Doubts.spit_first), and only such cards, and their
    going home, came between: none of them changes the table the rules judge (an illegal card
    lies loose, R10, R14), so the spit was due, or owed, and landed on the same card, in
    either order. It is ruled (game 1000020: P1's 3♣ spat while P2's 3♥ lay illegally on the
    left pile, or just after 3♥ was taken back: "P1 spits 3♣" either way)."""
    spit = steps[k]
    if not (isinstance(spit.move, Spit) and spit.returned is None and spit.verdict.ok):
        return False
    first = next((j for j, s in enumerate(steps[:k])
                  if isinstance(s.move, Play) and s.move.pile == spit.move.pile
                  and not s.verdict.ok and s.returned is None and is_lifted(s, steps)), None)
    return first is not None and all(
        not s.verdict.ok or (s.returned is not None and not isinstance(s.move, Spit))
        for s in steps[first:k])


def count_free(step: Step) -> bool:
    """An illegal step whose ruling does not depend on how many cards each player holds: a
    stockpile's top played onto a pile whose top it does not fit (R10). Which card was where
    the camera saw; only who still holds spit cards (what may lie unseen under it, see
    Doubts.spitters_under) and how deep the stockpiles are come from the counts. So does a
    play ruled both ways, not fitting either card it may have landed on, or not fitting one
    and lifted off the other (either_r10, either_taken_back: a take-back, R14, is illegal
    whatever the counts; game 43000192 under hands: P1's 9♦ not adjacent on J♥ or lifted off
    10♠, doubted while the counts were uncertain, and 51 more moves missed)."""
    return (isinstance(step.move, Play)
            and set(step.verdict.kind.split(" or ")) <= R10_KINDS | {TAKEN_BACK})
