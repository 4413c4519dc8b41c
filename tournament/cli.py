"""The `spit-referee tournament init | serve` commands (wired into referee/cli.py)."""
from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path

from referee.errors import UserError


def add_arguments(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tournament", help="many tables, one broker, one live dashboard")
    steps = p.add_subparsers(dest="step", metavar="STEP")
    steps.required = True

    i = steps.add_parser("init", help="write a secured Mosquitto config and the credentials "
                         "of N tables and the dashboard")
    i.add_argument("--tables", type=int, required=True, metavar="N")
    i.add_argument("--event", required=True, metavar="NAME", help="the event's name (one "
                   "topic level: letters, digits, '-', '_', '.')")
    i.add_argument("--out", required=True, metavar="DIR", help="folder for the files")
    i.add_argument("--port", type=int, default=None, help="broker port (1883, 8883 with TLS)")
    i.add_argument("--bind", default="127.0.0.1", help="address the broker listens on "
                   "(default 127.0.0.1; the LAN address to accept other machines' tables)")
    i.add_argument("--host", default=None, help="the broker address written into the "
                   "credentials (default: --bind)")
    i.add_argument("--cafile", help="CA certificate (PEM): with --certfile and --keyfile, the "
                   "broker listens with TLS only")
    i.add_argument("--certfile", help="the broker's certificate (PEM)")
    i.add_argument("--keyfile", help="the broker's private key (PEM)")
    i.add_argument("--run-as", metavar="USER", help="the user Mosquitto runs as when started "
                   "by root (default: Mosquitto's own, `mosquitto`)")
    i.add_argument("--force", action="store_true", help="replace an existing configuration "
                   "(every password changes)")
    i.set_defaults(handler=_cmd_init)

    t = steps.add_parser("table", help="referee a recorded or simulated game and publish its "
                         "rulings as one table (a dry run of the broker and the dashboard)")
    t.add_argument("--credentials", required=True, metavar="FILE",
                   help="table-K.json from `tournament init`")
    t.add_argument("--broker", metavar="HOST:PORT", help="default: the one in the file")
    t.add_argument("--spool", metavar="DIR", help="the table's spool folder (default "
                   "spool-<table>): keep it between runs so seqs keep counting")
    src = t.add_mutually_exclusive_group()
    src.add_argument("--log", metavar="LOG.jsonl", help="a camera observation log or event "
                     "log: its start/observe/slap lines are refereed")
    src.add_argument("--seed", type=int, default=1, help="otherwise a bot game (default 1)")
    t.add_argument("--variant", choices=["standard", "points"], default="standard")
    t.add_argument("--speed", type=float, default=1.0, help="times faster than the log's own "
                   "pace (default 1: live; 0: as fast as possible)")
    t.add_argument("--drain", type=float, default=10.0, metavar="SECONDS",
                   help="how long to wait at the end for the broker to acknowledge the last "
                   "rulings (default 10); the rest stays in the spool for the next run")
    t.set_defaults(handler=_cmd_table)

    s = steps.add_parser("serve", help="subscribe to the event; serve the live standings page")
    s.add_argument("--event", required=True, metavar="NAME")
    s.add_argument("--broker", required=True, metavar="HOST:PORT")
    s.add_argument("--credentials", required=True, metavar="FILE",
                   help="dashboard.json from `tournament init`")
    s.add_argument("--port", type=int, default=8080, help="web page port (default 8080)")
    s.add_argument("--bind", default="127.0.0.1", help="web page address (default 127.0.0.1)")
    s.add_argument("--data", metavar="DIR", help="journal folder, so a restarted dashboard "
                   "keeps its standings (default tournament-EVENT)")
    s.set_defaults(handler=_cmd_serve)


def _cmd_init(args: argparse.Namespace) -> int:
    from tournament.brokerconf import InitError, TlsFiles, init_event

    given = [args.cafile, args.certfile, args.keyfile]
    tls = None
    if any(given):
        if not all(given):
            raise InitError("TLS needs all three of --cafile, --certfile and --keyfile")
        tls = TlsFiles(Path(args.cafile), Path(args.certfile), Path(args.keyfile))
    r = init_event(args.event, args.tables, args.out, port=args.port, bind=args.bind,
                   host=args.host, tls=tls, force=args.force, run_as=args.run_as)
    print(f"wrote {r.config} ({len(r.tables)} tables, passwords hashed with {r.hashed_with})")
    print(f"start the broker:  mosquitto -c {r.config}")
    print(f"give each referee its file: {r.folder / 'credentials'}/table-K.json")
    print(f"dashboard:  spit-referee tournament serve --event {args.event} "
          f"--broker {r.credentials['dashboard'] and _broker(r)} "
          f"--credentials {r.credentials['dashboard']}")
    return 0


def _broker(r: object) -> str:
    from tournament.credentials import load

    return load(r.credentials["dashboard"]).broker  # type: ignore[attr-defined]


def _cmd_serve(args: argparse.Namespace) -> int:
    from tournament.credentials import load
    from tournament.dashboard import Dashboard, Feed

    cred = load(args.credentials, role="dashboard")
    if cred.event != args.event:
        raise UserError(f"{args.credentials} is for the event {cred.event!r}, not "
                        f"{args.event!r}: pass that event's dashboard.json")
    feed = Feed(cred, args.broker, args.data or f"tournament-{args.event}")
    dash = Dashboard(feed, args.bind, args.port)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    dash.start()
    print(f"dashboard on http://{args.bind}:{dash.port}/ (broker {feed.host}:{feed.port}); "
          "Ctrl-C stops", flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        dash.stop()
    return 0


def _cmd_table(args: argparse.Namespace) -> int:
    import json

    from referee.rules import RulesConfig, Variant
    from tournament.credentials import load
    from tournament.publisher import PublisherConfig, TablePublisher
    from tournament.simtable import SimulatedTable, game_lines

    cred = load(args.credentials, role="table")
    if args.speed < 0:
        raise UserError(f"--speed must be 0 or more, got {args.speed}")
    if args.log:
        try:
            texts = Path(args.log).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:
            raise UserError(f"cannot read {args.log} ({exc.strerror}); check the path") \
                from None
        lines = []
        for lineno, text in enumerate(texts, 1):
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except ValueError:
                raise UserError(f"{args.log}:{lineno} is not JSON: give a camera or event "
                                "log (JSONL)") from None
            if isinstance(obj, dict) and any(k in obj for k in ("start", "observe", "slap")):
                lines.append(obj)
        if not lines:
            raise UserError(f"{args.log} has no start, observe or slap lines to referee")
        rules = RulesConfig(variant=Variant(args.variant))
    else:
        lines, rules = game_lines(args.seed, args.variant)
    cfg = PublisherConfig.from_credentials(cred, args.spool or f"spool-{cred.username}",
                                           args.broker)
    with TablePublisher(cfg) as pub:
        table = SimulatedTable(lines, rules, [pub], speed=args.speed)
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            table.run(stop)
        except KeyboardInterrupt:
            pass
        sent = pub.wait_sent(args.drain)
        st = pub.status()
    print(f"{cred.username}: {len(table.rulings)} rulings refereed, seq up to {st.last_seq}; "
          + ("all acknowledged by the broker" if sent else
             f"{st.pending} still queued in {cfg.spool} ({st.last_error})"))
    return 0 if sent else 1
