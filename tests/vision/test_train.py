"""vision.train: the training pipeline runs end to end on a tiny subset and gives a model the
reader loads (the full training is `python -m vision.train`, not part of the test suite)."""
from __future__ import annotations

import numpy as np

from tests.vision.helpers_cards import DECKS
from vision.card import CARD_H, CARD_W
from vision.recognize import FEATURE_DIM, CornerModel, read_card
from vision.train import camera_card, load_deck_card, main


def test_tiny_training_run_writes_a_loadable_model(tmp_path, shared_data):
    out = tmp_path / "m.npz"
    code = main(["--data", str(shared_data), "--out", str(out), "--decks", "gnome-bonded",
                 "--per-card", "1", "--epochs", "2", "--font-copies", "1"])
    assert code == 0 and out.stat().st_size > 10_000
    model = CornerModel.load(out)
    assert model.rank.w1.shape == (FEATURE_DIM, model.rank.w1.shape[1])
    assert model.rank.w2.shape[1] == 14 and model.suit.w2.shape[1] == 5
    card = camera_card(load_deck_card(DECKS / "kde-standard" / "5S.png"), np.random.default_rng(1))
    r = read_card(card, model=model)
    assert 0.0 <= r.confidence <= 1.0


def test_camera_augmentation_gives_a_canonical_card():
    img = camera_card(load_deck_card(DECKS / "npm-cardsjs" / "JC.png"), np.random.default_rng(3))
    assert img.shape == (CARD_H, CARD_W, 3) and img.dtype == np.uint8


def test_augmentation_is_reproducible_for_a_seed():
    card = load_deck_card(DECKS / "openclipart-simple" / "9D.png")
    a = camera_card(card, np.random.default_rng(5))
    b = camera_card(card, np.random.default_rng(5))
    c = camera_card(card, np.random.default_rng(6))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
