"""calibrate table: markers found, homography recovered and checked, clear errors otherwise.

Frames are the rendered mat (calibration/mat.py) warped by a known homography onto a real
photograph (the table and its clutter), then blurred and given sensor noise.
"""
from __future__ import annotations

import json
import types

import cv2
import numpy as np
import pytest

from calibration import mat, table
from calibration.layout import default_layout
from calibration.store import load
from calibration.table import (HomographyRejectedError, MarkersNotFoundError, apply_homography,
                               check_fit, fit_homography)
from referee.cli import main

FRAME_W, FRAME_H = 1280, 720
MAT_DPI = 100


def _mm_to_frame(corners_px) -> np.ndarray:
    L = default_layout()
    src = np.float32([(0, 0), (L.width_mm, 0), (L.width_mm, L.height_mm), (0, L.height_mm)])
    return cv2.getPerspectiveTransform(src, np.float32(corners_px)).astype(np.float64)


# A camera a little off-centre and tilted: the far (p2) edge is shorter than the near one.
TRUE_MM_TO_FRAME = _mm_to_frame([(260, 95), (1030, 80), (1150, 655), (150, 640)])


def _frame(background: np.ndarray, H_mm_to_frame: np.ndarray, *, seed: int = 0,
           cover=()) -> np.ndarray:
    """The mat seen through `H_mm_to_frame`, lying on a real photo; `cover` = mm rects to hide
    under a patch of the photo (a hand or a cup over a marker)."""
    L = default_layout()
    k = MAT_DPI / 25.4
    mat_img = mat.render_mat(L, MAT_DPI)
    px_to_mm = np.array([[1 / k, 0, 0.5 / k], [0, 1 / k, 0.5 / k], [0, 0, 1]])
    frame = cv2.resize(background, (FRAME_W, FRAME_H), interpolation=cv2.INTER_AREA)
    warped = cv2.warpPerspective(cv2.cvtColor(mat_img, cv2.COLOR_GRAY2BGR), H_mm_to_frame @ px_to_mm,
                                 (FRAME_W, FRAME_H), flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.full(mat_img.shape, 255, np.uint8), H_mm_to_frame @ px_to_mm,
                                 (FRAME_W, FRAME_H), flags=cv2.INTER_NEAREST) > 0
    # The mat is paper under room light: a little darker and warmer than pure white.
    frame[inside] = (warped[inside] * np.array([0.80, 0.86, 0.90])).astype(np.uint8)
    for (x, y, w, h) in cover:
        poly = apply_homography(H_mm_to_frame, np.array([(x, y), (x + w, y), (x + w, y + h), (x, y + h)]))
        cv2.fillConvexPoly(frame, np.round(poly).astype(np.int32), (40, 60, 90))
    frame = cv2.GaussianBlur(frame, (0, 0), 0.8)  # lens blur
    rng = np.random.default_rng(seed)
    noisy = frame.astype(np.float32) + rng.normal(0, 3.0, frame.shape)  # sensor noise
    return np.clip(noisy, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def photo(shared_data) -> np.ndarray:
    img = cv2.imread(str(shared_data / "photos" / "scenes" / "q3.jpg"))
    assert img is not None
    return img


def _mm_error(H_frame_to_mm: np.ndarray, H_mm_to_frame: np.ndarray) -> float:
    """Worst error over every zone corner: a true mm point → frame → recovered mm."""
    L = default_layout()
    pts = np.array([c for r in L.zones.values() for c in r.corners()])
    back = apply_homography(H_frame_to_mm, apply_homography(H_mm_to_frame, pts))
    return float(np.linalg.norm(back - pts, axis=1).max())


def test_homography_of_a_warped_mat_is_recovered(photo):
    fit = fit_homography(_frame(photo, TRUE_MM_TO_FRAME), default_layout())
    assert fit.marker_ids == (0, 1, 2, 3) and fit.missing_ids == ()
    assert fit.rms_error_mm < 0.5
    assert _mm_error(fit.homography, TRUE_MM_TO_FRAME) < 1.0
    assert fit.resolution == (FRAME_W, FRAME_H)


@pytest.mark.parametrize("seed, corners", [
    (1, [(300, 60), (980, 60), (980, 540), (300, 540)]),       # straight down
    (2, [(1100, 650), (160, 640), (250, 90), (1040, 70)]),     # camera on p2's side: mat upside down
])
def test_homography_recovered_from_other_camera_poses(photo, seed, corners):
    H = _mm_to_frame(corners)
    fit = fit_homography(_frame(photo, H, seed=seed), default_layout())
    assert _mm_error(fit.homography, H) < 1.0


def test_one_covered_marker_still_calibrates_and_is_reported(photo):
    L = default_layout()
    m = L.markers[2]
    frame = _frame(photo, TRUE_MM_TO_FRAME, cover=[(m.x - 3, m.y - 3, m.size + 6, m.size + 6)])
    fit = fit_homography(frame, L)
    assert fit.missing_ids == (2,)
    assert _mm_error(fit.homography, TRUE_MM_TO_FRAME) < 1.5


def test_two_covered_markers_say_which_were_seen_and_what_to_do(photo):
    L = default_layout()
    cover = [(m.x - 3, m.y - 3, m.size + 6, m.size + 6) for m in L.markers[:2]]
    with pytest.raises(MarkersNotFoundError, match=r"found 2 \(2, 3\); at least 3 are needed.*in view"):
        fit_homography(_frame(photo, TRUE_MM_TO_FRAME, cover=cover), L)


def test_real_photo_without_a_mat_says_markers_not_found(shared_data):
    img = cv2.imread(str(shared_data / "photos" / "scenes" / "q1.jpg"))
    with pytest.raises(MarkersNotFoundError, match=r"markers not found in q1\.jpg: .*found none.*calibrate mat"):
        fit_homography(img, default_layout(), source="q1.jpg")


def test_a_poor_fit_is_refused_with_advice(photo):
    fit = fit_homography(_frame(photo, TRUE_MM_TO_FRAME), default_layout())
    with pytest.raises(HomographyRejectedError, match=r"above the 0.01 mm limit.*flat"):
        check_fit(fit, max_error_mm=0.01)
    check_fit(fit)  # the default limit accepts it


def test_a_misassembled_mat_is_refused(photo):
    """A marker 60 mm off its layout place (a tiled sheet taped out of line) spoils the fit."""
    L = default_layout()
    H = TRUE_MM_TO_FRAME
    frame = _frame(photo, H)
    # Paste marker 1 again 60 mm lower and hide the original: its corners disagree with the rest.
    m = L.markers[1]
    k = MAT_DPI / 25.4
    patch = mat.render_mat(L, MAT_DPI)
    moved = np.eye(3)
    moved[1, 2] = 60.0
    px_to_mm = np.array([[1 / k, 0, 0.5 / k], [0, 1 / k, 0.5 / k], [0, 0, 1]])
    warped = cv2.warpPerspective(cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR), H @ moved @ px_to_mm,
                                 (FRAME_W, FRAME_H), flags=cv2.INTER_AREA)
    region = np.zeros((FRAME_H, FRAME_W), np.uint8)
    poly = apply_homography(H @ moved, np.array(m.corners()) + [[-4, -4], [4, -4], [4, 4], [-4, 4]])
    cv2.fillConvexPoly(region, np.round(poly).astype(np.int32), 255)
    orig = apply_homography(H, np.array(m.corners()) + [[-3, -3], [3, -3], [3, 3], [-3, 3]])
    cv2.fillConvexPoly(frame, np.round(orig).astype(np.int32), (200, 210, 215))
    frame[region > 0] = warped[region > 0]
    fit = fit_homography(frame, L)
    assert fit.rms_error_mm > 2.0
    with pytest.raises(HomographyRejectedError):
        check_fit(fit)


