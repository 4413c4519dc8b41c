"""`spit-referee demo`: the live referee's own pipeline on a rendered game, on any PC.

Two bots play a game (referee.simulate). Each moment of it becomes a 30 fps camera frame
(vision.stream: cards, hands passing over the piles, light, lens and sensor; the room's light
changes now and then, vision.roomlight: clouds, a lamp switched on and off); the real vision
pipeline reads the frames (the table found from the mat's ArUco markers in the first frame, as
`calibrate table` does); the monitor referees what vision reports; the slaps come through the
real pad code on gpiozero's MockFactory, pins stamped on the demo's clock; rulings go to the
view, the announcers and the crash-safe log, exactly as in `run`.

The bots slap when the referee calls "Slap!" (R23): the record's slaps are replayed relative
to the referee's call, and the game waits for the referee's slap result before it goes on.
When the referee calls "Slap again!" for an end a hand hid, they make the deciding slaps
again (as referee.obslog.replay has the simulated players do).
At the end the demo compares what the referee inferred with what the bots really did.

Ruling latency is counted in frames from the frame where the camera first sees the landed card
whole (no hand over its zone: FrameStream's `occluded`, which counts a hand over as little
as 0.2 % of the zone, a fingertip) to the frame of its ruling: until the player's hand has left,
no camera can see the card, and the referee cannot be faster than what it sees. The latency
from the card touching down (the hand still over it) is kept too (`touch_latency_frames`); the
two differ by how long the hand rests on the card.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any, Mapping

from calibration.layout import default_layout
from calibration.store import default_calibration
from hardware.mockpads import PadPresser, mock_factory
from hardware.pads import Pads, pad_for
from referee.coach import COACH_SETTLE_S, Coach
from referee.live.demotable import HOLD_S, DemoTable
from referee.live.eventlog import EventLog
from referee.live.session import RefereeSession
from referee.monitor import Monitor, MonitorConfig
from referee.obslog import Comparison, compare, monitor_items, true_items
from referee.rulings import Ruling, RulingKind
from referee.simulate import (SLAP_S, BotConfig, GameRecord, RoundOver, SimConfig, SlapCall,
                              SlapMade, SlapResult, simulate_game)
from referee.zones import UNKNOWN

NS_PER_S = 1_000_000_000
# Bots at a beginner's pace (about a second to see a play): the demo shows the referee
# following every move, and now and then a wrong card so that it has something to call.
# Faster bots race the camera: cards covered before a stable frame shows them leave the
# referee waiting (bench/demo.py --fast measures that).
DEMO_BOT = BotConfig(reaction_s=1.0, reaction_spread_s=0.25, move_s=0.35, mistake_rate=0.03,
                     take_back_s=1.5)
FAST_BOT = BotConfig(reaction_s=0.45, reaction_spread_s=0.15, mistake_rate=0.03, take_back_s=1.2)
READY_S = 3.0
DEALING_S = 2.0
# The referee must call "Slap!" within this long of the last card (seconds of demo time), or
# the demo stops waiting and counts it as missed.
SLAP_CALL_TIMEOUT_S = 8.0
# After the record's last event, frames keep coming this long for the referee's last calls.
TAIL_S = 4.0
# A demo stopped early (max_frames) stops the game, not the camera: the table stays as it is,
# hands off, for this many more frames, so that the referee can rule what it has seen (a card
# laid in the last frames has not been seen whole yet).
STOP_TAIL_FRAMES = 30


@dataclass(frozen=True)
class DemoConfig:
    seed: int = 52  # a two-round game of about two minutes at DEMO_BOT's pace
    fps: float = 30.0
    log: Path | None = None  # default: spit-demo-<seed>-<time>.jsonl in the current folder
    coach: bool = False
    plain: bool | None = None  # None: a live view on a terminal, plain lines otherwise
    variant: str = "standard"
    settle_s: float = 1.5
    # Stop the game early (tests, profiling), then STOP_TAIL_FRAMES more; None: the whole game
    max_frames: int | None = None
    fast: bool = False  # FAST_BOT instead of DEMO_BOT
    # Frames a reading must hold before vision reports it; None: the calibration's
    # (vision.stable_frames), as `run` uses it. For measuring (bench/demo.py --stable-frames).
    stable_frames: int | None = None
    # The room's light changes during the game (vision.roomlight: clouds, a lamp switched on
    # and off); False: the game's light throughout (bench/demo.py --steady-light).
    light_changes: bool = True


@dataclass
class DemoResult:
    record: GameRecord
    comparison: Comparison
    log_path: Path
    frames: int
    wall_s: float
    game_s: float
    rulings: list[Ruling] = field(default_factory=list)
    # Frames from the first frame showing the landed card unobstructed to its ruling.
    latency_frames: list[int] = field(default_factory=list)
    # Frames from the card touching down (the hand may still cover it) to its ruling.
    touch_latency_frames: list[int] = field(default_factory=list)
    # Each of those rulings with its latency from sight and the frame it was made in.
    latency_rulings: list[tuple[int, int, Ruling]] = field(default_factory=list)
    # The latency from sight in two parts, for the rulings whose card the stabiliser reported
    # on its zone: frames until vision reported it, and then until the monitor ruled it.
    vision_frames: list[int] = field(default_factory=list)
    monitor_frames: list[int] = field(default_factory=list)
    missed_calls: int = 0
    sight: SightTally | None = None  # the stabilised observations against the true table
    # Why each of latency_frames took longer than stable_frames (Slow), None where it did not.
    latency_causes: list[Slow | None] = field(default_factory=list)
    # What the room's light did during the game (vision.roomlight), each with its time.
    light_changes: list[str] = field(default_factory=list)


class Slow(Enum):
    """Why a ruling came later than stable_frames after the camera first saw its card whole."""

    HAND_BACK = "a hand back over the card before vision reported it"
    MONITOR = "reported in time, the monitor waiting for a zone a hand hid"
    VISION = "vision late, no hand back over the card"
    UNREPORTED = "never reported on its zone, ruled from the others"


class Sight(Enum):
    """What the camera made of one true top of one zone (a card, a back or nothing lying on
    top from one change of the zone to the next)."""

    REPORTED = "reported"  # the stabiliser reported it (the referee could see it)
    UNREAD = "unread"      # visible long enough, never reported: the reader did not read it
    COVERED = "covered"    # not visible for stable_frames + 1 clear frames before it changed
    MISREAD = "misread"    # the stabiliser reported something else there (a wrong call risk)


@dataclass(frozen=True)
class SightCase:
    sight: Sight
    zone: str
    truth: str        # the true top
    frames: tuple[int, int]  # first frame it lay on top, first frame it no longer did
    clear_frames: int  # frames of it with no hand over its zone
    said: str = ""    # for MISREAD: what the stabiliser reported


class SightTally:
    """Compares, frame by frame, the stabilised observations with the true table the frames
    show: every true top of every zone ends as one SightCase. A top is reported after
    stable_frames frames with no hand over its zone when the first (the hand leaving: motion)
    already shows the zone as the next does, one more when it does not (a fingertip's shadow
    on its edge still leaving), so one seen for stable_frames or fewer is COVERED, not
    UNREAD."""

    def __init__(self, stable_frames: int) -> None:
        self.stable_frames = stable_frames
        self.cases: list[SightCase] = []
        self._open: dict[str, list] = {}  # zone -> [truth, first frame, clear frames, reported]
        self._recent: dict[str, list[str]] = {}  # zone -> its truth over the last few frames

    def frame(self, index: int, truth: Mapping[str, str], occluded: frozenset[str],
              reported: Mapping[str, str]) -> None:
        """One frame: the true tops it shows, the zones a hand covers in it, and the readings
        the stabiliser reported on it."""
        for z, top in truth.items():
            cur = self._open.get(z)
            if cur is None or cur[0] != top:
                if cur is not None:
                    self._close(z, cur, index)
                cur = self._open[z] = [top, index, 0, False]
            if z not in occluded:
                cur[2] += 1
            recent = self._recent.setdefault(z, [])
            recent.append(top)
            del recent[:-(self.stable_frames + 1)]
        for z, said in reported.items():
            cur = self._open.get(z)
            if cur is None or said == UNKNOWN:
                continue
            if said == cur[0]:
                cur[3] = True
            elif said not in self._recent.get(z, ()):
                # Not what lies there now, nor what lay there while the reading held.
                self.cases.append(SightCase(Sight.MISREAD, z, cur[0], (index, index + 1),
                                            cur[2], said))

    def finish(self, index: int) -> None:
        for z, cur in self._open.items():
            self._close(z, cur, index, last=True)
        self._open = {}

    def _close(self, zone: str, cur: list, end: int, last: bool = False) -> None:
        top, start, clear, reported = cur[0], cur[1], cur[2], cur[3]
        if reported:
            sight = Sight.REPORTED
        elif clear > self.stable_frames:
            sight = Sight.UNREAD
        elif last:
            return  # still lying there when the demo stopped, not yet seen long enough
        else:
            sight = Sight.COVERED
        self.cases.append(SightCase(sight, zone, top, (start, end), clear))

    def counts(self) -> dict[Sight, int]:
        out = {k: 0 for k in Sight}
        for c in self.cases:
            out[c.sight] += 1
        return out


class _SlapDriver:
    """Presses the pads for the record's slaps, timed from the referee's own call."""

    def __init__(self, record: GameRecord) -> None:
        # Per round end: the record's slap call time and, per re-slap, the groups of slaps.
        self.groups: list[tuple[float, list[list[SlapMade]]]] = []
        call_t, groups = None, []
        for e in record.events:
            if isinstance(e, SlapCall):
                call_t, groups = e.t, [[]]
            elif isinstance(e, SlapMade) and not e.false and call_t is not None:
                groups[-1].append(e)
            elif isinstance(e, SlapResult) and call_t is not None:
                if e.too_close:
                    groups.append([])
            elif isinstance(e, RoundOver) and call_t is not None:
                self.groups.append((call_t, [g for g in groups if g]))
                call_t = None
        self.round = 0

    def again(self, call_ns: int) -> list[tuple[int, str]]:
        """(t_ns, pad) for the round's two deciding slaps made again, SLAP_S after the referee's
        "Slap again!" for an end a hand hid (R18), as far apart as they were: the players'
        answer, as in referee.obslog.replay."""
        if self.round >= len(self.groups) or not self.groups[self.round][1]:
            return []
        deciding = self.groups[self.round][1][-1][-2:]
        first = min(s.t for s in deciding)
        start = call_ns + round(SLAP_S * NS_PER_S)
        return [(start + round((s.t - first) * NS_PER_S),
                 pad_for(s.slap.player, s.slap.pile)) for s in deciding]

    def presses_after_call(self, call_ns: int, reslap: int) -> list[tuple[int, str]]:
        """(t_ns, pad) for the slaps answering the referee's call at `call_ns`."""
        if self.round >= len(self.groups):
            return []
        record_call_t, groups = self.groups[self.round]
        if reslap >= len(groups):
            return []
        group = groups[reslap]
        base = group[0].t if reslap else record_call_t
        if reslap:
            base -= SLAP_S  # the record's re-slap came one reaction after its own result
        return [(call_ns + round((s.t - base) * NS_PER_S),
                 pad_for(s.slap.player, s.slap.pile)) for s in group]


