"""Rectify: where the table plane is in the camera frame.

A `Rectification` maps frame pixels to table millimetres (calibration/layout.py coordinates).
It comes from the calibration file's `table` section (`from_calibration`), or straight from the
play mat's ArUco markers found in a frame (`from_markers`). It also builds, for any rectangle of
the table, the pixel maps that cut that rectangle out of a frame (`zone_maps`), lens distortion
included when the calibration has a `camera` section: the zone cutter warps only the zones it
needs, never the whole frame (DESIGN.md: a full colour warp costs ~9 ms, our budget is 5 ms).

ArUco: OpenCV ≥ 4.7 has `cv2.aruco.ArucoDetector`; Raspberry Pi OS ships 4.6, whose API is the
functional `cv2.aruco.detectMarkers`. Both are supported.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration.layout import Layout, Rect, default_layout
from referee.errors import UserError

if TYPE_CHECKING:
    from calibration.store import Calibration

MIN_MARKERS = 3  # two markers on one edge leave the far side of a 580×410 mm mat off by ~7 px
MAX_REPROJECTION_MM = 3.0  # markers disagreeing more than this are misdetections (or a bent mat)


class RectifyError(UserError):
    """The table cannot be located in the frame."""


class NoTableError(RectifyError):
    """No play mat in view: too few of its ArUco markers found."""


class FrameSizeError(RectifyError):
    """The frame's size differs from the one the calibration was made at."""


