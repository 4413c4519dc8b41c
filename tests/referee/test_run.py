"""`spit-referee run` end to end on a recording: a rendered game written as a video file, the
table found from the mat's markers, no pads; and its clear errors."""
import json
import random

import cv2
import pytest

from calibration.store import default_calibration, save
from referee.cli import main
from referee.live.demo import DEMO_BOT, READY_S
from referee.live.demotable import DemoTable
from referee.live.run import RunOptions, run_live
from referee.live.view import PlainView
from referee.monitor import Monitor
from referee.rulings import RulingKind
from referee.simulate import SimConfig, simulate_game
from vision.render import SHIPPED_BACK, SHIPPED_DECK, CameraPose, Look, Renderer
from vision.stream import FrameStream

FPS = 30.0


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    """Seven seconds of a bot game as an MJPG video: the bare mat, the deal, the first spit."""
    record = simulate_game(12, SimConfig(bots=(DEMO_BOT, DEMO_BOT), ready_s=READY_S))
    table = DemoTable(record, random.Random(1))
    stream = FrameStream(Renderer(), SHIPPED_DECK, SHIPPED_BACK, camera=CameraPose(tilt_deg=3),
                         look=Look(jpeg_quality=None), mat_bgr=(60, 110, 40))
    path = tmp_path_factory.mktemp("run") / "game.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, (1280, 720))
    t = record.events[0].t - 2.5
    for _ in range(int(7 * FPS)):
        m = table.at(t)
        out.write(stream.frame(m.piles, m.hands).frame)
        t += 1 / FPS
    out.release()
    return path


@pytest.fixture(scope="module")
def calibration(tmp_path_factory):
    return save(default_calibration(), tmp_path_factory.mktemp("cal") / "cal.json")


