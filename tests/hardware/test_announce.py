"""Announcers: console, speech queue (newest urgent first), LEDs and buzzer on mock pins."""
import io
import os
import threading
import time
import wave

import pytest

from calibration.store import OutputsSection, SpeechSection
from hardware import announce
from hardware.announce import (
    Announcers,
    BuzzerAnnouncer,
    ConsoleAnnouncer,
    LedAnnouncer,
    SpeechAnnouncer,
    SpeechUnavailableError,
    build_announcers,
    spoken_text,
    write_wav,
)
from hardware.mockpads import mock_factory
from referee.rulings import Ruling, RulingKind
from tests.conftest import need_program


def ruling(kind, message="", **extra):
    return {"t": 1.5, "ruling": kind, "message": message, **extra}


class GatedRunner:
    """Speaks nothing; records what it was asked to say. The first call blocks until released,
    so calls queue up behind it exactly as behind a long espeak-ng utterance."""

    def __init__(self):
        self.said = []
        self.gate = threading.Event()
        self.started = threading.Event()

    def __call__(self, text):
        self.started.set()
        self.gate.wait(5)
        self.said.append(text)


def test_console_prints_time_kind_and_message():
    buf = io.StringIO()
    ConsoleAnnouncer(buf).announce(ruling("illegal", "P2: 9♣ on 6♦ is not adjacent (R10)"))
    assert buf.getvalue() == "[    1.500] illegal     P2: 9♣ on 6♦ is not adjacent (R10)\n"


def test_console_takes_a_ruling_object_too():
    buf = io.StringIO()
    ConsoleAnnouncer(buf).announce(Ruling(2.0, RulingKind.SLAP_CALL, message="Slap!"))
    assert "slap-call" in buf.getvalue() and "Slap!" in buf.getvalue()


def test_spoken_text_reads_cards_and_players_and_drops_rule_numbers():
    text = spoken_text(ruling("illegal", "P2: 9♣ on 6♦ is not adjacent (R10) — take it back"))
    assert text == "player two: 9 of clubs on 6 of diamonds is not adjacent, take it back"
    assert spoken_text(ruling("spit-call", "Spit! (R16)")) == "Spit!"
    assert spoken_text(ruling("play", "P1 plays 7♥ on 8♣")) is None  # moves are not spoken


def test_speech_newest_urgent_call_goes_first_then_others_in_order():
    runner = GatedRunner()
    sp = SpeechAnnouncer(runner=runner)
    sp.announce(ruling("warning", "first warning"))   # spoken at once, blocks the queue
    assert runner.started.wait(10)
    sp.announce(ruling("round-over", "round over"))
    sp.announce(ruling("warning", "second warning"))
    sp.announce(ruling("spit-call"))
    sp.announce(ruling("slap-call"))
    runner.gate.set()
    assert sp.wait_idle(5)
    sp.close()
    assert runner.said == ["first warning", "Slap!", "Spit!", "round over", "second warning"]


def test_speech_does_not_block_the_caller_and_keeps_the_newest_calls():
    runner = GatedRunner()
    sp = SpeechAnnouncer(runner=runner)
    sp.announce(ruling("illegal", "P1 call 0"))
    assert runner.started.wait(5)  # call 0 is being spoken: the runner holds it at the gate
    caller = threading.Thread(target=lambda: [sp.announce(ruling("illegal", f"P1 call {n}"))
                                              for n in range(1, 20)])
    caller.start()
    caller.join(5)  # (a give-up bound: announce waiting for speech would hang here)
    assert not caller.is_alive() and runner.said == []  # 19 calls made, none spoken yet
    runner.gate.set()
    assert sp.wait_idle(5)
    sp.close()
    # Calls that queued up behind a long utterance: only the newest MAX_PENDING_SPEECH are
    # spoken, newest first; the older ones are stale.
    kept = [f"player one call {n}" for n in range(19, 19 - announce.MAX_PENDING_SPEECH, -1)]
    assert runner.said == ["player one call 0", *kept]


def test_speech_failure_is_recorded_and_speech_goes_on():
    said = []

    def flaky(text):
        if text == "Spit!":
            raise OSError("audio device busy")
        said.append(text)

    sp = SpeechAnnouncer(runner=flaky)
    sp.announce(ruling("spit-call"))
    assert sp.wait_idle(5)
    sp.announce(ruling("slap-call"))
    assert sp.wait_idle(5)
    sp.close()
    assert said == ["Slap!"] and "audio device busy" in sp.errors[0]


def test_missing_espeak_is_a_clear_note_not_a_crash(monkeypatch):
    monkeypatch.setattr(announce.shutil, "which", lambda name: None)
    outs = OutputsSection(console=False, speech=SpeechSection(enabled=True), leds=None,
                          buzzer=None)
    built = build_announcers(outs)
    assert built.announcers == []
    assert "espeak-ng is not installed" in built.notes[0]
    assert "apt install espeak-ng" in built.notes[0]
    with pytest.raises(SpeechUnavailableError):
        SpeechAnnouncer()


