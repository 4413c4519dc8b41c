"""`report --plot`: a timeline of a game drawn with matplotlib (imported only when asked for).

One lane per player: each play a dot, each illegal play a red cross; spits are thin vertical
lines, slap results triangles with their margin, and each round a shaded band. Time runs on
the game's clock, minutes and seconds since the first ruling, as the live view prints it (the
log keeps the camera's clock, seconds since the machine started).
`plot_coaching` draws the report's coaching figures against the earlier games'.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Sequence

from referee.errors import UserError
from referee.report import GameReport
from referee.rulings import Ruling, RulingKind
from referee.zones import PLAYERS

if TYPE_CHECKING:
    from referee.live.coachlog import CoachingSection

_ILLEGAL = (RulingKind.ILLEGAL, RulingKind.FALSE_SPIT, RulingKind.FALSE_SLAP)


class PlotError(UserError):
    """matplotlib is missing or the picture cannot be written."""


DEFAULT_FORMAT = "png"
# PGF is LaTeX code, not a picture, and matplotlib needs a TeX installation to write it.
_UNWRITABLE = {"pgf"}


def plot_formats() -> list[str] | None:
    """The file extensions matplotlib's Agg backend writes (png, pdf, svg, jpg, ...), or None
    when matplotlib is not installed."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError:
        return None
    return sorted(set(FigureCanvasAgg.get_supported_filetypes()) - _UNWRITABLE)


def plot_file(path: str) -> str:
    """The file `report --plot PATH` writes: PATH itself, or PATH.png when it has no extension
    (as matplotlib would name it); PlotError when the extension is no format it can write."""
    root, ext = os.path.splitext(path)
    if not ext:
        return f"{path}.{DEFAULT_FORMAT}"
    formats = plot_formats()
    if formats is not None and ext[1:].lower() not in formats:
        raise PlotError(f"cannot draw a picture as {ext}: end the file name in "
                        f"{', '.join('.' + f for f in formats)}")
    return path


def game_clock(seconds: float) -> str:
    """`75.4` → `1:15`: a time on the game's clock, as minutes and whole seconds."""
    sign = "-" if seconds < 0 else ""
    minutes, secs = divmod(int(round(abs(seconds))), 60)
    return f"{sign}{minutes}:{secs:02d}"


def plot_timeline(rulings: Sequence[Ruling], report: GameReport,
                  path: str | os.PathLike[str]) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")  # no screen needed: write the file only
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError("--plot needs matplotlib: pip install 'spit-referee[plot]'") from None
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    lane = {p: i for i, p in enumerate(PLAYERS)}
    t0 = rulings[0].t if rulings else (report.rounds[0].start_t if report.rounds else 0.0)
    fig, ax = plt.subplots(figsize=(12, 3.2))
    try:
        for k, r in enumerate(report.rounds):
            ax.axvspan(r.start_t - t0, r.end_t - t0, color="0.93" if k % 2 == 0 else "0.86",
                       zorder=0)
            ax.text(r.start_t - t0, len(PLAYERS) - 0.35, f"round {r.index}", fontsize=8,
                    va="top")
        for p in PLAYERS:
            ts = [r.t - t0 for r in rulings if r.kind is RulingKind.PLAY and r.player == p]
            ax.scatter(ts, [lane[p]] * len(ts), marker="o", s=14, color="tab:blue",
                       label=f"{p.upper()} plays")
        for p in PLAYERS:
            ts = [r.t - t0 for r in rulings if r.kind in _ILLEGAL and r.player == p]
            if ts:
                ax.scatter(ts, [lane[p]] * len(ts), marker="x", s=40, color="tab:red",
                           label=f"{p.upper()} illegal")
        for r in rulings:
            if r.kind is RulingKind.SPIT:
                ax.axvline(r.t - t0, color="tab:green", lw=0.6, alpha=0.6)
            elif r.kind is RulingKind.SLAP_RESULT:
                ax.scatter([r.t - t0], [len(PLAYERS) - 0.5], marker="v", color="k")
                if r.extra.get("margin_ms") is not None:
                    # Below the triangle: above it, the next round's label.
                    ax.annotate(f"{r.extra['margin_ms']:.0f} ms", (r.t - t0, len(PLAYERS) - 0.5),
                                fontsize=7, xytext=(4, -10), textcoords="offset points")
        ax.set_yticks(range(len(PLAYERS)), [p.upper() for p in PLAYERS])
        ax.set_ylim(-0.6, len(PLAYERS) - 0.2)
        # Ticks on whole multiples of 10 s, 30 s, 1 min, 5 min ... labelled m:ss.
        ax.xaxis.set_major_locator(MaxNLocator(nbins=12, steps=[1, 3, 6, 10]))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: game_clock(v)))
        ax.set_xlabel("game clock (minutes:seconds since the first ruling)")
        ax.set_title("Game timeline: plays (dots), illegal plays (crosses), spits (green lines), "
                     "slaps (triangles)", fontsize=9)
        _save(fig, path)
    finally:
        plt.close(fig)


