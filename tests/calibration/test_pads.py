"""`calibrate pads`: guided pin mapping and timing on mock pins, and the `--check` press test."""
import argparse
import json

import pytest

from calibration import store
from calibration.pads import (
    PadCalibrationError,
    command,
    measure_presses,
    run_check,
    run_guided,
)
from hardware.mockpads import PadPresser, mock_factory
from hardware.pads import PadTiming

MS = 1_000_000
# The pads are wired to other pins than the defaults, in a shuffled order.
WIRING = {"p1.left": 24, "p1.right": 17, "p2.left": 23, "p2.right": 27}
CANDIDATES = [17, 27, 22, 23, 24]


class Player:
    """Answers the prompts by pressing the pad each prompt names, with exact bounce trains."""

    def __init__(self, factory, wiring=WIRING, hold_ms=80, press_bounce=(0.4, 1.1, 2.5),
                 release_bounce=(0.3, 1.8)):
        self.presser = PadPresser(factory, {p: n for p, n in wiring.items()})
        self.hold_ms, self.pb, self.rb = hold_ms, press_bounce, release_bounce
        self.t = 10_000 * 1_000_000_000
        self.prompts = []
        self.override = {}  # prompt number → what to do instead

    def press(self, pad, times=3):
        for _ in range(times):
            t0 = self.t
            edges = [(t0, True)]
            for k, b in enumerate(self.pb):  # bounce: open, close, …, ending closed
                edges += [(t0 + round(b * MS) - 100_000, False), (t0 + round(b * MS), True)]
            tr = t0 + self.hold_ms * MS
            edges.append((tr, False))
            for b in self.rb:
                edges += [(tr + round(b * MS) - 100_000, True), (tr + round(b * MS), False)]
            self.presser.edges(pad, edges)
            self.t += 1_000 * MS

    def __call__(self, prompt):
        self.prompts.append(prompt)
        n = len(self.prompts)
        if n in self.override:
            return self.override[n](self)
        pad = prompt.split()[1]
        self.press(pad)
        return ""


def test_each_pad_is_mapped_to_the_pin_that_moved_and_its_timing_measured():
    f = mock_factory()
    said = []
    result = run_guided(f, CANDIDATES, ask=Player(f), say=said.append)
    assert dict(result.pins) == WIRING
    m = result.measures["p2.left"]
    assert m.presses == 3 and m.bounce_ms_max == pytest.approx(2.5)
    assert m.release_bounce_ms_max == pytest.approx(1.8) and m.hold_ms_min == pytest.approx(80)
    # Twice the worst bounce, but never under 10 ms; real button holds keep the settle check.
    assert result.bounce_ms == 10.0 and result.min_press_ms == PadTiming().min_press_ms
    assert any("GPIO 23" in s for s in said)


def test_long_bouncing_switch_raises_the_debounce_and_is_reported():
    f = mock_factory()
    result = run_guided(f, CANDIDATES, ask=Player(f, press_bounce=(3.0, 9.0, 16.0)),
                        say=lambda s: None)
    assert result.bounce_ms == 32.0
    assert any("worn or loose" in n and "32 ms" in n for n in result.notes)


def test_piezo_pulses_switch_off_the_settle_check():
    f = mock_factory()
    result = run_guided(f, CANDIDATES, ask=Player(f, hold_ms=3, press_bounce=(0.5,),
                                                  release_bounce=()), say=lambda s: None)
    assert result.min_press_ms == 0.0 and any("piezo" in n for n in result.notes)


def test_two_pins_moving_for_one_pad_asks_again():
    f = mock_factory()
    player = Player(f)
    player.override[1] = lambda p: (p.press("p1.left"), p.press("p2.right"), "")[-1]
    said = []
    result = run_guided(f, CANDIDATES, ask=player, say=said.append)
    assert "all changed: press only p1.left" in said[0]
    assert dict(result.pins) == WIRING and len(player.prompts) == 5


def test_pressing_an_already_mapped_pad_is_refused_and_asked_again():
    f = mock_factory()
    player = Player(f)
    player.override[2] = lambda p: (p.press("p1.left"), "")[-1]  # p1.right asked, p1.left hit
    said = []
    run_guided(f, CANDIDATES, ask=player, say=said.append)
    assert any("GPIO 24 is p1.left's pin: press p1.right" in s for s in said)


def test_disconnected_pad_fails_after_retries_with_a_wiring_hint():
    f = mock_factory()
    player = Player(f)
    for k in (2, 3, 4):
        player.override[k] = lambda p: ""  # p1.right shows no edge at all
    with pytest.raises(PadCalibrationError, match="no edge on any candidate pin while p1.right"):
        run_guided(f, CANDIDATES, ask=player, say=lambda s: None)


def test_pad_stuck_down_at_the_start_is_reported_before_any_prompt():
    f = mock_factory()
    f.pin(22).hold_at(False)
    with pytest.raises(PadCalibrationError, match="GPIO 22 already reads pressed"):
        run_guided(f, CANDIDATES, ask=Player(f), say=lambda s: None)


