"""`spit-referee replay` and `report` on log files."""
import json
import os
import subprocess
import sys

import pytest

from referee.cli import EXIT_BROKEN_PIPE, main
from referee.live.simlog import write_game_logs
from referee.obslog import ObsConfig
from referee.simulate import BotConfig, SimConfig, simulate_game
from tests.conftest import REPO


def _log(tmp_path, seed=4):
    bot = BotConfig(mistake_rate=0.05)
    rec = simulate_game(seed, SimConfig(bots=(bot, bot)))
    obs, _ = write_game_logs(rec, tmp_path, 0, seed, ObsConfig())
    return obs, rec


def _with_line(tmp_path, index, text):
    """A game's observation log with `text` put in as its line `index` + 1."""
    obs, _ = _log(tmp_path)
    lines = obs.read_text().splitlines()
    lines.insert(index, text)
    obs.write_text("\n".join(lines) + "\n")
    return obs


def test_replay_prints_rulings_as_jsonl_ending_with_game_over(tmp_path, capsys):
    obs, rec = _log(tmp_path)
    assert main(["replay", str(obs)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert out[0]["ruling"] == "deal"
    assert out[-1]["ruling"] == "game-over" and out[-1]["winner"] == rec.winner
    # The round that ends the game asks for no slap and announces no next round (R21).
    last = out[-2]
    assert last["ruling"] == "round-over" and last["message"].endswith(
        "and with it the game (R21)"), last["message"]
    assert not any(w in last["message"] for w in ("slap", "next round"))
    # After the slaps, the round-over says what they decided, not "slap" again.
    after = [b for a, b in zip(out, out[1:]) if a["ruling"] == "slap-result"
             and b["ruling"] == "round-over"]
    assert after and not any("slap the smaller" in b["message"] for b in after)
    # Each round end is slap-call, slap-result, round-over (DESIGN.md); the call cites the
    # rule that holds, as "Spit!" cites R16: the round is over (R17).
    calls = [(a, b) for a, b in zip(out, out[1:]) if a["ruling"] == "slap-call"]
    assert calls and all(a["rule"] == "R17" and b["ruling"] == "slap-result"
                         for a, b in calls), calls


def test_replaying_a_log_twice_gives_identical_output(tmp_path, capsys):
    obs, _ = _log(tmp_path)
    main(["replay", str(obs)])
    first = capsys.readouterr().out
    main(["replay", str(obs)])
    assert capsys.readouterr().out == first and first


def test_replay_text_prints_plain_words(tmp_path, capsys):
    obs, _ = _log(tmp_path)
    main(["replay", "--text", str(obs)])
    out = capsys.readouterr().out
    assert "plays" in out and "{" not in out.splitlines()[0]


def test_replay_of_a_missing_file_is_a_clear_error(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "none.jsonl")]) == 1
    assert "no such log file" in capsys.readouterr().err


