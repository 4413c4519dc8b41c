"""The crash-safe event log: append-only, fsynced per ruling, torn last line survived."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from referee.live.eventlog import EventLog, EventLogError, read_log
from referee.rulings import Ruling, RulingKind


def _ruling(i: int) -> Ruling:
    return Ruling(float(i), RulingKind.PLAY, player="p1", card="7H", from_="p1.stock1",
                  to="spit.left", rule="R10", message=f"P1 plays 7♥ on 8♣ (#{i})")


def test_rulings_are_read_back_in_order(tmp_path):
    path = tmp_path / "game.jsonl"
    with EventLog(path) as log:
        log.append({"t": 0.0, "observe": {"p1.stock1": "7H"}})
        for i in range(3):
            log.ruling(_ruling(i))
    back = read_log(path)
    assert back.torn_tail is None and back.bad_lines == []
    assert back.objects[0] == {"t": 0.0, "observe": {"p1.stock1": "7H"}}
    assert [Ruling.from_json(o) for o in back.objects[1:]] == [_ruling(i) for i in range(3)]


def test_new_log_refuses_to_overwrite_an_existing_file(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text('{"t": 0, "observe": {}}\n')
    with pytest.raises(EventLogError, match="--resume"):
        EventLog(path)
    assert path.read_text() == '{"t": 0, "observe": {}}\n'


def test_torn_last_line_is_reported_and_cut_off_on_resume(tmp_path):
    path = tmp_path / "game.jsonl"
    with EventLog(path) as log:
        log.ruling(_ruling(0))
        log.ruling(_ruling(1))
    with open(path, "ab") as f:  # a crash in the middle of the third line
        f.write(json.dumps(_ruling(2).to_json()).encode()[:25])
    back = read_log(path)
    assert len(back.objects) == 2 and back.torn_tail is not None
    with EventLog(path, resume=True) as log:
        assert log.readback.torn_tail == back.torn_tail
        log.ruling(_ruling(3))
        assert log.set_aside == tmp_path / "game.jsonl.torn"
    again = read_log(path)
    assert again.torn_tail is None and again.bad_lines == []
    assert [Ruling.from_json(o) for o in again.objects] == [_ruling(0), _ruling(1), _ruling(3)]
    assert (tmp_path / "game.jsonl.torn").read_text() == back.torn_tail + "\n"


def test_resume_keeps_a_last_line_that_only_lost_its_newline(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text('{"t": 0, "start": {"p1": 16, "p2": 36}}\n{"t": 1, "observe": {}}')
    with EventLog(path, resume=True) as log:
        assert log.set_aside is None and len(log.readback.objects) == 2
        assert log.append({"t": 2, "observe": {}}) == 3
    assert [o["t"] for o in read_log(path).objects] == [0, 1, 2]


@pytest.mark.parametrize("content", [
    b'{\n  "version": 1,\n  "table": {"homography": [[1, 0, 0]]}\n}\n',  # a calibration file
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4,   # an image
    b"", b"[1, 2]\n{\"a\": 1}\n"])
def test_resume_refuses_a_file_that_is_not_a_log_and_leaves_it_alone(tmp_path, content):
    path = tmp_path / "not-a-log.json"
    path.write_bytes(content)
    with pytest.raises(EventLogError, match="holds no log lines"):
        EventLog(path, resume=True)
    assert path.read_bytes() == content
    assert not (tmp_path / "not-a-log.json.torn").exists()


def test_missing_log_is_a_clear_error(tmp_path):
    with pytest.raises(EventLogError, match="no such log file"):
        read_log(tmp_path / "nope.jsonl")


_WRITER = """
import sys
from referee.live.eventlog import EventLog
from referee.rulings import Ruling, RulingKind
with EventLog(sys.argv[1]) as log:
    i = 0
    while True:
        log.ruling(Ruling(float(i), RulingKind.PLAY, player="p1", card="7H",
                          message="x" * 3000 + str(i)))
        if i == 0:
            print("started", flush=True)
        i += 1
