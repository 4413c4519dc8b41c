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


def test_simulate_refuses_a_negative_number_of_games(capsys):
    assert main(["simulate", "--games", "-1"]) == 1
    assert "--games" in capsys.readouterr().err