def test_run_referees_a_recorded_game_and_its_log_replays(video, calibration, tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    monitor, path = run_live(RunOptions(camera=str(video), calibration=calibration, log=log,
                                        no_pads=True), PlainView())
    assert path == log
    assert RulingKind.DEAL in [r.kind for r in monitor.rulings]
    objs = [json.loads(x) for x in log.read_text().splitlines()]
    assert any("observe" in o for o in objs)
    again = Monitor()
    for o in objs:
        if "ruling" not in o:
            again.feed(o)
    assert [r.to_json() for r in again.rulings] == _monitor_rulings(objs)
    # The inputs and the run's own notes are in time order (no LEDs here; stamped with the
    # wall clock, this note came before the first frame's observation, stamped earlier). (The
    # monitor's timed calls are stamped when they fell due, up to a frame before the line
    # that brought them.)
    times = [round(o["t"], 6) for o in objs  # (a ruling's t is written to the microsecond)
             if "ruling" not in o or "note" in o]
    assert times == sorted(times)
    notes = [o for o in objs if o.get("note") == "run"]
    assert any("no LEDs and buzzer" in o["message"] for o in notes)
    assert "observe" in objs[0]
    out = capsys.readouterr().out
    deal = next(r for r in monitor.rulings if r.kind == RulingKind.DEAL)
    assert out.count(deal.message) == 1, "each ruling is printed once (the view, no console)"


def _monitor_rulings(objs):
    """The logged rulings less the run's own notes (an announcer's, a frame skipped, the
    camera lost), which are not the monitor's: `"note": "run"`."""
    return [o for o in objs if "ruling" in o and "note" not in o]


@pytest.fixture(scope="module")
def frames(video):
    """The video's frames, decoded."""
    cap = cv2.VideoCapture(str(video))
    out = []
    while True:
        ok, frame = cap.read()
        if not ok:
            return out
        out.append(frame)


def test_run_skips_a_frame_it_cannot_read_and_referees_on(frames, calibration, tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, frame in enumerate(frames):
        cv2.imwrite(str(folder / f"f{i:03d}.jpg"), frame)
    torn = (folder / "f060.jpg").read_bytes()
    (folder / "f060.jpg").write_bytes(torn[:len(torn) // 2])  # libjpeg would pad it grey
    cv2.imwrite(str(folder / "f061.jpg"), cv2.resize(frames[61], (640, 360)))  # another size
    log = tmp_path / "game.jsonl"
    monitor, _ = run_live(RunOptions(camera=str(folder), calibration=calibration, log=log,
                                     no_pads=True), PlainView())
    skipped = [o["message"] for o in map(json.loads, log.read_text().splitlines())
               if o.get("ruling") == "warning"]
    assert any("f060.jpg cannot be read as an image (is truncated" in m for m in skipped)
    assert any("frame skipped: the frame is 640×360" in m for m in skipped)
    assert RulingKind.DEAL in [r.kind for r in monitor.rulings], "refereeing went on"


def test_ctrl_c_ends_the_run_after_the_frame_in_hand_with_every_ruling_logged(
        video, calibration, tmp_path, monkeypatch):
    """Ctrl-C as the deal's ruling is being written: the ruling still reaches the log, and the
    run stops after that frame (before, the interrupt left the input without its ruling)."""
    import os
    import signal

    from referee.live.eventlog import EventLog

    write = EventLog.ruling

    def interrupted(self, ruling):
        if ruling.kind == RulingKind.DEAL:
            os.kill(os.getpid(), signal.SIGINT)
        write(self, ruling)

    monkeypatch.setattr(EventLog, "ruling", interrupted)
    handler = signal.getsignal(signal.SIGINT)
    log = tmp_path / "game.jsonl"
    monitor, _ = run_live(RunOptions(camera=str(video), calibration=calibration, log=log,
                                     no_pads=True), PlainView())
    assert signal.getsignal(signal.SIGINT) is handler
    objs = [json.loads(x) for x in log.read_text().splitlines()]
    assert objs[-1]["ruling"] == "deal", "it stopped after the frame in hand"
    again = Monitor()
    for o in objs:
        if "ruling" not in o:
            again.feed(o)
    assert [r.to_json() for r in again.rulings] == _monitor_rulings(objs)


def test_run_with_a_camera_that_fails_at_once_leaves_no_log(calibration, tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    (folder / "f000.png").write_bytes(b"not an image")
    log = tmp_path / "g.jsonl"
    assert main(["run", "--camera", str(folder), "--calibration", str(calibration),
                 "--no-pads", "--plain", "--log", str(log)]) == 1
    assert not log.exists(), "a retry is not blocked by an empty log"


def test_run_resume_refuses_a_file_that_is_not_a_log(video, calibration, tmp_path, capsys):
    before = calibration.read_bytes()
    code = main(["run", "--camera", str(video), "--calibration", str(calibration),
                 "--no-pads", "--plain", "--resume", str(calibration)])
    assert code == 1 and "holds no log lines" in capsys.readouterr().err
    assert calibration.read_bytes() == before


def test_run_without_a_calibration_file_says_how_to_make_one(video, tmp_path, capsys):
    code = main(["run", "--camera", str(video), "--calibration", str(tmp_path / "none.json"),
                 "--no-pads", "--plain", "--log", str(tmp_path / "g.jsonl")])
    assert code == 1
    assert "calibrat" in capsys.readouterr().err


def test_run_with_a_missing_camera_says_what_was_expected(calibration, tmp_path, capsys):
    code = main(["run", "--camera", str(tmp_path / "nothing.mp4"), "--calibration",
                 str(calibration), "--no-pads", "--plain", "--log", str(tmp_path / "g.jsonl")])
    assert code == 1
    err = capsys.readouterr().err
    assert "nothing.mp4" in err
    assert not (tmp_path / "g.jsonl").exists()


def test_run_refuses_to_overwrite_an_existing_log(video, calibration, tmp_path, capsys):
    log = tmp_path / "old.jsonl"
    log.write_text('{"t": 0, "observe": {}}\n')
    code = main(["run", "--camera", str(video), "--calibration", str(calibration), "--no-pads",
                 "--plain", "--log", str(log)])
    assert code == 1 and "--resume" in capsys.readouterr().err
    assert log.read_text() == '{"t": 0, "observe": {}}\n'


def test_log_dir_continues_an_interrupted_game_and_starts_a_new_one_after_a_finished_one(
        tmp_path):
    """`run --log-dir` (the systemd unit): a crash mid-game, and the restart goes on with the
    same log; a game that ended, a log left long ago, or one that cannot be read, and the
    next start is a new game."""
    import os
    import time

    from referee.live.run import RESUME_WITHIN_S, log_in_dir

    path, resume = log_in_dir(tmp_path)
    assert path.parent == tmp_path and path.name.startswith("spit-game-") and not resume
    old = tmp_path / "spit-game-20261205-010000.jsonl"
    old.write_text('{"t": 1.0, "start": {"p1": 26, "p2": 26}}\n{"t": 2.0, "observe": {}}\n')
    assert log_in_dir(tmp_path) == (old, True)
    stale = time.time() - RESUME_WITHIN_S - 5
    os.utime(old, (stale, stale))
    assert log_in_dir(tmp_path)[1] is False
    os.utime(old, None)
    with open(old, "a") as f:
        f.write('{"t": 3.0, "ruling": "game-over", "winner": "p1", "message": "P1 wins"}\n')
    assert log_in_dir(tmp_path)[1] is False
    old.write_bytes(b"\x00\x01 not a log\n")
    assert log_in_dir(tmp_path)[1] is False
    with pytest.raises(Exception, match="no such folder"):
        log_in_dir(tmp_path / "none")


def test_run_with_log_dir_resumes_the_game_a_crash_interrupted(video, calibration, tmp_path):
    first, _ = run_live(RunOptions(camera=str(video), calibration=calibration,
                                   log_dir=tmp_path, no_pads=True), PlainView())
    logs = sorted(tmp_path.glob("spit-game-*.jsonl"))
    assert len(logs) == 1 and first.phase.value != "over"
    again, path = run_live(RunOptions(camera=str(video), calibration=calibration,
                                      log_dir=tmp_path, no_pads=True), PlainView())
    assert path == logs[0] and sorted(tmp_path.glob("spit-game-*.jsonl")) == logs
    assert [r.to_json() for r in again.rulings][:len(first.rulings)] == [
        r.to_json() for r in first.rulings]
