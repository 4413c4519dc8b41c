"""The camera's view of a simulated game: GameRecord → the observation log a camera would produce.

Pure (randomness comes from the caller's seeded `random.Random`). The physical table is replayed
from the record, illegal cards included: a card ruled illegal lies on its pile until the bot
takes it back (`Attempt.taken_back_t`). The camera sees each zone's top; the vision stabiliser
reports a change `stable_frames` frames after the frame that first shows it, and lists only the
zones whose reading changed. Noise, all optional:

- occlusion: the hand making a move hides the zones it touches (`?`) for a while before and
  after the card lands; hands also rest over random zones;
- delayed turn-ups: after a play the hand stays over the stockpile until the next card is
  turned up, so the camera never sees the face-down card between ("7♥ on two face-down cards
  now shows 9♣ on one").

A hand can hide what happened only where a referee could still work it out: every card that
lies face up on a zone is seen for at least one frame, except a card played from a stockpile
(seen there) and covered on its pile by the next card (R14). Slap lines carry the pads' exact
nanosecond stamps.
"""
from __future__ import annotations

import bisect
import math
import random
from dataclasses import dataclass, replace
from typing import Any, Mapping

from referee.cards import Card
from referee.moves import Play, Refill, Spit, TurnUp
from referee.scene import Loose, Scene
from referee.simulate import (SLAP_S, Attempt, GameEnd, GameRecord, Moved, RoundOver,
                              RoundStart, SlapCall, SlapMade)
from referee.slaps import Slap
from referee.state import Table
from referee.zones import ALL_ZONES, EMPTY, PLAYERS, SPIT_PILES, STOCK_ZONES, UNKNOWN


@dataclass(frozen=True)
class ObsConfig:
    """Camera timing and noise. Times in seconds."""

    fps: float = 30.0
    # Frames a zone must stay unchanged before vision reports it (vision `stable_frames`).
    stable_frames: int = 3
    # Probability that the hand making a move hides the zones it touches.
    occlusion_p: float = 0.0
    hand_before_s: tuple[float, float] = (0.05, 0.35)
    hand_after_s: tuple[float, float] = (0.05, 0.6)
    # Hands resting over random zones: expected number per second of play, and how long.
    idle_rate_per_s: float = 0.0
    idle_s: tuple[float, float] = (0.2, 1.2)
    # Probability that the stockpile stays hidden from a play until its next card is turned up.
    delayed_turnup_p: float = 0.0
    # A hand lingers over a stockpile only while the player turns the next card up at once.
    delayed_turnup_max_s: float = 1.5
    # Hands gather and deal between rounds: every zone reads `?` this long before a deal.
    dealing_s: float = 3.0
    # After the game's last round the players look at the result this long, then gather the
    # cards (hands over every zone for `dealing_s`): the camera sees the table bare.
    gather_after_s: float = 5.0
    # An illegal card taken back is in its player's hand this long (s, drawn per card) between
    # leaving the pile and landing home (R9, R14): the pile shows what lies beneath and the
    # stockpile its slot without the card. (0, 0): at once, as a card ruled illegal was
    # always taken back in the simulated games.
    in_hand_s: tuple[float, float] = (0.0, 0.0)

    @classmethod
    def noisy(cls) -> "ObsConfig":
        """The noise `simulate --log` writes: hands over the zones of half the moves, and
        delayed turn-ups."""
        return cls(occlusion_p=0.5, delayed_turnup_p=0.3)

    @classmethod
    def benchmark(cls) -> "ObsConfig":
        """The noise bench/monitor.py and the simulated-game tests hold the monitor to:
        delayed turn-ups (the hand stays over a stockpile from a play until the next card is
        turned up) on top of the stabiliser's latency."""
        return cls(delayed_turnup_p=0.3)


@dataclass(frozen=True)
class _Change:
    t: float
    readings: dict[str, str]


