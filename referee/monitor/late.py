"""Rulings made late: a legal play over a spit card that may lie unseen beneath it (R8,
R16), a round's lone first spit, and the steps a resync left unruled, each ruled once
the table shows what happened."""
from __future__ import annotations

from dataclasses import replace

from referee.candidates import assumed_side
from referee.moves import Play, Spit
from referee.rulings import Ruling, RulingKind
from referee.scene import Step
from referee.state import DEFAULT_SIDE, Table
from referee.steps import ruling_for
from referee.zones import SPIT_PILES, UNKNOWN


class LateRulings:
    """Part of referee.monitor.Monitor: moves left unruled until the table settles them."""

    def _spit_piles_closed(self, t: float) -> None:
        """A player spits before playing on (R16: each turns a spit card, then play resumes).
        So a player who owed a spit and was seen making another move had spat, if at all,
        before it; a spit pile read after that shows the card the spit may lie under, if it
        is not that card: no card played there later covers it (_over_owed_spit)."""
        for since, piles in self._moved_on.values():
            if t > since:
                piles.update(p for p in SPIT_PILES if self.readings[p] != UNKNOWN)

    def _over_owed_spit(self, step: Step, earlier: tuple[Step, ...]) -> set[str]:
        """The players whose spit card may lie unseen under `step`, a legal play, or none.
        A spit is owed onto its pile by another player, who may have spat it just before,
        the card covering it before the camera saw it: whether the card lies on that spit
        card or on the top the referee knows is not known (game 45000138: after a forced
        "Spit!" P1's 4♠ was covered 4 ms later by P2's 7♣, ruled "on 8♥"; 7♣ did not fit 4♠
        and went home, ruled an illegal take-back). It is ruled once the table shows which.

        Players spit together (R8, R16): while the player who played still owes a spit of
        their own and their own pile was in view, they had not spat, and so neither had the
        other (after a call made in a race, their play shows it was not taken up,
        _after_race_call). The doubt is only where the other may have spat alone: the player
        holds no spit card, their own spit may have landed unseen, or who holds spit cards is
        not known."""
        if not (isinstance(step.move, Play) and step.verdict.ok and step.returned is None
                and not any(isinstance(s.move, Spit) for s in earlier)):
            return set()
        table, player = self.scene.table, step.move.player
        alone = (self._counts_uncertain or player not in table.pending_spits
                 or assumed_side(table, player) in self._hidden)
        if not alone:
            return set()
        return {q for q in self._doubts().spitters_under(step.move)
                if step.move.pile not in self._moved_on.get(q, (0.0, ()))[1]}

    def _say_doubted(self, t: float, first: int, out: list[Ruling]) -> None:
        """Says which of the moves from `moves[first]` on _over_owed_spit left unruled, and
        why (a doubt the same steps settled is not mentioned)."""
        for index, _, spitters in self._spit_doubts:
            if index < first:
                continue
            step = self.moves[index].step
            who = " or ".join(sorted(q.upper() for q in spitters))
            out.append(Ruling(t, RulingKind.WARNING, player=step.move.player,
                              card=step.move.card.code, rule="R16",
                              message=f"not ruled yet: {step.verdict.message}, or on a spit "
                                      f"card of {who}'s that may lie under it unseen (R8, R16) "
                                      "— the referee rules it if the table shows which",
                              extra={"owed_spit": True}))

    def _spat_after(self, t: float, player: str, out: list[Ruling]) -> None:
        """`player` spat, seen: their spit card owed did not lie under the cards played
        before (one spit each per "Spit!", R8), which lay on the tops the referee knew. Those
        no other player's spit may still lie under are ruled now, late."""
        kept = []
        for index, then, spitters in self._spit_doubts:
            spitters = spitters - {player}
            im = self.moves[index]
            if im.round != self.game.round or not im.unsure:
                continue
            if spitters:
                kept.append((index, then, spitters))
                continue
            self._rule_late(t, index, then, out)
        self._spit_doubts = kept

    def _settle_taken_back(self, t: float, take_back: Step, out: list[Ruling]) -> bool:
        """Whether `take_back` (R14) can be ruled. A card taken back that _over_owed_spit left
        unruled: seen leaving the card the referee knew as its pile's top, it lay on that card
        (legal, ruled now, late), and taking it back is illegal; leaving the pile hidden or
        another card, it may have lain illegally on a spit card, taken back as it must be
        (R10, R14): neither is ruled."""
        for n, (index, then, _) in enumerate(self._spit_doubts):
            im = self.moves[index]
            play = im.step.move
            if (im.round == self.game.round and im.unsure
                    and take_back.move.card == play.card and take_back.move.pile == play.pile):
                del self._spit_doubts[n]
                beneath = then.piles[play.pile][-1:]
                if not beneath or self.readings.get(play.pile) != beneath[0].code:
                    return False
                self._rule_late(t, index, then, out)
                return True
        return True

    def _rule_lone_first(self, t: float, spit: Step, before: Table, out: list[Ruling]) -> None:
        """`spit`, just ruled, is its player's first this round, onto its own side's pile,
        and the other player's first spit, onto theirs, was left unruled since, alone, it may
        have been this player's (R20: a player with no spit cards turns none, and the other
        spits alone). Both players have now spat, so both held spit cards (R8) and each card
        is its side's player's (spit_free_of_counts): the first is ruled too, late."""
        if self._lone_first is None:
            return
        index, then = self._lone_first
        im = self.moves[index]
        first = im.step.move
        if first.player == spit.move.player:
            return  # (its own next spit says nothing of the other player)
        self._lone_first = None
        if (im.round != self.game.round or not im.unsure
                or before.side[spit.move.player] is not None
                or spit.move.pile != DEFAULT_SIDE[spit.move.player]
                or before.side[first.player] != first.pile
                or before.piles[first.pile][:1] != [first.card]):
            return
        self._rule_late(t, index, then, out)

    def _rule_late(self, t: float, index: int, then: Table, out: list[Ruling]) -> None:
        """The move `moves[index]`, left unruled from the position `then`, is ruled now."""
        im = self.moves[index]
        self.moves[index] = replace(im, unsure=False)
        ruling = ruling_for(t, im.step, then)
        if ruling is not None:
            out.append(ruling)

    def _after_race_call(self, steps: tuple[Step, ...]) -> None:
        """After a forced "Spit!" made in a race with an uncovering move (_call_in_race), the
        players either spit (the call came first: it stands) or play on from the move, which
        then came first: the call was needless, and nobody owes a spit any more. Kept, every
        later play on the round's piles would look as if a spit card the camera missed might
        lie under it (games 1000230, 1000433: the rest of a round's illegal plays not ruled)."""
        for s in steps:
            if isinstance(s.move, Spit):
                self._race_call = False
                return
            if s.legal and isinstance(s.move, Play):
                self._race_call = False
                self.scene.table.pending_spits.clear()
                return