def test_espeak_writes_a_real_wav_of_a_call(tmp_path):
    need_program("espeak-ng")
    path = tmp_path / "slap.wav"
    write_wav(spoken_text(ruling("slap-call")), str(path))
    with wave.open(str(path)) as w:
        seconds = w.getnframes() / w.getframerate()
    assert 0.1 < seconds < 3.0


def test_leds_light_at_spit_call_and_go_out_as_each_spit_card_lands():
    f = mock_factory()
    leds = LedAnnouncer({"spit.left": 5, "spit.right": 6}, f)
    leds.announce(ruling("spit-call"))
    assert f.pin(5).state and f.pin(6).state
    leds.announce(ruling("spit", to="spit.left"))
    assert not f.pin(5).state and f.pin(6).state
    leds.announce(ruling("slap-result"))
    assert not f.pin(6).state
    leds.close()


def test_buzzer_beeps_once_on_an_illegal_play_only():
    f = mock_factory()
    bz = BuzzerAnnouncer(13, f, beep_s=0.02)
    pin = f.pin(13)
    bz.announce(ruling("play", "fine"))
    time.sleep(0.05)
    assert [s.state for s in pin.states] == [False]
    bz.announce(ruling("illegal", "P1: 5♠ on 5♥ (R10)"))
    deadline = time.monotonic() + 2
    while len(pin.states) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)
    assert [s.state for s in pin.states] == [False, True, False]
    bz.close()


def test_build_uses_the_outputs_section_and_leaves_gpio_out_without_a_factory():
    buf = io.StringIO()
    built = build_announcers(OutputsSection(), stream=buf)  # defaults: console, LEDs, buzzer
    assert [type(a) for a in built.announcers] == [ConsoleAnnouncer]
    assert "no LEDs and buzzer" in built.notes[0]
    with_gpio = build_announcers(OutputsSection(), factory=mock_factory(), stream=buf)
    assert [type(a) for a in with_gpio.announcers] == [ConsoleAnnouncer, LedAnnouncer,
                                                       BuzzerAnnouncer]
    with_gpio.close()


def test_a_failing_announcer_is_switched_off_and_the_others_go_on():
    class Broken:
        def announce(self, r):
            raise RuntimeError("LED driver gone")

        def close(self):
            pass

    buf, reports = io.StringIO(), []
    many = Announcers([Broken(), ConsoleAnnouncer(buf)], report=reports.append)
    many.announce(ruling("illegal", "one"))
    many.announce(ruling("illegal", "two"))
    assert buf.getvalue().count("illegal") == 2
    assert len(reports) == 1 and "LED driver gone" in reports[0]


# --- outputs whose pins are busy, speech that hangs or fails, notes as they happen ----------

def test_a_busy_led_or_buzzer_pin_is_left_out_with_a_note_not_a_crash():
    from gpiozero import LED, Buzzer

    f = mock_factory()
    held = [LED(5, pin_factory=f), Buzzer(13, pin_factory=f)]  # another program has them
    reports = []
    built = build_announcers(OutputsSection(), factory=f, stream=io.StringIO(),
                             report=reports.append)
    assert [type(a) for a in built.announcers] == [ConsoleAnnouncer, LedAnnouncer]
    assert len(reports) == 2 and reports == built.notes
    assert "LED for spit.left" in reports[0] and "GPIO 5" in reports[0]
    assert "buzzer" in reports[1] and "GPIO 13" in reports[1]
    built.announce(ruling("spit-call"))
    assert f.pin(6).state  # the LED whose pin is free still lights
    built.close()
    with pytest.raises(announce.OutputUnavailableError, match="GPIO 5"):
        LedAnnouncer({"spit.right": 6, "spit.left": 5}, f)  # without on_unavailable: an error
    LED(6, pin_factory=f).close()  # ...and the pin it had opened was released
    for device in held:
        device.close()


