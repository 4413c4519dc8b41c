"""`spit-referee calibrate camera`: lens intrinsics from views of a chessboard or ChArUco board,
and the undistortion every later stage applies to frames.

OpenCV's standard routine: find the board's inner corners in many views (chessboard:
`findChessboardCornersSB`, sub-pixel by construction; ChArUco: its markers and the chessboard
corners between them, which also works when the board is partly out of view), then
`cv2.calibrateCamera`. The result goes into the calibration file's `camera` section.

`undistort(frame, cal)` remaps a frame with the saved intrinsics; the maps are built once per
camera section and cached, so each frame costs one `cv2.remap`. The undistorted frame keeps the
same camera matrix (same pixel scale), so the table homography is found on, and applied to,
undistorted frames.
"""
from __future__ import annotations

import argparse
import functools
import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Iterable

import numpy as np

from referee.errors import UserError

MIN_VIEWS = 8
"""Views needed for a trustworthy fit: intrinsics and five distortion terms need the board seen
at several tilts and places; fewer views fit the noise."""
MAX_RMS_PX = 1.0
"""Largest RMS corner reprojection error accepted, pixels. A sharp board gives 0.1–0.5 px; above
1 px the board was blurred, bent or misdetected in some views."""
TARGET_VIEWS = 15
"""Views collected from a live camera before fitting."""
MIN_VIEW_SHIFT = 0.05
"""A live view is kept only if the board moved by this fraction of the frame width since the
last kept view, so the views differ."""
CHARUCO_MIN_CORNERS = 6
"""A ChArUco view needs this many corners to add information (and for calibrateCamera)."""
CHARUCO_DICTIONARY = "DICT_5X5_100"
"""The ChArUco board's markers: a different family from the mat's 4×4 markers, so the two
never confuse each other."""
LIVE_MAX_FRAMES = 3000
"""Frames examined from a live camera (100 s at 30 fps) before giving up."""
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")


class CameraCalibrationError(UserError):
    """The board was not found often enough, the fit is poor, or frames do not match it."""


class Board(Enum):
    CHESSBOARD = "chessboard"
    CHARUCO = "charuco"


@dataclass(frozen=True)
class BoardSpec:
    """A calibration board. `cols × rows`: inner corners for a chessboard (9x6 for a board of
    10 × 7 squares), squares for a ChArUco board."""

    kind: Board
    cols: int
    rows: int
    square_mm: float
    marker_mm: float | None = None  # ChArUco only; default 3/4 of a square

    def object_points(self) -> np.ndarray:
        """Chessboard inner corners in mm on the board plane (z = 0), row by row."""
        g = np.mgrid[0:self.cols, 0:self.rows].T.reshape(-1, 2)
        return np.c_[g * self.square_mm, np.zeros(len(g))].astype(np.float32)


@dataclass(frozen=True)
class Intrinsics:
    matrix: np.ndarray       # 3×3
    dist: np.ndarray         # k1 k2 p1 p2 k3
    resolution: tuple[int, int]
    rms_px: float
    views: int


def parse_size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", text)
    if not m or int(m.group(1)) < 2 or int(m.group(2)) < 2:
        raise CameraCalibrationError(f"--size {text!r}: give COLSxROWS, e.g. 9x6 (inner corners "
                                     "of a chessboard) or 7x5 (squares of a ChArUco board)")
    return int(m.group(1)), int(m.group(2))


# --- board detection --------------------------------------------------------------------------

def _gray(frame: np.ndarray) -> np.ndarray:
    import cv2
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def _charuco_board(spec: BoardSpec):
    import cv2
    aruco = cv2.aruco
    dictionary = aruco.getPredefinedDictionary(getattr(aruco, CHARUCO_DICTIONARY))
    marker = spec.marker_mm or 0.75 * spec.square_mm
    if hasattr(aruco, "CharucoDetector"):  # OpenCV >= 4.7
        return aruco.CharucoBoard((spec.cols, spec.rows), spec.square_mm, marker, dictionary)
    return aruco.CharucoBoard_create(spec.cols, spec.rows, spec.square_mm, marker, dictionary)


