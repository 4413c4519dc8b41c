"""The live rules monitor: event-log lines in (`start`, `observe`, `slap`), rulings out.

Pure and deterministic: the same lines give the same rulings, so every game replays from its
log. The monitor keeps the camera's latest reading of every zone and its belief about the table
(`referee.infer.Scene`: the rules engine's Table plus cards lying where they do not belong).
After each line it asks `infer.explain` which moves turned the belief into what the camera
shows, judges each with `Table.check`, and rules. When zones are hidden (`?`) and the moves are
not certain, it waits; a line it cannot use gives a `warning` naming the line, and the monitor
carries on from its last good state. Time-driven calls (R16 spit, R23 slap) use log time.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from functools import reduce
from enum import Enum
from typing import Any, Mapping

from referee.branches import MAX_BRANCHES, follow
from referee.cards import Card
from referee.doubts import (SPIT_BENEATH, Doubts, illegal_in_every_order, on_any_of,
                            one_outcome, r10_alike,
                            spit_free_of_counts)
from referee.game import (START_COUNT, Game, RoundResult, counts_fitting_layouts,
                          slap_needed, standard_winner)
from referee.infer import (MAX_NODES, MAX_NODES_BLIND, MAX_NODES_DEEP, SIXTH_SLOT, Explanation,
                           Loose, Outcome, Scene, Step, assumed_side, cards_on, explain,
                           may_spit_here, mismatches, outcome_key, position_key, settled)
from referee.log import LogLineError, LogReader, ObserveInput, RulingRecord, SlapInput, StartInput
from referee.moves import Play, Refill, Spit, TakeBack, TurnUp
from referee.rebase import rebase
from referee.rivals import Rivals
from referee.rules import RulesConfig, Variant
from referee.rulings import Ruling, RulingKind, pretty
from referee.slaps import (DEFAULT_TIE_WINDOW_NS, Slap, SlapArbiter, SlapOutcome,
                           SlapVerdictKind, pile_words, unseen_end_outcome)
from referee.state import DEFAULT_SIDE, LAYOUT_PILES, RoundEnd, Table
from referee.steps import (R10_KINDS, advance, illegal_steps, move_zones, ruling_for, stacked,
                           step_keys, step_zones, top_beneath)
from referee.timeline import Timeline
from referee.unseen_spit import round_result, spat_unseen
from referee.zones import ALL_ZONES, BACK, EMPTY, PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN

NS_PER_S = 1_000_000_000
_STOCK_ORDER = tuple(z for p in PLAYERS for z in STOCK_ZONES[p])
_STOCK = frozenset(_STOCK_ORDER)
# Layout tops the camera may fail to read while the round still starts (see
# Monitor._tops_unread_at_spit): one unreadable card must not stop the referee for a round,
# and with more than two unread the referee would follow too little of the table to be useful.
MAX_UNREAD_TOPS = 2
# A hand over a stockpile can keep a move from the camera for a while after it is made (a hand
# lingers up to 0.6 s, referee.obslog.ObsConfig.hand_after_s): a forced "Spit!" falling due
# that close after a move was seen may in truth have come before it.
CALL_RACE_S = 0.6
# How long the referee keeps the last position it was sure of, waiting for the moves to become
# clear (a card taken back, a card seen from under another), before it takes a position that
# one of several explanations leaves (Monitor._resync): most ambiguities clear within a second
# or two, and the position it was sure of is the better one to follow the table from.
RESYNC_AFTER_S = 2.0
# More explanations of a table seen whole than the monitor follows (MAX_BRANCHES): it gets back
# in step at once (Monitor._resync) if the search lists them all, up to this many.
MAX_RESYNC_OPTIONS = 32
# A slap made while a hand hid the round's last card may have come before it (a false slap,
# R18), and the player then slaps again once they see the end: players slap within a second of
# seeing it (the simulated ones 0.3 s), so a result that counts such a slap waits this long
# after "Slap!" for a second one (Monitor._judge_unseen_end).
EARLY_SLAP_GRACE_S = 1.5


@dataclass(frozen=True)
class MonitorConfig:
    """`settle_s`: how long R16 must hold (seconds of log time) before the referee calls "Spit!"
    (R23); 1.5 s lets players see the table is blocked without slowing the game. When only
    moves that uncover a card are left (R16 Decision), the player is prompted after one settle
    time and spit is called after a second. `tie_window_ns`: slaps on one pile closer than this
    are too close to call (R18; referee.slaps explains the 0.5 ms)."""

    rules: RulesConfig = field(default_factory=RulesConfig)
    settle_s: float = 1.5
    tie_window_ns: int = DEFAULT_TIE_WINDOW_NS
    # From a card landing to its observation line: the vision stabiliser's 3 frames at 30 fps.
    # Settle times run from when a move was made, so this is taken off the time it was seen.
    latency_s: float = 0.1


class _Call(Enum):
    """The timed call a blocked table waits for (R16, R23)."""

    SPIT = "spit"        # R16 holds: "Spit!" after the settle time
    UNCOVER = "uncover"  # only uncovering moves are left: prompt, then a forced "Spit!"


class Phase(Enum):
    DEALING = "dealing"      # waiting for the layout of a round to be laid out and turned up
    PLAYING = "playing"
    SLAPPING = "slapping"    # R17 holds, "Slap!" called, waiting for both slaps (R18)
    OVER = "over"            # game over


@dataclass(frozen=True)
class InferredMove:
    """One step the monitor inferred, with the time of the observation that showed it."""

    t: float
    step: Step
    round: int
    dealing: bool = False  # inferred while the layout was being laid out (the R5 tops)
    # One of several sequences that fit (Monitor._resync): not ruled, but it takes its place
    # in the order of the cards on a pile.
    unsure: bool = False
    # The card a play or spit landed on as the referee believed it (its ruling names it), or
    # "empty"; None for other moves and for steps not ruled one by one.
    beneath: str | None = None


@dataclass(frozen=True)
class _Sightings:
    """What the zones showed since the last sure position (`seen`, `shown`, `trails`) and
    since the resync's other positions were last carried forward (`r_*`, referee.rivals), as
    they stood before an observation."""

    seen: dict[str, list[str]]
    shown: dict[str, set[str]]
    trails: dict[str, list[str]]
    r_hidden: set[str]
    r_seen: dict[str, list[str]]
    r_shown: dict[str, set[str]]


class Monitor:
    """Feed it log lines in order with `feed`; it returns the rulings each line causes."""

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

    # --- input ------------------------------------------------------------------------------

    def feed(self, line: str | Mapping[str, Any], lineno: int | None = None) -> list[Ruling]:
        """One log line in; the rulings it causes out (also appended to `self.rulings`).
        `lineno`: the line's number in its file, when the caller skips blank lines."""
        out: list[Ruling] = []
        try:
            entry = self.reader.read(line, lineno)
        except LogLineError as exc:
            out.append(Ruling(self.t, RulingKind.WARNING, message=str(exc),
                              extra={"line": exc.lineno}))
            self.rulings.extend(out)
            return out
        if isinstance(entry, RulingRecord):
            return out
        self.t = entry.t
        self._tick(entry.t, out)
        if isinstance(entry, StartInput):
            self._start(entry, out)
        elif isinstance(entry, ObserveInput):
            if not self._started:
                self._new_round(entry.t, out)
            self._observe(entry, out)
        elif isinstance(entry, SlapInput):
            self._slap(entry, out)
        self._tick(entry.t, out)
        self.rulings.extend(out)
        return out

    # --- rounds -----------------------------------------------------------------------------

    def _start(self, entry: StartInput, out: list[Ruling]) -> None:
        self.game = Game(self.config.rules)
        self.game.counts = dict(entry.counts)
        self._counts_uncertain = self._counts_stand_in = False
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
        self._seen: dict[str, list[str]] = {}   # cards each zone showed since then
        self._shown: dict[str, set[str]] = {}   # back / empty each stockpile showed since then
        self._trails: dict[str, list[str]] = {}  # all each stockpile showed since then, in order
        self._piles_cleared: set[str] = set()    # spit piles seen empty since the round ended
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
        self._restart_branch_sightings()
        self._reset_timers()

    def _restart_branch_sightings(self) -> None:
        """What the zones show from now on, for carrying the candidates forward (the
        `_hidden`, `_seen`, `_shown` of the candidates' position)."""
        self._bhidden: set[str] = set()
        self._bseen: dict[str, list[str]] = {}
        self._bshown: dict[str, set[str]] = {}

    def _reset_timers(self, changed_at: float | None = None,
                      changed_early: float | None = None) -> None:
        self._changed_at = changed_at  # log time of the last legal move (R16 timer)
        # The earliest it may have been made (it was made under a hand): the call it times may
        # in truth have come that much earlier (_call_in_race).
        self._changed_early = changed_at if changed_early is None else changed_early
        self._prompted = False
        self._spit_called = False
        self._forced_at: float | None = None  # log time of a forced "Spit!" (_force_spit)

    # --- observations -----------------------------------------------------------------------

    def _observe(self, entry: ObserveInput, out: list[Ruling]) -> None:
        self._observe_table(entry, out)
        self._follow_rivals(entry.t, out)
        self._spit_piles_closed(entry.t)

    def _spit_piles_closed(self, t: float) -> None:
        """A player spits before playing on (R16: each turns a spit card, then play resumes).
        So a player who owed a spit and was seen making another move had spat, if at all,
        before it; a spit pile read after that shows the card the spit may lie under, if it
        is not that card: no card played there later covers it (_over_owed_spit)."""
        for since, piles in self._moved_on.values():
            if t > since:
                piles.update(p for p in SPIT_PILES if self.readings[p] != UNKNOWN)

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

    def _observe_table(self, entry: ObserveInput, out: list[Ruling]) -> None:
        good = dict(self.readings)
        good_seen = {z: list(v) for z, v in self._seen.items()}
        good_shown = {z: set(v) for z, v in self._shown.items()}
        good_trails = {z: list(v) for z, v in self._trails.items()}
        # What the resync's other positions saw before this line is needed only when it
        # shows the piles gathered (_end_from_held): copied then, not on every line.
        rv = self._rivals if all(entry.readings.get(p, self.readings[p]) == EMPTY
                                 for p in SPIT_PILES) else None
        before = _Sightings(good_seen, good_shown, good_trails,
                            set(rv.hidden) if rv else set(),
                            {z: list(v) for z, v in rv.seen.items()} if rv else {},
                            {z: set(v) for z, v in rv.shown.items()} if rv else {})
        self.readings.update(entry.readings)
        for z, r in entry.readings.items():
            if r != UNKNOWN:
                self._unread_tops.discard(z)
            elif z not in self._hidden_at:
                self._hidden_at[z] = entry.t
            _note(z, r, self.phase, self._hidden, self._seen, self._shown)
            if z in _STOCK and r != UNKNOWN and self.phase is Phase.PLAYING:
                trail = self._trails.setdefault(z, [])
                if trail[-1:] != [r]:
                    trail.append(r)
            _note(z, r, self.phase, self._bhidden, self._bseen, self._bshown)
            if self._rivals is not None:
                rv = self._rivals
                _note(z, r, self.phase, rv.hidden, rv.seen, rv.shown)
        if self.phase is Phase.OVER and self._counts_uncertain and self._dealt_again():
            self._play_on(entry, out)
        if self.scene is None or self.phase is Phase.OVER:
            return
        if self.phase is Phase.PLAYING:
            self._timeline.note(self.scene, self.readings)
        readings = dict(self.readings)
        if self._round_gone(readings) and not (
                self._end_from_branches(entry, out)
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
        if self.phase is Phase.DEALING:
            self._fit_layout(entry, readings, out)
            for pile in SPIT_PILES:
                if readings[pile] == EMPTY:
                    self._piles_cleared.add(pile)
            # A slot not dealt yet reads empty where the layout will put cards.
            for z in ALL_ZONES:
                if readings[z] == EMPTY and self.scene.expected(z) == BACK:
                    readings[z] = UNKNOWN
            if not self._layout_fits(readings):
                unread = self._tops_unread_at_spit(readings)
                if not unread:
                    return  # cards still being gathered or dealt: nothing to rule yet
                if unread != self._unread_warned:
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
        if settled(self.scene, readings, self._seen, _frozen(self._shown),
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
            return
        doubts = self._doubts()
        if blind and (doubts.may_hide_a_play(readings, outcome)
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
        if outcome.options and not outcome.complete:
            # Too many to follow: if the search can list them all, get back in step now,
            # from a table seen whole, instead of waiting while more moves pile up out of
            # sight until none can be put in order (game 2000007: ten orders of P2's 8♣, 9♠,
            # 8♥ and P1's 7♠, then a rebase that lost the rest of the game's counts).
            every = self._explain_from_sure(readings, max_nodes=MAX_NODES_DEEP,
                                            max_options=MAX_RESYNC_OPTIONS)
            if every.explanation is None and every.options and every.complete:
                self._resync(entry.t, readings, every.options, out, complete=True)
                return True
        if not outcome.options or not outcome.complete:
            return False
        self._branches = outcome.options
        self._branched_at = entry.t
        self._restart_branch_sightings()
        return True

    def _follow(self, entry: ObserveInput, readings: Mapping[str, str],
                out: list[Ruling]) -> bool:
        """Carry the candidates forward to this table. One left: rule its moves. None left,
        or too many: give them up and explain the table from the last sure position."""
        followed = follow(self._branches, readings, no_face_down=frozenset(self._bhidden),
                          seen=self._bseen,
                          shown=_frozen(self._bshown))
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
            if (self._doubted and self._doubts().doubt(branches[0].steps) is None
                    and not self._alone_from_sure(branches[0], readings)):
                # The candidate was a doubted explanation, not a list of every one: another,
                # with more moves, may fit as well (game 7000026: J♥ taken back and played
                # legally on Q♠; the candidate had J♥ played illegally on K♦ again).
                self._hold(entry, branches[0], readings, out)
                return True
            self._rule(entry, branches[0], readings, out)
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

    def _alone_from_sure(self, followed: Explanation, readings: Mapping[str, str]) -> bool:
        """`followed` is the one explanation of `readings` from the last sure position."""
        o = self._explain_from_sure(readings, max_nodes=MAX_NODES, max_options=2)
        return o.explanation is not None and outcome_key(o.explanation) == outcome_key(followed)

    def _explain_from_sure(self, readings: Mapping[str, str], scene: Scene | None = None,
                           **search: Any) -> Outcome:
        """infer.explain from the last sure position (or `scene`, a copy of it), with what the
        zones showed since then."""
        start = self.scene if scene is None else scene
        return explain(start, readings, no_face_down=frozenset(self._hidden), seen=self._seen,
                       shown=_frozen(self._shown), trails=self._trails,
                       timeline=self._timeline.since(start), **search)

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
        explanation, alike = doubts.alike_in_rivals(explanation)
        doubt = doubts.doubt(explanation.steps, alike)
        if doubt is None:
            self._branches = None
            self._apply(entry.t, explanation.steps, explanation.scene, out, named=alike)
            self._confirmed(readings, entry.t, out)
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
            explanation, sure = doubts.either_way(explanation)
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
                return self._hold(entry, explanation, readings, out)
            looks = "; ".join(s.verdict.message for s in (
                illegal_steps(explanation.steps) or [s for s in explanation.steps
                                                if isinstance(s.move, (Play, Spit))]))
            out.append(Ruling(entry.t, RulingKind.WARNING,
                              message=f"line {entry.lineno}: not ruled: {looks} — but {doubt}",
                              extra={"line": entry.lineno, "doubt": True}))
        self._hold(entry, explanation, readings, out)

    def _doubts(self) -> Doubts:
        """The monitor's state as referee.doubts reads it, now: why a change may not be what
        the search explains, and which rulings hold anyway."""
        return Doubts(scene=self.scene, readings=self.readings, hidden=self._hidden,
                      seen=self._seen, counts_uncertain=self._counts_uncertain,
                      spitless=self._spitless, provisional=self._provisional,
                      uncertain_zones=self._uncertain_zones, lost=self._warned is not None,
                      rivals=self._rivals)

    def _in_a_hand(self, t: float, explanation: Explanation) -> bool:
        """`explanation` lays a card out as a sixth stockpile (R13) because it shows in no
        zone, and it has not been gone for the settle time yet. A card a player moves from
        one stockpile to another (R12) is in their hand on the way, out of every zone for a
        moment, and the camera may see the whole table meanwhile (the demo with cards carried
        in the hand: two refills ruled "sixth stockpile"). The referee waits; the card
        showing on a stockpile is then a refill. Gone longer, it was laid out (R13)."""
        gone = {s.move.card.code for s in explanation.steps
                if isinstance(s.move, Refill) and s.move.to_slot >= SIXTH_SLOT}
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
            self._restart_branch_sightings()
        elif entry.t - self._branched_at >= RESYNC_AFTER_S:
            self._branches = None
            self._resync(entry.t, readings, (explanation,), out)
            return
        self._branches = (explanation,)

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
        5♣ illegal ends the round with P2's last card, 4♠). Else False."""
        ended = [b for b in self._branches or () if b.scene.table.round_end() is not None]
        if not ended or len({position_key(b.scene) for b in ended}) > 1:
            return False
        chosen = ended[0]
        if self._doubts().doubt(chosen.steps) is not None or (
                len(ended) > 1 and len({outcome_key(b) for b in ended}) > 1):
            return False
        table = chosen.scene.table
        since, early = self._slaps_since_running()
        if slap_needed(table, table.round_end()) and not isinstance(
                unseen_end_outcome(since, early, self.config.tie_window_ns), SlapOutcome):
            return False
        self._branches = None
        self._apply(entry.t, chosen.steps, chosen.scene, out)
        if self._end_slaps is not None:
            self._end_grace_until = None  # the piles are gathered: nobody slaps again
            self._judge_unseen_end(entry.t, out)
        return True

    def _end_from_held(self, entry: ObserveInput, out: list[Ruling], before: _Sightings) -> bool:
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
                                shown=_frozen(before.shown), trails=before.trails)
            if found is None:
                return False
            options += found
        else:
            followed = follow(rivals.branches, target, no_face_down=frozenset(before.r_hidden),
                              seen=before.r_seen, shown=_frozen(before.r_shown))
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
        unsure = set(range(len(chosen.steps)))
        if spitters:
            keys = [Counter(step_keys(st.table, e.steps)) for st, e in ended]
            agreed = reduce(lambda x, y: x & y, keys)
            for k, key in enumerate(step_keys(start.table, chosen.steps)):
                if agreed[key] > 0:
                    agreed[key] -= 1
                    unsure.discard(k)
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
                and all(r[z] not in (UNKNOWN, BACK) for z in _STOCK_ORDER)
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
        for z in _STOCK_ORDER:
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
                    shown=_frozen({z: v for z, v in self._shown.items() if z not in out_of_view}),
                    trails={z: v for z, v in self._trails.items() if z not in out_of_view},
                    max_nodes=MAX_NODES_BLIND)
        e = o.explanation
        if (e is None or not e.steps or self._warned is not None
                or not all(s.legal and not isinstance(s.move, Spit) for s in e.steps)
                or self._doubts().may_hide_a_play(masked, o)
                or (self._prompted and not self._spit_called)):
            return
        trails = {z: v for z, v in self._trails.items() if z in out_of_view}
        seen = {z: v for z, v in self._seen.items() if z in out_of_view}
        was = {z: self.scene.expected(z) for z in out_of_view}
        self._rule(entry, e, masked, out)
        # The moves ruled did not account for what the hidden zones showed (game 4000024: 9♠
        # seen gone from its stockpile and back before the hand came), except on a hidden
        # zone a ruled move came from or went to: what it showed up to its new state is
        # accounted for (demo seed 14: 2♦ moved out of a stockpile a hand had just covered,
        # ruled, and then looked for there again: "cannot explain" for the rest of the round).
        for z in out_of_view & {z for s in e.steps for z in step_zones(s.move)}:
            trail = trails.get(z)
            if trail is not None:
                since = _since_last(trail, self.scene.expected(z))
                if since is None:
                    before = _since_last(trail, was[z])
                    since = trail if before is None else before[1:]
                trails[z] = since
            if z in seen:
                seen[z] = self._unplaced(z, seen[z])
        self._trails.update({z: v for z, v in trails.items() if v})
        self._seen.update({z: v for z, v in seen.items() if v})

    def _rebase(self, entry: ObserveInput, readings: Mapping[str, str],
                out: list[Ruling]) -> bool:
        """Lost for RESYNC_AFTER_S with no explanation to resync to (too many moves out of
        sight to put in order): take the table as the camera reads it (referee.rebase) and
        follow it from there. Where the cards went that nobody saw is not known, so the card
        counts are uncertain from here: only legal moves and R10 plays are ruled, until a
        start line."""
        if self.phase is not Phase.PLAYING or self._gathered(readings):
            return False
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

    def _unplaced(self, zone: str, cards: list[str]) -> list[str]:
        """The cards a stockpile showed that the position still has to account for: its top
        now, and any card the position has not placed (turned up under a hand)."""
        now = self.scene.expected(zone)
        return [c for c in cards if c == now or not self.scene.known(Card.parse(c))]

    def _tops_unread_at_spit(self, readings: Mapping[str, str]) -> list[str]:
        """The layout's unread stockpiles when the players have spat (R8) though the camera
        has not read every top, else none: both piles were seen cleared since the round ended
        (so their cards are new spit cards, not the last round's piles), both show a card now,
        and at most MAX_UNREAD_TOPS stockpiles are unread. Waiting for those would stop the
        referee for the whole round."""
        if self._piles_cleared != set(SPIT_PILES):
            return []
        if any(readings[p] in (EMPTY, BACK, UNKNOWN) for p in SPIT_PILES):
            return []
        unread = [z for z in _STOCK_ORDER if readings[z] == UNKNOWN]
        return unread if len(unread) <= MAX_UNREAD_TOPS else []

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
        if not (self._counts_uncertain or self._counts_stand_in):
            return
        if any(readings[z] in (UNKNOWN, BACK) for z in _STOCK_ORDER):
            return
        piles: dict[str, int] = {}
        for p in PLAYERS:
            shown = [readings[z] != EMPTY for z in STOCK_ZONES[p]]
            if shown != sorted(shown, reverse=True):
                return  # a gap in the layout: not an R7 deal, nothing to fit
            piles[p] = sum(shown)
        self._spitless = {p for p in PLAYERS if 0 < piles[p] < len(LAYOUT_PILES)}
        old = self.scene.table
        if piles == {p: sum(1 for s in old.slots[p] if s.count) for p in PLAYERS}:
            return
        counts = counts_fitting_layouts(piles, self.game.counts)
        if counts is None:
            return
        self.game.counts = counts
        table = Table(self.config.rules, counts)
        for p in PLAYERS:
            for i, s in enumerate(old.slots[p]):
                if s.up is not None and table.slots[p][i].down:
                    table.apply(TurnUp(p, i, s.up))
        self.scene = Scene(table)
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

    def _layout_fits(self, readings: Mapping[str, str]) -> bool:
        """During a deal the spit piles are empty and the stock zones hold cards or backs."""
        for pile in SPIT_PILES:
            if readings[pile] not in (EMPTY, UNKNOWN):
                return False
        return True

    def _confirmed(self, readings: Mapping[str, str], t: float, out: list[Ruling]) -> None:
        # What hidden zones showed before the hand came still counts when they reappear.
        self._hidden = {z for z in ALL_ZONES if readings[z] == UNKNOWN}
        self._hidden_at = {z: v for z, v in self._hidden_at.items() if z in self._hidden}
        if (not self._hidden and self.phase is Phase.PLAYING
                and self.scene.table.round_end() is None):
            # The stabiliser reports a zone once it has read the same for its frames up to
            # this line's frame: the round was still on at `t` itself.
            self._running_at = t
            self._late_false_slaps(t, out)
        self._seen = {z: v for z, v in self._seen.items() if z in self._hidden}
        for z in self._seen.keys() & _STOCK:
            # A card the position now places (played since) was accounted for, and so was a
            # card seen back home before the position put it on a pile again (game 6000029:
            # A♣ taken back, played again on 4♠ and ruled, then "taken back" once more under
            # a hand and ruled a third time). What still counts: a card nobody has placed
            # (turned up under the hand) and the top still there. (What a zone _rule_in_view
            # left out showed is kept there.)
            self._seen[z] = self._unplaced(z, self._seen[z])
        self._shown = {z: v for z, v in self._shown.items() if z in self._hidden}
        # A hidden stockpile's readings from the position just confirmed on are still to be
        # explained; what it showed before that position was.
        trails = {}
        for z, trail in self._trails.items():
            since = _since_last(trail, self.scene.expected(z))
            if z in self._hidden and since is not None:
                trails[z] = since
        self._trails = trails
        self._timeline.reset(self.scene)
        self._warned = None
        self._lost_at = None
        self._branches = None
        self._doubted = False
        if self.phase is Phase.DEALING:
            table = self.scene.table
            if all(s.up is not None or s.down == 0 for p in PLAYERS for s in table.slots[p]):
                self._deal_ruling(t, out)

    def _deal_ruling(self, t: float, out: list[Ruling]) -> None:
        self.phase = Phase.PLAYING
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
        out.append(Ruling(t, RulingKind.DEAL, rule=rule,
                          message=f"Round {self.game.round} dealt: {words} ({rule}) — "
                                  "say \"Spit!\" together when ready (R8)",
                          extra=extra))

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

    # --- rulings for inferred steps -----------------------------------------------------------

    def _apply(self, t: float, steps: tuple[Step, ...], scene: Scene, out: list[Ruling],
               spits_unsure: bool = False, unsure: frozenset[int] = frozenset(),
               named: frozenset = frozenset()) -> None:
        """Rule `steps`, which lead from the position to `scene`, and take it. Spits (with
        `spits_unsure`) and the steps numbered in `unsure` are followed, not ruled. The moves
        in `named` are ruled naming every card they may have landed on (Doubts.alike_in_rivals)."""
        before = self.scene.table
        first = len(self.moves)
        if self._rivals is not None:
            self._rivals.advance(steps)
        if self.phase is Phase.DEALING and any(not isinstance(s.move, TurnUp) for s in steps):
            self._deal_ruling(t, out)
        for k, step in enumerate(steps):
            # With uncertain counts, who still holds spit cards is not known, and so neither
            # is which player a spit card came from (R8), nor always whether it was due:
            # spits are followed, not ruled, unless spit_free_of_counts.
            counts_unsure = (isinstance(step.move, Spit) and self._counts_uncertain
                             and not spit_free_of_counts(step, before, steps, self._spitless))
            not_ruled = k in unsure or (isinstance(step.move, Spit) and (
                spits_unsure or counts_unsure) or (
                step.move not in named and self._on_unsure_card(step, before)))
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
                STOCK_ZONES[step.move.player][step.move.slot] in self._layout_unread)
            if layout:
                self._layout_unread.discard(STOCK_ZONES[step.move.player][step.move.slot])
            self.moves.append(InferredMove(t, step, self.game.round,
                                           self.phase is Phase.DEALING or layout,
                                           unsure=not_ruled,
                                           beneath=top_beneath(before, step)))
            ruling = None if not_ruled else ruling_for(t, step, before)
            if ruling is not None:
                out.append(ruling)
            before = before.copy()
            advance(before, step)
        self.scene = scene
        self._say_doubted(t, first, out)
        if self._race_call:
            self._after_race_call(steps)
        moved = [s for s in steps if s.legal or (
            s.returned is not None and isinstance(s.move, Spit) and s.verdict.ok)]
        if moved:
            # A move made under a hand was made at the latest when it was seen, at the
            # earliest when the hand came over its zones.
            early = min((self._hidden_at[z] for s in moved for z in step_zones(s.move)
                         if z in self._hidden and z in self._hidden_at), default=t)
            self._reset_timers(t - self.config.latency_s, early - self.config.latency_s)
        if self.phase is Phase.PLAYING:
            self._check_round_end(t, out)

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
                                      "— the referee rules it once the table shows which",
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

    def _check_round_end(self, t: float, out: list[Ruling]) -> None:
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
            out.append(Ruling(t, RulingKind.SLAP_CALL, rule="R23",
                              message=f"{end.message} — Slap!"))
            self._early_slaps(t, out)
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

    def _early_slaps(self, t: float, out: list[Ruling]) -> None:
        """The camera shows the round over (R17) only now, because a hand hid the last card
        landing, and the players slapped meanwhile: those slaps were made after the referee
        last saw the whole table with the round still on. The round ended at a moment the
        camera did not show, after that: a slap before it was false (R18), and the player then
        slaps again; a slap after it counts (players slap when they see the last card land).
        They are judged with the slaps still to come (_judge_unseen_end)."""
        since, early = self._slaps_since_running()
        self._unsure_slaps = []
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
            out.append(Ruling(t, RulingKind.FALSE_SLAP, player=slap.player, to=slap.pile,
                              rule="R18",
                              message=f"False slap: {slap.player.upper()} slapped "
                                      f"{pile_words(slap.pile)} at {slap.t_ns / NS_PER_S:.3f} s, "
                                      "before \"Slap!\": the camera now shows the round was "
                                      "still on then (R18)",
                              extra={"illegal_kind": "false-slap", "slap_t_ns": slap.t_ns}))

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
        result: RoundResult = self.game.finish_round(table, slap)
        extra: dict[str, Any] = {"round": result.number, "cards": dict(result.counts),
                                 "piles": dict(result.piles_taken)}
        if self.config.rules.variant is Variant.POINTS:
            extra["scores"] = dict(result.scores)
        message = f"{end.message}. {result.message}"
        if self._counts_doubtful or self._counts_uncertain:
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
        out.append(Ruling(t, RulingKind.ROUND_OVER, rule=end.rule, message=message,
                          extra=extra))
        self.arbiter.disarm()
        if result.game_over is not None:
            over = result.game_over
            extra = {"winner": over.winner, "scores": dict(over.scores)}
            message = over.message
            if self._counts_uncertain:
                # Who won follows from the counts, which the referee may have wrong.
                extra["uncertain"] = True
                message += (" — if the counts are right: the referee lost track of some moves "
                            "this game, so count your cards; if the game goes on, the referee "
                            "follows the next deal, and a start line with the true counts has "
                            "every move ruled again")
            out.append(Ruling(t, RulingKind.GAME_OVER, player=over.winner, rule=over.rule,
                              message=message, extra=extra))
            self.phase = Phase.OVER
            return
        self._new_round(t, out)

    # --- slaps --------------------------------------------------------------------------------

    def _slap(self, entry: SlapInput, out: list[Ruling]) -> None:
        slap = Slap(entry.t_ns, entry.player, entry.pile)
        if self._end_slaps is not None and self.phase is Phase.SLAPPING:
            self._end_slaps.append(slap)
            self._judge_unseen_end(entry.t, out)
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
                out.append(Ruling(entry.t, RulingKind.WARNING, player=entry.player,
                                  to=entry.pile, rule="R18",
                                  message=f"{entry.player.upper()} slapped before \"Slap!\", but "
                                          "the referee has not followed the table to this "
                                          "point, so it does not call the slap false yet "
                                          "(R18)"))
                return
            out.append(Ruling(entry.t, RulingKind.FALSE_SLAP, player=entry.player,
                              to=entry.pile, rule="R18", message=verdict.message,
                              extra={"illegal_kind": "false-slap"}))
            return
        if verdict.kind is not SlapVerdictKind.COUNTED or self.phase is not Phase.SLAPPING:
            return
        self._slap_result(entry.t, out)

    def _slap_result(self, t: float, out: list[Ruling],
                     early: SlapOutcome | None = None) -> None:
        """The slap race's ruling once both players have slapped (R18); "Slap again!" when it
        is too close to call. `early`: the outcome of slaps that came while a hand hid the
        last card landing (_judge_unseen_end)."""
        outcome = early or self.arbiter.decision()
        if outcome is None:
            return  # the other player's slap is still to come
        extra: dict[str, Any] = {"piles": dict(outcome.piles),
                                 "margin_ms": round(outcome.margin_ms, 6)}
        if early:
            extra["early"] = True
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
                 if lc.home in _STOCK or lc.home.startswith("down:")}
        return any(p not in loose and all(self.readings[z] == EMPTY for z in STOCK_ZONES[p])
                   for p in PLAYERS)

    # --- time: spit calls (R16, R23) ----------------------------------------------------------

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
        """Something changed just before the forced "Spit!" (R16 Decision) fell due. A hand can
        hide a move for a while, so the referee sees it up to CALL_RACE_S late: the call may
        in truth have come first, and spits made after it would wrongly look false. So the
        call is made now, before the change is judged; a spit the players made a moment too
        early is then let pass rather than ruled on a guess about the order. The prompt need
        not have been made: the moves it is timed from may have been seen, and ruled, late
        (game 14000058: 6♣ and 5♣ under a hand, ruled 3.7 s after the first was made; the
        players spat after the forced call before the referee's prompt fell due)."""
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
        early = min(self._changed_early, self._changed_at - CALL_RACE_S) + 2 * self.config.settle_s
        if t - self.config.latency_s < early:
            return
        self._force_spit(min(due, t), out)
        self._race_call = True

    def _hand_over_table(self) -> bool:
        """No timed call (R16, R23) now: a hand hides a zone, the referee has lost track of
        the table, or a layout top it never read is still there (it may be playable)."""
        return (any(r == UNKNOWN for r in self.readings.values()) or self._warned is not None
                or self._branches is not None or bool(self._unread_tops))

    @staticmethod
    def _uncover_prompt(table: Table) -> str:
        for p in PLAYERS:
            for m in table.uncover_moves(p):
                if isinstance(m, TurnUp):
                    return (f"{p.upper()}: turn up stockpile {m.slot + 1} — nobody can play "
                            "until it is (R16)")
                return (f"{p.upper()}: move {m.card.pretty} into the empty stockpile "
                        f"{m.to_slot + 1} (R12) — nobody can play until then (R16)")
        return "Only uncovering moves are left (R16)"