def plot_coaching(section: "CoachingSection", path: str | os.PathLike[str]) -> None:
    """The report's coaching figures: one panel per figure (missed plays, mean time to see a
    play, illegal actions), a bar per player for this game and, where there are earlier games
    in the folder, a bar for their average beside it."""
    from referee.coaching import FIGURES

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError("--plot needs matplotlib: pip install 'spit-referee[plot]'") from None
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, len(FIGURES), figsize=(10, 3.2))
    try:
        x = range(len(PLAYERS))
        for ax, (name, words) in zip(axes, FIGURES.items()):
            now = [section.trends[p][name].now for p in PLAYERS]
            before = [section.trends[p][name].before for p in PLAYERS]
            paired = any(b is not None for b in before)
            # This game's bar on the player's tick, or left of it beside the earlier games'.
            width = 0.38 if paired else 0.5
            shift = width / 2 if paired else 0.0
            ax.bar([i - shift for i in x], [v or 0.0 for v in now], width,
                   color="tab:blue", label="this game")
            if paired:
                ax.bar([i + shift for i in x], [b or 0.0 for b in before], width,
                       color="0.7", label=f"earlier games ({len(section.earlier)})")
            for i, p in enumerate(PLAYERS):
                verdict = section.trends[p][name].verdict
                if verdict in ("better", "worse"):
                    ax.annotate(verdict, (i, max(now[i] or 0.0, before[i] or 0.0)),
                                ha="center", fontsize=8, xytext=(0, 3),
                                textcoords="offset points",
                                color="tab:green" if verdict == "better" else "tab:red")
            ax.set_xticks(list(x), [p.upper() for p in PLAYERS])
            ax.set_title(words + (" (s)" if name == "seen_s" else ""), fontsize=9)
            # From 0 (none of these is ever below), with room above for the verdicts; counts
            # in whole numbers (0 missed plays drew an axis from -0.06 to 0.06).
            top = max([v for v in now + before if v is not None] + [0.0])
            ax.set_ylim(0, 1.2 * top if top > 0 else 1)
            if name != "seen_s":
                ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes[0].legend(fontsize=7, loc="best")
        fig.suptitle("Coaching: lower is better", fontsize=9)
        _save(fig, path)
    finally:
        plt.close(fig)


def coaching_plot_path(timeline: str | os.PathLike[str]) -> str:
    """Where `report --plot FILE.png` draws the coaching figures: FILE.coaching.png."""
    root, ext = os.path.splitext(os.fspath(timeline))
    return f"{root}.coaching{ext or '.png'}"


def _save(fig, path) -> None:
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise PlotError(f"cannot write {path}: {exc.strerror}") from None
    except ValueError as exc:  # a format matplotlib cannot write (plot_file checks it first)
        raise PlotError(f"cannot write {path}: {exc}") from None
