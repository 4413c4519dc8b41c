"""Test helpers for the card reader: real photos and deck artwork from ../shared/data."""
from __future__ import annotations

import cv2
import numpy as np

from tests.conftest import DATA
from vision.card import CARD_H, CARD_W, find_cards, flatten

PHOTOS = DATA / "photos" / "single-cards"
SCENES = DATA / "photos" / "scenes"
DECKS = DATA / "decks"


def photo(code: str) -> np.ndarray:
    img = cv2.imread(str(PHOTOS / f"{code}.jpg"), cv2.IMREAD_COLOR)
    assert img is not None, f"missing test photo {code}.jpg"
    return img


def deck_card_bgra(deck: str, code: str) -> np.ndarray:
    img = cv2.imread(str(DECKS / deck / f"{code}.png"), cv2.IMREAD_UNCHANGED)
    assert img is not None
    return img


def wood(h: int = 600, w: int = 800) -> np.ndarray:
    """Real wooden table: the card-free top strip of a real photo, stretched."""
    strip = photo("5C")[:140]
    return cv2.resize(strip, (w, h), interpolation=cv2.INTER_LINEAR)


def paste(table: np.ndarray, card_bgra: np.ndarray, center: tuple[float, float], height: float,
          angle_deg: float) -> np.ndarray:
    """Lay a deck card on the table; returns the four true corners (clockwise from the card's
    own top-left) and modifies `table` in place."""
    h, w = card_bgra.shape[:2]
    s = height / h
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, s)
    m[:, 2] += np.array(center) - np.array([w / 2, h / 2])
    warped = cv2.warpAffine(card_bgra, m, (table.shape[1], table.shape[0]), flags=cv2.INTER_LINEAR)
    a = warped[:, :, 3:4].astype(np.float32) / 255.0
    table[:] = (table * (1 - a) + warped[:, :, :3] * a).astype(np.uint8)
    pts = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float32)
    return pts @ m.T.astype(np.float32)


def artwork(deck: str, code: str) -> np.ndarray:
    """A deck's artwork of `code` on white paper at the canonical card size (vision.card)."""
    from vision.train import load_deck_card

    c = load_deck_card(DECKS / deck / f"{code}.png")
    a = c[:, :, 3:] / 255.0
    bgr = (c[:, :, :3] * a + 255 * (1 - a)).astype(np.uint8)
    return cv2.resize(bgr, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)


def camera_canonical(deck: str, code: str, blur: float = 0.6) -> np.ndarray:
    """A deck card as the table camera sees it (~1.6 px/mm, 88 mm tall, lens blur of `blur` px
    there, mild by default), then flattened back to the canonical size, as vision.card.flatten
    gives it to read_card."""
    im = deck_card_bgra(deck, code)
    a = im[:, :, 3:4] / 255.0
    bgr = (im[:, :, :3] * a + 255 * (1 - a)).astype(np.uint8)
    ys, xs = np.nonzero(im[:, :, 3] > 127)
    bgr = bgr[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    small = cv2.GaussianBlur(cv2.resize(bgr, (101, 141), interpolation=cv2.INTER_AREA), (0, 0), blur)
    return cv2.resize(small, (CARD_W, CARD_H), interpolation=cv2.INTER_LINEAR)


def bench_top_card(deck: str, scene_no: int, zone: str) -> tuple[np.ndarray, str]:
    """The top card of `zone` in bench/vision.py's table number `scene_no` of `deck`, flattened
    along its true outline, and its code."""
    import random

    from calibration.layout import default_layout
    from vision.rectify import from_homography
    from vision.render import Renderer, available_backs, random_scene
    from vision.zones import READ_MARGIN_MM, READ_PX_PER_MM, ZoneCutter
    from vision.card import Quad

    rng = random.Random(f"bench-vision-{deck}")
    backs = available_backs(DATA / "backs")
    for _ in range(scene_no + 1):
        scene = random_scene(rng, deck, rng.choice(backs))
    renderer = Renderer(DATA / "decks", DATA / "backs")
    frame, truth = renderer.render(scene)
    layout = default_layout()
    card, z = scene.piles[zone][-1], layout.zones[zone]
    px = (renderer.card_corners_mm(deck, zone, card) - (z.x - READ_MARGIN_MM, z.y - READ_MARGIN_MM)) \
        * READ_PX_PER_MM - 0.5
    cut = ZoneCutter(from_homography(truth.frame_to_table, (1280, 720)), layout).cut_for_reading(frame, zone)
    return flatten(cut, Quad.from_points(px)), card.face


def flat(code: str) -> np.ndarray:
    """The real photo of `code`, its card found and flattened as the reader gets it."""
    img = photo(code)
    return flatten(img, find_cards(img)[0])
