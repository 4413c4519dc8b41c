"""No confident wrong reading on the real scene photos (../shared/data/photos/scenes/): cards
of the same unseen deck on desks, laptops and tables, at steep angles, with clutter.

The photos are unlabelled in the data set; these labels were read by eye from each photo:
every card whose index is visible in it."""
from __future__ import annotations

import cv2

from tests.vision.helpers_cards import SCENES
from vision.card import find_cards
from vision.identify import read_outline

LABELS: dict[str, set[str]] = {
    "q1": {"QS"}, "q2": {"QS"}, "q3": {"AS"}, "q4": {"4S"}, "q5": {"AC"}, "q6": {"AC"},
    "q7": {"AS"}, "q8": {"7H"}, "q9": {"QH"}, "q10": {"QH", "7S"}, "q11": {"QH", "7S"},
    "q12": {"QH", "7S"}, "q13": {"QH", "7S", "9H"}, "q14": {"6D"},
    "q15": {"7C", "AS", "2S", "3H", "AH"}, "q16": {"7C"}, "q17": {"AC", "3S", "AD"},
}


def test_scene_photos_have_no_confident_wrong_reading(shared_data):
    wrong, right = [], set()
    for name, cards in LABELS.items():
        img = cv2.imread(str(SCENES / f"{name}.jpg"), cv2.IMREAD_COLOR)
        for q in find_cards(img)[:8]:
            r = read_outline(img, q)
            if r.card is None:
                continue
            if r.card in cards:
                right.add((name, r.card))
            else:
                wrong.append((name, r.card))
    assert wrong == []
    # Of the 28 labelled cards, 20 are read today: 16 before read_outline's second look at a
    # card seen along its length (q11's and q12's QH, q16's 7C) and before the ink's colour
    # was measured against the paper's (q3's AS under a warm lamp). The rest are too small,
    # white on white, or a thin rank the corner networks do not know, and come back unread.
    assert len(right) >= 20
