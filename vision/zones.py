"""Zones: cut each of the twelve zones out of a frame, and tell empty / back / face apart.

Cutting warps only the zone rectangles (plus a ring of mat around each), small and through
precomputed remap tables, never the whole frame: DESIGN.md's platform notes put a full colour
warp at ~9 ms against a 5 ms frame budget.

Deciding what lies on a zone uses two physical facts rather than any deck's design:
- the mat around a zone shows what "nothing" looks like under the light of the moment, so a
  zone whose inside looks like its surrounding ring (no colour difference, no edges) is empty;
- card faces are printed on white paper and show open areas of it (the margins and corner
  indices even of a court card), while a back is printed all over (a pattern or a colour, with
  at most a thin white border). "White" is judged against the white paper around the mat's
  ArUco markers, its lightness and its colour, so a light grey back is not mistaken for a
  face's paper under dim light, nor a face's paper for a back under a warm lamp.
`FACE` only says "read me": the card reader then reads the card or says `?`. A zone with some
content but too little to be a card is `UNSURE`: the reader says `?`, it never guesses.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

import cv2
import numpy as np

from calibration.layout import Layout, Rect
from referee.zones import ALL_ZONES
from vision.rectify import Rectification

CUT_PX_PER_MM = 2.0  # the frame shows the mat at ~1.6 px/mm: sampling at 2 keeps all of it
READ_PX_PER_MM = 4.0  # cut for reading a face: on rendered piles 4 reads ~5 % more cards than 3.2
READ_MARGIN_MM = 5.0  # a top card turned 20° overhangs its zone by up to ~4 mm
OUTLINE_BAND_MM = 2.0  # the printed zone outline lies within this of the zone's edge
# The outline band is painted with the mat's colour where the band lies (paint_outline): the
# mean of the bare mat beside the band, within LOCAL_MAT_MM, on a copy of the cut at
# LOCAL_MAT_PX_PER_MM. Painted with the frame's one mat colour, the band stood out as a
# darker or lighter frame wherever the light falls off across the mat, and its two sides were
# long straight edges a card's width apart (demo seed 14: the outline fitted to them, 30 mm
# off the top card, and no index read).
LOCAL_MAT_MM = 11.0
LOCAL_MAT_PX_PER_MM = 1.0
RING_MM = 6.0  # band of mat around each zone that tells what an empty zone looks like
INSET_MM = 3.0  # ignore this much of the zone's edge: the printed outline lies there
QUIET_MM = 4.0  # white paper printed around each ArUco marker (calibration/mat, render.py)

# Content: a pixel differs from the ring's mat by more than this colour distance (Lab units,
# 0..255 scale) or has an edge stronger than this (grey levels per px): noise and JPEG stay below.
CONTENT_DELTA = 28.0
CONTENT_EDGE = 40.0
# An empty zone shows its printed outline: the share of the band OUTLINE_SEEN_MM either side of
# the zone's edge with a lightness edge above OUTLINE_SEEN_EDGE (grey levels per px, Sobel / 4)
# is at least OUTLINE_MIN_SEEN. Measured on 227 empty zones of rendered tables (seven decks,
# white, very warm, very cool and green light): 0.585 at the least, median 0.88; on a blank
# white, grey or noisy white frame (a camera blinded by light, a sheet over the lens): 0 to
# 0.025. Without the outline nothing says the zone is the mat's: it reads `?`, never empty
# (a blank frame read every zone empty, and the referee dealt a new round from it).
OUTLINE_SEEN_MM = 1.5
OUTLINE_SEEN_EDGE = 8.0
OUTLINE_MIN_SEEN = 0.3
EMPTY_MAX_CONTENT = 0.04  # share of the zone's inside: a few specks of dust or a stray shadow
CARD_MIN_CONTENT = 0.30  # a card covers ≥ ~55 % of a stock zone's inside; half of that is sure
# Anything that lies on a zone shows its outline inside it (a card, 63 × 88 mm, is smaller than
# the zone's inside, 84 × 99 mm; a hand reaching in crosses the ring first): an edge of
# CONTENT_EDGE in lightness, or of CONTENT_COLOUR_EDGE in colour (Lab a or b, per px) where a
# colour meets another of the same lightness. Content with no such edge anywhere is light, not
# an object: glare or a shadow, smooth over tens of mm. On bench/vision.py's tables (50 per
# deck, and 30 of seed stress-a) the inside of an empty zone shows lightness edges <= 17.5
# and colour edges <= 13.9 (sensor noise, JPEG), while every back and face shows a lightness
# edge >= 66; glare made 5-18 % of 6 empty zones "content" and they read `?`, and a glare
# centred on an empty zone (sigma 40-90 px, +90 grey levels) made 30-49 % and read as a back.
CONTENT_COLOUR_EDGE = 20.0
# Paper white: at least this bright against the paper white of the moment, and nearly
# colourless or nearly the colour of the markers' white paper (Lab a, b): a light grey back
# sits at ~0.81 of paper white, a face's paper at 0.95-1.0. Judged against colourless alone,
# white paper under a warm light (blue at 3/4 of red: Lab chroma 20) was no paper white, and
# every face on bench/vision.py's tables read `back`. Judged against the markers' colour alone,
# one marker's paper under a card's corner (chroma 28, bench gnome-paris table 21) made a 6D
# beside it read `back`. Either colour only ever adds paper white: a back then reads `?`.
# A third colour, when the light has one (light_colour): colourless once the cut is balanced
# for that light (each channel divided by the light's, as a fraction of its brightest, and
# clipped at 255). Paper bright enough to clip the light's strongest channel has another hue
# than the markers' dimmer paper: under a lamp switched on in the demo (seed 52), a 10H's paper
# read Lab (a, b) (120, 152) against the markers' (140, 148), and the 10H read `back`. Balanced,
# clipped paper is white again: its weak channels, divided up, clip too.
WHITE_MIN_RATIO = 0.90
WHITE_MAX_CHROMA = 18.0
# The markers' paper at least this far from colourless (Lab chroma) gives glare its colour in
# the mat model (vision.stabilize.NOT_MAT_RESIDUAL); nearer, glare is white. White light on the
# rendered tables leaves it ≤ 2; a warm lamp (blue at 0.62 of red) 32, magenta (green at 0.8) 30.
LIGHT_MIN_CHROMA = 6.0
# Print detail finer than this (the white dots of a pattern, a back's thin white border) is not
# the open paper of a face: the white mask is eroded by a square of this side.
WHITE_MIN_FEATURE_MM = 2.5
# Share of a zone's card pixels that is open paper white, after that erosion. Measured on
# rendered zones of the 7 decks and 11 backs: faces ≥ 0.108 (Paris court cards over backs),
# backs ≤ 0.055 but for one white-dotted back at 0.17. Below this line a zone is a back; above
# it the face reader decides, and a back that goes there reads `?`, never a card.
BACK_MAX_WHITE = 0.08
# Share of the ring of mat around a zone that is not mat: a card's overhang makes at most ~5 %
# (rendered piles, 99th percentile 4 %); more is something reaching across the zone's edge.
RING_MAX_DIRTY = 0.08
RING_NOT_MAT_RESIDUAL = 20.0  # full-size pixels are noisier than the quarter-size samples
# An arm's skin on the ring (see ZoneCutter.look) comes with a rim this wide that is neither
# skin nor mat: its rounded edge blurred into the mat (vision.render: σ 0.8 mm, and the lens).
SKIN_RIM_MM = 2.0


class ZoneKind(Enum):
    EMPTY = "empty"
    BACK = "back"
    FACE = "face"
    UNSURE = "?"


class PaperWhite(NamedTuple):
    """The white paper around the mat's markers this frame, in Lab (OpenCV's 0..255 scale)."""

    lightness: float
    a: float
    b: float


@dataclass(frozen=True)
class ZoneLook:
    kind: ZoneKind
    content: float  # share of the zone's inside that is not bare mat
    white: float  # share of that content which is paper white
    confidence: float  # 0..1: how far the measures are from the thresholds that decide them


@dataclass(frozen=True)
class _Cut:
    rect: Rect  # the zone grown by RING_MM
    maps: tuple[np.ndarray, np.ndarray]
    box: tuple[int, int, int, int]  # its bounding box in the frame
    inner: tuple[int, int, int, int]  # the zone's inside (inset) in the cut, px: y0, y1, x0, x1
    ring: np.ndarray  # bool mask of the ring in the cut
    edge: np.ndarray  # bool mask of the band along the zone's edge, where its outline is printed


class ZoneCutter:
    """Cuts zones and the markers' white paper out of frames of one `Rectification`."""

    def __init__(self, rect: Rectification, layout: Layout, px_per_mm: float = CUT_PX_PER_MM,
                 zones: tuple[str, ...] = ALL_ZONES) -> None:
        self.rectification = rect
        self.layout = layout
        self.px_per_mm = px_per_mm
        self._cuts: dict[str, _Cut] = {}
        self._read_maps: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._outline: dict[str, np.ndarray] = {}
        self._outline_yx: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.light: tuple[float, float, float] | None = None  # glare's colour (light_colour)
        for z in zones:
            r = layout.zones[z]
            grown = Rect(r.x - RING_MM, r.y - RING_MM, r.w + 2 * RING_MM, r.h + 2 * RING_MM)
            maps = rect.zone_maps(grown, px_per_mm)
            h, w = maps[0].shape[:2]
            k = px_per_mm
            ring = np.ones((h, w), bool)
            ring[int(RING_MM * k):h - int(RING_MM * k), int(RING_MM * k):w - int(RING_MM * k)] = False
            inset = int(round((RING_MM + INSET_MM) * k))
            a, b = int(round((RING_MM - OUTLINE_SEEN_MM) * k)), int(round((RING_MM + OUTLINE_SEEN_MM) * k))
            edge = np.zeros((h, w), bool)
            edge[a:h - a, a:w - a] = True
            edge[b:h - b, b:w - b] = False
            self._cuts[z] = _Cut(grown, maps, rect.frame_box(grown), (inset, h - inset, inset, w - inset),
                                 ring, edge)
        self._quiet: list[tuple[Rect, tuple[np.ndarray, np.ndarray]]] = []
        for m in layout.markers:
            q = Rect(m.x - QUIET_MM, m.y - QUIET_MM, m.size + 2 * QUIET_MM, m.size + 2 * QUIET_MM)
            if rect.sees(q):
                self._quiet.append((q, rect.zone_maps(q, 1.0)))

    @property
    def zones(self) -> tuple[str, ...]:
        return tuple(self._cuts)

    def frame_box(self, zone: str) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1): the frame pixels a zone (and its ring) is cut from."""
        return self._cuts[zone].box

    def cut(self, frame: np.ndarray, zone: str) -> np.ndarray:
        """The zone and its ring of mat, rectified, in the frame's colours, at `px_per_mm`."""
        mx, my = self._cuts[zone].maps
        return cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def cut_for_reading(self, frame: np.ndarray, zone: str,
                        mat_bgr: tuple[float, float, float] | None = None) -> np.ndarray:
        """The zone (and READ_MARGIN_MM around it) at READ_PX_PER_MM, for finding and reading
        its top card. With `mat_bgr`, the printed zone outline is painted over (see
        `paint_outline`)."""
        if zone not in self._read_maps:
            r, m = self.layout.zones[zone], READ_MARGIN_MM
            grown = Rect(r.x - m, r.y - m, r.w + 2 * m, r.h + 2 * m)
            maps = self.rectification.zone_maps(grown, READ_PX_PER_MM)
            self._read_maps[zone] = maps
            self._outline[zone] = _outline_band(maps[0].shape[:2], r, m, READ_PX_PER_MM)
            self._outline_yx[zone] = np.nonzero(self._outline[zone])
        mx, my = self._read_maps[zone]
        img = cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if mat_bgr is not None:
            img = self.paint_outline(img, zone, mat_bgr)
        return img

    def paint_outline(self, img: np.ndarray, zone: str,
                      mat_bgr: tuple[float, float, float]) -> np.ndarray:
        """A copy of a reading cut with the printed zone outline painted over with the mat's
        colour beside it (LOCAL_MAT_MM) where nothing lies on it: a card finder would take the outline for a card (90×105 mm is
        nearly a card's shape). For FINDING outlines only: the mat model also takes dark grey
        ink for mat, so a card's index lying on the outline band would be smudged; the index is
        read from the unpainted cut."""
        from vision.stabilize import not_mat
        img = img.copy()
        band = self._outline[zone]
        px = img[band]
        mat = np.asarray(mat_bgr, np.float64)
        bare = ~not_mat(px.astype(np.float32), mat, RING_NOT_MAT_RESIDUAL, self.light)
        local = _local_mat(img, band, mat, self.light)
        f = LOCAL_MAT_PX_PER_MM / READ_PX_PER_MM
        ys, xs = self._outline_yx[zone]
        ys = np.minimum((ys[bare] * f).astype(int), local.shape[0] - 1)
        xs = np.minimum((xs[bare] * f).astype(int), local.shape[1] - 1)
        px[bare] = np.clip(local[ys, xs], 0, 255).astype(np.uint8)
        img[band] = px
        return img

    def paper_white(self, frame: np.ndarray) -> dict[tuple[float, float], PaperWhite]:
        """The white paper around each visible marker, {centre mm: its Lab}. Markers under a
        hand (much darker than the brightest) are left out."""
        found: dict[tuple[float, float], PaperWhite] = {}
        for q, (mx, my) in self._quiet:
            patch = cv2.remap(frame, mx, my, cv2.INTER_LINEAR)
            lab = cv2.cvtColor(patch, cv2.COLOR_BGR2Lab)
            s = int(round(QUIET_MM))
            border = np.concatenate([lab[:s, :].reshape(-1, 3), lab[-s:, :].reshape(-1, 3),
                                     lab[:, :s].reshape(-1, 3), lab[:, -s:].reshape(-1, 3)])
            found[q.center] = PaperWhite(*(float(v) for v in np.median(border, axis=0)))
        if found:
            top = max(w.lightness for w in found.values())
            found = {c: w for c, w in found.items() if w.lightness >= 0.75 * top}
        return found

    def white_at(self, whites: dict[tuple[float, float], PaperWhite],
                 zone: str) -> PaperWhite | None:
        """Paper white at a zone's centre: its lightness an inverse-distance blend of the
        markers', which follows a light gradient across the mat; its colour theirs, the median
        (median_paper)."""
        if not whites:
            return None
        cx, cy = self.layout.zones[zone].center
        wsum = lsum = 0.0
        for (x, y), v in whites.items():
            w = 1.0 / max(1.0, (x - cx) ** 2 + (y - cy) ** 2)
            wsum += w
            lsum += w * v.lightness
        colour = median_paper(whites)
        return PaperWhite(lsum / wsum, colour.a, colour.b)

    def look(self, cut_bgr: np.ndarray, zone: str, white: PaperWhite | None,
             mat_bgr: tuple[float, float, float] | None = None,
             skin: tuple[float, float, float] | None = None) -> ZoneLook:
        """What lies on `zone`. With `mat_bgr` (the bare mat's colour this frame), a zone whose
        ring is crossed by something that is not mat is UNSURE; with `skin` (the colour, B, G,
        R, of an arm the hand detector saw stop outside the zone), by something neither mat
        nor skin of that colour nor within SKIN_RIM_MM of that skin (a card across the ring,
        or held over the zone, shows its edge and print there)."""
        c = self._cuts[zone]
        if mat_bgr is not None:
            from vision.stabilize import not_mat  # one model of "mat" for hands and zones
            from vision.stabilize import skin as skin_of
            ring = cut_bgr[c.ring].astype(np.float32)
            odd = not_mat(ring, np.array(mat_bgr), RING_NOT_MAT_RESIDUAL, self.light)
            if skin is not None:
                img = np.zeros(c.ring.shape, np.uint8)
                img[c.ring] = odd
                img[c.ring] &= skin_of(ring.astype(np.float64), skin, self.light)
                side = 2 * int(round(SKIN_RIM_MM * self.px_per_mm)) + 1
                odd &= ~(cv2.dilate(img, np.ones((side, side), np.uint8))[c.ring] > 0)
            if float(odd.mean()) > RING_MAX_DIRTY:
                return ZoneLook(ZoneKind.UNSURE, 1.0, 0.0, 0.0)
        look = classify(cut_bgr, c.inner, c.ring, white, self.px_per_mm, self.light)
        if look.kind is ZoneKind.EMPTY and outline_seen(cut_bgr, c.edge) < OUTLINE_MIN_SEEN:
            return ZoneLook(ZoneKind.UNSURE, look.content, 0.0, 0.0)
        return look


