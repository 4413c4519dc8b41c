"""The scene renderer: camera frames of a Spit table with their ground truth, for tests,
benchmarks and the demo.

A scene is drawn on the table plane (table millimetres, calibration/layout.py) at
`CANVAS_PX_PER_MM`: a wooden table, the play mat with its ArUco markers and zone outlines, the
piles (every card at its own offset and rotation, the top card overlapping the ones below,
a few millimetres of pile thickness), and hand-shaped occluders reaching in from the players'
sides. A pinhole camera (`CameraPose`) maps the table plane to a 1280×720 frame by a
homography; then the lens and sensor: uneven light, glare, blur, noise, JPEG artefacts.

`Renderer.render(scene)` returns `(frame_bgr, Truth)`: the reading of every zone, which zones a
hand covers, and the true homography. Placing a card is the caller's choice (`PlacedCard`);
`random_scene` draws plausible game tables for tests and benchmarks.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

import cv2
import numpy as np

from calibration.layout import CARD_H_MM, Layout, Rect, default_layout
from referee.cards import DECK
from referee.errors import UserError
from referee.zones import ALL_ZONES, BACK, EMPTY, SPIT_PILES, STOCK_ZONES

FRAME_SIZE = (1280, 720)
CANVAS_PX_PER_MM = 2.5  # the frame shows the mat at ~1.6 px/mm: 2.5 keeps card art sharp
TABLE_MARGIN_MM = 260.0  # table drawn around the mat: enough for every pose random_pose makes
LAYER_STEP_MM = (0.12, 0.2)  # how far each card under the top shows: the pile's thickness
MAX_LAYERS_DRAWN = 8  # deeper cards are hidden under these; drawing them changes nothing
OCCLUDED_MIN_FRACTION = 0.002  # a hand over this much of a zone counts as covering it

PACKAGE_DECKS = Path(__file__).resolve().parent / "decks"
SHIPPED_DECK = "openclipart-simple"
SHIPPED_BACK = "pysol-standard-back111"

SKIN_TONES_BGR: tuple[tuple[int, int, int], ...] = (
    (170, 200, 240), (140, 175, 225), (110, 150, 205), (80, 115, 170), (55, 80, 120),
    (40, 55, 85),
)
MAT_COLOURS_BGR: tuple[tuple[int, int, int], ...] = (
    (60, 110, 40), (110, 70, 30), (50, 50, 120), (70, 70, 70), (40, 90, 90), (120, 100, 80),
)
# Light of another colour than the camera's white balance (Look.light_colour, B, G, R gains):
# a camera balanced for daylight under a household lamp sees it warm; a cool-white LED panel,
# or a balance set under a lamp and then the daylight, sees it cool; fluorescent tubes lean
# green, some LED strips magenta.
LIGHTS: dict[str, tuple[float, float, float]] = {
    "white": (1.0, 1.0, 1.0),
    "warm": (0.62, 0.85, 1.0),
    "very-warm": (0.45, 0.75, 1.0),
    "cool": (1.0, 0.9, 0.7),
    "very-cool": (1.0, 0.8, 0.55),
    "green": (0.8, 1.0, 0.8),
    "magenta": (1.0, 0.8, 1.0),
}


class RenderError(UserError):
    """A scene that cannot be drawn: a deck or back image missing, an unknown card."""


@dataclass(frozen=True)
class PlacedCard:
    """One card on a pile: `face` is a card code or `back`; its centre sits `dx_mm, dy_mm`
    from the zone's centre, turned `angle_deg` (positive = counter-clockwise on screen)."""

    face: str
    dx_mm: float = 0.0
    dy_mm: float = 0.0
    angle_deg: float = 0.0


@dataclass(frozen=True)
class Hand:
    """A hand reaching from player `side`'s edge of the table to (x_mm, y_mm) on the table."""

    x_mm: float
    y_mm: float
    side: str = "p1"
    angle_deg: float = 0.0  # turn of the hand away from pointing straight across the table
    tone: int = 0  # index into SKIN_TONES_BGR
    scale: float = 1.0


