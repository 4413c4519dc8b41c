"""Frame sources behind one interface: iterate to get `(frame, t_ns)` pairs.

`t_ns` is on the one clock of DESIGN.md, CLOCK_MONOTONIC in nanoseconds, so frames can be
ordered against slap-pad edges. Sources:

- `Picamera2Source`: the Raspberry Pi camera; the frame and its `SensorTimestamp` come from
  the same completed request (`captured_request()`), so they always belong together.
- `VideoCaptureSource`: an OpenCV webcam (device index) or a video file. A file's timestamps
  are its own (`CAP_PROP_POS_MSEC`) laid onto a start time; a webcam's are read on grab.
- `FolderSource`: the images of a folder in natural sort order, timestamped at a fixed rate.
- `GeneratorSource`: any callable `produce(index, t_ns) -> frame | None` (the scene renderer).

Endings: a file, folder or generator that runs out ends the iteration cleanly. A live camera
that stops delivering raises `CameraLost`, which the live referee catches to keep the game
state, say so, and reopen the camera (`open_source(exc.spec)`) when it comes back.

`open_source(spec)` turns a `--camera` value into a source: `picamera2`, a device index (`0`)
or `/dev/videoN`, a video file, or a folder. Nothing here imports picamera2 until it is asked
for, so a PC without it runs everything else.
"""
from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

import numpy as np

from referee.errors import UserError

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v", ".h264", ".mjpeg", ".mjpg"})

DEFAULT_FPS = 30.0
DEFAULT_RESOLUTION = (1280, 720)
PICAMERA_TIMEOUT_S = 2.0
"""A Pi camera that delivers no frame for this long (60 frame times at 30 fps) is gone: its
cable has come loose or libcamera has stopped."""
MAX_READ_FAILURES = 5
"""Consecutive failed reads before a webcam counts as lost: a USB camera can drop a single
buffer when the bus is busy, but an unplugged one fails every read."""


class SourceError(UserError):
    """A frame source cannot be opened or read; the message says what to do."""


class SourceNotFoundError(SourceError):
    """The camera, file or folder named by `--camera` is not there (or picamera2 is missing)."""


class CameraLost(SourceError):
    """A live camera stopped delivering frames mid-stream. `spec` reopens it."""

    def __init__(self, message: str, spec: str, frames_read: int) -> None:
        super().__init__(message)
        self.spec = spec
        self.frames_read = frames_read


class UnreadableFrameError(SourceError):
    """An image in a folder source cannot be read."""


class TimedFrame(NamedTuple):
    """One frame (a BGR or greyscale uint8 array) and its CLOCK_MONOTONIC time in ns."""

    frame: np.ndarray
    t_ns: int


