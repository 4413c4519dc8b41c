"""Frame sources: real videos and photos in, (frame, t_ns) out, clean ends and clear errors."""
from __future__ import annotations

import shutil
import sys
import time
import types

import cv2
import numpy as np
import pytest

from vision import sources
from vision.sources import (CameraLost, FolderSource, GeneratorSource, SourceError,
                            SourceNotFoundError, UnreadableFrameError, VideoCaptureSource,
                            open_source)


def _write_video(path, photos, fps=25.0, size=(320, 240)):
    """A real MJPEG video of real photos, one photo per frame."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, size)
    assert writer.isOpened()
    for img in photos:
        writer.write(cv2.resize(img, size, interpolation=cv2.INTER_AREA))
    writer.release()
    return path


@pytest.fixture(scope="module")
def photos(shared_data):
    paths = sorted((shared_data / "photos" / "scenes").glob("q*.jpg"))
    return [cv2.imread(str(p)) for p in paths[:6]]


def _mean_brightness(img):
    return float(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).mean())


def test_video_file_frames_come_in_order_with_file_timestamps(tmp_path, photos):
    video = _write_video(tmp_path / "game.avi", photos, fps=25.0)
    with open_source(str(video), start_ns=5_000_000_000) as src:
        got = list(src)
    assert len(got) == len(photos)
    assert [t for _, t in got] == [5_000_000_000 + i * 40_000_000 for i in range(len(photos))]
    # Each frame is the photo written there (MJPEG is lossy: compare brightness, not pixels).
    for (frame, _), photo in zip(got, photos):
        small = cv2.resize(photo, (320, 240), interpolation=cv2.INTER_AREA)
        assert frame.shape == (240, 320, 3)
        assert abs(_mean_brightness(frame) - _mean_brightness(small)) < 3


def test_video_that_ends_ends_the_iteration_cleanly(tmp_path, photos):
    src = open_source(str(_write_video(tmp_path / "v.avi", photos[:3])))
    assert isinstance(src, VideoCaptureSource) and not src.live
    it = iter(src)
    for _ in range(3):
        next(it)
    with pytest.raises(StopIteration):
        next(it)
    src.close()
    src.close()  # twice is harmless


def test_video_timestamps_default_to_the_monotonic_clock(tmp_path, photos):
    before = time.monotonic_ns()
    with open_source(str(_write_video(tmp_path / "v.avi", photos[:2]))) as src:
        (_, t0), (_, t1) = list(src)
    assert before <= t0 <= time.monotonic_ns()
    assert t1 - t0 == 40_000_000


def test_realtime_video_is_not_delivered_ahead_of_its_time(tmp_path, photos):
    start = time.monotonic_ns()
    with VideoCaptureSource(_write_video(tmp_path / "v.avi", photos[:4], fps=20.0),
                            start_ns=start, realtime=True) as src:
        for frame, t_ns in src:
            assert time.monotonic_ns() >= t_ns


def test_live_camera_that_stops_delivering_raises_camera_lost(tmp_path, photos):
    """A real VideoCapture whose frames run out while the source is live (a webcam pulled out
    after three frames) must not end quietly: the live referee needs to know."""
    cap = cv2.VideoCapture(str(_write_video(tmp_path / "v.avi", photos[:3])))
    src = VideoCaptureSource(0, live=True, capture=cap)
    it = iter(src)
    for _ in range(3):
        frame, t_ns = next(it)
    with pytest.raises(CameraLost) as e:
        next(it)
    assert e.value.spec == "0" and e.value.frames_read == 3
    assert "check its cable" in str(e.value) and "game is kept" in str(e.value)
    src.close()


def test_missing_device_index_says_how_to_find_cameras():
    with pytest.raises(SourceNotFoundError, match=r"--camera 97: no camera answers.*ls /dev/video"):
        open_source("97")


def test_missing_dev_video_path_is_clear():
    with pytest.raises(SourceNotFoundError, match=r"/dev/video97: no such device"):
        open_source("/dev/video97")


def test_folder_of_real_photos_in_order_at_a_fixed_rate(tmp_path, shared_data):
    folder = tmp_path / "frames"
    folder.mkdir()
    src_photos = sorted((shared_data / "photos" / "scenes").glob("q*.jpg"))[:4]
    # Names that sort wrongly as text: frame10 must come after frame2.
    names = ["frame1.jpg", "frame2.jpg", "frame10.jpg", "frame11.jpg"]
    for p, n in zip(src_photos, names):
        shutil.copy(p, folder / n)
    (folder / "notes.txt").write_text("not an image")
    with open_source(str(folder), fps=10.0, start_ns=1_000) as src:
        assert isinstance(src, FolderSource)
        got = list(src)
    assert [t for _, t in got] == [1_000, 100_001_000, 200_001_000, 300_001_000]
    for (frame, _), p in zip(got, src_photos):
        assert np.array_equal(frame, cv2.imread(str(p)))


def test_unreadable_image_in_a_folder_names_the_file(tmp_path, shared_data):
    folder = tmp_path / "frames"
    folder.mkdir()
    shutil.copy(shared_data / "photos" / "scenes" / "q1.jpg", folder / "a1.jpg")
    (folder / "a2.jpg").write_bytes(b"\xff\xd8 truncated")
    it = iter(FolderSource(folder))
    next(it)
    with pytest.raises(UnreadableFrameError, match=r"a2\.jpg cannot be read"):
        next(it)


def test_empty_folder_is_a_clear_error(tmp_path):
    with pytest.raises(SourceNotFoundError, match="holds no images"):
        open_source(str(tmp_path))


def test_generator_source_calls_the_callable_with_index_and_time():
    calls = []

    def produce(i, t_ns):
        calls.append((i, t_ns))
        return None if i == 3 else np.full((4, 4), i, np.uint8)

    got = list(GeneratorSource(produce, fps=50.0, start_ns=0))
    assert [t for _, t in got] == [0, 20_000_000, 40_000_000]
    assert [int(f[0, 0]) for f, _ in got] == [0, 1, 2]
    assert calls[-1] == (3, 60_000_000)


def test_generator_source_stops_at_its_limit():
    got = list(GeneratorSource(lambda i, t: np.zeros((2, 2), np.uint8), limit=5, start_ns=0))
    assert len(got) == 5


def test_missing_path_lists_what_camera_accepts(tmp_path):
    with pytest.raises(SourceNotFoundError, match=r"not found\. Use `picamera2`.*device index.*video file.*folder"):
        open_source(str(tmp_path / "nothing.mp4"))


def test_single_image_is_pointed_at_its_folder(shared_data):
    with pytest.raises(SourceError, match="single image; give the folder"):
        open_source(str(shared_data / "photos" / "scenes" / "q1.jpg"))


def test_file_that_is_not_a_video_says_so(tmp_path):
    bad = tmp_path / "game.mp4"
    bad.write_bytes(b"this is not a video")
    with pytest.raises(SourceNotFoundError, match="cannot decode this video"):
        open_source(str(bad))


def test_missing_picamera2_is_an_error_only_when_asked_for(monkeypatch):
    import subprocess
    # Importing the sources never imports picamera2 ...
    code = "import sys, vision.sources; print('picamera2' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"
    # ... and asking for it on a PC without it says what to do.
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(SourceNotFoundError, match=r"picamera2 library is not installed.*python3-picamera2.*--camera 0"):
        sources.open_source("picamera2")


class _Request:
    """What picamera2's CompletedRequest offers: an array and that same frame's metadata."""

    def __init__(self, n):
        self.n = n
        self.released = False

    def make_array(self, name):
        assert name == "main"
        return np.full((720, 1280, 3), self.n, np.uint8)

    def get_metadata(self):
        return {"SensorTimestamp": 1_000_000_000 + self.n * 33_333_333, "ExposureTime": 10000}


class _FakePicamera2:
    """Stands in for the Pi camera on a PC; it fails like picamera2 does (TimeoutError from
    a capture with a timeout) once its frames run out, as when the ribbon cable comes loose."""

    instances: list = []

    def __init__(self, camera_num=0):
        self.frames = 3
        self.log = []
        _FakePicamera2.instances.append(self)

    def create_video_configuration(self, main, controls):
        return {"main": main, "controls": controls}

    def configure(self, config):
        self.log.append(("configure", config))

    def start(self):
        self.log.append("start")

    def stop(self):
        self.log.append("stop")

    def close(self):
        self.log.append("close")

    def cancel_all_and_flush(self):
        self.log.append("cancel")

    def captured_request(self, wait=None, flush=None):
        import contextlib
        self.log.append(("wait", wait))

        @contextlib.contextmanager
        def cm():
            if self.frames == 0:
                raise TimeoutError
            self.frames -= 1
            r = _Request(3 - self.frames)
            try:
                yield r
            finally:
                r.released = True
        return cm()


def test_picamera2_frames_carry_their_own_sensor_timestamp(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=_FakePicamera2))
    src = open_source("picamera2")
    it = iter(src)
    got = [next(it) for _ in range(3)]
    for frame, t_ns in got:
        n = int(frame[0, 0, 0])
        assert t_ns == 1_000_000_000 + n * 33_333_333  # the array and metadata of one request
    cam = _FakePicamera2.instances[-1]
    assert cam.log[0][1]["main"] == {"size": (1280, 720), "format": "RGB888"}
    assert ("wait", sources.PICAMERA_TIMEOUT_S) in cam.log
    with pytest.raises(CameraLost, match="no frame for 2 s after 3 frames") as e:
        next(it)
    assert e.value.spec == "picamera2" and "cancel" in cam.log
    src.close()
    assert cam.log[-2:] == ["stop", "close"]


def test_reopen_waits_for_a_lost_source_to_come_back(tmp_path, shared_data):
    """A folder that is not there yet stands for a camera still unplugged: reopen keeps
    trying (telling the caller each time) and returns the source once it appears."""
    folder = tmp_path / "cam"
    tries = []

    def plug_in_after_two_tries(seconds):
        if len(tries) == 2:
            folder.mkdir()
            shutil.copy(shared_data / "photos" / "scenes" / "q1.jpg", folder / "a.jpg")

    src = sources.reopen(str(folder), on_retry=lambda n, e: tries.append((n, str(e))),
                         sleep=plug_in_after_two_tries)
    assert [n for n, _ in tries] == [1, 2]
    assert "not found" in tries[0][1]
    assert len(list(src)) == 1


def test_reopen_gives_up_when_asked_to():
    with pytest.raises(SourceNotFoundError, match="no camera answers"):
        sources.reopen("96", interval_s=0.0, give_up_s=0.0)