@dataclass(frozen=True)
class Rectification:
    """Frame px → table mm for frames of `size` (w, h)."""

    frame_to_table: np.ndarray = field(repr=False)
    size: tuple[int, int]
    source: str  # "calibration" or "markers"
    reprojection_error_mm: float = 0.0
    camera_matrix: np.ndarray | None = field(default=None, repr=False)
    dist_coeffs: np.ndarray | None = field(default=None, repr=False)

    @property
    def table_to_frame(self) -> np.ndarray:
        h = np.linalg.inv(self.frame_to_table)
        return h / h[2, 2]

    def table_points_to_frame(self, points_mm: np.ndarray) -> np.ndarray:
        """(N, 2) table mm → (N, 2) pixels of the (distorted, as captured) frame."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        und = cv2.perspectiveTransform(pts, self.table_to_frame).reshape(-1, 2)
        if self.camera_matrix is None:
            return und
        k = self.camera_matrix
        norm = np.column_stack([(und[:, 0] - k[0, 2]) / k[0, 0], (und[:, 1] - k[1, 2]) / k[1, 1],
                                np.ones(len(und))])
        img, _ = cv2.projectPoints(norm, np.zeros(3), np.zeros(3), k, self.dist_coeffs)
        return img.reshape(-1, 2)

    def frame_points_to_table(self, points_px: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
        if self.camera_matrix is not None:
            pts = cv2.undistortPoints(pts, self.camera_matrix, self.dist_coeffs,
                                      P=self.camera_matrix)
        return cv2.perspectiveTransform(pts, self.frame_to_table).reshape(-1, 2)

    def zone_maps(self, rect: Rect, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
        """Maps for `cv2.remap` that cut `rect` out of a frame at `px_per_mm`, as fixed-point
        maps (OpenCV's fastest remap form)."""
        w, h = max(1, round(rect.w * px_per_mm)), max(1, round(rect.h * px_per_mm))
        xs = rect.x + (np.arange(w) + 0.5) / px_per_mm
        ys = rect.y + (np.arange(h) + 0.5) / px_per_mm
        gx, gy = np.meshgrid(xs, ys)
        px = self.table_points_to_frame(np.column_stack([gx.ravel(), gy.ravel()]))
        mx = px[:, 0].reshape(h, w).astype(np.float32)
        my = px[:, 1].reshape(h, w).astype(np.float32)
        return cv2.convertMaps(mx, my, cv2.CV_16SC2)

    def frame_box(self, rect: Rect, margin_px: int = 2) -> tuple[int, int, int, int]:
        """The frame's pixel box (x0, y0, x1, y1) around `rect`, clipped to the frame."""
        px = self.table_points_to_frame(np.array(rect.corners()))
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - margin_px
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + margin_px
        w, h = self.size
        return max(0, x0), max(0, y0), min(w, x1), min(h, y1)

    def sees(self, rect: Rect) -> bool:
        """Whether the whole of `rect` lies inside the frame."""
        px = self.table_points_to_frame(np.array(rect.corners()))
        w, h = self.size
        return bool(np.all(px >= 0) and np.all(px[:, 0] <= w) and np.all(px[:, 1] <= h))


def check_frame(frame: object, size: tuple[int, int] | None = None) -> np.ndarray:
    """`frame` as a BGR or grey uint8 image, or a FrameSizeError/RectifyError saying why not."""
    if not isinstance(frame, np.ndarray) or frame.size == 0:
        raise RectifyError("the frame is empty or not an image: check the camera or the file")
    if frame.dtype != np.uint8 or frame.ndim not in (2, 3) or (frame.ndim == 3 and frame.shape[2] != 3):
        raise RectifyError(f"the frame must be an 8-bit grey or BGR image, got shape {frame.shape} "
                           f"of {frame.dtype}")
    if size is not None and (frame.shape[1], frame.shape[0]) != tuple(size):
        raise FrameSizeError(
            f"the frame is {frame.shape[1]}×{frame.shape[0]} but the table was calibrated at "
            f"{size[0]}×{size[1]}: set the camera to that resolution or re-run "
            "`spit-referee calibrate table`")
    return frame


def from_homography(frame_to_table: np.ndarray, size: tuple[int, int], source: str = "calibration",
                    camera_matrix: np.ndarray | None = None,
                    dist_coeffs: np.ndarray | None = None) -> Rectification:
    h = np.asarray(frame_to_table, np.float64)
    if h.shape != (3, 3) or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
        raise RectifyError("the table homography is not an invertible 3×3 matrix: re-run "
                           "`spit-referee calibrate table`")
    return Rectification(h / h[2, 2], (int(size[0]), int(size[1])), source, 0.0,
                         camera_matrix, dist_coeffs)


def from_calibration(cal: "Calibration", size: tuple[int, int]) -> Rectification:
    """The rectification of the calibration file's `table` section, for frames of `size`."""
    if cal.table is None:
        raise NoTableError("the calibration file has no table section: run "
                           "`spit-referee calibrate table` with the mat in view")
    if tuple(cal.table.resolution) != tuple(size):
        raise FrameSizeError(
            f"the frame is {size[0]}×{size[1]} but the table was calibrated at "
            f"{cal.table.resolution[0]}×{cal.table.resolution[1]}: set the camera to that "
            "resolution or re-run `spit-referee calibrate table`")
    k = dist = None
    if cal.camera is not None:
        # Refused, as `calibrate table` refuses it, rather than run without the lens correction.
        from calibration.camera import check_resolution
        check_resolution(cal.camera, size)
        k, dist = cal.camera.matrix_array(), cal.camera.dist_array()
    r = from_homography(cal.table.homography_array(), size, "calibration", k, dist)
    return Rectification(r.frame_to_table, r.size, "calibration",
                         float(cal.table.reprojection_error_mm), k, dist)


def from_markers(image: np.ndarray, layout: Layout | None = None) -> Rectification:
    """The rectification found from the mat's markers in `image` (at least MIN_MARKERS of them),
    or NoTableError."""
    from calibration.table import HomographyRejectedError, MarkersNotFoundError, fit_homography

    layout = layout or default_layout()
    check_frame(image)
    # One marker detector and fit for the product: `calibrate table`'s (both ArUco APIs,
    # sub-pixel corners, a marker id seen twice refused rather than guessed).
    try:
        fit = fit_homography(image, layout)
    except (MarkersNotFoundError, HomographyRejectedError) as exc:
        raise NoTableError(f"no play mat in view: {exc}; or pass --calibration FILE") from None
    if len(fit.marker_ids) < MIN_MARKERS:
        raise NoTableError(
            f"no play mat in view: found {len(fit.marker_ids)} of its {len(layout.markers)} "
            f"ArUco markers (need {MIN_MARKERS}); put the whole mat in the picture, or pass "
            "--calibration FILE")
    if fit.rms_error_mm > MAX_REPROJECTION_MM:
        raise NoTableError(f"the mat's markers disagree by {fit.rms_error_mm:.1f} mm (more than "
                           f"{MAX_REPROJECTION_MM} mm): flatten the mat or re-print it")
    h, err = fit.homography, fit.rms_error_mm
    size = (image.shape[1], image.shape[0])
    return Rectification(h / h[2, 2], size, "markers", err)
