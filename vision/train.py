"""Train the corner-index recogniser (vision/models/corner_mlp.npz) and measure it honestly.

Retrain (one command, reproducible: fixed seeds, one thread):

    .venv/bin/python -m vision.train                 # train on all seven decks + fonts, save
    .venv/bin/python -m vision.train --evaluate      # leave-one-deck-out figures first, then save

Training data, per corner mark (rank glyph / suit glyph):
- the seven artwork decks of ../shared/data/decks/, each card composited on a random table,
  warped with perspective, resized to a random camera size, blurred, lit unevenly, noised,
  JPEG-compressed, then found and flattened by the real pipeline (vision.card.flatten with a
  jittered outline) and segmented by the real vision.marks.find_marks;
- the same seven decks on rendered tables (vision.render, at the camera's real scale of
  ~1.6 px/mm): each top card cut at the reader's scale, flattened along its true outline
  moved a little, and segmented by every look the reader may take (`scene_samples`): the
  marks the classifier is really given, which the artwork alone did not teach it;
- rank characters rendered in every installed TrueType font (fc-list; fonts-dejavu,
  fonts-liberation, fonts-freefont-ttf, fonts-urw-base35 give ~60) and in OpenCV's Hershey
  fonts, drawn "Q"s (a ring and a tail), and suit symbols from fonts plus drawn suit shapes
  of random proportions, half of them seen at the camera's resolution and scaled back up;
- half the marks cut from rendered tables once more, made wider or narrower;
- "not a rank / not a suit" examples: pieces of court-card art and card backs, cut-off glyphs
  (a half-covered index must not read), blobs, and each network sees the other's glyphs.
The real photographs (../shared/data/photos/) are never used here.

Leave-one-deck-out: for each deck, a model trained without it reads that deck's cards through
the full `read_card` (augmented, both corners); the figures are printed. The shipped model is
then trained on all seven decks. Needs Pillow (training only): `pip install pillow`.
"""
from __future__ import annotations

import argparse
import glob
import os
import random
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

# numpy's matrix products (training) run on OpenBLAS, whose threads spin against other jobs on
# shared cores: on a loaded 2-core machine one leave-one-deck-out model took 284 s instead of
# 16 s. One thread gives the same weights (checked) and must be set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from calibration.layout import default_layout  # noqa: E402
from referee.cards import DECK  # noqa: E402
from referee.zones import ALL_ZONES, SPIT_PILES  # noqa: E402
from vision.card import CARD_H, CARD_W, Quad, flatten  # noqa: E402
from vision.corner_model import (  # noqa: E402
    MODEL_PATH, RANKS, SUITS, CornerModel, Net, glyph_features,
)
from vision.marks import cut_marks, corner_views, find_marks  # noqa: E402
from vision.recognize import LOOKS, read_card  # noqa: E402
from vision.rectify import from_homography  # noqa: E402
from vision.render import (  # noqa: E402
    Renderer, Scene, available_backs, random_look, random_pose, spit_pile, stock_pile,
)
from vision.zones import READ_MARGIN_MM, READ_PX_PER_MM, ZoneCutter  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SEED = 20261130
HIDDEN = 96  # hidden units: enough for 13 glyph shapes across fonts, small enough for ~30 µs
EPOCHS = 40
AUG_PER_CARD = 8  # augmented copies of each deck card in training (×2 corners)
FONT_COPIES = 6  # degraded copies of each rendered font glyph
EVAL_PER_CARD = 3  # augmented copies of each held-out card in leave-one-deck-out
SCENES_PER_DECK = 24  # rendered tables per deck in training (12 top cards each: ~5.5 per card)
# Blur of a rendered glyph (Gaussian σ, px; above 1 px at most a tenth of its height): the suit of
# an index is blurred more than the rank beside it, relative to its size (on the canonical card
# a camera's ~1 px of blur at 1.6 px/mm is ~2 px; a 12 px club then loses the dents between
# its balls and must still not read as a spade).
GLYPH_BLUR = 1.0
SUIT_GLYPH_BLUR = 1.8
OUTLINE_JITTER = 0.012  # fraction of the card height each outline corner may be off in training
# Held out, the suit network named npm-cardsjs' narrow small spades clubs and gnome-anglo's wide
# small clubs spades: six decks' designs taught it their own proportions. So every suit is also
# drawn in DRAWN_SUITS random shapes (40 left the held-out deck's suit to its neighbours' look),
# CAMERA_SHARE of the drawn and font suits are seen at the camera's resolution (1.6 px/mm: a
# small suit is 6-12 camera px, scaled up ~2x by the cut and flatten, CAMERA_SHRINK) rather than
# only blurred, and STRETCH_SHARE of the marks cut from rendered tables come again made wider or
# narrower (STRETCH_RANGE): a suit's shape, not its deck's width, must name it.
DRAWN_SUITS = 600
CAMERA_SHARE = 0.5
CAMERA_SHRINK = (1.6, 3.0)
CAMERA_BLUR = (0.4, 1.0)  # Gaussian σ at the camera's resolution, px
STRETCH_SHARE = 0.5
STRETCH_RANGE = (0.7, 1.35)
# A "Q" is also drawn as a ring and a tail (DRAWN_QS of them): held out, gnome-anglo's
# calligraphic Q, its tail across the ring, read as no rank (29 of 49 corners not surely Q).
DRAWN_QS = 120


