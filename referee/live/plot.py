"""`report --plot`: a timeline of a game drawn with matplotlib (imported only when asked for).

One lane per player: each play a dot, each illegal play a red cross; spits are thin vertical
lines, slap results triangles with their margin, and each round a shaded band.
"""
from __future__ import annotations

import os
from typing import Sequence

from referee.errors import UserError
from referee.report import GameReport
from referee.rulings import Ruling, RulingKind
from referee.zones import PLAYERS

_ILLEGAL = (RulingKind.ILLEGAL, RulingKind.FALSE_SPIT, RulingKind.FALSE_SLAP)


class PlotError(UserError):
    """matplotlib is missing or the picture cannot be written."""


def plot_timeline(rulings: Sequence[Ruling], report: GameReport,
                  path: str | os.PathLike[str]) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")  # no screen needed: write the file only
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError("--plot needs matplotlib: pip install 'spit-referee[plot]'") from None
    lane = {p: i for i, p in enumerate(PLAYERS)}
    fig, ax = plt.subplots(figsize=(12, 3.2))
    try:
        for k, r in enumerate(report.rounds):
            ax.axvspan(r.start_t, r.end_t, color="0.93" if k % 2 == 0 else "0.86", zorder=0)
            ax.text(r.start_t, len(PLAYERS) - 0.35, f"round {r.index}", fontsize=8, va="top")
        for kind, style in ((RulingKind.PLAY, dict(marker="o", s=14, color="tab:blue")),):
            for p in PLAYERS:
                ts = [r.t for r in rulings if r.kind is kind and r.player == p]
                ax.scatter(ts, [lane[p]] * len(ts), label=f"{p.upper()} plays", **style)
        for p in PLAYERS:
            ts = [r.t for r in rulings if r.kind in _ILLEGAL and r.player == p]
            if ts:
                ax.scatter(ts, [lane[p]] * len(ts), marker="x", s=40, color="tab:red",
                           label=f"{p.upper()} illegal")
        for r in rulings:
            if r.kind is RulingKind.SPIT:
                ax.axvline(r.t, color="tab:green", lw=0.6, alpha=0.6)
            elif r.kind is RulingKind.SLAP_RESULT:
                ax.scatter([r.t], [len(PLAYERS) - 0.5], marker="v", color="k")
                if r.extra.get("margin_ms") is not None:
                    ax.annotate(f"{r.extra['margin_ms']:.0f} ms", (r.t, len(PLAYERS) - 0.5),
                                fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.set_yticks(range(len(PLAYERS)), [p.upper() for p in PLAYERS])
        ax.set_ylim(-0.6, len(PLAYERS) - 0.2)
        ax.set_xlabel("time (s)")
        ax.set_title("Game timeline: plays (dots), illegal plays (crosses), spits (green lines), "
                     "slaps (triangles)", fontsize=9)
        fig.tight_layout()
        try:
            fig.savefig(path, dpi=110)
        except OSError as exc:
            raise PlotError(f"cannot write {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)
