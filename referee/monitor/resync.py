"""Getting back in step: when the camera could not see which moves were made, the rules
monitor takes a position one explanation leaves (a resync) or the table as read (a
rebase), rules what every explanation agrees on, and follows the other positions until
the table rules them out (referee.rivals)."""
from __future__ import annotations

from collections import Counter
from typing import Mapping

from referee.doubts import illegal_in_every_order, on_any_of, r10_alike
from referee.infer import Explanation
from referee.log import ObserveInput
from referee.monitor.common import InferredMove, Phase
from referee.moves import Play, Spit, TakeBack, TurnUp
from referee.rebase import rebase
from referee.rivals import Rivals
from referee.rulings import Ruling, RulingKind
from referee.scene import Loose, Scene, Step, mismatches, position_key
from referee.state import Table
from referee.steps import R10_KINDS, advance, illegal_steps, ruling_for, step_keys
from referee.zones import PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN


class Resyncing:
    """Part of referee.monitor.Monitor: taking a position without knowing every move."""

    def _resync(self, t: float, readings: Mapping[str, str], options: tuple[Explanation, ...],
                out: list[Ruling], same_position: bool = False,
                complete: bool = False, sure: frozenset[int] = frozenset()) -> None:
        """More than one sequence of moves explains the table, which the camera now sees
        whole, or one that what the camera missed could change: it cannot tell, so it rules
        none of them, takes the position one of them leaves (one with only legal moves if
        there is one), and follows the table from there. Until the next round it rules no
        illegal move on the zones where that position may differ from the truth (which card
        came first, a card to be taken back; after a single doubtful explanation, anywhere):
        an illegal-looking move there might be explained by the other sequence. Without this
        the referee would stay lost for the rest of the round. Once the table rules out every
        position but the one taken (referee.rivals), the steps every option leaving that
        position agrees on are ruled, late (_position_known).

        With `complete` (the options are every shortest explanation), a step that every option
        makes, with the same verdict on the same card, happened: it is ruled (R10 rulings in
        the 2 s the candidates were followed, game 1000167: 7♠ on 2♥)."""
        chosen = min(options, key=lambda e: len(illegal_steps(e.steps)))
        was_provisional = self._provisional
        self._rivals = None
        if self._counts_uncertain and any(isinstance(s.move, Spit) and not s.verdict.ok
                                          for o in options for s in o.steps):
            # An illegal spit in an option may rest on counts that are off: the player the
            # belief holds has no spit card left may have one (R8), and then the options are
            # not every order. Cards later played on such a spit are not known to lie on the
            # pile's top (game 15000056: P1's K♥ spat, taken for P2's spit on the wrong pile;
            # J♦, Q♥ and K♣ then ruled "not adjacent on 8♠" as alike in every option).
            complete = False
        table = self.scene.table
        keys = [step_keys(table, o.steps) for o in options]
        chosen_keys = keys[options.index(chosen)]
        agreed = Counter(chosen_keys)
        if complete and len(options) > 1:
            for k in keys:
                agreed &= Counter(k)
        else:
            agreed = Counter()
        # A card an option lifts off a pile after it was played legally (R14, TakeBack) is
        # how the options explain it showing at home again; in truth it may have been played
        # illegally on a card they never put there, in an order that took more moves to reach
        # an earlier table and was dropped (referee.branches). Neither its play nor a play
        # onto it is known then (game 33000118: 3♣ on 4♦ and 3♦ on it, the same rank, taken
        # back; every option had 3♦ legal on 4♦ and lifted, and "3♦ on 4♦", "2♥ on 3♦" were
        # ruled as agreed).
        lifted = {s.move.card.code for o in options for s in o.steps
                  if isinstance(s.move, TakeBack) and s.returned is None}
        _drop_lifted(agreed, lifted)
        # Every option rests on the same belief: an illegal step they agree on is ruled only
        # if nothing the referee doubts about that belief could make it legal.
        illegal_ok = self._doubts().doubt(chosen.steps) is None and not self._unread_tops
        # An R10 play every option makes illegal the same way, though on different cards
        # beneath (game 1000193: 4♠ not adjacent to 9♠ in one order, to 8♦ in the other).
        # A step ruled as agreed is not counted again as alike (game 44000151: 5♥ not
        # adjacent on 7♠ twice in one order; on 5♦, the same rank, then on 7♠ in the other.
        # One "on 7♠" is agreed, and the second was ruled too, as alike).
        alike = Counter()
        if complete and len(options) > 1 and illegal_ok:
            alike = r10_alike(options[0].steps, keys[0], agreed)
            for o, o_keys in zip(options[1:], keys[1:]):
                alike &= r10_alike(o.steps, o_keys, agreed)
        # What every option leaving the chosen position agrees on is known once the table
        # rules out the others (Rivals, _position_known): those steps are ruled then, late.
        where = [position_key(o.scene) for o in options]
        positions = set(where)
        here = where[options.index(chosen)]
        known_later = Counter()
        if complete and len(positions) > 1 and not was_provisional:
            known_later = Counter(chosen_keys)
            for k, at in zip(keys, where):
                if at == here:
                    known_later &= Counter(k)
            _drop_lifted(known_later, lifted)
        late: list[tuple[int, Table]] = []
        # A card every option has its player use illegally, one way or another, seen on a
        # spit pile since the last sure position and seen back on a stockpile after another
        # reading there: ruled, naming both ways. No card the camera did not see can make
        # that legal: no legal move takes a card off a spit pile (R14), so the doubts about
        # the rest (illegal_ok) do not apply.
        either: dict[tuple[str, str], Step] = {}
        if complete and len(options) > 1 and not self._unread_tops:
            on_piles = {c for p in SPIT_PILES for c in self._seen.get(p, ())}
            for s in chosen.steps:
                card = getattr(s.move, "card", None)
                if (card is None or card.code not in on_piles or s.verdict.ok
                        or not self._came_back(s.move.player, card.code)):
                    continue
                found = illegal_in_every_order(options, table, s.move.player, card.code)
                if found is not None:
                    either[(s.move.player, card.code)] = found
        ruled_either: set[str] = set()
        ruled: set[tuple] = set()
        ruled_alike: set[tuple] = set()
        before = table.copy()
        for k, (step, key) in enumerate(zip(chosen.steps, chosen_keys)):
            agreed_here = (agreed[key] > 0 and (step.verdict.ok or illegal_ok)
                           and not (self._counts_uncertain and isinstance(step.move, Spit)))
            alike_here = (not agreed_here and not step.verdict.ok and step.returned is None
                          and alike[(step.move, step.verdict.kind)] > 0)
            if alike_here:
                alike[(step.move, step.verdict.kind)] -= 1
                ruled_alike.add((step.move, step.verdict.kind))
                step = on_any_of(step, before, {kk[-1] for o_keys, o in zip(keys, options)
                                                 for s_, kk in zip(o.steps, o_keys)
                                                 if s_.move == step.move and kk[-1]
                                                 and s_.verdict.kind == step.verdict.kind
                                                 and s_.returned is None})
            # A card landing on one the position only guessed (an earlier resync's loose
            # card, a rebase's top): the card beneath, which its ruling names, is not known
            # (game 8000035: 5♥ "on 5♣" where it went on K♣, which lay on loose cards).
            ok = (agreed_here or alike_here or k in sure) and not self._on_unsure_card(
                step, before)
            if agreed_here:
                agreed[key] -= 1
            card = getattr(step.move, "card", None)
            pc = (step.move.player, card.code) if card is not None else None
            if (not ok and pc in either and step.returned is None and not step.verdict.ok
                    and (isinstance(step.move, TakeBack) or step.verdict.kind in R10_KINDS)
                    and not self._lands_on_unsure(either[pc], before)):
                # Ruled in the place of this option's illegal step for the card (its R10
                # play, or taking it back off the card it fitted).
                ruled_either.add(card.code)
                said = either.pop(pc)
                ruling = ruling_for(t, said, before)
                if ruling is not None:
                    out.append(ruling)
                self.moves.append(InferredMove(t, said, self.game.round))
                advance(before, step)
                continue
            if ok:
                ruled.add(key)
                ruling = ruling_for(t, step, before)
                if ruling is not None:
                    out.append(ruling)
            elif (known_later[key] > 0 and (step.verdict.ok or illegal_ok)
                  and not (self._counts_uncertain and isinstance(step.move, Spit))
                  and not self._lands_on_unsure(step, before)):
                late.append((len(self.moves), before.copy()))
            if known_later[key] > 0:
                known_later[key] -= 1
            self.moves.append(InferredMove(t, step, self.game.round, unsure=not ok,
                                           beneath=key[-1]))
            advance(before, step)
        cards = sorted({s.move.card.pretty for o, o_keys in zip(options, keys)
                        for s, key in zip(o.steps, o_keys)
                        if key not in ruled and (s.move, s.verdict.kind) not in ruled_alike
                        and getattr(s.move, "card", None) is not None
                        and s.move.card.code not in ruled_either
                        and not isinstance(s.move, TurnUp) and s.returned is None})
        if not (len(options) > 1 or same_position):
            why = "everything that happened to {}"
        elif len(cards) > 1:
            why = "in which order {} moved (more than one sequence fits)"
        else:
            why = "when {} moved (more than one sequence fits)"
        self.scene = chosen.scene
        # Cards the position takes for illegal ones lying on a pile, which may have been
        # legal: the card a play lands on there is not known (Monitor._apply). Nor is it where
        # the options leave different tops (game 21000077: 7♥ legal on 8♦ in the position
        # taken, illegal and lying on 9♠ in another; P2's 8♠ was then ruled "on 7♥").
        self._unsure_loose = list(chosen.scene.loose)
        differ = {p for p in SPIT_PILES if len({o.scene.table.top(p) for o in options}) > 1}
        self._unsure_tops |= differ
        # Where several options all leave the same position (only which card was illegal
        # differs), the position is known, and so is every later move's ruling. A single
        # doubtful explanation may have missed something (a spit card never seen).
        # Once provisional, the round stays so: a later resync does not undo an earlier guess.
        # Which zones the options disagree on is kept: an illegal step elsewhere is ruled.
        # Options that are not every explanation and leave one position are one doubtful
        # explanation, told in ways that differ only in the card an illegal play was tried on
        # (game 39000160: 6♥ on 9♦ or on 8♠, both from one doubted explanation).
        if not same_position and (len(options) < 2 or (not complete and len(positions) < 2)):
            # The tops are as the camera sees them, but one of the cards the explanation has
            # land may lie there illegally (a card it never saw beneath), so the first card
            # onto each of those piles is not ruled (_on_unsure_card); from there a card that
            # does not fit the top is (R10).
            self._provisional = True
            self._unsure_tops |= {s.move.pile for s in chosen.steps
                                  if isinstance(s.move, (Play, Spit))}
            self._counts_doubtful = True
            # So may a card it leaves lying loose: the stockpile it belongs to may be empty,
            # not holding it, so whether a slot was free (R12) is not known there (game
            # 39000160: 6♣ taken for "not adjacent" and lying on the left pile; it was legal,
            # and 4♣ moved into its empty slot was ruled "stacked").
            if self._uncertain_zones is not None:
                self._uncertain_zones |= {zone for lc in chosen.scene.loose
                                          for zone in _loose_zones(lc)}
        elif not same_position and len(positions) > 1:
            self._provisional = True
            # Options that differ only in the order of cards leave the same counts: the round's
            # end, and the next round's counts (R19), are then known (game 1000193: 8♦, 9♠).
            if len({_count_key(o.scene.table) for o in options}) > 1:
                self._counts_doubtful = True
            if complete and not was_provisional:
                self._rivals = Rivals(chosen.scene, options)
                self._late = (self._rivals, late) if late else None
                self._rival_tops = differ  # known again with the position (_position_known)
            if self._uncertain_zones is not None:
                self._uncertain_zones |= _differing_zones(chosen, options)
        self._reset_timers(t - self.config.latency_s)
        if cards or not same_position:  # (else every step is ruled, whichever the order)
            until = ("; until the next round it rules an illegal move only where that cannot "
                     "change it" if self._provisional else "")
            # (Some may be ruled later, once the table shows which position was the truth.)
            for_now = (" for now" if self._late is not None and self._late[0] is self._rivals
                       else "")
            out.append(Ruling(t, RulingKind.WARNING,
                              message=f"the camera did not see {why.format(', '.join(cards))}, "
                                      f"so the referee rules none of them{for_now} and follows "
                                      f"the table from here{until}",
                              extra={"resync": True}))
        self._confirmed(readings, t, out)
        if self.phase is Phase.PLAYING:
            self._check_round_end(t, out)

    def _came_back(self, player: str, code: str) -> bool:
        """`code` showed on one of `player`'s stockpiles after that stockpile read something
        else, since the last sure position."""
        for z in STOCK_ZONES[player]:
            trail = self._trails.get(z, [])
            if code in trail[1:] and any(r != code for r in trail[:trail.index(code, 1)]):
                return True
        return False

    def _follow_rivals(self, t: float, out: list[Ruling]) -> None:
        """Once the table rules out every other candidate of the resync that made the
        position provisional, the position is known: illegal moves are ruled again, and the
        round's end counts (game 1000193: 8♦ and 9♠ seen on 9♦, or lying there illegally
        until the next round)."""
        rivals = self._rivals
        if rivals is None:
            return
        if not self._provisional or self.phase is not Phase.PLAYING or self._warned is not None:
            self._rivals = None
            return
        if (self._branches is not None or any(r == UNKNOWN for r in self.readings.values())
                or mismatches(self.scene, self.readings)):
            return  # the position taken does not explain this table yet: nothing to compare
        if rivals.ruled_out(self.readings):
            self._position_known(t, out)
        else:
            self._counts_known(rivals.branches)

    def _position_known(self, t: float, out: list[Ruling]) -> None:
        """Every other candidate of the resync is ruled out (Monitor._follow_rivals): its
        position was the truth, and so is each step that every option leaving it agreed on,
        which is ruled now, late (game 48000194: five plays on the left pile, ruled a second
        after the resync, when the next table ruled out the other positions)."""
        late = self._late
        if late is not None and late[0] is self._rivals:
            for index, then in late[1]:
                if self.moves[index].unsure and self.moves[index].round == self.game.round:
                    self._rule_late(t, index, then, out)
        self._late = None
        self._rivals = None
        self._provisional = False
        self._uncertain_zones = set()
        self._counts_doubtful = False
        self._unsure_loose = []
        self._unsure_tops -= self._rival_tops
        self._rival_tops = set()

    def _rivals_at_end(self, t: float, out: list[Ruling]) -> None:
        """The round is over in the position taken (R17), seen whole: the candidates of the
        resync that need more moves to end it are ruled out (Rivals.outrun_at_end), and with
        them the doubt about the counts."""
        rivals = self._rivals
        if (rivals is None or not self._provisional or self._warned is not None
                or self._branches is not None
                or any(r == UNKNOWN for r in self.readings.values())
                or mismatches(self.scene, self.readings)):
            return
        left = rivals.left_at_end(self.readings, len(self.scene.loose))
        if left is None:
            return
        if not left:
            self._position_known(t, out)
        else:
            self._counts_known(left)

    def _counts_known(self, rivals: tuple[Explanation, ...]) -> None:
        """The candidates still left all have the counts of the position taken (they differ
        in the order of cards under the piles' tops, which no later table shows): the
        round's end, and the next round's counts, are known (game 2000007: P2's 8♣ and 8♥
        either side of 9♠)."""
        key = _count_key(self.scene.table)
        if all(_count_key(b.scene.table) == key for b in rivals):
            self._counts_doubtful = False

    def _rebase(self, entry: ObserveInput, readings: Mapping[str, str],
                out: list[Ruling], scene: Scene | None = None) -> bool:
        """Lost for RESYNC_AFTER_S with no explanation to resync to (too many moves out of
        sight to put in order): take the table as the camera reads it (referee.rebase) and
        follow it from there. Where the cards went that nobody saw is not known, so the card
        counts are uncertain from here: only legal moves and R10 plays are ruled, until a
        start line. `scene`: that table, when the caller has already taken it."""
        if self.phase is not Phase.PLAYING or self._gathered(readings):
            return False
        if scene is None:
            scene = rebase(self.scene, readings, self._seen, self._rebased)
        if scene is None:
            return False
        self._rebased |= {c for p in SPIT_PILES for c in scene.table.piles[p]
                          if c not in self.scene.table.piles[p]}
        # A new top may be an illegal card still lying there (R10): what the next card on it
        # lands on is not known. So may a top the belief already had, if the pile showed other
        # cards since the belief was sure: it may have gone and come back (game 10000043: 2♣,
        # the belief's top, taken back, then played again illegally on 4♠; 3♥ then ruled
        # "on 2♣").
        self._guessed_tops = set()
        self._unsure_tops = {p for p in SPIT_PILES
                             if scene.table.piles[p][-1:] != self.scene.table.piles[p][-1:]
                             or set(self._seen.get(p, ())) - {readings[p]}}
        self.scene = scene
        # The table is as the camera reads it: a card that does not fit the top it lands on
        # (R10) is ruled as in any round with uncertain counts, once the next card has shown
        # that top to be a legal one (_unsure_tops); what depends on the counts is not.
        self._provisional, self._uncertain_zones = True, set()
        self._counts_doubtful = True
        self._rivals = None
        self._counts_uncertain = True
        self._reset_timers(entry.t - self.config.latency_s)
        out.append(Ruling(entry.t, RulingKind.WARNING,
                          message=f"line {entry.lineno}: the referee could not follow the moves "
                                  "made out of sight, so it rules none of them and takes the "
                                  "table as the camera reads it now; from here it rules only "
                                  "legal moves and cards that do not fit a pile's top (R10) — "
                                  "restart the log from a start line with the true counts to "
                                  "have every move ruled",
                          extra={"line": entry.lineno, "rebase": True, "uncertain": True}))
        self._confirmed(readings, entry.t, out)
        end = scene.table.round_end()
        if end is not None and self._unsure_tops:
            # The end rests on tops taken as read: the last card may be an illegal one still
            # lying there (R10), and then the round goes on (game 4000022: P1's last card, 7♣,
            # lay on 9♦, not adjacent, and "Slap!" was called). It is not called; the slaps
            # wait as under a hand (_unsure_slaps) until the table shows more.
            said = end.message.split(" — ")[0]
            out.append(Ruling(entry.t, RulingKind.WARNING, rule="R17",
                              message=f"line {entry.lineno}: the table as the camera reads "
                                      f"it says \"{said}\", but the last card may lie on its "
                                      "pile illegally (R10), so the referee does not call the "
                                      "round's end — slap only if it is",
                              extra={"line": entry.lineno, "uncertain": True}))
        else:
            self._check_round_end(entry.t, out)
        return True

    def _take_back_guessed(self, readings: Mapping[str, str]) -> None:
        """A card a rebase took for a pile's top shows on its player's stockpile again: it was
        an illegal card still lying there (R10) and has been taken back, not a played card
        lifted off (R14, which the search would make of it). The belief is corrected, and
        nothing is ruled: the rebase had only guessed that card's place (demo seed 18: K♠
        on 2♦, taken back after the rebase took the table with K♠ on top)."""
        if not self._rebased or self._branches is not None or self.phase is not Phase.PLAYING:
            return
        t = self.scene.table
        for pile in SPIT_PILES:
            top = t.piles[pile][-1] if t.piles[pile] else None
            if top is None or top not in self._rebased or self.scene.expected(pile) != top.code:
                continue
            home = [(p, i) for p in PLAYERS for i, z in enumerate(STOCK_ZONES[p])
                    if readings.get(z) == top.code and t.slots[p][i].up is None]
            if len(home) == 1:
                p, i = home[0]
                self.scene = self.scene.copy()  # (a resync's rivals may share the old one)
                t = self.scene.table
                self._send_home(t, pile, len(t.piles[pile]) - 1, p, i)

    def _send_home(self, table: Table, pile: str, at: int, player: str, slot: int) -> None:
        """The belief corrected: the card `at` in `pile` was not played but went home to the
        player's stockpile `slot` (an illegal card taken back, R10). The pile's top is unsure
        now, and where that card was the top, the card left there is only the belief's, which
        the camera never showed as the top (_on_unsure_card)."""
        cards = table.piles[pile]
        table.slots[player][slot].up = cards.pop(at)
        table._recount()
        self._unsure_tops.add(pile)
        if at == len(cards):
            self._guessed_tops.add(pile)