def test_old_opencv_functional_aruco_api_gives_the_same_markers(photo, monkeypatch):
    """OpenCV 4.6 (Raspberry Pi OS) has no ArucoDetector: detect_markers falls back to
    cv2.aruco.detectMarkers. The 4.6 call is emulated on top of the installed OpenCV."""
    real = cv2.aruco
    frame = _frame(photo, TRUE_MM_TO_FRAME)
    calls = []

    def detectMarkers(image, dictionary, parameters=None):  # noqa: N802 (OpenCV's name)
        calls.append(parameters)
        return real.ArucoDetector(dictionary, parameters).detectMarkers(image)

    old = types.SimpleNamespace(
        DICT_4X4_50=real.DICT_4X4_50, CORNER_REFINE_SUBPIX=real.CORNER_REFINE_SUBPIX,
        Dictionary_get=real.getPredefinedDictionary,
        DetectorParameters_create=real.DetectorParameters, detectMarkers=detectMarkers)
    new_result = table.detect_markers(frame)
    monkeypatch.setattr(cv2, "aruco", old)
    old_result = table.detect_markers(frame)
    assert len(calls) == 1 and calls[0].cornerRefinementMethod == real.CORNER_REFINE_SUBPIX
    assert sorted(old_result) == sorted(new_result) == [0, 1, 2, 3]
    for i in new_result:
        assert np.allclose(old_result[i], new_result[i])