# --- helpers --------------------------------------------------------------------------------

def _note(zone: str, reading: str, phase: Phase, hidden: set[str],
          seen: dict[str, list[str]], shown: dict[str, set[str]]) -> None:
    """Record what a zone read: hidden, a card it showed, or a stockpile's back / empty."""
    if reading == UNKNOWN:
        hidden.add(zone)
    elif reading in (BACK, EMPTY):
        # (While a layout is being dealt, slots read empty before their cards arrive.)
        if zone in _STOCK and phase is Phase.PLAYING:
            shown.setdefault(zone, set()).add(reading)
        elif phase is Phase.DEALING:
            # The last round's cards, gathered: what the zone showed before is not this deal's.
            seen.pop(zone, None)
    elif reading not in seen.setdefault(zone, []):
        seen[zone].append(reading)












def _frozen(shown: Mapping[str, set[str]]) -> dict[str, frozenset[str]]:
    return {z: frozenset(v) for z, v in shown.items()}


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







def _since_last(trail: list[str], state: str) -> list[str] | None:
    """`trail` from the last time it showed `state` on, or None if it never did."""
    if state not in trail:
        return None
    return trail[len(trail) - 1 - trail[::-1].index(state):]






def _duplicates(readings: Mapping[str, str]) -> bool:
    cards = [r for r in readings.values() if r not in (BACK, EMPTY, UNKNOWN)]
    return len(cards) != len(set(cards))


def _reading_words(reading: str) -> str:
    if reading in (BACK, EMPTY, UNKNOWN):
        return {"back": "a face-down card", "empty": "nothing", "?": "nothing visible"}[reading]
    return pretty(reading)