def observation_log(record: GameRecord, config: ObsConfig | None = None,
                    rng: random.Random | None = None) -> list[dict[str, Any]]:
    """The log lines (`start`, `observe`, `slap`) of one game, in time order."""
    cfg = config or ObsConfig()
    rng = rng or random.Random(0)
    changes, windows, slaps, first_t, unseen = _replay(record, cfg, rng)
    segments = _segments(changes)
    _keep_required_visible(segments, windows, unseen, cfg)
    lines = _frames(segments, windows, cfg)
    for s in slaps:
        lines.append({"t": s.t_ns / 1e9, "slap": {"player": s.player, "pile": s.pile,
                                                   "t_ns": s.t_ns}})
    lines.sort(key=lambda ln: ln["t"])
    start = {"t": first_t, "start": {p: 26 for p in PLAYERS}}
    return [start] + lines


# --- the physical table over time ---------------------------------------------------------------

def _replay(record: GameRecord, cfg: ObsConfig, rng: random.Random):
    """Zone readings after every physical change, the hand windows per zone, and the slaps."""
    changes: list[_Change] = []
    windows: dict[str, list[list[float]]] = {z: [] for z in ALL_ZONES}
    # Cards landing on a pile that nobody saw before (spit cards) or that are ruled illegal:
    # the camera must see these on the pile.
    unseen: set[tuple[str, float]] = set()
    slaps = []
    scene: Scene | None = None
    # Illegal cards to take back: (t, seq, loose, lift), `lift` the moment it leaves the pile
    # for the hand (ObsConfig.in_hand_s), else the moment it lands home.
    pending: list[tuple[float, int, Loose, bool]] = []
    held: dict[int, Loose] = {}  # by seq: the cards lifted off their pile, in a hand
    seq = 0
    first_t = None
    events = list(record.events)
    i = 0
    round_end: float | None = None
    game_end: float | None = None
    # One frame to show the change, the stabiliser's frames, and a millisecond of margin.
    call_delay_ns = round(((1 + cfg.stable_frames) / cfg.fps + 0.001) * 1e9)

    def snap(t: float) -> None:
        changes.append(_Change(t, scene.readings()))

    def hide(zone: str, t0: float, t1: float) -> None:
        windows[zone].append([t0, t1])

    def hand(t: float, *zones: str) -> None:
        if cfg.occlusion_p and rng.random() < cfg.occlusion_p:
            a = t - rng.uniform(*cfg.hand_before_s)
            b = t + rng.uniform(*cfg.hand_after_s)
            for z in zones:
                hide(z, a, b)

    def take_backs_until(t: float) -> None:
        while pending and pending[0][0] <= t:
            tb, n, lc, lift = pending.pop(0)
            if lift:  # off the pile, into the hand: out of every zone until it lands home
                held[n] = replace(lc, at=None)
                scene.loose[scene.loose.index(lc)] = held[n]
                snap(tb)
                hand(tb, lc.at)
                continue
            if n in held:
                scene.loose.remove(held.pop(n))
                snap(tb)
                hand(tb, lc.home)
                continue
            scene.loose.remove(lc)
            snap(tb)
            hand(tb, lc.at, lc.home)

    while i < len(events):
        e = events[i]
        i += 1
        if scene is not None:
            take_backs_until(e.t)
        if isinstance(e, RoundStart):
            table = Table(record.rules, dict(e.counts), e.layouts)
            for p in PLAYERS:
                for k, z in enumerate(STOCK_ZONES[p]):
                    if z in e.tops:
                        table.apply(TurnUp(p, k, Card.parse(e.tops[z])))
            scene = Scene(table)
            pending = []
            if first_t is None:
                first_t = max(0.0, e.t - cfg.dealing_s)
            for z in ALL_ZONES:
                hide(z, e.t - cfg.dealing_s, e.t)
            snap(e.t)
        elif isinstance(e, Moved):
            m = e.move
            scene.table.apply(m)
            snap(e.t)
            if isinstance(m, Play):
                src = STOCK_ZONES[m.player][m.slot]
                hand(e.t, src, m.pile)
                if cfg.delayed_turnup_p and rng.random() < cfg.delayed_turnup_p:
                    nxt = _next_turn_up(events, i, m.player, m.slot)
                    if nxt is not None and nxt - e.t <= cfg.delayed_turnup_max_s:
                        hide(src, e.t - 0.05, nxt + rng.uniform(*cfg.hand_after_s))
            elif isinstance(m, TurnUp):
                hand(e.t, STOCK_ZONES[m.player][m.slot])
            elif isinstance(m, Refill):
                hand(e.t, STOCK_ZONES[m.player][m.from_slot], STOCK_ZONES[m.player][m.to_slot])
            elif isinstance(m, Spit):
                unseen.add((m.pile, e.t))
                hand(e.t, m.pile)
        elif isinstance(e, Attempt):
            m = e.move
            t = scene.table
            if isinstance(m, Play) and m.slot is not None:
                home = STOCK_ZONES[m.player][m.slot]
            else:
                home = "hand:" + m.player
            lc = Loose(m.card, m.player, home, m.pile, e.verdict, m, len(t.piles[m.pile]))
            scene.loose.append(lc)
            seq += 1
            pending.append((e.taken_back_t, seq, lc, False))
            if cfg.in_hand_s[1] > 0:
                lift = max(e.t + 1.0 / cfg.fps, e.taken_back_t - rng.uniform(*cfg.in_hand_s))
                if lift < e.taken_back_t:
                    pending.append((lift, seq, lc, True))
            pending.sort(key=lambda x: (x[0], x[1]))
            unseen.add((m.pile, e.t))
            if home in windows:
                unseen.add((home, e.t))  # the card is seen leaving its stockpile, too
            snap(e.t)
            hand(e.t, m.pile, *([home] if home in windows else []))
        elif isinstance(e, SlapCall):
            if round_end is None:
                # The last move ends the round: hands leave the table to slap, so the camera
                # sees the final position at once and the referee can call "Slap!" (R23).
                round_end = e.t
                for z in ALL_ZONES:
                    windows[z] = [w for w in windows[z] if w[0] < e.t]
                    for w in windows[z]:
                        w[1] = min(w[1], e.t)
        elif isinstance(e, SlapMade):
            if e.false:
                slaps.append(e.slap)
            else:
                # The simulated referee calls "Slap!" the instant the round ends; the camera
                # referee calls it when the stabilised frame shows it, so each slap made after
                # the call comes that much later (the margins between slaps are unchanged).
                slaps.append(Slap(e.slap.t_ns + call_delay_ns, e.slap.player, e.slap.pile))
        elif isinstance(e, RoundOver):
            round_end = None
            # Whatever lies loose is gathered with the rest of the cards.
            pending = []
            scene.loose.clear()
        elif isinstance(e, GameEnd):
            game_end = e.t
    if cfg.idle_rate_per_s and changes:
        t0, t1 = changes[0].t, changes[-1].t
        n = _poisson(rng, cfg.idle_rate_per_s * (t1 - t0))
        for _ in range(n):
            z = ALL_ZONES[rng.randrange(len(ALL_ZONES))]
            a = rng.uniform(t0, t1)
            hide(z, a, a + rng.uniform(*cfg.idle_s))
    if game_end is not None:
        # The players gather the cards after the game (as between rounds, with no deal after):
        # the referee sees the last round's end in the gathered piles, if it could not before.
        a = game_end + cfg.gather_after_s
        for z in ALL_ZONES:
            hide(z, a, a + cfg.dealing_s)
        changes.append(_Change(a + cfg.dealing_s, {z: EMPTY for z in ALL_ZONES}))
    return changes, windows, slaps, first_t if first_t is not None else 0.0, unseen


