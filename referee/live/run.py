"""`spit-referee run`: referee a real game from a camera and slap pads.

frames → vision → monitor ← pads; rulings → announcers, the crash-safe log and the terminal
view. A camera that disappears keeps the game: the referee says so, retries, and carries on
when frames come again. A recording that ends ends the session cleanly. Ctrl-C ends cleanly.
`--resume LOG` continues an interrupted game from its log.
"""
from __future__ import annotations

import signal
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from referee.coach import COACH_SETTLE_S, Coach
from referee.errors import UserError
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
    log_dir: Path | None = None  # keep the logs here; continue an interrupted game (log_in_dir)
    no_pads: bool = False
    voice: bool = False
    coach: bool = False
    plain: bool | None = None
    realtime: bool = False  # pace a recording at its own speed (a camera paces itself)
    publish: Path | None = None  # tournament credentials: publish rulings to the event's broker
    spool: Path | None = None    # where unsent rulings wait while the broker is away
    broker: str | None = None    # HOST:PORT, overriding the credentials file's


# A game's log last written this long ago (s) was not interrupted by a crash or a power cut
# the service is restarting from: its players have gone, and a new game starts.
RESUME_WITHIN_S = 600.0


def default_log_path(folder: Path | None = None) -> Path:
    name = f"spit-game-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    return folder / name if folder is not None else Path(name)


def log_in_dir(folder: Path, now: float | None = None) -> tuple[Path, bool]:
    """The log `run --log-dir` writes, and whether it continues it: the newest game log in
    `folder` when its game has not ended and it was written to in the last RESUME_WITHIN_S
    (the referee crashed, or the Pi lost power, mid-game: systemd starts it again and the
    game goes on), else a new one there. A log that cannot be read back starts a new game
    beside it rather than stop the referee."""
    from referee.live.eventlog import EventLogError

    if not folder.is_dir():
        raise EventLogError(f"--log-dir {folder}: no such folder; create it or choose another")
    now = time.time() if now is None else now
    logs = sorted(folder.glob("spit-game-*.jsonl"), key=lambda p: p.stat().st_mtime)
    if logs and now - logs[-1].stat().st_mtime <= RESUME_WITHIN_S:
        try:
            back = EventLog.check_resumable(logs[-1])
        except EventLogError:
            back = None
        if back is not None and not any(o.get("ruling") == "game-over" for o in back.objects):
            return logs[-1], True
    path = default_log_path(folder)
    while path.exists():  # two starts within a second
        time.sleep(1.0)
        path = default_log_path(folder)
    return path, False


def run_live(opts: RunOptions, view: Any) -> tuple[Monitor, Path]:
    """Referee until the recording ends, the game is over, or Ctrl-C. Returns the monitor and
    the log path.

    The camera is opened before the log is created, so a wrong `--camera` leaves no empty log
    behind. A frame that cannot be read (a corrupt image in a folder, a frame of another size)
    is skipped with a warning; any other error that ends the session says where the game so
    far is and how to continue it. Ctrl-C (SIGINT, systemd's stop) ends the session after the
    frame in hand, so every input in the log has its rulings; a second Ctrl-C stops at once."""
    from calibration.store import load
    from hardware.announce import build_announcers
    from vision.sources import open_source

    cal = load(opts.calibration)
    factory = None
    pads = None
    notes: deque[str] = deque()  # announcer notes, from any thread; logged between frames
    frame_trouble: list[str] = []  # frames a folder source skipped, unreadable
    source = None
    announcers = publisher = None
    try:
        if not opts.no_pads:
            from hardware.backend import open_pin_factory
            from hardware.pads import Pads

            factory = open_pin_factory()  # NoGpioError says how to run with --no-pads
            pads = Pads.from_section(cal.pads, factory)
        # The view shows every ruling: a console announcer would print each one twice.
        outputs = replace(cal.outputs, console=False)
        if opts.voice:
            outputs = replace(outputs, speech=replace(outputs.speech, enabled=True))
        announcers = build_announcers(outputs, factory=factory, report=notes.append)
        publisher = _publisher(opts)
        settle_s = cal.referee.settle_s
        if opts.coach:
            settle_s = max(settle_s, COACH_SETTLE_S)  # beginners need longer to see a block
        monitor = Monitor(MonitorConfig(rules=cal.rules_config(), settle_s=settle_s,
                                        tie_window_ns=round(cal.pads.tie_window_ms * 1_000_000)))
        resume = opts.resume is not None
        if opts.log_dir is not None:
            log_path, resume = log_in_dir(opts.log_dir)
        elif resume:
            log_path = opts.resume
            EventLog.check_resumable(log_path)
        else:
            log_path = opts.log or default_log_path()
            EventLog.check_new(log_path)

        def open_camera():
            return open_source(opts.camera, realtime=opts.realtime,
                               on_unreadable=frame_trouble.append)

        source = open_camera()  # before the log: a --camera that is wrong leaves no log
        log = EventLog(log_path, resume=True) if resume else EventLog(log_path)
        sinks = [announcers, view] + ([publisher] if publisher is not None else [])
        try:
            _referee(opts, cal, monitor, log, sinks, source, pads, notes, frame_trouble,
                     open_camera, view)
        except UserError as exc:
            if not resume and log.lines == 0:
                log_path.unlink(missing_ok=True)  # nothing was written: no log to block a retry
            else:
                exc.args = (f"{exc}. The game so far is in {log_path}: continue it with "
                            f"`spit-referee run --resume {log_path}` and the same options",)
            raise
        finally:
            source = None  # _referee closed it
    finally:
        if source is not None:
            source.close()
        if pads is not None:
            pads.close()
        if announcers is not None:
            announcers.close()
        if publisher is not None:
            publisher.close()
    return monitor, log_path


