"""Slap pads on gpiozero's MockFactory with injected kernel-style edge timestamps."""
import gc
import itertools
import time

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.mockpads import PadPresser, mock_factory
from hardware.pads import (
    PadConfigError,
    PadFault,
    Pads,
    PadSetupError,
    PadTiming,
    PadWarning,
    PressRecord,
    SlapEvent,
)
from referee.slaps import Slap, SlapArbiter

PINS = {"p1.left": 17, "p1.right": 27, "p2.left": 22, "p2.right": 23}
MS = 1_000_000
T0 = 5_000 * 1_000_000_000  # 5000 s of uptime, like a real monotonic clock


class Rig:
    """Pads on stamped mock pins, with the clock and deadlines under the test's control."""

    def __init__(self, timing=PadTiming(), pins=PINS, pull_up=True, factory=None):
        self.factory = factory or mock_factory()
        self.now = T0
        self.pads = Pads(pins, self.factory, timing=timing, pull_up=pull_up,
                         clock=lambda: self.now, watch=False)
        self.press = PadPresser(self.factory, pins, pull_up=pull_up)

    def settle(self, t_ns):
        self.now = t_ns
        self.pads.poll(t_ns)
        return self.pads.drain()

    def slaps(self, until):
        return [e for e in self.settle(until) if isinstance(e, SlapEvent)]

    def warnings(self, until):
        return [e for e in self.settle(until) if isinstance(e, PadWarning)]


@pytest.fixture
def rig():
    r = Rig()
    yield r
    r.pads.close()


def test_press_is_stamped_with_its_first_edge_not_its_bounces(rig):
    rig.press.edges("p1.left", [(T0 + 10 * MS, True), (T0 + 10 * MS + 300_000, False),
                                (T0 + 11 * MS, True), (T0 + 12 * MS, False),
                                (T0 + 13 * MS, True)])
    assert rig.slaps(T0 + 100 * MS) == [SlapEvent(T0 + 10 * MS, "p1", "spit.left")]


@pytest.mark.parametrize("bounce_ms", [0.0, 1.0, 3.0, 6.0])
def test_bounce_train_gives_exactly_one_slap(rig, bounce_ms):
    rig.press.slap("p2.right", T0 + 10 * MS, hold_ms=90, bounce_ms=bounce_ms)
    assert rig.slaps(T0 + 400 * MS) == [SlapEvent(T0 + 10 * MS, "p2", "spit.right")]


def test_slap_event_becomes_the_design_slap_log_line():
    line = SlapEvent(4_210_000_000, "p1", "spit.left").to_log_line()
    assert line == {"t": 4.21, "slap": {"player": "p1", "pile": "spit.left"}}


def test_press_is_not_reported_before_it_has_settled(rig):
    rig.press.press("p1.right", T0 + 10 * MS)
    assert rig.slaps(T0 + 12 * MS) == []  # down for 2 ms only: could still be a glitch
    assert rig.slaps(T0 + 15 * MS) == [SlapEvent(T0 + 10 * MS, "p1", "spit.right")]


def _arbitrate(events, armed_at):
    arb = SlapArbiter()
    arb.arm(armed_at)
    for e in events:
        arb.record(Slap(e.t_ns, e.player, e.pile))
    return arb.decision()


@pytest.mark.parametrize("p1_pad,p2_pad", list(itertools.product(
    ("p1.left", "p1.right"), ("p2.left", "p2.right"))))
@pytest.mark.parametrize("offset_ns", [-3 * MS, -600_000, 600_000, 40 * MS])
@pytest.mark.parametrize("p2_delivered_first", [False, True])
def test_every_ordering_is_decided_by_edge_stamps_not_delivery(p1_pad, p2_pad, offset_ns,
                                                               p2_delivered_first):
    rig = Rig()
    t1, t2 = T0 + 50 * MS, T0 + 50 * MS + offset_ns
    order = [(p1_pad, t1), (p2_pad, t2)]
    if p2_delivered_first:
        order.reverse()
    for pad, t in order:
        rig.press.slap(pad, t, hold_ms=120, bounce_ms=4)
    events = rig.slaps(T0 + 1_000 * MS)
    rig.pads.close()
    assert sorted(e.t_ns for e in events) == sorted([t1, t2])
    out = _arbitrate(events, armed_at=T0)
    pile1, pile2 = "spit." + p1_pad.split(".")[1], "spit." + p2_pad.split(".")[1]
    if pile1 != pile2:
        assert out.piles == {pile1: "p1", pile2: "p2"}
    else:
        first = "p1" if offset_ns > 0 else "p2"
        assert out.piles[pile1] == first and not out.too_close


def test_slaps_on_one_pile_inside_the_tie_window_are_too_close(rig):
    rig.press.slap("p1.left", T0 + 10 * MS, bounce_ms=5)
    rig.press.slap("p2.left", T0 + 10 * MS + 200_000, bounce_ms=2)
    out = _arbitrate(rig.slaps(T0 + 500 * MS), armed_at=T0)
    assert out.too_close and out.margin_ns == 200_000