# --- camera-like augmentation of a deck card ----------------------------------------------------

def load_deck_card(path: Path) -> np.ndarray:
    """A deck PNG as BGRA, trimmed to the card."""
    im = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if im is None:
        raise FileNotFoundError(path)
    if im.shape[2] == 3:
        im = cv2.cvtColor(im, cv2.COLOR_BGR2BGRA)
    ys, xs = np.nonzero(im[:, :, 3] > 127)
    return im[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _table(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    base = rng.uniform(20, 200, size=3)
    t = np.empty((h, w, 3), np.float32)
    t[:] = base
    grain = cv2.resize(rng.normal(0, rng.uniform(3, 25), (max(2, h // 8), max(2, w // 8), 3)).astype(np.float32),
                       (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(t + grain, 0, 255)


def camera_card(card_bgra: np.ndarray, rng: np.random.Generator, *, hard: bool = True) -> np.ndarray:
    """The card as the pipeline would see it after a camera and `flatten`: canonical BGR."""
    ch = int(rng.uniform(110, 420))  # card height in the camera image, px
    cw = int(round(ch * card_bgra.shape[1] / card_bgra.shape[0]))
    card = cv2.resize(card_bgra, (cw, ch), interpolation=cv2.INTER_AREA).astype(np.float32)
    pad = int(0.35 * ch)
    W, H = cw + 2 * pad, ch + 2 * pad
    src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    # Perspective: each corner moves by up to 7 % of the card height; a random turn.
    dst = src + pad + rng.uniform(-0.07, 0.07, (4, 2)).astype(np.float32) * ch
    ang = np.deg2rad(rng.uniform(-25, 25))
    c = dst.mean(axis=0)
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]], np.float32)
    dst = (dst - c) @ rot.T + c
    m = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(card, m, (W, H), flags=cv2.INTER_LINEAR)
    alpha = warped[:, :, 3:4] / 255.0
    img = _table(rng, W, H) * (1 - alpha) + warped[:, :, :3] * alpha
    # Light: a colour cast, a brightness gradient, maybe a soft glare spot.
    img *= rng.uniform(0.8, 1.15, size=3)[None, None, :]
    gy, gx = np.mgrid[0:H, 0:W].astype(np.float32)
    grad = 1 + rng.uniform(-0.25, 0.25) * (gx / W - 0.5) + rng.uniform(-0.25, 0.25) * (gy / H - 0.5)
    img *= grad[:, :, None] * rng.uniform(0.55, 1.1)
    if hard and rng.random() < 0.2:
        cx, cy, r = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(0.1, 0.4) * H
        img += (rng.uniform(30, 90) * np.exp(-((gx - cx) ** 2 + (gy - cy) ** 2) / (2 * r * r)))[:, :, None]
    # Lens blur, sensor noise, JPEG.
    sigma = rng.uniform(0, 1.3 if hard else 0.6)
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img += rng.normal(0, rng.uniform(0, 7 if hard else 3), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    q = int(rng.uniform(35 if hard else 70, 95))
    img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)
    # The outline find_cards would give: the true corners ± 1.5 % of the card height.
    found = dst + rng.uniform(-0.015, 0.015, (4, 2)).astype(np.float32) * ch
    return flatten(img, Quad.from_points(found))


# --- fonts and drawn glyphs -----------------------------------------------------------------------

def font_files() -> list[str]:
    """Installed TrueType/OpenType fonts (fc-list), in a fixed order."""
    try:
        out = subprocess.run(["fc-list", ":", "file"], capture_output=True, text=True, check=True).stdout
        files = [line.split(":")[0].strip() for line in out.splitlines()]
    except (OSError, subprocess.CalledProcessError):
        files = glob.glob("/usr/share/fonts/**/*.[ot]tf", recursive=True)
    return sorted(f for f in set(files) if f.lower().endswith((".ttf", ".otf")))


# Fonts whose letters are not letters (dingbats, a symbol font) or are calligraphy no card
# index uses: their suit symbols may still serve, their "ranks" would teach nonsense.
SYMBOL_FONTS = ("D050000L", "StandardSymbolsPS", "Z003", "MathTeXGyre")

_HERSHEY = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
            cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX_SMALL, cv2.FONT_HERSHEY_PLAIN]


def _render_ttf(text: str, path: str, size: int = 64) -> np.ndarray | None:
    from PIL import Image, ImageDraw, ImageFont  # training only
    try:
        font = ImageFont.truetype(path, size)
    except OSError:
        return None
    im = Image.new("L", (size * 3, size * 2), 0)
    ImageDraw.Draw(im).text((size // 2, size // 3), text, fill=255, font=font)
    a = np.array(im)
    return a if (a > 127).sum() > 30 else None


def _render_hershey(text: str, face: int, italic: bool, thick: int) -> np.ndarray:
    scale = 2.2 if face != cv2.FONT_HERSHEY_COMPLEX_SMALL else 2.8
    img = np.zeros((120, 200), np.uint8)
    cv2.putText(img, text, (20, 90), face | (cv2.FONT_ITALIC if italic else 0), scale, 255, thick,
                cv2.LINE_AA)
    return img


def _suit_shape(suit: str, rng: np.random.Generator) -> np.ndarray:
    """A suit symbol drawn from circles and polygons with random proportions (in 128 px).
    Spades have a real stem under their lobes (stemless drawn spades taught the networks that
    a stem means a club); clubs vary in ball size and spacing, and their stems run from a
    bold flared foot to a thread that blur all but hides (gnome-anglo's small clubs): the
    shape of the top, not the stem, must tell the two black suits apart."""
    img = np.zeros((128, 128), np.uint8)
    cx, w, h = 64, rng.uniform(26, 36), rng.uniform(30, 40)
    if suit == "D":
        w = w * rng.uniform(0.6, 0.95)
        bend = rng.uniform(-4, 4)
        pts = np.array([[cx, 64 - h], [cx + w + bend, 64], [cx, 64 + h], [cx - w - bend, 64]], np.int32)
        cv2.fillPoly(img, [pts], 255, cv2.LINE_AA)
    elif suit == "H":
        _heart(img, cx, 64 - h * 0.35, w, h, rng)
    elif suit == "S":
        # A heart turned upside down, then a stem from between its lobes to a flared foot.
        r = _heart(img, cx, 64 - h * 0.35, w, h, rng)
        img = img[::-1].copy()
        ys = np.nonzero(img.any(axis=1))[0]
        img = np.roll(img, 8 - int(ys.min()), axis=0)  # the point near the top
        bottom = int(np.nonzero(img.any(axis=1))[0].max())
        _stem(img, cx, bottom - r * 0.8, bottom + h * rng.uniform(0.15, 0.45), rng,
              thin=rng.uniform(1.0, 3.5), flare=rng.uniform(1.6, 4.0))
    else:  # clubs: three balls, a filled middle and a stem
        r = w * rng.uniform(0.34, 0.5)
        up, side = r * rng.uniform(0.95, 1.45), r * rng.uniform(0.95, 1.4)
        low = r * rng.uniform(0.1, 0.6)
        cy = 56 + rng.uniform(-4, 4)
        for x, y in ((cx, cy - up), (cx - side, cy + low), (cx + side, cy + low)):
            cv2.circle(img, (int(round(x)), int(round(y))), int(round(r)), 255, -1, cv2.LINE_AA)
        cv2.circle(img, (cx, int(round(cy))), int(round(r * rng.uniform(0.4, 0.8))), 255, -1)
        foot = cy + low + r * rng.uniform(0.9, 1.8)
        if rng.random() < 0.3:  # a thread of a stem, as blur leaves a thin one
            _stem(img, cx, cy, foot, rng, thin=rng.uniform(0.8, 1.8), flare=rng.uniform(1.0, 2.0))
        else:
            _stem(img, cx, cy, foot, rng, thin=rng.uniform(1.5, 5.0), flare=rng.uniform(1.5, 3.5))
    return img


def _drawn_q(rng: np.random.Generator) -> np.ndarray:
    """A "Q" drawn as a ring and a tail: the tail a short stroke out of the ring's lower right,
    a stroke crossing the ring's bottom (gnome-anglo's Q), or a flat one under it."""
    img = np.zeros((128, 128), np.uint8)
    cx, cy = 64, 58
    ax, ay = rng.uniform(20, 32), rng.uniform(30, 38)
    t = int(rng.integers(4, 12))
    cv2.ellipse(img, (cx, cy), (int(ax), int(ay)), 0, 0, 360, 255, t, cv2.LINE_AA)
    kind = rng.integers(0, 3)
    if kind == 0:  # out of the lower right
        p0 = (cx + ax * 0.35, cy + ay * 0.55)
        p1 = (cx + ax * rng.uniform(0.9, 1.3), cy + ay * rng.uniform(1.1, 1.45))
    elif kind == 1:  # across the bottom of the ring
        p0 = (cx - ax * rng.uniform(0.2, 1.0), cy + ay * rng.uniform(-0.1, 0.75))
        p1 = (cx + ax * rng.uniform(0.5, 1.1), cy + ay * rng.uniform(1.1, 1.4))
    else:  # a flat tail under the ring
        p0 = (cx - ax * 0.1, cy + ay * 0.95)
        p1 = (cx + ax * rng.uniform(0.8, 1.3), cy + ay * rng.uniform(1.05, 1.3))
    th = int(max(2, t * rng.uniform(0.7, 1.4)))
    cv2.line(img, tuple(int(round(v)) for v in p0), tuple(int(round(v)) for v in p1), 255, th, cv2.LINE_AA)
    return img


def _heart(img: np.ndarray, cx: float, top: float, w: float, h: float,
           rng: np.random.Generator) -> float:
    """Draw two lobes centred on row `top` and a point below them; returns the lobes' radius."""
    r = w * rng.uniform(0.5, 0.6)
    for x in (cx - r * 0.85, cx + r * 0.85):
        cv2.circle(img, (int(round(x)), int(round(top))), int(round(r)), 255, -1, cv2.LINE_AA)
    pts = np.array([[cx - r * 1.8, top + r * 0.3], [cx + r * 1.8, top + r * 0.3],
                    [cx, top + r * 0.3 + h * rng.uniform(0.9, 1.2)]], np.int32)
    cv2.fillPoly(img, [pts], 255, cv2.LINE_AA)
    return r


def _stem(img: np.ndarray, cx: float, y0: float, y1: float, rng: np.random.Generator, *,
          thin: float, flare: float) -> None:
    """Draw a stem from row y0 down to y1: `thin` px half-wide at the top, `flare` times that
    at the foot, its sides straight or curving in."""
    t = np.linspace(0.0, 1.0, 8)
    half = thin * (1.0 + (flare - 1.0) * t ** rng.uniform(1.0, 3.0))
    y = y0 + (y1 - y0) * t
    pts = np.concatenate([np.stack([cx - half, y], 1), np.stack([cx + half, y], 1)[::-1]])
    cv2.fillPoly(img, [np.round(pts).astype(np.int32)], 255, cv2.LINE_AA)


def degrade_glyph(big: np.ndarray, rng: np.random.Generator,
                  max_blur: float = GLYPH_BLUR, camera_share: float = 0.0) -> np.ndarray | None:
    """A large rendered glyph as it would come out of find_marks on a camera card: slanted,
    stretched, bolder or thinner, shrunk to 9–36 px, blurred (σ up to `max_blur` px) and
    binarised again. A `camera_share` of the glyphs are instead seen at the camera's resolution
    and scaled back up (CAMERA_SHRINK)."""
    ys, xs = np.nonzero(big > 127)
    if len(xs) < 10:
        return None
    g = big[max(0, ys.min() - 8):ys.max() + 9, max(0, xs.min() - 8):xs.max() + 9].astype(np.uint8)
    h, w = g.shape
    a = np.deg2rad(rng.uniform(-6, 6))
    sx, shear = rng.uniform(0.65, 1.35), rng.uniform(-0.15, 0.15)
    m = np.array([[sx * np.cos(a), -np.sin(a) + shear, 0], [np.sin(a), np.cos(a), 0]], np.float32)
    corners = np.array([[0, 0, 1], [w, 0, 1], [0, h, 1], [w, h, 1]], np.float32) @ m.T
    m[:, 2] = -corners.min(axis=0) + 4
    size = np.ceil(corners.max(axis=0) - corners.min(axis=0) + 8).astype(int)
    g = cv2.warpAffine(g, m, (int(size[0]), int(size[1])), flags=cv2.INTER_LINEAR)
    k = int(rng.integers(-2, 3))
    if k > 0:
        g = cv2.dilate(g, np.ones((k + 1, k + 1), np.uint8))
    elif k < 0:
        g = cv2.erode(g, np.ones((-k + 1, -k + 1), np.uint8))
    target = rng.uniform(9, 36)
    ys, xs = np.nonzero(g > 127)
    if len(xs) < 10:
        return None
    f = target / (ys.max() - ys.min() + 1)
    g = cv2.resize(g, (max(3, round(g.shape[1] * f)), max(3, round(g.shape[0] * f))), interpolation=cv2.INTER_AREA)
    if camera_share and rng.random() < camera_share:
        # Seen by the camera at CAMERA_SHRINK times fewer pixels, blurred there, and scaled
        # back up as the reader's cut and flatten scale it: pixel steps and soft lobes.
        k = rng.uniform(*CAMERA_SHRINK)
        small = cv2.resize(g, (max(2, round(g.shape[1] / k)), max(2, round(g.shape[0] / k))),
                           interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(*CAMERA_BLUR))
        g = cv2.resize(small, (g.shape[1], g.shape[0]), interpolation=cv2.INTER_LINEAR)
    elif rng.random() < 0.6:
        g = cv2.GaussianBlur(g, (0, 0), rng.uniform(0.3, min(max_blur, max(1.0, target / 10))))
    # Grey ink strength as find_marks measures it: print darker than full contrast saturates,
    # a faint print never reaches it; the paper around is 0.
    g = np.clip(g.astype(np.float32) * rng.uniform(0.75, 1.6) - rng.uniform(0, 30), 0, 255).astype(np.uint8)
    return g if (g > 64).sum() >= 8 else None


def cut_glyph(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """A glyph with 35–65 % of it hidden by a straight edge (a finger, another card)."""
    h, w = mask.shape
    gy, gx = np.mgrid[0:h, 0:w]
    a = rng.uniform(0, 2 * np.pi)
    proj = (gx - w / 2) * np.cos(a) + (gy - h / 2) * np.sin(a)
    ink = mask > 64
    if ink.sum() < 10:
        return None
    cut = np.quantile(proj[ink], rng.uniform(0.35, 0.65))
    out = (mask * (proj < cut)).astype(np.uint8)
    return out if (out > 64).sum() > 0 else None


def _blob(rng: np.random.Generator) -> np.ndarray:
    img = np.zeros((64, 64), np.uint8)
    kind = rng.integers(0, 3)
    if kind == 0:
        cv2.ellipse(img, (32, 32), (int(rng.uniform(4, 28)), int(rng.uniform(4, 28))),
                    rng.uniform(0, 180), 0, 360, 255, -1)
    elif kind == 1:
        pts = rng.uniform(4, 60, (int(rng.integers(3, 8)), 2)).astype(np.int32)
        cv2.fillPoly(img, [cv2.convexHull(pts)], 255)
    else:
        for _ in range(int(rng.integers(1, 4))):
            p = rng.uniform(4, 60, (2, 2)).astype(int)
            cv2.line(img, tuple(map(int, p[0])), tuple(map(int, p[1])), 255, int(rng.integers(2, 8)))
    return cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.5))


# --- data sets ------------------------------------------------------------------------------------

@dataclass
class Samples:
    """Feature rows with labels: rank labels index RANKS + (JUNK,), suit labels SUITS + (JUNK,)."""

    rank_x: list[np.ndarray]
    rank_y: list[int]
    suit_x: list[np.ndarray]
    suit_y: list[int]

    @classmethod
    def empty(cls) -> "Samples":
        return cls([], [], [], [])

    def extend(self, other: "Samples") -> None:
        self.rank_x += other.rank_x
        self.rank_y += other.rank_y
        self.suit_x += other.suit_x
        self.suit_y += other.suit_y


RANK_JUNK = len(RANKS)
SUIT_JUNK = len(SUITS)


def deck_samples(deck_dir: Path, per_card: int, seed: int) -> tuple[Samples, list[np.ndarray]]:
    """Marks of one deck's augmented cards, and (for junk) marks cut from its court-card art."""
    s = Samples.empty()
    junk: list[np.ndarray] = []
    for path in sorted(deck_dir.glob("*.png")):
        code = path.stem
        rank, suit = code[:-1], code[-1]
        card = load_deck_card(path)
        rng = np.random.default_rng([seed, zlib.crc32(deck_dir.name.encode()), RANKS.index(rank), SUITS.index(suit)])
        for _ in range(per_card):
            flat = camera_card(card, rng)
            for view in corner_views(flat):
                m = find_marks(view)
                # Only marks that look like the index go in as labelled examples: a rank and
                # a suit below it. Anything else found there is art and goes in as junk.
                if m.rank is not None:
                    s.rank_x.append(glyph_features(m.rank))
                    s.rank_y.append(RANKS.index(rank))
                    if rng.random() < 0.3:
                        c = cut_glyph(m.rank, rng)
                        if c is not None:
                            junk.append(c)
                if m.suit is not None:
                    s.suit_x.append(glyph_features(m.suit))
                    s.suit_y.append(SUITS.index(suit))
                    if rng.random() < 0.3:
                        c = cut_glyph(m.suit, rng)
                        if c is not None:
                            junk.append(c)
        if rank in ("J", "Q", "K"):
            junk += _art_marks(load_deck_card(path), rng)
    return s, junk


def scene_samples(data: Path, deck: str, scenes: int, seed: int) -> tuple[Samples, list[np.ndarray]]:
    """Marks of `deck`'s cards as the table reader sees them: rendered tables (vision.render:
    random camera pose, light, glare, blur, noise, JPEG, piles; no hands) at the real frame
    scale, each top card cut at the reading scale (vision.zones), flattened along its true
    outline moved by up to OUTLINE_JITTER of the card height (a fitted outline is never exact),
    and segmented by every look `read_corner_views` may take (normal, strict, loose, lines
    removed): the classifier learns the marks it is really given. Only looks that find both a
    rank and a suit under it give examples (a look that finds only one has likely cut the
    index wrong, and would teach a wrong label)."""
    renderer = Renderer(data / "decks", data / "backs")
    layout = default_layout()
    backs = available_backs(data / "backs")
    rng = random.Random(f"train-scenes-{deck}-{seed}")
    nrng = np.random.default_rng([seed, zlib.crc32(("scenes-" + deck).encode())])
    srng = np.random.default_rng([seed, zlib.crc32(("stretch-" + deck).encode())])
    s = Samples.empty()
    junk: list[np.ndarray] = []
    codes: list[str] = []
    for _ in range(scenes):
        if len(codes) < len(ALL_ZONES):
            codes += rng.sample([c.code for c in DECK], len(DECK))
        piles = {}
        for zone in ALL_ZONES:
            top = codes.pop()
            if zone in SPIT_PILES:
                under = rng.sample([c.code for c in DECK], rng.choice((0, 1, 2, 5)))
                piles[zone] = spit_pile(rng, under + [top])
            else:
                piles[zone] = stock_pile(rng, rng.randrange(0, 5), top)
        scene = Scene(piles, deck, rng.choice(backs), (), random_pose(rng), random_look(rng),
                      table_seed=rng.randrange(4), noise_seed=rng.randrange(1 << 30))
        frame, truth = renderer.render(scene)
        cutter = ZoneCutter(from_homography(truth.frame_to_table, renderer.size), layout)
        for zone in ALL_ZONES:
            card = piles[zone][-1]
            rank, suit = card.face[:-1], card.face[-1]
            z = layout.zones[zone]
            mm = renderer.card_corners_mm(deck, zone, card)
            px = (mm - (z.x - READ_MARGIN_MM, z.y - READ_MARGIN_MM)) * READ_PX_PER_MM - 0.5
            px = px + nrng.uniform(-OUTLINE_JITTER, OUTLINE_JITTER, (4, 2)) * _long_side(px)
            flat = flatten(cutter.cut_for_reading(frame, zone), Quad.from_points(px))
            for view in corner_views(flat):
                looks = [find_marks(view)] + [cut_marks(view, st, lo, unlined=un)
                                              for st, lo, un in LOOKS]
                seen: set[tuple] = set()
                for m in looks:
                    if m.rank is None or m.suit is None:
                        continue
                    key = (m.rank.shape, m.suit.shape, int(m.rank.sum()), int(m.suit.sum()))
                    if key in seen:  # the same marks from two looks: one example
                        continue
                    seen.add(key)
                    s.rank_x.append(glyph_features(m.rank))
                    s.rank_y.append(RANKS.index(rank))
                    s.suit_x.append(glyph_features(m.suit))
                    s.suit_y.append(SUITS.index(suit))
                    if srng.random() < STRETCH_SHARE:
                        s.rank_x.append(glyph_features(stretch_mark(m.rank, srng)))
                        s.rank_y.append(RANKS.index(rank))
                        s.suit_x.append(glyph_features(stretch_mark(m.suit, srng)))
                        s.suit_y.append(SUITS.index(suit))
                    if nrng.random() < 0.15:
                        c = cut_glyph(m.rank if nrng.random() < 0.5 else m.suit, nrng)
                        if c is not None:
                            junk.append(c)
    return s, junk


def stretch_mark(mark: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A mark made wider or narrower by a factor drawn from STRETCH_RANGE (see STRETCH_SHARE)."""
    f = rng.uniform(*STRETCH_RANGE)
    h, w = mark.shape
    return cv2.resize(mark, (max(2, round(w * f)), h), interpolation=cv2.INTER_LINEAR)


def _long_side(px: np.ndarray) -> float:
    """The card's height in px from its four corners (the longer side)."""
    d = np.linalg.norm(px - np.roll(px, -1, axis=0), axis=1)
    return float(max(d))


def _art_marks(card_bgra: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """Marks cut from the middle of a court card: shapes an index reader must reject."""
    bgr = cv2.resize(card_bgra[:, :, :3], (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)
    out = []
    for _ in range(6):
        x, y = int(rng.uniform(40, CARD_W - 100)), int(rng.uniform(60, CARD_H - 160))
        m = find_marks(bgr[y:y + 110, x:x + 60])
        out += [g for g in (m.rank, m.suit) if g is not None]
    return out


def backs_marks(backs_dir: Path, rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for path in sorted(backs_dir.glob("*.png")):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            continue
        img = cv2.resize(img, (CARD_W, CARD_H))
        for _ in range(10):
            x, y = int(rng.uniform(0, CARD_W - 60)), int(rng.uniform(0, CARD_H - 118))
            m = find_marks(img[y:y + 118, x:x + 60])
            out += [g for g in (m.rank, m.suit) if g is not None]
    return out


def font_samples(seed: int, per_glyph: int = FONT_COPIES) -> tuple[Samples, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    s = Samples.empty()
    junk: list[np.ndarray] = []
    fonts = font_files()
    renders: list[tuple[str, np.ndarray]] = []
    for f in fonts:
        text_font = not any(name in f for name in SYMBOL_FONTS)
        suit_imgs = {}
        for sym, suit in zip("♠♥♦♣", SUITS):
            im = _render_ttf(sym, f)
            if im is not None:
                suit_imgs[suit] = im
        # A font without real suit symbols draws the same "missing glyph" box for all four.
        if len(suit_imgs) == 4 and len({int((v > 127).sum()) for v in suit_imgs.values()}) > 1:
            renders += [("suit:" + k, v) for k, v in suit_imgs.items()]
        for r in RANKS if text_font else ():
            im = _render_ttf(r, f)
            if im is not None:
                renders.append(("rank:" + r, im))
    for face in _HERSHEY:
        for italic in (False, True):
            for r in RANKS:
                renders.append(("rank:" + r, _render_hershey(r, face, italic, int(rng.integers(1, 5)))))
    for _ in range(DRAWN_QS):
        renders.append(("rank:Q", _drawn_q(rng)))
    for suit in SUITS:
        for _ in range(DRAWN_SUITS):
            renders.append(("suit:" + suit, _suit_shape(suit, rng)))
    for label, big in renders:
        kind, name = label.split(":")
        for _ in range(per_glyph):
            g = (degrade_glyph(big, rng, GLYPH_BLUR) if kind == "rank"
                 else degrade_glyph(big, rng, SUIT_GLYPH_BLUR, CAMERA_SHARE))
            if g is None:
                continue
            if kind == "rank":
                s.rank_x.append(glyph_features(g))
                s.rank_y.append(RANKS.index(name))
            else:
                s.suit_x.append(glyph_features(g))
                s.suit_y.append(SUITS.index(name))
            if rng.random() < 0.25:
                c = cut_glyph(g, rng)
                if c is not None:
                    junk.append(c)
    for _ in range(800):
        junk.append(_blob(rng))
    return s, junk


# --- the network ----------------------------------------------------------------------------------

def train_net(x: np.ndarray, y: np.ndarray, n_classes: int, seed: int, epochs: int = EPOCHS) -> Net:
    """Softmax MLP, one ReLU hidden layer, Adam, class-balanced; deterministic for a seed."""
    rng = np.random.default_rng(seed)
    x = x.astype(np.float32)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-3
    z = (x - mean) / scale
    n, d = z.shape
    w1 = (rng.normal(0, np.sqrt(2.0 / d), (d, HIDDEN))).astype(np.float32)
    b1 = np.zeros(HIDDEN, np.float32)
    w2 = (rng.normal(0, np.sqrt(1.0 / HIDDEN), (HIDDEN, n_classes))).astype(np.float32)
    b2 = np.zeros(n_classes, np.float32)
    params = [w1, b1, w2, b2]
    m_ = [np.zeros_like(p) for p in params]
    v_ = [np.zeros_like(p) for p in params]
    counts = np.bincount(y, minlength=n_classes).astype(np.float32)
    cw = (n / (n_classes * np.maximum(counts, 1))).astype(np.float32)  # balance the classes
    lr, b1m, b2m, eps, decay, batch = 2e-3, 0.9, 0.999, 1e-8, 1e-4, 128
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(n)
        for i in range(0, n, batch):
            idx = order[i:i + batch]
            xb, yb = z[idx], y[idx]
            h = np.maximum(xb @ w1 + b1, 0)
            o = h @ w2 + b2
            o -= o.max(axis=1, keepdims=True)
            p = np.exp(o)
            p /= p.sum(axis=1, keepdims=True)
            g = p.copy()
            g[np.arange(len(yb)), yb] -= 1
            g *= cw[yb][:, None] / len(yb)
            gw2 = h.T @ g + decay * w2
            gb2 = g.sum(axis=0)
            gh = (g @ w2.T) * (h > 0)
            gw1 = xb.T @ gh + decay * w1
            gb1 = gh.sum(axis=0)
            step += 1
            lr_t = lr * (0.5 * (1 + np.cos(np.pi * epoch / epochs)))
            for j, (pp, gg) in enumerate(zip(params, (gw1, gb1, gw2, gb2))):
                m_[j] = b1m * m_[j] + (1 - b1m) * gg
                v_[j] = b2m * v_[j] + (1 - b2m) * gg * gg
                mh = m_[j] / (1 - b1m ** step)
                vh = v_[j] / (1 - b2m ** step)
                pp -= lr_t * mh / (np.sqrt(vh) + eps)
    return Net(mean.astype(np.float32), scale.astype(np.float32), w1, b1, w2, b2)


def fit(samples: Samples, junk: list[np.ndarray], seed: int, epochs: int = EPOCHS,
        meta: dict | None = None) -> CornerModel:
    junk_x = [glyph_features(j) for j in junk]
    # Each network also learns that the other's glyphs are not its own (a pip mistaken for the
    # rank, a letter mistaken for the suit).
    rx = samples.rank_x + junk_x + samples.suit_x
    ry = samples.rank_y + [RANK_JUNK] * (len(junk_x) + len(samples.suit_x))
    sx = samples.suit_x + junk_x + samples.rank_x
    sy = samples.suit_y + [SUIT_JUNK] * (len(junk_x) + len(samples.rank_x))
    rank = train_net(np.array(rx), np.array(ry), len(RANKS) + 1, seed, epochs)
    suit = train_net(np.array(sx), np.array(sy), len(SUITS) + 1, seed + 1, epochs)
    return CornerModel(rank, suit, {k: str(v) for k, v in (meta or {}).items()})


# --- leave-one-deck-out ---------------------------------------------------------------------------

@dataclass(frozen=True)
class DeckScore:
    deck: str
    cards: int
    rank_right: int  # confident readings with the right rank
    suit_right: int
    confident_wrong: int  # confident readings with a wrong rank or suit
    unread: int  # card None (below the threshold)

    def line(self) -> str:
        n = self.cards
        return (f"{self.deck:20s} cards {n:4d}  rank {100 * self.rank_right / n:6.2f} %  "
                f"suit {100 * self.suit_right / n:6.2f} %  unread {100 * self.unread / n:5.2f} %  "
                f"confident wrong {self.confident_wrong}")


def evaluate_deck(model: CornerModel, deck_dir: Path, per_card: int, seed: int) -> DeckScore:
    """Read every card of a deck `per_card` times through camera augmentation and read_card.
    A rank counts as right only when the card is read (confident) and the rank is right."""
    n = rank_ok = suit_ok = wrong = unread = 0
    for path in sorted(deck_dir.glob("*.png")):
        code = path.stem
        card = load_deck_card(path)
        rng = np.random.default_rng([seed, 7, zlib.crc32((deck_dir.name + code).encode())])
        for _ in range(per_card):
            r = read_card(camera_card(card, rng), model=model)
            n += 1
            if r.card is None:
                unread += 1
                continue
            rank_ok += r.rank == code[:-1]
            suit_ok += r.suit == code[-1]
            wrong += r.card != code
    return DeckScore(deck_dir.name, n, rank_ok, suit_ok, wrong, unread)


def decks(data: Path) -> list[Path]:
    found = sorted(p for p in (data / "decks").iterdir() if p.is_dir())
    if not found:
        raise SystemExit(f"no decks in {data / 'decks'}")
    return found


def build_samples(data: Path, per_card: int, seed: int, only: list[Path] | None = None,
                  log=print, font_copies: int = FONT_COPIES,
                  scenes: int = SCENES_PER_DECK) -> tuple[dict[str, Samples], dict[str, list[np.ndarray]], Samples, list[np.ndarray]]:
    per_deck: dict[str, Samples] = {}
    deck_junk: dict[str, list[np.ndarray]] = {}
    for d in (only or decks(data)):
        t = time.perf_counter()
        per_deck[d.name], deck_junk[d.name] = deck_samples(d, per_card, seed)
        if scenes:
            ss, sj = scene_samples(data, d.name, scenes, seed)
            per_deck[d.name].extend(ss)
            deck_junk[d.name] += sj
        log(f"  {d.name}: {len(per_deck[d.name].rank_x)} rank, {len(per_deck[d.name].suit_x)} suit, "
            f"{len(deck_junk[d.name])} junk marks ({time.perf_counter() - t:.1f} s)")
    t = time.perf_counter()
    fonts, font_junk = font_samples(seed, font_copies)
    log(f"  fonts: {len(fonts.rank_x)} rank, {len(fonts.suit_x)} suit marks ({time.perf_counter() - t:.1f} s)")
    other_junk = font_junk
    backs = data / "backs"
    if backs.is_dir():
        other_junk = other_junk + backs_marks(backs, np.random.default_rng(seed + 5))
    return per_deck, deck_junk, fonts, other_junk


def pooled(prepared, without: str | None = None) -> tuple[Samples, list]:
    """The training samples and junk of `build_samples`'s result, every deck's but `without`'s
    (held out), with the font glyphs and the other junk."""
    per_deck, deck_junk, fonts, other_junk = prepared
    s = Samples.empty()
    s.extend(fonts)
    junk = list(other_junk)
    for name, ds in per_deck.items():
        if name != without:
            s.extend(ds)
            junk += deck_junk[name]
    return s, junk


def leave_one_deck_out(data: Path, per_card: int = AUG_PER_CARD, eval_per_card: int = EVAL_PER_CARD,
                       seed: int = SEED, epochs: int = EPOCHS, log=print,
                       prepared=None) -> list[DeckScore]:
    prepared = prepared or build_samples(data, per_card, seed, log=log)
    scores = []
    for held in decks(data):
        s, junk = pooled(prepared, without=held.name)
        model = fit(s, junk, seed, epochs)
        score = evaluate_deck(model, held, eval_per_card, seed + 99)
        log("  held out " + score.line())
        scores.append(score)
    return scores


def summary(scores: list[DeckScore]) -> str:
    n = sum(s.cards for s in scores)
    return (f"leave-one-deck-out total: cards {n}  rank {100 * sum(s.rank_right for s in scores) / n:.2f} %  "
            f"suit {100 * sum(s.suit_right for s in scores) / n:.2f} %  "
            f"unread {100 * sum(s.unread for s in scores) / n:.2f} %  "
            f"confident wrong {sum(s.confident_wrong for s in scores)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    ap.add_argument("--out", type=Path, default=MODEL_PATH, help="model file to write")
    ap.add_argument("--evaluate", action="store_true", help="print leave-one-deck-out figures first")
    ap.add_argument("--per-card", type=int, default=AUG_PER_CARD)
    ap.add_argument("--epochs", type=int, default=EPOCHS)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--font-copies", type=int, default=FONT_COPIES)
    ap.add_argument("--scenes", type=int, default=SCENES_PER_DECK,
                    help="rendered tables per deck whose top cards are training examples (0: none)")
    ap.add_argument("--decks", nargs="*", help="train on these deck names only (tests)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    cv2.setRNGSeed(args.seed)
    try:
        import PIL  # noqa: F401
    except ImportError:
        print("vision.train needs Pillow to render fonts: .venv/bin/pip install pillow", file=sys.stderr)
        return 1
    only = [args.data / "decks" / d for d in args.decks] if args.decks else None
    print(f"building samples from {args.data} ({len(font_files())} fonts)")
    prepared = build_samples(args.data, args.per_card, args.seed, only, font_copies=args.font_copies,
                             scenes=args.scenes)
    if args.evaluate:
        print("leave-one-deck-out (each deck read by a model that never saw it):")
        print(summary(leave_one_deck_out(args.data, args.per_card, seed=args.seed, epochs=args.epochs,
                                         prepared=prepared)))
    per_deck = prepared[0]
    s, junk = pooled(prepared)
    t = time.perf_counter()
    model = fit(s, junk, args.seed, args.epochs,
                meta={"decks": ",".join(sorted(per_deck)), "fonts": len(font_files()), "seed": args.seed,
                      "per_card": args.per_card, "epochs": args.epochs, "scenes": args.scenes})
    model.save(args.out)
    print(f"trained on {len(per_deck)} decks + fonts in {time.perf_counter() - t:.1f} s; "
          f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
