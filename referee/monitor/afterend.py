"""A game's last round ended while a hand hid part of the table: who won when what the hand
hid cannot change it (R21), and what the camera shows once the hand has gone (R17, R19)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from referee.game import GameOver
from referee.infer import settled
from referee.log import ObserveInput
from referee.monitor.common import InferredMove, frozen_shown
from referee.moves import Play, Spit
from referee.rulings import Ruling, RulingKind
from referee.scene import Scene, Step
from referee.state import Table
from referee.steps import advance, not_agreed, ruling_for, step_keys, step_zones, top_beneath
from referee.zones import ALL_ZONES, EMPTY, PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN


@dataclass
class UnseenAtEnd:
    """A game's end ruled while a hand hid zones where cards may have moved (an owed spit,
    a card played from a hidden stockpile), the round-over's counts marked uncertain."""

    start: Scene                 # the position before the moves that ended the round
    steps: tuple[Step, ...]      # those moves, as ruled
    hidden: frozenset[str]       # the zones read `?` as the end was ruled
    readings: dict[str, str]     # what every zone read then
    owed: bool                   # a spit owed then may lie unseen (its card not known)
    round_over: Ruling           # the round-over ruled, uncertain
    game_over: Ruling            # the game-over ruled with it


class AfterEnd:
    """Part of referee.monitor.Monitor: the hidden zones of a game's end, looked at again."""

    def _ended_by(self) -> tuple[Scene, tuple[Step, ...]] | None:
        """The position before the moves that ended the round, and those moves: the last
        ruled, when the position is the one they led to."""
        before, steps, after = self._applied
        return (before, steps) if before is not None and after is self.scene else None

    def _winner_sure(self, table: Table, over: GameOver) -> bool:
        """R21: the winner cleared their stockpiles holding no spit card, so what a hand hid
        at the end is the other player's: a spit they owed, cards they may have played. That
        changes their count, not who won, unless they may have cleared their stockpiles first
        (R21: the game would go on): every stock card they hold lies where a hand is, with a
        spit pile, and may have gone there legally (a card nobody has seen may)."""
        if over.rule != "R21" or over.winner is None:
            return False
        loser = next(p for p in PLAYERS if p != over.winner)
        slots = [(z, s) for z, s in zip(STOCK_ZONES[loser], table.slots[loser]) if s.count]
        hidden = [p for p in SPIT_PILES if self.readings[p] == UNKNOWN]
        if not hidden or any(self.readings[z] != UNKNOWN for z, _ in slots):
            return True
        if any(s.down or s.under for _, s in slots):
            return False
        cards = [s.up for _, s in slots]
        ended = self._ended_by()
        start = ended[0].table if ended else table
        # The tops they may have played on: each hidden pile's before the last moves, the
        # cards those moves laid there, and their own cards, played one on another.
        tops = [c for p in hidden for c in (start.top(p), table.top(p)) if c is not None]
        if ended:
            tops += [s.move.card for s in ended[1]
                     if isinstance(s.move, (Play, Spit)) and s.move.pile in hidden and s.legal]
        return not any(table.fits(c, top) for c in cards for top in tops + cards if top != c)

    def _keep_unseen_end(self, owed: bool, round_over: Ruling,
                         game_over: Ruling) -> None:
        """Look at the game's end again once the hand is gone (_look_again)."""
        ended = self._ended_by()
        if ended is None:
            return
        self._unseen_end = UnseenAtEnd(
            ended[0], ended[1],
            frozenset(z for z in ALL_ZONES if self.readings[z] == UNKNOWN),
            dict(self.readings), owed, round_over, game_over)

    def _look_again(self, entry: ObserveInput, out: list[Ruling]) -> None:
        """After a game's end ruled while a hand hid part of the table (_keep_unseen_end):
        once every zone it hid reads again, the rest of the table as it was, what happened
        under the hand is ruled.
        - Nothing, or only a card ruled illegal gone home (R10), and no spit owed: the counts
          stand, and the round-over is ruled again without the doubt (and the game-over, if
          it had one).
        - Cards played: one order of legal plays and spits, the round's last card last
          (nothing is played after R17), explains the table from before the moves that ended
          it. The moves not ruled yet are ruled (an owed spit seen on the other pile settles
          the play a spit card may have lain under, _spat_after). Whether they came before
          the last card or after it, when they no longer count, the camera cannot tell: the
          counts stay uncertain.
        Once a zone the hand did not hide reads otherwise (the players gather the cards), the
        end stands as ruled."""
        u = self._unseen_end
        r = self.readings
        if any(r[p] == EMPTY for p in SPIT_PILES) or any(
                r[z] not in (UNKNOWN, u.readings[z]) for z in ALL_ZONES if z not in u.hidden):
            self._unseen_end = None
            return
        if any(r[z] == UNKNOWN for z in u.hidden):
            return
        self._unseen_end = None
        if settled(self.scene, r, self._seen, frozen_shown(self._shown)):
            if not u.owed:
                self._end_sure(entry, u, out)
            return
        e = self._explain_from_sure(r, scene=u.start).explanation
        if e is None or not all((s.legal and s.returned is None
                                 and isinstance(s.move, (Play, Spit)))
                                or s.returned in u.start.loose for s in e.steps):
            return
        ruled, found = step_keys(u.start.table, u.steps), step_keys(u.start.table, e.steps)
        unseen = not_agreed(found, [ruled])
        if (not_agreed(ruled, [found]) or not unseen
                or any(not step_zones(e.steps[k].move) <= u.hidden for k in unseen)):
            return  # (the moves ruled at the end are not all in it, or it adds none unseen)
        before = u.start.table.copy()
        new: list[tuple[Step, Table]] = []
        for k, step in enumerate(e.steps):
            if k in unseen:
                new.append((step, before.copy()))
            advance(before, step)
        for step, then in new:
            self.moves.append(InferredMove(entry.t, step, self.game.round,
                                           beneath=top_beneath(then, step)))
            ruling = ruling_for(entry.t, step, then)
            if ruling is not None:
                out.append(replace(ruling, message=f"{ruling.message} — seen once the hand had "
                                   "gone, after the end was called",
                                   extra={**ruling.extra, "after_end": True}))
            if isinstance(step.move, Spit):
                self._spat_after(entry.t, step.move.player, out)
        self.scene = e.scene
        if not u.owed and all(s.returned is not None for s, _ in new):
            self._end_sure(entry, u, out)  # (cards ruled illegal, gone home: no count changes)

    def _end_sure(self, entry: ObserveInput, u: UnseenAtEnd, out: list[Ruling]) -> None:
        """The round-over (and a game-over that had a doubt) ruled again, sure."""
        for ruling in (u.round_over, u.game_over):
            if not ruling.extra.get("uncertain"):
                continue
            extra: dict[str, Any] = {k: v for k, v in ruling.extra.items() if k != "uncertain"}
            extra["confirmed"] = True
            said = ruling.message.split(" — ")[0]
            sure = ("these counts are sure" if ruling.kind is RulingKind.ROUND_OVER
                    else "the counts, and so the result, are sure")
            out.append(Ruling(entry.t, ruling.kind, player=ruling.player, rule=ruling.rule,
                              message=f"{said} — the hand has gone and nothing moved under "
                                      f"it: {sure}", extra=extra))