def _next_turn_up(events: list, start: int, player: str, slot: int) -> float | None:
    for e in events[start:]:
        if isinstance(e, RoundOver):
            return None
        if isinstance(e, Moved) and e.move.player == player:
            m = e.move
            if isinstance(m, TurnUp) and m.slot == slot:
                return e.t
            if isinstance(m, Refill) and slot in (m.from_slot, m.to_slot):
                return None
    return None


def _poisson(rng: random.Random, lam: float) -> int:
    # Sum of exponential gaps: exact, and cheap for the small means used here.
    n, t = 0, rng.expovariate(1.0) if lam > 0 else math.inf
    while t < lam:
        n += 1
        t += rng.expovariate(1.0)
    return n


# --- from changes to camera lines ---------------------------------------------------------------

def _segments(changes: list[_Change]) -> dict[str, list[tuple[float, str]]]:
    """Per zone: (start time, reading) of each stretch with one reading."""
    out: dict[str, list[tuple[float, str]]] = {z: [] for z in ALL_ZONES}
    for ch in changes:
        for z in ALL_ZONES:
            r = ch.readings[z]
            seg = out[z]
            if seg and seg[-1][0] == ch.t:
                seg[-1] = (ch.t, r)  # two changes at one instant: the later one is what shows
                if len(seg) > 1 and seg[-2][1] == r:
                    seg.pop()
            elif not seg or seg[-1][1] != r:
                seg.append((ch.t, r))
    return out


