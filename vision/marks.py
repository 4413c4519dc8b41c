"""The index corners of a canonical card, and the marks in them: ink segmentation.

`corner_views(card_image)` cuts out the two corners of a canonical card (vision.card.flatten)
that carry an index: top-left, and bottom-right turned 180°. In a corner `find_marks` segments
the ink and cuts out the rank mark (the topmost mark; "10" is two marks side by side) and the
suit mark (the mark below it) as grey ink-strength images (`CornerMarks`), with the ink's
colour (`ink_colour`). `cut_marks` is one look at the ink, whose options are the other looks
vision.recognize.read_corner_views takes at a corner that did not read surely: the dark core
only, faint print too, long thin lines such as a court card's frame taken out
(`remove_lines`), the rank's column alone (`column_marks`), the card's outer edges left out,
faint print above a lone mark, the green channel alone (where a court's yellow art is light);
`split_at_neck` and `neck_splits` part a tall mark, a rank and suit joined by blur, at its
neck or at each of its waists. What a mark shows is vision.corner_model's to say.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

# --- corner geometry, as fractions of the canonical card (vision.card.CARD_W × CARD_H) ------
# The index of the decks we know sits within 3–22 % of the width and 3–44 % of the height (the
# big suit of openclipart-simple ends at 43 %); the crop is a little larger so a loose outline
# from find_cards still holds the whole index.
CORNER_W_FRAC = 0.30
CORNER_H_FRAC = 0.47
# --- ink segmentation --------------------------------------------------------------------------
# Ink is darker than the paper (in the darkest colour channel, so red ink counts as dark) by at
# least this fraction of the paper's brightness; the card's printed border line (light grey)
# and paper texture stay below it, black and red print and their blurred edges above.
MIN_INK_CONTRAST = 0.30
MAX_INK_CONTRAST = 0.62  # Otsu may pick a lower cut, never one darker than this
STRICT_INK_CONTRAST = 0.55  # second look: only the print's dark core (see find_marks)
# Third look, for a faint index: thin blurred strokes (a small grey "4" beside a big black pip,
# whose ink drags Otsu's cut down) fall apart at the normal cut. Paper texture, sensor noise
# and JPEG stay below this contrast on every deck we render (noise σ ≤ 5 on paper ≥ 150).
LOOSE_INK_CONTRAST = 0.20
# A mark against the band an edge-band look leaves out (vision.recognize.EDGE_BAND_PX) along
# more than this share of its side is a strip, not index (see _along_band).
EDGE_BAND_CONTACT = 0.5
# Long thin straight lines (see remove_lines), as fractions of the corner crop (60 × 132 px on
# the canonical card) and px: the longest index stroke we know is ~30 % of the crop's height
# and ~45 % of its width (a "10"'s pair of strokes is two marks); a blurred printed line is
# ≤ 5 px thick there, a pip's body ≥ 8 px.
LINE_MIN_V = 0.40
LINE_MIN_H = 0.55
LINE_MAX_THICK = 7
PAPER_PERCENTILE = 90  # the paper brightness of a corner: most of the corner is paper
# Ink this much darker than the paper (fraction of paper brightness) counts as full-strength ink
# in the grey mark image; black and red print both reach it, blur and small size do not.
INK_FULL_CONTRAST = 0.55
# Marks smaller than this (px, on the canonical card) are dust, noise or JPEG ringing.
MIN_MARK_AREA = 10
MIN_MARK_HEIGHT = 6
# A lone mark at least this many times taller than wide may be a rank and suit joined by blur
# (no rank glyph is: "1" only ever comes as "10"); it is parted at a neck narrower than
# SPLIT_MAX_NECK of its widest row.
SPLIT_MIN_ASPECT = 1.9
SPLIT_MAX_NECK = 0.45
# A further look parts such a mark at every waist (a row narrower than its neighbours and than
# this share of the widest row on either side) and lets the networks judge each parting; at
# most this many partings (an "8" over a club has four waists, two its own).
NECK_SPLIT_MAX = 0.8
MAX_NECK_SPLITS = 4
# When no suit turns up under the rank, the index column (the rank's width, no more: on
# gnome-bonded's clubs a cut 20 % of the rank's width further right already takes in the big
# pip) is looked at on its own: the small suit sits under the rank, a big pip joined to it by
# blur lies further right. Only under a rank at least this wide for its height: under a narrow
# "J" the column would cut the suit in two.
COLUMN_MIN_ASPECT = 0.5
# The rank must be at least this tall (px): at 200×280 every deck we know prints ≥ 14 px; a
# smaller first mark is a border ornament or noise, and below ~8 px nothing reads reliably.
MIN_RANK_HEIGHT = 8
# Grey level (of 255) where a mark's soft edge ends, for its bounding box.
MARK_EDGE = 64
# JPEG keeps colour at half the resolution, in coarse blocks: thin dark print takes on the
# colour of the paper around it. Under a reddish light (the paper's Cr, YCrCb, this far above
# neutral) black print then measures red against the paper channel by channel (Ink.red up to
# 0.17 under a lamp whose blue is 0.62 of its red; 50 of 362 black marks over 0.095 under blue
# at 0.45; bench/vision.py's tables: 8 % of faces `?`). Bled colour is never redder than the
# paper it came from: `Ink.redder`, the ink's Cr less the paper's, tells (black print under
# those casts ≤ 5.6; red print's median 22-29; vision.corner_model.REDDER_MIDPOINT).
BLEED_PAPER_MIN_CR = 5.0


class Ink(NamedTuple):
    """A mark's colour against the paper around it (`ink_colour`): `red`, how much redder than
    it is green or blue; `tint`, how far its green and blue differ, which neither black nor red
    ink does (orange, yellow or blue art does); `redder`, under a reddish light only, how much
    redder the ink is than the paper in absolute terms (YCrCb's Cr; None in other light)."""

    red: float
    tint: float
    redder: float | None = None


NO_INK = Ink(0.0, 0.0)


@dataclass(frozen=True)
class CornerMarks:
    """The rank and suit marks found in one corner (turned upright), as grey ink-strength
    images (0 paper, 255 full ink), with the ink's colour."""

    rank: np.ndarray | None
    suit: np.ndarray | None
    ink: Ink
    rank_box: tuple[int, int, int, int] | None = None  # x0, y0, x1, y1 in the corner, px


# --- segmentation -------------------------------------------------------------------------------

def corner_views(card_image: np.ndarray) -> list[np.ndarray]:
    """The two index corners of a canonical card, each turned so its index is upright."""
    h, w = card_image.shape[:2]
    cw, ch = round(w * CORNER_W_FRAC), round(h * CORNER_H_FRAC)
    tl = card_image[:ch, :cw]
    br = card_image[h - ch:, w - cw:][::-1, ::-1]
    return [np.ascontiguousarray(tl), np.ascontiguousarray(br)]


def darkest_channel(image: np.ndarray) -> np.ndarray:
    """Each pixel's darkest colour channel (red ink is dark there as black ink is); a grey
    image as it is."""
    if image.ndim != 3:
        return image
    b, g, r = cv2.split(image)  # cv2.min is ~20× faster than ndarray.min(axis=2) on small crops
    return cv2.min(cv2.min(b, g), r)


def ink_mask(corner: np.ndarray, strict: bool = False,
             loose: bool = False, contrast: float | None = None,
             green: bool = False) -> tuple[np.ndarray, float, np.ndarray]:
    """Binary ink mask (255 = ink) of a BGR corner, the paper brightness, and the darkest
    channel (the grey level the mask was cut from). `strict` keeps only the dark core of the
    print, which parts marks that blur has joined; `loose` keeps faint print whole; `contrast`
    cuts at that fraction of the paper's brightness instead; `green`: cut from the green
    channel instead of the darkest (see vision.recognize.GREEN_LOOKS)."""
    if corner.ndim == 3 and green:
        darkest = np.ascontiguousarray(corner[..., 1])
    else:
        darkest = darkest_channel(corner)
    # Every other pixel is plenty for a percentile of a smooth paper and halves the cost.
    sample = darkest[::2, ::2].ravel()
    k = min(len(sample) - 1, len(sample) * PAPER_PERCENTILE // 100)
    paper = float(np.partition(sample, k)[k])  # the percentile, without np.percentile's cost
    if paper < 40:  # no paper here: a dark object or a card back, nothing to segment
        return np.zeros(darkest.shape, np.uint8), paper, darkest
    otsu, _ = cv2.threshold(darkest, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    cut = min(max(otsu, paper * (1 - MAX_INK_CONTRAST)), paper * (1 - MIN_INK_CONTRAST))
    if strict:
        cut = min(cut, paper * (1 - STRICT_INK_CONTRAST))
    elif loose:
        cut = paper * (1 - LOOSE_INK_CONTRAST)
    if contrast is not None:
        cut = paper * (1 - contrast)
    mask = (darkest < cut).astype(np.uint8) * 255
    return mask, paper, darkest


def find_marks(corner: np.ndarray) -> CornerMarks:
    """Cut the rank mark and the suit mark out of one upright corner. When no suit turns up
    under the rank, blur may have joined it to a pip beside it: look again at the dark core,
    then at the rank's column alone, then part a tall mark at its neck."""
    marks = cut_marks(corner, strict=False)
    if marks.rank is not None and marks.suit is None:
        again = cut_marks(corner, strict=True)
        if again.rank is not None and again.suit is not None:
            return again
        column = column_marks(corner, marks)
        if column is not None and column.rank is not None and column.suit is not None:
            return column
        return split_at_neck(marks)
    return marks


def column_marks(corner: np.ndarray, marks: CornerMarks, loose: bool = False) -> CornerMarks | None:
    """The marks of the index column alone (the ink right of the rank left out, see
    COLUMN_MIN_ASPECT), or None when the rank is too narrow for its height or reaches the
    corner's right edge. `loose`: at the loose ink cut `marks` were found at."""
    assert marks.rank_box is not None
    rx0, ry0, rx1, ry1 = marks.rank_box
    if rx1 < corner.shape[1] - 2 and rx1 - rx0 >= COLUMN_MIN_ASPECT * (ry1 - ry0):
        return cut_marks(corner, strict=False, loose=loose, right_cut=rx1)
    return None


def _neck_row(ink: np.ndarray) -> int | None:
    """The narrowest row of the middle of a tall mark (`ink`: its boolean mask), where blur
    joined a rank to its suit; None when the mark is not tall enough or has no clear neck."""
    h, w = ink.shape
    if h < SPLIT_MIN_ASPECT * w:
        return None
    widths = ink.sum(axis=1)
    lo, hi = int(h * 0.35), int(h * 0.72)
    if hi <= lo or widths.max() == 0:
        return None
    row = lo + int(np.argmin(widths[lo:hi]))
    if widths[row] > SPLIT_MAX_NECK * widths.max():
        return None
    return row


def split_at_neck(marks: CornerMarks) -> CornerMarks:
    """A rank and suit that blur has joined into one tall mark, parted at the narrowest row of
    its middle (a "2" touching the club below it). Nothing is parted without a clear neck."""
    m = marks.rank
    assert m is not None
    row = _neck_row(m > 127)
    if row is None:
        return marks
    top, bottom = m[:row], m[row + 1:]
    if (top > 127).sum() < MIN_MARK_AREA or (bottom > 127).sum() < MIN_MARK_AREA:
        return marks
    return CornerMarks(top, bottom, marks.ink)


def neck_splits(marks: CornerMarks) -> list[CornerMarks]:
    """A tall lone mark parted at each of its waists in turn: a rank and the suit under it
    that blur has joined with no clear neck (npm-cardsjs prints its small heart right under
    the "A": the join is 11 px wide between a 17 px "A" and a 20 px heart, too wide for
    split_at_neck). An "8" has waists of its own; which parting is the index is left to the
    networks (a half "8" is no rank), and the corners must still agree."""
    m = marks.rank
    assert m is not None
    h, w = m.shape
    if h < SPLIT_MIN_ASPECT * w:
        return []
    widths = (m > 127).sum(axis=1)
    lo, hi = int(h * 0.3), int(h * 0.75)
    out = []
    for row in range(max(1, lo), min(h - 1, hi)):
        if not (widths[row] <= widths[row - 1] and widths[row] < widths[row + 1]):
            continue  # not a local narrowest row
        above, below = widths[:row].max(), widths[row + 1:].max()
        if widths[row] > NECK_SPLIT_MAX * min(above, below):
            continue
        top, bottom = m[:row], m[row + 1:]
        if (top > 127).sum() < MIN_MARK_AREA or (bottom > 127).sum() < MIN_MARK_AREA:
            continue
        out.append(CornerMarks(_trim(top), _trim(bottom), marks.ink))
    return out[:MAX_NECK_SPLITS]


def _trim(mark: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mark > MARK_EDGE)
    return mark[max(0, ys.min() - 1):ys.max() + 2, max(0, xs.min() - 1):xs.max() + 2]


def _part_tall_mark(labels: np.ndarray, stats: np.ndarray, i: int) -> np.ndarray | None:
    """Part component `i` at the narrowest row of its middle, if it has a clear neck (see
    split_at_neck): the rows under the neck get a new label (relabelled in `labels` in place);
    returns the stats with the top part's box updated and the bottom part's appended."""
    x, y, bw, bh, _ = (int(v) for v in stats[i])
    own = labels[y:y + bh, x:x + bw] == i
    row = _neck_row(own)
    if row is None:
        return None
    new = len(stats)
    sub = labels[y:y + bh, x:x + bw]
    below = np.zeros_like(own)
    below[row + 1:] = own[row + 1:]
    sub[below] = new
    sub[row][own[row]] = 0  # the neck row itself belongs to neither
    out = np.vstack([stats, np.zeros((1, 5), stats.dtype)])
    for k in (i, new):
        ys, xs = np.nonzero(sub == k)
        if len(xs) == 0:
            return None
        out[k] = (x + xs.min(), y + ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1, len(xs))
    return out


def remove_lines(mask: np.ndarray) -> np.ndarray:
    """The ink mask without long thin straight lines: the frame printed around court-card art
    and the card's own edge, which a loose cut or blur joins to the index (gnome-anglo's red
    "Q" touching its frame's top line, a "4" touching the card's edge) so that the index mark
    runs into the border or the art and is refused. A line is a run of ink at least
    LINE_MIN_V of the corner's height (vertical) or LINE_MIN_H of its width (horizontal) that
    is thinner than LINE_MAX_THICK: no index stroke is that long (the "1" of "10" is at most
    ~30 % of the corner's height), and the solid parts of pips are thicker."""
    h, w = mask.shape
    lv = max(3, round(LINE_MIN_V * h))
    lh = max(3, round(LINE_MIN_H * w))
    runs = (cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((lv, 1), np.uint8))
            | cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((1, lh), np.uint8)))
    if not runs.any():
        return mask
    solid = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((LINE_MAX_THICK, LINE_MAX_THICK), np.uint8))
    # One pixel more either side: the line's blurred rim would still join the mark to it.
    lines = cv2.dilate(runs & ~solid, _KERNEL3) & ~solid
    return mask & ~lines


