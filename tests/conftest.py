"""Shared fixtures: the test data in ../shared/data (DESIGN.md, "Test data")."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATA = SHARED / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"test data not found at {DATA}: clone the project beside ../shared")
    return DATA


def need_program(name: str) -> str:
    """The program's path; skips the test when it is missing (`make test` installs it with
    apt-get when run as root), fails under CI=true, where every test must run."""
    path = shutil.which(name) or (f"/usr/sbin/{name}" if os.access(f"/usr/sbin/{name}", os.X_OK)
                                  else None)
    if path is None:
        reason = f"{name} is not installed (`make system-deps` or: sudo apt-get install {name})"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + "; CI must run this test")
        pytest.skip(reason)
    return path


@pytest.fixture
def drawn_figures(monkeypatch) -> list:
    """The matplotlib figures `report --plot` draws, drawn (ticks and labels laid out) and
    kept after they are saved, so a test can read their axes."""
    import referee.live.plot as plot

    drawn: list = []
    save = plot._save

    def keep(fig, path) -> None:
        save(fig, path)
        fig.canvas.draw()
        drawn.append(fig)

    monkeypatch.setattr(plot, "_save", keep)
    return drawn
