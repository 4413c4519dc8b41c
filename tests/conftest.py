"""Shared fixtures: the test data in ../shared/data (DESIGN.md, "Test data")."""
from __future__ import annotations

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