@dataclass(frozen=True)
class CameraPose:
    """A pinhole camera looking at the mat's centre: tilted away from straight down, turned
    about the vertical, rolled about its axis; `fill` is the share of the frame the mat spans."""

    tilt_deg: float = 0.0
    yaw_deg: float = 0.0
    roll_deg: float = 0.0
    fill: float = 0.94
    shift_px: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Look:
    """Light, lens and sensor."""

    light_gain: float = 1.0
    light_gradient: tuple[float, float] = (0.0, 0.0)  # relative change across the frame (x, y)
    glare: tuple[float, float, float, float] | None = None  # x_px, y_px, sigma_px, strength 0..255
    # The light's colour against the camera's white balance: B, G, R gains (LIGHTS names some).
    # It tints everything the light falls on, glare too (glare is the lamp seen in the cards).
    light_colour: tuple[float, float, float] = (1.0, 1.0, 1.0)
    blur_sigma: float = 0.6
    noise_sigma: float = 2.0
    jpeg_quality: int | None = 90


@dataclass(frozen=True)
class Scene:
    piles: Mapping[str, tuple[PlacedCard, ...]]
    deck: str = SHIPPED_DECK
    back: str = SHIPPED_BACK
    hands: tuple[Hand, ...] = ()
    camera: CameraPose = CameraPose()
    look: Look = Look()
    mat_bgr: tuple[int, int, int] = MAT_COLOURS_BGR[0]
    table_seed: int = 0
    noise_seed: int = 0


@dataclass(frozen=True)
class Truth:
    readings: dict[str, str]  # what an ideal reader says for each zone, occlusion aside
    occluded: frozenset[str]  # zones a hand covers (at least OCCLUDED_MIN_FRACTION of them)
    occlusion: dict[str, float]  # share of each zone's rectangle under a hand
    table_to_frame: np.ndarray = field(repr=False)  # 3×3, table mm → frame px
    frame_to_table: np.ndarray = field(repr=False)  # its inverse

    def expected(self, zone: str) -> str:
        """The reading a reader must give, or `?` where a hand covers the zone."""
        return "?" if zone in self.occluded else self.readings[zone]


# --- camera -----------------------------------------------------------------------------------

def _rotation(tilt: float, yaw: float, roll: float) -> np.ndarray:
    t, y, r = (math.radians(a) for a in (tilt, yaw, roll))
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    rz_yaw = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    rz_roll = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    return rz_roll @ rx @ rz_yaw


def camera_homography(pose: CameraPose, layout: Layout | None = None,
                      size: tuple[int, int] = FRAME_SIZE) -> np.ndarray:
    """The homography table mm → frame px of a pinhole camera in `pose` over the mat.

    World axes: x right, y down the mat (toward p1), z into the table; the camera sits on the
    line through the mat's centre along its optical axis. The distance cancels out of a
    plane-to-image homography once the focal length is chosen to make the mat span `fill`.
    """
    layout = layout or default_layout()
    w, h = size
    rot = _rotation(pose.tilt_deg, pose.yaw_deg, pose.roll_deg)
    target = np.array([layout.width_mm / 2, layout.height_mm / 2, 0.0])
    distance = 1000.0
    centre = target - distance * rot.T @ np.array([0.0, 0.0, 1.0])
    t = -rot @ centre
    base = np.column_stack([rot[:, 0], rot[:, 1], t])  # [r1 r2 t]: the plane z=0
    corners = np.array([[0, 0, 1], [layout.width_mm, 0, 1], [layout.width_mm, layout.height_mm, 1],
                        [0, layout.height_mm, 1]], dtype=float).T
    proj = base @ corners
    if np.any(proj[2] <= 0):
        raise RenderError(f"camera pose {pose} does not see the whole mat")
    xy = proj[:2] / proj[2]
    span = xy.max(axis=1) - xy.min(axis=1)
    f = min(pose.fill * w / span[0], pose.fill * h / span[1])
    mid = (xy.max(axis=1) + xy.min(axis=1)) / 2
    k = np.array([[f, 0, w / 2 - f * mid[0] + pose.shift_px[0]],
                  [0, f, h / 2 - f * mid[1] + pose.shift_px[1]],
                  [0, 0, 1]])
    hom = k @ base
    return hom / hom[2, 2]


# --- artwork ----------------------------------------------------------------------------------

@lru_cache(maxsize=1024)
def _load_rgba(path: str) -> np.ndarray:
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise RenderError(f"cannot read card image {path}: check the deck folder")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return img


