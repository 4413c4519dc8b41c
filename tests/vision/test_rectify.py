"""Rectify: the table plane from the calibration file or from the mat's ArUco markers."""
from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from calibration.layout import default_layout
from calibration.store import TableSection, default_calibration
from vision import rectify
from vision.rectify import (FrameSizeError, NoTableError, RectifyError, check_frame,
                            from_calibration, from_markers)
from vision.render import CameraPose, Scene, random_scene

PROBES_MM = np.array([[0, 0], [580, 0], [580, 410], [0, 410], [290, 205], [100, 300]], float)




def _true_px(truth, pts):
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), truth.table_to_frame).reshape(-1, 2)


@pytest.mark.parametrize("seed", range(6))
def test_markers_give_the_true_homography_within_two_pixels(renderer, seed):
    rng = random.Random(seed)
    scene = random_scene(rng, "gnome-bonded", "pysol-standard-back101", hands=0)
    frame, truth = renderer.render(scene)
    rect = from_markers(frame)
    assert rect.source == "markers" and rect.reprojection_error_mm < 1.5
    err = np.abs(rect.table_points_to_frame(PROBES_MM) - _true_px(truth, PROBES_MM)).max()
    assert err < 2.0


def test_three_markers_are_enough_when_a_hand_covers_the_fourth(renderer):
    frame, truth = renderer.render(Scene({}, deck="gnome-tango", back="pysol-standard-back041"))
    lay = default_layout()
    for m in lay.markers[:1]:  # paint over marker 0
        quad = _true_px(truth, np.array(m.corners())).astype(np.int32)
        cv2.fillConvexPoly(frame, quad, (40, 60, 90))
    rect = from_markers(frame)
    # Every zone corner stays within 3 px (~2 mm; the mat's far corner, outside all markers, less so).
    zone_corners = np.array([c for r in lay.zones.values() for c in r.corners()], float)
    assert np.abs(rect.table_points_to_frame(zone_corners) - _true_px(truth, zone_corners)).max() < 3.0
    for m in lay.markers[1:2]:  # and marker 1: two left are too few to trust
        cv2.fillConvexPoly(frame, _true_px(truth, np.array(m.corners())).astype(np.int32),
                           (40, 60, 90))
    with pytest.raises(NoTableError, match="4 ArUco markers.*found 2 "):
        from_markers(frame)


def test_frame_without_a_mat_raises_no_table_with_advice(shared_data):
    photo = cv2.imread(str(shared_data / "photos" / "single-cards" / "7H.jpg"))
    with pytest.raises(NoTableError, match="--calibration"):
        from_markers(photo)


def test_calibration_homography_is_used_as_given(renderer):
    scene = Scene({}, deck="gnome-tango", back="pysol-standard-back041",
                  camera=CameraPose(tilt_deg=8, roll_deg=3))
    frame, truth = renderer.render(scene)
    h = truth.frame_to_table / truth.frame_to_table[2, 2]
    cal = default_calibration().replace_section(
        "table", TableSection(tuple(map(tuple, h.tolist())), 0.4, (1280, 720)))
    rect = from_calibration(cal, (1280, 720))
    assert rect.source == "calibration"
    assert np.abs(rect.table_points_to_frame(PROBES_MM) - _true_px(truth, PROBES_MM)).max() < 1e-6


def test_calibration_at_another_resolution_is_a_clear_error():
    cal = default_calibration().replace_section(
        "table", TableSection(((1, 0, 0), (0, 1, 0), (0, 0, 1)), 0.4, (1920, 1080)))
    with pytest.raises(FrameSizeError, match="calibrate table"):
        from_calibration(cal, (1280, 720))


def test_calibration_without_table_section_says_to_calibrate():
    with pytest.raises(NoTableError, match="calibrate table"):
        from_calibration(default_calibration(), (1280, 720))


@pytest.mark.parametrize("bad", [None, np.zeros((0, 0, 3), np.uint8), np.zeros((720, 1280, 4), np.uint8),
                                 np.zeros((720, 1280), np.float32)])
def test_bad_frames_are_refused_clearly(bad):
    with pytest.raises(RectifyError):
        check_frame(bad)


def test_wrong_frame_size_is_refused():
    with pytest.raises(FrameSizeError, match="1280×720"):
        check_frame(np.zeros((480, 640, 3), np.uint8), (1280, 720))


def test_zone_maps_cut_a_marker_out_of_the_frame(renderer):
    frame, truth = renderer.render(Scene({}, deck="gnome-tango", back="pysol-standard-back041"))
    rect = rectify.from_homography(truth.frame_to_table, (1280, 720))
    marker = default_layout().markers[0]
    from calibration.layout import Rect
    mx, my = rect.zone_maps(Rect(marker.x, marker.y, marker.size, marker.size), 2.0)
    cut = cv2.remap(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), mx, my, cv2.INTER_LINEAR)
    assert cut.shape == (60, 60)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    expected = cv2.aruco.generateImageMarker(dictionary, 0, 60)
    # The black border and the bit pattern line up: most pixels agree after thresholding.
    agree = np.mean((cut > 128) == (expected > 128))
    assert agree > 0.9
