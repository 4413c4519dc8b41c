"""referee.live.session: inputs reach the monitor in time order, everything is logged, the log
replays to the same rulings, timed calls come on a still table, and a resumed session goes on
from the same state."""
import random

import pytest

from referee.live.eventlog import EventLog, read_log
from referee.live.session import RefereeSession
from referee.monitor import Monitor
from referee.obslog import ObsConfig, observation_log
from referee.rulings import RulingKind
from referee.simulate import BotConfig, SimConfig, simulate_game

NS = 1_000_000_000


@pytest.fixture(scope="module")
def lines():
    bot = BotConfig(mistake_rate=0.05)
    record = simulate_game(4, SimConfig(bots=(bot, bot), ready_s=3.0))
    return observation_log(record, ObsConfig(), random.Random(4))


def _drive(session, lines, until=None):
    """Feed a camera log's lines as the live loop would; stop early when `until()` holds."""
    for ln in lines:
        t_ns = round(ln["t"] * NS)
        if "start" in ln:
            session.start(ln["start"], t_ns)
        elif "slap" in ln:
            session.slap({"slap": {k: ln["slap"][k] for k in ("player", "pile")}}, t_ns)
        else:
            session.observe(ln["observe"], t_ns)
        if until is not None and until():
            return
    session.flush()


def _inputs(path):
    return [o for o in read_log(path).objects if "ruling" not in o]


def test_the_log_replays_to_the_same_rulings(lines, tmp_path):
    path = tmp_path / "game.jsonl"
    with EventLog(path) as log:
        session = RefereeSession(Monitor(), log)
        _drive(session, lines)
    live = [r.to_json() for r in session.monitor.rulings]
    logged = [o for o in read_log(path).objects if "ruling" in o]
    assert logged == live and any(r["ruling"] == "game-over" for r in live)
    again = Monitor()
    for obj in _inputs(path):
        again.feed(obj)
    assert [r.to_json() for r in again.rulings] == live


def test_a_slap_is_fed_before_a_later_frame_even_if_it_arrived_after(lines):
    monitor = Monitor()
    fed = []
    original = monitor.feed

    def spy(line, lineno=None):
        fed.append(line)
        return original(line, lineno)

    monitor.feed = spy
    session = RefereeSession(monitor)
    session.slap({"slap": {"player": "p2", "pile": "spit.left"}}, 5 * NS + 300)
    session.slap({"slap": {"player": "p1", "pile": "spit.left"}}, 5 * NS + 100)
    session.observe({"spit.left": "?"}, 5 * NS + 200)
    assert [("slap" in ln, ln.get("slap", {}).get("player")) for ln in fed] == [
        (True, "p1"), (False, None)]
    session.observe(None, 6 * NS)
    assert fed[-1]["slap"]["player"] == "p2"


