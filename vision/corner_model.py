"""What a corner's marks are: the glyph features of a mark and the corner networks that name it.

A mark (a grey ink-strength image from vision.marks) is normalised and described by HOG + a
coarse bitmap + shape ratios (`glyph_features`); two small networks (`CornerModel`: rank: 13
ranks + "not a rank"; suit: 4 suits + "not a suit"), trained by `python -m vision.train` on
deck designs and many fonts, give probabilities (`CornerReading`). The ink colour (red or
black) must agree with the suit (`gate_by_colour`).

The model is a small .npz file (vision/models/corner_mlp.npz, `MODEL_PATH`) run with numpy: no
torch, no network.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping

import cv2
import numpy as np

from referee.errors import UserError
from vision.marks import MARK_EDGE, Ink

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RED_SUITS = frozenset({"H", "D"})
JUNK = "-"  # the extra class of both networks: "this mark is not a rank / not a suit"

MODEL_PATH = Path(__file__).with_name("models") / "corner_mlp.npz"

# Ink redness (Ink.red, see vision.marks.ink_colour) between black ink (≤ 0.05 but for 2 of
# 1,846 marks, 0.074 and 0.08) and red ink (≥ 0.14 but for 2 % of 1,874, some of them no ink
# at all: a corner in a hand's shadow); the softness says how sure the colour is near the
# middle: 0.5 % doubt at either end of that gap, 15 % at the darkest black's 0.08.
RED_MIDPOINT = 0.095
RED_SOFTNESS = 0.0085
# A mark whose green and blue differ (Ink.tint) is neither black nor red ink but a court's
# coloured art (orange, yellow, blue): black and red ink reach 0.14, an orange face 0.53. At
# 0.3 the colour is half doubted; an orange-red ink (0.25) keeps 88 % of its suit's probability.
TINT_MIDPOINT = 0.3
TINT_SOFTNESS = 0.025
# Under a reddish light a mark is red ink only if it is also redder than its paper (Ink.redder,
# YCrCb Cr; see vision.marks.BLEED_PAPER_MIN_CR). Corner marks and pips of 6 rendered tables a
# deck with the sensor's JPEG: black marks that measure red (Ink.red) went from 50 of 362 to
# 0 under a lamp whose blue is 0.45 of its red, and from 1 to 0 under warm and magenta casts;
# red marks taken for black from 3 to 14 of 423, 4 to 8 of 424 and 4 to 5 of 427 (`?` at worst,
# never another suit); in white light and on the real photos nothing changes (no redder).
REDDER_MIDPOINT = 3.0
REDDER_SOFTNESS = 0.75

GLYPH_SIZE = 32  # px: a mark is padded to a square and scaled to this before features
_HOG = cv2.HOGDescriptor((GLYPH_SIZE, GLYPH_SIZE), (16, 16), (8, 8), (8, 8), 9)
BITMAP_SIZE = 10  # coarse bitmap side added to HOG: keeps "6" and "9" apart (HOG is local)


class ModelMissingError(UserError):
    """The recogniser's model file is missing or unreadable."""


@dataclass(frozen=True)
class CornerReading:
    rank_p: np.ndarray  # probabilities over RANKS + (JUNK,)
    suit_p: np.ndarray  # probabilities over SUITS + (JUNK,)

    @property
    def rank(self) -> int:
        return int(np.argmax(self.rank_p))

    @property
    def suit(self) -> int:
        return int(np.argmax(self.suit_p))

    @property
    def confidence(self) -> float:
        return float(self.rank_p[self.rank] * self.suit_p[self.suit])

    @property
    def is_card(self) -> bool:
        return self.rank < len(RANKS) and self.suit < len(SUITS)


# --- features -----------------------------------------------------------------------------------