def _keep_required_visible(segments: dict[str, list[tuple[float, str]]],
                           windows: dict[str, list[list[float]]],
                           unseen: set[tuple[str, float]], cfg: ObsConfig) -> None:
    """Carve a gap of a few frames into the hand windows so that every face-up card is seen on
    each zone it lies on, except a card played from a stockpile (seen there) and covered on its
    pile by the next card: a referee works that one out (R14). Spit cards and illegal cards
    (`unseen`: zone and time) are always seen on their pile, and an illegal card is seen
    leaving its stockpile."""
    frame = 1.0 / cfg.fps
    gap = (cfg.stable_frames + 1) * frame
    for z in ALL_ZONES:
        segs = segments[z]
        wins = windows[z]
        if not wins:
            continue
        for k, (a, r) in enumerate(segs):
            if r in ("back", "empty") and (z, a) not in unseen:
                continue
            b = segs[k + 1][0] if k + 1 < len(segs) else math.inf
            covered = k + 1 < len(segs) and segs[k + 1][1] not in ("back", "empty")
            if z in SPIT_PILES and covered and (z, a) not in unseen:
                continue
            if not _fully_hidden(wins, a, b, frame):
                continue
            end = b if b != math.inf else a + 10.0
            mid = (a + end) / 2
            lo, hi = max(a, mid - gap / 2), min(end, mid + gap / 2)
            new = []
            for w0, w1 in wins:
                if w1 <= lo or w0 >= hi:
                    new.append([w0, w1])
                    continue
                if w0 < lo:
                    new.append([w0, lo])
                if w1 > hi:
                    new.append([hi, w1])
            wins[:] = new


def _fully_hidden(wins: list[list[float]], a: float, b: float, frame: float) -> bool:
    """True when no frame-long stretch of [a, b) is free of windows."""
    b = min(b, a + 1e6)
    t = a
    for w0, w1 in sorted(wins):
        if w1 <= t:
            continue
        if w0 >= b:
            break
        if w0 - t >= frame * 2:
            return False
        t = max(t, w1)
        if t >= b:
            return True
    return b - t < frame * 2


def _frames(segments: dict[str, list[tuple[float, str]]],
            windows: dict[str, list[list[float]]], cfg: ObsConfig) -> list[dict[str, Any]]:
    fps = cfg.fps
    latency = cfg.stable_frames / fps
    starts = {z: [a for a, _ in segments[z]] for z in ALL_ZONES}
    merged = {z: _merge(windows[z]) for z in ALL_ZONES}
    times: set[int] = set()
    for z in ALL_ZONES:
        for a in starts[z]:
            times.add(math.ceil(a * fps - 1e-9))
        for w0, w1 in merged[z]:
            times.add(math.ceil(w0 * fps - 1e-9))
            times.add(math.ceil(w1 * fps - 1e-9))
    last: dict[str, str] = {}
    lines = []
    for f in sorted(times):
        tau = f / fps
        shown = {}
        for z in ALL_ZONES:
            k = bisect.bisect_right(starts[z], tau + 1e-9) - 1
            if k < 0:
                continue
            r = segments[z][k][1]
            if _inside(merged[z], tau):
                r = UNKNOWN
            if last.get(z) != r:
                shown[z] = r
                last[z] = r
        if shown:
            lines.append({"t": round(tau + latency, 6), "observe": shown})
    return lines


