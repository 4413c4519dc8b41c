"""`spit-referee report LOG`: the coaching section after the game report, compared with the
earlier logs of the same folder (older by modification time), in --json and drawn by --plot."""
import json
import os

from referee.cli import main
from referee.live.coachlog import earlier_logs

from tests.referee.test_coaching import _game


def _write(path, lines, mtime):
    path.write_text("".join(json.dumps(ln) + "\n" for ln in lines), encoding="utf-8")
    os.utime(path, (mtime, mtime))


def _folder(tmp_path):
    # Earlier: P2 plays quickly and nobody misses anything; now: the slower game.
    _write(tmp_path / "a-earlier.jsonl", _game(t5s=3.0, t4d=4.0, t3c=5.0, hidden=False,
                                               illegal=False, end=6.0), 1_000_000)
    _write(tmp_path / "b-now.jsonl", _game(), 2_000_000)
    _write(tmp_path / "c-later.jsonl", _game(), 3_000_000)           # newer: not compared
    _write(tmp_path / "b-now.truth.jsonl", [{"seed": 1}], 1_500_000)  # a demo's move list
    _write(tmp_path / "a-earlier.moves.jsonl", [{"seed": 1}], 1_100_000)  # simulate --log's
    (tmp_path / "notes.jsonl").write_text("not a log\n", encoding="utf-8")
    os.utime(tmp_path / "notes.jsonl", (1_200_000, 1_200_000))
    return tmp_path / "b-now.jsonl"


def test_earlier_logs_are_the_older_ones_in_the_folder_without_move_lists(tmp_path):
    now = _folder(tmp_path)
    assert [p.name for p in earlier_logs(now)] == ["a-earlier.jsonl", "notes.jsonl"]


def test_report_prints_the_coaching_section_with_the_comparison(tmp_path, capsys):
    now = _folder(tmp_path)
    assert main(["report", str(now)]) == 0
    out = capsys.readouterr().out
    assert "Coaching (a card playable for more than 5 s" in out
    assert "P1: 1 missed play(s), no play timed, 1 illegal (not-adjacent 1)" in out
    assert "against 1 earlier game(s): missed plays worse (before: 0.0)" in out
    assert "time to see a play worse (before: 1.00 s)" in out
    # The report's own part comes first and is unchanged.
    assert out.index("Round 1") < out.index("Coaching")


def test_report_json_includes_coaching_and_plot_draws_it(tmp_path, capsys):
    now = _folder(tmp_path)
    png = tmp_path / "game.png"
    assert main(["report", str(now), "--json", "--plot", str(png)]) == 0
    data = json.loads(capsys.readouterr().out)
    coaching = data["coaching"]
    assert coaching["players"]["p2"]["missed"] == 1
    assert coaching["players"]["p2"]["mean_seen_s"] == 6.333
    assert coaching["comparison"]["p2"]["seen_s"]["verdict"] == "worse"
    assert coaching["earlier_logs"] == ["a-earlier.jsonl"]  # notes.jsonl holds no game
    assert "rounds" in data and data["winner"] is None
    for path in (png, tmp_path / "game.coaching.png"):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_earlier_logs_are_regular_files_only(tmp_path):
    # A FIFO named *.jsonl would make the report wait for ever for a writer; a folder is no log.
    now = _folder(tmp_path)
    os.mkfifo(tmp_path / "pipe.jsonl")
    (tmp_path / "folder.jsonl").mkdir()
    for name in ("pipe.jsonl", "folder.jsonl"):
        os.utime(tmp_path / name, (1_300_000, 1_300_000))
    assert [p.name for p in earlier_logs(now)] == ["a-earlier.jsonl", "notes.jsonl"]


def test_a_neighbour_with_an_absurd_time_does_not_stop_the_report(tmp_path, capsys):
    now = _folder(tmp_path)
    lines = _game(t5s=3.0, t4d=4.0, t3c=5.0, hidden=False, illegal=False, end=6.0)
    _write(tmp_path / "a-earlier.jsonl", lines[:3] + [
        {"t": 1e308, "slap": {"player": "p1", "pile": "spit.left"}}] + lines[3:], 1_000_000)
    assert main(["report", str(now), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["coaching"]["earlier_logs"] == ["a-earlier.jsonl"]


def test_a_neighbour_that_cannot_be_read_or_replayed_is_left_out_with_a_note(tmp_path, capsys,
                                                                             monkeypatch):
    from referee.live import coachlog
    from referee.live.replay import LogFileError

    now = _folder(tmp_path)
    _write(tmp_path / "0-older.jsonl", _game(), 900_000)
    real = coachlog.coaching_of

    def coaching_of(path, *args):
        name = os.path.basename(path)
        if name == "a-earlier.jsonl":
            raise OverflowError("cannot convert float infinity to integer")
        if name == "0-older.jsonl":
            raise LogFileError(f"{path}: cannot read the log (Input/output error)")
        return real(path, *args)

    monkeypatch.setattr(coachlog, "coaching_of", coaching_of)
    assert main(["report", str(now)]) == 0
    out, err = capsys.readouterr()
    assert "no earlier games in this folder to compare with" in out
    assert ("left a-earlier.jsonl out of the comparison: cannot be replayed (OverflowError: "
            "cannot convert float infinity to integer)") in err
    assert "left 0-older.jsonl out of the comparison: " in err and "Input/output error" in err


def test_coaching_plot_counts_from_zero_in_whole_numbers_with_bars_on_their_players(
        tmp_path, drawn_figures):
    # One game alone in its folder, nobody missing a play: the "missed plays" panel drew an
    # axis from -0.06 to 0.06, and each bar half a bar left of its player's tick, beside an
    # empty place for earlier games.
    game = tmp_path / "only.jsonl"
    _write(game, _game(t5s=3.0, t4d=4.0, t3c=5.0, hidden=False, illegal=False, end=6.0),
           1_000_000)
    assert main(["report", str(game), "--plot", str(tmp_path / "game.png")]) == 0
    missed, seen, illegal = drawn_figures[-1].axes  # the coaching figure is drawn second
    assert [p.get_height() for p in missed.patches] == [0.0, 0.0]
    for ax in (missed, seen, illegal):
        assert ax.get_ylim()[0] == 0 and ax.get_ylim()[1] > 0
        assert [p.get_x() + p.get_width() / 2 for p in ax.patches] == [0.0, 1.0]
    for ax in (missed, illegal):
        ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks
