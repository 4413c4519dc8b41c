"""Fixtures for the vision tests: a renderer drawing the seven decks and eleven backs of
../shared/data (the scenes the reader is tested on)."""
import pytest

from tests.conftest import DATA
from vision.render import Renderer


@pytest.fixture(scope="session")
def renderer() -> Renderer:
    return Renderer(DATA / "decks", DATA / "backs")