def _merge(wins: list[list[float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for w0, w1 in sorted(wins):
        if out and w0 <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], w1))
        else:
            out.append((w0, w1))
    return out


def _inside(wins: list[tuple[float, float]], t: float) -> bool:
    k = bisect.bisect_right(wins, (t, math.inf)) - 1
    return k >= 0 and wins[k][0] <= t < wins[k][1]


# --- ground truth: what the monitor should have inferred --------------------------------------

@dataclass(frozen=True)
class FalseCall:
    """A round's end called before the round truly ended: `t`, the call's log time (s);
    `true_end`, the moment the round truly ended (s), None when it never did."""

    round: int | None
    t: float
    true_end: float | None


@dataclass(frozen=True)
class Comparison:
    """The monitor's inferred moves against the record's true ones.

    `wrong`: things the monitor ruled that did not happen (a move, an illegal play, a false
    slap, a round's end called while the round went on: `false_calls`); `missed`: true moves
    it never inferred, and true round ends it never called; `missed_illegal`: true illegal
    plays and false slaps it did not rule. Plays and spits are compared as what their rulings
    say: who put which card on which pile, on which card (so the order on each pile is checked
    where the referee ruled it); turn-ups, refills and illegal plays as counts per round.
    `true_moves` counts the true moves and round results (not the end calls: `true_ends`
    rounds ended, `missed_ends` of them never called)."""

    wrong: int
    missed: int
    missed_illegal: int
    true_moves: int
    true_illegal: int
    details: tuple[str, ...]
    true_ends: int = 0
    false_calls: tuple[FalseCall, ...] = ()
    missed_ends: int = 0

    @property
    def matched(self) -> int:
        """The true moves and round results the monitor ruled as they were: `missed` also
        holds the illegal actions and the round ends never called, which are not among them."""
        return self.true_moves - (self.missed - self.missed_illegal - self.missed_ends)


def replay(monitor: Any, lines: list[dict], record: GameRecord) -> None:
    """Feed `lines` to `monitor`, and the players' answer to each "Slap again!" the referee
    makes for an end it did not see (a log made beforehand cannot hold it): the round's true
    deciding slaps again, SLAP_S after the call, as far apart as they were, so the piles go as
    they truly went (R18)."""
    pending: list[dict] = []
    for line in lines:
        while pending and pending[0]["t"] <= line["t"]:
            _feed_answering(monitor, pending.pop(0), record, pending)
        _feed_answering(monitor, line, record, pending)
    while pending:
        _feed_answering(monitor, pending.pop(0), record, pending)


def _feed_answering(monitor: Any, line: dict, record: GameRecord, pending: list[dict]) -> None:
    for r in monitor.feed(line):
        if r.kind.value == "slap-call" and r.extra.get("unseen_end"):
            pending.extend(_slaps_again(record, monitor.game.round, r.t))
            pending.sort(key=lambda ln: ln["t"])


def _slaps_again(record: GameRecord, number: int, t: float) -> list[dict]:
    """Round `number`'s two deciding slaps, made again from `t` + SLAP_S."""
    counted: list[Slap] = []
    for e in record.events:
        if isinstance(e, SlapCall):
            counted = []
        elif isinstance(e, SlapMade) and not e.false:
            counted.append(e.slap)
        elif isinstance(e, RoundOver) and e.number == number:
            break
    else:
        return []
    first = min(s.t_ns for s in counted[-2:])
    start = round((t + SLAP_S) * 1e9)
    return [{"t": (start + s.t_ns - first) / 1e9,
             "slap": {"player": s.player, "pile": s.pile, "t_ns": start + s.t_ns - first}}
            for s in counted[-2:]]


# A round's end, called: `(END_CALL, round, t)`, t the log time (s) of the call, or in the
# truth of the round's true end. The first "Slap!" (R23) of a round, or the round-over of an
# end that needs no slap (R20, R21); compare() holds the call to come no earlier than the end.
END_CALL = "end-call"
# Log times are written to the microsecond (referee.rulings): a call at the end's own moment
# may read up to this much before it.
_CALL_EPS_S = 1e-6