def test_a_still_table_gets_its_spit_call_at_the_settle_time_R23(lines, tmp_path):
    # Feed the game until the monitor says a timed call is pending, then only still frames.
    monitor = Monitor()
    session = RefereeSession(monitor, EventLog(tmp_path / "g.jsonl"))
    _drive(session, lines, until=lambda: monitor.deadline() is not None)
    due = monitor.deadline()
    assert due is not None
    before = len(monitor.rulings)
    t = round(due * NS) - NS // 10
    session.observe(None, t)
    assert len(monitor.rulings) == before  # not yet
    session.observe(None, t + NS // 5)
    new = monitor.rulings[before:]
    assert new and new[0].kind in (RulingKind.SPIT_CALL, RulingKind.WARNING)
    assert new[0].t >= due
    session.log.close()
    # The still frame that made the call is in the log: the replay makes it at the same time.
    again = Monitor()
    for obj in _inputs(tmp_path / "g.jsonl"):
        again.feed(obj)
    assert [r.to_json() for r in again.rulings] == [r.to_json() for r in monitor.rulings]


def test_a_resumed_session_continues_with_the_same_state(lines, tmp_path):
    path = tmp_path / "game.jsonl"
    half = len(lines) // 2
    with EventLog(path) as log:
        first = RefereeSession(Monitor(), log)
        _drive(first, lines[:half])
    with EventLog(path, resume=True) as log:
        second = RefereeSession(Monitor(), log)
        # The computer restarted: its clock starts near zero again.
        second.resume_from(log.readback.objects, now_ns=12 * NS)
        assert second.monitor.readings == first.monitor.readings
        assert [r.to_json() for r in second.monitor.rulings] == [
            r.to_json() for r in first.monitor.rulings]
        second.observe({"spit.left": "?"}, 12 * NS)
    objs = read_log(path).objects
    times = [o["t"] for o in objs if "ruling" not in o]
    assert times == sorted(times), "the inputs' time never goes back, across the resume"
    assert objs[-1]["t"] > lines[half - 1]["t"]


def test_a_resumed_session_writes_and_announces_the_rulings_a_crash_kept_from_the_log(
        lines, tmp_path):
    """A crash between an input written and its rulings: `run --resume` must not lose them."""
    path = tmp_path / "game.jsonl"
    heard = []
    with EventLog(path) as log:
        first = RefereeSession(Monitor(), log)
        _drive(first, lines, until=lambda: any(r.kind == RulingKind.PLAY
                                                for r in first.monitor.rulings[-1:]))
    whole = read_log(path)
    assert whole.objects[-1]["ruling"] == "play"
    data = path.read_bytes()
    last = data.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(data[:last] + data[last:last + 9])  # the crash tore the play's line
    with EventLog(path, resume=True) as log:
        second = RefereeSession(Monitor(), log, [type("Sink", (), {
            "announce": lambda self, r: heard.append(r)})()])
        back = second.resume_from(log.readback.objects, 12 * NS, log.readback.linenos)
    assert [r.kind for r in back] == [RulingKind.PLAY] and heard == back
    assert [o for o in read_log(path).objects if "ruling" in o] == [
        o for o in whole.objects if "ruling" in o]


def test_the_monitor_names_a_bad_line_by_its_line_in_the_log_file(tmp_path):
    """Live and replayed, a warning about an input names the same line: the file's."""
    from referee.live.replay import replay

    path = tmp_path / "game.jsonl"
    with EventLog(path) as log:
        session = RefereeSession(Monitor(), log)
        session.start({"p1": 16, "p2": 36}, 1 * NS)
        session.observe({"p1.stock1": "7H"}, 2 * NS)
        session.observe({"p1.stock9": "7H"}, 3 * NS)
    live = [r for r in session.monitor.rulings if r.kind == RulingKind.WARNING]
    objects = read_log(path).objects
    bad = 1 + next(i for i, o in enumerate(objects) if "p1.stock9" in o.get("observe", {}))
    assert live and f"line {bad}:" in live[-1].message
    assert [r.to_json() for r in replay(path)] == [o for o in objects if "ruling" in o]


def test_slaps_are_judged_in_stamp_order_though_a_bouncier_press_is_reported_later(lines):
    """R18: P1's hand lands on the right pad at 9 ms (5 ms of bounce) and on the left pad at
    10 ms, P2's on the left at 12 ms. The clean presses settle first; judged on arrival, P1
    would take the left pile. By the stamps P1 slapped right first, and P2 takes the left."""
    from hardware.mockpads import PadPresser, mock_factory
    from hardware.pads import Pads

    pins = {"p1.left": 17, "p1.right": 27, "p2.left": 22, "p2.right": 23}
    session = RefereeSession(Monitor())
    for ln in lines:
        if "observe" in ln:
            session.observe(ln["observe"], round(ln["t"] * NS))
        elif "start" in ln:
            session.start(ln["start"], round(ln["t"] * NS))
        if session.monitor.rulings and session.monitor.rulings[-1].kind == RulingKind.SLAP_CALL:
            break
    call_ns = round(session.monitor.rulings[-1].t * NS)
    t0, ms = call_ns + 500 * 1_000_000, 1_000_000
    factory, now = mock_factory(), {"ns": t0}
    pads = Pads(pins, factory, clock=lambda: now["ns"], watch=False)
    presser = PadPresser(factory, pins)
    presser.edges("p1.right", [(t0 + 9 * ms, True), (t0 + 9 * ms + ms // 2, False),
                               (t0 + 14 * ms, True)])
    presser.edges("p1.left", [(t0 + 10 * ms, True)])
    presser.edges("p2.left", [(t0 + 12 * ms, True)])
    for at in (17.5, 19.5, 40, 80):  # the watcher settles each pad as its deadline passes
        now["ns"] = t0 + round(at * ms)
        pads.poll(now["ns"])
        session.take_pad_events(pads)
        session.observe(None, now["ns"])
    pads.close()
    results = [r for r in session.monitor.rulings if r.kind == RulingKind.SLAP_RESULT]
    assert [r.extra["piles"] for r in results] == [{"spit.right": "p1", "spit.left": "p2"}]
