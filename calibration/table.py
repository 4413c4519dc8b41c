"""`spit-referee calibrate table`: the homography from frame pixels to table millimetres.

The play mat carries ArUco markers at known millimetre positions (calibration/layout.py). We
find them in one frame (a still, or the first good frame of a camera), fit a homography on all
their corners with `cv2.findHomography`, check it by its reprojection error in millimetres,
and save it into the calibration file's `table` section. A preview image draws the twelve zones
where the homography puts them, so the user can see at a glance that they sit on the mat.

When the calibration file has a `camera` section, the frame is undistorted first, so the
homography maps undistorted pixels (what vision/ sees after `calibration.camera.undistort`).

Both ArUco APIs are supported: `cv2.aruco.ArucoDetector` (OpenCV ≥ 4.7) and the functional
`cv2.aruco.detectMarkers` of OpenCV 4.6 that Raspberry Pi OS ships.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.layout import Layout
from referee.errors import UserError

MIN_MARKERS = 3
"""Markers needed for a fit: three corners of the mat span it in both directions, and with
twelve corner points a single bad corner shows up in the error instead of bending the fit."""
MAX_REPROJECTION_ERROR_MM = 2.0
"""Largest RMS reprojection error accepted, mm. A stock zone leaves ~13 mm around a card; a
2 mm error keeps every card well inside its zone. A flat, well-lit mat gives 0.1–0.5 mm."""
CAMERA_WARMUP_FRAMES = 10
"""Frames dropped after opening a camera while its exposure and white balance settle."""
CAMERA_ATTEMPTS = 60
"""Frames tried (about two seconds at 30 fps) before saying the markers are not in view."""


class MarkersNotFoundError(UserError):
    """Too few of the mat's ArUco markers were found in the frame."""


class HomographyRejectedError(UserError):
    """The markers were found but the fit is too poor to trust."""


class DuplicateMarkerError(UserError):
    """One marker id seen twice: which copy belongs to the mat cannot be known."""


class FrameReadError(UserError):
    """An image file could not be read."""


class PreviewError(UserError):
    """The preview image cannot be written (a bad name, or a folder that refuses it)."""


PREVIEW_SUFFIXES = (".png", ".jpg", ".jpeg")
"""What `--preview` writes: formats every OpenCV build encodes from a colour frame."""


@dataclass(frozen=True)
class TableFit:
    """A homography frame px → table mm and how well it fits the markers it came from."""

    homography: np.ndarray            # 3×3
    rms_error_mm: float
    max_error_mm: float
    marker_ids: tuple[int, ...]       # the layout's markers found in the frame
    missing_ids: tuple[int, ...]      # the layout's markers not found
    corners_px: dict[int, np.ndarray]  # id → 4×2 detected corners
    resolution: tuple[int, int]       # frame width, height


# --- marker detection -------------------------------------------------------------------------

def _to_gray(frame: np.ndarray) -> np.ndarray:
    import cv2
    if frame.ndim == 2:
        return frame
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY)
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def detect_markers(frame: np.ndarray, dictionary_name: str = "DICT_4X4_50") -> dict[int, np.ndarray]:
    """ArUco markers in `frame`: {id: 4×2 float corners in ArUco's order (TL, TR, BR, BL)},
    refined to sub-pixel. Works with OpenCV's new (≥ 4.7) and old (4.6) ArUco API. An id seen
    twice raises DuplicateMarkerError rather than guessing which copy is the mat's."""
    import cv2
    aruco = cv2.aruco
    gray = _to_gray(frame)
    dict_id = getattr(aruco, dictionary_name)
    if hasattr(aruco, "ArucoDetector"):
        dictionary = aruco.getPredefinedDictionary(dict_id)
        params = aruco.DetectorParameters()
        params.cornerRefinementMethod = aruco.CORNER_REFINE_SUBPIX
        corners, ids, _ = aruco.ArucoDetector(dictionary, params).detectMarkers(gray)
    else:  # OpenCV 4.6: functional API, parameters from a factory
        dictionary = (aruco.getPredefinedDictionary(dict_id) if hasattr(aruco, "getPredefinedDictionary")
                      else aruco.Dictionary_get(dict_id))
        params = aruco.DetectorParameters_create()
        params.cornerRefinementMethod = aruco.CORNER_REFINE_SUBPIX
        corners, ids, _ = aruco.detectMarkers(gray, dictionary, parameters=params)
    if ids is None:
        return {}
    found: dict[int, np.ndarray] = {}
    for mid, c in zip(np.asarray(ids).ravel(), corners):
        if int(mid) in found:
            raise DuplicateMarkerError(
                f"ArUco marker {int(mid)} is in view twice (a second mat, or a printout of it?): "
                "remove the other copy from the camera's view and try again")
        found[int(mid)] = np.asarray(c, np.float64).reshape(4, 2)
    return found