class FrameSource(ABC):
    """Iterate for `TimedFrame`s (unpack as `frame, t_ns`); close when done (or use `with`)."""

    spec: str = ""
    live: bool = False  # a camera (may be lost) rather than a recording (ends)

    def __enter__(self) -> "FrameSource":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @abstractmethod
    def __iter__(self) -> Iterator[TimedFrame]: ...

    def close(self) -> None:
        """Release the device or file; safe to call twice."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"


def _pace(t_ns: int) -> None:
    """Sleep until the monotonic clock reaches `t_ns` (play a recording at its real speed)."""
    delay = t_ns - time.monotonic_ns()
    if delay > 0:
        time.sleep(delay / 1e9)


# --- picamera2 --------------------------------------------------------------------------------

class Picamera2Source(FrameSource):
    """The Raspberry Pi camera through picamera2 (Raspberry Pi OS package python3-picamera2).

    Frames are BGR (picamera2's "RGB888" is B, G, R in memory, as OpenCV expects)."""

    live = True

    def __init__(self, resolution: tuple[int, int] = DEFAULT_RESOLUTION, fps: float = DEFAULT_FPS,
                 camera_num: int = 0, timeout_s: float = PICAMERA_TIMEOUT_S) -> None:
        self.spec = "picamera2"
        self.timeout_s = timeout_s
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise SourceNotFoundError(
                "--camera picamera2: the picamera2 library is not installed. On a Raspberry Pi: "
                "`sudo apt install python3-picamera2` and make the virtualenv with "
                "--system-site-packages; on a PC use a webcam (--camera 0), a video file or a "
                "folder of images") from None
        try:
            self._cam = Picamera2(camera_num)
        except (IndexError, RuntimeError) as exc:
            raise SourceNotFoundError(
                f"--camera picamera2: no Raspberry Pi camera found ({exc}): check the ribbon "
                "cable and that `rpicam-hello --list-cameras` lists it") from None
        duration_us = round(1e6 / fps)
        config = self._cam.create_video_configuration(
            main={"size": tuple(resolution), "format": "RGB888"},
            controls={"FrameDurationLimits": (duration_us, duration_us)})
        self._cam.configure(config)
        self._cam.start()
        self._frames = 0

    def __iter__(self) -> Iterator[TimedFrame]:
        while True:
            try:
                # Array and metadata from the same request: read apart they may be two frames.
                with self._cam.captured_request(wait=self.timeout_s) as request:
                    frame = request.make_array("main")
                    t_ns = int(request.get_metadata()["SensorTimestamp"])
            except TimeoutError:
                if hasattr(self._cam, "cancel_all_and_flush"):
                    self._cam.cancel_all_and_flush()
                raise CameraLost(
                    f"the Pi camera delivered no frame for {self.timeout_s:g} s after "
                    f"{self._frames} frames: check its cable; the game is kept and the camera "
                    "is reopened when it answers again", self.spec, self._frames) from None
            except RuntimeError as exc:
                raise CameraLost(f"the Pi camera failed after {self._frames} frames ({exc}); "
                                 "the game is kept", self.spec, self._frames) from None
            self._frames += 1
            yield TimedFrame(frame, t_ns)

    def close(self) -> None:
        cam, self._cam = getattr(self, "_cam", None), None
        if cam is not None:
            try:
                cam.stop()
            finally:
                cam.close()


# --- OpenCV VideoCapture ----------------------------------------------------------------------

class VideoCaptureSource(FrameSource):
    """A webcam (device index or /dev/videoN) or a video file through cv2.VideoCapture.

    Webcam frames are stamped with the monotonic clock right after `grab()` returns. A file's
    frames carry the file's own time (CAP_PROP_POS_MSEC, or index / fps where the backend gives
    none) added to `start_ns` (default: when the source was opened); with `realtime=True` they
    are delivered no faster than those times, as a camera would."""

    def __init__(self, target: int | str | Path, *, live: bool | None = None,
                 start_ns: int | None = None, realtime: bool = False,
                 resolution: tuple[int, int] | None = None, fps: float | None = None,
                 capture: Any = None) -> None:
        import cv2
        self.spec = str(target)
        self.live = isinstance(target, int) or str(target).startswith("/dev/") if live is None else live
        self.realtime = realtime
        if capture is None:
            if not self.live and not Path(target).is_file():
                raise SourceNotFoundError(f"--camera {target}: no such video file; check the path")
            capture = cv2.VideoCapture(target if isinstance(target, int) else str(target))
        self._cap = capture
        if not self._cap.isOpened():
            self._cap.release()
            if self.live:
                raise SourceNotFoundError(
                    f"--camera {target}: no camera answers at this device; check it is plugged "
                    "in (`ls /dev/video*` lists the devices), not used by another program, and "
                    "that you may read it (the 'video' group)")
            raise SourceNotFoundError(f"--camera {target}: OpenCV cannot decode this video "
                                      "file; convert it to MP4 (H.264) or AVI (MJPEG)")
        if self.live:
            # Frames queued in the driver are stale by the time they are read; a referee wants
            # the newest one (backends that cannot do this ignore it).
            self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        if resolution is not None and self.live:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, resolution[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, resolution[1])
        if fps is not None and self.live:
            self._cap.set(cv2.CAP_PROP_FPS, fps)
        file_fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps or (file_fps if file_fps and 0 < file_fps < 1000 else DEFAULT_FPS)
        self.start_ns = time.monotonic_ns() if start_ns is None else start_ns
        self._frames = 0

    def __iter__(self) -> Iterator[TimedFrame]:
        import cv2
        failures = 0
        last_t = None
        step = round(1e9 / self.fps)
        while self._cap is not None:
            ok = self._cap.grab()
            t_grab = time.monotonic_ns()
            frame = None
            if ok:
                ok, frame = self._cap.retrieve()
            if not ok or frame is None:
                if not self.live:
                    return  # the video ended: a clean end of the stream
                failures += 1
                if failures >= MAX_READ_FAILURES:
                    raise CameraLost(
                        f"camera {self.spec} stopped delivering frames after {self._frames} "
                        f"frames ({failures} reads failed in a row): check its cable; the game "
                        "is kept and the camera is reopened when it answers again",
                        self.spec, self._frames)
                continue
            failures = 0
            if self.live:
                t_ns = t_grab
            else:
                pos_ms = self._cap.get(cv2.CAP_PROP_POS_MSEC)
                t_ns = self.start_ns + (round(pos_ms * 1e6) if pos_ms > 0 or self._frames == 0
                                        else self._frames * step)
                if last_t is not None and t_ns <= last_t:
                    t_ns = last_t + step  # a backend with no usable times: keep time moving
                if self.realtime:
                    _pace(t_ns)
            last_t = t_ns
            self._frames += 1
            yield TimedFrame(frame, t_ns)

    def close(self) -> None:
        cap, self._cap = getattr(self, "_cap", None), None
        if cap is not None:
            cap.release()


# --- folder of images -------------------------------------------------------------------------

def _natural_key(path: Path) -> list:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]