def _drop_lifted(keys: Counter, lifted: set[str]) -> None:
    """Leave out of `keys` (step_keys counted) the steps whose card, or the card beneath
    them, some option lifts off a pile after playing it legally (TakeBack): neither that
    play nor a play onto it is known (Monitor._resync, game 33000118)."""
    for key in list(keys):
        card = getattr(key[0], "card", None)
        if (card is not None and card.code in lifted) or key[-1] in lifted:
            del keys[key]


def _differing_zones(chosen: Explanation, options: tuple[Explanation, ...]) -> set[str]:
    """The zones (and `<player>.hand`) where an option's position differs from the chosen
    one: a stockpile's cards, a spit pile's cards or the loose cards on it, a spit hand."""
    a = chosen.scene
    zones: set[str] = set()
    for o in options:
        b = o.scene
        for p in PLAYERS:
            for i, z in enumerate(STOCK_ZONES[p]):
                sa, sb = a.table.slots[p][i], b.table.slots[p][i]
                if ((sa.down, sa.up, sa.under) != (sb.down, sb.up, sb.under)
                        or _loose_at(a, z) != _loose_at(b, z)):
                    zones.add(z)
            if a.table.spit_hand[p] != b.table.spit_hand[p]:
                zones.add(f"{p}.hand")
        for pile in SPIT_PILES:
            if a.table.piles[pile] != b.table.piles[pile] or _loose_at(a, pile) != _loose_at(
                    b, pile):
                zones.add(pile)
    return zones


def _loose_zones(lc: Loose) -> set[str]:
    """The zones a loose card lies on and belongs to (`<player>.hand` for a spit card)."""
    kind, _, home = lc.home.rpartition(":")
    zones = {f"{home}.hand" if kind == "hand" else home}
    if lc.at is not None:
        zones.add(lc.at)
    return zones


def _loose_at(scene: Scene, zone: str) -> set[tuple]:
    """The loose cards lying on `zone` or belonging there."""
    return {(lc.card, lc.home, lc.at) for lc in scene.loose if zone in (lc.home, lc.at)
            or lc.home == "down:" + zone}


def _count_key(table: Table) -> tuple:
    """What a round's end and the next round's counts (R17-R20) depend on: how many cards lie
    in each spit pile, and each player's stock and spit cards (a card lying loose on a pile is
    still its player's: the Table keeps it where it came from)."""
    return (tuple(len(table.piles[p]) for p in SPIT_PILES),
            tuple((table.stock_count(p), table.spit_hand[p]) for p in PLAYERS))
