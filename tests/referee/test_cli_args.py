"""Option values the command line refuses before any work (referee.argtypes): a usage error,
exit 2, with a message naming the option and what it takes."""
import argparse

import pytest

from referee.argtypes import float_between, positive_float, positive_int, probability
from referee.cli import main


@pytest.mark.parametrize("argv, option, wanted", [
    (["simulate", "--games", "-1"], "--games", "a whole number above 0"),
    (["simulate", "--games", "0"], "--games", "a whole number above 0"),
    (["replay", "game.jsonl", "--settle", "0"], "--settle", "a number above 0"),
    (["replay", "game.jsonl", "--settle", "inf"], "--settle", "a number above 0"),
    (["report", "game.jsonl", "--settle", "nan"], "--settle", "a number above 0"),
    (["identify", "card.jpg", "--min-confidence", "nan"], "--min-confidence",
     "a number from 0 to 1"),
    (["identify", "card.jpg", "--min-confidence", "5"], "--min-confidence", "a number from 0 to 1"),
    (["identify", "card.jpg", "--min-confidence", "-1"], "--min-confidence",
     "a number from 0 to 1"),
    (["calibrate", "mat", "--out", "mat.pdf", "--dpi", "0"], "--dpi",
     "a number from 50 to 1200"),
    (["calibrate", "mat", "--out", "mat.xyz"], "--out", "must end in .pdf or .png"),
    (["calibrate", "table", "--image", "mat.jpg", "--max-error-mm", "-1"], "--max-error-mm",
     "a number above 0"),
])
def test_a_bad_option_value_is_a_usage_error_naming_the_option(argv, option, wanted, capsys,
                                                                tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing may be written, but if it were, not in the repo
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: " in err and wanted in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("check, text, value", [
    (positive_float, "1.5", 1.5), (positive_float, "1e-3", 0.001),
    (probability, "0", 0.0), (probability, "1", 1.0), (probability, "0.9", 0.9),
    (positive_int, "3", 3), (float_between(50, 1200), "300", 300.0),
])
def test_good_values_pass_through(check, text, value):
    assert check(text) == value


@pytest.mark.parametrize("check, text", [
    (positive_float, "-inf"), (positive_float, "abc"), (probability, "1.0001"),
    (positive_int, "2.5"), (float_between(50, 1200), "1200.5"),
])
def test_bad_values_are_argument_type_errors(check, text):
    with pytest.raises(argparse.ArgumentTypeError, match=repr(text)):
        check(text)


def test_no_command_runs_the_demo_the_embedded_default(capsys, monkeypatch):
    # DESIGN.md: "`demo` | the embedded default"; said on stderr, and --help still helps.
    from referee.cli import _cmd_demo, build_parser, command_line

    monkeypatch.setattr("sys.argv", ["spit-referee"])
    args = build_parser().parse_args(command_line(None))
    assert args.command == "demo" and args.handler is _cmd_demo and args.seed == 52
    assert "no command given, so the demo runs" in capsys.readouterr().err
    assert command_line(["replay", "x.jsonl"]) == ["replay", "x.jsonl"]
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0 and "demo" in capsys.readouterr().out