# --- the fit ----------------------------------------------------------------------------------

def fit_homography(frame: np.ndarray, layout: Layout, *, source: str = "the frame") -> TableFit:
    """Find the layout's markers in `frame` and fit frame px → table mm on all their corners.

    Raises MarkersNotFoundError (with what was seen and what to do) when fewer than
    MIN_MARKERS of the layout's markers are found."""
    import cv2
    found = detect_markers(frame, layout.aruco_dictionary)
    by_id = {m.id: m for m in layout.markers}
    ids = tuple(sorted(i for i in found if i in by_id))
    missing = tuple(sorted(set(by_id) - set(ids)))
    need = min(MIN_MARKERS, len(by_id))
    if len(ids) < need:
        seen = f"found {len(ids)} ({', '.join(map(str, ids))})" if ids else "found none"
        stray = sorted(set(found) - set(by_id))
        extra = f"; markers {stray} are not the mat's" if stray else ""
        raise MarkersNotFoundError(
            f"markers not found in {source}: the mat has {len(by_id)} ArUco markers "
            f"({layout.aruco_dictionary}, ids {', '.join(map(str, sorted(by_id)))}), {seen}{extra}; "
            f"at least {need} are needed. Put the printed mat (`spit-referee calibrate mat`) in "
            "view with all its corner markers visible, evenly lit, not covered and in focus, "
            "then run `spit-referee calibrate table` again")
    src = np.concatenate([found[i] for i in ids]).astype(np.float64)
    dst = np.concatenate([np.asarray(by_id[i].corners(), np.float64) for i in ids])
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        raise HomographyRejectedError(
            f"the markers in {source} give no homography (are they in a line?): show the "
            "whole mat to the camera and try again")
    err = np.linalg.norm(apply_homography(H, src) - dst, axis=1)
    h, w = frame.shape[:2]
    return TableFit(H / H[2, 2], float(np.sqrt(np.mean(err ** 2))), float(err.max()), ids,
                    missing, {i: found[i] for i in ids}, (w, h))


