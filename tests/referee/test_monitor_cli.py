"""`spit-referee replay` and `report` on log files."""
import json

from referee.cli import main
from referee.live.simlog import write_game_logs
from referee.obslog import ObsConfig
from referee.simulate import BotConfig, SimConfig, simulate_game


def _log(tmp_path, seed=4):
    bot = BotConfig(mistake_rate=0.05)
    rec = simulate_game(seed, SimConfig(bots=(bot, bot)))
    obs, _ = write_game_logs(rec, tmp_path, 0, seed, ObsConfig())
    return obs, rec


def test_replay_prints_rulings_as_jsonl_ending_with_game_over(tmp_path, capsys):
    obs, rec = _log(tmp_path)
    assert main(["replay", str(obs)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert out[0]["ruling"] == "deal"
    assert out[-1]["ruling"] == "game-over" and out[-1]["winner"] == rec.winner


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
    obs, _ = _log(tmp_path)
    lines = obs.read_text().splitlines()
    lines.insert(3, "{broken")
    obs.write_text("\n".join(lines) + "\n")
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