def test_cli_saves_the_table_section_and_draws_the_preview(photo, tmp_path, capsys):
    frame = _frame(photo, TRUE_MM_TO_FRAME)
    cv2.imwrite(str(tmp_path / "frame.png"), frame)
    cal_path = tmp_path / "cal.json"
    rc = main(["calibrate", "table", "--image", str(tmp_path / "frame.png"),
               "--calibration", str(cal_path), "--preview", str(tmp_path / "preview.png")])
    assert rc == 0
    out = capsys.readouterr().out
    assert "markers found: 0, 1, 2, 3 of 4" in out and "mm RMS" in out
    cal = load(cal_path)
    assert cal.table.resolution == (FRAME_W, FRAME_H)
    assert cal.table.reprojection_error_mm < 0.5
    assert _mm_error(cal.table.homography_array(), TRUE_MM_TO_FRAME) < 1.0
    preview = cv2.imread(str(tmp_path / "preview.png"))
    assert preview.shape == frame.shape
    # The zones are drawn in green where the homography puts them: on spit.left's outline.
    L = default_layout()
    r = L.zones["spit.left"]
    edge = apply_homography(TRUE_MM_TO_FRAME, np.array([(r.x + r.w / 2, r.y)]))[0]
    x, y = np.round(edge).astype(int)
    patch = preview[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3)
    assert ((patch[:, 1] > 180) & (patch[:, 0] < 80) & (patch[:, 2] < 80)).any()


def test_cli_keeps_the_other_sections(photo, tmp_path):
    cal_path = tmp_path / "cal.json"
    doc = {"version": 1, "pads": {"bounce_ms": 33.0}}
    cal_path.write_text(json.dumps(doc))
    cv2.imwrite(str(tmp_path / "frame.png"), _frame(photo, TRUE_MM_TO_FRAME))
    assert main(["calibrate", "table", "--image", str(tmp_path / "frame.png"),
                 "--calibration", str(cal_path)]) == 0
    assert load(cal_path).pads.bounce_ms == 33.0


def test_cli_on_a_photo_without_markers_exits_1_and_leaves_no_file(shared_data, tmp_path, capsys):
    cal_path = tmp_path / "cal.json"
    rc = main(["calibrate", "table", "--image", str(shared_data / "photos" / "scenes" / "q7.jpg"),
               "--calibration", str(cal_path)])
    assert rc == 1
    assert "markers not found" in capsys.readouterr().err
    assert not cal_path.exists()


def test_cli_on_a_missing_image_says_so(tmp_path, capsys):
    assert main(["calibrate", "table", "--image", str(tmp_path / "nope.png"),
                 "--calibration", str(tmp_path / "c.json")]) == 1
    assert "no image file at" in capsys.readouterr().err


