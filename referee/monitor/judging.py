"""Judging in the rules monitor: ruling the one explanation of a table (Table.check's
verdicts, R10-R16), or holding it while something the camera did not see could make an
illegal-looking step legal (referee.doubts), and warning when nothing explains it."""
from __future__ import annotations

from typing import Mapping

from referee.cards import Card
from referee.doubts import SPIT_BENEATH, Doubts, spit_free_of_counts
from referee.infer import MAX_NODES_BLIND, Explanation, Outcome
from referee.log import ObserveInput
from referee.monitor.common import RESYNC_AFTER_S, InferredMove, Phase
from referee.moves import Play, Spit, TakeBack, TurnUp
from referee.rulings import Ruling, RulingKind, pretty
from referee.scene import SIXTH_SLOT, Scene, Step, cards_on, mismatches
from referee.seen_order import passed_whole
from referee.slaps import pile_words
from referee.state import Table
from referee.steps import (advance, illegal_steps, lays_out_sixth, ruling_for, step_zones,
                           top_beneath)
from referee.zones import BACK, EMPTY, PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN


class Judging:
    """Part of referee.monitor.Monitor: from an explanation of the table to rulings."""

    def _rule(self, entry: ObserveInput, explanation: Explanation,
              readings: Mapping[str, str], out: list[Ruling]) -> None:
        """Rule the one explanation of the table, unless an illegal step in it may not be
        the truth."""
        if self._in_a_hand(entry.t, explanation):
            return
        unread = self._spit_past_unread_top(explanation, readings)
        if unread is not None:
            self.scene.table.call_spit()
            self._branches = None
            self._apply(entry.t, unread.steps, unread.scene, out, spits_unsure=True)
            self._confirmed(readings, entry.t, out)
            return
        doubts = self._doubts()
        # Held (below), the explanation is followed as found: the rulings' wording for the
        # positions a resync did not take is made again when it is ruled. (Held with a verdict
        # reworded to the other R10 kind, it no longer matched the same explanation found
        # afresh, _alone_from_sure, and was held until the referee lost the round: game
        # 47000224, P2's 3♥ at 232.7 s.)
        found = explanation
        explanation, alike = doubts.alike_in_rivals(explanation)
        explanation = doubts.name_covered_by_first(explanation)
        doubt = doubts.doubt(explanation.steps, alike)
        if doubt is None:
            self._branches = None
            touched = {z for s in explanation.steps for z in step_zones(s.move)}
            trails = {z: self._trails[z] for z in touched & self._trails.keys()}
            start = self.scene.copy() if trails else None
            self._apply(entry.t, explanation.steps, explanation.scene, out, named=alike)
            self._confirmed(readings, entry.t, out)
            # A hidden stockpile the moves passed through every state the camera saw on, in
            # order, has nothing left to show (_confirmed keeps what it showed since it last
            # showed its new state, which they may have passed before). (The steps as found:
            # reworded, a card they take back is no longer the one lying in the position.)
            for z, trail in trails.items():
                if z in self._trails and passed_whole(start, found.steps, z, trail):
                    del self._trails[z]
            # A card seen on a pile still hidden that these moves lifted off it again (taken
            # back) is accounted for: kept, it would have to be played there once more (game
            # 3000013: 3♣ ruled "not adjacent" twice for one attempt).
            for pile in self._seen.keys() & set(SPIT_PILES):
                on = cards_on(self.scene, pile)
                self._seen[pile] = [c for c in self._seen[pile] if c in on]
            return
        if doubts.spit_first(explanation.steps) and doubt.startswith(SPIT_BENEATH):
            # Which came first, the spit or the card taken back, the camera cannot tell and
            # never will: rule neither order now, unless the card was illegal the same way
            # in both. Both leave the same position.
            self._branches = None
            # (Which order the spit card came in is weighed against each R10 kind as it is.)
            explanation, sure = doubts.either_way(
                doubts.name_covered_by_first(doubts.alike_in_rivals(found, False)[0]))
            self._resync(entry.t, readings, (explanation,), out, same_position=True,
                         sure=sure)
            return
        # The search cannot list what the camera never saw, and here that could make an
        # illegal-looking step legal: say so rather than rule it. Follow the table on from
        # the position it leaves (as one candidate, referee.branches), and after a while
        # take that position without ruling its moves.
        if not self._doubted:
            self._doubted = True
            if doubts.spit_beneath(explanation.steps):
                # Nothing to tell the players yet: the card beneath shows when the card is
                # taken back, as a hand lifting off a pile would show it. If it does not,
                # the resync below says what the referee could not see.
                return self._hold(entry, found, readings, out)
            looks = "; ".join(s.verdict.message for s in (
                illegal_steps(explanation.steps) or [s for s in explanation.steps
                                                if isinstance(s.move, (Play, Spit))]))
            out.append(Ruling(entry.t, RulingKind.WARNING,
                              message=f"line {entry.lineno}: not ruled: {looks} — but {doubt}",
                              extra={"line": entry.lineno, "doubt": True}))
        self._hold(entry, found, readings, out)

    def _doubts(self, view: tuple[dict, set, dict] | None = None) -> Doubts:
        """The monitor's state as referee.doubts reads it, now: why a change may not be what
        the search explains, and which rulings hold anyway. `view`: what the zones showed at
        another moment, (readings, hidden, seen), read in place of what they show now."""
        readings, hidden, seen = view or (self.readings, self._hidden, self._seen)
        return Doubts(scene=self.scene, readings=readings, hidden=hidden,
                      seen=seen, counts_uncertain=self._counts_uncertain,
                      spitless=self._spitless, provisional=self._provisional,
                      uncertain_zones=self._uncertain_zones, lost=self._warned is not None,
                      rivals=self._rivals, snapshots=self._timeline.since(self.scene))

    def _in_a_hand(self, t: float, explanation: Explanation) -> bool:
        """`explanation` lays a card out as a sixth stockpile (R13) because it shows in no
        zone, and it has not been gone for the settle time yet. A card a player moves from
        one stockpile to another (R12) is in their hand on the way, out of every zone for a
        moment, and the camera may see the whole table meanwhile (the demo with cards carried
        in the hand: two refills ruled "sixth stockpile"). The referee waits; the card
        showing on a stockpile is then a refill. Gone longer, it was laid out (R13)."""
        gone = {s.move.card.code for s in explanation.steps if lays_out_sixth(s)}
        if not (gone or self._gone_since):
            return False
        # (A card explained otherwise since is gone afresh when it next leaves.)
        self._gone_since = {code: self._gone_since.get(code, t) for code in gone}
        return any(t - self._gone_since[code] < self.config.settle_s for code in gone)

    def _hold(self, entry: ObserveInput, explanation: Explanation,
              readings: Mapping[str, str], out: list[Ruling]) -> None:
        """Follow a doubted explanation as the one candidate; after RESYNC_AFTER_S take the
        position it leaves without ruling its moves."""
        if self._branches is None:
            self._branched_at = entry.t
            self._branch_view = None
            self._restart_branch_sightings()
        elif (entry.t - self._branched_at >= RESYNC_AFTER_S
              and not self._spit_beneath_may_end(explanation)):
            self._branches = None
            self._resync(entry.t, readings, (explanation,), out)
            return
        self._branches = (explanation,)

    def _spit_beneath_may_end(self, explanation: Explanation) -> bool:
        """Every stock card a player has left lies, in `explanation`, illegally on a spit pile
        where a spit card the camera never saw may lie beneath it (Doubts.spit_beneath_piles):
        had that spit come first, the cards may have been legal and the round over (R17). A
        position taken now would have the round go on, and nothing would tell the referee
        otherwise; held, the explanation meets the gathered piles, which settle it
        (RoundEnds._end_from_held), or the cards going home, which rule the end out. Game
        1000684 with hands over a tenth of the moves: P2's spit covered by P1's 5♠ 18 ms
        later under a hand, and P2's last card, 4♠, on 5♠; taken after 2 s as lying illegally
        on Q♥, the round went on in the referee's belief, its end was never ruled, and the
        13 rounds after it were refereed with counts not known (97 moves missed)."""
        beneath = self._doubts().spit_beneath_piles(explanation.steps)
        if not beneath:
            return False
        scene = explanation.scene
        for p in PLAYERS:
            lying = [lc for lc in scene.loose if lc.player == p and lc.at in beneath
                     and lc.home in STOCK_ZONES[p] and isinstance(lc.move, Play)]
            if lying and scene.table.stock_count(p) == len(lying):
                return True
        return False

    def _spit_past_unread_top(self, explanation: Explanation,
                              readings: Mapping[str, str]) -> Explanation | None:
        """The explanation of the table if the players spat when "Spit!" was due, where the
        only one found makes a spit false and a layout top the camera cannot read (R5
        warning) is on the table; else None. The belief holds that top face down, so R16 says
        it could still be turned up; in truth it is face up, and whether it could be played
        is not known. The spits are followed, not ruled: without this the referee stays
        lost while that top is unread (demo seed 3: 25 s)."""
        if not self._unread_tops or not any(
                s.verdict.kind == "false-spit" for s in illegal_steps(explanation.steps)):
            return None
        scene = self.scene.copy()
        scene.table.call_spit()
        o = self._explain_from_sure(readings, scene, max_nodes=MAX_NODES_BLIND)
        if o.explanation is None or illegal_steps(o.explanation.steps):
            return None
        return o.explanation

    def _apply(self, t: float, steps: tuple[Step, ...], scene: Scene, out: list[Ruling],
               spits_unsure: bool = False, unsure: frozenset[int] = frozenset(),
               named: frozenset = frozenset()) -> None:
        """Rule `steps`, which lead from the position to `scene`, and take it. Spits (with
        `spits_unsure`) and the steps numbered in `unsure` are followed, not ruled. The moves
        in `named` are ruled naming every card they may have landed on (Doubts.alike_in_rivals)."""
        self._applied = (self.scene, steps, scene)  # (AfterEnd: the moves a round ends with)
        before = self.scene.table
        first = len(self.moves)
        if self._rivals is not None:
            self._rivals.advance(steps)
        # Stockpiles whose layout top (R5) is still face down: their first turn-up here is
        # the deal's, even when the deal is ruled with these steps (the layout and the
        # spits seen in one table), not a move.
        laying = ({(p, i) for p in PLAYERS for i, s in enumerate(before.slots[p])
                   if s.up is None and s.down} if self.phase is Phase.DEALING else set())
        if self.phase is Phase.DEALING and any(not isinstance(s.move, TurnUp) for s in steps):
            self._deal_ruling(t, out)
        landed_on: list[str | None] = []  # each step's top_beneath
        for k, step in enumerate(steps):
            # With uncertain counts, who still holds spit cards is not known, and so neither
            # is which player a spit card came from (R8), nor always whether it was due:
            # spits are followed, not ruled, unless spit_free_of_counts.
            counts_unsure = (isinstance(step.move, Spit) and self._counts_uncertain
                             and not spit_free_of_counts(step, before, steps, self._spitless))
            held = k in unsure or (isinstance(step.move, Spit) and (spits_unsure or counts_unsure))
            on_unsure = (not held and step.move not in named
                         and self._on_unsure_card(step, before))
            not_ruled = held or on_unsure
            if on_unsure and self._rivals is not None and step.move.pile in self._rival_tops:
                # It lands on a top the resync's candidates differ on: ruled, late, once the
                # table rules out all but the position taken (_position_known; game 1000234:
                # P2's 10♦ on J♦, or on 3♦ in another order, never ruled).
                if self._late is None or self._late[0] is not self._rivals:
                    self._late = (self._rivals, [])
                self._late[1].append((len(self.moves), before.copy()))
            spitters = set() if not_ruled else self._over_owed_spit(step, steps[:k])
            if spitters:
                not_ruled = True
                self._spit_doubts.append((len(self.moves), before.copy(), spitters))
            elif isinstance(step.move, TakeBack) and not not_ruled:
                not_ruled = not self._settle_taken_back(t, step, out)
            elif isinstance(step.move, Spit):
                self._spat_after(t, step.move.player, out)
            if (not isinstance(step.move, Spit) and step.move.player in before.pending_spits
                    and step.move.player not in self._moved_on):
                self._moved_on[step.move.player] = (t, set())
            if (counts_unsure and not (k in unsure or spits_unsure)
                    and spit_free_of_counts(step, before, steps, self._spitless,
                                             other_first=True)):
                self._lone_first = (len(self.moves), before)
            elif not not_ruled and isinstance(step.move, Spit):
                self._rule_lone_first(t, step, before, out)
            # The top of an unread layout stockpile (R5 warning), turned up at the deal, not
            # now: the referee learns the card.
            layout = isinstance(step.move, TurnUp) and (
                STOCK_ZONES[step.move.player][step.move.slot] in self._layout_unread
                or (step.move.player, step.move.slot) in laying)
            if layout:
                self._layout_unread.discard(STOCK_ZONES[step.move.player][step.move.slot])
                laying.discard((step.move.player, step.move.slot))
            landed_on.append(top_beneath(before, step))
            self.moves.append(InferredMove(t, step, self.game.round,
                                           self.phase is Phase.DEALING or layout,
                                           unsure=not_ruled, beneath=landed_on[-1]))
            ruling = None if not_ruled else ruling_for(t, step, before)
            if ruling is not None:
                out.append(ruling)
            before = before.copy()
            advance(before, step)
        self.scene = scene
        self._say_doubted(t, first, out)
        if self._race_call:
            self._after_race_call(steps)
        moved = [k for k, s in enumerate(steps) if s.legal or (
            s.returned is not None and isinstance(s.move, Spit) and s.verdict.ok)]
        if moved:
            # A move made under a hand was made at the latest when it was seen, at the
            # earliest when the hand came over its zones; the last of them no earlier than
            # the latest of those.
            early = max(self._made_after(t, k, steps, landed_on[k]) for k in moved)
            self._reset_timers(t - self.config.latency_s, early - self.config.latency_s)
        if self.phase is Phase.PLAYING:
            self._check_round_end(t, out, self._ended_after(steps))

    def _made_after(self, t: float, k: int, steps: tuple[Step, ...],
                    beneath: str | None) -> float:
        """The earliest log time `steps[k]`, one of the steps seen by the line at `t`, may have
        been made: `t` in full view; under a hand, when the hand first came over one of its
        zones, and a card landing on a pile after the last line that read the card beneath
        it on top there (`beneath`, its top_beneath), unless `steps` lift it off again
        (Monitor._top_seen_at; game 1000155: P2's 8♥ went on 9♥ in view 2.5 s after a hand
        had left the pile, and the forced "Spit!" timed from it was called 2 s early, as if
        it could have been made under that hand)."""
        step = steps[k]
        zones = [z for z in step_zones(step.move) if z in self._hidden and z in self._hidden_at]
        if not zones:
            return t
        early = min(self._hidden_at[z] for z in zones)
        lifted = any(isinstance(s.move, TakeBack) and s.move.card == step.move.card
                     for s in steps[k + 1:])
        if beneath not in (None, EMPTY) and step.returned is None and not lifted:
            early = max(early, self._top_seen_at.get((step.move.pile, beneath), early))
        return min(early, t)

    def _ended_after(self, steps: tuple[Step, ...]) -> list[tuple[float, str]]:
        """When the table after `steps` has the round over (R17): moments before which the
        player who cleared cannot have laid their last stock card (the last of their plays
        here), each with why, in words, earliest first. A card entering or leaving a zone
        shows as a change at once: the card leaves its stockpile after the last line that
        read it there or the first after it that read the zone otherwise
        (Monitor._card_seen_at), and lands on a pile a hand came over since the position was
        confirmed after that hand's first frame there, and after the last line that read the
        card it landed on as that pile's top, or the first after it to read the pile otherwise
        (Monitor._top_seen_at); each less the stabiliser's latency
        (the pads' clock and the camera's may differ by a frame or two)."""
        end = self.scene.table.round_end()
        if end is None:
            return []
        last = next((s for s in reversed(steps) if isinstance(s.move, Play)
                     and s.move.slot is not None and s.move.player == end.player
                     and s.verdict.ok and s.returned is None), None)
        if last is None:
            return []
        move = last.move
        bounds = []
        # Demo seed 8: P1 slapped the right pile while hands hid it and P2's last stockpile;
        # P2's last card, 10♠, was read on that stockpile 0.17 s after the slap. Demo seed 15:
        # a hand came over P1's last stockpile, 9♣ on it, 0.23 s after P2's slap.
        seen = (self._card_seen_at.get(STOCK_ZONES[move.player][move.slot])
                if move.slot < SIXTH_SLOT else None)
        if seen is not None and seen[0] != move.card.code:
            seen = None
        # A hand over the pile hid the last card landing, unless the camera read the card
        # on it, after it left its stockpile, until that hand came: then it landed before
        # (game 48000206 under hands, round 2: 6♣ read on the left pile, slapped by both
        # players, and the end ruled only from the piles gathered 17 s later, under the
        # gathering hands; both slaps were called false).
        on_pile = self._top_seen_at.get((move.pile, move.card.code))
        hand_at = self._hidden_at.get(move.pile)
        landed_in_view = (on_pile is not None and hand_at is not None and on_pile <= hand_at
                          and (seen is None or on_pile >= seen[1]))
        if move.pile in self._hidden and hand_at is not None and not landed_in_view:
            bounds.append((hand_at, f"the last card landed on {pile_words(move.pile)} later: "
                                    "no hand had reached that pile yet"))
        if seen is not None:
            bounds.append((seen[1], f"the last card, {move.card.pretty}, was still on "
                                    f"{move.player.upper()}'s stockpile {move.slot + 1} after that"))
        # Demo seed 19: P2 slapped the left pile while hands hid it and P1's stockpiles, P1's
        # last card, K♦, in P1's hand (taken back from the right pile, R14); 0.1 s later the
        # camera read the left pile with A♣ still on top, and K♦ landed on that A♣. The card
        # beneath as the referee believes it, when its position is not a guess (a resync's).
        if not self._provisional:
            beneath = next((m.beneath for m in reversed(self.moves) if m.step is last), None)
            on_top = self._top_seen_at.get((move.pile, beneath))
            if on_top is not None:
                bounds.append((on_top, f"{pile_words(move.pile)} still showed "
                                       f"{Card.parse(beneath).pretty}, the card the last card "
                                       "landed on, on top after that"))
        return sorted((moment - self.config.latency_s, why) for moment, why in bounds)

    def _on_unsure_card(self, step: Step, before: Table) -> bool:
        """`step` lands on a pile whose top card a resync took for an illegal one that may
        have been legal, or a rebase took for a legal one that may be illegal: the card
        beneath, which its ruling names, is not known (_lands_on_unsure). The card it lays
        there may make that pile's top known for the next one."""
        unsure = self._lands_on_unsure(step, before)
        pile = getattr(step.move, "pile", None)
        if unsure and pile in self._unsure_tops:
            # A card the belief lets lie on a top the camera never showed, to be taken back
            # (R10), leaves that top as unsure as it was: the next card is judged against it
            # too (games 46000190 and 4000089: A♦, then 4♥, "not adjacent" on the card left
            # beneath a rebase's top that went home, were not ruled, but K♣ and 5♠ on them
            # were, "on 5♠" and "on Q♥"). A top the camera read is the one the players saw
            # and played on (game 2000023: A♣, then 10♠ and 9♠ on it, not adjacent).
            if step.verdict.ok or pile not in self._guessed_tops:
                self._unsure_tops.discard(pile)  # the card on it is the next one's known top
                self._guessed_tops.discard(pile)
        return unsure

    def _lands_on_unsure(self, step: Step, before: Table) -> bool:
        """_on_unsure_card, without changing what the monitor holds unsure."""
        pile = getattr(step.move, "pile", None)
        if pile not in SPIT_PILES or step.returned is not None:
            return False
        if pile in self._unsure_tops:
            return True
        return any(lc.at == pile and lc.pile_len >= len(before.piles[pile])
                   for lc in self._unsure_loose if lc in self.scene.loose)

    def _warn_unexplained(self, entry: ObserveInput, outcome: Outcome,
                          out: list[Ruling], why: str | None = None) -> None:
        diff = tuple((z, self.scene.expected(z), self.readings[z])
                     for z in mismatches(self.scene, self.readings))
        if diff == self._warned:
            return
        self._warned = diff
        if self._lost_at is None:
            self._lost_at = entry.t
        what = "; ".join(f"{z} shows {_reading_words(seen)} where "
                         f"{_reading_words(exp)} was" for z, exp, seen in diff)
        if why is not None:
            pass
        elif outcome.ambiguous:
            why = "more than one sequence of moves fits, so the referee will not guess"
        else:
            why = self._impossible_reason(diff)
        out.append(Ruling(entry.t, RulingKind.WARNING,
                          message=f"line {entry.lineno}: cannot explain the table: {what} "
                                  f"({why}); keeping the last good state — put the cards "
                                  "back as they were or check the camera",
                          extra={"line": entry.lineno}))

    def _impossible_reason(self, diff: tuple) -> str:
        codes = [seen for _, _, seen in diff if seen not in (BACK, EMPTY, UNKNOWN)]
        for code in codes:
            if list(self.readings.values()).count(code) > 1:
                return f"{pretty(code)} is seen twice, and one deck has each card once (R1)"
        for code in codes:
            if self.scene.known(Card.parse(code)):
                return f"{pretty(code)} cannot have moved there by any move of the rules"
        return "a card appeared from nowhere"


def _reading_words(reading: str) -> str:
    if reading in (BACK, EMPTY, UNKNOWN):
        return {"back": "a face-down card", "empty": "nothing", "?": "nothing visible"}[reading]
    return pretty(reading)