def true_items(record: GameRecord) -> list[tuple]:
    items: list[tuple] = []
    rnd = 0
    ended: set[int] = set()
    tops: dict[tuple, str] = {}
    for e in record.events:
        if isinstance(e, RoundStart):
            rnd = e.number
        elif isinstance(e, SlapCall):
            # The simulated referee calls "Slap!" the instant the round ends (a re-slap's call
            # comes after that).
            if rnd not in ended:
                ended.add(rnd)
                items.append((END_CALL, rnd, e.t))
        elif isinstance(e, Moved):
            items.append(_item(rnd, e.move, None, tops))
        elif isinstance(e, Attempt):
            items.append(_item(rnd, e.move, e.verdict.kind, tops))
        elif isinstance(e, SlapMade) and e.false:
            items.append(("false-slap", e.slap.player))
        elif isinstance(e, RoundOver):
            if e.number not in ended:  # no slap needed: the round ends with its last move
                ended.add(e.number)
                items.append((END_CALL, e.number, e.t))
            items.append(_round_item(e.number, e.counts, e.piles_taken))
        elif isinstance(e, GameEnd):
            items.append(("game-over", e.winner))
    return items


def _round_item(number: int, counts: Mapping[str, int], piles: Mapping[str, str]) -> tuple:
    """A round's end as ruled: the next round's card counts (R19) and who took which pile."""
    return ("round-over", number, tuple(sorted(counts.items())), tuple(sorted(piles.items())))


def monitor_items(inferred: list, rulings: list) -> list[tuple]:
    """Items from `Monitor.moves` (InferredMove) and its rulings: false slaps, round and game
    results, and each round's first end call (END_CALL) with its time: a "Slap!" (R23), or a
    round-over or game-over that came without one. A round's number is its deal ruling's; the
    "Slap again!" calls that follow a round's first call are not calls of a new end."""
    items: list[tuple] = []
    tops: dict[tuple, str] = {}
    for im in inferred:
        step = im.step
        if im.dealing and isinstance(step.move, TurnUp):
            continue  # the layout's tops (R5) are not moves
        unsure = im.unsure
        beneath = getattr(im, "beneath", None)
        if beneath is not None:
            # The card the ruling named: the referee's belief may have been rebuilt from the
            # table (referee.rebase) since the last move this list followed on that pile.
            tops[(im.round, step.move.pile)] = beneath
        if step.returned is not None:
            if isinstance(step.move, Spit) and step.verdict.ok and not unsure:
                items.append(_item(im.round, step.move, None, tops))
            continue
        item = _item(im.round, step.move, None if step.verdict.ok else step.verdict.kind, tops)
        if not unsure:
            items.append(item)  # an unsure step is not ruled, but it lies on its pile

    rnd = None  # the round the referee last dealt
    called: set = set()
    for r in rulings:
        if r.kind.value == "deal":
            rnd = r.extra.get("round", rnd)
        elif r.kind.value in ("slap-call", "round-over", "game-over"):
            n = r.extra.get("round", rnd)
            if n not in called:
                called.add(n)
                items.append((END_CALL, n, r.t))
        if r.kind.value == "false-slap":
            items.append(("false-slap", r.player))
        elif r.kind.value == "round-over":
            # Counts the referee says may be off are not ruled: they are left out (missed),
            # unless a later round-over of that round says they are sure (AfterEnd).
            if not r.extra.get("uncertain"):
                items.append(_round_item(r.extra["round"], r.extra["cards"], r.extra["piles"]))
        elif r.kind.value == "game-over" and not r.extra.get("uncertain"):
            # (A winner a doubt about the counts cannot change is ruled sure, R21.)
            items.append(("game-over", r.extra["winner"]))
    return items


