"""calibrate camera: intrinsics recovered from views of a board through a known lens.

Each view is rendered through a real camera model: for every pixel, the lens distortion is
undone (cv2.undistortPoints), the ray meets the board plane at a known pose, and the board
texture is sampled there; the board lies on a real photo, with blur and sensor noise. The
renderer is checked against cv2.projectPoints so the test's camera is exactly the one claimed.
"""
from __future__ import annotations

import functools
import json
import shutil

import cv2
import numpy as np
import pytest

from calibration import camera
from calibration.camera import Board, BoardSpec, CameraCalibrationError, calibrate, find_board
from calibration.store import CameraSection, default_calibration, load
from referee.cli import main

SIZE = (640, 480)
K_TRUE = np.array([[610.0, 0, 322.0], [0, 606.0, 236.0], [0, 0, 1]])
DIST_TRUE = np.array([-0.22, 0.07, 0.0008, -0.0005, 0.0])
TEX_PX_PER_MM = 4.0
SQUARE_MM = 25.0
CHESS = BoardSpec(Board.CHESSBOARD, 9, 6, SQUARE_MM)       # 10 × 7 squares
CHARUCO = BoardSpec(Board.CHARUCO, 8, 6, SQUARE_MM, 18.0)   # 8 × 6 squares

# Board poses (rotation about x, about y in degrees; board centre offset in mm; distance in mm),
# spread over tilts and over the frame so the distortion terms are constrained.
POSES = [(0, 0, (0, 0), 520), (25, 0, (0, 0), 520), (-25, 0, (0, 0), 520), (0, 25, (0, 0), 520),
         (0, -25, (0, 0), 520), (15, 15, (-90, -60), 560), (-15, 15, (90, -60), 560),
         (15, -15, (-90, 60), 560), (-15, -15, (90, 60), 560), (10, -20, (0, -70), 480),
         (-10, 20, (0, 70), 480), (20, 10, (110, 0), 600),
         # towards the frame's corners, where distortion is largest
         (10, 10, (-165, -115), 600), (-10, 10, (165, -115), 600),
         (10, -10, (-165, 115), 600), (-10, -10, (165, 115), 600)]


def _texture(spec: BoardSpec) -> tuple[np.ndarray, float]:
    """The printed board and the texture x/y (px) of board point (0, 0)."""
    k = TEX_PX_PER_MM
    if spec.kind is Board.CHESSBOARD:
        sq = round(spec.square_mm * k)
        nx, ny = spec.cols + 1, spec.rows + 1
        tex = np.full(((ny + 2) * sq, (nx + 2) * sq), 255, np.uint8)
        for j in range(ny):
            for i in range(nx):
                if (i + j) % 2 == 0:
                    tex[(j + 1) * sq:(j + 2) * sq, (i + 1) * sq:(i + 2) * sq] = 0
        return tex, 2 * sq  # the first inner corner is two squares in (margin + one square)
    board = camera._charuco_board(spec)
    w, h = round(spec.cols * spec.square_mm * k), round(spec.rows * spec.square_mm * k)
    margin = round(spec.square_mm * k)
    img = board.generateImage((w, h))
    tex = cv2.copyMakeBorder(img, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=255)
    return tex, margin  # ChArUco object points start at the board's own corner


def _pose(rx, ry, offset, dist_mm, spec):
    R = cv2.Rodrigues(np.deg2rad([rx, 0, 0]))[0] @ cv2.Rodrigues(np.deg2rad([0, ry, 0]))[0]
    if spec.kind is Board.CHESSBOARD:
        centre = np.array([(spec.cols - 1) * spec.square_mm / 2, (spec.rows - 1) * spec.square_mm / 2, 0])
    else:
        centre = np.array([spec.cols * spec.square_mm / 2, spec.rows * spec.square_mm / 2, 0])
    t = np.array([offset[0], offset[1], dist_mm]) - R @ centre
    return cv2.Rodrigues(R)[0].ravel(), t


@functools.lru_cache(maxsize=1)
def _rays() -> np.ndarray:
    """Each pixel's ray in normalised camera coordinates, the lens distortion undone."""
    w, h = SIZE
    u, v = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    pix = np.stack([u, v], -1).reshape(-1, 1, 2)
    return cv2.undistortPoints(pix, K_TRUE, DIST_TRUE,
                               criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9))


