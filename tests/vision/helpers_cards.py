"""Test helpers for the card reader: real photos and deck artwork from ../shared/data."""
from __future__ import annotations

import cv2
import numpy as np

from tests.conftest import DATA

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