def find_board(frame: np.ndarray, spec: BoardSpec) -> tuple[np.ndarray, np.ndarray] | None:
    """(object points N×3 mm, image points N×2 px) of the board in `frame`, or None."""
    import cv2
    gray = _gray(frame)
    if spec.kind is Board.CHESSBOARD:
        ok, corners = cv2.findChessboardCornersSB(gray, (spec.cols, spec.rows),
                                                  cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_EXHAUSTIVE)
        if not ok:
            return None
        return spec.object_points(), corners.reshape(-1, 2).astype(np.float32)
    board = _charuco_board(spec)
    aruco = cv2.aruco
    if hasattr(aruco, "CharucoDetector"):
        ch_corners, ch_ids, _, _ = aruco.CharucoDetector(board).detectBoard(gray)
        all_obj = board.getChessboardCorners()
    else:  # OpenCV 4.6
        m_corners, m_ids, _ = aruco.detectMarkers(gray, board.dictionary)
        if m_ids is None or len(m_ids) == 0:
            return None
        _, ch_corners, ch_ids = aruco.interpolateCornersCharuco(m_corners, m_ids, gray, board)
        all_obj = board.chessboardCorners
    if ch_ids is None or len(ch_ids) < CHARUCO_MIN_CORNERS:
        return None
    ids = np.asarray(ch_ids).ravel()
    return (np.asarray(all_obj, np.float32)[ids].reshape(-1, 3),
            np.asarray(ch_corners, np.float32).reshape(-1, 2))


# --- the fit ----------------------------------------------------------------------------------

def calibrate(views: Iterable[tuple[np.ndarray, np.ndarray]], resolution: tuple[int, int],
              *, fit_k3: bool = False) -> Intrinsics:
    """`cv2.calibrateCamera` over (object points, image points) views.

    k3 is held at 0 unless `fit_k3` (a wide-angle lens): it is pinned down only by views that
    reach the frame's corners, and without them it swings the model far off there."""
    import cv2
    obj, img = [], []
    for o, i in views:
        obj.append(np.asarray(o, np.float32).reshape(-1, 3))
        img.append(np.asarray(i, np.float32).reshape(-1, 1, 2))
    if len(obj) < MIN_VIEWS:
        raise CameraCalibrationError(
            f"only {len(obj)} usable view(s) of the board; at least {MIN_VIEWS} are needed: show "
            "the board at different tilts and places in the frame, sharp and fully lit")
    flags = 0 if fit_k3 else cv2.CALIB_FIX_K3
    rms, K, dist, _, _ = cv2.calibrateCamera(obj, img, resolution, None, None, flags=flags)
    return Intrinsics(K, dist.ravel()[:5], resolution, float(rms), len(obj))


def check_intrinsics(fit: Intrinsics, max_rms_px: float = MAX_RMS_PX) -> None:
    if fit.rms_px > max_rms_px:
        raise CameraCalibrationError(
            f"the lens fit is poor: {fit.rms_px:.2f} px RMS over {fit.views} views (limit "
            f"{max_rms_px:g} px). Use a flat, rigid board, hold it still (no motion blur), light "
            "it evenly, check --size and --square-mm, and try again")
    fx, fy = fit.matrix[0, 0], fit.matrix[1, 1]
    if not (0.5 < fx / fy < 2.0):
        raise CameraCalibrationError(
            f"the lens fit is implausible (fx {fx:.0f} px, fy {fy:.0f} px): show the board at "
            "more tilts and try again")


# --- undistortion -----------------------------------------------------------------------------

def _camera_section(cal):
    return getattr(cal, "camera", cal)


@functools.lru_cache(maxsize=4)
def _maps_for(section) -> tuple[np.ndarray, np.ndarray]:
    import cv2
    K = section.matrix_array()
    return cv2.initUndistortRectifyMap(K, section.dist_array(), None, K, tuple(section.resolution),
                                       cv2.CV_16SC2)


def undistort_maps(cal) -> tuple[np.ndarray, np.ndarray] | None:
    """`cv2.remap` maps for a Calibration (or its CameraSection); None when there is no camera
    section (frames are used as they come)."""
    section = _camera_section(cal)
    return None if section is None else _maps_for(section)


class LensResolutionError(CameraCalibrationError):
    """Frames of another size than the one the lens intrinsics were fitted at."""