def test_slap_before_arming_is_false_even_when_delivered_after(rig):
    rig.press.slap("p1.left", T0 + 10 * MS)
    events = rig.slaps(T0 + 500 * MS)
    arb = SlapArbiter()
    arb.arm(T0 + 11 * MS)
    assert not arb.record(Slap(events[0].t_ns, "p1", "spit.left")).counted


def test_glitch_shorter_than_min_press_is_not_a_slap(rig):
    rig.press.edges("p2.left", [(T0 + 10 * MS, True), (T0 + 10 * MS + 50_000, False)])
    events = rig.settle(T0 + 500 * MS)
    assert not [e for e in events if isinstance(e, SlapEvent)]
    assert [e.reported for e in events if isinstance(e, PressRecord)] == [False]


def test_floating_pin_flicker_is_reported_disconnected_and_never_slaps(rig):
    # A loose wire picks up hum: sub-millisecond pulses, many times a second.
    edges = []
    for k in range(12):
        t = T0 + 10 * MS + k * 40 * MS
        edges += [(t, True), (t + 300_000, False)]
    rig.press.edges("p1.right", edges)
    events = rig.settle(T0 + 600 * MS)
    assert not [e for e in events if isinstance(e, SlapEvent)]
    faults = [e.fault for e in events if isinstance(e, PadWarning)]
    assert faults == [PadFault.DISCONNECTED]


def test_chattering_pad_is_muted_with_a_warning_and_recovers_after_quiet(rig):
    # A switch that makes a 10 ms "press" every 60 ms: faster than any hand.
    for k in range(15):
        rig.press.slap("p2.left", T0 + k * 60 * MS, hold_ms=10, bounce_ms=0)
    events = rig.settle(T0 + 950 * MS)
    slaps = [e for e in events if isinstance(e, SlapEvent)]
    warns = [e for e in events if isinstance(e, PadWarning)]
    assert len(slaps) == PadTiming().chatter_presses
    assert [w.fault for w in warns] == [PadFault.CHATTER]
    assert "chatters" in warns[0].message and "p2.left" in warns[0].message
    # Quiet for 2 s: the pad works again.
    assert [w.fault for w in rig.warnings(T0 + 3_000 * MS)] == [PadFault.RECOVERED]
    rig.press.slap("p2.left", T0 + 3_100 * MS)
    assert rig.slaps(T0 + 3_500 * MS) == [SlapEvent(T0 + 3_100 * MS, "p2", "spit.left")]


def test_pad_down_when_opened_is_stuck_and_slaps_only_after_release():
    factory = mock_factory()
    factory.pin(22).hold_at(False)  # p2.left held down (pull-up: pressed is low) from the start
    r = Rig(factory=factory)
    first = r.settle(T0)
    assert [e.fault for e in first if isinstance(e, PadWarning)] == [PadFault.STUCK_DOWN]
    assert r.slaps(T0 + 5_000 * MS) == []
    r.press.release("p2.left", T0 + 6_000 * MS, bounce_ms=2)
    assert [w.fault for w in r.warnings(T0 + 6_100 * MS)] == [PadFault.RECOVERED]
    r.press.slap("p2.left", T0 + 7_000 * MS)
    assert r.slaps(T0 + 7_500 * MS) == [SlapEvent(T0 + 7_000 * MS, "p2", "spit.left")]
    r.pads.close()


def test_pad_never_released_is_reported_once_and_gives_no_more_slaps(rig):
    rig.press.press("p1.left", T0 + 10 * MS, bounce_ms=3)
    events = rig.settle(T0 + 3_100 * MS)
    assert [type(e) for e in events] == [SlapEvent, PadWarning]
    assert events[1].fault is PadFault.NEVER_RELEASED and "3.0 s" in events[1].message
    assert rig.settle(T0 + 10_000 * MS) == []
    rig.press.release("p1.left", T0 + 11_000 * MS, bounce_ms=3)
    assert PadFault.RECOVERED in [w.fault for w in rig.warnings(T0 + 11_100 * MS)]


def test_contact_bounce_during_a_hold_is_not_a_second_slap(rig):
    rig.press.press("p1.right", T0 + 10 * MS, bounce_ms=2)
    # The hand shifts 60 ms later: the contact opens for 0.2 ms.
    rig.press.edges("p1.right", [(T0 + 70 * MS, False), (T0 + 70 * MS + 200_000, True)])
    rig.press.release("p1.right", T0 + 150 * MS, bounce_ms=4)
    assert rig.slaps(T0 + 400 * MS) == [SlapEvent(T0 + 10 * MS, "p1", "spit.right")]


def test_two_real_slaps_on_one_pad_are_two_events(rig):
    rig.press.slap("p2.right", T0 + 10 * MS, hold_ms=80, bounce_ms=3)
    rig.press.slap("p2.right", T0 + 300 * MS, hold_ms=80, bounce_ms=3)
    assert [e.t_ns for e in rig.slaps(T0 + 800 * MS)] == [T0 + 10 * MS, T0 + 300 * MS]


