"""vision.card: finding card outlines and flattening them, on real photos and real artwork."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.helpers_cards import PHOTOS, deck_card_bgra, paste, photo, wood
from vision.card import CARD_H, CARD_W, Quad, find_cards, find_top_card, flatten, portrait_corners


def _light(img: np.ndarray) -> float:
    return float(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).mean())


@pytest.mark.parametrize("code", ["AS", "5C", "10H", "JH", "QS", "KD"])
def test_finds_the_card_in_a_real_photo(code):
    img = photo(code)
    quads = find_cards(img)
    assert quads, "no card found"
    card = quads[0]
    h, w = img.shape[:2]
    assert 0.05 * h * w < card.area < 0.8 * h * w
    flat = flatten(img, card)
    # The flattened card is paper (light) all the way to its edges, not table.
    border = np.concatenate([flat[:6].reshape(-1, 3), flat[-6:].reshape(-1, 3),
                             flat[:, :6].reshape(-1, 3), flat[:, -6:].reshape(-1, 3)])
    assert border.astype(float).min(axis=1).mean() > 120


def test_every_real_photo_gives_a_card_outline(shared_data):
    missing = [p.stem for p in sorted(PHOTOS.glob("*.jpg")) if not find_cards(photo(p.stem))]
    assert missing == []


def test_flatten_gives_a_canonical_portrait_card_whatever_the_turn():
    img = photo("7D")
    for turn in (None, cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE):
        im = img if turn is None else cv2.rotate(img, turn)
        flat = flatten(im, find_cards(im)[0])
        assert flat.shape == (CARD_H, CARD_W, 3)


def test_sideways_makes_the_long_sides_top_and_bottom():
    # A card 60 wide and 80 long: portrait by default; sideways, the 80 px sides are the top
    # and bottom (a card seen along its length at a steep angle looks wider than long).
    q = Quad.from_points(np.array([[10, 10], [70, 10], [70, 90], [10, 90]]))
    assert portrait_corners(q).tolist() == [[10, 10], [70, 10], [70, 90], [10, 90]]
    assert portrait_corners(q, sideways=True).tolist() == [[70, 10], [70, 90], [10, 90], [10, 10]]
    img = np.zeros((100, 100, 3), np.uint8)
    img[10:50, 10:70] = 255  # the top half of the outline white
    up, side = flatten(img, q), flatten(img, q, sideways=True)
    assert up.shape == side.shape == (CARD_H, CARD_W, 3)
    assert up[: CARD_H // 3].mean() > 200 and up[-(CARD_H // 3):].mean() < 50
    # Sideways the quad's top side is the flat card's left side.
    assert side[:, : CARD_W // 3].mean() > 200 and side[:, -(CARD_W // 3):].mean() < 50


def test_quad_corners_are_clockwise_from_top_left():
    q = Quad.from_points(np.array([[10, 90], [10, 10], [70, 10], [70, 90]]))
    assert q.corners == ((10, 10), (70, 10), (70, 90), (10, 90))
    assert q.area == pytest.approx(60 * 80)


def test_top_card_of_an_overlapping_pile_is_found(shared_data):
    table = wood(400, 400)
    paste(table, deck_card_bgra("kde-standard", "9C"), (190, 210), 250, 0)
    truth = paste(table, deck_card_bgra("gnome-anglo", "4H"), (215, 190), 250, 18)
    top = find_top_card(table)
    assert top is not None
    got = top.as_array()
    # Match each true corner to its nearest found corner.
    err = max(np.linalg.norm(got - t, axis=1).min() for t in truth)
    assert err < 8.0


def test_rotated_cards_on_a_table_are_each_found(shared_data):
    table = wood(700, 1000)
    truths = [paste(table, deck_card_bgra(d, c), ctr, 220, a) for d, c, ctr, a in [
        ("npm-cardsjs", "QH", (200, 250), 30), ("gnome-bonded", "2S", (520, 400), -70),
        ("openclipart-simple", "KD", (820, 250), 95)]]
    quads = find_cards(table)
    assert len(quads) == 3
    for t in truths:
        centre = t.mean(axis=0)
        assert min(np.linalg.norm(np.array(q.center) - centre) for q in quads) < 6


def test_bare_table_has_no_card():
    assert find_cards(wood()) == []


def test_a_long_strip_is_not_a_card():
    table = wood()
    cv2.rectangle(table, (200, 250), (650, 350), (245, 245, 245), -1)
    assert find_cards(table) == []


def test_empty_image_is_refused():
    with pytest.raises(ValueError):
        find_cards(np.zeros((0, 0, 3), np.uint8))
