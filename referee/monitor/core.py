"""The rules monitor's core: log lines in, the camera's readings kept, each table explained
from the last sure position (referee.infer) and several candidates followed
(referee.branches); the other parts of referee.monitor rule, deal, end rounds and slaps."""
from __future__ import annotations

from typing import Any, Mapping

from referee.branches import MAX_BRANCHES, follow
from referee.candidates import shown_without
from referee.cards import Card
from referee.doubts import one_outcome
from referee.game import Game
from referee.infer import (MAX_NODES, MAX_NODES_BLIND, MAX_NODES_DEEP, Explanation, Outcome,
                           explain, moves_key, outcome_key, settled)
from referee.log import (BadStartError, LogLineError, LogReader, ObserveInput, RulingRecord,
                         SlapInput, StartInput)
from referee.monitor.afterend import AfterEnd
from referee.monitor.calls import TimedCalls
from referee.monitor.common import (RESYNC_AFTER_S, STOCK, STOCK_ORDER, InferredMove,
                                    MonitorConfig, Phase, Sightings, frozen_shown)
from referee.monitor.dealing import Dealing
from referee.monitor.ends import RoundEnds
from referee.monitor.judging import Judging
from referee.monitor.late import LateRulings
from referee.monitor.resync import Resyncing
from referee.monitor.slaps import Slapping
from referee.moves import Play, Refill, Spit
from referee.rivals import Rivals
from referee.rulings import Ruling, RulingKind
from referee.scene import Scene, Step
from referee.seen_order import passed_whole
from referee.slaps import Slap, SlapArbiter
from referee.state import Table
from referee.steps import move_zones, step_zones
from referee.timeline import Timeline
from referee.zones import (ALL_ZONES, BACK, EMPTY, PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN,
                          stock_index, zone_owner)

# The orders a search from the last sure position may list to check the candidates followed
# (Monitor._every_order): up to this many, it lists them all.
MAX_RESYNC_OPTIONS = 32
# Orders of the same moves a doubted candidate, no longer doubted, may be merged with when the
# search from the last sure position lists them all (Monitor._alone_from_sure): a few cards
# played under a hand, each order naming another card beneath an illegal one.
MAX_MERGED = 6


