"""The scene renderer: frames whose ground truth matches what is drawn, for every deck."""
from __future__ import annotations

import dataclasses
import random

import cv2
import numpy as np
import pytest

from calibration.layout import CARD_H_MM, default_layout
from referee.cards import DECK as CARD_DECK
from referee.zones import ALL_ZONES
from tests.conftest import DATA
from vision.render import (FRAME_SIZE, LIGHTS, CameraPose, Hand, Look, PlacedCard, Renderer,
                           Scene, available_backs, available_decks, camera_homography,
                           random_scene)

DECKS = available_decks(DATA / "decks")
CLEAN = Look(blur_sigma=0, noise_sigma=0, jpeg_quality=None)




def _zone_centre_px(truth, zone: str) -> tuple[int, int]:
    x, y = default_layout().zones[zone].center
    p = truth.table_to_frame @ np.array([x, y, 1.0])
    return int(round(p[0] / p[2])), int(round(p[1] / p[2]))


def test_all_seven_decks_and_the_backs_are_found():
    assert len(DECKS) == 7
    assert len(available_backs(DATA / "backs")) >= 10


def _art_in_frame(art: np.ndarray, zone: str, card: PlacedCard, table_to_frame: np.ndarray,
                  box: tuple[int, int, int, int] | None = None):
    """`art` (RGBA) laid as `card` on `zone` (its centre `dx_mm, dy_mm` from the zone's centre,
    turned `angle_deg`, CARD_H_MM tall) and seen through `table_to_frame`, warped straight from
    the artwork: its grey pixels and alpha over the frame `box` (x0, y0, x1, y1), by default the
    box it covers, and that box."""
    h, w = art.shape[:2]
    cx, cy = default_layout().zones[zone].center
    art_to_mm = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), card.angle_deg, CARD_H_MM / h),
                           [0, 0, 1]])
    art_to_mm[:2, 2] += (cx + card.dx_mm - w / 2, cy + card.dy_mm - h / 2)
    to_frame = table_to_frame @ art_to_mm
    if box is None:
        ends = cv2.perspectiveTransform(np.float32([[(0, 0), (w, 0), (w, h), (0, h)]]), to_frame)[0]
        x0, y0 = (int(v) for v in np.maximum(np.floor(ends.min(axis=0)), 0))
        x1, y1 = (int(v) for v in np.minimum(np.ceil(ends.max(axis=0)), FRAME_SIZE))
        box = (x0, y0, x1, y1)
    x0, y0, x1, y1 = box
    shifted = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ to_frame
    warped = cv2.warpPerspective(art, shifted, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    return cv2.cvtColor(warped[..., :3], cv2.COLOR_BGR2GRAY).astype(float), warped[..., 3], box


def _likeness(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised cross-correlation of two pixel sets (1: the same picture up to gain and offset)."""
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum() + 1e-9))


@pytest.mark.parametrize("deck", DECKS)
def test_every_deck_renders_a_frame_with_its_truth(renderer, deck):
    """What the frame shows in each zone no hand reaches is what the truth says: the truth's
    card (of all 52 and the back, the one whose artwork, laid where the scene places the top
    card, is most like the frame there), white paper on a face, a back's art on a back, the
    bare mat on an empty zone. A clean look (no light, blur, noise or JPEG): the look is
    the camera's, tested on its own below."""
    back = available_backs(DATA / "backs")[0]
    scene = random_scene(random.Random(deck), deck, back)
    frame, truth = renderer.render(scene)
    assert frame.shape == (FRAME_SIZE[1], FRAME_SIZE[0], 3) and frame.dtype == np.uint8
    scene = dataclasses.replace(scene, look=CLEAN)
    frame, truth = renderer.render(scene)
    arts = {code: renderer.card_image(deck, code) for code in (c.code for c in CARD_DECK)}
    arts["back"] = renderer.back_image(back)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(float)
    checked = {"face": 0, "back": 0, "empty": 0}
    for zone in ALL_ZONES:
        if truth.occlusion[zone] > 0:
            continue
        said = truth.readings[zone]
        if said == "empty":
            # The middle of the zone, 30 mm square: the mat's felt and nothing else.
            x, y = default_layout().zones[zone].center
            square = np.float32([[(x - 15, y - 15), (x + 15, y - 15), (x + 15, y + 15), (x - 15, y + 15)]])
            quad = cv2.perspectiveTransform(square, truth.table_to_frame)[0]
            inside = np.zeros(grey.shape, np.uint8)
            cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 1)
            pixels = frame[inside > 0].astype(int)
            assert np.abs(np.median(pixels, axis=0) - scene.mat_bgr).max() < 12, zone
            assert (np.abs(pixels - scene.mat_bgr).max(axis=1) < 40).mean() > 0.97, zone
            checked["empty"] += 1
            continue
        top = scene.piles[zone][-1]  # where the scene lays its top card; what shows is the truth's
        _, alpha, box = _art_in_frame(arts[said], zone, top, truth.table_to_frame)
        x0, y0, x1, y1 = box
        inner = cv2.erode((alpha == 255).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        shown = grey[y0:y1, x0:x1]
        likeness = {}
        for code, art in arts.items():  # each laid where the top card lies, over the same box
            drawn, a, _ = _art_in_frame(art, zone, top, truth.table_to_frame, box)
            use = inner & (a == 255)
            assert use.sum() > 0.8 * inner.sum()
            likeness[code] = _likeness(shown[use], drawn[use])
        best = max(likeness, key=likeness.get)
        assert best == said and likeness[said] > 0.9, \
            (zone, said, likeness[said], best, likeness[best])
        if said != "back":
            # A face is white paper: its lightest tenth is near white (a card's margin).
            assert np.percentile(frame[y0:y1, x0:x1][inner].min(axis=1), 90) > 220, zone
        checked["face" if said != "back" else "back"] += 1
    assert checked["face"] >= 3 and checked["back"] >= 1, checked  # each deck's scene has both


def test_face_card_is_white_where_the_truth_says_and_empty_zone_shows_the_mat(renderer):
    mat = (60, 110, 40)
    scene = Scene({"p1.stock1": (PlacedCard("2C"),)}, deck="gnome-tango",
                  back="pysol-standard-back041", look=CLEAN, mat_bgr=mat)
    frame, truth = renderer.render(scene)
    x, y = _zone_centre_px(truth, "p1.stock1")
    # The 2 of clubs is blank paper at its centre (the pips are above and below).
    assert frame[y, x].min() > 200
    x, y = _zone_centre_px(truth, "p1.stock2")
    assert np.abs(frame[y, x].astype(int) - mat).max() < 30


def test_light_of_another_colour_tints_the_paper_and_the_glare(renderer):
    # A lamp warmer than the camera's white balance: the 2 of clubs' blank paper takes the
    # light's B, G, R gains, and so does glare over the mat (the lamp seen in it).
    mat = (60, 110, 40)
    piles = {"p1.stock1": (PlacedCard("2C"),)}
    white, truth = renderer.render(Scene(piles, deck="gnome-tango", back="pysol-standard-back041",
                                         look=CLEAN, mat_bgr=mat))
    x, y = _zone_centre_px(truth, "p1.stock1")
    gx, gy = _zone_centre_px(truth, "p1.stock2")
    warm_look = Look(light_colour=LIGHTS["warm"], glare=(gx, gy, 40.0, 80.0), blur_sigma=0,
                     noise_sigma=0, jpeg_quality=None)
    warm, _ = renderer.render(Scene(piles, deck="gnome-tango", back="pysol-standard-back041",
                                    look=warm_look, mat_bgr=mat))
    paper = warm[y, x].astype(float) / white[y, x]
    assert np.allclose(paper, LIGHTS["warm"], atol=0.02)
    glare = warm[gy, gx].astype(float) - white[gy, gx] * np.array(LIGHTS["warm"])
    assert np.allclose(glare, 80.0 * np.array(LIGHTS["warm"]), atol=1.5)
    # White light is the default: the frame is the same as without a colour named.
    same, _ = renderer.render(Scene(piles, deck="gnome-tango", back="pysol-standard-back041",
                                    look=Look(light_colour=LIGHTS["white"], blur_sigma=0,
                                              noise_sigma=0, jpeg_quality=None), mat_bgr=mat))
    assert np.array_equal(same, white)


def test_rendering_is_deterministic(renderer):
    scene = random_scene(random.Random(7), "kde-standard", "pysol-standard-back101")
    a, _ = renderer.render(scene)
    b, _ = renderer.render(scene)
    assert np.array_equal(a, b)


def test_hand_covers_the_zone_it_reaches_and_is_marked_occluded(renderer):
    lay = default_layout()
    x, y = lay.zones["p1.stock3"].center
    scene = Scene({"p1.stock3": (PlacedCard("KH"),)}, deck="gnome-paris",
                  back="pysol-standard-back041", look=CLEAN, hands=(Hand(x, y, "p1", tone=4),))
    frame, truth = renderer.render(scene)
    assert "p1.stock3" in truth.occluded
    assert truth.expected("p1.stock3") == "?"
    assert "p2.stock1" not in truth.occluded  # the far side of the mat is untouched
    cx, cy = _zone_centre_px(truth, "p1.stock3")
    assert np.abs(frame[cy, cx].astype(int) - (55, 80, 120)).max() < 40  # skin, not card


def test_true_homography_maps_the_markers_where_aruco_finds_them(renderer):
    scene = Scene({}, back="pysol-standard-back041", deck="gnome-anglo",
                  camera=CameraPose(tilt_deg=10, yaw_deg=3, roll_deg=-2))
    frame, truth = renderer.render(scene)
    lay = default_layout()
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(frame)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for quad, marker_id in zip(corners, ids.ravel()):
        marker = next(m for m in lay.markers if m.id == marker_id)
        mm = np.array([[*c, 1.0] for c in marker.corners()]).T
        px = truth.table_to_frame @ mm
        px = (px[:2] / px[2]).T
        assert np.abs(px - quad.reshape(4, 2)).max() < 2.0


def test_camera_homography_keeps_the_mat_inside_the_frame():
    lay = default_layout()
    for pose in (CameraPose(), CameraPose(tilt_deg=12, roll_deg=4, fill=0.96)):
        h = camera_homography(pose, lay)
        for x, y in [(0, 0), (lay.width_mm, 0), (lay.width_mm, lay.height_mm), (0, lay.height_mm)]:
            p = h @ np.array([x, y, 1.0])
            u, v = p[:2] / p[2]
            assert 0 <= u <= FRAME_SIZE[0] and 0 <= v <= FRAME_SIZE[1]


def test_shipped_deck_and_back_render_without_the_shared_data():
    frame, truth = Renderer().render(random_scene(random.Random(1), "openclipart-simple",
                                                  "pysol-standard-back111"))
    assert frame.shape[:2] == (720, 1280)
