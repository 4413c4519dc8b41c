"""Find playing cards in an image and flatten one to a canonical upright card image.

Stages (STYLE.md): `find_cards(image) -> list[Quad]` proposes card outlines (a photo of a table,
or a zone crop where the top card may sit rotated ~20° over the card below); `find_top_card`
picks the card lying on top in a zone crop; `flatten(image, quad)` warps one card to a
`CARD_W`×`CARD_H` portrait image. A flattened card is upright or upside down (the recogniser
reads both corners, so either is fine); it is never landscape.

Two sources of outlines are used because neither alone is enough: the bright-paper mask finds a
card on a dark or textured table whatever its print, and closed edge loops find the top card of
a pile, whose paper merges with the card below in the bright mask.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CARD_W = 200  # px: canonical flattened card width (portrait)
CARD_H = 280  # px: canonical height; 7:5 is close to the 88×63 mm poker card (1.40)

# Card shape limits, as the long/short side ratio of the found quadrilateral. A poker card is
# 1.40 and a bridge card 1.56 seen from above (the referee's camera); a phone photo at a steep
# angle foreshortens the long side until the card looks almost square (seen in the real scene
# photos: 1.04). So only strips are refused here; a square that is not a card has no index and
# read_card refuses it.
MIN_ASPECT = 1.02
MAX_ASPECT = 2.0
# Fraction of the quadrilateral that the outline actually covers: rounded corners cost ~3 %,
# anything well below that is not a rectangle (two overlapping cards, a hand, a shadow).
MIN_FILL = 0.86
# No point of the outline may lie further outside its quadrilateral than this fraction of the
# short side: with sharp corners fitted to the sides the outline lies inside (noise: ~1 %);
# the corner of a second card sticks out far more.
MAX_OUTSIDE_FRAC = 0.06
# Smallest card we try to read, as a fraction of the image area: below ~0.4 % a 1280×720 frame
# gives the corner index fewer than ~6 px per glyph, which nothing reads reliably.
MIN_AREA_FRAC = 0.004
MAX_AREA_FRAC = 0.97
# Work size: outlines are searched on a copy whose longer side is at most this (px) and scaled
# back; the corners' ~1 px error there is well inside what flatten + read_card tolerate, and it
# keeps find_cards to ~10-20 ms on a 1280-px photo.
WORK_SIDE = 640
# Two proposals overlapping more than this (intersection over union) are one card.
SAME_CARD_IOU = 0.80
# An outline lying inside a card this many times its area is print on that card (a pip, the
# frame of a court card), not a card: a pile's top card is never under half the pile's outline.
NESTED_AREA_RATIO = 2.0


@dataclass(frozen=True)
class Quad:
    """A card outline: four image points (x, y) in px, clockwise starting at the top-left."""

    corners: tuple[tuple[float, float], tuple[float, float], tuple[float, float],
                   tuple[float, float]]
    score: float = 1.0  # how rectangular the outline was (fill ratio, 0–1)

    @classmethod
    def from_points(cls, pts: np.ndarray, score: float = 1.0) -> "Quad":
        ordered = _order_clockwise(np.asarray(pts, dtype=np.float64).reshape(4, 2))
        return cls(tuple((float(x), float(y)) for x, y in ordered), float(score))  # type: ignore[arg-type]

    def as_array(self) -> np.ndarray:
        return np.array(self.corners, dtype=np.float32)

    @property
    def area(self) -> float:
        return float(abs(cv2.contourArea(self.as_array())))

    @property
    def center(self) -> tuple[float, float]:
        c = self.as_array().mean(axis=0)
        return float(c[0]), float(c[1])

    def scaled(self, factor: float) -> "Quad":
        return Quad(tuple((x * factor, y * factor) for x, y in self.corners), self.score)  # type: ignore[arg-type]

    def side_lengths(self) -> tuple[float, float, float, float]:
        p = self.as_array()
        return tuple(float(np.linalg.norm(p[(i + 1) % 4] - p[i])) for i in range(4))  # type: ignore[return-value]


def _order_clockwise(pts: np.ndarray) -> np.ndarray:
    """Order 4 points clockwise (image y down) starting from the one nearest the top-left."""
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # increasing angle = clockwise on screen
    start = int(np.argmin(pts[:, 0] + pts[:, 1]))
    return np.roll(pts, -start, axis=0)


def _to_gray(image: np.ndarray) -> np.ndarray:
    if image is None or image.size == 0:
        raise ValueError("empty image")
    if image.ndim == 2:
        return image
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _quad_from_contour(contour: np.ndarray) -> tuple[np.ndarray, float] | None:
    """A card-shaped quadrilateral for one contour, with its fill ratio, or None."""
    area = cv2.contourArea(contour)
    if area <= 0:
        return None
    # Cheap first look (most contours of a textured table end here): the rotated bounding box
    # must be card-like and mostly filled; a real card under steep perspective stays above 0.6.
    (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
    if min(rw, rh) <= 0 or area < 0.6 * rw * rh or max(rw, rh) / min(rw, rh) > MAX_ASPECT * 1.2:
        return None
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    quad = None
    for eps in (0.02, 0.035, 0.05):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            quad = approx.reshape(4, 2).astype(np.float64)
            break
    if quad is None:
        quad = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float64)
    qarea = abs(cv2.contourArea(quad.astype(np.float32)))
    if qarea <= 0:
        return None
    fill = min(area, qarea) / max(area, qarea)
    if fill < MIN_FILL:
        return None
    q = _refine_corners(contour.reshape(-1, 2).astype(np.float32), _order_clockwise(quad))
    sides = [np.linalg.norm(q[(i + 1) % 4] - q[i]) for i in range(4)]
    # The outline must hug the quadrilateral everywhere: two overlapping cards make a hull
    # whose 4-point approximation leaves a corner of the lower card sticking out.
    outside = _max_outside(q, hull.reshape(-1, 2).astype(np.float64))
    if outside > MAX_OUTSIDE_FRAC * min(sides):
        return None
    a = (sides[0] + sides[2]) / 2
    b = (sides[1] + sides[3]) / 2
    if min(a, b) <= 0:
        return None
    aspect = max(a, b) / min(a, b)
    if not MIN_ASPECT <= aspect <= MAX_ASPECT:
        return None
    return q, fill


def _max_outside(q: np.ndarray, pts: np.ndarray) -> float:
    """How far (px) the farthest point lies outside the convex quad `q` (0 when all inside)."""
    c = q.mean(axis=0)
    worst = 0.0
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        n = np.array([b[1] - a[1], a[0] - b[0]])
        norm = np.hypot(*n)
        if norm == 0:
            continue
        n /= norm
        if n @ (c - a) > 0:  # make the normal point outward
            n = -n
        worst = max(worst, float(((pts - a) @ n).max()))
    return worst


def _refine_corners(pts: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Sharp card corners: a line fitted to the middle of each side, intersected with the next.

    approxPolyDP puts a corner somewhere on a rounded corner's arc; the fitted lines give the
    corner the card would have without rounding, so the whole outline lies inside the quad."""
    n = len(pts)
    if n < 16:
        return q
    idx = [int(np.argmin(((pts - c) ** 2).sum(axis=1))) for c in q]
    lines = []
    for i in range(4):
        a, b = idx[i], idx[(i + 1) % 4]
        fwd = (b - a) % n
        seg = pts[(a + np.arange(fwd + 1)) % n] if fwd <= n - fwd else pts[(a - np.arange(n - fwd + 1)) % n]
        m = len(seg)
        seg = seg[int(0.15 * m): int(0.85 * m) + 1]
        if len(seg) < 3:
            return q
        vx, vy, x0, y0 = cv2.fitLine(seg, cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    out = np.empty((4, 2))
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        det = d1[0] * (-d2[1]) - d1[1] * (-d2[0])
        if abs(det) < 1e-6:
            return q
        t = ((p2 - p1)[0] * (-d2[1]) - (p2 - p1)[1] * (-d2[0])) / det
        out[i] = p1 + t * d1
    short = min(np.linalg.norm(q[(i + 1) % 4] - q[i]) for i in range(4))
    if np.linalg.norm(out - q, axis=1).max() > 0.2 * short:  # a bad fit: keep the rough corners
        return q
    return out


def _candidate_contours(gray: np.ndarray) -> list[np.ndarray]:
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    contours: list[np.ndarray] = []
    # Bright paper against the table: Otsu splits card faces from wood, felt or a dark mat.
    _, bright = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(bright, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    found, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contours.extend(found)
    # Closed edge loops: the outline of the top card of a pile, and cards on a light table.
    med = float(np.median(blur))
    edges = cv2.Canny(blur, max(10.0, 0.4 * med), max(30.0, 1.0 * med))
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    found, hier = cv2.findContours(edges, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hier is not None:
        # Holes of the edge map are the regions an edge loop encloses: exactly card interiors.
        contours.extend(c for c, h in zip(found, hier[0]) if h[3] >= 0)
    return contours


def _inter(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter)


def _iou(a: np.ndarray, area_a: float, b: np.ndarray, area_b: float) -> float:
    i = _inter(a, b)
    return i / (area_a + area_b - i) if area_a + area_b - i > 0 else 0.0


def _inside(a: np.ndarray, area_a: float, b: np.ndarray) -> float:
    """Fraction of quad `a` lying inside quad `b`."""
    return _inter(a, b) / area_a if area_a > 0 else 0.0


def find_cards(image: np.ndarray) -> list[Quad]:
    """Card outlines in `image` (BGR, BGRA or gray), largest first, each card once.

    Cards may lie in any orientation and under moderate perspective. Overlapping cards give
    the outline of each card whose four sides are visible (the top card of a pile)."""
    gray = _to_gray(image)
    h, w = gray.shape[:2]
    scale = min(1.0, WORK_SIDE / max(h, w))
    small = cv2.resize(gray, (max(1, round(w * scale)), max(1, round(h * scale))),
                       interpolation=cv2.INTER_AREA) if scale < 1.0 else gray
    sh, sw = small.shape[:2]
    img_area = float(sh * sw)
    props: list[tuple[np.ndarray, float, float]] = []
    for c in _candidate_contours(small):
        area = cv2.contourArea(c)
        if not MIN_AREA_FRAC * img_area <= area <= MAX_AREA_FRAC * img_area:
            continue
        got = _quad_from_contour(c)
        if got is None:
            continue
        q, fill = got
        # A quad that runs off the image is a card cut by the frame edge: its index may be gone.
        if q[:, 0].min() < 1 or q[:, 1].min() < 1 or q[:, 0].max() > sw - 2 or q[:, 1].max() > sh - 2:
            if area > 0.5 * img_area:  # a zone crop filled by the card: keep, it is whole
                pass
            else:
                continue
        props.append((q, fill, abs(cv2.contourArea(q.astype(np.float32)))))
    # Prefer the most rectangular outline of each card; the larger of near-equal ones.
    props.sort(key=lambda p: (round(p[1], 2), p[2]), reverse=True)
    kept: list[tuple[np.ndarray, float, float]] = []
    for q, fill, area in props:
        if any(_iou(q, area, k[0], k[2]) > SAME_CARD_IOU for k in kept):
            continue
        kept.append((q, fill, area))
    # Drop outlines nested inside a much larger card: pips, the frame of a court card's art.
    kept = [p for p in kept
            if not any(k[2] > NESTED_AREA_RATIO * p[2] and _inside(p[0], p[2], k[0]) > 0.9
                       for k in kept)]
    kept.sort(key=lambda p: p[2], reverse=True)
    return [Quad.from_points(q / scale, fill) for q, fill, _ in kept]


def find_top_card(image: np.ndarray) -> Quad | None:
    """The card lying on top in a zone crop (cards of a pile may be offset and rotated ~20°).

    The top card is the one whose whole outline is visible and that no other outline covers:
    of the found cards, the largest one not overlapped by a larger card's outline wins."""
    quads = find_cards(image)
    if not quads:
        return None
    # A card under the top one shows only an L-shaped part, which fails the fill test. What can
    # remain besides the top card is the outline of the whole pile when the cards are nearly
    # aligned; it is less rectangular than the top card's own outline, so the best fill wins
    # among the outlines of card size.
    biggest = quads[0].area
    return max((q for q in quads if q.area >= 0.5 * biggest), key=lambda q: q.score)


def portrait_corners(quad: Quad, sideways: bool = False) -> np.ndarray:
    """The quad's corners (4×2) in the order `flatten` maps them to the flat card's top-left,
    top-right, bottom-right and bottom-left: the quad's shorter sides become the top and
    bottom. `sideways` makes its longer sides the top and bottom instead: a card photographed
    at a steep angle, its long sides running away from the camera, looks wider than long."""
    p = quad.as_array()
    s = quad.side_lengths()
    # Sides 0 (top) and 2 (bottom) in clockwise order; if they are the long ones, start the
    # corner list one step later so the short sides become top and bottom.
    if (s[0] + s[2] > s[1] + s[3]) != sideways:
        p = np.roll(p, -1, axis=0)
    return p


def flatten(image: np.ndarray, quad: Quad, size: tuple[int, int] = (CARD_W, CARD_H),
            sideways: bool = False) -> np.ndarray:
    """Warp the card inside `quad` to a `size` = (width, height) portrait BGR image.

    The short sides of the quad become the top and bottom, so a card seen from above comes
    out upright or upside down, never on its side; `sideways` swaps them (portrait_corners)."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    p = portrait_corners(quad, sideways)
    w, h = size
    # Shrinking a large card in one perspective warp aliases the thin strokes of the index, so
    # first cut the card's bounding box and shrink it to about 1.5× the target with INTER_AREA.
    x0, y0 = np.floor(p.min(axis=0)).astype(int)
    x1, y1 = np.ceil(p.max(axis=0)).astype(int)
    x0, y0 = max(0, x0 - 2), max(0, y0 - 2)
    x1, y1 = min(image.shape[1], x1 + 3), min(image.shape[0], y1 + 3)
    crop = image[y0:y1, x0:x1]
    p = p - np.array([x0, y0], dtype=np.float32)
    long_side = max(quad.side_lengths())
    f = min(1.0, 1.5 * max(w, h) / max(long_side, 1.0))
    if f < 0.75:
        crop = cv2.resize(crop, (max(1, round(crop.shape[1] * f)), max(1, round(crop.shape[0] * f))),
                          interpolation=cv2.INTER_AREA)
        p = p * f
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(p.astype(np.float32), dst)
    return cv2.warpPerspective(crop, m, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