def _marker_image(dictionary_name: str, marker_id: int, side_px: int) -> np.ndarray:
    aruco = cv2.aruco
    dictionary = aruco.getPredefinedDictionary(getattr(aruco, dictionary_name))
    if hasattr(aruco, "generateImageMarker"):
        return aruco.generateImageMarker(dictionary, marker_id, side_px)
    return aruco.drawMarker(dictionary, marker_id, side_px)  # OpenCV 4.6


@lru_cache(maxsize=8)
def _wood(h: int, w: int, seed: int) -> np.ndarray:
    """A wood-grain table top, drawn at a quarter of the size and scaled up: grain is soft."""
    rng = np.random.default_rng(seed)
    sh, sw = max(2, h // 4), max(2, w // 4)
    y = np.linspace(0, 1, sh, dtype=np.float32)[:, None]
    x = np.linspace(0, 1, sw, dtype=np.float32)[None, :]
    low = cv2.resize(rng.random((8, 24), dtype=np.float32), (sw, sh), interpolation=cv2.INTER_CUBIC)
    grain = np.sin((y * rng.uniform(60, 120) + low * 6 + x * 0.7) * math.pi * 2) * 0.5 + 0.5
    fine = cv2.resize(rng.random((sh // 6 + 1, sw // 40 + 1), dtype=np.float32), (sw, sh))
    tone = 0.75 + 0.15 * grain + 0.1 * fine
    base = np.array(rng.choice([(60, 105, 160), (40, 75, 120), (90, 140, 185), (50, 60, 80)]),
                    dtype=np.float32)
    small = np.clip(tone[..., None] * base, 0, 255).astype(np.uint8)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


# --- the renderer -----------------------------------------------------------------------------

class Renderer:
    """Draws `Scene`s. Card art comes from `decks_dir/<deck>/<code>.png` and backs from
    `backs_dir/<back>.png`; by default the deck and back shipped in vision/decks."""

    def __init__(self, decks_dir: Path | str | None = None, backs_dir: Path | str | None = None,
                 layout: Layout | None = None, size: tuple[int, int] = FRAME_SIZE) -> None:
        self.decks_dir = Path(decks_dir) if decks_dir else PACKAGE_DECKS
        self.backs_dir = Path(backs_dir) if backs_dir else PACKAGE_DECKS / "backs"
        self.layout = layout or default_layout()
        self.size = size
        self._k = CANVAS_PX_PER_MM
        self._origin = (-TABLE_MARGIN_MM, -TABLE_MARGIN_MM)
        self._canvas_w = int((self.layout.width_mm + 2 * TABLE_MARGIN_MM) * self._k)
        self._canvas_h = int((self.layout.height_mm + 2 * TABLE_MARGIN_MM) * self._k)
        self._background: dict[tuple, np.ndarray] = {}

    # table mm ↔ canvas px
    def _to_canvas(self) -> np.ndarray:
        k, (ox, oy) = self._k, self._origin
        return np.array([[k, 0, -ox * k], [0, k, -oy * k], [0, 0, 1]], dtype=float)

    def _px(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        return ((x_mm - self._origin[0]) * self._k, (y_mm - self._origin[1]) * self._k)

    def card_image(self, deck: str, face: str) -> np.ndarray:
        if face == BACK:
            raise RenderError("use back_image for a face-down card")
        path = self.decks_dir / deck / f"{face}.png"
        if not path.is_file():
            raise RenderError(f"no artwork {path}: deck {deck!r} lacks card {face!r}")
        return _load_rgba(str(path))

    def back_image(self, back: str) -> np.ndarray:
        path = self.backs_dir / f"{back}.png"
        if not path.is_file():
            raise RenderError(f"no card back {path}")
        return _load_rgba(str(path))

    def background(self, mat_bgr: tuple[int, int, int], table_seed: int) -> np.ndarray:
        """The table and the empty mat (cached: it is the same for every frame of a game)."""
        key = (tuple(mat_bgr), table_seed)
        if key not in self._background:
            if len(self._background) > 8:
                self._background.clear()
            self._background[key] = self._draw_background(mat_bgr, table_seed)
        return self._background[key]

    def _draw_background(self, mat_bgr: tuple[int, int, int], table_seed: int) -> np.ndarray:
        canvas = _wood(self._canvas_h, self._canvas_w, table_seed).copy()
        lay, k = self.layout, self._k
        x0, y0 = (int(round(v)) for v in self._px(0, 0))
        x1, y1 = (int(round(v)) for v in self._px(lay.width_mm, lay.height_mm))
        rng = np.random.default_rng(table_seed + 1)
        grain = rng.standard_normal((y1 - y0, x1 - x0), dtype=np.float32)
        felt = np.array(mat_bgr, np.float32) * (1 + 0.04 * grain)[..., None]
        canvas[y0:y1, x0:x1] = cv2.convertScaleAbs(felt)
        line = tuple(int(min(255, c * 0.6 + 90)) for c in mat_bgr)
        for name in ALL_ZONES:
            r = lay.zones[name]
            p0 = tuple(int(round(v)) for v in self._px(r.x, r.y))
            p1 = tuple(int(round(v)) for v in self._px(r.x + r.w, r.y + r.h))
            cv2.rectangle(canvas, p0, p1, line, max(1, int(k * 0.8)), cv2.LINE_AA)
        for m in lay.markers:
            quiet = 4.0  # mm of white around the marker, as printed
            q0 = tuple(int(round(v)) for v in self._px(m.x - quiet, m.y - quiet))
            q1 = tuple(int(round(v)) for v in self._px(m.x + m.size + quiet, m.y + m.size + quiet))
            cv2.rectangle(canvas, q0, q1, (235, 235, 235), -1)
            side = int(round(m.size * k))
            img = _marker_image(lay.aruco_dictionary, m.id, side)
            mx, my = (int(round(v)) for v in self._px(m.x, m.y))
            canvas[my:my + side, mx:mx + side] = (img[..., None] * (225 / 255.0) + 10).astype(np.uint8)
        return canvas

    def _paste_card(self, canvas: np.ndarray, art: np.ndarray, zone: Rect, card: PlacedCard) -> None:
        k = self._k
        h_art, w_art = art.shape[:2]
        scale = CARD_H_MM * k / h_art
        cx, cy = self._px(zone.center[0] + card.dx_mm, zone.center[1] + card.dy_mm)
        m = cv2.getRotationMatrix2D((w_art / 2, h_art / 2), card.angle_deg, scale)
        m[0, 2] += cx - w_art / 2
        m[1, 2] += cy - h_art / 2
        half = 0.5 * math.hypot(w_art, h_art) * scale + 4 * k
        x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
        x1 = min(canvas.shape[1], int(cx + half) + 1)
        y1 = min(canvas.shape[0], int(cy + half) + 1)
        m[0, 2] -= x0
        m[1, 2] -= y0
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpAffine(art, m, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_CONSTANT,
                                borderValue=(0, 0, 0, 0))
        alpha = warped[..., 3:4].astype(np.float32) / 255.0
        roi = canvas[y0:y1, x0:x1].astype(np.float32)
        # A soft shadow down and to the right: cards lie on the table, lit from above-left.
        shadow = cv2.GaussianBlur(alpha, (0, 0), 1.2 * k)
        shift = np.float32([[1, 0, 0.8 * k], [0, 1, 1.2 * k]])
        shadow = cv2.warpAffine(shadow, shift, size)[..., None]
        roi *= 1 - 0.35 * shadow
        roi = roi * (1 - alpha) + warped[..., :3].astype(np.float32) * alpha
        canvas[y0:y1, x0:x1] = roi.astype(np.uint8)

    def card_corners_mm(self, deck: str, zone: str, card: PlacedCard) -> np.ndarray:
        """The four corners (4×2, table mm) of face-up `card` as `render` pastes it on top of
        `zone`'s pile: the outline a perfect card finder would return (training, diagnostics)."""
        art = self.card_image(deck, card.face)
        h_art, w_art = art.shape[:2]
        ys, xs = np.nonzero(art[..., 3] > 127)
        s = CARD_H_MM / h_art
        cx, cy = self.layout.zones[zone].center
        cx, cy = cx + card.dx_mm, cy + card.dy_mm
        # cv2.getRotationMatrix2D's turn (counter-clockwise on screen for a positive angle).
        a = math.radians(card.angle_deg)
        ca, sa = math.cos(a), math.sin(a)
        out = []
        for u, v in ((xs.min(), ys.min()), (xs.max() + 1, ys.min()),
                     (xs.max() + 1, ys.max() + 1), (xs.min(), ys.max() + 1)):
            u, v = (u - w_art / 2) * s, (v - h_art / 2) * s
            out.append((cx + ca * u + sa * v, cy - sa * u + ca * v))
        return np.array(out)

    def _hand_mask(self, hands: Sequence[Hand]) -> np.ndarray | None:
        if not hands:
            return None
        mask = np.zeros((self._canvas_h, self._canvas_w), np.uint8)
        for hand in hands:
            _draw_hand(mask, hand, self)
        return mask

    def render(self, scene: Scene) -> tuple[np.ndarray, Truth]:
        """One camera frame of `scene` (BGR, uint8, `size`) and its ground truth."""
        canvas = self.background(scene.mat_bgr, scene.table_seed).copy()
        readings: dict[str, str] = {}
        for zone in ALL_ZONES:
            pile = tuple(scene.piles.get(zone, ()))
            readings[zone] = pile[-1].face if pile else EMPTY
            rect = self.layout.zones[zone]
            shown = pile[-MAX_LAYERS_DRAWN:]
            depth = len(shown)
            for i, card in enumerate(shown):
                layer = depth - 1 - i  # 0 = top
                placed = PlacedCard(card.face, card.dx_mm + LAYER_STEP_MM[0] * layer,
                                    card.dy_mm + LAYER_STEP_MM[1] * layer, card.angle_deg)
                art = (self.back_image(scene.back) if card.face == BACK
                       else self.card_image(scene.deck, card.face))
                self._paste_card(canvas, art, rect, placed)
        mask = self._hand_mask(scene.hands)
        occlusion = {z: 0.0 for z in ALL_ZONES}
        if mask is not None:
            _shade_hands(canvas, mask, scene.hands, self._k)
            for zone in ALL_ZONES:
                r = self.layout.zones[zone]
                x0, y0 = (int(round(v)) for v in self._px(r.x, r.y))
                x1, y1 = (int(round(v)) for v in self._px(r.x + r.w, r.y + r.h))
                occlusion[zone] = float(np.count_nonzero(mask[y0:y1, x0:x1])) / ((y1 - y0) * (x1 - x0))
        table_to_frame = camera_homography(scene.camera, self.layout, self.size)
        canvas_to_frame = table_to_frame @ np.linalg.inv(self._to_canvas())
        frame = cv2.warpPerspective(canvas, canvas_to_frame, self.size, flags=cv2.INTER_AREA,
                                    borderMode=cv2.BORDER_REPLICATE)
        frame = _camera_effects(frame, scene.look, scene.noise_seed)
        occluded = frozenset(z for z, f in occlusion.items() if f >= OCCLUDED_MIN_FRACTION)
        return frame, Truth(readings, occluded, occlusion, table_to_frame,
                            np.linalg.inv(table_to_frame))


# --- hands ------------------------------------------------------------------------------------

def _draw_hand(mask: np.ndarray, hand: Hand, r: Renderer) -> None:
    """A palm, four fingers and a thumb at (x_mm, y_mm), and the forearm back to the player's
    edge of the table: the shape that crosses the mat's border, as a real arm does."""
    toward = -1.0 if hand.side == "p1" else 1.0  # p1 reaches up the mat (−y), p2 down
    a = math.radians(hand.angle_deg)
    # Unit vector along the hand, from the wrist to the fingertips.
    ux, uy = math.sin(a) * -toward, toward * math.cos(a)
    nx, ny = -uy, ux
    s = hand.scale
    k = r._k

    def pt(along: float, across: float) -> tuple[int, int]:
        x = hand.x_mm + ux * along + nx * across
        y = hand.y_mm + uy * along + ny * across
        px, py = r._px(x, y)
        return int(round(px)), int(round(py))

    def capsule(p: tuple[int, int], q: tuple[int, int], width_mm: float) -> None:
        cv2.line(mask, p, q, 255, max(1, int(round(width_mm * s * k))), cv2.LINE_AA)

    angle = math.degrees(math.atan2(uy, ux))
    cv2.ellipse(mask, pt(0, 0), (int(48 * s * k), int(42 * s * k)), angle, 0, 360, 255, -1,
                cv2.LINE_AA)
    for i, (across, length) in enumerate(((-27, 62), (-9, 75), (9, 72), (26, 58))):
        capsule(pt(35 * s, across * s), pt((35 + length) * s, across * s * 1.15), 17 - i * 0.8)
    capsule(pt(0, 38 * s), pt(45 * s, 62 * s), 20)
    # Forearm: from the wrist back past the table's edge, where the player sits.
    capsule(pt(-30 * s, 0), pt(-700 * s, 0), 62)


def _shade_hands(canvas: np.ndarray, mask: np.ndarray, hands: Sequence[Hand], k: float,
                 light: Sequence[float] = (1.0, 1.0, 1.0)) -> None:
    """Hands (`mask`) drawn onto `canvas`, their skin in `light` (B, G, R gains; white when
    the light is applied to the whole frame afterwards, as `Renderer.render` does)."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return
    pad = int(40 * k)  # room for the soft shadow
    x0, y0 = max(0, xs.min() - pad), max(0, ys.min() - pad)
    x1, y1 = min(mask.shape[1], xs.max() + pad + 1), min(mask.shape[0], ys.max() + pad + 1)
    m = mask[y0:y1, x0:x1]
    roi = canvas[y0:y1, x0:x1]
    tone = np.array(SKIN_TONES_BGR[hands[0].tone % len(SKIN_TONES_BGR)], np.float32) \
        * np.array(light, np.float32)
    soft = cv2.GaussianBlur(m, (0, 0), 0.8 * k).astype(np.float32)[..., None] / 255.0
    # A hand above the table casts a soft shadow offset from it (blurred at quarter size).
    small = cv2.resize(m, (max(1, m.shape[1] // 4), max(1, m.shape[0] // 4)),
                       interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 1.5 * k)
    small = cv2.warpAffine(small, np.float32([[1, 0, 2 * k], [0, 1, 3 * k]]),
                           (small.shape[1], small.shape[0]))
    shadow = cv2.resize(small, (m.shape[1], m.shape[0])).astype(np.float32)[..., None] / 255.0
    # Shading: the hand's rounded surface is darker toward its edges.
    dist = cv2.distanceTransform((m > 127).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.7 + 0.3 * np.clip(dist / (10 * k), 0, 1)[..., None]
    out = roi.astype(np.float32) * (1 - 0.4 * shadow)
    out = out * (1 - soft) + tone * shade * soft
    roi[:] = np.clip(out, 0, 255).astype(np.uint8)


# --- lens and sensor --------------------------------------------------------------------------

def light_field(look: Look, w: int, h: int) -> np.ndarray:
    """The light's gain at each pixel of a w × h frame, per channel (h, w, 3; float32): its
    gain, its gradient across the frame, its colour."""
    gx, gy = look.light_gradient
    gain = look.light_gain * (1 + gx * np.linspace(-0.5, 0.5, w, dtype=np.float32)[None, :]
                              + gy * np.linspace(-0.5, 0.5, h, dtype=np.float32)[:, None])
    return gain[..., None].astype(np.float32) * np.array(look.light_colour, np.float32)


def glare_field(look: Look, w: int, h: int) -> np.ndarray | None:
    """The glare added at each pixel (h, w, 3; float32; grey levels), of the light's colour,
    or None without glare."""
    if look.glare is None:
        return None
    x, y, sigma, strength = look.glare
    xs = (np.arange(w, dtype=np.float32) - x) ** 2
    ys = (np.arange(h, dtype=np.float32) - y) ** 2
    return (strength * np.exp(-(ys[:, None] + xs[None, :]) / (2 * sigma * sigma)))[..., None] \
        .astype(np.float32) * np.array(look.light_colour, np.float32)


def _camera_effects(frame: np.ndarray, look: Look, seed: int) -> np.ndarray:
    h, w = frame.shape[:2]
    rng = np.random.default_rng(seed)
    img = frame.astype(np.float32)
    img *= light_field(look, w, h)
    glare = glare_field(look, w, h)
    if glare is not None:
        img += glare
    if look.blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), look.blur_sigma)
    if look.noise_sigma > 0:
        img += rng.standard_normal(img.shape, dtype=np.float32) * look.noise_sigma
    out = np.clip(img, 0, 255).astype(np.uint8)
    if look.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(look.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# --- random scenes ----------------------------------------------------------------------------

def available_backs(backs_dir: Path | str | None = None) -> list[str]:
    d = Path(backs_dir) if backs_dir else PACKAGE_DECKS / "backs"
    return sorted(p.stem for p in d.glob("*.png"))


def available_decks(decks_dir: Path | str | None = None) -> list[str]:
    d = Path(decks_dir) if decks_dir else PACKAGE_DECKS
    return sorted(p.name for p in d.iterdir() if p.is_dir() and (p / "AS.png").is_file())


def stock_pile(rng: random.Random, down: int, top: str | None) -> tuple[PlacedCard, ...]:
    """A stockpile: `down` face-down cards, squared up loosely, and `top` (a card code, `back`,
    or None for no face-up card) laid on them, turned up to 20° (RULES.md: R5)."""
    cards = [PlacedCard(BACK, rng.uniform(-2.5, 2.5), rng.uniform(-2.5, 2.5), rng.uniform(-6, 6))
             for _ in range(down)]
    if top is not None:
        cards.append(top_card(rng, top, spread_mm=4.0))
    return tuple(cards)


def spit_pile(rng: random.Random, faces: Sequence[str]) -> tuple[PlacedCard, ...]:
    """A spit pile: cards dropped in a hurry, the lower ones scattered and showing."""
    cards = [PlacedCard(f, rng.uniform(-9, 9), rng.uniform(-8, 8), rng.uniform(-30, 30))
             for f in faces[:-1]]
    if faces:
        cards.append(top_card(rng, faces[-1], spread_mm=5.0))
    return tuple(cards)


def top_card(rng: random.Random, face: str, spread_mm: float) -> PlacedCard:
    return PlacedCard(face, rng.uniform(-spread_mm, spread_mm), rng.uniform(-spread_mm, spread_mm),
                      rng.uniform(-20, 20))


def random_look(rng: random.Random, size: tuple[int, int] = FRAME_SIZE) -> Look:
    w, h = size
    glare = None
    if rng.random() < 0.5:
        glare = (rng.uniform(0, w), rng.uniform(0, h), rng.uniform(30, 140), rng.uniform(20, 90))
    return Look(light_gain=rng.uniform(0.7, 1.15),
                light_gradient=(rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4)),
                glare=glare, blur_sigma=rng.uniform(0.3, 1.1), noise_sigma=rng.uniform(1.0, 5.0),
                jpeg_quality=rng.choice([None, 95, 85, 75, 65]))


def random_pose(rng: random.Random) -> CameraPose:
    return CameraPose(tilt_deg=rng.uniform(-12, 12), yaw_deg=rng.uniform(-4, 4),
                      roll_deg=rng.uniform(-4, 4), fill=rng.uniform(0.86, 0.96),
                      shift_px=(rng.uniform(-20, 20), rng.uniform(-8, 8)))


def random_hand(rng: random.Random, layout: Layout | None = None) -> Hand:
    """A hand over one of the zones or between them, from a random side."""
    layout = layout or default_layout()
    zone = layout.zones[rng.choice(ALL_ZONES)]
    side = rng.choice(("p1", "p2"))
    return Hand(zone.center[0] + rng.uniform(-60, 60), zone.center[1] + rng.uniform(-60, 60), side,
                rng.uniform(-35, 35), rng.randrange(len(SKIN_TONES_BGR)), rng.uniform(0.85, 1.1))


def random_scene(rng: random.Random, deck: str, back: str, *, hands: int | None = None,
                 camera: CameraPose | None = None, look: Look | None = None) -> Scene:
    """A table in mid-game: each stockpile empty, face-down, or with a face-up top over some
    face-down cards; spit piles of 0–6 cards; every card of the 52 at most once."""
    codes = [c.code for c in DECK]
    rng.shuffle(codes)
    piles: dict[str, tuple[PlacedCard, ...]] = {}
    for zone in STOCK_ZONES["p1"] + STOCK_ZONES["p2"]:
        kind = rng.random()
        down = rng.randrange(0, 5)
        if kind < 0.12:
            piles[zone] = ()
        elif kind < 0.3:
            piles[zone] = stock_pile(rng, max(1, down), None)
        else:
            piles[zone] = stock_pile(rng, down, codes.pop())
    for zone in SPIT_PILES:
        n = rng.choice((0, 1, 2, 3, 6)) if rng.random() < 0.9 else 0
        piles[zone] = spit_pile(rng, [codes.pop() for _ in range(n)])
    n_hands = rng.choice((0, 0, 1, 1, 2)) if hands is None else hands
    return Scene(piles=piles, deck=deck, back=back,
                 hands=tuple(random_hand(rng) for _ in range(n_hands)),
                 camera=camera or random_pose(rng), look=look or random_look(rng),
                 mat_bgr=rng.choice(MAT_COLOURS_BGR), table_seed=rng.randrange(4),
                 noise_seed=rng.randrange(1 << 30))