def test_cli_from_a_camera_source_skips_the_warm_up_frames(photo, tmp_path, capsys):
    """`--camera DIR`: a folder of frames stands for the camera; the first frames (exposure
    settling) are dropped, the first frame after them with the markers is used.

    The warm-up frames show the mat at another pose (the camera still being put in place), with
    every marker readable: a fit made from any of them saves that pose, not the true one."""
    folder = tmp_path / "frames"
    folder.mkdir()
    warmup_pose = _mm_to_frame([(300, 60), (980, 60), (980, 540), (300, 540)])  # straight down
    warmup = (_frame(photo, warmup_pose, seed=5) * 0.6).astype(np.uint8)  # exposure not settled
    # The warm-up frame on its own calibrates, to its own pose, far from the true one: were it
    # used, the check below would see it.
    assert _mm_error(fit_homography(warmup, default_layout()).homography, warmup_pose) < 1.0
    assert _mm_error(np.linalg.inv(warmup_pose), TRUE_MM_TO_FRAME) > 50.0
    for i in range(table.CAMERA_WARMUP_FRAMES):
        cv2.imwrite(str(folder / f"f{i:02d}.png"), warmup)
    cv2.imwrite(str(folder / f"f{table.CAMERA_WARMUP_FRAMES:02d}.png"), _frame(photo, TRUE_MM_TO_FRAME))
    cal_path = tmp_path / "cal.json"
    assert main(["calibrate", "table", "--camera", str(folder), "--calibration", str(cal_path)]) == 0
    saved = load(cal_path).table.homography_array()
    assert _mm_error(saved, TRUE_MM_TO_FRAME) < 1.0  # the pose of frame CAMERA_WARMUP_FRAMES


def test_cli_from_a_camera_that_never_shows_the_mat(shared_data, tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    img = cv2.imread(str(shared_data / "photos" / "scenes" / "q2.jpg"))
    for i in range(table.CAMERA_WARMUP_FRAMES + 2):
        cv2.imwrite(str(folder / f"f{i:02d}.png"), img)
    assert main(["calibrate", "table", "--camera", str(folder), "--calibration", str(tmp_path / "c.json")]) == 1
    assert "markers not found in camera" in capsys.readouterr().err


def test_cli_undistorts_with_the_camera_section_and_refuses_another_frame_size(photo, tmp_path, capsys):
    from calibration.store import CameraSection, default_calibration, save
    cal_path = tmp_path / "cal.json"
    lens = CameraSection(((600.0, 0, 320.0), (0, 600.0, 240.0), (0, 0, 1.0)), (-0.1, 0.0, 0.0, 0.0, 0.0), (640, 480))
    save(default_calibration().replace_section(camera=lens), cal_path)
    cv2.imwrite(str(tmp_path / "frame.png"), _frame(photo, TRUE_MM_TO_FRAME))
    assert main(["calibrate", "table", "--image", str(tmp_path / "frame.png"),
                 "--calibration", str(cal_path)]) == 1
    assert "frames are 1280x720 but the lens was calibrated at 640x480" in capsys.readouterr().err
    assert load(cal_path).table is None


def test_a_marker_in_view_twice_is_refused_not_guessed(photo):
    """A second printout of marker 0 lying on the table: which one is the mat's is unknown."""
    from calibration.table import DuplicateMarkerError
    frame = _frame(photo, TRUE_MM_TO_FRAME)
    x, y, s = 40, 300, 60
    marker = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), 0, s)
    frame[y - 10:y + s + 10, x - 10:x + s + 10] = 235  # its white paper
    frame[y:y + s, x:x + s] = cv2.cvtColor(marker, cv2.COLOR_GRAY2BGR)
    with pytest.raises(DuplicateMarkerError, match="marker 0 is in view twice"):
        fit_homography(frame, default_layout())


def test_cli_says_when_a_hidden_marker_weakens_the_fit(photo, tmp_path, capsys):
    m = default_layout().markers[3]
    frame = _frame(photo, TRUE_MM_TO_FRAME, cover=[(m.x - 3, m.y - 3, m.size + 6, m.size + 6)])
    cv2.imwrite(str(tmp_path / "frame.png"), frame)
    assert main(["calibrate", "table", "--image", str(tmp_path / "frame.png"),
                 "--calibration", str(tmp_path / "cal.json")]) == 0
    out = capsys.readouterr().out
    assert "markers found: 0, 1, 2 of 4; not seen: 3" in out
    assert "calibrate again with every marker in view" in out


# --- an older file, the preview, and the lens's resolution (audit fixes) -----------------------

def _advised_table_command(message: str, image) -> list[str]:
    """The `spit-referee calibrate table ...` a message advises, as `main` arguments, with the
    camera it leaves to the user (`--camera SRC`) replaced by a still of the mat."""
    import re
    import shlex
    cmd = re.search(r"`spit-referee (calibrate table [^`]*)`", message).group(1)
    args = shlex.split(cmd.replace("--camera SRC", f"--image {image}"))
    assert "--image" in args, cmd
    return args