def run_demo(cfg: DemoConfig, view: Any = None, announcers: Any = None) -> DemoResult:
    from vision.reader import TableReader
    from vision.render import (MAT_COLOURS_BGR, SHIPPED_BACK, SHIPPED_DECK, CameraPose, Look,
                               Renderer)
    from vision.roomlight import RoomLight
    from vision.stream import FrameStream

    from referee.simulate import config_for_variant

    rng = random.Random(cfg.seed)
    # Coach mode: beginner settle times for the referee, and bots that wait as long to spit.
    settle_s = max(cfg.settle_s, COACH_SETTLE_S) if cfg.coach else cfg.settle_s
    sim = config_for_variant(cfg.variant)
    bot = FAST_BOT if cfg.fast else DEMO_BOT
    sim = SimConfig(rules=sim.rules, bots=(bot, bot), ready_s=READY_S,
                    settle_s=settle_s)
    record = simulate_game(cfg.seed, sim)
    layout = default_layout()
    table = DemoTable(record, random.Random(cfg.seed + 1), layout, dealing_s=DEALING_S)
    camera = CameraPose(tilt_deg=rng.uniform(-6, 6), yaw_deg=rng.uniform(-2, 2),
                        roll_deg=rng.uniform(-2, 2), fill=0.93)
    look = Look(light_gain=rng.uniform(0.85, 1.05),
                light_gradient=(rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2)),
                glare=(rng.uniform(300, 1000), rng.uniform(150, 550), 90.0, 35.0),
                blur_sigma=0.6, noise_sigma=2.0, jpeg_quality=None)
    stream = FrameStream(Renderer(layout=layout), SHIPPED_DECK, SHIPPED_BACK, camera=camera,
                         look=look, mat_bgr=MAT_COLOURS_BGR[rng.randrange(len(MAT_COLOURS_BGR))],
                         table_seed=rng.randrange(4), noise_seed=cfg.seed)
    # The light holds through the deal and the first seconds of play, then changes now and then.
    room = (RoomLight.draw(random.Random(cfg.seed + 3), table.events[0].t, table.end_t)
            if cfg.light_changes and table.events else RoomLight())
    lit = room.at(float("-inf"))

    cal = default_calibration()
    if cfg.stable_frames is not None:
        cal = replace(cal, vision=replace(cal.vision, stable_frames=cfg.stable_frames))
    frame_ns = round(NS_PER_S / cfg.fps)
    t0_ns = time.monotonic_ns()
    now = {"ns": t0_ns}
    factory = mock_factory()
    pads = Pads.from_section(cal.pads, factory, clock=lambda: now["ns"], watch=False)
    presser = PadPresser(factory, cal.pads.pins, pull_up=cal.pads.pull_up,
                         rng=random.Random(cfg.seed + 2))
    slaps = _SlapDriver(record)
    # Slaps before the call (bot mistakes, R18) are pressed when the game reaches them.
    false_slaps = [e for e in record.events if isinstance(e, SlapMade) and e.false]

    log_path = cfg.log or Path(f"spit-demo-{cfg.seed}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl")
    monitor = Monitor(MonitorConfig(rules=record.rules, settle_s=settle_s,
                                    tie_window_ns=round(cal.pads.tie_window_ms * 1_000_000)))
    sinks = [s for s in (view, announcers) if s is not None]
    wall0 = time.perf_counter()
    frames = 0
    rulings: list[Ruling] = []
    latency: list[int] = []
    touch_latency: list[int] = []
    latency_rulings: list[tuple[int, int, Ruling]] = []
    vision_lat: list[int] = []
    monitor_lat: list[int] = []
    causes: list[Slow | None] = []
    reported = FirstReports()
    missed_calls = 0
    with EventLog(log_path) as log:
        session = RefereeSession(monitor, log, sinks, coach=Coach() if cfg.coach else None)
        # The first frame: the mat before the deal, as `calibrate table` sees it.
        first = table.events[0].t - DEALING_S - 0.5 if table.events else 0.0
        m = table.at(first)
        img = stream.frame(m.piles, m.hands).frame
        reader = TableReader.from_frame(img, layout, cal)
        sight = SightTally(reader.stabilizer.stable_frames)
        r_t = first            # record time shown by the current frame
        shown_t = first        # record time shown by the last frame drawn
        hold: dict[str, Any] | None = None  # waiting for the referee's slap result
        pending: list[tuple[int, str]] = []  # pad presses to make (t_ns, pad)
        change_frames: dict[str, int] = {}  # zone -> frame where its true top last changed
        clear_frames: dict[str, int] = {}  # zone -> first frame since then with no hand over it
        back_frames: dict[str, int] = {}  # zone -> first frame since that with a hand over it again
        last_truth: dict[str, str] = {}
        end_t = table.end_t + TAIL_S
        stopped = False  # max_frames reached: the game stands still (STOP_TAIL_FRAMES)
        while r_t <= end_t:
            t_ns = now["ns"]
            # --- the physical table at this moment
            if hold is None and not stopped:
                # (The last card and the call often come at the same moment: look past it.)
                call = next((e for e in table.due(r_t) if isinstance(e, SlapCall)), None)
                if call is not None:
                    r_t = call.t  # the table stays as it is until the referee has ruled
                    hold = {"since_ns": t_ns, "reslap": 0, "called": False}
            m = table.at(r_t)
            hands = m.hands
            if stopped or (hold is not None and (t_ns - hold["since_ns"]) / NS_PER_S > HOLD_S):
                # The last card is down and the players wait for "Slap!" with their hands off
                # the table (frozen at the card's touch-down, the hand that laid it would hide
                # it from the camera for good, and the referee could never call); or the game
                # stopped early and the camera films the still table.
                hands = ()
            shown_t = r_t
            for pad_t, pad in [p for p in pending if p[0] <= t_ns + frame_ns]:
                presser.slap(pad, pad_t)
                pending.remove((pad_t, pad))
            for e in [e for e in false_slaps if r_t - 1.0 / cfg.fps < e.t <= r_t and not stopped]:
                presser.slap(pad_for(e.slap.player, e.slap.pile), t_ns)
            if (now_lit := room.at(r_t)) != lit:
                lit = now_lit
                stream.relight(room.look(look, r_t))
            shot = stream.frame(m.piles, hands)
            for z, top in shot.readings.items():
                if last_truth.get(z) != top:
                    change_frames[z] = frames
                    reported.top_changed(z)
                    clear_frames.pop(z, None)
                    back_frames.pop(z, None)
                    last_truth[z] = top
                if z not in clear_frames and z not in shot.occluded:
                    clear_frames[z] = frames
                elif z in clear_frames and z in shot.occluded and z not in back_frames:
                    back_frames[z] = frames
            # --- the referee
            pads.poll(t_ns)
            session.take_pad_events(pads)
            obs = reader.read(shot.frame, t_ns)
            said = obs.readings if obs is not None else {}
            reported.said(said, frames)
            sight.frame(frames, shot.readings, shot.occluded, said)
            new = session.observe(said or None, t_ns)
            for r in new:
                rulings.append(r)
                if r.kind in (RulingKind.PLAY, RulingKind.SPIT, RulingKind.REFILL,
                              RulingKind.ILLEGAL) and r.to in change_frames:
                    touch_latency.append(frames - change_frames[r.to])
                    # A card never seen on its own (covered by the next one before the hand
                    # left) counts from the first clear frame of what covers it; one ruled
                    # while a hand still covers its zone (inferred from other zones) counts 0.
                    latency.append(frames - clear_frames.get(r.to, frames))
                    latency_rulings.append((latency[-1], frames, r))
                    at = reported.first(r.to, r.card)
                    seen = at is not None and r.to in clear_frames
                    if seen:
                        vision_lat.append(max(0, at - clear_frames[r.to]))
                        monitor_lat.append(frames - at)
                    causes.append(_slow(latency[-1], sight.stable_frames,
                                        clear_frames.get(r.to), at if seen else None,
                                        back_frames.get(r.to)))
                if hold is not None and r.kind is RulingKind.SLAP_CALL and not hold["called"]:
                    hold["called"] = True
                    pending += slaps.presses_after_call(round(r.t * NS_PER_S), 0)
                elif (hold is not None and r.kind is RulingKind.SLAP_CALL
                      and r.extra.get("unseen_end")):
                    pending += slaps.again(round(r.t * NS_PER_S))
                elif hold is not None and r.kind is RulingKind.SLAP_RESULT:
                    if r.extra.get("too_close"):
                        hold["reslap"] += 1
                        pending += slaps.presses_after_call(round(r.t * NS_PER_S),
                                                            hold["reslap"])
                    else:
                        hold["done"] = True
                elif r.kind is RulingKind.ROUND_OVER and hold is not None:
                    hold["done"] = True
            if view is not None:
                view.update(monitor, t_ns / NS_PER_S)
            # --- time goes on
            frames += 1
            now["ns"] += frame_ns
            if stopped:
                pass  # the game stands still: no move, no slap decided
            elif hold is None:
                r_t += 1.0 / cfg.fps
            elif hold.get("done") or (now["ns"] - hold["since_ns"]) / NS_PER_S > SLAP_CALL_TIMEOUT_S:
                if not hold.get("done"):
                    missed_calls += 1
                slaps.round += 1
                hold = None
                r_t = _after_slaps(record, r_t)
            if monitor.phase.value == "over" and r_t > table.end_t:
                break
            if cfg.max_frames is not None and frames >= cfg.max_frames:
                if frames >= cfg.max_frames + STOP_TAIL_FRAMES:
                    break
                if not stopped:
                    stopped, r_t = True, shown_t  # the game stands as the last frame showed it
        rulings += session.flush()
        sight.finish(frames)
    pads.close()
    # The bots' true moves beside the log: `replay` of the log can be checked against them.
    truth_path(log_path).write_text(record.to_jsonl(), encoding="utf-8")
    wall = time.perf_counter() - wall0
    # Stopped early (max_frames): the truth is what the bots had done when the game stopped.
    shown = record if shown_t >= table.end_t else replace(
        record, events=[e for e in record.events if e.t <= shown_t])
    comparison = compare(true_items(shown), monitor_items(monitor.moves, monitor.rulings))
    return DemoResult(record, comparison, log_path, frames, wall, frames / cfg.fps,
                      list(monitor.rulings), latency, touch_latency, latency_rulings,
                      vision_lat, monitor_lat, missed_calls, sight, causes,
                      room.changes(until=shown_t))