def glyph_features(mark: np.ndarray) -> np.ndarray:
    """Feature vector of one mark (grey ink strength, 0–255): HOG of the mark padded square,
    a coarse bitmap and shape ratios. Size and ink colour do not enter, only the shape."""
    ys, xs = np.nonzero(mark > MARK_EDGE)
    if len(xs) == 0:
        return np.zeros(FEATURE_DIM, np.float32)
    m = mark[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h, w = m.shape
    side = max(h, w)
    sq = np.zeros((side, side), np.uint8)
    oy, ox = (side - h) // 2, (side - w) // 2
    sq[oy:oy + h, ox:ox + w] = m
    pad = max(1, side // 12)
    sq = cv2.copyMakeBorder(sq, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    g = cv2.resize(sq, (GLYPH_SIZE, GLYPH_SIZE), interpolation=cv2.INTER_AREA)
    hog = _HOG.compute(g).ravel()
    bmp = cv2.resize(m, (BITMAP_SIZE, BITMAP_SIZE), interpolation=cv2.INTER_AREA).ravel() / 255.0
    n_parts = cv2.connectedComponents((m > 127).astype(np.uint8), connectivity=8)[0] - 1
    extra = np.array([np.log(h / w), float(m.mean() / 255.0), min(n_parts, 3) / 3.0], np.float32)
    return np.concatenate([hog, bmp.astype(np.float32), extra]).astype(np.float32)


FEATURE_DIM = _HOG.getDescriptorSize() + BITMAP_SIZE * BITMAP_SIZE + 3


# --- the model ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Net:
    """A one-hidden-layer perceptron with softmax output, trained by vision.train."""

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def __post_init__(self) -> None:
        # Fold the input standardisation into the first layer: one matrix product per call.
        w = (self.w1 / self.scale[:, None]).astype(np.float32)
        object.__setattr__(self, "_w1", w)
        object.__setattr__(self, "_b1", (self.b1 - (self.mean / self.scale) @ self.w1).astype(np.float32))

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        hdn = np.maximum(np.atleast_2d(x) @ self._w1 + self._b1, 0.0)  # type: ignore[attr-defined]
        o = hdn @ self.w2 + self.b2
        o = o - o.max(axis=1, keepdims=True)
        e = np.exp(o)
        return e / e.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class CornerModel:
    rank: Net
    suit: Net
    meta: Mapping[str, str] = field(default_factory=dict)

    def save(self, path: Path) -> None:
        arrays = {}
        for name, net in (("rank", self.rank), ("suit", self.suit)):
            for k in ("mean", "scale", "w1", "b1", "w2", "b2"):
                arrays[f"{name}_{k}"] = getattr(net, k).astype(np.float32)
        arrays["meta"] = np.array(repr(dict(self.meta)))
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            np.savez_compressed(f, **arrays)

    @classmethod
    def load(cls, path: Path) -> "CornerModel":
        try:
            z = np.load(path, allow_pickle=False)
            nets = {name: Net(*(z[f"{name}_{k}"] for k in ("mean", "scale", "w1", "b1", "w2", "b2")))
                    for name in ("rank", "suit")}
            meta = {"repr": str(z["meta"])}
        except (OSError, KeyError, ValueError) as exc:
            raise ModelMissingError(
                f"cannot load the card model {path}: {exc}; rebuild it with "
                "`python -m vision.train`") from None
        if nets["rank"].w1.shape[0] != FEATURE_DIM:
            raise ModelMissingError(
                f"card model {path} was trained for other features; retrain with "
                "`python -m vision.train`")
        return cls(nets["rank"], nets["suit"], meta)


@lru_cache(maxsize=4)
def _load_model(path: str) -> CornerModel:
    return CornerModel.load(Path(path))


def default_model() -> CornerModel:
    return _load_model(str(MODEL_PATH))


# --- the ink's colour ---------------------------------------------------------------------------

def colour_probabilities(ink: Ink) -> tuple[float, float]:
    """(red, black): how likely a mark of colour `ink` is red ink and black ink. A tinted mark
    (see TINT_MIDPOINT) is likely neither."""
    p_red = 1.0 / (1.0 + np.exp(-(ink.red - RED_MIDPOINT) / RED_SOFTNESS))
    if ink.redder is not None:
        p_red /= 1.0 + np.exp(-(ink.redder - REDDER_MIDPOINT) / REDDER_SOFTNESS)
    p_ink = 1.0 / (1.0 + np.exp(-(TINT_MIDPOINT - ink.tint) / TINT_SOFTNESS))
    return float(p_red * p_ink), float((1.0 - p_red) * p_ink)


def gate_by_colour(suit_p: np.ndarray, ink: Ink) -> np.ndarray:
    """Suit probabilities given the ink colour. What the colour rules out goes to "not a
    suit", not to the other suits: a black heart-shaped mark is no card suit at all (an
    upside-down spade pip, a stain), nor an orange one (a court's picture), and must not become
    a confident spade or heart."""
    p_red, p_black = colour_probabilities(ink)
    colour = np.array([p_red if s in RED_SUITS else p_black for s in SUITS] + [1.0])
    gated = suit_p * colour
    gated[len(SUITS)] += float(suit_p.sum() - gated.sum())
    return gated
