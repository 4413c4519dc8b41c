"""`spit-referee simulate` (DESIGN.md command line)."""
import json

from referee.cli import main


def test_simulate_json_reports_games_finished_and_conservation(capsys):
    assert main(["simulate", "--games", "3", "--seed", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 3 and out["finished"] == 3 and out["conservation_ok"] is True
    assert sum(out["winners"].values()) == 3 and out["plays"] > 0


def test_simulate_prints_a_summary_with_the_invariant_check(capsys):
    assert main(["simulate", "--games", "2", "--variant", "points"]) == 0
    out = capsys.readouterr().out
    assert "finished:  2/2" in out and "points variant" in out
    assert "all 52 cards accounted for at every step: ok" in out


def test_simulate_is_deterministic_for_a_seed(capsys):
    main(["simulate", "--games", "2", "--seed", "9", "--json"])
    first = capsys.readouterr().out
    main(["simulate", "--games", "2", "--seed", "9", "--json"])
    assert capsys.readouterr().out == first


def test_simulate_log_refuses_to_overwrite_an_earlier_game_log(tmp_path, capsys):
    earlier = tmp_path / "game-0001.jsonl"
    earlier.write_text("kept\n", encoding="utf-8")
    assert main(["simulate", "--games", "2", "--log", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{earlier} already exists" in err and "empty folder" in err
    assert earlier.read_text(encoding="utf-8") == "kept\n"
    assert not (tmp_path / "game-0000.jsonl").exists()  # refused before any game was written


def test_simulate_log_writes_into_an_empty_folder(tmp_path, capsys):
    assert main(["simulate", "--games", "2", "--log", str(tmp_path / "new")]) == 0
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == [
        "game-0000.jsonl", "game-0000.moves.jsonl", "game-0001.jsonl", "game-0001.moves.jsonl"]