class FirstReports:
    """The frame in which vision first reported each reading on each zone since the zone's
    true top last changed. A hand passing over a card already reported makes the zone `?`
    and the card is reported again when it leaves; that later report is not when the
    referee could first see the card, and a ruling waiting on another zone meanwhile is the
    monitor's wait, not vision's."""

    def __init__(self) -> None:
        self._first: dict[str, dict[str, int]] = {}

    def top_changed(self, zone: str) -> None:
        self._first.pop(zone, None)

    def said(self, readings: Mapping[str, str], frame: int) -> None:
        for zone, reading in readings.items():
            self._first.setdefault(zone, {}).setdefault(reading, frame)

    def first(self, zone: str, reading: str) -> int | None:
        return self._first.get(zone, {}).get(reading)


def _slow(latency: int, stable_frames: int, clear: int | None, report: int | None,
          back: int | None) -> Slow | None:
    """Why a ruling `latency` frames after its card's first clear frame `clear` took longer
    than stable_frames: `report` is the frame vision reported the card on its zone (None:
    never), `back` the first frame after `clear` a hand covered the zone again (None: none)."""
    if latency <= stable_frames or clear is None:
        return None
    if report is not None and report - clear <= stable_frames:
        return Slow.MONITOR
    if back is not None and (report is None or back <= report):
        return Slow.HAND_BACK
    return Slow.VISION if report is not None else Slow.UNREPORTED


def truth_path(log_path: Path) -> Path:
    return log_path.with_name(log_path.stem + ".truth.jsonl")


def _after_slaps(record: GameRecord, t: float) -> float:
    """The record time just after the slaps of the round end at `t` (its RoundOver)."""
    for e in record.events:
        if isinstance(e, RoundOver) and e.t >= t:
            return e.t
    return t