class Monitor(Judging, Dealing, Resyncing, RoundEnds, Slapping, LateRulings, AfterEnd,
              TimedCalls):
    """Feed it log lines in order with `feed`; it returns the rulings each line causes.

    Its state is set up here and in `_clear_round` (each round); the methods are grouped by
    job in the classes it is made of, one module each (referee.monitor)."""

    def __init__(self, config: MonitorConfig | None = None) -> None:
        self.config = config or MonitorConfig()
        self.reader = LogReader()
        self.game = Game(self.config.rules)
        self.readings: dict[str, str] = {z: UNKNOWN for z in ALL_ZONES}
        self.scene: Scene | None = None
        self.phase = Phase.DEALING
        self.moves: list[InferredMove] = []
        self.rulings: list[Ruling] = []
        self.arbiter = SlapArbiter(self.config.tie_window_ns)
        self.t = 0.0
        # When the last slap race was decided (a slap-result, "Slap again!" too): a slap line
        # that comes late, stamped before it, belongs to that race (Slapping._slap).
        self._race_decided_at: float | None = None
        # The card counts come from a round the referee did not follow whole (_finish): until
        # a start line gives them, it rules no spit and of the illegal moves only a card played
        # on a top it does not fit (the rest may be legal with the true counts: who still has
        # spit cards, R8, R16, R17).
        self._counts_uncertain = False
        self._counts_stand_in = False  # the next deal's counts are a stand-in (_unseen_round_end)
        # What the visible zones read after each line since the position was last taken: the
        # search keeps to the order the camera saw the table change in.
        self._timeline = Timeline()
        self._clear_round()
        self._started = False

    def feed(self, line: str | Mapping[str, Any], lineno: int | None = None) -> list[Ruling]:
        """One log line in; the rulings it causes out (also appended to `self.rulings`).
        `lineno`: the line's number in its file, when the caller skips blank lines."""
        out: list[Ruling] = []
        try:
            entry = self.reader.read(line, lineno)
        except LogLineError as exc:
            message = str(exc)
            if isinstance(exc, BadStartError):
                # The round's counts are not known: the referee follows the next deal
                # (_fit_layout) without ruling on what depends on them.
                self._counts_uncertain = True
                message += (" — the referee goes on without knowing the card counts: until a "
                            "good start line gives them it rules no spit and, of the illegal "
                            "moves, only a card played on a top it does not fit")
            at = self.t if exc.t is None else max(self.t, exc.t)
            out.append(Ruling(at, RulingKind.WARNING, message=message,
                              extra={"line": exc.lineno}))
            self.rulings.extend(out)
            return out
        if isinstance(entry, RulingRecord):
            return out
        self.t = max(self.t, entry.t)  # (a slap may come stamped a little behind, LogReader)
        self._tick(self.t, out)
        if isinstance(entry, StartInput):
            self._start(entry, out)
        elif isinstance(entry, ObserveInput):
            if not self._started:
                self._new_round(entry.t, out)
            self._observe(entry, out)
        elif isinstance(entry, SlapInput):
            self._slap(entry, out)
        self._tick(self.t, out)
        self.rulings.extend(out)
        return out

    def _start(self, entry: StartInput, out: list[Ruling]) -> None:
        self.game = Game(self.config.rules)
        self.game.counts = dict(entry.counts)
        self._counts_uncertain = self._counts_stand_in = False
        done = [p for p in PLAYERS if entry.counts[p] == 0]
        if done:
            out.append(Ruling(entry.t, RulingKind.WARNING, player=done[0], rule="R21",
                              message=f"line {entry.lineno}: {done[0].upper()} holds no cards, "
                                      "so has got rid of them all (R21): there is no round to "
                                      "deal — start the log from a start line of a game still "
                                      "going", extra={"line": entry.lineno}))
        if entry.scores is not None:
            self.game.scores = dict(entry.scores)
        self.phase = Phase.DEALING
        self._new_round(entry.t, out)

    def _new_round(self, t: float, out: list[Ruling]) -> None:
        self._started = True
        if any(n == 0 for n in self.game.counts.values()):
            return
        self.scene = Scene(self.game.new_table())
        self.phase = Phase.DEALING
        self._clear_round()
        self.arbiter.disarm()

    def _clear_round(self) -> None:
        """What the monitor tracks within a round, as at its start."""
        self._hidden: set[str] = set()          # zones hidden since the belief was confirmed
        self._hidden_at: dict[str, float] = {}  # when each of them was first seen hidden
        # Each stockpile's last face-up card read, and the last line at which it still lay
        # there: the last that read it, or the first to read the zone otherwise (a card
        # leaving a zone shows as a change at once), whichever came later.
        self._card_seen_at: dict[str, tuple[str, float]] = {}
        # Each card read on top of a spit pile, and the last line at which it still lay on
        # top there (the same rule): the card a round's last card landed on was seen there.
        self._top_seen_at: dict[tuple[str, str], float] = {}
        self._seen: dict[str, list[str]] = {}   # cards each zone showed since then
        self._shown: dict[str, set[str]] = {}   # back / empty each stockpile showed since then
        self._trails: dict[str, list[str]] = {}  # all each stockpile showed since then, in order
        self._piles_cleared: set[str] = set()    # spit piles seen empty since the round ended
        # The last round's face-up stock cards, each on its zone, until the camera shows the
        # zone gathered, and those of the zones a hand has been over since (_not_dealt_yet).
        self._left_over: dict[str, str] = {}
        self._left_handled: set[str] = set()
        self._unread_warned: list[str] = []      # layout tops last warned about as unread
        self._unread_tops: set[str] = set()      # those not read since (no timed calls)
        self._layout_unread: set[str] = set()    # those whose top the belief has not turned up
        self._provisional = False                # position taken without knowing the moves
        # That position's card counts (each spit pile, each player's stock and spit cards) may
        # differ from the truth: the round's end then leaves the next counts uncertain.
        self._counts_doubtful = False
        # Players whose layout this round is short (fewer than five stockpiles, so fewer than
        # 11 cards): they hold no spit cards (R7), whatever the uncertain counts say.
        self._spitless: set[str] = set()
        self._short_layout_warned: dict[str, int] | None = None  # (_fit_short_layout)
        # The other candidates of the resync that made the position provisional, followed
        # until the table rules them all out (referee.rivals); None when there are none.
        self._rivals: Rivals | None = None
        # The steps that resync left unruled which every option leaving its position makes
        # alike: ruled, late, once those candidates are ruled out (_position_known). Kept
        # with the Rivals they wait on, and each step's index in `moves` and table before it.
        self._late: tuple[Rivals, list[tuple[int, Table]]] | None = None
        # The zones where that position may differ from the truth (None: any of them).
        self._uncertain_zones: set[str] | None = set()
        self._warned: tuple | None = None       # the last unexplained difference warned about
        self._lost_at: float | None = None       # log time of the first of those warnings
        # Candidate positions while the camera has not told apart several explanations
        # (referee.branches), the log time they began, and what the zones showed since.
        self._branches: tuple[Explanation, ...] | None = None
        self._branched_at = 0.0
        # What the zones showed when the candidates were last carried forward on a table seen
        # whole: (readings, hidden, seen) (RoundEnds._end_from_branches).
        self._branch_view: tuple[dict, set, dict] | None = None
        # Slaps made while the referee could not see whether the round was over, and the last
        # moment it saw the whole table with the round still on (Monitor._early_slaps).
        self._unsure_slaps: list[Slap] = []
        # A forced "Spit!" made in a race with the move that made it needless (_call_in_race),
        # until the players either spit or play on.
        self._race_call = False
        # A round's first spit that uncertain counts left unruled, as the index of its move in
        # `moves` and the table before it, until the other player's first spit shows whose it
        # was (Monitor._rule_lone_first).
        self._lone_first: tuple[int, Table] | None = None
        # Legal plays made on a pile where a spit card may lie unseen under them
        # (_over_owed_spit), each as the index of its move in `moves`, the table before it and
        # the players whose spit may lie there, until the table shows which card it lay on
        # (_spat_after, _settle_taken_back).
        self._spit_doubts: list[tuple[int, Table, set[str]]] = []
        # Players who owed a spit and were seen making another move since the last call, with
        # the log time it was seen and the spit piles read since (_spit_piles_closed).
        self._moved_on: dict[str, tuple[float, set[str]]] = {}
        # Cards an explanation lays out as a sixth stockpile, and since when (_in_a_hand).
        self._gone_since: dict[str, float] = {}
        # Once the camera shows that end: those slaps and every one since (None when there were
        # none, or once decided), the moment after which the round ended, when "Slap!" was
        # called, and until when a player whose one slap may have been false may still slap
        # again (Monitor._judge_unseen_end).
        self._end_slaps: list[Slap] | None = None
        self._end_since = 0
        self._end_called = 0
        self._end_grace_until: float | None = None
        self._doubted = False  # the candidate followed has a step the referee doubts (_rule)
        self._unsure_loose: list = []  # loose cards a resync's position guessed (_resync)
        self._unsure_tops: set[str] = set()  # spit-pile tops a rebase took as read (_rebase)
        # Those of them the camera never showed as the top: the belief's card left beneath a
        # guess taken away (_take_back_guessed, _end_on_unruled_take_back).
        self._guessed_tops: set[str] = set()
        self._rival_tops: set[str] = set()   # those a resync's rivals differ on (_resync)
        self._rebased: set = set()  # cards a rebase put on the piles, where it guessed
        self._running_at = 0.0
        # The last moves ruled, with the positions before and after them (Judging._apply).
        self._applied: tuple[Scene | None, tuple[Step, ...], Scene | None] = (None, (), None)
        # A game's end ruled while a hand hid part of the table, until the camera shows
        # those zones again (AfterEnd._look_again); None when there is none.
        self._unseen_end = None
        self._restart_branch_sightings()
        self._reset_timers()

    def _restart_branch_sightings(self) -> None:
        """What the zones show from now on, for carrying the candidates forward (the
        `_hidden`, `_seen`, `_shown` of the candidates' position)."""
        self._bhidden: set[str] = set()
        self._bseen: dict[str, list[str]] = {}
        self._bshown: dict[str, set[str]] = {}
        if UNKNOWN not in self.readings.values():
            self._branch_view = (dict(self.readings), set(self._hidden),
                                 {z: list(v) for z, v in self._seen.items()})

    def _observe(self, entry: ObserveInput, out: list[Ruling]) -> None:
        self._observe_table(entry, out)
        self._follow_rivals(entry.t, out)
        self._spit_piles_closed(entry.t)

    def _observe_table(self, entry: ObserveInput, out: list[Ruling]) -> None:
        good = dict(self.readings)
        good_seen = {z: list(v) for z, v in self._seen.items()}
        good_shown = {z: set(v) for z, v in self._shown.items()}
        good_trails = {z: list(v) for z, v in self._trails.items()}
        good_card_seen = dict(self._card_seen_at)
        good_top_seen = dict(self._top_seen_at)
        # What the resync's other positions saw before this line is needed only when it
        # shows the piles gathered (_end_from_held): copied then, not on every line.
        rv = self._rivals if all(entry.readings.get(p, self.readings[p]) == EMPTY
                                 for p in SPIT_PILES) else None
        before = Sightings(good_seen, good_shown, good_trails,
                            set(rv.hidden) if rv else set(),
                            {z: list(v) for z, v in rv.seen.items()} if rv else {},
                            {z: set(v) for z, v in rv.shown.items()} if rv else {})
        self.readings.update(entry.readings)
        for z, r in entry.readings.items():
            if r != UNKNOWN:
                self._unread_tops.discard(z)
            elif z not in self._hidden_at:
                self._hidden_at[z] = entry.t
            # The card this line reads, or the one it last lay there until this line.
            card = r if r not in (UNKNOWN, BACK, EMPTY) else good[z]
            if z in STOCK and card not in (UNKNOWN, BACK, EMPTY):
                self._card_seen_at[z] = (card, entry.t)
            elif z in SPIT_PILES:
                # The card this line reads on top, and the one that lay there until this line.
                for c in {r, good[z]} - {UNKNOWN, BACK, EMPTY}:
                    self._top_seen_at[(z, c)] = entry.t
            _note(z, r, self.phase, self._hidden, self._seen, self._shown)
            if z in STOCK and r != UNKNOWN and self.phase is Phase.PLAYING:
                trail = self._trails.setdefault(z, [])
                if trail[-1:] != [r]:
                    trail.append(r)
            _note(z, r, self.phase, self._bhidden, self._bseen, self._bshown)
            if self._rivals is not None:
                rv = self._rivals
                _note(z, r, self.phase, rv.hidden, rv.seen, rv.shown)
        if self.phase is Phase.OVER and self._counts_uncertain and self._dealt_again():
            self._play_on(entry, out)
        if self.phase is Phase.OVER and self._unseen_end is not None:
            self._look_again(entry, out)
        if self.scene is None or self.phase is Phase.OVER:
            return
        if self.phase is Phase.PLAYING:
            self._timeline.note(self.scene, self.readings)
        readings = dict(self.readings)
        if self._round_gone(readings) and not (
                self._lone_slap_result(entry.t, out)
                or self._end_from_branches(entry, out)
                or self._end_from_held(entry, out, before)):
            self._unseen_round_end(entry, out)
        if self.phase is Phase.OVER:
            if not (self._counts_uncertain and self._dealt_again()):
                return
            # The next deal is on the table already, seen with the end (game 34000196: the
            # piles gathered and round 5 dealt under hands; no zone changed again until the
            # players spat, so the deal was never seen by itself).
            self._play_on(entry, out)
        self._take_back_guessed(readings)
        self._seen_lifted(readings)
        if self.phase is Phase.DEALING:
            for pile in SPIT_PILES:
                if readings[pile] == EMPTY:
                    self._piles_cleared.add(pile)
            self._not_dealt_yet(entry.readings, readings)
            self._fit_layout(entry, readings, out)
            # A slot not dealt yet reads empty where the layout will put cards.
            for z in ALL_ZONES:
                if readings[z] == EMPTY and self.scene.expected(z) == BACK:
                    readings[z] = UNKNOWN
            if not self._layout_fits(readings):
                unread = self._tops_unread_at_spit(readings)
                if unread is None:
                    return  # cards still being gathered or dealt: nothing to rule yet
                if self._ran_on_unseen():
                    self._deal_missed(entry, readings, out)
                    return
                if unread and unread != self._unread_warned:
                    self._unread_warned = unread
                    self._unread_tops = set(unread)
                    self._layout_unread = set(unread)
                    out.append(Ruling(entry.t, RulingKind.WARNING, rule="R5",
                                      message=f"{', '.join(unread)} cannot be read; the "
                                              "referee follows the rest of the table and "
                                              "rules that stockpile once the camera reads it",
                                      extra={"zones": unread}))
                # The players said "Spit!" to start (R8): the unread top is face up, though
                # the belief still has it face down, which would make the spits look false.
                self.scene.table.call_spit()
        if self._warned is not None and all(readings[z] == self.scene.expected(z)
                                            for z, _, _ in self._warned):
            # The zones it could not explain read as believed again: what they showed was
            # put back, as the warning asked (or misread). The rest of the table is explained
            # from the last good state as usual.
            for z, _, _ in self._warned:
                self._seen.pop(z, None)
                self._shown.pop(z, None)
                self._trails.pop(z, None)
            self._warned = None
            self._lost_at = None
        # The table reads as believed: nothing happened, unless something seen meanwhile says
        # cards moved under a hand and came back to look the same.
        if settled(self.scene, readings, self._seen, frozen_shown(self._shown),
                   layout=self.phase is Phase.DEALING):
            self._confirmed(readings, entry.t, out)
            return
        self._call_in_race(entry.t, out)
        # A layout top the camera never read (R5 warning) is not waited for: it may stay
        # unread all round. The search takes it as unknown.
        blind = [z for z in ALL_ZONES if readings[z] == UNKNOWN and z not in self._unread_tops]
        if self._branches is not None:
            if blind:
                return  # the candidates are told apart by the whole table
            if self._follow(entry, readings, out):
                return
        outcome: Outcome = self._explain_from_sure(
            readings, max_nodes=MAX_NODES_BLIND if blind or self._warned else MAX_NODES,
            layout=self.phase is Phase.DEALING)
        if outcome.explanation is None:
            if blind and self.phase is Phase.PLAYING:
                self._rule_in_view(entry, readings, out)
            if blind or self.phase is Phase.DEALING:
                return  # wait until more of the table is visible
            if outcome.ambiguous and self._warned is None:
                if self._branch(entry, readings, out):
                    return
            if (outcome.options and self._lost_at is not None
                    and entry.t - self._lost_at >= RESYNC_AFTER_S):
                self._resync(entry.t, readings, outcome.options, out,
                             complete=outcome.complete and self._warned is None)
                return
            if (self._lost_at is not None and entry.t - self._lost_at >= RESYNC_AFTER_S
                    and self._rebase(entry, readings, out)):
                return
            self._warn_unexplained(entry, outcome, out)
            if _duplicates(self.readings):
                # A card seen twice is bad input (R1): carry on from the readings before it.
                self.readings = good
                self._seen = good_seen
                self._shown = good_shown
                self._trails = good_trails
                self._card_seen_at = good_card_seen
                self._top_seen_at = good_top_seen
            return
        doubts = self._doubts()
        if blind and (doubts.may_hide_a_play(readings, outcome)
                      or doubts.sent_home_unseen(outcome.explanation.steps, readings)
                      or doubts.covered_illegal_near_hidden(outcome.explanation.steps, readings)
                      or doubts.covered_may_be_home(outcome.explanation, readings)
                      or doubts.doubt(outcome.explanation.steps) is not None
                      or (self._prompted and not self._spit_called)
                      or self._warned is not None):
            # Wait: the hand may be hiding what decides the ruling, or (the players were
            # prompted to uncover, R16) whether the forced "Spit!" came first
            # (_call_in_race, once the table is seen whole). Lost, the belief is stale where
            # the table could not be explained, which may be under the hand (demo seed 20:
            # J♦ said to come from the wrong stockpile).
            return
        self._rule(entry, outcome.explanation, readings, out)

    def _branch(self, entry: ObserveInput, readings: Mapping[str, str],
                out: list[Ruling]) -> bool:
        """Several explanations fit a table the camera sees whole, or too many to search
        quickly: search further, and follow them all (referee.branches) if there are few
        enough, instead of warning at once."""
        if self._gathered(readings):
            # A spit pile with cards reads empty: no move empties a pile (R14), so no search
            # explains it (the piles were gathered after a round end the camera missed).
            return False
        outcome = self._explain_from_sure(readings, max_nodes=MAX_NODES_DEEP,
                                          max_options=MAX_BRANCHES)
        one = (one_outcome(outcome.options, self.scene.table)
               if outcome.complete and self._warned is None else None)
        if outcome.explanation is not None or one is not None:
            self._rule(entry, outcome.explanation or one, readings, out)
            return True
        if not outcome.options or not outcome.complete:
            return False
        self._branches = outcome.options
        self._branched_at = entry.t
        self._branch_view = None
        self._restart_branch_sightings()
        return True

    def _follow(self, entry: ObserveInput, readings: Mapping[str, str],
                out: list[Ruling]) -> bool:
        """Carry the candidates forward to this table. One left: rule its moves. None left,
        or too many: give them up and explain the table from the last sure position."""
        followed = follow(self._branches, readings, no_face_down=frozenset(self._bhidden),
                          seen=self._bseen,
                          shown=frozen_shown(self._bshown))
        if followed.undecided:
            # A candidate could not be carried forward within the search budget: wait for the
            # next line, but not for ever; then say the referee has lost track.
            if entry.t - self._branched_at >= RESYNC_AFTER_S:
                self._branches = None
                self._warn_unexplained(entry, Outcome(None, True, len(followed.branches)), out)
            return True
        self._restart_branch_sightings()
        branches = followed.branches
        one = one_outcome(branches, self.scene.table) if self._warned is None else None
        if one is not None:
            branches = (one,)  # candidates that have come to one position by the same moves
        if not branches or len(branches) > MAX_BRANCHES:
            self._branches = None
            return False
        if len(branches) == 1:
            chosen = branches[0]
            if self._doubted and self._doubts().doubt(chosen.steps) is None:
                alone = self._alone_from_sure(chosen, readings)
                if alone is None:
                    # The candidate was a doubted explanation, not a list of every one:
                    # another, with more moves, may fit as well (game 7000026: J♥ taken back
                    # and played legally on Q♠; the candidate had J♥ played illegally on K♦
                    # again).
                    self._hold(entry, chosen, readings, out)
                    return True
                chosen = alone
            elif self._doubted:
                chosen = self._shorter_from_sure(chosen, readings) or chosen
            self._rule(entry, chosen, readings, out)
            return True
        self._branches = branches
        if entry.t - self._branched_at >= RESYNC_AFTER_S:
            self._branches = None
            # Candidates followed from a position the table had already contradicted (a
            # warning stands) may all rest on what it got wrong: none of their moves is sure
            # (game 10000037: "A♣ turned up" that every candidate had, where A♣ was spat). So
            # may candidates followed from one doubted explanation: they are not every order
            # from the last sure position (game 16000055: A♣ "illegal on A♥" and K♦ "moved
            # onto 2♣", where 2♣ had gone on A♥ under a hand and A♣ on it).
            complete = self._warned is None and not self._doubted
            if complete:
                branches, complete = self._every_order(readings, branches)
            self._resync(entry.t, readings, branches, out, complete=complete)
        return True

    def _every_order(self, readings: Mapping[str, str], branches: tuple[Explanation, ...]
                     ) -> tuple[tuple[Explanation, ...], bool]:
        """The candidates followed to `readings` as options for a resync, and whether they
        are every shortest explanation since the last sure position.

        Each candidate was carried forward one table at a time, keeping only its shortest
        continuations, so an order that took more moves to reach an earlier table was
        dropped, though it may explain everything since in fewer. That shows in the ones
        kept as an illegal move the camera did not see, undone, and the card moved again
        (_undoes_unseen; game 7000054: 3♦ "the same rank on 3♠" and 10♣ "stacked on 2♣",
        then 3♦ played on 4♦, 2♣ on 3♦ and 3♣ on 2♣ in every candidate, "3♣ on 2♣" ruled as
        agreed; in truth 2♣ and 3♦ lay under 4♦, and 3♣ went on 4♦). Then a search from the
        last sure position says: every order it lists, or, out of budget, the candidates and
        any order it found they do not hold in as few moves, none of their steps agreed."""
        if not any(self._undoes_unseen(b) for b in branches):
            return branches, True
        every = self._explain_from_sure(readings, max_nodes=MAX_NODES_DEEP,
                                        max_options=MAX_RESYNC_OPTIONS)
        if every.explanation is None and every.options and every.complete:
            return tuple(every.options), True
        found = [every.explanation] if every.explanation is not None else list(every.options)
        keys = {outcome_key(b) for b in branches}
        fewest = min(len(b.steps) for b in branches)
        shorter = [e for e in found if outcome_key(e) not in keys and len(e.steps) <= fewest]
        return tuple(branches) + tuple(shorter), False

    def _undoes_unseen(self, explanation: Explanation) -> bool:
        """`explanation` makes an illegal move the camera did not see as such, undoes it and
        moves the card again (_every_order): a card laid where it has not been seen since
        the last sure position, or moved onto a stockpile's card (R12), which the camera
        cannot tell from a card moved into the slot that card had left."""
        steps = explanation.steps
        for k, s in enumerate(steps):
            if s.verdict.ok or s.returned is not None:
                continue
            to = move_zones(s.move)[1]
            if to is None or not (isinstance(s.move, Refill)
                                  or s.move.card.code not in self._seen.get(to, ())):
                continue
            home = next((j for j in range(k + 1, len(steps)) if steps[j].returned is not None
                         and steps[j].returned.move == s.move), None)
            if home is not None and any(getattr(later.move, "card", None) == s.move.card
                                        and later.returned is None
                                        for later in steps[home + 1:]):
                return True
        return False

    def _alone_from_sure(self, followed: Explanation,
                         readings: Mapping[str, str]) -> Explanation | None:
        """`followed` if it is the one explanation of `readings` from the last sure position;
        or, where every explanation from there makes its moves and leaves its position in an
        order that only changes the card an illegal play landed on, that one outcome, its R10
        rulings naming each such card (doubts.one_outcome; demo seed 20: 4♦ tried on 9♥, or on
        8♦ before 9♥ went there, while a hand hid the pile a spit was due on); else None.

        Or the one explanation from there, where it makes fewer moves than `followed`: the
        candidate's extra moves were the only way to explain an earlier table (a card gone
        from its stockpile and shown nowhere, still in its player's hand, R9), and what the
        camera saw since explains it in fewer. Demo seed 3 (stable_frames 2): P2 lifted 5♥ off
        stockpile 2 while P1's J♥ lay illegally on K♠; the only explanation then was J♥ sent
        home, 5♥ tried on K♠ and J♥ played there again (doubted, Doubts.replayed_over). Then
        the camera saw 5♥ on the pile, J♥ home, A♠ on the pile and 5♥ home: J♥ taken back,
        5♥ tried and taken back, A♠ played, six moves to the candidate's eight. Held to the
        candidate, the referee took its position unruled and lost track of the round's
        counts for the rest of the game."""
        o = self._explain_from_sure(readings, max_nodes=MAX_NODES, max_options=MAX_MERGED)
        if o.explanation is not None:
            if outcome_key(o.explanation) == outcome_key(followed):
                return followed
            return o.explanation if len(o.explanation.steps) < len(followed.steps) else None
        one = one_outcome(o.options, self.scene.table) if o.complete else None
        return one if one is not None and moves_key(one) == moves_key(followed) else None

    def _shorter_from_sure(self, followed: Explanation,
                           readings: Mapping[str, str]) -> Explanation | None:
        """The one explanation of `readings` from the last sure position, where it makes fewer
        moves than `followed`, a doubted explanation carried forward: what the camera saw
        since explains the table in fewer moves than the doubted one now needs, and the doubt
        was the search's shortest explanation missing the truth. Game 1000941 with hands over
        a tenth of the moves: P1's 5♦ went on 4♣ under a hand, P2's 6♣ on it and P1's 7♥
        into the empty slot; "6♣ on 4♣, 7♥ stacked on 5♦" was shorter, and doubted (5♦ gone
        from a hidden stockpile). Once 7♥ was played and the slot seen empty, the doubted
        one needed nine moves where the truth needed six; followed, its position was taken
        after 2 s unruled, and the game's counts lost (37 moves missed). Else None."""
        o = self._explain_from_sure(readings, max_nodes=MAX_NODES)
        e = o.explanation
        return e if e is not None and len(e.steps) < len(followed.steps) else None

    def _explain_from_sure(self, readings: Mapping[str, str], scene: Scene | None = None,
                           **search: Any) -> Outcome:
        """infer.explain from the last sure position (or `scene`, a copy of it), with what the
        zones showed since then."""
        start = self.scene if scene is None else scene
        return explain(start, readings, no_face_down=frozenset(self._hidden), seen=self._seen,
                       shown=frozen_shown(self._shown), trails=self._trails,
                       timeline=self._timeline.since(start), **search)

    def _rule_in_view(self, entry: ObserveInput, readings: Mapping[str, str],
                      out: list[Ruling]) -> None:
        """Rule the moves made in view while a hand hides a spit pile that other moves went
        to. A stockpile whose card left and shows nowhere may have gone onto the hidden pile,
        so it is taken as hidden too; if the rest of the table then has one explanation, of
        legal moves only that nothing hidden could change (no spit: whether it was due
        depends on every top, R16), those moves are ruled now instead of when the hand
        leaves (demo seed 1: a refill seen 10 frames before its ruling)."""
        shown = set(readings.values())
        masked = dict(readings)
        for z in STOCK_ORDER:
            was = self.scene.expected(z)
            if (readings[z] not in (UNKNOWN, was) and was not in (BACK, EMPTY)
                    and was not in shown):
                masked[z] = UNKNOWN
        if masked == readings or all(readings[p] != UNKNOWN for p in SPIT_PILES):
            return
        # What the hidden ones showed meanwhile is for the explanation once they are seen.
        out_of_view = {z for z, r in masked.items() if r == UNKNOWN}
        o = explain(self.scene, masked, no_face_down=frozenset(self._hidden),
                    seen={z: v for z, v in self._seen.items() if z not in out_of_view},
                    shown=frozen_shown({z: v for z, v in self._shown.items()
                                        if z not in out_of_view}),
                    trails={z: v for z, v in self._trails.items() if z not in out_of_view},
                    max_nodes=MAX_NODES_BLIND)
        e = o.explanation
        if (e is None or not e.steps or self._warned is not None
                or not all(s.legal and not isinstance(s.move, Spit) for s in e.steps)
                or self._seen_out_of_view(e, out_of_view)
                or self._doubts().may_hide_a_play(masked, o)
                or (self._prompted and not self._spit_called)):
            return
        trails = {z: v for z, v in self._trails.items() if z in out_of_view}
        seen = {z: v for z, v in self._seen.items() if z in out_of_view}
        shown = {z: v for z, v in self._shown.items() if z in out_of_view}
        was = {z: self.scene.expected(z) for z in out_of_view}
        start = self.scene.copy()
        self._rule(entry, e, masked, out)
        # The moves ruled did not account for what the hidden zones showed (game 4000024: 9♠
        # seen gone from its stockpile and back before the hand came), except on a hidden
        # zone a ruled move came from or went to: what it showed up to its new state is
        # accounted for (demo seed 14: 2♦ moved out of a stockpile a hand had just covered,
        # ruled, and then looked for there again: "cannot explain" for the rest of the round).
        for z in out_of_view & {z for s in e.steps for z in step_zones(s.move)}:
            trail = trails.get(z)
            if trail is not None and passed_whole(start, e.steps, z, trail):
                trails[z] = []
            elif trail is not None:
                since = _since_last(trail, self.scene.expected(z))
                if since is None:
                    before = _since_last(trail, was[z])
                    since = trail if before is None else before[1:]
                trails[z] = since
            if z in seen:
                seen[z] = self._unplaced(z, seen[z])
        self._trails.update({z: v for z, v in trails.items() if v})
        self._seen.update({z: v for z, v in seen.items() if v})
        self._shown.update(shown)

    def _seen_out_of_view(self, e: Explanation, out_of_view: set[str]) -> bool:
        """A card `e` moves was seen on a zone out of view now, which `e` leaves out: what it
        did there (played and taken back, R14) comes before this move, and once the move is
        ruled nothing could explain it (game 47000199, hands over half the moves: P2's 4♣
        tried on J♦ under a hand, taken back and played on 5♥ in view; "4♣ on 5♥" ruled while
        the right pile was hidden, its 4♣ was never explained, and the table was taken as read
        two seconds later). The whole table, once seen, explains both."""
        for s in e.steps:
            card = getattr(s.move, "card", None)
            # (Seen where the move itself takes it from or to is what the move accounts for:
            # demo seed 14, 2♦ seen on stockpile 4 and moved from there under a hand.)
            if card is not None and any(card.code in self._seen.get(z, ())
                                        for z in out_of_view - set(step_zones(s.move))):
                return True
        return False

    def _unplaced(self, zone: str, cards: list[str]) -> list[str]:
        """The cards a stockpile showed that the position still has to account for: its top
        now, and any card the position has not placed (turned up under a hand)."""
        now = self.scene.expected(zone)
        return [c for c in cards if c == now or not self.scene.known(Card.parse(c))]

    def _seen_lifted(self, readings: Mapping[str, str]) -> None:
        """A card lying illegally on a spit pile that the camera shows lifted off (the pile
        reads the card beneath) is in its player's hand now, on the way home (R9, R14), as the
        search's lift has it (candidates.lift), whether or not its stockpile is in view: the
        lift is no ruling, and where the card went is the search's to find. Kept on the pile
        in the belief while its take-back waited for its stockpile (Doubts.sent_home_unseen),
        the card laid on the pile again read as if it had never left (demo seed 14: P1's A♥,
        tried twice on 8♥, ruled once)."""
        if self.phase is not Phase.PLAYING or self._branches is not None:
            return
        for lc in list(self.scene.loose):
            if (lc.at not in SPIT_PILES or lc.home not in STOCK or lc.verdict.ok
                    or not isinstance(lc.move, Play)):
                continue
            if readings.get(lc.at) == shown_without(self.scene, lc) != lc.card.code:
                self.scene.apply(Step(lc.move, lc.verdict, returned=lc, held=True))

    def _confirmed(self, readings: Mapping[str, str], t: float, out: list[Ruling]) -> None:
        # What hidden zones showed before the hand came still counts when they reappear.
        was_hidden = self._hidden
        self._hidden = {z for z in ALL_ZONES if readings[z] == UNKNOWN}
        self._hidden |= _turned_unseen(self.scene, readings, was_hidden, self._hidden)
        self._hidden_at = {z: v for z, v in self._hidden_at.items() if z in self._hidden}
        if (not self._hidden and self.phase is Phase.PLAYING
                and self.scene.table.round_end() is None):
            # The stabiliser reports a zone once it has read the same for its frames up to
            # this line's frame: the round was still on at `t` itself.
            self._running_at = t
            self._late_false_slaps(t, out)
        self._seen = {z: v for z, v in self._seen.items() if z in self._hidden}
        for z in self._seen.keys() & STOCK:
            # A card the position now places (played since) was accounted for, and so was a
            # card seen back home before the position put it on a pile again (game 6000029:
            # A♣ taken back, played again on 4♠ and ruled, then "taken back" once more under
            # a hand and ruled a third time). What still counts: a card nobody has placed
            # (turned up under the hand) and the top still there. (What a zone _rule_in_view
            # left out showed is kept there.)
            self._seen[z] = self._unplaced(z, self._seen[z])
        # A hidden stockpile's readings from the position just confirmed on are still to be
        # explained; what it showed before that position was, backs and empties included
        # (demo seed 11: P2's J♥ taken back to stockpile 3 under a hand, the slot seen empty
        # on the way; "empty" kept, 8♣ then played from stockpile 5 could not be explained).
        trails = {}
        for z, trail in self._trails.items():
            since = _since_last(trail, self.scene.expected(z))
            if z in self._hidden and since is not None:
                trails[z] = since
        self._trails = trails
        self._shown = {z: v & set(trails[z]) for z, v in self._shown.items()
                       if z in trails and v & set(trails[z])}
        self._timeline.reset(self.scene)
        self._warned = None
        self._lost_at = None
        self._branches = None
        self._doubted = False
        if self.phase is Phase.DEALING:
            table = self.scene.table
            if all(s.up is not None or s.down == 0 for p in PLAYERS for s in table.slots[p]):
                self._deal_ruling(t, out)