def outline_seen(cut_bgr: np.ndarray, edge: np.ndarray) -> float:
    """The share of `edge` (the band along a zone's edge in its cut) that shows a lightness
    edge: the printed outline of a bare zone (OUTLINE_MIN_SEEN)."""
    grey = cv2.cvtColor(cut_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 4
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 4
    return float((np.hypot(gx, gy)[edge] > OUTLINE_SEEN_EDGE).mean())


def _local_mat(img: np.ndarray, band: np.ndarray, mat: np.ndarray,
               light: tuple[float, float, float] | None = None) -> np.ndarray:
    """The mat's colour around each pixel of a reading cut, on a copy at LOCAL_MAT_PX_PER_MM:
    the mean of the bare mat (not `band`, nor anything that is not mat) within LOCAL_MAT_MM;
    `mat` where none is near."""
    from vision.stabilize import not_mat
    f = LOCAL_MAT_PX_PER_MM / READ_PX_PER_MM
    small = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    near_band = cv2.resize(band.astype(np.uint8), (w, h), interpolation=cv2.INTER_AREA) > 0
    near_band = cv2.dilate(near_band.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    colours = small.reshape(-1, 3).astype(np.float32)
    bare = ~not_mat(colours, mat, RING_NOT_MAT_RESIDUAL, light).reshape(h, w) & ~near_band
    weight = bare.astype(np.float32)
    side = max(3, int(round(LOCAL_MAT_MM * LOCAL_MAT_PX_PER_MM)) | 1)
    total = cv2.boxFilter(small.astype(np.float32) * weight[..., None], -1, (side, side),
                          normalize=False, borderType=cv2.BORDER_CONSTANT)
    count = cv2.boxFilter(weight, -1, (side, side), normalize=False,
                          borderType=cv2.BORDER_CONSTANT)
    return np.where(count[..., None] >= 1.0, total / np.maximum(count, 1.0)[..., None],
                    mat.astype(np.float32))


def _outline_band(shape: tuple[int, int], r: Rect, margin: float, k: float) -> np.ndarray:
    """Pixels of a cut (zone grown by `margin`) within OUTLINE_BAND_MM of the zone's edge."""
    h, w = shape
    ys = (np.arange(h) + 0.5) / k - margin
    xs = (np.arange(w) + 0.5) / k - margin
    b = OUTLINE_BAND_MM
    dy = np.minimum(np.abs(ys), np.abs(ys - r.h))[:, None]
    dx = np.minimum(np.abs(xs), np.abs(xs - r.w))[None, :]
    along_x = (xs > -b) & (xs < r.w + b)
    along_y = (ys > -b) & (ys < r.h + b)
    return ((dy <= b) & along_x[None, :]) | ((dx <= b) & along_y[:, None])


def median_paper(whites: dict[tuple[float, float], PaperWhite]) -> PaperWhite:
    """The median of the markers' white paper, each of L, a and b apart (`whites` not empty):
    one light colours the whole mat, and a marker's paper may lie under a card."""
    return PaperWhite(*(float(v) for v in np.median([tuple(w) for w in whites.values()], axis=0)))


def light_colour(whites: dict[tuple[float, float], PaperWhite]) -> tuple[float, float, float] | None:
    """The colour (B, G, R) of the light on the mat, from the markers' white paper (the median
    of theirs), or None for white: also when it is within LIGHT_MIN_CHROMA of colourless, so
    that in white light (rendered tables: chroma ≤ 2) nothing is judged otherwise than before
    the light's colour was measured."""
    if not whites:
        return None
    lab = median_paper(whites)
    if float(np.hypot(lab.a - 128, lab.b - 128)) < LIGHT_MIN_CHROMA:
        return None
    bgr = cv2.cvtColor(np.uint8([[np.clip(np.round(lab), 0, 255)]]), cv2.COLOR_Lab2BGR)[0, 0]
    return (float(bgr[0]), float(bgr[1]), float(bgr[2]))


def classify(cut_bgr: np.ndarray, inner: tuple[int, int, int, int], ring: np.ndarray,
             white: PaperWhite | None, px_per_mm: float = CUT_PX_PER_MM,
             light: tuple[float, float, float] | None = None) -> ZoneLook:
    """Empty, back, face, or unsure, from a zone cut with its ring (see the module text);
    `light`: the light's colour (B, G, R; light_colour), None for white."""
    lab = cv2.cvtColor(cut_bgr, cv2.COLOR_BGR2Lab).astype(np.float32)
    mat = np.median(lab[ring], axis=0)
    y0, y1, x0, x1 = inner
    inside = lab[y0:y1, x0:x1]
    delta = np.sqrt(np.sum((inside - mat) ** 2, axis=2))
    grey = inside[..., 0]
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 4
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 4
    edge = np.sqrt(gx * gx + gy * gy)
    outlined = edge > CONTENT_EDGE
    content_mask = (delta > CONTENT_DELTA) | outlined
    content = float(content_mask.mean())
    if content <= EMPTY_MAX_CONTENT:
        return ZoneLook(ZoneKind.EMPTY, content, 0.0, _margin(content, EMPTY_MAX_CONTENT, 0.0))
    if not outlined.any() and not _colour_edge(inside):
        # Only light (see CONTENT_COLOUR_EDGE): with a little of it the zone is empty; with
        # much, it is no card either, but a glare that strong may hide one's faint outline.
        if content < CARD_MIN_CONTENT:
            return ZoneLook(ZoneKind.EMPTY, content, 0.0, 0.5)
        return ZoneLook(ZoneKind.UNSURE, content, 0.0, 0.0)
    if content < CARD_MIN_CONTENT:
        return ZoneLook(ZoneKind.UNSURE, content, 0.0, 0.0)
    card = delta > CONTENT_DELTA
    own = float(np.percentile(grey[card], 99)) if card.any() else 255.0
    # The markers' paper, when in view, keeps a light grey back from passing for white; the
    # card's own brightest keeps glare on a marker from making a face's paper look grey.
    ref = own if white is None else min(own, white.lightness)
    colourless = np.hypot(inside[..., 1] - 128, inside[..., 2] - 128) <= WHITE_MAX_CHROMA
    if white is not None:
        colourless |= np.hypot(inside[..., 1] - white.a, inside[..., 2] - white.b) <= WHITE_MAX_CHROMA
    if light is not None:
        colourless |= _colourless_in(cut_bgr[y0:y1, x0:x1], light)
    white_mask = (card & (grey >= WHITE_MIN_RATIO * ref) & colourless).astype(np.uint8)
    side = max(1, int(round(WHITE_MIN_FEATURE_MM * px_per_mm)))
    white_mask = cv2.erode(white_mask, np.ones((side, side), np.uint8))
    white = float(white_mask.sum()) / max(1, int(card.sum()))
    if white < BACK_MAX_WHITE:
        return ZoneLook(ZoneKind.BACK, content, white, _margin(white, BACK_MAX_WHITE, 0.0))
    return ZoneLook(ZoneKind.FACE, content, white, _margin(white, BACK_MAX_WHITE, 0.3))


def _colourless_in(bgr: np.ndarray, light: tuple[float, float, float]) -> np.ndarray:
    """Pixels (bool) nearly colourless once balanced for `light` (see WHITE_MAX_CHROMA)."""
    gains = np.array(light, np.float32) / max(max(light), 1.0)
    balanced = np.minimum(bgr.astype(np.float32) / np.maximum(gains, 0.05), 255.0)
    lab = cv2.cvtColor(balanced.astype(np.uint8), cv2.COLOR_BGR2Lab).astype(np.float32)
    return np.hypot(lab[..., 1] - 128, lab[..., 2] - 128) <= WHITE_MAX_CHROMA


def _colour_edge(lab: np.ndarray) -> bool:
    """Whether a Lab image (float) has an edge of CONTENT_COLOUR_EDGE in a or b anywhere."""
    for ch in (1, 2):
        plane = np.ascontiguousarray(lab[..., ch])
        gx = cv2.Sobel(plane, cv2.CV_32F, 1, 0, ksize=3) / 4
        gy = cv2.Sobel(plane, cv2.CV_32F, 0, 1, ksize=3) / 4
        if float((gx * gx + gy * gy).max()) > CONTENT_COLOUR_EDGE ** 2:
            return True
    return False


def _margin(value: float, threshold: float, ideal: float) -> float:
    """1 at `ideal`, 0.5 at `threshold`: a confidence that shrinks near the decision line."""
    span = abs(ideal - threshold) or 1.0
    return float(min(1.0, 0.5 + 0.5 * abs(value - threshold) / span))