@pytest.mark.parametrize("version", [0, None], ids=["version-0", "no-version"])
def test_the_advice_for_an_older_file_works_when_followed(photo, tmp_path, capsys, version):
    """The message for an older file (or one from before versions) names a command; running it
    makes a new file instead of refusing with the same message, and keeps the old one."""
    from calibration.store import CalibrationVersionError, default_calibration, to_dict
    cv2.imwrite(str(tmp_path / "frame.png"), _frame(photo, TRUE_MM_TO_FRAME))
    cal_path = tmp_path / "old.json"
    doc = to_dict(default_calibration())
    if version is None:
        del doc["version"]
    else:
        doc["version"] = version
    cal_path.write_text(json.dumps(doc))
    before = cal_path.read_bytes()
    with pytest.raises(CalibrationVersionError) as refused:
        load(cal_path)
    args = _advised_table_command(str(refused.value), tmp_path / "frame.png")
    assert main(args) == 0
    out = capsys.readouterr().out
    backup = tmp_path / "old.json.bak"
    assert f"kept it as {backup}" in out
    assert backup.read_bytes() == before
    assert load(cal_path).table.resolution == (FRAME_W, FRAME_H)
    # Run again, the step reads the new file: no second backup.
    assert main(args) == 0
    assert "kept it as" not in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frame.png", "old.json", "old.json.bak"]


def test_a_bad_table_section_is_replaced_by_the_step_its_message_names(photo, tmp_path, capsys):
    from calibration.store import CalibrationError
    cv2.imwrite(str(tmp_path / "frame.png"), _frame(photo, TRUE_MM_TO_FRAME))
    cal_path = tmp_path / "cal.json"
    table_doc = {"homography": [[0, 0, 0], [0, 0, 0], [0, 0, 1]], "reprojection_error_mm": 0.3,
                 "resolution": [FRAME_W, FRAME_H]}
    cal_path.write_text(json.dumps({"version": 1, "table": table_doc, "referee": {"settle_s": 2.5}}))
    with pytest.raises(CalibrationError, match=r"table\.homography: is singular.*re-run `spit-referee calibrate table`"):
        load(cal_path)
    assert main(["calibrate", "table", "--image", str(tmp_path / "frame.png"),
                 "--calibration", str(cal_path)]) == 0
    assert "leaves the old table section out" in capsys.readouterr().out
    cal = load(cal_path)
    assert _mm_error(cal.table.homography_array(), TRUE_MM_TO_FRAME) < 1.0
    assert cal.referee.settle_s == 2.5  # the other sections are kept
    assert json.loads((tmp_path / "cal.json.bak").read_text())["table"] == table_doc


def test_a_preview_name_opencv_cannot_write_is_a_usage_error_before_the_fit(photo, tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "frame.png"), _frame(photo, TRUE_MM_TO_FRAME))
    with pytest.raises(SystemExit) as usage:
        main(["calibrate", "table", "--image", str(tmp_path / "frame.png"),
              "--calibration", str(tmp_path / "cal.json"), "--preview", str(tmp_path / "p.xyz")])
    assert usage.value.code == 2
    captured = capsys.readouterr()
    assert "argument --preview" in captured.err and "must end in .png, .jpg or .jpeg" in captured.err
    assert "markers found" not in captured.out  # refused before any work
    assert not (tmp_path / "cal.json").exists()


def test_a_preview_in_a_missing_folder_is_refused_before_the_fit(photo, tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "frame.png"), _frame(photo, TRUE_MM_TO_FRAME))
    rc = main(["calibrate", "table", "--image", str(tmp_path / "frame.png"), "--calibration",
               str(tmp_path / "cal.json"), "--preview", str(tmp_path / "nodir" / "zones.png")])
    assert rc == 1
    captured = capsys.readouterr()
    assert f"folder {tmp_path / 'nodir'} does not exist" in captured.err
    assert "markers found" not in captured.out  # refused before any work
    assert not (tmp_path / "cal.json").exists()