def _turned_unseen(scene: Scene, readings: Mapping[str, str], was_hidden: set[str],
                   hidden: set[str]) -> set[str]:
    """Stockpiles back in view that read face-down as before, while a zone their card could
    have gone to under the same hand is still hidden (one of the player's stockpiles, or a
    spit pile): the top may have been turned up unseen and moved there, a face-down card
    showing beneath it (R11, R12). They count as hidden until the next confirmed position
    (demo seed 18: P2 turned up 9♠ on stockpile 4 and moved it into the empty stockpile 2
    under one hand; stockpile 4 showed a back before and after, and with it taken as
    unchanged 9♠ "appeared from nowhere" and the referee lost the round)."""
    out = set()
    for z in (was_hidden - hidden) & STOCK:
        player = zone_owner(z)
        if (readings[z] == BACK and scene.expected(z) == BACK
                and scene.table.slots[player][stock_index(z)].down > 1
                and any(w in SPIT_PILES or w in STOCK_ZONES[player] for w in hidden)):
            out.add(z)
    return out


def _note(zone: str, reading: str, phase: Phase, hidden: set[str],
          seen: dict[str, list[str]], shown: dict[str, set[str]]) -> None:
    """Record what a zone read: hidden, a card it showed, or a stockpile's back / empty."""
    if reading == UNKNOWN:
        hidden.add(zone)
    elif reading in (BACK, EMPTY):
        # (While a layout is being dealt, slots read empty before their cards arrive.)
        if zone in STOCK and phase is Phase.PLAYING:
            shown.setdefault(zone, set()).add(reading)
        elif phase is Phase.DEALING:
            # The last round's cards, gathered: what the zone showed before is not this deal's.
            seen.pop(zone, None)
    elif reading not in seen.setdefault(zone, []):
        seen[zone].append(reading)


def _since_last(trail: list[str], state: str) -> list[str] | None:
    """`trail` from the last time it showed `state` on, or None if it never did."""
    if state not in trail:
        return None
    return trail[len(trail) - 1 - trail[::-1].index(state):]


def _duplicates(readings: Mapping[str, str]) -> bool:
    cards = [r for r in readings.values() if r not in (BACK, EMPTY, UNKNOWN)]
    return len(cards) != len(set(cards))

