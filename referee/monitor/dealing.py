"""Dealing in the rules monitor: the layout laid out and turned up (R5, R7), unreadable
layout tops, the last round's cards still on the stockpiles, a deal the camera did not see
before play went on, and a deal from counts the referee does not know."""
from __future__ import annotations

from typing import Any, Mapping

from referee.game import counts_fitting_layouts
from referee.log import ObserveInput
from referee.monitor.common import STOCK_ORDER, Phase
from referee.moves import TurnUp
from referee.rebase import rebase
from referee.rulings import Ruling, RulingKind
from referee.scene import Scene
from referee.state import LAYOUT_PILES, Table
from referee.zones import BACK, EMPTY, PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN


# Layout tops the camera may fail to read while the round still starts (see
# Monitor._tops_unread_at_spit): one unreadable card must not stop the referee for a round,
# and with more than two unread the referee would follow too little of the table to be useful.
MAX_UNREAD_TOPS = 2


class Dealing:
    """Part of referee.monitor.Monitor: the deal of each round."""

    def _fit_layout(self, entry: ObserveInput, readings: Mapping[str, str],
                    out: list[Ruling]) -> None:
        """Counts the referee does not know (a stand-in, or uncertain) may deal a layout other
        than the one on the table: a player with fewer than 11 cards lays out fewer than five
        stockpiles (R7). Once every stockpile dealt shows its top face up, the deal is done
        (the tops are turned up last, R5): a stockpile still empty was left so, not one still
        to be dealt. The belief is dealt again with counts that lay out what the table shows,
        still uncertain (game 10000036: P2 held 10 cards, believed 16; the empty fifth
        stockpile was taken for one still to be dealt, and the referee waited for the rest of
        the game)."""
        if any(readings[z] in (UNKNOWN, BACK) for z in STOCK_ORDER):
            return
        piles: dict[str, int] = {}
        for p in PLAYERS:
            shown = [readings[z] != EMPTY for z in STOCK_ZONES[p]]
            if shown != sorted(shown, reverse=True):
                return  # a gap in the layout: not an R7 deal, nothing to fit
            piles[p] = sum(shown)
        if not (self._counts_uncertain or self._counts_stand_in):
            self._fit_short_layout(entry, readings, piles, out)
            return
        self._spitless = {p for p in PLAYERS if 0 < piles[p] < len(LAYOUT_PILES)}
        if piles == _piles_dealt(self.scene.table):
            return
        counts = counts_fitting_layouts(piles, self.game.counts)
        if counts is None:
            return
        self.game.counts = counts
        self._deal_again(counts)
        self._counts_uncertain = True
        self._counts_stand_in = False
        words = ", ".join(f"{p.upper()} {piles[p]}" for p in PLAYERS)
        out.append(Ruling(entry.t, RulingKind.WARNING, rule="R7",
                          message=f"line {entry.lineno}: the layout has {words} stockpiles, "
                                  "which the counts the referee had do not deal: it takes "
                                  + ", ".join(f"{p.upper()} to hold {counts[p]} cards"
                                              for p in PLAYERS)
                                  + " (R7), which may be off — restart the log from a start "
                                    "line with the true counts",
                          extra={"line": entry.lineno, "uncertain": True, "cards": counts}))

    def _fit_short_layout(self, entry: ObserveInput, readings: Mapping[str, str],
                          piles: Mapping[str, int], out: list[Ruling]) -> None:
        """Counts the referee knows, and a layout other than R7's (1, 2, 3, 4, 5 as far as
        the cards go), every top face up: the R7 Decision accepts any layout of at most five
        piles. Where each card is a pile of its own, the piles' sizes are known and the belief
        is dealt so; otherwise how many cards lie under each top is not known, and the referee
        says what it needs instead of waiting unheard (a start line of 5 cards laid as five
        piles of one left it silent). Fewer piles than R7's may be a deal still going on: only
        once the players have spat (both spit piles show a card) is that layout the round's."""
        old = self.scene.table
        dealt = _piles_dealt(old)
        spat = all(readings[z] not in (EMPTY, BACK, UNKNOWN) for z in SPIT_PILES)
        odd = [p for p in PLAYERS if piles[p] > dealt[p] or (spat and piles[p] < dealt[p])]
        if not odd:
            return
        counts = self.game.counts
        if all(piles[p] == counts[p] for p in odd):
            self._deal_again(dict(counts), {
                p: [1 if i < piles[p] else 0 for i in range(len(LAYOUT_PILES))]
                if p in odd else [s.count for s in old.slots[p]] for p in PLAYERS})
            return
        if self._short_layout_warned == piles:
            return
        self._short_layout_warned = dict(piles)
        words = "; ".join(f"{p.upper()} has {piles[p]} stockpiles of {counts[p]} cards, where "
                          f"R7 deals {dealt[p]}" for p in odd)
        out.append(Ruling(entry.t, RulingKind.WARNING, rule="R7",
                          message=f"line {entry.lineno}: {words}: the referee cannot tell how "
                                  "many cards lie under each top — deal the piles 1, 2, 3, 4, 5 "
                                  "in order as far as the cards go (R7), or one card a pile",
                          extra={"line": entry.lineno}))

    def _deal_again(self, counts: Mapping[str, int],
                    layouts: Mapping[str, list[int]] | None = None) -> None:
        """The belief dealt afresh with `counts` (and `layouts`), the tops the camera has
        read already turned up in it."""
        old = self.scene.table
        table = Table(self.config.rules, counts, layouts)
        for p in PLAYERS:
            for i, s in enumerate(old.slots[p]):
                if s.up is not None and table.slots[p][i].down:
                    table.apply(TurnUp(p, i, s.up))
        self.scene = Scene(table)

    def _layout_fits(self, readings: Mapping[str, str]) -> bool:
        """During a deal the spit piles are empty and the stock zones hold cards or backs."""
        for pile in SPIT_PILES:
            if readings[pile] not in (EMPTY, UNKNOWN):
                return False
        return True

    def _tops_unread_at_spit(self, readings: Mapping[str, str]) -> list[str] | None:
        """The layout's unread stockpiles when the players have spat (R8) though the camera
        has not read every top: both piles were seen cleared since the round ended
        (so their cards are new spit cards, not the last round's piles), both show a card now,
        and at most MAX_UNREAD_TOPS stockpiles are unread. Waiting for those would stop the
        referee for the whole round. None when the players have not spat so; an empty list
        when every top reads: the layout and the spits are then explained from one table
        (a hand over the stockpiles until the spits hid the layout)."""
        if self._piles_cleared != set(SPIT_PILES):
            return None
        if any(readings[p] in (EMPTY, BACK, UNKNOWN) for p in SPIT_PILES):
            return None
        unread = [z for z in STOCK_ORDER if readings[z] == UNKNOWN]
        return unread if len(unread) <= MAX_UNREAD_TOPS else None

    def _ran_on_unseen(self) -> bool:
        """The round has gone on past its first spits while the deal was not followed: a
        spit pile seen cleared for this deal has shown more than one card since. Each player
        spits one card to start (R8); a second card there is a move the referee did not see,
        and a search of the layout and the spits alone would take the pile's top for the
        first spit (demo seed 1 before the fix in _not_dealt_yet: K♦ and 7♥ ruled spat 14 s
        into round 5)."""
        return any(len(set(self._seen.get(p, ()))) > 1 for p in SPIT_PILES)

    def _deal_missed(self, entry: ObserveInput, readings: Mapping[str, str],
                     out: list[Ruling]) -> None:
        """The deal (R5) was not followed before play went on (_ran_on_unseen): it is ruled,
        with the counts the last round gave, and the table is taken as the camera reads it
        (Monitor._rebase: the moves since are not ruled, the counts are uncertain from here).
        While the table cannot be taken so (a pile hidden, a card seen twice), the referee
        waits."""
        scene = rebase(self.scene, readings, self._seen, self._rebased)
        if scene is None:
            return
        self._deal_ruling(entry.t, out, seen=False)
        self._rebase(entry, readings, out, scene)

    def _not_dealt_yet(self, new: Mapping[str, str], readings: dict[str, str]) -> None:
        """A stockpile that still shows the card it showed when the last round ended may hold
        that round's card, not yet gathered: not this deal's top (R5). It reads as not dealt
        (`?` in `readings`), and the card is not taken as seen there, until the zone shows
        anything else (`new`, this line's readings: empty, a back, another card), or a hand
        has been over it and the spit piles have been seen cleared (the players gather their
        stock cards with the piles, R19), or the players have spat on the cleared piles (the
        deal is done: the card was dealt there again). Demo seed 1: P1's 6♥, left on
        stockpile 5 as round 4 ended and read while hands gathered the piles, was taken for
        round 5's top; the table dealt with 8♥ there was never explained, and two spits were
        ruled wrong 14 s later, from a table already in play. A zone a hand was over as the
        round ended has been under a hand since (the slaps' result can come after the
        players reach for the cards)."""
        cleared = self._piles_cleared == set(SPIT_PILES)
        spat = cleared and all(readings[p] not in (EMPTY, BACK, UNKNOWN) for p in SPIT_PILES)
        for z, r in new.items():
            if z in self._left_over and r == UNKNOWN:
                self._left_handled.add(z)
            elif z in self._left_over and r != self._left_over[z]:
                del self._left_over[z]
        for z, code in list(self._left_over.items()):
            if spat or (cleared and z in self._left_handled):
                del self._left_over[z]
                continue
            if readings[z] == code:
                readings[z] = UNKNOWN
            if code in self._seen.get(z, ()):
                self._seen[z].remove(code)

    def _deal_ruling(self, t: float, out: list[Ruling], seen: bool = True) -> None:
        """The round is dealt (R5, R19): play begins. `seen=False`: the camera did not see the
        deal before play went on (_deal_missed)."""
        self.phase = Phase.PLAYING
        self._left_over = {}  # (a card left on a zone at the players' spit is this deal's)
        self._reset_timers(t - self.config.latency_s)
        counts = dict(self.game.counts)
        rule = "R5" if self.game.round == 1 else "R19"
        extra: dict[str, Any] = {"round": self.game.round, "cards": counts}
        words = ", ".join(f"{p.upper()} {counts[p]} cards" for p in PLAYERS)
        if self._counts_stand_in:
            # Not counts at all: the stand-in of Monitor._unseen_round_end.
            words = "card counts not known"
        elif self._counts_uncertain:
            words += " by the referee's count, which may be off"
        if self._counts_uncertain:
            extra["uncertain"] = True
        self._counts_stand_in = False
        then = ("say \"Spit!\" together when ready (R8)" if seen else
                "the camera did not see the deal before play began")
        out.append(Ruling(t, RulingKind.DEAL, rule=rule,
                          message=f"Round {self.game.round} dealt: {words} ({rule}) — {then}",
                          extra=extra))


def _piles_dealt(table: Table) -> dict[str, int]:
    """How many stockpiles each player has in `table`."""
    return {p: sum(1 for s in table.slots[p] if s.count) for p in PLAYERS}