def cut_marks(corner: np.ndarray, strict: bool, loose: bool = False,
              right_cut: int | None = None, unlined: bool = False,
              contrast: float | None = None, edge_band: int = 0,
              faint_above: int | None = None, green: bool = False,
              faint_loose: bool = True) -> CornerMarks:
    """One look at an upright corner: its ink cut at one level (`strict`, `loose`, `contrast`,
    `green`: see ink_mask) into the rank mark and the suit mark under it. `right_cut` keeps only
    the columns left of it, `unlined` leaves out long straight lines (remove_lines), `edge_band`
    the corner's outer `edge_band` px, and `faint_above` looks for a faint rank above that row.
    find_marks and vision.recognize.read_corner_views choose among such looks."""
    mask, paper, darkest = ink_mask(corner, strict, loose, contrast, green)
    if faint_above is not None and faint_above > 1:
        # A look for a faint rank over a darker suit (vision.recognize.FAINT_RANK_CUTS): above row
        # `faint_above` (where the suit's mark begins) faint print counts as ink too (at the
        # loose cut, or with `faint_loose` False the normal one); the row just above it stays
        # paper, so the faint rank's blurred foot does not join the suit.
        faint = ink_mask(corner, loose=faint_loose)[0]
        mask[:faint_above - 1] = faint[:faint_above - 1]
        mask[faint_above - 1] = 0
    if unlined:
        mask = remove_lines(mask)
    if edge_band:
        # A look with the card's own edges left out (vision.recognize.EDGE_BAND_PX): marks
        # joined to the edge line by blur come free; a mark still touching the band is refused
        # below.
        mask[:edge_band, :] = 0
        mask[:, :edge_band] = 0
    if right_cut is not None:
        # A look at the index column only: the ink right of `right_cut` (a big pip that blur
        # has joined to the small suit beside it, gnome-bonded's clubs) is left out, and a
        # mark cut there is not refused for touching the edge.
        mask[:, right_cut:] = 0
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = mask.shape
    right_edge = w - 1 if right_cut is None else w + 1
    marks = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < MIN_MARK_AREA or bh < MIN_MARK_HEIGHT:
            continue
        # Touching the crop's border: the table beside a loose outline, the card's frame line,
        # or a pip/artwork running on past the corner. None of them is an index mark.
        if x + bw >= right_edge or y + bh >= h - 1:
            continue
        if x <= 1 or y <= 1 or (edge_band and _along_band(labels, stats, i, edge_band)):
            continue
        if bw > 0.8 * w:
            continue
        if bh > 0.6 * h:
            # Too tall for one index mark: a big rank and the big suit under it that blur has
            # joined (openclipart-simple's court cards: "Q" over a heart nearly as tall) are
            # parted at their neck; anything else this tall is art, not index.
            parted = _part_tall_mark(labels, stats, i)
            if parted is None:
                continue
            stats = parted
            j = len(stats) - 1
            for k in (i, j):
                x, y, bw, bh, _ = stats[k]
                if bh <= 0.6 * h and bh >= MIN_MARK_HEIGHT and stats[k][4] >= MIN_MARK_AREA:
                    marks.append((int(x), int(y), int(bw), int(bh), k))
            continue
        marks.append((int(x), int(y), int(bw), int(bh), i))
    if not marks:
        return CornerMarks(None, None, NO_INK)
    # The rank is the topmost mark of rank size; marks level with it and close beside it are
    # part of it ("10", or a letter broken by blur).
    marks.sort(key=lambda m: m[1])
    tall = [m for m in marks if m[3] >= MIN_RANK_HEIGHT]
    if not tall:
        return CornerMarks(None, None, NO_INK)
    first = min(tall, key=lambda m: (m[1] + m[3] * 0.5, m[0]))  # highest centre
    rx0, ry0, rx1, ry1 = first[0], first[1], first[0] + first[2], first[1] + first[3]
    rank_ids = [first[4]]
    for m in marks:
        if m[4] == first[4]:
            continue
        x, y, bw, bh, i = m
        overlap = min(ry1, y + bh) - max(ry0, y)
        gap = max(x - rx1, rx0 - (x + bw))
        if overlap > 0.6 * min(bh, ry1 - ry0) and bh > 0.6 * (ry1 - ry0) and gap < 0.45 * (ry1 - ry0):
            rank_ids.append(i)
            rx0, ry0, rx1, ry1 = min(rx0, x), min(ry0, y), max(rx1, x + bw), max(ry1, y + bh)
    # The suit: the nearest mark below the rank, roughly under it.
    rcx = (rx0 + rx1) / 2
    below = [m for m in marks if m[4] not in rank_ids and m[1] >= ry1 - 0.15 * (ry1 - ry0)
             and m[0] <= rx1 + 0.3 * (rx1 - rx0) and m[0] + m[2] >= rx0 - 0.3 * (rx1 - rx0)
             and m[3] >= 0.3 * (ry1 - ry0)]
    suit_mask = None
    suit_ids: list[int] = []
    if below:
        s = min(below, key=lambda m: (m[1] - ry1) + 0.5 * abs(m[0] + m[2] / 2 - rcx))
        if s[1] - ry1 < 1.2 * (ry1 - ry0):
            suit_ids = [s[4]]
            suit_mask = mark_image(labels, stats, suit_ids, darkest, paper)
    rank_mask = mark_image(labels, stats, rank_ids, darkest, paper)
    # The ink's colour from the rank, or from the suit under a faint rank (its print is the
    # darker, the faint rank's diluted by the paper).
    ink = ink_colour(corner, labels, stats, suit_ids if faint_above is not None and suit_ids
                     else rank_ids, paper)
    return CornerMarks(rank_mask, suit_mask, ink, (rx0, ry0, rx1, ry1))


