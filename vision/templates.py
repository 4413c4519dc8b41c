"""Optional per-deck templates (`spit-referee calibrate deck`): a known deck's own glyphs.

`load_templates(folder)` reads a folder of card images named by card code and keeps the glyph
features (vision.corner_model) of each card's rank and suit marks (vision.marks);
`Templates.adjust` moves a corner's reading towards the template its marks match best, when
they match well (`TEMPLATE_MATCH`). vision.recognize.read_card takes them; they are never
needed.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from referee.errors import UserError
from vision.corner_model import RANKS, SUITS, CornerReading, glyph_features
from vision.marks import corner_views, find_marks

# A template match this similar (cosine of glyph features) counts as evidence; the deck's own
# glyphs match themselves at ≥ 0.9 after flattening, other ranks of that deck score below ~0.8.
TEMPLATE_MATCH = 0.88
MAX_LISTED = 5  # unusable files named in the error when no file is usable


class TemplateError(UserError):
    """A templates folder that cannot be used."""


@dataclass(frozen=True)
class Templates:
    """The corner glyph features of one deck, by rank and by suit (from `calibrate deck`)."""

    rank_features: Mapping[str, np.ndarray]
    suit_features: Mapping[str, np.ndarray]

    def adjust(self, view: np.ndarray, r: CornerReading) -> CornerReading:
        marks = find_marks(view)
        if marks.rank is None or marks.suit is None:
            return r
        rank_p = _sharpen(r.rank_p, RANKS, glyph_features(marks.rank), self.rank_features)
        suit_p = _sharpen(r.suit_p, SUITS, glyph_features(marks.suit), self.suit_features)
        return CornerReading(rank_p, suit_p)


def _sharpen(p: np.ndarray, labels: tuple[str, ...], f: np.ndarray,
             feats: Mapping[str, np.ndarray]) -> np.ndarray:
    """Move probability towards the template the mark matches best, if it matches well."""
    best, best_sim = None, -1.0
    fn = f / (np.linalg.norm(f) + 1e-9)
    for label, tf in feats.items():
        sims = tf @ fn
        s = float(sims.max())
        if s > best_sim:
            best, best_sim = label, s
    if best is None or best_sim < TEMPLATE_MATCH:
        return p
    q = p.copy()
    q[labels.index(best)] += 1.0  # one vote worth as much as the classifier's whole belief
    return q / q.sum()


def load_templates(folder: str | Path, given_as: str | None = None) -> Templates:
    """Templates from a folder of card images named by card code (`7H.png`, `10S.jpg`): each
    image is one card, either already flattened or lying anywhere in the photo. `given_as`
    names where the folder came from ("--templates", "deck.templates_dir in the calibration
    file"), so the advice can say what to leave out."""
    from referee.cards import Card
    from vision.card import CARD_H, CARD_W, find_cards, flatten
    from vision.imagefile import ImageFileError, load_image

    folder = Path(folder)
    where = f" ({given_as})" if given_as else ""
    instead = f", or leave out {given_as}" if given_as else ""
    if not folder.exists():
        raise TemplateError(f"templates folder {folder}{where} does not exist: run `spit-referee "
                            f"calibrate deck` to make one{instead}")
    if not folder.is_dir():
        raise TemplateError(f"{folder}{where} is a file, not a folder: give the folder of card "
                            f"images that `spit-referee calibrate deck` makes{instead}")
    ranks: dict[str, list[np.ndarray]] = {}
    suits: dict[str, list[np.ndarray]] = {}
    unusable: list[str] = []  # "7H.png is truncated", for the error when none is usable
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in {".png", ".jpg", ".jpeg", ".bmp"}:
            continue
        try:
            card = Card.parse(path.stem)
        except UserError:
            continue
        try:
            img = load_image(path, "card image")
        except ImageFileError as exc:
            unusable.append(f"{path.name} {exc.problem}")
            continue
        if img.shape[:2] == (CARD_H, CARD_W):  # already flattened (calibrate deck stores these)
            flat = img
        else:
            quads = find_cards(img)
            if not quads:
                unusable.append(f"{path.name} shows no card")
                continue
            flat = flatten(img, quads[0])
        marked = False
        for view in corner_views(flat):
            marks = find_marks(view)
            if marks.rank is None or marks.suit is None:
                continue
            marked = True
            for store, key, m in ((ranks, card.rank.symbol, marks.rank),
                                  (suits, card.suit.value, marks.suit)):
                f = glyph_features(m)
                store.setdefault(key, []).append(f / (np.linalg.norm(f) + 1e-9))
        if not marked:
            unusable.append(f"{path.name}: no rank and suit found in its corners")
    if not ranks:
        if not unusable:
            raise TemplateError(f"no card images in {folder}: name them by card code, "
                                "e.g. 7H.png (`spit-referee calibrate deck` makes them)")
        shown = "; ".join(unusable[:MAX_LISTED])
        more = f"; and {len(unusable) - MAX_LISTED} more" if len(unusable) > MAX_LISTED else ""
        raise TemplateError(f"no usable card images in {folder}: {shown}{more}. Give photos of "
                            "single cards named by card code (or the flattened cards `spit-"
                            f"referee calibrate deck` makes){instead}")
    return Templates({k: np.stack(v) for k, v in ranks.items()},
                     {k: np.stack(v) for k, v in suits.items()})
