"""The `spit-referee` command line (DESIGN.md): the one place, with `live.py`, that joins
vision, hardware, calibration and the referee.

Exit codes: 0 success, 1 a ruling or input problem the user can fix (the message says how),
2 usage. Each command's handler imports what it needs when it runs, so `--help` stays fast and
a PC without a camera or GPIO can run everything that does not need them.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Sequence

from referee.argtypes import positive_float, positive_int, probability
from referee.errors import UserError

Handler = Callable[[argparse.Namespace], int]


# --- simulate ---------------------------------------------------------------------------------

def _add_simulate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="bot-vs-bot games through the rules engine")
    p.add_argument("--games", type=positive_int, default=1, help="number of games (default 1)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--variant", choices=["standard", "points"], default="standard")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--log", metavar="DIR", help="write each game's camera observation log "
                   "and its true move list into DIR")
    p.set_defaults(handler=_cmd_simulate)


def _cmd_simulate(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from referee.simulate import config_for_variant, format_summary, run_games

    on_record = None
    if args.log:
        from referee.live.simlog import check_free, write_game_logs

        directory = Path(args.log)
        check_free(directory, args.games)

        def on_record(index: int, seed: int, record: object) -> None:
            write_game_logs(record, directory, index, seed)

    summary = run_games(args.games, args.seed, config_for_variant(args.variant), on_record)
    if args.json:
        print(json.dumps(summary.to_dict()))
    else:
        print(format_summary(summary, args.seed, args.variant))
    return 0 if summary.finished == summary.games and summary.conservation_ok else 1


# --- calibrate camera | table | deck | pads | mat ---------------------------------------------
# Each step lives in calibration/<step>.py with `add_arguments(parser)` and `command(args) -> int`.

_CALIBRATE_STEPS = {
    "camera": "lens intrinsics from a chessboard or ChArUco board",
    "table": "the table homography from the mat's ArUco markers",
    "deck": "rank and suit templates of your deck (optional)",
    "pads": "map slap-pad pins, measure bounce and hold times",
    "mat": "print the play mat with markers and zone outlines",
}


def _add_calibrate(sub: argparse._SubParsersAction) -> None:
    import importlib

    p = sub.add_parser("calibrate", help="produce each part of the calibration file")
    steps = p.add_subparsers(dest="step", metavar="STEP")
    steps.required = True
    for name, help_text in _CALIBRATE_STEPS.items():
        sp = steps.add_parser(name, help=help_text)
        try:
            module = importlib.import_module(f"calibration.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"calibration.{name}":
                raise
            continue
        module.add_arguments(sp)
        sp.set_defaults(handler=module.command)


# --- identify ---------------------------------------------------------------------------------

def _add_identify(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("identify", help="read the one card in a photo (rank, suit, confidence)")
    p.add_argument("image", metavar="IMAGE", help="a photo with one card anywhere in it")
    _json_or_text(p, "one JSON object (the default)", "the card in plain words")
    p.add_argument("--templates", metavar="DIR", help="optional deck templates from `calibrate "
                   "deck` (a folder of card images named by code); never required")
    p.add_argument("--min-confidence", type=probability, default=None, metavar="P",
                   help="confidence from 0 to 1 below which no card is reported (default 0.9)")
    p.set_defaults(handler=_cmd_identify)


def _json_or_text(p: argparse.ArgumentParser, json_help: str, text_help: str) -> None:
    """JSON by default (DESIGN.md: "as JSON"); `--json` says so explicitly, `--text` asks for
    plain words."""
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", dest="text", action="store_false", help=json_help)
    out.add_argument("--text", dest="text", action="store_true", help=text_help)
    p.set_defaults(text=False)  # (store_false alone would default to True)


def _cmd_identify(args: argparse.Namespace) -> int:
    import json

    from vision.identify import identify, load_image
    from vision.recognize import MIN_CONFIDENCE
    from vision.templates import load_templates

    image = load_image(args.image)
    templates = None
    if args.templates:
        templates = load_templates(args.templates, given_as="--templates")
    threshold = MIN_CONFIDENCE if args.min_confidence is None else args.min_confidence
    result = identify(image, templates, threshold)
    r = result.reading
    if not args.text:
        print(json.dumps(result.to_json()))
    elif r.card is not None:
        from referee.cards import Card

        print(f"{r.card} ({Card.parse(r.card).pretty})  confidence {r.confidence:.3f}")
    else:
        print(f"no card: {r.reason}")
    return 0 if r.card is not None else 1


# --- demo and run: the live referee -----------------------------------------------------------

def _add_demo(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="a simulated game, rendered and refereed live (no camera "
                       "or Pi needed)")
    p.add_argument("--seed", type=int, default=52, help="which game the bots play (default 52: a short one)")
    p.add_argument("--variant", choices=["standard", "points"], default="standard")
    p.add_argument("--log", metavar="FILE", help="event log to write (default: "
                   "spit-demo-SEED-TIME.jsonl here)")
    p.add_argument("--plain", action="store_true", help="plain lines instead of the live view")
    p.add_argument("--coach", action="store_true", help="hints and explanations for beginners")
    p.set_defaults(handler=_cmd_demo)


def _cmd_demo(args: argparse.Namespace) -> int:
    from pathlib import Path

    from referee.live.demo import DemoConfig, run_demo
    from referee.live.view import make_view
    from referee.report import build_report, format_text

    cfg = DemoConfig(seed=args.seed, variant=args.variant, coach=args.coach,
                     log=Path(args.log) if args.log else None)
    with make_view(True if args.plain else None, title="spit-referee demo") as view:
        result = run_demo(cfg, view=view)
    c = result.comparison
    print(format_text(build_report(result.rulings)))
    def lat_text(values: list[int]) -> str:
        v = sorted(values)
        p99 = v[min(len(v) - 1, int(len(v) * 0.99))] if v else None
        return f"median {v[len(v) // 2]}, p99 {p99}" if v else "n/a"

    print(f"frames: {result.frames} ({result.game_s:.0f} s of game at 30 fps) in "
          f"{result.wall_s:.0f} s; ruling latency in frames from the first frame the card is "
          f"seen without a hand over it: {lat_text(result.latency_frames)} (from touch-down: "
          f"{lat_text(result.touch_latency_frames)})")
    print(f"rulings against the bots' true moves: {c.matched} of {c.true_moves} "
          f"moves matched, {c.true_illegal - c.missed_illegal} of {c.true_illegal} illegal plays "
          f"caught, {c.wrong} wrong rulings, {len(c.false_calls)} of them a round's end called "
          f"before it came ({c.true_ends} rounds ended)")
    for line in c.details:
        print(f"  {line}")
    if result.sight is not None:
        n = {k.value: v for k, v in result.sight.counts().items()}
        print(f"the camera against the true table: {n['reported']} tops reported, "
              f"{n['unread']} unread, {n['covered']} covered before they could be seen, "
              f"{n['misread']} misread")
    if result.light_changes:
        print(f"the room's light: {'; '.join(result.light_changes)}")
    print(f"log: {result.log_path}")
    return 0 if c.wrong == 0 else 1


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="referee a live game from a camera and slap pads")
    p.add_argument("--camera", required=True, metavar="SRC",
                   help="picamera2, a device index (0), a video file or a folder of images")
    p.add_argument("--calibration", required=True, metavar="FILE", help="the calibration file")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--log", metavar="FILE", help="event log (default spit-game-TIME.jsonl)")
    where.add_argument("--resume", metavar="LOG", help="continue the interrupted game in LOG")
    where.add_argument("--log-dir", metavar="DIR", help="keep the logs in DIR and continue the "
                       "newest if its game was interrupted in the last 10 minutes, else start "
                       "a new one (for a service that restarts after a crash)")
    p.add_argument("--no-pads", action="store_true", help="run without slap pads")
    p.add_argument("--voice", action="store_true", help="speak the calls (espeak-ng)")
    p.add_argument("--coach", action="store_true", help="hints and explanations for beginners")
    p.add_argument("--plain", action="store_true", help="plain lines instead of the live view")
    p.add_argument("--realtime", action="store_true", help="play a recording (video file or "
                   "folder) at its own speed instead of as fast as it can be read")
    p.add_argument("--publish", metavar="CREDENTIALS", help="tournament: publish this table's "
                   "rulings with these credentials (from `tournament init`)")
    p.add_argument("--spool", metavar="DIR", help="tournament: where rulings wait while the "
                   "broker is unreachable (default spool-TABLE)")
    p.add_argument("--broker", metavar="HOST:PORT", help="tournament: override the broker")
    p.set_defaults(handler=_cmd_run)


def _cmd_run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from referee.live.run import RunOptions, run_live, summary_lines
    from referee.live.view import make_view

    opts = RunOptions(camera=args.camera, calibration=Path(args.calibration),
                      log=Path(args.log) if args.log else None,
                      resume=Path(args.resume) if args.resume else None,
                      log_dir=Path(args.log_dir) if args.log_dir else None,
                      no_pads=args.no_pads, voice=args.voice, coach=args.coach,
                      publish=Path(args.publish) if args.publish else None,
                      spool=Path(args.spool) if args.spool else None, broker=args.broker,
                      realtime=args.realtime)
    with make_view(True if args.plain else None) as view:
        monitor, log_path = run_live(opts, view)
    for line in summary_lines(monitor, log_path):
        print(line)
    return 0


# --- read-table -------------------------------------------------------------------------------

def _add_read_table(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("read-table", help="one frame's zone readings")
    p.add_argument("image", metavar="IMAGE", help="a camera frame of the table (PNG, JPEG, ...)")
    p.add_argument("--calibration", metavar="FILE",
                   help="calibration file (its table homography); without it the mat's ArUco "
                   "markers are found in the image")
    _json_or_text(p, "the observation as one JSON object (the default): the zones' readings "
                  "under `observe`, as in a log line, with their `confidence` and where the "
                  "`table` was found", "one line per zone: reading, confidence and why")
    p.set_defaults(handler=_cmd_read_table)


def _cmd_read_table(args: argparse.Namespace) -> int:
    import json

    from vision.reader import TableReader, load_frame

    frame = load_frame(args.image)
    cal = None
    if args.calibration:
        from calibration.store import load
        cal = load(args.calibration)
    reader = TableReader.from_frame(frame, cal.layout if cal else None, cal)
    readings = reader.read_zones(frame)
    if not args.text:
        print(json.dumps({"observe": {z: r.reading for z, r in readings.items()},
                          "confidence": {z: round(r.confidence, 4) for z, r in readings.items()},
                          "table": reader.rectification.source}))
    else:
        print(f"table from {reader.rectification.source}")
        for zone, r in readings.items():
            print(f"{zone:11} {r.reading:6} {r.confidence:5.2f}  {r.why}")
    return 0


# --- replay | report (the rules monitor over a log) -------------------------------------------

def _monitor_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", choices=["standard", "points"], default="standard",
                   help="how the game is won: R21 (default) or the points variant R22")
    p.add_argument("--settle", type=positive_float, default=1.5, metavar="SECONDS",
                   help="how long R16 must hold before \"Spit!\" is called (default 1.5)")


def _monitor_config(args: argparse.Namespace):
    from referee.monitor import MonitorConfig
    from referee.rules import RulesConfig, Variant

    return MonitorConfig(rules=RulesConfig(variant=Variant(args.variant)), settle_s=args.settle)


def _add_replay(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="run the referee over a log's observe and slap lines")
    p.add_argument("log", metavar="LOG.jsonl", help="an event log or camera observation log")
    p.add_argument("--text", action="store_true", help="print plain words instead of JSONL")
    _monitor_options(p)
    p.set_defaults(handler=_cmd_replay)


def _cmd_replay(args: argparse.Namespace) -> int:
    from referee.live.replay import replay
    from referee.log import encode

    for ruling in replay(args.log, _monitor_config(args)):
        print(ruling.text() if args.text else encode(ruling.to_json()), flush=False)
    return 0


def _plot_file(text: str) -> str:
    from referee.live.plot import PlotError, plot_file

    try:
        return plot_file(text)
    except PlotError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_report(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="timing and results of a game from its log")
    p.add_argument("log", metavar="LOG.jsonl", help="an event log (its rulings are used) or a "
                   "camera observation log (it is replayed first)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--plot", metavar="FILE.png", type=_plot_file,
                   help="draw a timeline of the game (and the coaching figures to "
                   "FILE.coaching.png); .png is added to a name without an extension")
    _monitor_options(p)
    p.set_defaults(handler=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> int:
    import json

    from referee.live.replay import no_inputs_error, read_lines, replay_lines
    from referee.log import LogLineError, RulingRecord, parse_line
    from referee.report import build_report, format_text

    lines = list(read_lines(args.log))  # once: the log may be a pipe
    logged = []
    has_inputs = False
    for lineno, line in lines:
        try:
            entry = parse_line(line, lineno)
        except LogLineError:
            continue  # replay makes it a warning; the logged rulings skip it
        if isinstance(entry, RulingRecord):
            logged.append(entry.ruling)
        else:
            has_inputs = True
    if not logged and not has_inputs:
        raise no_inputs_error(args.log, lines)
    rulings = logged or replay_lines(lines, args.log, _monitor_config(args))
    report = build_report(rulings)
    coaching = None
    if has_inputs:  # coaching replays the inputs; a file of rulings alone has none
        from referee.live.coachlog import coaching_section

        coaching = coaching_section(args.log, _monitor_config(args), lines=lines)
        for other, why in coaching.skipped:
            print(f"spit-referee report: left {other.name} out of the comparison: {why}",
                  file=sys.stderr)
    if args.plot:
        from referee.live.plot import coaching_plot_path, plot_coaching, plot_timeline

        plot_timeline(rulings, report, args.plot)
        if coaching is not None:
            plot_coaching(coaching, coaching_plot_path(args.plot))
    if args.json:
        print(json.dumps(report.to_json() | {"coaching": coaching and coaching.to_json()},
                         ensure_ascii=False))
    else:
        from referee.coaching import format_coaching

        print(format_text(report))
        if coaching is not None:
            print(format_coaching(coaching.coaching, coaching.trends))
        else:
            print("No coaching: the log holds rulings only, no observations to replay")
        if args.plot:
            print(f"timeline written to {args.plot}"
                  + (f", coaching figures to {coaching_plot_path(args.plot)}"
                     if coaching is not None else ""))
    return 0


# --- tournament init | serve -------------------------------------------------------------------

def _add_tournament(sub: argparse._SubParsersAction) -> None:
    from tournament.cli import add_arguments  # light: argparse only; the work imports later

    add_arguments(sub)


# --- command table ----------------------------------------------------------------------------

_ADDERS = [_add_simulate, _add_calibrate, _add_identify, _add_demo, _add_run, _add_read_table,
           _add_replay, _add_report]
_ADDERS.append(_add_tournament)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spit-referee",
        description="A tabletop referee for the card game Spit (rules: RULES.md R1-R24).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add in _ADDERS:
        add(sub)
    return parser


# A reader that stops early (`spit-referee replay LOG | head`) closes the pipe: the output is
# cut short on purpose, so the command ends quietly with the shell's code for SIGPIPE (128 + 13),
# as `cat` or `grep` would, and a script using `set -o pipefail` still sees that it was cut.
EXIT_BROKEN_PIPE = 141


def command_line(argv: Sequence[str] | None) -> list[str]:
    """The arguments to parse: with none at all, the demo, the embedded default (DESIGN.md),
    said on stderr so that nobody wonders where the game came from."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("spit-referee: no command given, so the demo runs (the embedded default); "
              "`spit-referee --help` lists the commands", file=sys.stderr)
        return ["demo"]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(command_line(argv))
    try:
        code = int(args.handler(args) or 0)
        sys.stdout.flush()  # here, not at exit, so a closed pipe is caught below
        return code
    except BrokenPipeError:
        if not _stdout_closed():
            raise  # another pipe (a speech process, a socket): a real error
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except UserError as exc:
        print(f"spit-referee {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _stdout_closed() -> bool:
    """Whether stdout is a pipe whose reader has gone (poll reports an error on its end)."""
    import select

    try:
        fd = sys.stdout.fileno()
        poller = select.poll()
        poller.register(fd, 0)  # POLLERR and POLLHUP are always reported
        return any(ev & select.POLLERR for _, ev in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return True  # not a real file (a test's capture): trust the error


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of what is still buffered
    does not fail on the closed pipe again (the recipe of Python's `signal` documentation)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (a test's capture): nothing is flushed at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