class FolderSource(FrameSource):
    """The images of a folder in natural order (frame2 before frame10), at `fps`, from
    `start_ns` (default: when opened). The stream ends after the last image."""

    def __init__(self, folder: str | Path, *, fps: float = DEFAULT_FPS, start_ns: int | None = None,
                 realtime: bool = False,
                 on_unreadable: Callable[[str], None] | None = None) -> None:
        """`on_unreadable`: an image that cannot be read is skipped and this is told why
        (the live referee logs it and goes on); without it, the stream stops with
        UnreadableFrameError."""
        folder = Path(folder)
        self.on_unreadable = on_unreadable
        self.spec = str(folder)
        if not folder.is_dir():
            raise SourceNotFoundError(f"--camera {folder}: no such folder; check the path")
        if fps <= 0:
            raise SourceError(f"frame rate must be above 0, got {fps:g}")
        self.paths = sorted((p for p in folder.iterdir()
                             if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()), key=_natural_key)
        if not self.paths:
            raise SourceNotFoundError(
                f"--camera {folder}: the folder holds no images "
                f"({', '.join(sorted(IMAGE_SUFFIXES))}); point it at a folder of frames")
        self.fps = fps
        self.start_ns = time.monotonic_ns() if start_ns is None else start_ns
        self.realtime = realtime

    def __iter__(self) -> Iterator[TimedFrame]:
        from vision.imagefile import ImageFileError, load_image
        for i, path in enumerate(self.paths):
            try:
                frame = load_image(path, "camera frame")  # a truncated one too, not padded grey
            except ImageFileError as exc:
                why = (f"{path} cannot be read as an image ({exc.problem}): "
                       "remove it from the folder or replace it")
                if self.on_unreadable is None:
                    raise UnreadableFrameError(why) from None
                self.on_unreadable(why)
                continue
            t_ns = self.start_ns + round(i * 1e9 / self.fps)
            if self.realtime:
                _pace(t_ns)
            yield TimedFrame(frame, t_ns)


# --- any callable -----------------------------------------------------------------------------

