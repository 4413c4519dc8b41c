"""Where the top card lies in a rectified zone cut: a card-sized rectangle fitted to the edges.

A zone cut (vision.zones) is metric: the table plane at a known scale, no perspective. So the
top card of a pile is a rectangle of a card's size, 88 mm tall and 57–65 mm wide (the decks
vary), turned up to ~25° and shifted a little. It is the one card whose four sides are all in
view: the cards under it lose parts of theirs. `locate_top_card` fits that rectangle to the
edge map (coarse search over angle, width and position by correlating with outline kernels,
then a fine search), and returns its corners for `vision.card.flatten`.

This uses what the reader knows and a general card finder cannot: the scale and the plane.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

CARD_H_MM = 88.0
# Cards are not all 88 mm long: poker and bridge cards 88.9 mm, openclipart-simple's paper
# (the demo's deck) 86.7 mm. With the sides a pixel sharp at 4 px/mm, 1.3 mm too long puts
# both short sides off their edges. A fit asked for `lengths` tries the best fit at
# CARD_H_MM at each of these lengths too (and its position again).
CARD_LENGTHS_MM = (86.5, 87.25, 88.75)
CARD_WIDTHS_MM = (58.0, 63.5)  # coarse widths: the fine search covers ±2 mm, so 56–65.5 mm
MAX_TURN_DEG = 26.0  # a top card may be turned up to ~20° (RULES/DESIGN); some slack
COARSE_STEP_DEG = 3.0  # the fine search covers ±1.5°
CORNER_SKIP_MM = 4.5  # rounded corners: no straight edge within this of a corner
COARSE_PX_PER_MM = 1.0
MIN_SUPPORT = 0.3  # share of the outline on edges: top cards that read show 0.3–0.75
# Canny's thresholds (grey-level gradient) for a sensitive look at a cut: the top card's side
# over the cards beneath is white paper on white paper, a line 10-15 grey levels dark, below
# the normal thresholds (set from the cut's median, ~50 and ~135 on a pile); paper texture and
# sensor noise stay below these after the blur (demo seeds 11 and 20, openclipart-simple).
SENSITIVE_CANNY = (15.0, 40.0)


@dataclass(frozen=True)
class CardFit:
    corners: np.ndarray  # (4, 2) px in the cut: the card's outline
    support: float  # share of the outline on edges (0..1)
    angle_deg: float
    width_mm: float


def _outline_points(w_mm: float, h_mm: float, angle_deg: float, k: float) -> np.ndarray:
    """Points (N, 2) in px along the card's four sides (corners skipped), centred on 0."""
    step = 1.0 / k
    pts = []
    hw, hh = w_mm / 2, h_mm / 2
    for t in np.arange(-hw + CORNER_SKIP_MM, hw - CORNER_SKIP_MM + 1e-6, step):
        pts += [(t, -hh), (t, hh)]
    for t in np.arange(-hh + CORNER_SKIP_MM, hh - CORNER_SKIP_MM + 1e-6, step):
        pts += [(-hw, t), (hw, t)]
    a = np.radians(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return (np.array(pts) @ rot.T) * k


@lru_cache(maxsize=256)
def _kernel(w_mm: float, angle_deg: float) -> np.ndarray:
    pts = _outline_points(w_mm, CARD_H_MM, angle_deg, COARSE_PX_PER_MM)
    r = int(np.ceil(np.abs(pts).max())) + 1
    ker = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
    ij = np.round(pts).astype(int) + r
    ker[ij[:, 1], ij[:, 0]] = 1.0
    return ker / len(pts)


def _edges(grey: np.ndarray, sensitive: bool = False) -> np.ndarray:
    """Edge strength 0..1, softened by a pixel so a fit need not be pixel-exact; `sensitive`:
    at SENSITIVE_CANNY."""
    g = cv2.GaussianBlur(grey, (3, 3), 0)
    med = float(np.median(g))
    lo, hi = SENSITIVE_CANNY if sensitive else (max(10.0, 0.33 * med), max(30.0, 0.9 * med))
    e = cv2.Canny(g, lo, hi).astype(np.float32) / 255.0
    return np.minimum(1.0, cv2.GaussianBlur(e, (3, 3), 0.8) * 2.0)


def locate_top_card(cut_bgr: np.ndarray, px_per_mm: float,
                    lengths: tuple[float, ...] = ()) -> CardFit | None:
    """The top card's outline in a rectified zone cut at `px_per_mm`, or None when no card-sized
    rectangle has MIN_SUPPORT of its outline on edges. `lengths`: card lengths (mm) tried
    besides CARD_H_MM (CARD_LENGTHS_MM)."""
    fits = locate_card_outlines(cut_bgr, px_per_mm, 1, lengths)
    return fits[0] if fits else None


# Other outlines than the best one (locate_card_outlines): coarse fits this close to a better
# one (centre, mm; turn, degrees) are the same outline.
SAME_FIT_MM = 6.0
SAME_FIT_DEG = 6.0
PEAKS_PER_KERNEL = 3  # local maxima of each coarse (width, turn) response kept as candidates


def locate_card_outlines(cut_bgr: np.ndarray, px_per_mm: float, n: int,
                         lengths: tuple[float, ...] = (), sensitive: bool = False) -> list[CardFit]:
    """Up to `n` distinct card-sized outlines in a rectified zone cut, best first (each with
    MIN_SUPPORT of its outline on edges): the best is `locate_top_card`'s; the others are the
    next distinct peaks of the coarse search, each fitted finely. On a pile the best-supported
    rectangle is not always the top card (glare along one side, a card below squared with the
    zone's printed outline); the caller tells the top card by which outline lies under
    another (`lies_under`) and by what its corners read. `lengths`: see _fine_fit;
    `sensitive`: edges at SENSITIVE_CANNY."""
    grey = cv2.cvtColor(cut_bgr, cv2.COLOR_BGR2GRAY) if cut_bgr.ndim == 3 else cut_bgr
    h, w = grey.shape
    small = cv2.resize(grey, (max(1, round(w * COARSE_PX_PER_MM / px_per_mm)),
                              max(1, round(h * COARSE_PX_PER_MM / px_per_mm))),
                       interpolation=cv2.INTER_AREA)
    e_small = _edges(small, sensitive)
    peaks: list[tuple[float, float, float, float, float]] = []  # score, angle, width, x, y
    floor = MIN_SUPPORT * 0.8  # coarse support runs a little low (blur, sampling)
    for width in CARD_WIDTHS_MM:
        for angle in np.arange(-MAX_TURN_DEG, MAX_TURN_DEG + 1e-6, COARSE_STEP_DEG):
            resp = cv2.filter2D(e_small, cv2.CV_32F, _kernel(width, float(angle)),
                                borderType=cv2.BORDER_CONSTANT)
            if n == 1:
                _, val, _, loc = cv2.minMaxLoc(resp)
                peaks.append((val, float(angle), width, float(loc[0]), float(loc[1])))
                continue
            local = (resp >= cv2.dilate(resp, np.ones((5, 5), np.uint8))) & (resp >= floor)
            ys, xs = np.nonzero(local)
            for i in np.argsort(resp[ys, xs])[::-1][:PEAKS_PER_KERNEL]:
                peaks.append((float(resp[ys[i], xs[i]]), float(angle), width, float(xs[i]), float(ys[i])))
    peaks.sort(key=lambda p: p[0], reverse=True)
    kept: list[tuple[float, float, float, float, float]] = []
    for p in peaks:
        if p[0] < floor or len(kept) >= n:
            break
        if any(abs(p[1] - q[1]) < SAME_FIT_DEG and np.hypot(p[3] - q[3], p[4] - q[4])
               < SAME_FIT_MM * COARSE_PX_PER_MM for q in kept):
            continue
        kept.append(p)
    if not kept:
        return []
    e = _edges(grey, sensitive)
    padded = np.pad(e, 1)  # off-cut samples read the zero border
    fits = [f for f in (_fine_fit(padded, (h, w), p, px_per_mm, lengths) for p in kept)
            if f is not None]
    return fits


def _fine_fit(padded: np.ndarray, shape: tuple[int, int], coarse: tuple, k: float,
              lengths: tuple[float, ...] = ()) -> CardFit | None:
    """The fine search at full resolution around a coarse fit (padded: the edge map with a
    one-pixel zero border); then the best fit's length among `lengths` too."""
    h, w = shape
    _, a0, w0, x0, y0 = coarse
    cx0, cy0 = (x0 + 0.5) / COARSE_PX_PER_MM * k - 0.5, (y0 + 0.5) / COARSE_PX_PER_MM * k - 0.5
    top = (-1.0, a0, w0, cx0, cy0)
    shifts = np.arange(-1.5, 1.51, 0.375) * k
    dxs, dys = np.meshgrid(shifts, shifts)
    dxs, dys = dxs.ravel(), dys.ravel()
    for width in (w0 - 2.0, w0, w0 + 2.0):
        for angle in np.arange(a0 - 1.5, a0 + 1.51, 0.5):
            pts = _outline_points(width, CARD_H_MM, float(angle), k)
            xs = np.clip(np.round(pts[None, :, 0] + cx0 + dxs[:, None]).astype(int) + 1, 0, w + 1)
            ys = np.clip(np.round(pts[None, :, 1] + cy0 + dys[:, None]).astype(int) + 1, 0, h + 1)
            scores = padded[ys, xs].sum(axis=1) / len(pts)
            i = int(np.argmax(scores))
            if scores[i] > top[0]:
                top = (float(scores[i]), float(angle), width, cx0 + dxs[i], cy0 + dys[i])
    score, angle, width, cx, cy = top
    # The length (CARD_LENGTHS_MM) at the best turn and width, shifted within ±0.75 mm.
    best = (score, CARD_H_MM, 0.0, 0.0)
    for length in lengths:
        pts = _outline_points(width, length, angle, k)
        xs = np.clip(np.round(pts[None, :, 0] + cx + dxs[:, None] / 2).astype(int) + 1, 0, w + 1)
        ys = np.clip(np.round(pts[None, :, 1] + cy + dys[:, None] / 2).astype(int) + 1, 0, h + 1)
        scores = padded[ys, xs].sum(axis=1) / len(pts)
        i = int(np.argmax(scores))
        if scores[i] > best[0]:
            best = (float(scores[i]), length, dxs[i] / 2, dys[i] / 2)
    score, length, dx, dy = best
    cx, cy = cx + dx, cy + dy
    if score < MIN_SUPPORT:
        return None
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    half = np.array([[-width / 2, -length / 2], [width / 2, -length / 2],
                     [width / 2, length / 2], [-width / 2, length / 2]])
    corners = half @ rot.T * k + np.array([cx, cy])
    return CardFit(corners, score, angle, width)


# --- refinement: each side moved onto the card's own edge -------------------------------------
# The fit above lands within ~1–3 mm (its search steps are 0.375 mm of shift, 0.5° and 2 mm of
# width, on a softened edge map), which can cut an index printed close to the card's edge
# (npm-cardsjs). Each side is then looked for within REFINE_SEARCH_MM of where the fit put it,
# as the strongest fall of brightness going outwards (paper to whatever lies beside the card).
REFINE_SEARCH_MM = 3.0
REFINE_STEP_MM = 0.5  # spacing of the profiles along a side
REFINE_MIN_STEP = 12.0  # grey levels over 2 px: a weaker fall is paper texture or shading
REFINE_MIN_SHARE = 0.4  # a side moves only when this share of its profiles find an edge
REFINE_MAX_SPREAD_MM = 0.6  # and their offsets agree this well (median absolute deviation)


def refine_outline(cut_bgr: np.ndarray, corners: np.ndarray, px_per_mm: float) -> np.ndarray | None:
    """`corners` (4×2 px, clockwise on screen) with each side moved onto the card's edge
    nearby, or None when no side could be placed better. A side whose edge is not clear
    (another white card beside it, a shadowless edge) stays where it was."""
    grey = cv2.cvtColor(cut_bgr, cv2.COLOR_BGR2GRAY) if cut_bgr.ndim == 3 else cut_bgr
    grey = grey.astype(np.float32)
    k = px_per_mm
    pts = np.asarray(corners, np.float64).reshape(4, 2)
    r = REFINE_SEARCH_MM * k
    offsets = np.arange(-r, r + 1.0, 1.0)
    lines = []
    moved = False
    for i in range(4):
        p0, p1 = pts[i], pts[(i + 1) % 4]
        length = float(np.linalg.norm(p1 - p0))
        d = (p1 - p0) / max(length, 1e-9)
        n = np.array([d[1], -d[0]])  # outwards for a clockwise outline (y down)
        skip = CORNER_SKIP_MM * k
        ts = np.arange(skip, length - skip, REFINE_STEP_MM * k)
        if len(ts) < 5:
            return None
        sx = p0[0] + ts[:, None] * d[0] + offsets[None, :] * n[0]
        sy = p0[1] + ts[:, None] * d[1] + offsets[None, :] * n[1]
        prof = cv2.remap(grey, sx.astype(np.float32), sy.astype(np.float32), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
        fall = prof[:, :-2] - prof[:, 2:]  # brightness lost over 2 px going outwards
        j = np.argmax(fall, axis=1)
        strong = fall[np.arange(len(ts)), j] >= REFINE_MIN_STEP
        off = offsets[j + 1]
        if strong.mean() >= REFINE_MIN_SHARE:
            o = off[strong]
            med = float(np.median(o))
            if float(np.median(np.abs(o - med))) <= REFINE_MAX_SPREAD_MM * k:
                # A straight side: a line through the agreeing points (least squares on the
                # ones within a pixel of the median), so a slight turn is corrected too.
                keep = np.abs(o - med) <= max(1.5, REFINE_MAX_SPREAD_MM * k)
                t, o = ts[strong][keep], o[keep]
                if len(t) >= 5:
                    slope, icpt = np.polyfit(t, o, 1)
                    a = p0 + icpt * n
                    lines.append((a, d + slope * n))
                    moved = True
                    continue
        lines.append((p0, d))
    if not moved:
        return None
    out = []
    for i in range(4):
        (a, u), (b, v) = lines[i - 1], lines[i]
        m = np.array([u, -v]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        s = np.linalg.solve(m, b - a)
        out.append(a + s[0] * u)
    out = np.array(out)
    if np.abs(out - pts).max() > 1.5 * r:
        return None
    return out


# --- which of two overlapping outlines lies on top ---------------------------------------------
# Where two cards overlap, the one on top shows its whole outline, across the other card's
# paper; the one beneath shows no edge where the top card hides it. An outline is taken as
# lying under another when its stretch inside the other is this much less on edges than the
# other's stretch inside it (shares of 0..1); stretches shorter than OVERLAP_MIN_MM compare
# nothing.
ON_TOP_MARGIN = 0.05
OVERLAP_MIN_MM = 10.0


def lies_under(cut_bgr: np.ndarray, quad: np.ndarray, others: list[np.ndarray],
               px_per_mm: float) -> bool:
    """Whether outline `quad` (4×2 px in the cut) lies under any of `others`: inside another
    outline its sides show fewer edges than that outline's sides show inside it."""
    grey = cv2.cvtColor(cut_bgr, cv2.COLOR_BGR2GRAY) if cut_bgr.ndim == 3 else cut_bgr
    e = _edges(grey)
    a = np.asarray(quad, np.float32).reshape(4, 2)
    pa = _side_points(a, px_per_mm)
    for other in others:
        b = np.asarray(other, np.float32).reshape(4, 2)
        if min(np.abs(np.roll(a, k, 0) - b).max() for k in range(4)) < 2 * px_per_mm:
            continue  # the same outline, or nearly: nothing to compare
        pb = _side_points(b, px_per_mm)
        a_in_b = _edge_share_inside(e, pa, b, px_per_mm)
        b_in_a = _edge_share_inside(e, pb, a, px_per_mm)
        if a_in_b is None or b_in_a is None:
            continue
        if a_in_b < b_in_a - ON_TOP_MARGIN:
            return True
    return False


def _side_points(corners: np.ndarray, k: float) -> np.ndarray:
    """Points a pixel apart along the four sides of an outline, its rounded corners left out."""
    skip = CORNER_SKIP_MM * k
    pts = []
    for i in range(4):
        p0, p1 = corners[i], corners[(i + 1) % 4]
        length = float(np.linalg.norm(p1 - p0))
        ts = np.arange(skip, length - skip, 1.0) / max(length, 1e-9)
        pts.append(p0[None, :] + ts[:, None] * (p1 - p0)[None, :])
    return np.concatenate(pts) if pts else np.zeros((0, 2))


def _edge_share_inside(e: np.ndarray, pts: np.ndarray, poly: np.ndarray, k: float) -> float | None:
    """The share of `pts` well inside `poly` (more than a millimetre) that lie on edges; None
    when fewer than OVERLAP_MIN_MM of them are."""
    h, w = e.shape
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 255)
    r = max(1, round(k))
    mask = cv2.erode(mask, np.ones((2 * r + 1, 2 * r + 1), np.uint8))
    xs, ys = np.round(pts[:, 0]).astype(int), np.round(pts[:, 1]).astype(int)
    ok = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    xs, ys = xs[ok], ys[ok]
    inside = mask[ys, xs] > 0
    if inside.sum() < OVERLAP_MIN_MM * k:
        return None
    return float(e[ys[inside], xs[inside]].mean())


# --- outlines rebuilt from one corner that reads ----------------------------------------------
# A fit that settles on the wrong width or length (a side it cannot see, white on white over the
# cards beneath) can still hold one index corner whole, which reads surely. That corner and its
# two sides are then the card's, and the card's far sides lie along them at the card's width
# and length: where the sensitive edge map shows them (ANCHOR_WIDTHS_MM × ANCHOR_LENGTHS_MM,
# when each shows ANCHOR_MIN_SUPPORT of its stretch on edges), and at the sizes decks come in
# (CARD_SIZES_MM: the seven decks' 56.6, 63.1-63.6 and 65.1 mm widths, poker and bridge
# cards' 57.2 and 63.5; lengths 86.7-88.9).
ANCHOR_WIDTHS_MM = (54.0, 68.0)
ANCHOR_LENGTHS_MM = (84.5, 91.0)
ANCHOR_STEP_MM = 0.25
ANCHOR_MIN_SUPPORT = 0.3
CARD_SIZES_MM = ((56.6, 88.0), (63.5, 87.0), (63.5, 88.5), (65.1, 88.0))


def outlines_from_corner(cut_bgr: np.ndarray, corner: np.ndarray, along_width: np.ndarray,
                         along_length: np.ndarray, px_per_mm: float) -> list[np.ndarray]:
    """Card outlines (4×2 px) with one corner at `corner`, their sides leaving it towards
    `along_width` and `along_length` (px, directions): the one whose far sides the sensitive
    edge map shows (if it does), then one for each of CARD_SIZES_MM."""
    grey = cv2.cvtColor(cut_bgr, cv2.COLOR_BGR2GRAY) if cut_bgr.ndim == 3 else cut_bgr
    e = np.pad(_edges(grey, sensitive=True), 1)
    h, w = grey.shape
    k = px_per_mm
    p = np.asarray(corner, np.float64)
    u = np.asarray(along_width, np.float64) / max(float(np.linalg.norm(along_width)), 1e-9)
    v = np.asarray(along_length, np.float64) / max(float(np.linalg.norm(along_length)), 1e-9)

    def support(offsets: np.ndarray, normal: np.ndarray, along: np.ndarray, run: np.ndarray):
        pts = (p[None, None, :] + (offsets[:, None, None] * normal[None, None, :]
                                   + run[None, :, None] * along[None, None, :]) * k)
        xs = np.clip(np.round(pts[..., 0]).astype(int) + 1, 0, w + 1)
        ys = np.clip(np.round(pts[..., 1]).astype(int) + 1, 0, h + 1)
        return e[ys, xs].mean(axis=1)

    def outline(wd: float, ln: float) -> np.ndarray:
        return np.array([p, p + wd * k * u, p + (wd * u + ln * v) * k, p + ln * k * v])

    widths = np.arange(ANCHOR_WIDTHS_MM[0], ANCHOR_WIDTHS_MM[1] + 1e-6, ANCHOR_STEP_MM)
    lengths = np.arange(ANCHOR_LENGTHS_MM[0], ANCHOR_LENGTHS_MM[1] + 1e-6, ANCHOR_STEP_MM)
    # Along each far side, the stretch every card of those sizes has (its rounded corners out).
    far_long = support(widths, u, v, np.arange(CORNER_SKIP_MM, lengths[0] - CORNER_SKIP_MM, 1 / k))
    far_short = support(lengths, v, u, np.arange(CORNER_SKIP_MM, widths[0] - CORNER_SKIP_MM, 1 / k))
    i, j = int(np.argmax(far_long)), int(np.argmax(far_short))
    out = []
    if min(far_long[i], far_short[j]) >= ANCHOR_MIN_SUPPORT:
        out.append(outline(float(widths[i]), float(lengths[j])))
    return out + [outline(wd, ln) for wd, ln in CARD_SIZES_MM]
