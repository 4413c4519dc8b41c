"""vision.train: the training pipeline runs end to end on a tiny subset and gives a model the
reader loads (the full training is `python -m vision.train`, not part of the test suite)."""
from __future__ import annotations

import numpy as np

from tests.vision.helpers_cards import DECKS
from vision.card import CARD_H, CARD_W
from vision.recognize import FEATURE_DIM, RANKS, SUITS, CornerModel, default_model, read_card
from vision.train import camera_card, load_deck_card, main, scene_samples


def test_tiny_training_run_writes_a_loadable_model(tmp_path, shared_data):
    out = tmp_path / "m.npz"
    code = main(["--data", str(shared_data), "--out", str(out), "--decks", "gnome-bonded",
                 "--per-card", "1", "--epochs", "2", "--font-copies", "1", "--scenes", "1"])
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


def test_scene_examples_are_the_marks_of_the_rendered_top_cards(shared_data):
    # One rendered table of twelve face-up piles: the marks cut from its top cards (as the
    # reader cuts them) carry those cards' labels, and the shipped model, which has seen such
    # marks, agrees with nearly all of them.
    s, junk = scene_samples(shared_data, "gnome-tango", 1, seed=3)
    assert len(s.rank_x) == len(s.suit_x) >= 24  # 12 cards × 2 corners, more with extra looks
    model = default_model()
    ranks = model.rank.probabilities(np.stack(s.rank_x)).argmax(axis=1)
    suits = model.suit.probabilities(np.stack(s.suit_x)).argmax(axis=1)
    assert np.mean(ranks == np.array(s.rank_y)) >= 0.9
    assert np.mean(suits == np.array(s.suit_y)) >= 0.9
    assert set(s.rank_y) <= set(range(len(RANKS))) and set(s.suit_y) <= set(range(len(SUITS)))


def test_scene_examples_are_reproducible_for_a_seed(shared_data):
    a, _ = scene_samples(shared_data, "npm-cardsjs", 1, seed=5)
    b, _ = scene_samples(shared_data, "npm-cardsjs", 1, seed=5)
    assert a.rank_y == b.rank_y and all(np.array_equal(x, y) for x, y in zip(a.rank_x, b.rank_x))
