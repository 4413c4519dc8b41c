"""Timed calls of the rules monitor: "Spit!" once nobody can play for the settle time
(R16, R23), the R16 Decision's prompt and forced "Spit!", and a forced call made in a
race with a move a hand hid."""
from __future__ import annotations

from enum import Enum

from referee.monitor.common import Phase
from referee.moves import Play, TurnUp
from referee.rulings import Ruling, RulingKind
from referee.state import Table
from referee.zones import PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN


# A hand over a stockpile can keep a move from the camera for a while after it is made (a hand
# lingers up to 0.6 s, referee.obslog.ObsConfig.hand_after_s): a move seen that soon after a
# forced "Spit!" may in truth have come before it.
CALL_RACE_S = 0.6
# A move seen with no hand over its zones was made at most this much before the camera's
# latency says (MonitorConfig.latency_s): the stabiliser's frames start on a frame, not at the
# moment the card lay still (ObsConfig: 3 frames and up to one more at 30 fps). A forced "Spit!"
# timed from such a move fell due no earlier than that.
SEEN_EARLY_S = 0.1


class _Call(Enum):
    """The timed call a blocked table waits for (R16, R23)."""

    SPIT = "spit"        # R16 holds: "Spit!" after the settle time
    UNCOVER = "uncover"  # only uncovering moves are left: prompt, then a forced "Spit!"


