"""`spit-referee calibrate mat`: the printable play mat at true scale, tiled over paper sheets.

The mat is drawn from the layout (calibration/layout.py, or a calibration file's own layout):
the ArUco markers at their exact millimetre positions (what `calibrate table` and the vision
stage find), the twelve zones outlined and labelled (p2's labels turned to face p2), and a
100 mm bar to check the print scale. When the paper is smaller than the mat, the mat is cut
into overlapping tiles; each sheet carries its label, its position in mat millimetres, and
alignment marks where the neighbouring sheet's edge goes.

Output: a PDF (one page per sheet, each page exactly the paper size, the mat image placed at
its true size), or PNG images (one per sheet, with the dpi written in the file's pHYs chunk).
The PDF is written by the few lines of `_write_pdf` rather than a library: one Flate-compressed
greyscale image per page is all a mat needs, and it keeps the dependency list short.
"""
from __future__ import annotations

import argparse
import math
import struct
import zlib
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import numpy as np

from calibration.layout import Layout, Rect, default_layout
from referee.errors import UserError

MM_PER_INCH = 25.4
PT_PER_INCH = 72.0

MIN_MARGIN_MM = 5.0
"""Blank border on every sheet edge: most printers cannot print closer to the edge than this."""
OVERLAP_MM = 15.0
"""How much neighbouring tiles share, so sheets can be aligned and taped without a gap."""
DEFAULT_DPI = 300
MIN_DPI, MAX_DPI = 50, 1200
"""Below 50 dpi a 30 mm marker is under 60 px and its bit edges blur when printed; above
1200 dpi an A2 page is a 700 MB image."""

ZONE_LINE_MM = 0.6
"""Zone outlines: thin and dark grey, visible to players but far weaker than a card's edge."""
ZONE_LINE_GREY = 110
LABEL_GREY = 90
TEXT_MM = 5.0  # height of zone labels
SCALE_BAR_MM = 100.0


class Paper(Enum):
    """ISO 216 sheet sizes, portrait width × height in mm."""

    A4 = (210.0, 297.0)
    A3 = (297.0, 420.0)
    A2 = (420.0, 594.0)

    @classmethod
    def parse(cls, text: str) -> "Paper":
        try:
            return cls[text.upper()]
        except KeyError:
            raise MatError(f"unknown paper size {text!r}: use a4, a3 or a2") from None


class MatError(UserError):
    """The mat cannot be produced as asked (bad output name, dpi, or folder)."""


@dataclass(frozen=True)
class Sheet:
    """One printed sheet: the image of the whole page, and where the page's top-left corner
    lies in mat millimetres (so page pixel (u, v) is mat mm (x0 + u/dpmm, y0 + v/dpmm))."""

    index: int          # 1-based
    row: int            # 1-based
    col: int
    image: np.ndarray   # uint8 greyscale, the whole page
    origin_mm: tuple[float, float]
    paper_mm: tuple[float, float]  # page width × height as printed (orientation applied)
    dpi: float


@dataclass(frozen=True)
class Tiling:
    paper_mm: tuple[float, float]   # as oriented
    rows: int
    cols: int
    step_mm: tuple[float, float]    # distance between neighbouring tiles' origins
    offset_mm: tuple[float, float]  # mat position of the first tile's printable top-left

    @property
    def sheets(self) -> int:
        return self.rows * self.cols

    @property
    def printable_mm(self) -> tuple[float, float]:
        return (self.paper_mm[0] - 2 * MIN_MARGIN_MM, self.paper_mm[1] - 2 * MIN_MARGIN_MM)