def test_a_preview_that_cannot_be_written_keeps_the_saved_calibration(photo, tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "frame.png"), _frame(photo, TRUE_MM_TO_FRAME))
    blocked = tmp_path / "zones.png"
    blocked.mkdir()  # a folder where the preview file should go: writing it fails
    cal_path = tmp_path / "cal.json"
    rc = main(["calibrate", "table", "--image", str(tmp_path / "frame.png"),
               "--calibration", str(cal_path), "--preview", str(blocked)])
    assert rc == 1
    err = capsys.readouterr().err
    assert f"the table calibration itself was saved to {cal_path}" in err
    assert f"the preview {blocked} could not be written" in err
    assert _mm_error(load(cal_path).table.homography_array(), TRUE_MM_TO_FRAME) < 1.0


def test_a_poor_fit_still_draws_its_preview_and_saves_nothing(photo, tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "frame.png"), _frame(photo, TRUE_MM_TO_FRAME))
    rc = main(["calibrate", "table", "--image", str(tmp_path / "frame.png"), "--max-error-mm",
               "0.01", "--calibration", str(tmp_path / "cal.json"),
               "--preview", str(tmp_path / "zones.jpg")])
    assert rc == 1
    assert "does not fit well" in capsys.readouterr().err
    assert cv2.imread(str(tmp_path / "zones.jpg")).shape == (FRAME_H, FRAME_W, 3)
    assert not (tmp_path / "cal.json").exists()


def test_a_recording_shorter_than_the_warm_up_is_still_used(photo, tmp_path, capsys):
    """A folder of three stills ends within the warm-up meant for a live camera's exposure."""
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"f{i}.png"), _frame(photo, TRUE_MM_TO_FRAME, seed=i))
    cal_path = tmp_path / "cal.json"
    assert main(["calibrate", "table", "--camera", str(folder), "--calibration", str(cal_path)]) == 0
    assert _mm_error(load(cal_path).table.homography_array(), TRUE_MM_TO_FRAME) < 1.0


def _table_and_lens(photo, tmp_path, lens_size) -> tuple:
    """A still of the mat, and a calibration whose table was fitted on it by `calibrate table`
    and whose lens section holds for frames of `lens_size`."""
    from calibration.store import CameraSection, save
    frame_path = tmp_path / "frame.png"
    cv2.imwrite(str(frame_path), _frame(photo, TRUE_MM_TO_FRAME))
    cal_path = tmp_path / "cal.json"
    assert main(["calibrate", "table", "--image", str(frame_path), "--calibration", str(cal_path)]) == 0
    w, h = lens_size
    lens = CameraSection(((900.0, 0, w / 2), (0, 900.0, h / 2), (0, 0, 1.0)), (-0.05, 0.0, 0.0, 0.0), lens_size)
    save(load(cal_path).replace_section(camera=lens), cal_path)  # keeps the table section
    return frame_path, cal_path


def test_read_table_refuses_a_lens_calibrated_at_another_resolution(photo, tmp_path, capsys):
    frame_path, cal_path = _table_and_lens(photo, tmp_path, (640, 480))
    capsys.readouterr()
    assert main(["read-table", str(frame_path), "--calibration", str(cal_path), "--json"]) == 1
    err = capsys.readouterr().err
    assert "camera.resolution" in err and "1280x720" in err and "640x480" in err
    assert "calibrate camera" in err


def test_run_refuses_a_lens_calibrated_at_another_resolution(photo, tmp_path, capsys):
    frame_path, cal_path = _table_and_lens(photo, tmp_path, (640, 480))
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"f{i}.png"), cv2.imread(str(frame_path)))
    capsys.readouterr()
    assert main(["run", "--camera", str(folder), "--calibration", str(cal_path), "--no-pads",
                 "--plain", "--log", str(tmp_path / "game.jsonl")]) == 1
    assert "camera.resolution" in capsys.readouterr().err


def test_a_lens_calibrated_at_the_frame_size_is_applied(photo, tmp_path):
    from vision.reader import TableReader
    frame_path, cal_path = _table_and_lens(photo, tmp_path, (FRAME_W, FRAME_H))
    reader = TableReader.from_frame(cv2.imread(str(frame_path)), cal=load(cal_path))
    assert reader.rectification.camera_matrix is not None
    assert reader.rectification.camera_matrix[0, 0] == 900.0