class TimedCalls:
    """Part of referee.monitor.Monitor: when a timed call falls due, and making it."""

    def _reset_timers(self, changed_at: float | None = None,
                      changed_early: float | None = None) -> None:
        self._changed_at = changed_at  # log time of the last legal move (R16 timer)
        # The earliest it may have been made (it was made under a hand): the call it times may
        # in truth have come that much earlier (_call_in_race).
        self._changed_early = changed_at if changed_early is None else changed_early
        self._prompted = False
        self._spit_called = False
        self._forced_at: float | None = None  # log time of a forced "Spit!" (_force_spit)

    def deadline(self) -> float | None:
        """The log time at which a timed call (R23: "Spit!" after the settle time, or the R16
        prompt) falls due if nothing else happens; None when no call is pending. The live
        referee feeds an empty observation at that time, so that a still table gets its call
        (and the log, replayed, makes the same call at the same time)."""
        if self._end_slaps is not None and self._end_grace_until is not None:
            return self._end_grace_until
        if self._spit_called:
            return None
        pending = self._pending_call()
        if pending is None:
            return None
        settle = self.config.settle_s
        if pending is _Call.SPIT:
            return self._changed_at + settle
        return self._changed_at + (2 * settle if self._prompted else settle)

    def _pending_call(self) -> "_Call | None":
        """Which timed call the table is waiting for, if any: "Spit!" (R16 holds), or the
        R16 Decision's prompt and forced "Spit!" (only uncovering moves are left). None while
        a play or a spit is still to come, or while the referee cannot see the whole table
        (`_hand_over_table`)."""
        if self.phase is not Phase.PLAYING or self.scene is None or self._changed_at is None:
            return None
        if self._hand_over_table():
            # Whether anybody can play (R16) depends on every top: the call waits until the
            # hidden zones are seen again (the next observation brings it).
            return None
        table = self.scene.table
        if table.pending_spits or not any(table.spit_hand[p] for p in PLAYERS):
            return None
        if any(table.can_play(p) for p in PLAYERS) or table.round_end() is not None:
            return None
        if self._guess_may_unblock(table):
            return None
        if table.spit_due():
            return _Call.SPIT
        if not self.config.rules.uncover_moves_count_as_available:
            return None
        return _Call.UNCOVER

    def _tick(self, t: float, out: list[Ruling]) -> None:
        """Calls that fall due by log time `t`, stamped at the moment they fell due. The settle
        time runs from the last legal move (R16, R23), as the players experienced it: the
        camera's latency is taken off the time the move was seen. And the slaps of an end the
        camera did not show, once no player can still slap again (_judge_unseen_end)."""
        if (self._end_slaps is not None and self._end_grace_until is not None
                and t >= self._end_grace_until and self.phase is Phase.SLAPPING):
            self._judge_unseen_end(t, out)
        pending = self._pending_call()
        if pending is None:
            return
        settle = self.config.settle_s
        start = self._changed_at
        if pending is _Call.SPIT:
            if not self._spit_called and t >= start + settle:
                self._spit_called = True
                self._spit_doubts, self._moved_on = [], {}  # spits from now are for this call
                out.append(Ruling(start + settle, RulingKind.SPIT_CALL, rule="R16",
                                  message="Nobody can play: Spit! (R16)"))
            return
        # Only moves that uncover a card are left (R16 Decision): prompt, then call spit.
        if not self._prompted and t >= start + settle:
            self._prompted = True
            out.append(Ruling(start + settle, RulingKind.WARNING, rule="R16",
                              message=self._uncover_prompt(self.scene.table),
                              extra={"prompt": True}))
        if self._prompted and not self._spit_called and t >= start + 2 * settle:
            self._force_spit(start + 2 * settle, out)

    def _force_spit(self, t: float, out: list[Ruling]) -> None:
        """The R16 Decision's forced "Spit!": nobody made the uncovering moves left."""
        self._spit_called = True
        self._forced_at = t
        self._spit_doubts, self._moved_on = [], {}  # spits from now are for this call
        self.scene.table.call_spit()
        out.append(Ruling(t, RulingKind.SPIT_CALL, rule="R16",
                          message="Nobody has made the moves left: Spit! (R16)",
                          extra={"forced": True}))

    def _call_in_race(self, t: float, out: list[Ruling]) -> None:
        """Something changed just before the forced "Spit!" (R16 Decision) fell due. The call
        is timed from the last legal move, which may have been made before the referee saw
        it: as early as a hand came over its zones, or, seen in full view, SEEN_EARLY_S before
        the camera's latency says. A change seen after the earliest moment the call may have
        fallen due may in truth have come after it, and spits made after it would wrongly look
        false. So the call is made now, before the change is judged; a spit the players made
        a moment too early is then let pass rather than ruled on a guess about the order. The
        prompt need not have been made: the moves it is timed from may have been seen, and
        ruled, late (game 14000058: 6♣ and 5♣ under a hand, ruled 3.7 s after the first was
        made; the players spat after the forced call before the referee's prompt fell due).
        A change seen before that moment came before the call, and is judged as it is. (Game
        1000446: the refill the call was timed from was made in full view, and P2 turned up
        2♦ 0.58 s before the call fell due. Allowing CALL_RACE_S whatever the hands did, the
        referee called "Spit!" as it saw 2♦, and left the 2♦ P2 then played unruled: a spit
        of P1's might have lain under it.)"""
        if self._spit_called:
            # Made already, and the change seen within CALL_RACE_S of it: it too may have
            # come first (game 1000028: P1's refill made 64 ms before the call, seen 67 ms
            # after it; P1, holding no spit card, then played on the pile P2 would spit on).
            if self._forced_at is not None and t - CALL_RACE_S < self._forced_at:
                self._race_call = True
            return
        if self._pending_call() is not _Call.UNCOVER:
            return
        due = self._changed_at + 2 * self.config.settle_s
        early = min(self._changed_early, self._changed_at - SEEN_EARLY_S) \
            + 2 * self.config.settle_s
        if t - self.config.latency_s < early:
            return
        self._force_spit(min(due, t), out)
        self._race_call = True

    def _guess_may_unblock(self, table: Table) -> bool:
        """A card the position takes for an illegal one lying on a spit pile, which a resync
        only guessed (`_unsure_loose`: it may have been legal, on a card the camera never
        saw beneath it), would, had it been legal, leave a play open or end the round: then
        nobody-can-play (R16) rests on the guess, and no call is made. Game 1000684 with a
        hand over a tenth of the moves: P2's spit was covered by P1's 5♠ 18 ms later, and P2
        played their last card, 4♠, on 5♠; the resync took 5♠ and 4♠ for not adjacent on
        Q♥, and "Spit!" was called 1.5 s after the round had ended (R17, R20)."""
        for lc in self._unsure_loose:
            if lc not in self.scene.loose or lc.at not in SPIT_PILES:
                continue
            if not isinstance(lc.move, Play) or lc.home not in STOCK_ZONES[lc.player]:
                return True  # not a stockpile's top played: whether it unblocks is not known
            slot = STOCK_ZONES[lc.player].index(lc.home)
            if table.slots[lc.player][slot].up != lc.card:
                return True
            alt = table.copy()
            alt.apply(Play(lc.player, slot, lc.at, lc.card))
            if alt.round_end() is not None or any(alt.can_play(p) for p in PLAYERS):
                return True
        return False

    def _hand_over_table(self) -> bool:
        """No timed call (R16, R23) now: a hand hides a zone, the referee has lost track of
        the table, or a layout top it never read is still there (it may be playable)."""
        return (any(r == UNKNOWN for r in self.readings.values()) or self._warned is not None
                or self._branches is not None or bool(self._unread_tops))

    @staticmethod
    def _uncover_prompt(table: Table) -> str:
        """What each player who can uncover a card should do (one move each, the first)."""
        asks = []
        for p in PLAYERS:
            for m in table.uncover_moves(p):
                if isinstance(m, TurnUp):
                    asks.append(f"{p.upper()}: turn up stockpile {m.slot + 1}")
                else:
                    asks.append(f"{p.upper()}: move {m.card.pretty} into the empty stockpile "
                                f"{m.to_slot + 1} (R12)")
                break
        if not asks:
            return "Only uncovering moves are left (R16)"
        until = "it is" if len(asks) == 1 and "turn up" in asks[0] else "then"
        return "; ".join(asks) + f" — nobody can play until {until} (R16)"
