"""Round ends in the rules monitor: calling the end (R17), "Slap!" (R23), the result and the
next round's counts (R18-R20), and ends the camera did not follow (piles gathered
unseen, a new deal after a game-over called from uncertain counts)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

from referee.branches import follow
from referee.candidates import may_spit_here
from referee.doubts import r10_in_every_order
from referee.game import START_COUNT, RoundResult, slap_needed, standard_winner
from referee.infer import Explanation, outcome_key
from referee.log import ObserveInput
from referee.monitor.common import NS_PER_S, STOCK_ORDER, Phase, Sightings, frozen_shown
from referee.moves import Play, TakeBack
from referee.rules import Variant
from referee.rulings import Ruling, RulingKind
from referee.scene import Scene, position_key
from referee.slaps import SlapOutcome, unseen_end_outcome
from referee.state import LAYOUT_PILES, RoundEnd, Table
from referee.steps import illegal_steps, not_agreed, stacked, step_keys
from referee.unseen_spit import round_result, spat_unseen
from referee.zones import BACK, EMPTY, PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN


class RoundEnds:
    """Part of referee.monitor.Monitor: a round's end, seen or not."""

    def _round_gone(self, readings: Mapping[str, str]) -> bool:
        """Both spit piles read empty while the referee believes the round goes on or waits
        for its slaps: cards leave a spit pile only when a round is over (R14, R18), so the
        piles were gathered after an end the camera or the pads did not show."""
        return (self.phase in (Phase.PLAYING, Phase.SLAPPING)
                and all(readings[p] == EMPTY for p in SPIT_PILES)
                and bool(self._gathered(readings)))

    def _gathered(self, readings: Mapping[str, str]) -> list[str]:
        """Spit piles that hold cards but read empty (only a round's end empties one)."""
        table = self.scene.table
        return [p for p in SPIT_PILES if readings[p] == EMPTY and table.piles[p]]

    def _end_from_branches(self, entry: ObserveInput, out: list[Ruling]) -> bool:
        """The piles were gathered while the referee followed several candidates: the round
        is over, so only a candidate where it is over can be the truth. When that is one
        position whose moves nothing doubts, and the slaps made meanwhile decide the piles
        whenever the end came (or none are needed), rule its moves and the round's end now
        (game 4000013: 4♥, 5♠, 5♣ on 3♥ in an order the camera missed; only the order with
        5♣ illegal ends the round with P2's last card, 4♠). When it is several positions, of
        every order the camera could not tell apart, that all give the same result (R18-R22),
        rule that end and the moves every one of them rules alike (game 1001001: the last
        round's 9♠, 8♠, 10♦ under a hand, then 7♥ and 8♥; two orders end it, with 10♦ taken
        back from the 8♠ or the 10♠ beneath it, and the game with it). Else False."""
        ended = [b for b in self._branches or () if b.scene.table.round_end() is not None]
        if not ended:
            return False
        several = len({position_key(b.scene) for b in ended}) > 1 or (
            len(ended) > 1 and len({outcome_key(b) for b in ended}) > 1)
        if several and self._doubted:
            return False  # one doubted explanation held, not every order: others may end it
        # What may make its moves untrue is read from the table as the candidates were last
        # carried forward on it, seen whole: the table now shows the piles gathered and, as
        # often, the next deal, where every stock card of the round "shows nowhere" (game
        # 1000447 with hands over a tenth of the moves: P1's last cards, 3♠ and 4♦, seen
        # played where P2's 9♥ lay on 9♦, or 3♠ under 9♥; the gathered piles showed the round
        # over, which only the first order gives, but a stock card of P2's "gone from a
        # hidden stockpile" in the next deal doubted it, and 13 rounds were refereed with
        # counts not known).
        doubts = self._doubts(self._branch_view)
        if any(doubts.doubt(b.steps) is not None for b in ended):
            return False
        chosen = ended[0]
        table = chosen.scene.table
        since, early = self._slaps_since_running()
        slap = unseen_end_outcome(since, early, self.config.tie_window_ns)
        if slap_needed(table, table.round_end()) and not isinstance(slap, SlapOutcome):
            return False
        unsure: set[int] = set()
        if several:
            piles = dict(slap.piles) if isinstance(slap, SlapOutcome) and slap.piles else None
            results = {round_result(b.scene.table, piles) for b in ended}
            if len(results) != 1 or None in results:
                return False
            keys = [step_keys(self.scene.table, b.steps) for b in ended]
            unsure = not_agreed(keys[0], keys)  # (chosen is ended[0])
            either = r10_in_every_order(self.scene.table, chosen, ended, keys, unsure)
            if either:
                chosen = replace(chosen, steps=tuple(either.get(k, st)
                                                     for k, st in enumerate(chosen.steps)))
                unsure = unsure - set(either)
            cards = sorted({chosen.steps[k].move.card.pretty for k in unsure
                            if getattr(chosen.steps[k].move, "card", None) is not None})
            out.append(Ruling(entry.t, RulingKind.WARNING, rule="R17",
                              message=f"line {entry.lineno}: the spit piles were gathered, so "
                                      "the round is over: every order of the moves the camera "
                                      "could not see that ends it ends it the same way"
                                      + (f"; the referee does not rule {', '.join(cards)}"
                                         if cards else ""),
                              extra={"line": entry.lineno, "branches_end": True}))
        self._branches = None
        self._apply(entry.t, chosen.steps, chosen.scene, out, unsure=frozenset(unsure))
        if self._end_slaps is not None:
            self._end_grace_until = None  # the piles are gathered: nobody slaps again
            self._judge_unseen_end(entry.t, out)
        return True

    def _end_from_held(self, entry: ObserveInput, out: list[Ruling], before: Sightings) -> bool:
        """The piles were gathered while the referee followed a doubted explanation (_hold):
        the round is over, so only explanations where it is over can be the truth. The doubt
        is settled when every explanation the referee can list that ends the round gives the
        same result (who takes which pile, the next counts, R18-R20): that end is ruled with
        its counts, and of the held moves those every explanation rules alike. Two doubts
        list their alternatives:

        - a spit card the camera never saw may lie under a card (Doubts.spit_beneath): the table
          again after a spit by each player who may have made it, of every card it may have
          been (referee.unseen_spit; game 1000684: P2's spit covered by P1's 5♠ 18 ms later;
          P2's 4♠ ended the round only if the spit happened, whatever card it was);
        - the position is one of several a resync could not tell apart: the others, carried
          forward to the same table (referee.rivals; game 10000035: A♥ "on 3♣" after an
          unseen order of 3♥, 3♦, 4♥, 4♦, and P1's 2♣ ended the round in every order).

        `before`: what the zones showed up to the table before the gathered one."""
        held = self._branches
        if (held is None or len(held) != 1 or self._counts_uncertain or self._warned is not None
                or self._unread_tops or self.phase is not Phase.PLAYING):
            return False
        steps = held[0].steps
        illegal = illegal_steps(steps)
        doubts = self._doubts()
        # Doubts whose alternatives nothing here lists.
        gone = doubts.gone_from_hidden_stock(steps, stacked(self.scene.table, steps)[0])
        if (doubts.played_on_lifted(steps) is not None or gone is not None
                or any(s.verdict.kind == "false-spit" for s in illegal)):
            return False
        beneath = doubts.spit_beneath_piles(steps)
        spitters: dict[str, set[str]] = {}
        for s in illegal:
            if isinstance(s.move, Play) and s.move.pile in beneath:
                spitters.setdefault(s.move.pile, set()).update(doubts.spitters_under(s.move))
        rivals = self._rivals
        resynced = self._counts_doubtful or (self._provisional
                                             and doubts.on_uncertain_zones(illegal))
        if (spitters and resynced) or (resynced and rivals is None) or not (spitters or resynced):
            return False  # (a spit under a resync's other positions is not listed)
        target = held[0].scene.readings()
        options: list[tuple[Scene | None, Explanation]] = [(self.scene, held[0])]
        if spitters:
            found = spat_unseen(self.scene, target, spitters, seen=before.seen,
                                no_face_down=frozenset(self._hidden),
                                shown=frozen_shown(before.shown), trails=before.trails)
            if found is None:
                return False
            options += found
        else:
            followed = follow(rivals.branches, target, no_face_down=frozenset(before.r_hidden),
                              seen=before.r_seen, shown=frozen_shown(before.r_shown),
                              most=rivals.taken + len(steps))
            if followed.undecided:
                return False
            options += [(None, b) for b in followed.branches
                        if len(b.steps) <= rivals.taken + len(steps)]
        ended = [(start, e) for start, e in options if e.scene.table.round_end() is not None]
        if not ended:
            return False
        since, early = self._slaps_since_running()
        slap = unseen_end_outcome(since, early, self.config.tie_window_ns)
        piles = dict(slap.piles) if isinstance(slap, SlapOutcome) and slap.piles else None
        results = {round_result(e.scene.table, piles) for _, e in ended}
        if len(results) != 1 or None in results:
            return False
        start, chosen = ended[0]
        if start is None:  # only another position of the resync ends the round: take it
            start, chosen = self.scene, Explanation((), chosen.scene)
        unsure = (not_agreed(step_keys(start.table, chosen.steps),
                              [step_keys(st.table, e.steps) for st, e in ended])
                  if spitters else set(range(len(chosen.steps))))
        cards = sorted({chosen.steps[k].move.card.pretty for k in unsure
                        if getattr(chosen.steps[k].move, "card", None) is not None})
        spat = sorted({p for _, e in ended for p in PLAYERS if spitters
                       and e.scene.table.spit_hand[p] < held[0].scene.table.spit_hand[p]})
        if spat:
            why = (f"{' or '.join(p.upper() for p in spat)} spat a card the camera never saw, "
                   "covered at once")
        elif spitters:
            why = "no spit card lay unseen under the cards in doubt"
        else:
            why = "every order of the moves the camera could not see ends it the same way"
        out.append(Ruling(entry.t, RulingKind.WARNING, rule="R17",
                          message=f"line {entry.lineno}: the spit piles were gathered, so the "
                                  f"round is over: {why}"
                                  + (f"; the referee does not rule {', '.join(cards)}"
                                     if cards else ""),
                          extra={"line": entry.lineno, "unseen_spit": bool(spat),
                                 "held_end": True}))
        self._branches = None
        self._rivals = None
        self._counts_doubtful = False  # every explanation gives these counts
        self.scene = start
        if chosen.steps:
            self._apply(entry.t, chosen.steps, chosen.scene, out, unsure=frozenset(unsure))
        else:
            self.scene = chosen.scene
            self._check_round_end(entry.t, out)
        if self._end_slaps is not None:
            self._end_grace_until = None  # the piles are gathered: nobody slaps again
            self._judge_unseen_end(entry.t, out)
        return True

    def _dealt_again(self) -> bool:
        """The table shows a new deal: both spit piles empty and every stockpile read, each
        dealt one showing its top face up (R5), with a card on each player's side."""
        r = self.readings
        return (all(r[p] == EMPTY for p in SPIT_PILES)
                and all(r[z] not in (UNKNOWN, BACK) for z in STOCK_ORDER)
                and all(any(r[z] != EMPTY for z in STOCK_ZONES[p]) for p in PLAYERS))

    def _play_on(self, entry: ObserveInput, out: list[Ruling]) -> None:
        """The players deal again after a game-over the referee called from counts it was not
        sure of: the counts were off and the game goes on. It says so and follows the deal
        with counts it does not know (fitted to the layout, _fit_layout), instead of ignoring
        the rest of the game (game 10000036: a game-over in round 20 from counts off since
        round 15; the game went on to round 27)."""
        out.append(Ruling(entry.t, RulingKind.WARNING, rule="R19",
                          message=f"line {entry.lineno}: the players have dealt again, so the "
                                  "game was not over: the counts the referee called it from "
                                  "were off; it follows the new deal with counts it does not "
                                  "know — restart the log from a start line with the true "
                                  "counts to have every move ruled",
                          extra={"line": entry.lineno, "uncertain": True}))
        self.game.result = None
        self.game.counts = {p: START_COUNT for p in PLAYERS}
        self._counts_stand_in = True
        self._new_round(entry.t, out)

    def _unseen_round_end(self, entry: ObserveInput, out: list[Ruling]) -> None:
        """The round ended where the referee could not follow it. It rules neither the end
        nor the slaps, says so, and referees the next deal with the counts it had, marked
        uncertain (it then rules only legal moves until a start line gives the counts)."""
        out.append(Ruling(entry.t, RulingKind.WARNING, rule="R19",
                          message=f"line {entry.lineno}: the spit piles were gathered, so round "
                                  f"{self.game.round} ended in a way the referee could not "
                                  "follow; it rules neither the end nor the slaps, and "
                                  "referees the next deal with the counts it had — restart the "
                                  "log from a start line with the true counts",
                          extra={"line": entry.lineno, "uncertain": True}))
        self.arbiter.disarm()
        self._counts_uncertain = True
        # The counts it had are the last round's start: cards have changed hands since, by
        # as many as the piles held. Until a start line gives them, it deals as from a fresh
        # deck (R5): full layouts, and spit cards in both hands, which is what a table dealt
        # from counts it does not know most often shows (game 1000684: 14 believed, 36 held;
        # a short layout and no spit cards believed made every later round unexplainable).
        if any(n < sum(LAYOUT_PILES) + 1 for n in self.game.counts.values()):
            self.game.counts = {p: START_COUNT for p in PLAYERS}
            self._counts_stand_in = True
        self._new_round(entry.t, out)

    def _check_round_end(self, t: float, out: list[Ruling],
                         end_after: Sequence[tuple[float, str]] = ()) -> None:
        """Rule the round's end if the table has it over (R17). `end_after`: moments before
        which its last card cannot have landed, each with why (Judging._ended_after)."""
        table = self.scene.table
        end = table.round_end()
        if end is None or self._end_on_unruled_take_back(t, end, out):
            return
        self._rivals_at_end(t, out)
        if self.config.rules.variant is Variant.STANDARD and standard_winner(table, end):
            self._finish(t, None, out)
        elif slap_needed(table, end):
            self.phase = Phase.SLAPPING
            self.arbiter.arm(round(t * NS_PER_S))
            out.append(Ruling(t, RulingKind.SLAP_CALL, rule="R17",
                              message=f"{end.message} — Slap!"))
            self._early_slaps(t, out, end_after)
        else:
            self._finish(t, None, out)

    def _end_on_unruled_take_back(self, t: float, end: RoundEnd, out: list[Ruling]) -> bool:
        """The player who cleared (R17) in the referee's belief has a card lying on their own
        stockpile, which the belief takes for one legally played and lifted back off its pile
        (R14), though the referee never ruled that (a resync's guess, or a take-back it could
        not tell from an illegal card's). Had the card not fitted (R10), taking it back was
        right, and the round goes on (game 45000146: P2's last card, 2♥, lay on 2♠, the same
        rank, and went home; a resync took it for played, and "round over" was called 3.2 s
        early). The end is not called, and the belief takes the round as going on, the card
        back on its stockpile, so that the moves still to come are followed: the round's end
        is called once the card is seen played again (R17)."""
        if end.player is None:
            return False

        def unruled(move) -> bool:
            last = next((m for m in reversed(self.moves) if m.step.move == move), None)
            return last is None or last.unsure

        held = [lc for lc in self.scene.loose
                if lc.player == end.player and lc.at in STOCK_ZONES[lc.player]
                and lc.home in SPIT_PILES and isinstance(lc.move, TakeBack)
                and lc.card in self.scene.table.piles[lc.home]
                and (lc in self._unsure_loose or unruled(lc.move))]
        if not held:
            return False
        self.scene = scene = self.scene.copy()  # (a resync's rivals may share the old one)
        table = scene.table
        for lc in held:
            at = table.piles[lc.home].index(lc.card)
            self._send_home(table, lc.home, at, lc.player, STOCK_ZONES[lc.player].index(lc.at))
            scene.loose = [o if o.at != lc.home or o.pile_len <= at
                           else replace(o, pile_len=o.pile_len - 1)
                           for o in scene.loose if o is not lc]
        self._unsure_loose = [lc for lc in self._unsure_loose if lc in scene.loose]
        self._provisional = self._counts_doubtful = True
        cards = ", ".join(lc.card.pretty for lc in held)
        out.append(Ruling(t, RulingKind.WARNING, player=end.player, rule="R17",
                          message=f"{end.player.upper()} may have played all their stock cards, "
                                  f"but {cards} lies on their stockpile again, and the referee "
                                  "did not see whether it was played legally (then it counts, "
                                  "R14, and the round is over) or did not fit and was rightly "
                                  "taken back (R10): it does not call the round's end and "
                                  "follows the round as going on — slap only if it is over",
                          extra={"uncertain": True, "end_on_take_back": True}))
        return True

    def _spit_owed_out_of_sight(self, table: Table) -> list[str]:
        """The players who owed a spit (R16) and hold spit cards while a spit pile they may
        spit on reads `?`: their spit card may lie there unseen."""
        hidden = [p for p in SPIT_PILES if self.readings.get(p) == UNKNOWN]
        return sorted(p for p in table.pending_spits if table.spit_hand[p] > 0
                      and any(may_spit_here(table, p, pile) for pile in hidden))

    def _played_out_of_sight(self, table: Table) -> list[str]:
        """The players who may have played a card the camera has not shown yet: a stockpile
        of theirs with cards on it and a spit pile both read `?` (the card went from one to
        the other under a hand)."""
        if not any(self.readings.get(p) == UNKNOWN for p in SPIT_PILES):
            return []
        return sorted(p for p in PLAYERS for i, z in enumerate(STOCK_ZONES[p])
                      if self.readings.get(z) == UNKNOWN and table.slots[p][i].up is not None)

    def _finish(self, t: float, slap: Any, out: list[Ruling]) -> None:
        table = self.scene.table
        end = table.round_end()
        owed = self._spit_owed_out_of_sight(table)
        # An end with no slap is ruled as the camera shows it: cards played just before it
        # under a hand are not counted yet (game 4000034: P1's K♠ and Q♥, played as P2
        # cleared, under a hand over P1's stockpile 3 and the left pile; "P1 15" where P1
        # held 13). With slaps, the hands have left those zones by then.
        played = self._played_out_of_sight(table) if slap is None else []
        lost = self._counts_doubtful or self._counts_uncertain
        result: RoundResult = self.game.finish_round(table, slap)
        extra: dict[str, Any] = {"round": result.number, "cards": dict(result.counts),
                                 "piles": dict(result.piles_taken)}
        if self.config.rules.variant is Variant.POINTS:
            extra["scores"] = dict(result.scores)
        if result.game_over is not None:
            # No slap and no next round to tell the players of: the game-over ruling follows.
            message = f"{end.headline}, and with it the game ({result.game_over.rule})"
        else:
            # After the slaps, what they decided is said by the slap result: not "slap" again.
            said = end.headline if slap is not None else end.message
            message = f"{said}. {result.message}"
        if lost:
            # The position was taken without knowing every move (_resync), and how many cards
            # lie in each spit pile, and so the counts, are the referee's best account, not a
            # sighting.
            self._counts_uncertain = True
            extra["uncertain"] = True
            message += (" — the referee lost track of some moves this round, so these counts "
                        "may be off: count your cards, and if they differ restart the log from "
                        "a start line with the true counts")
        elif owed:
            # The spit card may have landed before the round ended, under the hand (game
            # 2000024: P2's 3♠, 0.4 s before P1 cleared; "P2 15 cards" where P2 held 14).
            self._counts_uncertain = True
            extra["uncertain"] = True
            message += (f" — a hand hid the spit piles as the round ended while "
                        f"{' and '.join(p.upper() for p in owed)} owed a spit, so these "
                        "counts may be a card off: count your cards, and if they differ "
                        "restart the log from a start line with the true counts")
        elif played:
            self._counts_uncertain = True
            extra["uncertain"] = True
            message += (f" — a hand hid a stockpile of {' and '.join(p.upper() for p in played)}"
                        " and a spit pile as the round ended, so cards played under it may not "
                        "be counted: count your cards, and if they differ restart the log from "
                        "a start line with the true counts")
        round_over = Ruling(t, RulingKind.ROUND_OVER, rule=end.rule, message=message,
                            extra=extra)
        out.append(round_over)
        self.arbiter.disarm()
        if result.game_over is not None:
            over = result.game_over
            extra = {"winner": over.winner, "scores": dict(over.scores)}
            message = over.message
            if self._counts_uncertain and (lost or not self._winner_sure(table, over)):
                # Who won follows from the counts, which the referee may have wrong.
                extra["uncertain"] = True
                message += (" — if the counts are right: the referee lost track of some moves "
                            "this game, so count your cards; if the game goes on, the referee "
                            "follows the next deal, and a start line with the true counts has "
                            "every move ruled again")
            out.append(Ruling(t, RulingKind.GAME_OVER, player=over.winner, rule=over.rule,
                              message=message, extra=extra))
            if self._counts_uncertain and not lost:
                # (A hand hid where cards may have moved: looked at again once it is gone.)
                self._keep_unseen_end(bool(owed), round_over, out[-1])
            self.phase = Phase.OVER
            return
        left = {STOCK_ZONES[p][i]: s.up.code for p in PLAYERS
                for i, s in enumerate(table.slots[p]) if s.up is not None}
        self._new_round(t, out)
        self._left_over = left
        self._left_handled = {z for z in left if self.readings[z] == UNKNOWN}