def check_resolution(section, size: tuple[int, int]) -> None:
    """Refuse frames of `size` (w, h) unless the camera section was fitted at that size.

    The intrinsics are not scaled to another size, even one of the same aspect ratio: they
    scale only when both sizes see the whole sensor (binned or resized), but camera modes
    often crop it instead (the Pi camera v2's 1920x1080 is a crop of the middle of the
    sensor, its 1640x1232 the whole sensor binned), and a frame cannot say which it is. A
    wrong guess would bend every zone silently; refusing costs one `calibrate camera`."""
    w, h = size
    cw, ch = section.resolution
    if (w, h) != (cw, ch):
        raise LensResolutionError(
            f"frames are {w}x{h} but the lens was calibrated at {cw}x{ch} (the calibration "
            f"file's camera.resolution), and its correction holds only at that size: set the "
            f"camera to {cw}x{ch} (for `calibrate table` too), or re-run `spit-referee calibrate camera` at {w}x{h} (then "
            "`calibrate table`), or delete the \"camera\" section to run without lens correction")


def undistort(frame: np.ndarray, cal) -> np.ndarray:
    """The frame with lens distortion removed (same size, same camera matrix)."""
    import cv2
    section = _camera_section(cal)
    if section is None:
        return frame
    h, w = frame.shape[:2]
    check_resolution(section, (w, h))
    m1, m2 = _maps_for(section)
    return cv2.remap(frame, m1, m2, cv2.INTER_LINEAR)


# --- the board to print -----------------------------------------------------------------------

BOARD_DPI = 300
BOARD_MARGIN_MM = 15.0  # white around the board: the detectors need a quiet border


def render_board(spec: BoardSpec, dpi: float = BOARD_DPI) -> np.ndarray:
    """The board as a greyscale image at true scale for `dpi` (print at 100 %)."""
    import cv2
    k = dpi / 25.4
    margin = round(BOARD_MARGIN_MM * k)
    if spec.kind is Board.CHESSBOARD:
        sq = spec.square_mm * k
        nx, ny = spec.cols + 1, spec.rows + 1  # squares
        img = np.full((round(ny * sq), round(nx * sq)), 255, np.uint8)
        for j in range(ny):
            for i in range(nx):
                if (i + j) % 2 == 0:
                    img[round(j * sq):round((j + 1) * sq), round(i * sq):round((i + 1) * sq)] = 0
    else:
        board = _charuco_board(spec)
        size = (round(spec.cols * spec.square_mm * k), round(spec.rows * spec.square_mm * k))
        img = board.generateImage(size) if hasattr(board, "generateImage") else board.draw(size)
    return cv2.copyMakeBorder(img, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=255)


def write_board(spec: BoardSpec, out: Path, dpi: float = BOARD_DPI) -> Path:
    from calibration.mat import _png_with_dpi
    if out.suffix.lower() != ".png":
        raise CameraCalibrationError(f"--print-board {out}: the file name must end in .png")
    if not out.parent.is_dir():
        raise CameraCalibrationError(f"--print-board {out}: folder {out.parent} does not exist; "
                                     "create it first")
    data = _png_with_dpi(render_board(spec, dpi), dpi)
    try:
        out.write_bytes(data)
    except OSError as exc:
        raise CameraCalibrationError(
            f"--print-board {out}: cannot write it ({exc.strerror or exc}): choose a file in a "
            "folder you can write to") from exc
    return out


# --- views from a folder or a camera ----------------------------------------------------------

def views_from_folder(folder: Path, spec: BoardSpec) -> tuple[list, tuple[int, int], list[str]]:
    import cv2
    if not folder.is_dir():
        raise CameraCalibrationError(f"--images {folder}: no such folder")
    try:
        paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    except OSError as exc:
        raise CameraCalibrationError(f"--images {folder}: cannot list it ({exc.strerror or exc}): "
                                     "check its permissions") from exc
    if not paths:
        raise CameraCalibrationError(f"--images {folder}: no images in it "
                                     f"({', '.join(IMAGE_SUFFIXES)})")
    views, skipped, size = [], [], None
    for p in paths:
        try:
            img = cv2.imread(str(p), cv2.IMREAD_GRAYSCALE)
        except cv2.error:  # some decoders raise on a damaged file instead of returning None
            img = None
        if img is None:
            skipped.append(f"{p.name} (not readable)")
            continue
        s = (img.shape[1], img.shape[0])
        if size is None:
            size = s
        elif s != size:
            raise CameraCalibrationError(
                f"--images: {p.name} is {s[0]}x{s[1]} but the first image is {size[0]}x{size[1]}: "
                "all views must come from the camera at one resolution")
        found = find_board(img, spec)
        if found is None:
            skipped.append(f"{p.name} (no board)")
        else:
            views.append(found)
    assert size is not None or skipped
    if size is None:
        raise CameraCalibrationError(f"--images {folder}: none of the images can be read")
    return views, size, skipped