def _referee(opts: RunOptions, cal: Any, monitor: Monitor, log: EventLog, sinks: list,
             source: Any, pads: Any, notes: deque, frame_trouble: list, open_camera: Any,
             view: Any) -> None:
    """The session: frames and pads in, rulings out, until the recording ends, the game is
    over, or Ctrl-C; closes `source` (or the one that replaced it) before it returns."""
    from vision.rectify import RectifyError
    from vision.sources import REOPEN_INTERVAL_S, CameraLost, SourceError, SourceNotFoundError

    try:
        with log, _StopOnInterrupt() as stop:
            session = RefereeSession(monitor, log, sinks, coach=Coach() if opts.coach else None)

            def warn(message: str) -> None:
                session.warning({"t": time.monotonic_ns() / NS_PER_S, "ruling": "warning",
                                 "note": "run", "message": message})

            def warn_held() -> None:
                """The notes held for the log's clock (announcers', frames skipped)."""
                while notes:
                    warn(notes.popleft())
                while frame_trouble:
                    warn(f"frame skipped: {frame_trouble.pop(0)}")

            if log.readback is not None:
                session.resume_from(log.readback.objects, time.monotonic_ns(),
                                    log.readback.linenos)
                if log.set_aside is not None:
                    warn(f"the log's last line was torn by the crash; its "
                         f"{len(log.readback.torn_tail or '')} characters are kept in "
                         f"{log.set_aside}, and the game goes on from the line before")
            try:
                reader = None
                lost = False
                last_trouble = None
                while not stop.requested:
                    try:
                        if source is None:
                            try:
                                source = open_camera()
                            except SourceNotFoundError:
                                if stop.sleep(REOPEN_INTERVAL_S):
                                    break  # Ctrl-C while the camera was away
                                continue  # lost: wait for it to come back
                        if lost:
                            lost = False
                            warn("camera back: refereeing again")
                        for frame, t_ns in source:
                            if reader is None:
                                reader = make_reader(frame, cal)
                            session.take_pad_events(pads)
                            try:
                                obs = reader.read(frame, t_ns)
                                last_trouble = None
                            except RectifyError as exc:  # this frame only: skip it
                                if str(exc) != last_trouble:
                                    last_trouble = str(exc)
                                    notes.append(f"frame skipped: {exc}")
                                obs = None
                            session.observe(obs.readings if obs is not None else None, t_ns)
                            if monitor.reader.last_t is not None:  # (an input to stamp by)
                                warn_held()
                            view.update(monitor, (t_ns + session.offset_ns) / NS_PER_S)
                            if monitor.phase.value == "over" or stop.requested:
                                break
                        break  # the recording ended, the game is over, or Ctrl-C
                    except CameraLost as exc:
                        lost = True
                        warn(f"camera lost: {exc}")
                        source.close()
                        source = None
                        if stop.sleep(REOPEN_INTERVAL_S):
                            break
                if reader is None and not stop.requested:
                    raise SourceError(f"--camera {opts.camera}: no frame could be read"
                                      + (f" ({frame_trouble[0]})" if frame_trouble else "")
                                      + "; check the camera or the recording")
                warn_held()
            except KeyboardInterrupt:
                pass  # a second Ctrl-C: the log holds every ruling made; resume recovers
            finally:
                session.take_pad_events(pads)
                session.flush()
    finally:
        if source is not None:
            source.close()


class _StopOnInterrupt:
    """Ctrl-C (SIGINT) as a request to stop after the frame in hand, not an exception in the
    middle of one; a second Ctrl-C raises KeyboardInterrupt as usual (a camera that hangs must
    not keep the referee from stopping). Only the main thread can take signals: elsewhere
    (tests) KeyboardInterrupt is left as it is."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._old: Any = None

    @property
    def requested(self) -> bool:
        return self._event.is_set()

    def sleep(self, seconds: float) -> bool:
        """Wait `seconds`, or until Ctrl-C; whether it came."""
        return self._event.wait(seconds)

    def _handle(self, signum: int, frame: Any) -> None:
        if self._event.is_set():
            raise KeyboardInterrupt
        self._event.set()

    def __enter__(self) -> "_StopOnInterrupt":
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


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


