"""`spit-referee run`: referee a real game from a camera and slap pads.

frames → vision → monitor ← pads; rulings → announcers, the crash-safe log and the terminal
view. A camera that disappears keeps the game: the referee says so, retries, and carries on
when frames come again. A recording that ends ends the session cleanly. Ctrl-C ends cleanly.
`--resume LOG` continues an interrupted game from its log.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.coach import COACH_SETTLE_S, Coach
from referee.live.eventlog import EventLog
from referee.live.session import RefereeSession
from referee.monitor import Monitor, MonitorConfig

NS_PER_S = 1_000_000_000


@dataclass(frozen=True)
class RunOptions:
    camera: str
    calibration: Path
    log: Path | None = None
    resume: Path | None = None
    no_pads: bool = False
    voice: bool = False
    coach: bool = False
    plain: bool | None = None
    realtime: bool = False  # pace a recording at its own speed (a camera paces itself)
    publish: Path | None = None  # tournament credentials: publish rulings to the event's broker
    spool: Path | None = None    # where unsent rulings wait while the broker is away
    broker: str | None = None    # HOST:PORT, overriding the credentials file's


def default_log_path() -> Path:
    return Path(f"spit-game-{time.strftime('%Y%m%d-%H%M%S')}.jsonl")


def run_live(opts: RunOptions, view: Any) -> tuple[Monitor, Path]:
    """Referee until the recording ends, the game is over, or Ctrl-C. Returns the monitor and
    the log path."""
    from calibration.store import load
    from hardware.announce import build_announcers
    from vision.sources import REOPEN_INTERVAL_S, CameraLost, SourceNotFoundError, open_source

    cal = load(opts.calibration)
    factory = None
    pads = None
    if not opts.no_pads:
        from hardware.backend import open_pin_factory
        from hardware.pads import Pads

        factory = open_pin_factory()  # NoGpioError says how to run with --no-pads
        pads = Pads.from_section(cal.pads, factory)
    outputs = cal.outputs
    if opts.voice:
        from dataclasses import replace

        outputs = replace(outputs, speech=replace(outputs.speech, enabled=True))
    notes: list[str] = []
    announcers = build_announcers(outputs, factory=factory, report=notes.append)
    publisher = _publisher(opts)
    settle_s = cal.referee.settle_s
    if opts.coach:
        settle_s = max(settle_s, COACH_SETTLE_S)  # beginners need longer to see a block
    monitor = Monitor(MonitorConfig(rules=cal.rules_config(), settle_s=settle_s,
                                    tie_window_ns=round(cal.pads.tie_window_ms * 1_000_000)))
    if opts.resume is not None:
        log = EventLog(opts.resume, resume=True)
        log_path = opts.resume
    else:
        log_path = opts.log or default_log_path()
        log = EventLog(log_path)
    source = None
    try:
        with log:
            session = RefereeSession(monitor, log, [announcers, view],
                                     coach=Coach() if opts.coach else None)
            if log.readback is not None:
                session.resume_from(log.readback.objects, time.monotonic_ns(),
                                    log.readback.linenos)
            for note in notes:
                session.warning({"t": time.monotonic_ns() / NS_PER_S, "ruling": "warning",
                                 "message": note})
            try:
                reader = None
                lost = False
                while True:
                    try:
                        try:
                            source = open_source(opts.camera, realtime=opts.realtime)
                        except SourceNotFoundError:
                            if not lost:
                                raise  # never seen: the --camera value is wrong
                            time.sleep(REOPEN_INTERVAL_S)  # lost: wait for it to come back
                            continue
                        if lost:
                            lost = False
                            session.warning({"t": time.monotonic_ns() / NS_PER_S,
                                             "ruling": "warning",
                                             "message": "camera back: refereeing again"})
                        for frame, t_ns in source:
                            if reader is None:
                                reader = make_reader(frame, cal)
                            session.take_pad_events(pads)
                            obs = reader.read(frame, t_ns)
                            session.observe(obs.readings if obs is not None else None, t_ns)
                            view.update(monitor, (t_ns + session.offset_ns) / NS_PER_S)
                            if monitor.phase.value == "over":
                                break
                        break  # the recording ended, or the game is over
                    except CameraLost as exc:
                        lost = True
                        session.warning({"t": time.monotonic_ns() / NS_PER_S, "ruling": "warning",
                                         "message": f"camera lost: {exc}"})
                        if source is not None:
                            source.close()
                            source = None
                        time.sleep(REOPEN_INTERVAL_S)
            except KeyboardInterrupt:
                pass  # Ctrl-C: the game so far is in the log; end as cleanly as at the end
            session.take_pad_events(pads)
            session.flush()
    finally:
        if source is not None:
            source.close()
        if pads is not None:
            pads.close()
        announcers.close()
        if publisher is not None:
            publisher.close()
    return monitor, log_path


def _publisher(opts: RunOptions):
    """A tournament table publisher (tournament/) when `--publish` names credentials."""
    if opts.publish is None:
        return None
    from tournament.credentials import load as load_credentials
    from tournament.publisher import PublisherConfig, TablePublisher

    cred = load_credentials(opts.publish, role="table")
    spool = opts.spool or Path(f"spool-{cred.username}")
    return TablePublisher(PublisherConfig.from_credentials(cred, spool, opts.broker))


def make_reader(first_frame: Any, cal: Any):
    """The vision reader for this calibration: its homography, or the mat's markers in the
    first frame when the calibration has no table section."""
    from vision.reader import TableReader

    return TableReader.from_frame(first_frame, cal.layout, cal)


def summary_lines(monitor: Monitor, log_path: Path) -> list[str]:
    from referee.report import build_report, format_text

    lines = [format_text(build_report(monitor.rulings)), f"log: {log_path}"]
    return lines