def test_piezo_timing_reports_at_the_first_edge_and_ignores_its_ringing():
    r = Rig(timing=PadTiming(min_press_ms=0, bounce_ms=20))
    # A piezo pulse: 1.5 ms high with ringing.
    r.press.edges("p1.left", [(T0 + MS, True), (T0 + MS + 400_000, False),
                              (T0 + MS + 600_000, True), (T0 + 2_500_000, False)])
    assert r.pads.drain()[0] == SlapEvent(T0 + MS, "p1", "spit.left")  # no waiting at all
    assert r.slaps(T0 + 200 * MS) == []
    r.pads.close()


def test_pull_down_wiring_reads_a_high_level_as_pressed():
    r = Rig(pull_up=False)
    r.press.slap("p2.left", T0 + 10 * MS)
    assert r.slaps(T0 + 300 * MS) == [SlapEvent(T0 + 10 * MS, "p2", "spit.left")]
    r.pads.close()


def test_pin_handlers_survive_garbage_collection(rig):
    # gpiozero holds when_changed weakly: a handler nobody else holds would vanish silently.
    gc.collect()
    rig.press.slap("p1.left", T0 + 10 * MS)
    assert len(rig.slaps(T0 + 300 * MS)) == 1


def test_plain_mock_pins_stamped_by_patched_mock_clock(monkeypatch):
    import gpiozero.pins.mock as mock

    factory = MockFactory()
    pads = Pads(PINS, factory, clock=lambda: 6_000_000_000, watch=False)
    monkeypatch.setattr(mock, "monotonic", lambda: 7.0)
    factory.pin(27).drive_low()
    monkeypatch.setattr(mock, "monotonic", lambda: 7.001)
    factory.pin(27).drive_high()
    monkeypatch.setattr(mock, "monotonic", lambda: 7.002)
    factory.pin(27).drive_low()
    pads.poll(8 * 1_000_000_000)
    assert list(pads.slaps()) == [SlapEvent(7_000_000_000, "p1", "spit.right")]
    pads.close()


def test_watcher_thread_reports_a_press_that_has_no_further_edges():
    factory = mock_factory()
    with Pads(PINS, factory) as pads:
        t = time.monotonic_ns()
        PadPresser(factory, PINS).press("p1.left", t)
        ev = pads.get(timeout=10.0)
    assert ev == SlapEvent(t, "p1", "spit.left")


def test_pin_that_does_not_exist_is_a_setup_error_naming_the_pad():
    with pytest.raises(PadSetupError, match="GPIO 99 for pad p2.right"):
        Pads({**PINS, "p2.right": 99}, mock_factory(), watch=False)


def test_one_pin_for_two_pads_is_refused():
    with pytest.raises(PadConfigError, match="GPIO 17 is given to more than one pad"):
        Pads({**PINS, "p2.right": 17}, mock_factory(), watch=False)


def test_unknown_pad_name_is_refused():
    with pytest.raises(PadConfigError, match="unknown pad"):
        Pads({"p3.left": 5}, mock_factory(), watch=False)


def test_warning_log_line_names_pad_player_and_fault():
    w = PadWarning(2_000_000_000, "p2.left", PadFault.CHATTER, "x")
    assert w.to_log_line() == {"t": 2.0, "ruling": "warning", "player": "p2", "pad": "p2.left",
                               "fault": "chatter", "message": "x"}


def test_pads_from_the_calibration_section_use_its_pins_pull_and_timing():
    from calibration.store import PadsSection

    section = PadsSection(pins={"p1.left": 5, "p1.right": 6, "p2.left": 12, "p2.right": 13},
                          pull_up=False, bounce_ms=30.0, measured={"min_press_ms": 0.0})
    f = mock_factory()
    pads = Pads.from_section(section, f, clock=lambda: T0, watch=False)
    assert pads.timing.bounce_ms == 30.0 and pads.timing.min_press_ms == 0.0
    PadPresser(f, dict(section.pins), pull_up=False).press("p2.right", T0 + MS)
    assert pads.drain() == [SlapEvent(T0 + MS, "p2", "spit.right")]  # no settle wait
    pads.close()


def test_pin_that_oscillates_without_ever_settling_is_muted_and_never_slaps(rig):
    # A floating input picking up fast noise: an edge every 0.4 ms for 1.5 s.
    rig.press.edges("p1.left", [(T0 + k * 400_000, k % 2 == 0) for k in range(3_750)])
    events = rig.settle(T0 + 1_600 * MS)
    assert not [e for e in events if isinstance(e, SlapEvent)]
    assert [e.fault for e in events if isinstance(e, PadWarning)] == [PadFault.DISCONNECTED]
    assert [e.fault for e in rig.settle(T0 + 5_000 * MS) if isinstance(e, PadWarning)] == [
        PadFault.RECOVERED]


def test_release_that_never_settles_is_chatter_and_mutes_the_pad(rig):
    rig.press.press("p2.right", T0 + 10 * MS, bounce_ms=2)
    rig.press.edges("p2.right", [(T0 + 100 * MS + k * 1_000_000, k % 2 == 1)
                                 for k in range(1_200)])
    events = rig.settle(T0 + 1_400 * MS)
    assert [type(e) for e in events if not isinstance(e, PressRecord)] == [SlapEvent, PadWarning]
    assert events[1].fault is PadFault.CHATTER
