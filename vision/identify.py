"""Identify the one card in a photo (the `spit-referee identify IMAGE` command).

The card may lie anywhere in the photo, in any orientation, under perspective however steep
its index stays readable.
Every card-shaped outline is flattened and read; the most confident reading wins. Nothing is
guessed: below the confidence threshold the answer is "no card" with the reason.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.card import Quad, find_cards, flatten
from vision.imagefile import ImageFileError, load_image
from vision.recognize import MIN_CONFIDENCE, CardReading, read_card
from vision.templates import Templates

# Outlines tried per photo, largest first: the card and a few look-alikes (a pip, a phone).
MAX_CANDIDATES = 6


ImageReadError = ImageFileError  # the name this module gave it first

__all__ = ["Identification", "ImageReadError", "identify", "load_image", "read_outline"]


@dataclass(frozen=True)
class Identification:
    reading: CardReading
    found: bool  # a card-shaped outline was found at all

    def to_json(self) -> dict:
        r = self.reading
        if r.card is None:
            # No rank or suit is printed when no card is read: a below-threshold guess shown
            # to a user would be taken for an answer. The keys are there, null, so a script
            # reads one shape either way.
            d: dict = {"card": None, "rank": None, "suit": None, "reason": r.reason}
            if self.found:
                d["confidence"] = round(float(r.confidence), 4)
            return d
        return r.to_json()


def read_outline(image: np.ndarray, quad: Quad, templates: Templates | None = None,
                 min_confidence: float = MIN_CONFIDENCE) -> CardReading:
    """Read the card inside one outline of a photo. Flattened with its shorter sides as top and
    bottom, as a card seen from above; when that reads no card, flattened the other way too: a
    card photographed at a steep angle along its length looks wider than long. A card flattened
    on its side reads nothing (its squashed index is no glyph: 0 of the 52 real photos and of
    the seven decks' 364 cards, both ways), so the second look names a card only when it does
    not contradict what the first made out of the index."""
    first = read_card(flatten(image, quad), templates, min_confidence=min_confidence)
    if first.card is not None:
        return first
    other = read_card(flatten(image, quad, sideways=True), templates, min_confidence=min_confidence)
    if other.card is None:
        return first if first.confidence >= other.confidence else other
    said = {first.rank, first.suit, *first.corners} - {None}
    if said - {other.rank, other.suit, other.card}:
        return first
    return other


def identify(image: np.ndarray, templates: Templates | None = None,
             min_confidence: float = MIN_CONFIDENCE) -> Identification:
    """Read the card in `image`: the most confident reading over the found outlines."""
    quads = find_cards(image)[:MAX_CANDIDATES]
    if not quads:
        return Identification(CardReading(None, None, None, 0.0, "no card found in the image"), False)
    best: CardReading | None = None
    for q in quads:
        r = read_outline(image, q, templates, min_confidence)
        if best is None or r.confidence > best.confidence:
            best = r
    assert best is not None
    if best.card is None:
        why = best.reason or "low confidence"
        best = CardReading(None, best.rank, best.suit, best.confidence,
                           f"a card was found but not read with confidence ({why}: "
                           f"{best.confidence:.2f} < {min_confidence:.2f})")
    return Identification(best, True)