def fake_espeak(tmp_path, monkeypatch, body):
    """An espeak-ng on PATH that logs each text (its last argument) to calls.txt, then runs
    `body` (sh)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "espeak-ng"
    exe.write_text("#!/bin/sh\nfor last; do :; done\n"
                   f'echo "$last" >> "{tmp_path}/calls.txt"\n{body}\n')
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    return tmp_path / "calls.txt"


# An espeak-ng stuck on a blocked audio device; sleep runs as its child, as an audio helper
# would, and both pids are written down.
HANGING = 'sleep 60 & echo "$$ $!" >> "{pids}"; wait'


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_for(cond, timeout=3.0):
    deadline = time.monotonic() + timeout
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.01)
    return cond()


def test_a_hanging_espeak_is_killed_at_its_timeout_so_slap_is_not_spoken_late(tmp_path,
                                                                             monkeypatch):
    pids = tmp_path / "pids"
    calls = fake_espeak(tmp_path, monkeypatch, HANGING.format(pids=pids))
    reports = []
    sp = SpeechAnnouncer(runner=announce.espeak_runner(timeout_s=0.3), report=reports.append)
    sp.announce(ruling("spit-call"))
    assert wait_for(lambda: calls.exists())
    sp.announce(ruling("slap-call"))
    # Spoken at all: had the stuck espeak-ng not been killed at its 0.3 s timeout, "Slap!"
    # would have waited behind it past STALE_CALL_S and been dropped as stale.
    assert wait_for(lambda: "Slap!" in calls.read_text(), timeout=announce.STALE_CALL_S)
    first = [int(p) for p in pids.read_text().split()[:2]]
    assert not any(alive(p) for p in first)  # the stuck espeak-ng and its child are gone
    assert sp.wait_idle(2)
    sp.close()
    assert len(reports) == 1 and "did not finish within 0.3 s" in reports[0]
    assert sp.failures == 2


def test_close_kills_the_espeak_that_is_speaking(tmp_path, monkeypatch):
    pids = tmp_path / "pids"
    fake_espeak(tmp_path, monkeypatch, HANGING.format(pids=pids))
    sp = SpeechAnnouncer(runner=announce.espeak_runner(timeout_s=30))
    sp.announce(ruling("warning", "a long warning"))
    assert wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2)
    closing = threading.Thread(target=sp.close)
    closing.start()
    closing.join(5)  # (a give-up bound: the fake espeak-ng would speak for 30 s)
    assert not closing.is_alive()
    assert wait_for(lambda: not any(alive(int(p)) for p in pids.read_text().split()), 1.0)


def test_an_espeak_error_with_exit_0_is_reported_once_and_speech_goes_on(tmp_path, monkeypatch):
    # What espeak-ng does with no audio device: ALSA lines, an error, exit status 0.
    calls = fake_espeak(tmp_path, monkeypatch, "echo 'ALSA lib pcm.c: Unknown PCM default' >&2;"
                        " echo 'error: No such file or directory' >&2; exit 0")
    reports = []
    sp = SpeechAnnouncer(report=reports.append)  # the default runner: espeak-ng on PATH
    for n in range(3):
        sp.announce(ruling("warning", f"warning {n}"))
        assert sp.wait_idle(3)
    sp.close()
    assert calls.read_text().split("\n")[:3] == ["warning 0", "warning 1", "warning 2"]
    assert len(reports) == 1 and "error: No such file or directory" in reports[0]
    assert sp.failures == 3 and len(sp.errors) == 3


def test_calls_whose_turn_comes_too_late_are_not_spoken():
    now = [0.0]
    runner = GatedRunner()
    sp = SpeechAnnouncer(runner=runner, clock=lambda: now[0])
    sp.announce(ruling("warning", "first"))  # being spoken: the rest wait behind it
    assert runner.started.wait(10)
    sp.announce(ruling("spit-call"))
    sp.announce(ruling("illegal", "take it back"))
    sp.announce(ruling("round-over", "round over"))
    now[0] = announce.STALE_CALL_S + 0.5  # too late for "Spit!", not for the others
    runner.gate.set()
    assert sp.wait_idle(3)
    assert runner.said == ["first", "take it back", "round over"]
    runner.gate.clear()
    sp.announce(ruling("warning", "blocks"))
    assert wait_for(lambda: sp._busy)
    sp.announce(ruling("warning", "too late"))
    now[0] += announce.STALE_S + 1
    runner.gate.set()
    assert sp.wait_idle(3)
    sp.close()
    assert runner.said[-1] == "blocks" and sp.dropped_late == 2


def test_every_note_reaches_report_as_it_happens_and_take_notes_hands_each_out_once(
        monkeypatch):
    monkeypatch.setattr(announce.shutil, "which", lambda name: None)
    reports = []
    built = build_announcers(OutputsSection(speech=SpeechSection(enabled=True)),
                             stream=io.StringIO(), report=reports.append)
    assert len(reports) == 2  # at build time: no espeak-ng, no GPIO for LEDs and buzzer
    assert "espeak-ng is not installed" in reports[0] and "no LEDs and buzzer" in reports[1]
    assert built.take_notes() == reports and built.take_notes() == []

    class Broken:
        def announce(self, r):
            raise RuntimeError("LED driver gone")

        def close(self):
            pass

    built.announcers.insert(0, Broken())
    built.announce(ruling("illegal", "mid-game"))  # during the game
    assert len(reports) == 3 and "LED driver gone" in reports[2]
    assert built.take_notes() == [reports[2]] and built.notes == reports

    def mute(text):
        raise OSError("audio device busy")

    with_speech = build_announcers(OutputsSection(speech=SpeechSection(enabled=True),
                                                  leds=None, buzzer=None, console=False),
                                   speech_runner=mute, report=reports.append)
    with_speech.announce(ruling("slap-call"))  # speech fails in its own thread
    assert wait_for(lambda: len(reports) == 4)
    assert "audio device busy" in reports[3] and with_speech.take_notes() == [reports[3]]
    with_speech.close()