def _item(rnd: int, move: Any, illegal: str | None, tops: dict[tuple, str]) -> tuple:
    """What a ruling says, comparable between the truth and the monitor. A card landing on a
    pile is named with the card it landed on (as the ruling's message does: "P1 plays 9♥ on
    8♠"), which checks the order of plays on each pile; `tops` follows each pile's top."""
    if illegal is not None:
        return ("illegal", rnd, type(move).__name__, move.player, move.card.code, illegal)
    if isinstance(move, (Play, Spit)):
        key = (rnd, move.pile)
        beneath = tops.get(key, "empty")
        tops[key] = move.card.code
        return ("pile", rnd, move.pile, beneath, move.player, move.card.code)
    if isinstance(move, TurnUp):
        return ("turn-up", rnd, move.player, move.slot, move.card.code)
    if isinstance(move, Refill):
        return ("refill", rnd, move.player, move.from_slot, move.to_slot, move.card.code)
    return ("other", rnd, repr(move))


def compare(truth: list[tuple], inferred: list[tuple]) -> Comparison:
    """Matches the monitor's items with the true ones. An illegal play ruled with two kinds
    ("equal-rank or not-adjacent": the camera could not tell which card it lay on, and it was
    illegal on either, Doubts.either_way) matches the true play if its kind is one of them;
    "... or taken-back" also matches the card's true take-back (R14).

    A round's end call (END_CALL) is right at the moment the round truly ended or any time
    after (the camera's latency, or a hand over the last card, may tell the referee late); one
    made before it, or for a round that never ended, is a false call: counted in `wrong` (and
    not also in `missed`: the round's end was called, too early) and listed in `false_calls`.
    A round end never called is counted in `missed`. The other figures are as before."""
    from collections import Counter

    ends, false_calls, missed_ends = _match_end_calls(truth, inferred)
    truth = [k for k in truth if k[0] != END_CALL]
    inferred = [k for k in inferred if k[0] != END_CALL]
    t, m = Counter(truth), Counter(inferred)
    for item in [k for k in m if k[0] == "illegal" and " or " in k[-1]]:
        for kind in item[-1].split(" or "):
            alt = item[:-1] + (kind,)
            if kind == "taken-back":  # the card played legally and lifted off again (R14)
                alt = item[:2] + ("TakeBack",) + item[3:-1] + (kind,)
            n = min(m[item], t[alt] - m[alt])
            if n > 0:
                m[item] -= n
                m[alt] += n
    m = +m
    wrong = m - t
    missed = t - m
    missed_illegal = sum(n for k, n in missed.items() if k[0] in ("illegal", "false-slap"))
    details = tuple(
        f"wrong {(END_CALL, c.round)}: called at {c.t:.3f} s, the round "
        + (f"truly ended at {c.true_end:.3f} s" if c.true_end is not None else "never ended")
        for c in false_calls) + tuple(
        f"wrong {k}" for k in sorted(wrong, key=repr)[:10]) + tuple(
        f"missed {(END_CALL, n)}" for n in missed_ends) + tuple(
        f"missed {k}" for k in sorted(missed, key=repr)[:10])
    return Comparison(sum(wrong.values()) + len(false_calls),
                      sum(missed.values()) + len(missed_ends), missed_illegal,
                      sum(n for k, n in t.items() if k[0] not in ("illegal", "false-slap")),
                      sum(n for k, n in t.items() if k[0] in ("illegal", "false-slap")),
                      details, ends, tuple(false_calls), len(missed_ends))


def _match_end_calls(truth: list[tuple], inferred: list[tuple]
                     ) -> tuple[int, list[FalseCall], list]:
    """The true round ends, the monitor's calls made before the end of their round (or of a
    round that never ended), and the rounds whose end it never called."""
    true_end = {k[1]: k[2] for k in truth if k[0] == END_CALL}
    false_calls, called = [], set()
    for k in inferred:
        if k[0] != END_CALL:
            continue
        _, rnd, t = k
        end = true_end.get(rnd)
        called.add(rnd)
        if end is None or t < end - _CALL_EPS_S:
            false_calls.append(FalseCall(rnd, t, end))
    missed = [n for n in true_end if n not in called]
    return len(true_end), false_calls, missed
