"""The scene renderer: frames whose ground truth matches what is drawn, for every deck."""
from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from calibration.layout import default_layout
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


@pytest.mark.parametrize("deck", DECKS)
def test_every_deck_renders_a_frame_with_its_truth(renderer, deck):
    scene = random_scene(random.Random(deck), deck, available_backs(DATA / "backs")[0])
    frame, truth = renderer.render(scene)
    assert frame.shape == (FRAME_SIZE[1], FRAME_SIZE[0], 3) and frame.dtype == np.uint8
    for zone in ALL_ZONES:
        pile = scene.piles.get(zone, ())
        assert truth.readings[zone] == (pile[-1].face if pile else "empty")


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