class GeneratorSource(FrameSource):
    """Frames from `produce(index, t_ns)`, called at `fps` from `start_ns` (default: now) until
    it returns None or `limit` frames were made. With `realtime=True` each call waits for its
    time, so the stream runs at the speed of a camera (the demo does this)."""

    def __init__(self, produce: Callable[[int, int], np.ndarray | None], *, fps: float = DEFAULT_FPS,
                 start_ns: int | None = None, limit: int | None = None, realtime: bool = False,
                 name: str = "generator") -> None:
        if fps <= 0:
            raise SourceError(f"frame rate must be above 0, got {fps:g}")
        self.produce = produce
        self.fps = fps
        self.start_ns = time.monotonic_ns() if start_ns is None else start_ns
        self.limit = limit
        self.realtime = realtime
        self.spec = name

    def __iter__(self) -> Iterator[TimedFrame]:
        i = 0
        while self.limit is None or i < self.limit:
            t_ns = self.start_ns + round(i * 1e9 / self.fps)
            if self.realtime:
                _pace(t_ns)
            frame = self.produce(i, t_ns)
            if frame is None:
                return
            yield TimedFrame(frame, t_ns)
            i += 1


# --- --camera values --------------------------------------------------------------------------

REOPEN_INTERVAL_S = 1.0
"""How often a lost camera is tried again: often enough to resume within a second of it coming
back, rarely enough not to load the CPU the referee needs."""

def open_source(spec: str | int, *, fps: float | None = None, start_ns: int | None = None,
                realtime: bool = False, resolution: tuple[int, int] | None = None,
                on_unreadable: Callable[[str], None] | None = None) -> FrameSource:
    """The source a `--camera` value names: `picamera2`, a device index (`0`) or `/dev/videoN`,
    a video file, or a folder of images. Raises SourceNotFoundError saying what was expected.
    `on_unreadable`: see FolderSource."""
    text = str(spec).strip()
    if text.lower() == "picamera2":
        return Picamera2Source(resolution or DEFAULT_RESOLUTION, fps or DEFAULT_FPS)
    if isinstance(spec, int) or re.fullmatch(r"\d+", text):
        return VideoCaptureSource(int(text), live=True, resolution=resolution, fps=fps)
    if text.startswith("/dev/video"):
        if not Path(text).exists():
            raise SourceNotFoundError(f"--camera {text}: no such device; `ls /dev/video*` "
                                      "lists the cameras this computer sees")
        return VideoCaptureSource(text, live=True, resolution=resolution, fps=fps)
    path = Path(text).expanduser()
    if path.is_dir():
        return FolderSource(path, fps=fps or DEFAULT_FPS, start_ns=start_ns, realtime=realtime,
                            on_unreadable=on_unreadable)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            raise SourceError(f"--camera {text}: is a single image; give the folder it is in, "
                              "or use --image where the command has one")
        return VideoCaptureSource(path, live=False, start_ns=start_ns, realtime=realtime, fps=fps)
    raise SourceNotFoundError(
        f"--camera {text}: not found. Use `picamera2` (the Pi camera), a device index such as 0 "
        "(a webcam), a video file, or a folder of images")


def reopen(spec: str | int, *, interval_s: float = REOPEN_INTERVAL_S, give_up_s: float | None = None,
           on_retry: Callable[[int, SourceError], None] | None = None,
           sleep: Callable[[float], None] = time.sleep, **kwargs: Any) -> FrameSource:
    """`open_source(spec)` again and again until the camera answers (after a CameraLost).

    `on_retry(attempt, error)` is called after each failed try (to tell the players); with
    `give_up_s` the last error is raised once that many seconds have passed."""
    start = time.monotonic()
    attempt = 0
    while True:
        try:
            return open_source(spec, **kwargs)
        except SourceError as exc:
            attempt += 1
            if on_retry is not None:
                on_retry(attempt, exc)
            if give_up_s is not None and time.monotonic() - start >= give_up_s:
                raise
            sleep(interval_s)
