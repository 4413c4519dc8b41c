"""Corner models trained without one deck, as bench/vision.py trains its leave-one-deck-out
models, kept in tests/vision/heldout/<deck>.npz (the model that never saw <deck>): the reader
tests built on what a held-out model misreads run in every test run, where training them
would take minutes. test_train checks (under -m slow) that they are what training gives today.

Rebuild them after changing vision.train or the corner features:
    .venv/bin/python -m tests.vision.heldout
"""
from __future__ import annotations

import functools
from pathlib import Path

from vision.corner_model import CornerModel

HELD_OUT = Path(__file__).resolve().parent / "heldout"
HELD_OUT_DECKS = ("gnome-anglo", "gnome-paris", "npm-cardsjs")  # those the tests read


@functools.lru_cache(maxsize=None)
def held_out_model(deck: str) -> CornerModel:
    """The corner model trained without `deck`."""
    return CornerModel.load(HELD_OUT / f"{deck}.npz")


def train(decks: tuple[str, ...] = HELD_OUT_DECKS) -> dict[str, CornerModel]:
    """{deck: the model trained without it}, as bench/vision.py trains them (vision.train)."""
    from tests.conftest import DATA
    from vision.train import SEED, build_samples, fit, pooled

    prepared = build_samples(DATA, 8, SEED, log=lambda s: None)
    return {deck: fit(*pooled(prepared, without=deck), SEED) for deck in decks}


def main() -> None:
    for deck, model in train().items():
        model.save(HELD_OUT / f"{deck}.npz")
        print(f"{HELD_OUT / f'{deck}.npz'}: the corner model trained without {deck}")


if __name__ == "__main__":
    main()
