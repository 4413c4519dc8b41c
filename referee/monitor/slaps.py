"""Slaps in the rules monitor: a slap's verdict (R18), false slaps, the race's result, and
the slaps of a round's end the camera did not show."""
from __future__ import annotations

from typing import Any, Sequence

from referee.log import SlapInput
from referee.monitor.common import NS_PER_S, STOCK, Phase
from referee.rulings import Ruling, RulingKind
from referee.scene import mismatches
from referee.slaps import Slap, SlapOutcome, SlapVerdictKind, pile_words, unseen_end_outcome
from referee.zones import EMPTY, PLAYERS, STOCK_ZONES, UNKNOWN


# A slap made while a hand hid the round's last card may have come before it (a false slap,
# R18), and the player then slaps again once they see the end: players slap within a second of
# seeing it (the simulated ones 0.3 s), so a result that counts such a slap waits this long
# after "Slap!" for a second one (Monitor._judge_unseen_end).
EARLY_SLAP_GRACE_S = 1.5


class Slapping:
    """Part of referee.monitor.Monitor: judging the slaps (R18) as the pads report them."""

    def _slap(self, entry: SlapInput, out: list[Ruling]) -> None:
        slap = Slap(entry.t_ns, entry.player, entry.pile)
        t = self.t  # when the slap is known: its stamp, or later for one that came late (the
        # race goes by the stamps, in the arbiter: R18)
        if (entry.t < t and self._race_decided_at is not None
                and entry.t <= self._race_decided_at):
            # Stamped before a race already decided, and come late (LogReader lets a slap be
            # up to a second behind): a player's later slap in that race (a hand bouncing onto
            # the other pad). Only each player's first slap counts (R18); judged now, with the
            # pads disarmed or armed again, it would be called false.
            out.append(Ruling(t, RulingKind.WARNING, player=entry.player, to=entry.pile,
                              rule="R18", message=f"{entry.player.upper()}'s slap on "
                              f"{pile_words(entry.pile)} came late, stamped before the slaps "
                              "were decided: only each player's first slap counts (R18), so "
                              "it changes nothing"))
            return
        if self._end_slaps is not None and self.phase is Phase.SLAPPING:
            self._end_slaps.append(slap)
            self._judge_unseen_end(t, out)
            return
        unneeded = self._slap_unneeded()
        if unneeded is not None:
            out.append(Ruling(t, RulingKind.WARNING, player=entry.player, to=entry.pile,
                              rule=unneeded[0], message=f"{entry.player.upper()} slapped "
                              f"{pile_words(entry.pile)}, but {unneeded[1]}: no slap is needed, "
                              "and this one counts for nothing"))
            return
        verdict = self.arbiter.record(slap)
        if verdict.kind is SlapVerdictKind.FALSE_SLAP:
            if self._unsure_of_table():
                # The round may have ended where the camera could not follow (R17): calling
                # this slap false would be a guess. Say so instead, and keep the slap for when
                # the camera shows the round over (_early_slaps), or shows it still on
                # (_late_false_slaps). Not a slap between rounds (a late one, game 1000641).
                if self.phase is Phase.PLAYING:
                    self._unsure_slaps.append(slap)
                out.append(Ruling(t, RulingKind.WARNING, player=entry.player,
                                  to=entry.pile, rule="R18",
                                  message=f"{entry.player.upper()} slapped before \"Slap!\", but "
                                          "the referee has not followed the table to this "
                                          "point, so it does not call the slap false yet "
                                          "(R18)"))
                return
            out.append(Ruling(t, RulingKind.FALSE_SLAP, player=entry.player,
                              to=entry.pile, rule="R18", message=verdict.message,
                              extra={"illegal_kind": "false-slap"}))
            return
        if verdict.kind is not SlapVerdictKind.COUNTED or self.phase is not Phase.SLAPPING:
            return
        self._slap_result(t, out)

    def _slap_unneeded(self) -> tuple[str, str] | None:
        """(rule, why) when the round has ended with no slap to make and the next has not
        begun: the single-pile ending (R20) or the game won (R21, R22). A slap then is no
        false slap (R18: only one before the round ended is) and no slap of a race."""
        if self.phase not in (Phase.DEALING, Phase.OVER) or not self.game.history:
            return None
        last = self.game.history[-1]
        # (While the next round is dealt, the game has already counted it.)
        ended = self.game.round if self.phase is Phase.OVER else self.game.round - 1
        if last.slap is not None or last.number != ended:
            return None
        if last.game_over is not None:
            return last.game_over.rule, "the game is over"
        if last.end.single_pile_ending:
            return "R20", "the round ended with one spit pile in use"
        return None

    def _lone_slap_result(self, t: float, out: list[Ruling]) -> bool:
        """The spit piles were gathered after "Slap!" with one player's slap alone counted
        (the other never slapped, or their pad did not report it): R18 takes that slap as it
        stands, ruled now with the round's end (a slap-result without a margin), where the
        referee would otherwise have lost the round's result. False when it does not apply
        (no slap, both slapped, or a hand hid the end: _judge_unseen_end decides that)."""
        if self.phase is not Phase.SLAPPING or self._end_slaps is not None:
            return False
        outcome = self.arbiter.lone_decision()
        if outcome is None:
            return False
        self._slap_result(t, out, outcome)
        return True

    def _slap_result(self, t: float, out: list[Ruling],
                     given: SlapOutcome | None = None) -> None:
        """The slap race's ruling once both players have slapped (R18); "Slap again!" when it
        is too close to call. `given`: the outcome of slaps that came while a hand hid the
        last card landing (_judge_unseen_end), or of a lone slap (_lone_slap_result)."""
        outcome = given or self.arbiter.decision()
        if outcome is None:
            return  # the other player's slap is still to come
        self._race_decided_at = t
        early = given is not None and outcome.margin_ns is not None
        extra: dict[str, Any] = {"piles": dict(outcome.piles),
                                 "margin_ms": (None if outcome.margin_ms is None
                                               else round(outcome.margin_ms, 6))}
        if early:
            extra["early"] = True
        elif outcome.margin_ns is None:
            extra["lone"] = True
        if outcome.too_close:
            extra["too_close"] = True
            out.append(Ruling(t, RulingKind.SLAP_RESULT, rule="R18",
                              message=outcome.message, extra=extra))
            self.arbiter.arm(round(t * NS_PER_S))
            out.append(Ruling(t, RulingKind.SLAP_CALL, rule="R18", message="Slap again!"))
            return
        note = " (the slaps came while a hand hid the last card landing)" if early else ""
        out.append(Ruling(t, RulingKind.SLAP_RESULT, player=outcome.first, rule="R18",
                          message=outcome.message + note, extra=extra))
        self._finish(t, outcome, out)

    def _early_slaps(self, t: float, out: list[Ruling],
                     end_after: Sequence[tuple[float, str]] = ()) -> None:
        """The camera shows the round over (R17) only now, because a hand hid the last card
        landing, and the players slapped meanwhile: those slaps were made after the referee
        last saw the whole table with the round still on. The round ended at a moment the
        camera did not show, after that: a slap before it was false (R18), and the player then
        slaps again; a slap after it counts (players slap when they see the last card land).
        They are judged with the slaps still to come (_judge_unseen_end). `end_after`:
        moments before which the last card cannot have landed, each with why in words,
        earliest first (Judging._ended_after), when the steps that show the end tell it."""
        since, early = self._slaps_since_running()
        self._unsure_slaps = []
        if end_after and round(end_after[-1][0] * NS_PER_S) > since:
            # The last card had not landed by a moment after these slaps (the pile was in
            # view, no hand over it, or the card was still on its stockpile): they came
            # before the end (demo seed 1: P1 slapped the right pile 0.6 s before P1's last
            # card, 10♦, landed there, while a hand hid P1's stockpile; "P1 was first by
            # 974 ms" was ruled, counting that slap).
            since = round(end_after[-1][0] * NS_PER_S)
            for slap in (s for s in early if s.t_ns < since):
                # The first fact that shows it (each is true of the slap).
                why = next(w for a, w in end_after if slap.t_ns < round(a * NS_PER_S))
                out.append(_false_slap(t, slap, why))
            early = [s for s in early if s.t_ns >= since]
        if not early:
            return
        self._end_slaps, self._end_since = early, since
        self._end_called = round(t * NS_PER_S)
        self._end_grace_until = t + EARLY_SLAP_GRACE_S
        self._judge_unseen_end(t, out)

    def _late_false_slaps(self, t: float, out: list[Ruling]) -> None:
        """Slaps kept because the referee was not sure of the table when they came (_slap),
        made before `t`, when the camera saw the whole table with the round still on (R17
        did not hold): they were false (R18), and are ruled so now (game 1000999: P2 slapped
        while a hand hid P1's last stockpile, whose card was still there)."""
        if self._unsure_of_table():
            return
        now = round(t * NS_PER_S)
        late = [s for s in self._unsure_slaps if s.t_ns <= now]
        if not late:
            return
        self._unsure_slaps = [s for s in self._unsure_slaps if s.t_ns > now]
        for slap in late:
            out.append(_false_slap(t, slap, "the camera now shows the round was still on then"))

    def _slaps_since_running(self) -> tuple[int, list[Slap]]:
        """The last moment (ns) the referee saw the whole table with the round still on, and
        the slaps kept since then (_unsure_slaps), in timestamp order."""
        since = round(self._running_at * NS_PER_S)
        return since, sorted((s for s in self._unsure_slaps if s.t_ns > since),
                             key=lambda s: s.t_ns)

    def _judge_unseen_end(self, t: float, out: list[Ruling]) -> None:
        """Rule the slaps of an end the camera did not show (_early_slaps) once every moment
        it may have come gives the same piles (referee.slaps.unseen_end_outcome), or ask for
        the slaps again when they do not. A decision that counts a player's only slap, made
        before "Slap!", waits EARLY_SLAP_GRACE_S: had that slap been false, the player slaps
        again (game 5000018: P1's false slap, made while a hand hid the last card, was counted
        and gave P1 the left pile, before P1's real slap came in after P2's)."""
        slaps = self._end_slaps
        got = unseen_end_outcome(self._end_since, slaps, self.config.tie_window_ns)
        if got is None:
            return  # a player has not slapped yet
        if got == "again":
            self._end_slaps = None
            self.arbiter.arm(round(t * NS_PER_S))
            out.append(Ruling(t, RulingKind.SLAP_CALL, rule="R18",
                              message="Slap again! (a hand hid the last card landing, and the "
                                      "slaps give the piles differently depending on when it "
                                      "landed)", extra={"unseen_end": True}))
            return
        if self._end_grace_until is not None:
            if t >= self._end_grace_until:
                self._end_grace_until = None
            elif any(s.t_ns < self._end_called
                     and not any(o.player == s.player and o is not s for o in slaps)
                     for s in got.slaps):
                return
        self._end_slaps = None
        self._slap_result(t, out, got)

    def _unsure_of_table(self) -> bool:
        """True when the referee's belief may be behind the table: the last observation could
        not be explained, a zone is hidden from the camera, or a player's stockpiles all look
        empty (R17 may hold: the face-down cards under a top are never seen, so the referee's
        count of them is a belief, not a sighting)."""
        if (self._warned is not None or self._provisional or self._counts_uncertain
                or any(r == UNKNOWN for r in self.readings.values())):
            return True
        if self.scene is None or mismatches(self.scene, self.readings):
            return True
        # A card of the player's that lies loose on a pile (ruled illegal, to be taken back)
        # is still theirs: the camera saw it leave, so that player has not played them all.
        loose = {lc.player for lc in self.scene.loose
                 if lc.home in STOCK or lc.home.startswith("down:")}
        return any(p not in loose and all(self.readings[z] == EMPTY for z in STOCK_ZONES[p])
                   for p in PLAYERS)


def _false_slap(t: float, slap: Slap, why: str) -> Ruling:
    """The ruling on a slap the referee held (Slapping._slap) and now knows was false (R18)."""
    return Ruling(t, RulingKind.FALSE_SLAP, player=slap.player, to=slap.pile, rule="R18",
                  message=f"False slap: {slap.player.upper()} slapped {pile_words(slap.pile)} "
                          f"at {slap.t_ns / NS_PER_S:.3f} s, before \"Slap!\": {why} (R18)",
                  extra={"illegal_kind": "false-slap", "slap_t_ns": slap.t_ns})
