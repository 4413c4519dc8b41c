"""Rendering a game as a stream of camera frames, fast enough for the demo (30 fps).

`vision.render.Renderer.render` draws a whole scene from scratch (hundreds of milliseconds at
the canvas resolution that keeps card art sharp). A game changes a few zones a second and
otherwise only hands move, so `FrameStream` keeps the drawn table and its camera image and
redraws only what changed: a zone whose pile changed is redrawn on the table canvas and only
its patch of the frame is re-warped; hands are drawn onto a copy of the patch of table under
them. Light and glare are baked into the cached image, and `relight` bakes them anew when the
light changes (a lamp switched on, a cloud); sensor noise, blur and JPEG artefacts are applied
to every frame, so no two frames are identical.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import cv2
import numpy as np

from calibration.layout import CARD_H_MM, Rect
from referee.zones import ALL_ZONES, EMPTY
from vision.render import (BACK, CANVAS_PX_PER_MM, LAYER_STEP_MM, MAX_LAYERS_DRAWN,
                           OCCLUDED_MIN_FRACTION, CameraPose, Hand, Look, PlacedCard, Renderer,
                           _draw_hand, _shade_hands, camera_homography, glare_field, light_field)

# How far a pile's cards may reach past its zone: a card turned 30° and shifted 9 mm (the
# spit pile scatter of vision.render.spit_pile) stays within this margin.
PILE_REACH_MM = 26.0
# Sensor noise fields are drawn once and cycled: fresh noise every frame, without the cost
# of drawing 2.7 million normal samples per frame.
NOISE_FIELDS = 6
# Hands are drawn on a coarse grid of the table (pixels per mm): a forearm needs no detail.
HAND_MASK_PX_PER_MM = 1.0


@dataclass(frozen=True)
class StreamFrame:
    frame: np.ndarray  # BGR uint8, the camera image
    readings: dict[str, str]  # the top of each zone, occlusion aside
    occluded: frozenset[str]  # zones a hand covers


class FrameStream:
    """Frames of one table seen by one fixed camera, drawn incrementally."""

    def __init__(self, renderer: Renderer, deck: str, back: str, *, camera: CameraPose,
                 look: Look, mat_bgr: tuple[int, int, int], table_seed: int = 0,
                 noise_seed: int = 0) -> None:
        self.r = renderer
        self.deck, self.back, self.look = deck, back, look
        self.layout = renderer.layout
        self.size = renderer.size
        self.table_to_frame = camera_homography(camera, self.layout, self.size)
        self._canvas_to_frame = self.table_to_frame @ np.linalg.inv(renderer._to_canvas())
        self._background = renderer.background(mat_bgr, table_seed)
        self._canvas = self._background.copy()
        self._piles: dict[str, tuple[PlacedCard, ...]] = {z: () for z in ALL_ZONES}
        w, h = self.size
        self._gain = light_field(look, w, h)
        self._glare = glare_field(look, w, h)
        self._plain = self._warp(0, 0, w, h)  # the table as the camera sees it, unlit
        self._base = self._lit(self._plain, 0, 0)
        self._px_per_mm = self._frame_px_per_mm()  # the camera is fixed for the stream
        rng = np.random.default_rng(noise_seed)
        sigma = max(0.0, look.noise_sigma)
        self._noise = []  # (add, subtract) pairs of uint8 fields: two saturating passes a frame
        for _ in range(NOISE_FIELDS if sigma > 0 else 0):
            n = np.clip(np.rint(rng.standard_normal((h, w, 3), dtype=np.float32) * sigma),
                        -255, 255)
            self._noise.append((np.maximum(n, 0).astype(np.uint8),
                                np.maximum(-n, 0).astype(np.uint8)))
        self._count = 0

    # --- table canvas -------------------------------------------------------------------------

    def _canvas_box(self, rect: Rect, margin_mm: float) -> tuple[int, int, int, int]:
        x0, y0 = self.r._px(rect.x - margin_mm, rect.y - margin_mm)
        x1, y1 = self.r._px(rect.x + rect.w + margin_mm, rect.y + rect.h + margin_mm)
        ch, cw = self._canvas.shape[:2]
        return (max(0, int(x0)), max(0, int(y0)), min(cw, int(math.ceil(x1))),
                min(ch, int(math.ceil(y1))))

    def _redraw(self, box: tuple[int, int, int, int]) -> None:
        """Draw the canvas inside `box` anew: background, then every pile that reaches it."""
        x0, y0, x1, y1 = box
        view = self._canvas[y0:y1, x0:x1]
        view[:] = self._background[y0:y1, x0:x1]
        k = CANVAS_PX_PER_MM
        # A zone rectangle moved by the view's offset makes the renderer's table→canvas mapping
        # land in the view (the renderer paste clips to the array it is given).
        dx_mm, dy_mm = x0 / k, y0 / k
        for zone in ALL_ZONES:
            rect = self.layout.zones[zone]
            zx0, zy0, zx1, zy1 = self._canvas_box(rect, PILE_REACH_MM)
            if zx1 <= x0 or zx0 >= x1 or zy1 <= y0 or zy0 >= y1:
                continue
            shifted = Rect(rect.x - dx_mm, rect.y - dy_mm, rect.w, rect.h)
            shown = self._piles[zone][-MAX_LAYERS_DRAWN:]
            for i, card in enumerate(shown):
                layer = len(shown) - 1 - i
                placed = PlacedCard(card.face, card.dx_mm + LAYER_STEP_MM[0] * layer,
                                    card.dy_mm + LAYER_STEP_MM[1] * layer, card.angle_deg)
                cx, cy = self.r._px(shifted.center[0] + placed.dx_mm,
                                    shifted.center[1] + placed.dy_mm)
                art = (self.r.back_image(self.back) if card.face == BACK
                       else self.r.card_image(self.deck, card.face))
                # The reach of the card and its shadow, as the renderer's paste measures it.
                h_art, w_art = art.shape[:2]
                reach = 0.5 * math.hypot(w_art, h_art) * CARD_H_MM * k / h_art + 4 * k
                if (int(cx + reach) + 1 <= 0 or int(cx - reach) >= view.shape[1]
                        or int(cy + reach) + 1 <= 0 or int(cy - reach) >= view.shape[0]):
                    continue  # this card lies wholly outside the patch being redrawn
                self.r._paste_card(view, art, shifted, placed)

    # --- camera image -------------------------------------------------------------------------

    def _frame_box(self, box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = box
        pts = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).reshape(-1, 1, 2)
        fp = cv2.perspectiveTransform(pts, self._canvas_to_frame).reshape(-1, 2)
        w, h = self.size
        fx0, fy0 = np.floor(fp.min(axis=0)).astype(int) - 2
        fx1, fy1 = np.ceil(fp.max(axis=0)).astype(int) + 2
        return max(0, fx0), max(0, fy0), min(w, fx1), min(h, fy1)

    def _warp(self, fx0: int, fy0: int, fx1: int, fy1: int) -> np.ndarray:
        """The frame patch (fx0..fx1, fy0..fy1), unlit: the canvas seen by the camera."""
        shift = np.array([[1, 0, -fx0], [0, 1, -fy0], [0, 0, 1]], dtype=float)
        return cv2.warpPerspective(self._canvas, shift @ self._canvas_to_frame,
                                   (fx1 - fx0, fy1 - fy0), flags=cv2.INTER_AREA,
                                   borderMode=cv2.BORDER_REPLICATE)

    def _lit(self, patch: np.ndarray, fx0: int, fy0: int) -> np.ndarray:
        """`patch` (at fx0, fy0 of the frame) under the light and glare."""
        fy1, fx1 = fy0 + patch.shape[0], fx0 + patch.shape[1]
        lit = patch.astype(np.float32) * self._gain[fy0:fy1, fx0:fx1]
        if self._glare is not None:
            lit += self._glare[fy0:fy1, fx0:fx1]
        return np.clip(lit, 0, 255).astype(np.uint8)

    def relight(self, look: Look) -> None:
        """The light changes (a lamp switched on, a cloud, someone standing in the light): the
        light's gain, gradient and colour and the glare are taken from `look` from the next
        frame on; the camera and its sensor stay as they are."""
        self.look = replace(look, blur_sigma=self.look.blur_sigma,
                            noise_sigma=self.look.noise_sigma,
                            jpeg_quality=self.look.jpeg_quality)
        w, h = self.size
        self._gain = light_field(self.look, w, h)
        self._glare = glare_field(self.look, w, h)
        self._base = self._lit(self._plain, 0, 0)

    # --- frames -------------------------------------------------------------------------------

    def frame(self, piles: Mapping[str, Sequence[PlacedCard]],
              hands: Sequence[Hand] = ()) -> StreamFrame:
        """The next camera frame showing `piles` (zone → cards, bottom first) and `hands`."""
        for zone in ALL_ZONES:
            pile = tuple(piles.get(zone, ()))
            if pile != self._piles[zone]:
                self._piles[zone] = pile
                box = self._canvas_box(self.layout.zones[zone], PILE_REACH_MM)
                self._redraw(box)
                fx0, fy0, fx1, fy1 = self._frame_box(box)
                self._plain[fy0:fy1, fx0:fx1] = self._warp(fx0, fy0, fx1, fy1)
                self._base[fy0:fy1, fx0:fx1] = self._lit(self._plain[fy0:fy1, fx0:fx1], fx0, fy0)
        out = self._base.copy()
        occluded = self._draw_hands(out, hands) if hands else frozenset()
        out = self._sensor(out)
        readings = {z: (self._piles[z][-1].face if self._piles[z] else EMPTY) for z in ALL_ZONES}
        return StreamFrame(out, readings, occluded)

    def _draw_hands(self, out: np.ndarray, hands: Sequence[Hand]) -> frozenset[str]:
        """Hands are drawn as a mask on a coarse table grid, carried into the frame by the
        camera homography and shaded there: a hand has no fine detail worth the canvas
        resolution, and its forearm spans half the table."""
        space = _MaskSpace(self.r._origin, HAND_MASK_PX_PER_MM)
        ch = int(self._canvas.shape[0] / CANVAS_PX_PER_MM * HAND_MASK_PX_PER_MM)
        cw = int(self._canvas.shape[1] / CANVAS_PX_PER_MM * HAND_MASK_PX_PER_MM)
        mask = np.zeros((ch, cw), np.uint8)
        for hand in hands:
            _draw_hand(mask, hand, space)
        scale = np.diag([CANVAS_PX_PER_MM / HAND_MASK_PX_PER_MM] * 2 + [1.0])
        frame_mask = cv2.warpPerspective(mask, self._canvas_to_frame @ scale, self.size,
                                         flags=cv2.INTER_LINEAR)
        ys, xs = np.nonzero(frame_mask[::4, ::4])
        if len(xs) == 0:
            return frozenset()
        w, h = self.size
        k = self._px_per_mm
        pad = int(45 * k)  # the hand's soft shadow reaches this far
        x0, y0 = max(0, xs.min() * 4 - pad), max(0, ys.min() * 4 - pad)
        x1, y1 = min(w, xs.max() * 4 + pad + 4), min(h, ys.max() * 4 + pad + 4)
        # The hand is above the table, in the same light (its gain at the frame's centre).
        light = self.look.light_gain * np.array(self.look.light_colour, np.float32)
        _shade_hands(out[y0:y1, x0:x1], frame_mask[y0:y1, x0:x1], hands, k, light)
        occluded = set()
        for zone in ALL_ZONES:
            r = self.layout.zones[zone]
            zx0, zy0 = space._px(r.x, r.y)
            zx1, zy1 = space._px(r.x + r.w, r.y + r.h)
            cut = mask[int(zy0):int(math.ceil(zy1)), int(zx0):int(math.ceil(zx1))]
            if np.count_nonzero(cut) >= OCCLUDED_MIN_FRACTION * cut.size:
                occluded.add(zone)
        return frozenset(occluded)

    def _frame_px_per_mm(self) -> float:
        """The camera's scale at the mat's centre (frame pixels per table millimetre)."""
        cx, cy = self.layout.width_mm / 2, self.layout.height_mm / 2
        pts = np.float32([[cx, cy], [cx + 10, cy]]).reshape(-1, 1, 2)
        a, b = cv2.perspectiveTransform(pts, self.table_to_frame).reshape(-1, 2)
        return float(np.hypot(*(b - a)) / 10)

    def _sensor(self, img: np.ndarray) -> np.ndarray:
        look = self.look
        if look.blur_sigma > 0:
            img = cv2.GaussianBlur(img, (0, 0), look.blur_sigma)
        if self._noise:
            plus, minus = self._noise[self._count % len(self._noise)]
            img = cv2.subtract(cv2.add(img, plus), minus)
        self._count += 1
        if look.jpeg_quality is not None:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(look.jpeg_quality)])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return img


class _MaskSpace:
    """The table→grid mapping `vision.render._draw_hand` draws with (`_px`, `_k`)."""

    def __init__(self, origin: tuple[float, float], k: float) -> None:
        self._origin, self._k = origin, k

    def _px(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        return ((x_mm - self._origin[0]) * self._k, (y_mm - self._origin[1]) * self._k)