def _along_band(labels: np.ndarray, stats: np.ndarray, i: int, band: int) -> bool:
    """Whether mark `i` lies along the left or top band left out by an edge_band look (more
    than EDGE_BAND_CONTACT of its height or width against it): a strip of the edge line or
    the table, not an index mark that blur joined to the edge at one spot."""
    x, y, bw, bh, _ = (int(v) for v in stats[i])
    left = np.count_nonzero(labels[y:y + bh, band] == i) if x <= band + 1 else 0
    top = np.count_nonzero(labels[band, x:x + bw] == i) if y <= band + 1 else 0
    return left > EDGE_BAND_CONTACT * bh or top > EDGE_BAND_CONTACT * bw


def mark_image(labels: np.ndarray, stats: np.ndarray, ids: list[int], darkest: np.ndarray,
                paper: float) -> np.ndarray:
    """The mark as a grey ink-strength image (0 = paper, 255 = full ink), cut to its box plus
    one pixel. Grey, not binary: a small blurred club keeps the dents between its lobes as
    half-tones, where a binary cut would turn it into a spade-like blob."""
    h, w = labels.shape
    x0 = max(0, min(stats[i][0] for i in ids) - 1)
    y0 = max(0, min(stats[i][1] for i in ids) - 1)
    x1 = min(w, max(stats[i][0] + stats[i][2] for i in ids) + 1)
    y1 = min(h, max(stats[i][1] + stats[i][3] for i in ids) + 1)
    sub = labels[y0:y1, x0:x1]
    own = _member(sub, ids).astype(np.uint8)
    # The mark's soft edge lies just outside its binary pixels; other marks' ink stays out.
    near = cv2.dilate(own, _KERNEL3) & (sub == 0).astype(np.uint8) | own
    strength = (paper - darkest[y0:y1, x0:x1].astype(np.float32)) * (255.0 / (paper * INK_FULL_CONTRAST))
    return (np.clip(strength, 0, 255) * near).astype(np.uint8)