def test_replay_warns_about_a_broken_line_and_goes_on(tmp_path, capsys):
    obs = _with_line(tmp_path, 3, "{broken")
    assert main(["replay", str(obs)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    warnings = [r for r in out if r["ruling"] == "warning"]
    assert warnings[0]["line"] == 4 and "not JSON" in warnings[0]["message"]
    assert out[-1]["ruling"] == "game-over"


def test_report_of_an_observation_log_with_plot(tmp_path, capsys):
    obs, rec = _log(tmp_path)
    png = tmp_path / "timeline.png"
    assert main(["report", "--json", "--plot", str(png), str(obs)]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["finished"] and rep["winner"] == rec.winner
    assert len(rep["rounds"]) == rec.rounds
    assert sum(rep["totals"]["plays"].values()) == rec.plays
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_plot_runs_on_the_game_clock_from_the_first_ruling(tmp_path, drawn_figures):
    # The log keeps the camera's clock (seconds since the machine started: 44,860 s in a
    # demo); the picture's time axis read "44860", "44880", ... The plot runs on the game's
    # clock, as the live view prints it: m:ss since the first ruling.
    import referee.live.plot as plot

    obs, _ = _log(tmp_path)
    lines = [json.loads(x) for x in obs.read_text().splitlines()]
    for o in lines:
        o["t"] += 44860.0
    obs.write_text("".join(json.dumps(o) + "\n" for o in lines))
    assert main(["report", str(obs), "--plot", str(tmp_path / "timeline.png")]) == 0
    ax = drawn_figures[0].axes[0]
    low, high = ax.get_xlim()
    assert low < 0 < high < 3600
    shown = [t.get_text() for t in ax.get_xticklabels() if low <= t.get_position()[0] <= high]
    assert shown[0] == "0:00" and len(shown) >= 3, shown
    assert all(x.count(":") == 1 and len(x.split(":")[1]) == 2 for x in shown), shown
    assert plot.game_clock(75.4) == "1:15" and plot.game_clock(-5) == "-0:05"


def test_report_reads_a_log_given_as_a_pipe(tmp_path):
    # `report <(zcat game.jsonl.gz)`: a pipe can be read once; the report, its replay and its
    # coaching all come from that one read (it read the log three times and waited for ever).
    obs, rec = _log(tmp_path)
    fifo = tmp_path / "piped.jsonl"
    os.mkfifo(fifo)
    report = subprocess.Popen([sys.executable, "-m", "referee.cli", "report", "--json", str(fifo)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    with open(fifo, "wb") as writer:  # opens when the report opens the pipe to read
        writer.write(obs.read_bytes())
    try:
        out, err = report.communicate(timeout=60)
    finally:
        report.kill()
    assert report.returncode == 0, err.decode()
    rep = json.loads(out)
    assert rep["finished"] and rep["winner"] == rec.winner
    assert sum(rep["totals"]["plays"].values()) == rec.plays
    assert rep["coaching"]["rounds"] == rec.rounds


@pytest.mark.parametrize("command", ["replay", "report"])
@pytest.mark.parametrize("text", ["", "\n  \n\n"])
def test_an_empty_or_blank_log_is_refused_saying_what_a_log_holds(tmp_path, capsys, command,
                                                                  text):
    log = tmp_path / "game.jsonl"
    log.write_text(text, encoding="utf-8")
    assert main([command, str(log)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "empty or blank" in err and "no start, observe or slap line" in err


def test_replay_refuses_a_log_of_rulings_only_and_report_reads_them(tmp_path, capsys):
    obs, rec = _log(tmp_path)
    assert main(["replay", str(obs)]) == 0
    rulings = tmp_path / "rulings.jsonl"
    rulings.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["replay", str(rulings)]) == 1
    assert "holds only rulings" in capsys.readouterr().err
    assert main(["report", str(rulings)]) == 0
    out = capsys.readouterr().out
    assert f"{rec.winner.upper()} wins" in out
    # no inputs to replay: no coaching figures made of zeros
    assert "No coaching: the log holds rulings only" in out and "missed play" not in out


def test_a_log_of_unusable_lines_is_refused_naming_the_first_problem(tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    log.write_text('garbage\n{"t": 1}\n', encoding="utf-8")
    assert main(["replay", str(log)]) == 1
    err = capsys.readouterr().err
    assert "holds 2 line(s) but no usable one (first: line 1: not JSON" in err


def test_a_byte_order_mark_before_the_first_line_is_not_part_of_it(tmp_path, capsys):
    obs, _ = _log(tmp_path)
    main(["replay", str(obs)])
    plain = capsys.readouterr().out
    obs.write_bytes(b"\xef\xbb\xbf" + obs.read_bytes())
    assert main(["replay", str(obs)]) == 0
    assert capsys.readouterr().out == plain and '"warning"' not in plain.splitlines()[0]


def test_a_slap_at_an_absurd_time_is_a_warning_not_a_crash(tmp_path, capsys):
    obs = _with_line(tmp_path, 5, '{"t": 1e308, "slap": {"player": "p1", "pile": "spit.left"}}')
    assert main(["replay", str(obs)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    warning = next(r for r in out if r.get("line") == 6)
    assert "292 years" in warning["message"]
    assert out[-1]["ruling"] == "game-over"


def test_replay_into_a_closed_pipe_ends_quietly(tmp_path):
    obs, _ = _log(tmp_path)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before the first line, as `| head` after a while
    try:
        done = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(obs)],
                              stdout=write_end, stderr=subprocess.PIPE, cwd=REPO, timeout=120)
    finally:
        os.close(write_end)
    assert done.returncode == EXIT_BROKEN_PIPE
    assert done.stderr == b""


@pytest.mark.parametrize("name", ["timeline.txt", "timeline.xyz", "timeline.pgf"])
def test_report_plot_to_a_format_matplotlib_cannot_write_is_a_usage_error(tmp_path, capsys,
                                                                         name):
    obs, _ = _log(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(["report", str(obs), "--plot", str(tmp_path / name)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --plot" in err and ".png" in err
    assert not list(tmp_path.glob("timeline*"))


def test_report_plot_without_an_extension_says_the_file_it_wrote(tmp_path, capsys):
    obs, _ = _log(tmp_path)
    assert main(["report", str(obs), "--plot", str(tmp_path / "timeline")]) == 0
    out = capsys.readouterr().out
    assert f"timeline written to {tmp_path / 'timeline.png'}, coaching figures to " \
           f"{tmp_path / 'timeline.coaching.png'}" in out
    assert (tmp_path / "timeline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_ruling_names_only_zones_of_the_table(tmp_path, capsys):
    """DESIGN.md: `from` and `to` are zones; a spit card comes from a hand, which is none
    (spit rulings said "from": "p1.hand")."""
    from referee.zones import ALL_ZONES

    obs, _ = _log(tmp_path)
    assert main(["replay", str(obs)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    spits = [o for o in out if o["ruling"] == "spit"]
    assert spits and all("from" not in o and o["to"] in ALL_ZONES for o in spits)
    assert all(o[k] in ALL_ZONES for o in out for k in ("from", "to") if k in o)


def test_a_line_whose_time_is_a_huge_integer_is_a_warning_at_the_last_good_time(tmp_path,
                                                                                capsys):
    """Its warning took the line's own time, read again as a float: a 401-digit `t` crashed
    the replay (OverflowError)."""
    obs = _with_line(tmp_path, 5, '{"t": 1' + "0" * 400 + ', "observe": {}}')
    assert main(["replay", str(obs)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    warning = next(r for r in out if r.get("line") == 6)
    assert "401-digit" in warning["message"] and warning["t"] < 1e6