def views_from_camera(src: str, spec: BoardSpec, target: int = TARGET_VIEWS):
    from vision.sources import open_source
    views: list = []
    last: np.ndarray | None = None
    size = None
    with open_source(src) as source:
        for n, (frame, _t) in enumerate(source):
            size = (frame.shape[1], frame.shape[0])
            found = find_board(frame, spec)
            if found is not None:
                pts = found[1]
                centre = pts.mean(axis=0)
                if last is None or np.linalg.norm(centre - last) > MIN_VIEW_SHIFT * size[0]:
                    views.append(found)
                    last = centre
                    print(f"view {len(views)}/{target} kept; now move or tilt the board", flush=True)
            if len(views) >= target or n >= LIVE_MAX_FRAMES:
                break
    if size is None:
        raise CameraCalibrationError(f"camera {src} gave no frames: check it is connected")
    return views, size


# --- command line -----------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--images", metavar="DIR", help="a folder of photos of the board")
    src.add_argument("--camera", metavar="SRC", help="picamera2, a device index, a video or a folder")
    src.add_argument("--print-board", metavar="OUT.png",
                     help="write the board to print (300 dpi, true scale) and stop")
    parser.add_argument("--board", choices=[b.value for b in Board], default="chessboard")
    parser.add_argument("--size", default="9x6",
                        help="inner corners of a chessboard, or squares of a ChArUco board (default 9x6)")
    parser.add_argument("--square-mm", type=float, default=25.0, help="side of one square in mm (default 25)")
    parser.add_argument("--marker-mm", type=float, help="ChArUco marker side in mm (default 3/4 of a square)")
    parser.add_argument("--calibration", metavar="FILE", default="calibration.json",
                        help="the calibration file to update (created if missing)")
    parser.add_argument("--wide", action="store_true",
                        help="a wide-angle lens: also fit k3 (show the board in every corner of the frame)")
    parser.add_argument("--max-rms-px", type=float, default=MAX_RMS_PX,
                        help=f"refuse a fit worse than this (default {MAX_RMS_PX:g} px)")


def command(args: argparse.Namespace) -> int:
    from calibration.store import CameraSection, load_for_update, save
    cols, rows = parse_size(args.size)
    if args.square_mm <= 0:
        raise CameraCalibrationError(f"--square-mm {args.square_mm:g}: must be above 0")
    spec = BoardSpec(Board(args.board), cols, rows, args.square_mm, args.marker_mm)
    if args.print_board:
        out = write_board(spec, Path(args.print_board))
        print(f"wrote {out}: print it at 100 % (actual size) and glue it to something flat; "
              f"check that one square measures {spec.square_mm:g} mm")
        return 0
    path = Path(args.calibration)
    # The table section goes too (below), so a bad one must not stop this step either.
    cal = load_for_update(path, ("camera", "table"))
    if args.images:
        views, size, skipped = views_from_folder(Path(args.images), spec)
        print(f"board found in {len(views)} of {len(views) + len(skipped)} images")
        for s in skipped:
            print(f"  skipped {s}")
    else:
        views, size = views_from_camera(args.camera, spec)
    fit = calibrate(views, size, fit_k3=args.wide)
    print(f"focal length {fit.matrix[0, 0]:.1f} x {fit.matrix[1, 1]:.1f} px, centre "
          f"({fit.matrix[0, 2]:.1f}, {fit.matrix[1, 2]:.1f}), distortion "
          f"{' '.join(f'{d:+.4f}' for d in fit.dist)}; RMS error {fit.rms_px:.3f} px over "
          f"{fit.views} views (limit {args.max_rms_px:g} px)")
    check_intrinsics(fit, args.max_rms_px)
    section = CameraSection(tuple(tuple(float(x) for x in r) for r in fit.matrix),  # type: ignore[arg-type]
                            tuple(float(d) for d in fit.dist), size, round(fit.rms_px, 4))
    # A table homography found on frames corrected differently (or not at all) no longer
    # holds: drop it rather than let zones drift, and say so.
    new = cal.replace_section(camera=section, table=None)
    if cal.table is not None:
        print("the table homography was removed (it was found with a different lens "
              "correction): run `spit-referee calibrate table` again now")
    save(new, path)
    print(f"saved the lens intrinsics ({size[0]}x{size[1]}) to {path}")
    return 0
