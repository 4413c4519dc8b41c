"""The coach in the live session: a still table gets its hint on the session's tick, coach
rulings are logged and announced, and the log's inputs replay to exactly the monitor's rulings
(the coach changes none of them)."""
from referee.coach import Coach
from referee.live.eventlog import EventLog, read_log
from referee.live.session import RefereeSession
from referee.monitor import Monitor
from referee.rulings import Ruling

from tests.referee.test_coach import DEAL

NS = 1_000_000_000
FRAME_NS = NS // 10  # 10 fps is enough for log-time behaviour


class _Ears:
    def __init__(self) -> None:
        self.heard: list[Ruling] = []

    def announce(self, ruling: Ruling) -> None:
        self.heard.append(ruling)


def _game(session):
    session.start({"p1": 26, "p2": 26}, 0)
    session.observe(DEAL, 1 * NS)
    session.observe({"spit.left": "6C", "spit.right": "KD"}, 2 * NS)
    session.observe({"p1.stock3": "back", "spit.left": "9D"}, 3 * NS)   # illegal (R10)
    session.observe({"p1.stock3": "9D", "spit.left": "6C"}, 4 * NS)     # taken back
    t = 4 * NS
    while t < 9 * NS:  # a still table: frames with nothing new
        t += FRAME_NS
        session.observe(None, t)
    session.flush()


def test_still_table_gets_its_hint_logged_and_announced_and_replay_is_unchanged(tmp_path):
    path = tmp_path / "coached.jsonl"
    ears = _Ears()
    with EventLog(path) as log:
        session = RefereeSession(Monitor(), log, [ears], coach=Coach())
        _game(session)
    objects = read_log(path).objects
    hints = [o for o in objects if o.get("coach") == "hint"]
    # 7♥ and 5♠ fit 6♣ from the spits at 2.0; the illegal 9♦ lay loose from 3.0 to 4.0, and
    # the clocks of the plays kept running: due at 6.0, the first still frame at or after it.
    assert sorted((h["player"], h["card"], h["to"]) for h in hints) == [
        ("p1", "7H", "spit.left"), ("p2", "5S", "spit.left")]
    assert all(abs(h["t"] - 6.0) < 1e-6 for h in hints)
    assert [o["coach"] for o in objects if "coach" in o] == ["explain", "hint", "hint"]
    assert sum(1 for r in ears.heard if "coach" in r.extra) == 3
    # The log's inputs replay to exactly its monitor rulings.
    again = Monitor()
    for obj in objects:
        if "ruling" not in obj:
            again.feed(obj)
    logged = [o for o in objects if "ruling" in o and "coach" not in o]
    assert [r.to_json() for r in again.rulings] == logged


def test_coach_only_ticks_add_no_input_lines(tmp_path):
    plain, coached = tmp_path / "plain.jsonl", tmp_path / "coached.jsonl"
    for path, coach in ((plain, None), (coached, Coach())):
        with EventLog(path) as log:
            _game(RefereeSession(Monitor(), log, coach=coach))
    inputs = [[o for o in read_log(p).objects if "ruling" not in o] for p in (plain, coached)]
    assert inputs[0] == inputs[1]


def test_resumed_session_does_not_repeat_hints(tmp_path):
    path = tmp_path / "game.jsonl"
    with EventLog(path) as log:
        _game(RefereeSession(Monitor(), log, coach=Coach()))
    with EventLog(path, resume=True) as log:
        session = RefereeSession(Monitor(), log, coach=Coach())
        session.resume_from(log.readback.objects, 0)
        t = 0
        for _ in range(20):
            t += FRAME_NS
            session.observe(None, t)
    hints = [o for o in read_log(path).objects if o.get("coach") == "hint"]
    assert len(hints) == 2


def test_the_game_report_does_not_count_coach_rulings_as_warnings(tmp_path):
    from referee.report import build_report

    path = tmp_path / "coached.jsonl"
    with EventLog(path) as log:
        _game(RefereeSession(Monitor(), log, coach=Coach()))
    rulings = [Ruling.from_json(o) for o in read_log(path).objects if "ruling" in o]
    assert sum(1 for r in rulings if "coach" in r.extra) == 3
    report = build_report(rulings)
    assert report.warnings == 0 and report.rounds[0].illegal == {"p1": 1, "p2": 0}