def plan_tiling(layout: Layout, paper: Paper) -> Tiling:
    """The fewest sheets that cover the mat, trying both orientations (landscape on a tie)."""
    best: Tiling | None = None
    pw, ph = paper.value
    for w, h in ((ph, pw), (pw, ph)):
        aw, ah = w - 2 * MIN_MARGIN_MM, h - 2 * MIN_MARGIN_MM
        cols = _count(layout.width_mm, aw)
        rows = _count(layout.height_mm, ah)
        # Centre the mat in the printed area (a single sheet then has equal margins).
        ox = -(aw + (cols - 1) * (aw - OVERLAP_MM) - layout.width_mm) / 2 if cols else 0.0
        oy = -(ah + (rows - 1) * (ah - OVERLAP_MM) - layout.height_mm) / 2 if rows else 0.0
        t = Tiling((w, h), rows, cols, (aw - OVERLAP_MM, ah - OVERLAP_MM), (ox, oy))
        if best is None or t.sheets < best.sheets:
            best = t
    assert best is not None
    return best


def _count(length: float, avail: float) -> int:
    if length <= avail + 1e-9:
        return 1
    return math.ceil((length - OVERLAP_MM) / (avail - OVERLAP_MM) - 1e-9)


# --- drawing ---------------------------------------------------------------------------------

def _aruco_marker(dictionary_name: str, marker_id: int, side_px: int) -> np.ndarray:
    import cv2
    aruco = cv2.aruco
    dictionary = aruco.getPredefinedDictionary(getattr(aruco, dictionary_name))
    if hasattr(aruco, "generateImageMarker"):        # OpenCV >= 4.7
        return aruco.generateImageMarker(dictionary, marker_id, side_px)
    return aruco.drawMarker(dictionary, marker_id, side_px)  # OpenCV 4.6 (Raspberry Pi OS)


def _text_patch(text: str, height_px: int, grey: int) -> np.ndarray:
    """`text` in Hershey simplex, `height_px` tall capitals, dark on white."""
    import cv2
    font = cv2.FONT_HERSHEY_SIMPLEX
    base_h = cv2.getTextSize("H", font, 1.0, 1)[0][1]
    scale = height_px / base_h
    thick = max(1, round(height_px / 9))
    (tw, th), bl = cv2.getTextSize(text, font, scale, thick)
    patch = np.full((th + bl + 2 * thick, tw + 2 * thick), 255, np.uint8)
    cv2.putText(patch, text, (thick, th + thick), font, scale, grey, thick, cv2.LINE_AA)
    return patch


def _paste_min(canvas: np.ndarray, patch: np.ndarray, cx: int, cy: int) -> None:
    """Darken `canvas` with `patch` centred at (cx, cy), clipped to the canvas."""
    h, w = patch.shape
    x0, y0 = cx - w // 2, cy - h // 2
    xa, ya = max(x0, 0), max(y0, 0)
    xb, yb = min(x0 + w, canvas.shape[1]), min(y0 + h, canvas.shape[0])
    if xa >= xb or ya >= yb:
        return
    region = canvas[ya:yb, xa:xb]
    np.minimum(region, patch[ya - y0:yb - y0, xa - x0:xb - x0], out=region)


def render_mat(layout: Layout | None = None, dpi: float = DEFAULT_DPI) -> np.ndarray:
    """The whole mat as a greyscale image at `dpi`: pixel (u, v) covers mat mm
    [u, u+1) × [v, v+1) divided by dpi/25.4. Markers sit exactly at their layout corners."""
    import cv2
    layout = layout or default_layout()
    _check_dpi(dpi)
    k = dpi / MM_PER_INCH  # px per mm
    W, H = round(layout.width_mm * k), round(layout.height_mm * k)
    mat = np.full((H, W), 255, np.uint8)
    line = max(1, round(ZONE_LINE_MM * k))
    for name, r in layout.zones.items():
        x0, y0 = round(r.x * k), round(r.y * k)
        x1, y1 = round((r.x + r.w) * k) - 1, round((r.y + r.h) * k) - 1
        cv2.rectangle(mat, (x0, y0), (x1, y1), ZONE_LINE_GREY, line, cv2.LINE_AA)
        _label_zone(mat, name, r, k)
    for m in layout.markers:
        x0, y0 = round(m.x * k), round(m.y * k)
        side = round((m.x + m.size) * k) - x0
        mat[y0:y0 + side, x0:x0 + side] = _aruco_marker(layout.aruco_dictionary, m.id, side)
    _scale_bar(mat, layout, k)
    return mat