def test_quitting_saves_nothing(tmp_path):
    f = mock_factory()
    path = tmp_path / "cal.json"
    args = argparse.Namespace(calibration=str(path), check=False, pins=CANDIDATES, presses=3,
                              pull_down=False, seconds=1.0)
    with pytest.raises(PadCalibrationError, match="nothing was saved"):
        command(args, factory=f, ask=lambda prompt: "q", say=lambda s: None)
    assert not path.exists()


def _calibrate(path):
    """`calibrate pads` on `path` with the player pressing each pad in turn; the file after."""
    f = mock_factory()
    args = argparse.Namespace(calibration=str(path), check=False, pins=CANDIDATES, presses=3,
                              pull_down=False, seconds=1.0)
    assert command(args, factory=f, ask=Player(f), say=lambda s: None) == 0
    return store.load(path)


def test_command_saves_pins_and_timing_and_keeps_other_sections(tmp_path):
    path = tmp_path / "cal.json"
    cal = store.default_calibration()
    cal = cal.replace_section("referee", store.RefereeSection(settle_s=2.5))
    store.save(cal, path)
    loaded = _calibrate(path)
    assert dict(loaded.pads.pins) == WIRING and loaded.pads.bounce_ms == 10.0
    assert loaded.referee.settle_s == 2.5
    doc = json.loads(path.read_text())
    assert doc["pads"]["measured"]["pads"]["p1.right"]["pin"] == 17
    assert PadTiming.from_section(loaded.pads).min_press_ms == 5.0


def test_measure_presses_splits_presses_and_times_them():
    edges = [(0, True), (MS, False), (2 * MS, True), (50 * MS, False),
             (200 * MS, True), (260 * MS, False), (261 * MS, True), (262 * MS, False)]
    recs = measure_presses("p1.left", edges)
    assert [(r.bounce_ns, r.hold_ns) for r in recs] == [(2 * MS, 50 * MS), (0, 60 * MS)]
    assert recs[1].release_bounce_ns == 2 * MS


def _section(**kw):
    return store.PadsSection(**kw)


def test_check_prints_timings_and_passes_when_every_pad_works():
    f = mock_factory()
    t = [10_000 * 1_000_000_000]
    said = []
    presser = PadPresser(f, dict(store.PadsSection().pins))

    def drive():
        for k, pad in enumerate(store.PadsSection().pins):
            presser.slap(pad, t[0] + k * 500 * MS, hold_ms=90, bounce_ms=3)
        t[0] += 5_000 * MS

    code = run_check(f, _section(), say=said.append, clock=lambda: t[0], watch=False,
                     drive=drive)
    assert code == 0 and said[-1] == "all pads OK"
    assert sum(" slap" in s for s in said) == 4
    assert any("bounce" in s and "held" in s and "90.0 ms" in s for s in said)


def test_check_fails_and_says_which_pad_was_never_pressed_or_stuck():
    f = mock_factory()
    f.pin(23).hold_at(False)  # p2.right stuck down
    t = [10_000 * 1_000_000_000]
    presser = PadPresser(f, dict(store.PadsSection().pins))
    said = []

    def drive():
        presser.slap("p1.left", t[0] + 100 * MS)
        t[0] += 2_000 * MS

    code = run_check(f, _section(), say=said.append, clock=lambda: t[0], watch=False,
                     drive=drive)
    assert code == 1
    assert any("WARNING" in s and "p2.right" in s and "pressed already" in s for s in said)
    assert any(s.startswith("not pressed") and "p1.right" in s and "p2.left" in s for s in said)


def test_command_over_an_older_file_keeps_a_backup_and_saves(tmp_path):
    """The older file's message says to re-run the calibrate steps: this one must not refuse."""
    path = tmp_path / "cal.json"
    path.write_text(json.dumps({"version": 0, "pads": {"bounce_ms": 5}}))
    f = mock_factory()
    said = []
    args = argparse.Namespace(calibration=str(path), check=False, pins=CANDIDATES, presses=3,
                              pull_down=False, seconds=1.0)
    assert command(args, factory=f, ask=Player(f), say=said.append) == 0
    assert any(f"kept it as {path}.bak" in s for s in said)
    assert dict(store.load(path).pads.pins) == WIRING
    assert json.loads((tmp_path / "cal.json.bak").read_text())["version"] == 0


def test_command_replaces_a_bad_pads_section(tmp_path):
    path = tmp_path / "cal.json"
    path.write_text(json.dumps({"version": 1, "pads": {"bounce_ms": -1},
                                "referee": {"settle_s": 2.5}}))
    with pytest.raises(store.CalibrationError, match=r"pads\.bounce_ms: .*re-run `spit-referee calibrate pads`"):
        store.load(path)
    loaded = _calibrate(path)
    assert dict(loaded.pads.pins) == WIRING and loaded.referee.settle_s == 2.5