def apply_homography(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Map N×2 points through a 3×3 homography."""
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.c_[p, np.ones(len(p))] @ np.asarray(H, np.float64).T
    return q[:, :2] / q[:, 2:3]


def check_fit(fit: TableFit, max_error_mm: float = MAX_REPROJECTION_ERROR_MM) -> None:
    """Refuse a fit whose RMS reprojection error is above `max_error_mm`, with advice."""
    if fit.rms_error_mm > max_error_mm:
        raise HomographyRejectedError(
            f"the mat does not fit well: reprojection error {fit.rms_error_mm:.2f} mm RMS "
            f"(worst corner {fit.max_error_mm:.2f} mm), above the {max_error_mm:g} mm limit. "
            "Lay the mat flat (no curl or creases), check it was printed at 100 % scale, "
            "calibrate the lens first if it is a wide-angle one (`spit-referee calibrate "
            "camera`), and try again")


# --- preview ----------------------------------------------------------------------------------

def draw_preview(frame: np.ndarray, fit: TableFit, layout: Layout) -> np.ndarray:
    """The frame with the twelve zones drawn where the homography puts them, and the markers."""
    import cv2
    img = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame[:, :, :3].copy()
    Hinv = np.linalg.inv(fit.homography)
    scale = max(img.shape[:2]) / 1000
    thick = max(1, round(2 * scale))
    for name, r in layout.zones.items():
        poly = apply_homography(Hinv, np.array(r.corners()))
        cv2.polylines(img, [np.round(poly).astype(np.int32)], True, (0, 220, 0), thick, cv2.LINE_AA)
        cx, cy = apply_homography(Hinv, np.array([r.center]))[0]
        (tw, th), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, thick)
        cv2.putText(img, name, (round(cx - tw / 2), round(cy + th / 2)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.5 * scale, (0, 220, 0), thick, cv2.LINE_AA)
    outline = apply_homography(Hinv, np.array([(0, 0), (layout.width_mm, 0),
                                               (layout.width_mm, layout.height_mm), (0, layout.height_mm)]))
    cv2.polylines(img, [np.round(outline).astype(np.int32)], True, (0, 200, 255), thick, cv2.LINE_AA)
    for mid, c in fit.corners_px.items():
        cv2.polylines(img, [np.round(c).astype(np.int32)], True, (255, 80, 0), thick, cv2.LINE_AA)
        cv2.putText(img, str(mid), tuple(np.round(c[0]).astype(int)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.6 * scale, (255, 80, 0), thick, cv2.LINE_AA)
    cv2.putText(img, f"reprojection error {fit.rms_error_mm:.2f} mm RMS", (10, round(30 * scale)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, (0, 0, 255), thick, cv2.LINE_AA)
    return img


def check_preview_path(out: str | Path) -> Path:
    """`out` as a preview path, checked before any work: a known image suffix, a folder that
    exists. (Whether the folder takes the file is known only when it is written.)"""
    p = Path(out)
    if p.suffix.lower() not in PREVIEW_SUFFIXES:
        raise PreviewError(f"--preview {p}: the file name must end in "
                           f"{', '.join(PREVIEW_SUFFIXES[:-1])} or {PREVIEW_SUFFIXES[-1]} "
                           "(e.g. zones.png)")
    if not p.parent.is_dir():
        raise PreviewError(f"--preview {p}: folder {p.parent} does not exist; create it first "
                           "or give another path")
    return p


def _preview_name(text: str) -> str:
    """argparse `type=` for --preview: a name OpenCV cannot write is a usage error (exit 2),
    found before any work."""
    if Path(text).suffix.lower() not in PREVIEW_SUFFIXES:
        raise argparse.ArgumentTypeError(
            f"{text!r}: the file name must end in {', '.join(PREVIEW_SUFFIXES[:-1])} or "
            f"{PREVIEW_SUFFIXES[-1]} (e.g. zones.png)")
    return text


def write_preview(out: Path, image: np.ndarray) -> str | None:
    """Write `image` to `out`; None when written, else why not (for the caller's message)."""
    import cv2
    try:
        ok, buf = cv2.imencode(out.suffix.lower(), image)
    except cv2.error as exc:
        return f"OpenCV cannot encode it: {str(exc).strip().splitlines()[-1]}"
    if not ok:
        return "OpenCV cannot encode it"
    try:
        out.write_bytes(buf.tobytes())
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


# --- frames -----------------------------------------------------------------------------------

def read_image(path: str | Path) -> np.ndarray:
    import cv2
    p = Path(path)
    if not p.is_file():
        raise FrameReadError(f"no image file at {p}: check the path")
    try:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    except cv2.error:  # some decoders raise on a damaged file instead of returning None
        img = None
    if img is None:
        raise FrameReadError(f"{p} is not an image OpenCV can read (use a PNG or JPEG file)")
    return img


def _fit_from_camera(spec: str, layout: Layout, undistort) -> tuple[np.ndarray, TableFit]:
    """The first frame (after the warm-up) in which the markers are found."""
    from vision.sources import open_source
    last: MarkersNotFoundError | None = None
    warmup_frame = None
    with open_source(spec) as source:
        for n, (frame, _t) in enumerate(source):
            if n < CAMERA_WARMUP_FRAMES:
                warmup_frame = frame
                continue
            frame = undistort(frame)
            try:
                return frame, fit_homography(frame, layout, source=f"camera {spec}")
            except MarkersNotFoundError as exc:
                last = exc
            if n >= CAMERA_WARMUP_FRAMES + CAMERA_ATTEMPTS:
                break
    if last is None and warmup_frame is not None:
        # A short recording (a folder of a few stills) ended within the warm-up, which is
        # there for a live camera's exposure: its last frame is as good as any.
        frame = undistort(warmup_frame)
        return frame, fit_homography(frame, layout, source=f"camera {spec}")
    if last is None:
        raise MarkersNotFoundError(f"camera {spec} gave no frames to look for the markers in: "
                                   "check it is connected and not used by another program")
    raise last


# --- command line -----------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    from referee.argtypes import positive_float

    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--image", metavar="FILE", help="a still photo of the mat from the camera's place")
    src.add_argument("--camera", metavar="SRC",
                     help="picamera2, a device index (0), a video file or a folder of images")
    parser.add_argument("--calibration", metavar="FILE", default="calibration.json",
                        help="the calibration file to update (created if missing; "
                             "default calibration.json)")
    parser.add_argument("--preview", metavar="OUT.png", type=_preview_name,
                        help="write the frame with the zones drawn over it (.png or .jpg; "
                             "written after the calibration is saved)")
    parser.add_argument("--max-error-mm", type=positive_float, default=MAX_REPROJECTION_ERROR_MM,
                        help=f"refuse a fit worse than this (default {MAX_REPROJECTION_ERROR_MM:g} mm)")


def command(args: argparse.Namespace) -> int:
    from calibration.store import TableSection, load_for_update, save
    # A bad preview name is refused before the work, not found after it.
    preview = check_preview_path(args.preview) if args.preview else None
    path = Path(args.calibration)
    cal = load_for_update(path, "table")
    if cal.camera is not None:
        from calibration.camera import undistort
        def fix(frame: np.ndarray) -> np.ndarray:
            return undistort(frame, cal.camera)
    else:
        def fix(frame: np.ndarray) -> np.ndarray:
            return frame
    if args.image:
        frame = fix(read_image(args.image))
        fit = fit_homography(frame, cal.layout, source=args.image)
    else:
        frame, fit = _fit_from_camera(args.camera, cal.layout, fix)
    missing = f"; not seen: {', '.join(map(str, fit.missing_ids))}" if fit.missing_ids else ""
    print(f"markers found: {', '.join(map(str, fit.marker_ids))} of {len(cal.layout.markers)}{missing}")
    if fit.missing_ids:
        # The error below is measured on the markers seen; near a missing one the fit
        # extrapolates (bench/calibration.py: up to ~2 mm there against ~0.3 mm typical).
        print("note: with a marker hidden the fit is least sure near it; for the best result "
              "calibrate again with every marker in view")
    print(f"reprojection error: {fit.rms_error_mm:.3f} mm RMS, worst corner {fit.max_error_mm:.3f} mm "
          f"(limit {args.max_error_mm:g} mm)")
    rejected: HomographyRejectedError | None = None
    try:
        check_fit(fit, args.max_error_mm)
    except HomographyRejectedError as exc:
        rejected = exc  # still write the preview: it shows where the fit goes wrong
    if rejected is None:
        # Saved before the preview is written, so a preview that fails costs no good fit.
        table = TableSection(tuple(tuple(float(x) for x in row) for row in fit.homography),  # type: ignore[arg-type]
                             round(fit.rms_error_mm, 4), fit.resolution)
        save(cal.replace_section(table=table), path)
        print(f"saved the table homography ({fit.resolution[0]}x{fit.resolution[1]} frames) to {path}")
    if preview is not None:
        problem = write_preview(preview, draw_preview(frame, fit, cal.layout))
        if problem is None:
            print(f"preview: {preview}")
        elif rejected is None:
            raise PreviewError(
                f"the table calibration itself was saved to {path}, but the preview {preview} "
                f"could not be written ({problem}): to see the zones, run the step again with "
                "--preview naming a file in a folder you can write to")
        else:
            print(f"warning: the preview {preview} could not be written ({problem})", file=sys.stderr)
    if rejected is not None:
        raise rejected
    return 0