def _label_zone(mat: np.ndarray, name: str, r: Rect, k: float) -> None:
    patch = _text_patch(name, round(TEXT_MM * k), LABEL_GREY)
    if name.startswith("p2."):
        patch = patch[::-1, ::-1]  # p2 sits across the table: turn the text to face them
        cy = round((r.y + 0.12 * r.h) * k)
    else:
        cy = round((r.y + 0.88 * r.h) * k)
    _paste_min(mat, patch, round((r.x + r.w / 2) * k), cy)


def _free_band(layout: Layout) -> tuple[float, float, float, float]:
    """A clear area left of the spit piles for the scale bar: (x0, x1, y_top, y_bottom) in mm."""
    spit_left = min(r.x for n, r in layout.zones.items() if n.startswith("spit."))
    spit = [r for n, r in layout.zones.items() if n.startswith("spit.")]
    return (10.0, spit_left - 10.0, min(r.y for r in spit), max(r.y + r.h for r in spit))


def _scale_bar(mat: np.ndarray, layout: Layout, k: float) -> None:
    x0, x1, ya, yb = _free_band(layout)
    length = SCALE_BAR_MM if x1 - x0 >= SCALE_BAR_MM else 50.0
    if x1 - x0 < length:
        return  # a custom layout with no room: the markers alone still set the scale
    cx = (x0 + x1) / 2
    y = (ya + yb) / 2
    bx0, bx1 = round((cx - length / 2) * k), round((cx + length / 2) * k)
    by, tick = round(y * k), round(3 * k)
    t = max(1, round(0.4 * k))
    mat[by - t // 2:by - t // 2 + t, bx0:bx1] = 0
    for bx in (bx0, bx1 - t):
        mat[by - tick:by + tick, bx:bx + t] = 0
    _paste_min(mat, _text_patch(f"{length:g} mm", round(3.5 * k), 0), round(cx * k), by - round(7 * k))
    _paste_min(mat, _text_patch("print at 100 % (actual size)", round(2.5 * k), LABEL_GREY),
               round(cx * k), by + round(8 * k))


def render_sheets(layout: Layout | None = None, paper: Paper = Paper.A3,
                  dpi: float = DEFAULT_DPI) -> list[Sheet]:
    """The mat cut into page images for `paper`, each with its label and alignment marks."""
    layout = layout or default_layout()
    mat = render_mat(layout, dpi)
    k = dpi / MM_PER_INCH
    t = plan_tiling(layout, paper)
    pw_mm, ph_mm = t.paper_mm
    PW, PH = round(pw_mm * k), round(ph_mm * k)
    aw, ah = t.printable_mm
    sheets: list[Sheet] = []
    for row in range(t.rows):
        for col in range(t.cols):
            # Mat mm of this page's printable top-left; the page's own corner is a margin before.
            px = t.offset_mm[0] + col * t.step_mm[0]
            py = t.offset_mm[1] + row * t.step_mm[1]
            ox, oy = px - MIN_MARGIN_MM, py - MIN_MARGIN_MM
            page = np.full((PH, PW), 255, np.uint8)
            # Copy the part of the mat inside this page's printable area (mat px ↔ page px are
            # both on the same grid once the origin is rounded to a whole pixel).
            u0, v0 = round(ox * k), round(oy * k)
            ma_x0, ma_y0 = max(round(px * k), 0), max(round(py * k), 0)
            ma_x1 = min(round((px + aw) * k), mat.shape[1])
            ma_y1 = min(round((py + ah) * k), mat.shape[0])
            if ma_x1 > ma_x0 and ma_y1 > ma_y0:
                page[ma_y0 - v0:ma_y1 - v0, ma_x0 - u0:ma_x1 - u0] = mat[ma_y0:ma_y1, ma_x0:ma_x1]
            index = row * t.cols + col + 1
            if t.sheets > 1:
                _alignment_marks(page, t, row, col, k)
                _mat_outline(page, layout, u0, v0, k)
            label = (f"spit-referee play mat  -  sheet {index} of {t.sheets} (row {row + 1}, "
                     f"column {col + 1})  -  {pw_mm:g} x {ph_mm:g} mm  -  print at 100 %")
            _paste_min(page, _text_patch(label, round(2.2 * k), 0),
                       PW // 2, PH - round(MIN_MARGIN_MM * k / 2))
            sheets.append(Sheet(index, row + 1, col + 1, page, (u0 / k, v0 / k),
                                (pw_mm, ph_mm), dpi))
    return sheets


def _alignment_marks(page: np.ndarray, t: Tiling, row: int, col: int, k: float) -> None:
    """Dashed lines where the next sheet's printed area begins (lay its edge on the line) and
    crosses at the overlap's corners."""
    m = MIN_MARGIN_MM
    aw, ah = t.printable_mm
    PH, PW = page.shape
    dash, t_px = max(2, round(3 * k)), max(1, round(0.3 * k))
    here = row * t.cols + col + 1
    if col + 1 < t.cols:   # the right neighbour starts OVERLAP_MM before this tile ends
        x = round((m + aw - OVERLAP_MM) * k)
        for y in range(round(m * k), round((m + ah) * k), 2 * dash):
            page[y:y + dash, x:x + t_px] = 0
        note = _text_patch(f"sheet {here + 1} starts here", round(2.2 * k), 0)
        _paste_min(page, np.rot90(note), x + round(2.5 * k), round((m + 12) * k) + note.shape[1] // 2)
    if row + 1 < t.rows:
        y = round((m + ah - OVERLAP_MM) * k)
        for x in range(round(m * k), round((m + aw) * k), 2 * dash):
            page[y:y + t_px, x:x + dash] = 0
        note = _text_patch(f"sheet {here + t.cols} starts here", round(2.2 * k), 0)
        _paste_min(page, note, round((m + 12) * k) + note.shape[1] // 2, y + round(2.5 * k))
    arm = round(4 * k)
    corners_x = [m, m + aw] + ([m + aw - OVERLAP_MM] if col + 1 < t.cols else []) \
        + ([m + OVERLAP_MM] if col > 0 else [])
    corners_y = [m, m + ah] + ([m + ah - OVERLAP_MM] if row + 1 < t.rows else []) \
        + ([m + OVERLAP_MM] if row > 0 else [])
    for cx in corners_x:
        for cy in corners_y:
            X, Y = min(round(cx * k), PW - 1), min(round(cy * k), PH - 1)
            page[max(Y - arm, 0):Y + arm, max(X - t_px // 2, 0):X + t_px] = 0
            page[max(Y - t_px // 2, 0):Y + t_px, max(X - arm, 0):X + arm] = 0


def _mat_outline(page: np.ndarray, layout: Layout, u0: int, v0: int, k: float) -> None:
    """The mat's outer edge, so the sheets can be trimmed to it."""
    import cv2
    x0, y0 = -u0, -v0
    x1, y1 = round(layout.width_mm * k) - u0 - 1, round(layout.height_mm * k) - v0 - 1
    cv2.rectangle(page, (x0, y0), (x1, y1), 160, 1)


def _check_dpi(dpi: float) -> None:
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise MatError(f"--dpi {dpi:g} is out of range: use {MIN_DPI} to {MAX_DPI} "
                       f"(300 suits most printers)")


# --- files -----------------------------------------------------------------------------------

def _png_with_dpi(image: np.ndarray, dpi: float) -> bytes:
    """PNG bytes with a pHYs chunk, so image viewers and printers know the true size."""
    import cv2
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise MatError("could not encode the PNG image")
    data = buf.tobytes()
    ppm = round(dpi / MM_PER_INCH * 1000)  # pixels per metre
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:ihdr_end] + chunk + data[ihdr_end:]


def _write_pdf(sheets: list[Sheet], path: Path) -> None:
    """A minimal PDF 1.4: per page one Flate-compressed DeviceGray image filling the page."""
    objects: list[bytes] = []

    def add(obj: bytes) -> int:
        objects.append(obj)
        return len(objects)

    catalog = add(b"")  # filled in once the pages object number is known
    pages = add(b"")
    kids = []
    for s in sheets:
        h, w = s.image.shape
        data = zlib.compress(np.ascontiguousarray(s.image).tobytes(), 9)
        img = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace "
                  b"/DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
                  % (w, h, len(data)) + data + b"\nendstream")
        pw = s.paper_mm[0] / MM_PER_INCH * PT_PER_INCH
        ph = s.paper_mm[1] / MM_PER_INCH * PT_PER_INCH
        content = b"q %.4f 0 0 %.4f 0 0 cm /Im0 Do Q" % (pw, ph)
        cs = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.4f %.4f] "
                        b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>"
                        % (pages, pw, ph, img, cs)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages
    objects[pages - 1] = (b"<< /Type /Pages /Count %d /Kids [%s] >>"
                          % (len(kids), b" ".join(b"%d 0 R" % k for k in kids)))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += (b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objects) + 1, catalog, xref))
    path.write_bytes(bytes(out))


def write_mat(out: str | Path, layout: Layout | None = None, paper: Paper = Paper.A3,
              dpi: float = DEFAULT_DPI) -> list[Path]:
    """Render and write the mat; returns the files written (one PDF, or one PNG per sheet)."""
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise MatError(f"--out {out}: the file name must end in .pdf or .png")
    if not out.parent.is_dir():
        raise MatError(f"--out {out}: folder {out.parent} does not exist; create it first")
    sheets = render_sheets(layout, paper, dpi)
    try:
        if suffix == ".pdf":
            _write_pdf(sheets, out)
            return [out]
        paths = [out] if len(sheets) == 1 else [
            out.with_name(f"{out.stem}-{s.index}{out.suffix}") for s in sheets]
        for s, p in zip(sheets, paths):
            p.write_bytes(_png_with_dpi(s.image, dpi))
        return paths
    except OSError as exc:
        raise MatError(f"cannot write {out}: {exc.strerror}") from exc


# --- command line ----------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    from referee.argtypes import file_ending, float_between

    parser.add_argument("--out", required=True, metavar="FILE.pdf|png",
                        type=file_ending(".pdf", ".png"),
                        help="a PDF (one page per sheet) or PNG (one image per sheet)")
    parser.add_argument("--paper", default="a3", choices=["a4", "a3", "a2"],
                        help="sheet size; the mat is tiled when it does not fit (default a3)")
    parser.add_argument("--dpi", type=float_between(MIN_DPI, MAX_DPI, "300 suits most printers"),
                        default=DEFAULT_DPI,
                        help=f"resolution of the printed image (default {DEFAULT_DPI})")
    parser.add_argument("--calibration", metavar="FILE",
                        help="use the layout of this calibration file instead of the standard mat")


def command(args: argparse.Namespace) -> int:
    layout = None
    if args.calibration:
        from calibration.store import load
        layout = load(args.calibration).layout
    layout = layout or default_layout()
    paper = Paper.parse(args.paper)
    _check_dpi(args.dpi)
    t = plan_tiling(layout, paper)
    paths = write_mat(args.out, layout, paper, args.dpi)
    orient = "landscape" if t.paper_mm[0] > t.paper_mm[1] else "portrait"
    print(f"wrote {', '.join(map(str, paths))}: the {layout.width_mm:g} x {layout.height_mm:g} mm "
          f"mat on {t.sheets} {paper.name} {orient} sheet{'s' if t.sheets > 1 else ''}"
          + (f" ({t.rows} x {t.cols})" if t.sheets > 1 else ""))
    print("print at 100 % / actual size (not 'fit to page'), then check that the scale bar "
          f"measures {SCALE_BAR_MM:g} mm")
    if t.sheets > 1:
        print(f"sheets overlap by {OVERLAP_MM:g} mm: lay each sheet's printed edge on the dashed "
              "line of its neighbour, tape, and trim to the thin outer line")
    return 0