"""


def test_writer_killed_mid_write_leaves_every_complete_ruling_readable(tmp_path):
    path = tmp_path / "killed.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"started"
    time.sleep(0.3)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    back = read_log(path)
    assert back.bad_lines == []
    numbers = [int(o["message"][3000:]) for o in back.objects]
    assert numbers == list(range(len(numbers))) and len(numbers) > 1
    # resuming continues the numbering after the last complete ruling
    with EventLog(path, resume=True) as log:
        log.ruling(Ruling(99.0, RulingKind.WARNING, message="resumed"))
    assert read_log(path).objects[-1]["message"] == "resumed"


def _live_game(tmp_path):
    """A game's camera lines as the live referee writes them: each input, then its rulings."""
    import random as _random

    from referee.obslog import ObsConfig, observation_log
    from referee.simulate import simulate_game

    record = simulate_game(4)
    return observation_log(record, ObsConfig(), _random.Random(4))


def test_resumed_monitor_continues_with_the_same_state_and_loses_no_ruling(tmp_path):
    from referee.live.eventlog import resume
    from referee.monitor import Monitor

    lines = _live_game(tmp_path)
    whole = Monitor()
    expected = [r.to_json() for line in lines for r in whole.feed(line)]
    cut = len(lines) // 2
    path = tmp_path / "live.jsonl"
    first = Monitor()
    with EventLog(path) as log:
        for i, line in enumerate(lines[:cut]):
            log.append(line)
            rulings = first.feed(line)
            if i == cut - 1:
                break  # crash: the last input is on disk, its rulings are not
            for r in rulings:
                log.ruling(r)
    with open(path, "ab") as f:
        f.write(b'{"t": 1, "obs')  # and a torn line after it
    res = resume(path)
    assert res.mismatched == 0 and res.torn_tail is not None
    with res.log as log:
        for line in lines[cut:]:
            log.append(line)
            for r in res.monitor.feed(line):
                log.ruling(r)
    back = read_log(path)
    assert back.torn_tail is None and back.bad_lines == []
    assert [o for o in back.objects if "ruling" in o] == expected


def test_a_full_disk_is_a_clear_error_and_leaves_no_torn_line(tmp_path, monkeypatch):
    """ENOSPC mid-line: the message says what to do, and the next line does not join a
    fragment (the file is cut back to where the failed line began)."""
    import errno
    import os

    path = tmp_path / "game.jsonl"
    real_write = os.write
    with EventLog(path) as log:
        log.append({"t": 1.0, "observe": {"spit.left": "7H"}}, sync=True)

        def half_then_full(fd, data):
            if fd == log._fd and len(data) > 8:
                real_write(fd, bytes(data[:8]))
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real_write(fd, data)

        monkeypatch.setattr(os, "write", half_then_full)
        with pytest.raises(EventLogError) as err:
            log.append({"t": 2.0, "observe": {"spit.left": "8H"}}, sync=True)
        monkeypatch.setattr(os, "write", real_write)
        assert "No space left" in str(err.value) and "Free some space" in str(err.value)
        assert f"--resume {path}" in str(err.value)
        assert log.append({"t": 3.0, "observe": {"spit.left": "9H"}}) == 2
    back = read_log(path)
    assert back.torn_tail is None and back.bad_lines == []
    assert [o["t"] for o in back.objects] == [1.0, 3.0]


def test_a_log_saved_with_a_byte_order_mark_reads_back_whole(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"t": 0, "start": {"p1": 26, "p2": 26}}\n{"t": 1, "observe": {}}\n')
    back = read_log(path)
    assert back.bad_lines == [] and [o["t"] for o in back.objects] == [0, 1]
    with EventLog(path, resume=True) as log:
        assert log.append({"t": 2, "observe": {}}) == 3
