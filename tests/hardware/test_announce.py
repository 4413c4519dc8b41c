"""Announcers: console, speech queue (newest urgent first), LEDs and buzzer on mock pins."""
import io
import shutil
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
    assert runner.started.wait(2)
    sp.announce(ruling("round-over", "round over"))
    sp.announce(ruling("warning", "second warning"))
    sp.announce(ruling("spit-call"))
    sp.announce(ruling("slap-call"))
    runner.gate.set()
    assert sp.wait_idle(5)
    sp.close()
    assert runner.said == ["first warning", "Slap!", "Spit!", "round over", "second warning"]


def test_speech_does_not_block_the_caller():
    runner = GatedRunner()
    sp = SpeechAnnouncer(runner=runner)
    t = time.perf_counter()
    for _ in range(20):
        sp.announce(ruling("illegal", "take it back"))
    assert time.perf_counter() - t < 0.5  # the gate is still closed: nothing was spoken yet
    runner.gate.set()
    assert sp.wait_idle(5)
    sp.close()
    assert len(runner.said) <= 1 + announce.MAX_PENDING_SPEECH  # stale calls were dropped


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


@pytest.mark.skipif(shutil.which("espeak-ng") is None,
                    reason="espeak-ng not installed (apt install espeak-ng)")
def test_espeak_writes_a_real_wav_of_a_call(tmp_path):
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