def _render(spec, rvec, tvec, background, seed) -> np.ndarray:
    tex, origin_px = _texture(spec)
    w, h = SIZE
    norm = _rays()
    R = cv2.Rodrigues(rvec)[0]
    H = np.c_[R[:, 0], R[:, 1], tvec]  # board plane (X, Y, 1) → normalised camera coordinates
    board_xy = cv2.perspectiveTransform(norm, np.linalg.inv(H)).reshape(h, w, 2)
    mx = (board_xy[:, :, 0] * TEX_PX_PER_MM + (origin_px - 0.5)).astype(np.float32)
    my = (board_xy[:, :, 1] * TEX_PX_PER_MM + (origin_px - 0.5)).astype(np.float32)
    board = cv2.remap(tex, mx, my, cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=1)
    inside = cv2.remap(np.full(tex.shape, 255, np.uint8), mx, my, cv2.INTER_NEAREST,
                       borderMode=cv2.BORDER_CONSTANT, borderValue=0) > 0
    frame = cv2.cvtColor(cv2.resize(background, SIZE, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    frame[inside] = (board[inside] * 0.85 + 20).astype(np.uint8)  # paper under room light
    frame = cv2.GaussianBlur(frame, (0, 0), 0.7)
    noisy = frame.astype(np.float32) + np.random.default_rng(seed).normal(0, 2.0, frame.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def background(shared_data):
    return cv2.imread(str(shared_data / "photos" / "scenes" / "q5.jpg"))


@pytest.fixture(scope="module")
def chess_views(background):
    views = []
    for i, (rx, ry, off, d) in enumerate(POSES):
        rvec, tvec = _pose(rx, ry, off, d, CHESS)
        views.append((_render(CHESS, rvec, tvec, background, i), rvec, tvec))
    return views


def test_rendered_views_match_cv2_project_points(chess_views):
    """The test camera is the claimed one: detected corners sit where projectPoints puts them."""
    for img, rvec, tvec in chess_views[:4]:
        obj, pts = find_board(img, CHESS)
        proj, _ = cv2.projectPoints(obj.astype(np.float64), rvec, tvec, K_TRUE, DIST_TRUE)
        proj = proj.reshape(-1, 2)
        err = np.minimum(np.linalg.norm(pts - proj, axis=1).max(),
                         np.linalg.norm(pts[::-1] - proj, axis=1).max())  # either corner order
        assert err < 0.5


def _planarity_error_px(views, K, dist) -> float:
    """What the lens model is for: once corrected, a flat board must map to the image by a
    homography (as the mat does in `calibrate table`). Worst residual over all views, px."""
    worst = 0.0
    for obj, pts in views:
        flat = cv2.undistortPoints(pts.reshape(-1, 1, 2), K, dist, P=K,
                                   criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9))
        flat = flat.reshape(-1, 2)
        H, _ = cv2.findHomography(obj[:, :2], flat, 0)
        proj = cv2.perspectiveTransform(obj[:, :2].reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
        worst = max(worst, float(np.linalg.norm(proj - flat, axis=1).max()))
    return worst


def test_focal_length_and_distortion_recovered_from_chessboard_views(chess_views):
    views = [find_board(img, CHESS) for img, _, _ in chess_views]
    assert all(v is not None for v in views)
    fit = calibrate(views, SIZE)
    assert fit.matrix[0, 0] == pytest.approx(K_TRUE[0, 0], rel=0.01)
    assert fit.matrix[1, 1] == pytest.approx(K_TRUE[1, 1], rel=0.01)
    assert fit.matrix[0, 2] == pytest.approx(K_TRUE[0, 2], abs=4)
    assert fit.matrix[1, 2] == pytest.approx(K_TRUE[1, 2], abs=4)
    # Corrected with the fit, the board is as flat as with the true lens (the rest is corner
    # detection noise); uncorrected it is visibly bent.
    floor = _planarity_error_px(views, K_TRUE, DIST_TRUE)
    assert _planarity_error_px(views, fit.matrix, fit.dist) < floor + 0.1
    assert _planarity_error_px(views, K_TRUE, np.zeros(5)) > 2 * floor
    assert fit.rms_px < 0.3
    camera.check_intrinsics(fit)


def test_focal_length_recovered_from_charuco_views(background):
    views = []
    for i, (rx, ry, off, d) in enumerate(POSES):
        rvec, tvec = _pose(rx, ry, off, d, CHARUCO)
        found = find_board(_render(CHARUCO, rvec, tvec, background, 100 + i), CHARUCO)
        if found is not None:
            views.append(found)
    assert len(views) >= 10
    fit = calibrate(views, SIZE)
    assert fit.matrix[0, 0] == pytest.approx(K_TRUE[0, 0], rel=0.015)
    assert _planarity_error_px(views, fit.matrix, fit.dist) < _planarity_error_px(views, K_TRUE, DIST_TRUE) + 0.1


def test_undistort_straightens_the_board(chess_views):
    """After undistortion with the true intrinsics, the corners are where a distortion-free
    pinhole camera (same matrix) would put them."""
    section = CameraSection(tuple(map(tuple, K_TRUE)), tuple(DIST_TRUE), SIZE)
    img, rvec, tvec = chess_views[5]
    flat = camera.undistort(img, section)
    obj, pts = find_board(flat, CHESS)
    ideal, _ = cv2.projectPoints(obj.astype(np.float64), rvec, tvec, K_TRUE, None)
    ideal = ideal.reshape(-1, 2)
    err = min(np.linalg.norm(pts - ideal, axis=1).max(), np.linalg.norm(pts[::-1] - ideal, axis=1).max())
    assert err < 0.6
    # Without the correction the corners are visibly off.
    _, raw = find_board(img, CHESS)
    assert min(np.linalg.norm(raw - ideal, axis=1).max(), np.linalg.norm(raw[::-1] - ideal, axis=1).max()) > 3


def test_undistort_maps_come_from_the_calibration(chess_views):
    section = CameraSection(tuple(map(tuple, K_TRUE)), tuple(DIST_TRUE), SIZE)
    cal = default_calibration().replace_section(camera=section)
    m1, m2 = camera.undistort_maps(cal)
    assert m1.shape[:2] == (SIZE[1], SIZE[0])
    assert camera.undistort_maps(default_calibration()) is None
    img = chess_views[0][0]
    assert camera.undistort(img, default_calibration()) is img


def test_frame_of_another_size_is_refused():
    section = CameraSection(tuple(map(tuple, K_TRUE)), tuple(DIST_TRUE), SIZE)
    with pytest.raises(CameraCalibrationError, match=r"frames are 1280x720 but the lens was calibrated at 640x480"):
        camera.undistort(np.zeros((720, 1280, 3), np.uint8), section)


def test_too_few_views_is_refused(chess_views):
    views = [find_board(img, CHESS) for img, _, _ in chess_views[:5]]
    with pytest.raises(CameraCalibrationError, match=r"only 5 usable view\(s\).*at least 8"):
        calibrate(views, SIZE)


def test_cli_calibrates_from_a_folder_and_saves_the_camera_section(chess_views, tmp_path, capsys):
    folder = tmp_path / "views"
    folder.mkdir()
    for i, (img, _, _) in enumerate(chess_views):
        cv2.imwrite(str(folder / f"view{i:02d}.png"), img)
    cal_path = tmp_path / "cal.json"
    table = {"homography": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "reprojection_error_mm": 0.3,
             "resolution": [640, 480]}
    cal_path.write_text(json.dumps({"version": 1, "table": table}))
    assert main(["calibrate", "camera", "--images", str(folder), "--size", "9x6",
                 "--square-mm", "25", "--calibration", str(cal_path)]) == 0
    out = capsys.readouterr().out
    assert f"board found in {len(chess_views)} of {len(chess_views)} images" in out
    assert "table homography was removed" in out
    cal = load(cal_path)
    assert cal.camera.resolution == SIZE
    assert cal.camera.matrix[0][0] == pytest.approx(K_TRUE[0, 0], rel=0.01)
    assert cal.table is None


def test_cli_on_real_photos_without_a_board_says_what_to_do(shared_data, tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    for code in ("7H", "QS", "2C"):
        shutil.copy(shared_data / "photos" / "single-cards" / f"{code}.jpg", folder)
    rc = main(["calibrate", "camera", "--images", str(folder), "--calibration", str(tmp_path / "c.json")])
    # The photos differ in size, or hold no board: either way a clear message, no file.
    err = capsys.readouterr().err
    assert rc == 1
    assert ("all views must come from the camera at one resolution" in err
            or "only 0 usable view(s)" in err)
    assert not (tmp_path / "c.json").exists()


def test_bad_size_argument_is_explained():
    with pytest.raises(CameraCalibrationError, match="give COLSxROWS"):
        camera.parse_size("9by6")


@pytest.mark.parametrize("spec", [CHESS, CHARUCO], ids=["chessboard", "charuco"])
def test_printed_board_is_found_with_every_corner_at_true_scale(spec, tmp_path):
    args = ["calibrate", "camera", "--print-board", str(tmp_path / "board.png"), "--board",
            spec.kind.value, "--size", f"{spec.cols}x{spec.rows}", "--square-mm", "25"]
    if spec.marker_mm:
        args += ["--marker-mm", str(spec.marker_mm)]
    assert main(args) == 0
    img = cv2.imread(str(tmp_path / "board.png"), cv2.IMREAD_GRAYSCALE)
    small = cv2.resize(img, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)  # 75 dpi
    obj, pts = find_board(small, spec)
    expected = spec.cols * spec.rows if spec.kind is Board.CHESSBOARD else (spec.cols - 1) * (spec.rows - 1)
    assert len(pts) == expected
    # Neighbouring corners are one square apart: 25 mm at 75 dpi.
    d = np.linalg.norm(np.diff(pts.reshape(-1, 2), axis=0), axis=1)
    assert np.median(d) == pytest.approx(25 / 25.4 * 75, rel=0.02)


def test_old_opencv_charuco_api_finds_the_same_corners(background, monkeypatch):
    """OpenCV 4.6 (Raspberry Pi OS) has no CharucoDetector: find_board falls back to
    CharucoBoard_create, detectMarkers and interpolateCornersCharuco. Those 4.6 calls are
    emulated on the installed OpenCV to run that path."""
    import types
    real = cv2.aruco
    rvec, tvec = _pose(10, -10, (0, 0), 520, CHARUCO)
    img = _render(CHARUCO, rvec, tvec, background, 7)
    new_obj, new_pts = find_board(img, CHARUCO)

    class OldBoard:
        def __init__(self, cols, rows, square, marker, dictionary):
            self.board = real.CharucoBoard((cols, rows), square, marker, dictionary)
            self.dictionary = dictionary
            self.chessboardCorners = self.board.getChessboardCorners()

    def detectMarkers(image, dictionary, parameters=None):  # noqa: N802 (OpenCV's names)
        return real.ArucoDetector(dictionary).detectMarkers(image)

    def interpolateCornersCharuco(corners, ids, image, board):  # noqa: N802
        ch_corners, ch_ids, _, _ = real.CharucoDetector(board.board).detectBoard(
            image, markerCorners=corners, markerIds=ids)
        return (0 if ch_ids is None else len(ch_ids)), ch_corners, ch_ids

    old = types.SimpleNamespace(
        DICT_5X5_100=real.DICT_5X5_100, getPredefinedDictionary=real.getPredefinedDictionary,
        CharucoBoard_create=OldBoard, detectMarkers=detectMarkers,
        interpolateCornersCharuco=interpolateCornersCharuco)
    monkeypatch.setattr(cv2, "aruco", old)
    old_obj, old_pts = find_board(img, CHARUCO)
    assert np.array_equal(old_obj, new_obj)
    assert np.allclose(old_pts, new_pts, atol=0.05)


def test_print_board_into_a_place_that_cannot_take_it_is_a_clear_error(tmp_path, capsys):
    blocked = tmp_path / "board.png"
    blocked.mkdir()  # the folder exists, but the file cannot be written there
    assert main(["calibrate", "camera", "--print-board", str(blocked)]) == 1
    err = capsys.readouterr().err
    assert f"--print-board {blocked}: cannot write it" in err and "folder you can write to" in err


def test_cli_replaces_a_bad_camera_section_its_message_sends_it_to(chess_views, tmp_path, capsys):
    """`calibrate table` refuses a bad camera section and says to re-run `calibrate camera`:
    that step takes the file, keeping a backup, instead of refusing the same way."""
    from calibration.store import CalibrationError
    folder = tmp_path / "views"
    folder.mkdir()
    for i, (img, _, _) in enumerate(chess_views):
        cv2.imwrite(str(folder / f"view{i:02d}.png"), img)
    cal_path = tmp_path / "cal.json"
    bad_lens = {"matrix": [[600, 0, 320], [0, 600, 240], [0, 0, 1]], "dist": [0.1],
                "resolution": [640, 480]}
    cal_path.write_text(json.dumps({"version": 1, "camera": bad_lens, "vision": {"stable_frames": 4}}))
    with pytest.raises(CalibrationError, match=r"camera\.dist: .*re-run `spit-referee calibrate camera`"):
        load(cal_path)
    assert main(["calibrate", "camera", "--images", str(folder), "--size", "9x6",
                 "--square-mm", "25", "--calibration", str(cal_path)]) == 0
    assert "kept the old file as" in capsys.readouterr().out
    cal = load(cal_path)
    assert cal.camera.matrix[0][0] == pytest.approx(K_TRUE[0, 0], rel=0.01)
    assert cal.vision.stable_frames == 4
    assert json.loads((tmp_path / "cal.json.bak").read_text())["camera"] == bad_lens


def test_check_resolution_does_not_scale_the_lens_to_another_size():
    """Same aspect ratio, half the size: may be a crop of the sensor, so it is refused too."""
    section = CameraSection(tuple(map(tuple, K_TRUE)), tuple(DIST_TRUE), SIZE)
    camera.check_resolution(section, SIZE)
    with pytest.raises(camera.LensResolutionError, match=r"320x240 .* 640x480 .*camera\.resolution"):
        camera.check_resolution(section, (320, 240))