_KERNEL3 = np.ones((3, 3), np.uint8)


def _member(labels: np.ndarray, ids: list[int]) -> np.ndarray:
    """labels ∈ ids, for the one to three ids a mark has (np.isin is ~10× slower here)."""
    out = labels == ids[0]
    for i in ids[1:]:
        out |= labels == i
    return out


def ink_colour(image: np.ndarray, labels: np.ndarray, stats: np.ndarray, ids: list[int],
               paper: float) -> Ink:
    """The colour of the marks `ids` (connected components of `labels`, rows of `stats`), as
    seen against the paper around them whatever the colour of the light: each channel of the
    ink's dark core as a fraction of the same channel of the paper (white balance on the
    paper), (b, g, r). `red` is r less the larger of g and b; `tint` is |g - b|.

    A dark ink keeps a light's tint only in proportion to its darkness, so black ink's `red`
    stays near 0 (≤ 0.08 over 1,846 black marks, corners and pips, of the seven decks'
    rendered tables, the 52 single-card photos and the scene photos; a black spade in q3's warm
    light 0.074), and red ink's is ≥ 0.11 but for 1.6 % of 1,874 marks (npm-cardsjs' pale red
    10D 0.12; the scene photos ≥ 0.30). A ratio of red to green and blue, used before, put
    q3's black spade at 0.19, above pale red ink: it divides by the little light a dark ink
    gives back. Both inks absorb green and blue alike: `tint` ≤ 0.08 for black and ≤ 0.14 for
    red (the real photos' crimson) over those marks; gnome-tango's orange king's face, a
    court's picture, is 0.53."""
    if image.ndim != 3 or not ids or paper <= 0:
        return NO_INK
    x0 = min(stats[i][0] for i in ids)
    y0 = min(stats[i][1] for i in ids)
    x1 = max(stats[i][0] + stats[i][2] for i in ids)
    y1 = max(stats[i][1] + stats[i][3] for i in ids)
    sub = image[y0:y1, x0:x1].astype(np.float32)
    ink = _member(labels[y0:y1, x0:x1], ids)
    if not ink.any() or ink.all():
        return NO_INK
    # The mark's dark core: its blurred rim is half paper and would dilute the colour.
    core = ink & (sub.min(axis=2) < paper * 0.5)
    if core.sum() < 3:
        core = ink
    ib, pb = sub[core].mean(axis=0), sub[~ink].mean(axis=0)
    b, g, r = ib / np.maximum(pb, 1.0)
    redder = None
    # The paper's colour from its brightest (min channel near the paper's): the mark's rim,
    # in the box too, would lend red paper the colour of red print.
    clean = sub[~ink & (sub.min(axis=2) >= 0.9 * paper)]
    if len(clean) and _cr(clean.mean(axis=0)) > BLEED_PAPER_MIN_CR:
        redder = _cr(ib) - _cr(pb)
    return Ink(float(r - max(b, g)), float(abs(g - b)), redder)


def _cr(bgr: np.ndarray) -> float:
    """YCrCb's Cr less neutral (OpenCV's weights): how red a colour is for its lightness."""
    b, g, r = (float(v) for v in bgr)
    return 0.713 * (r - (0.299 * r + 0.587 * g + 0.114 * b))
