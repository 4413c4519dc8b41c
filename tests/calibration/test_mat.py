"""The printed play mat: markers where the layout says, tiles that cover the mat, valid files."""
from __future__ import annotations

import re
import struct
import zlib

import cv2
import numpy as np
import pytest

from calibration import mat
from calibration.layout import default_layout
from calibration.mat import MIN_MARGIN_MM, MM_PER_INCH, MatError, Paper
from referee.cli import main

DPI = 100  # 3.9 px/mm: 30 mm markers are 118 px, plenty to detect, fast to render
TOL_PX = 1.5  # ArUco's corners on a hard-edged image land within ~1.3 px of the true edge


def _detect(gray: np.ndarray) -> dict[int, np.ndarray]:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(gray)
    return {} if ids is None else {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}


def _px_to_mm(pts: np.ndarray, dpi: float, origin=(0.0, 0.0)) -> np.ndarray:
    # A pixel centre sits half a pixel in; a detected corner is on the pixel boundary.
    return (pts + 0.5) * MM_PER_INCH / dpi + np.asarray(origin)


def test_markers_in_the_rendered_mat_sit_at_their_layout_positions():
    layout = default_layout()
    found = _detect(mat.render_mat(layout, DPI))
    assert sorted(found) == [m.id for m in layout.markers]
    tol_mm = TOL_PX * MM_PER_INCH / DPI
    for m in layout.markers:
        got = _px_to_mm(found[m.id], DPI)
        assert np.abs(got - np.array(m.corners())).max() < tol_mm, m


def test_mat_image_has_true_scale():
    img = mat.render_mat(default_layout(), 200)
    assert img.shape == (round(410 * 200 / 25.4), round(580 * 200 / 25.4))


@pytest.mark.parametrize("paper, sheets", [(Paper.A2, 1), (Paper.A3, 3), (Paper.A4, 8)])
def test_tiling_uses_the_fewest_sheets(paper, sheets):
    assert mat.plan_tiling(default_layout(), paper).sheets == sheets


@pytest.mark.parametrize("paper", [Paper.A3, Paper.A4])
def test_tiled_sheets_cover_the_mat_and_show_every_marker_in_place(paper):
    layout = default_layout()
    sheets = mat.render_sheets(layout, paper, DPI)
    k = DPI / MM_PER_INCH
    covered = np.zeros((round(layout.height_mm), round(layout.width_mm)), bool)
    seen: set[int] = set()
    for s in sheets:
        h, w = s.image.shape
        assert (w, h) == (round(s.paper_mm[0] * k), round(s.paper_mm[1] * k))
        x0, y0 = s.origin_mm
        m = MIN_MARGIN_MM
        px = 1 / k  # the page origin is rounded to a whole pixel
        xa, ya = max(int(np.ceil(x0 + m - px)), 0), max(int(np.ceil(y0 + m - px)), 0)
        xb = min(int(x0 + s.paper_mm[0] - m + px), covered.shape[1])
        yb = min(int(y0 + s.paper_mm[1] - m + px), covered.shape[0])
        covered[ya:yb, xa:xb] = True
        for mid, pts in _detect(s.image).items():
            marker = next(mk for mk in layout.markers if mk.id == mid)
            got = _px_to_mm(pts, DPI, s.origin_mm)
            assert np.abs(got - np.array(marker.corners())).max() < TOL_PX / k
            seen.add(mid)
    assert covered.all(), "a strip of the mat is on no sheet"
    assert seen == {m.id for m in layout.markers}


def test_neighbouring_tiles_overlap_by_the_named_amount():
    t = mat.plan_tiling(default_layout(), Paper.A4)
    aw, ah = t.printable_mm
    assert aw - t.step_mm[0] == pytest.approx(mat.OVERLAP_MM)
    assert ah - t.step_mm[1] == pytest.approx(mat.OVERLAP_MM)


def test_sheet_content_matches_the_mat_where_tiles_overlap():
    sheets = mat.render_sheets(default_layout(), Paper.A3, DPI)
    whole = mat.render_mat(default_layout(), DPI)
    k = DPI / MM_PER_INCH
    s = sheets[1]
    u0, v0 = round(s.origin_mm[0] * k), round(s.origin_mm[1] * k)
    m = round((MIN_MARGIN_MM + 20) * k)  # inside the printable area, clear of the marks
    page = s.image[m:m + 200, m:m + 200]
    assert np.array_equal(page, whole[v0 + m:v0 + m + 200, u0 + m:u0 + m + 200])


def _pdf_objects(data: bytes) -> dict[int, bytes]:
    startxref = int(re.search(rb"startxref\n(\d+)\n%%EOF", data).group(1))
    head = re.match(rb"xref\n0 (\d+)\n", data[startxref:])
    n = int(head.group(1))
    table = data[startxref + head.end():].split(b"\n")[:n]
    objs = {}
    for i, row in enumerate(table[1:], 1):
        off = int(row[:10])
        assert data[off:].startswith(b"%d 0 obj" % i), f"xref offset of object {i} is wrong"
        objs[i] = data[off:data.index(b"endobj", off)]
    return objs


def _stream(obj: bytes) -> bytes:
    n = int(re.search(rb"/Length (\d+)", obj).group(1))
    start = obj.index(b"stream\n") + 7
    return obj[start:start + n]


def test_pdf_has_one_true_size_page_per_sheet_holding_the_sheet_image(tmp_path):
    out = tmp_path / "mat.pdf"
    [path] = mat.write_mat(out, paper=Paper.A3, dpi=60)
    sheets = mat.render_sheets(default_layout(), Paper.A3, 60)
    data = path.read_bytes()
    assert data.startswith(b"%PDF-1.4")
    objs = _pdf_objects(data)
    # The pages in their printed order: the catalog's /Pages object, its /Kids.
    root = int(re.search(rb"/Root (\d+) 0 R", data[data.rindex(b"trailer"):]).group(1))
    pages_obj = objs[int(re.search(rb"/Pages (\d+) 0 R", objs[root]).group(1))]
    kids = [int(k) for k in re.findall(rb"(\d+) 0 R", re.search(rb"/Kids \[([^\]]*)\]", pages_obj).group(1))]
    assert len(kids) == len(sheets) == 3
    assert [i for i, o in objs.items() if b"/Type /Page " in o] == sorted(kids)
    images = [i for i, o in objs.items() if b"/Subtype /Image" in o]
    assert len(images) == len(sheets)  # one image per page
    used = []
    for kid, sheet in zip(kids, sheets):
        page = objs[kid]
        box = [float(x) for x in re.search(rb"/MediaBox \[([^\]]+)\]", page).group(1).split()]
        assert box[:2] == [0, 0]
        assert box[2] == pytest.approx(297 / 25.4 * 72, abs=0.01)  # A3 portrait, in points
        assert box[3] == pytest.approx(420 / 25.4 * 72, abs=0.01)
        # The page's one image, by its own reference, drawn over the whole page.
        [(name, ref)] = re.findall(rb"/(\w+) (\d+) 0 R", re.search(rb"/XObject << ([^>]*) >>", page).group(1))
        content = _stream(objs[int(re.search(rb"/Contents (\d+) 0 R", page).group(1))])
        cm = re.search(rb"([\d.]+) 0 0 ([\d.]+) 0 0 cm /%s Do" % name, content)
        assert [float(cm.group(1)), float(cm.group(2))] == pytest.approx(box[2:], abs=0.01)
        obj = objs[int(ref)]
        assert int(ref) in images
        w = int(re.search(rb"/Width (\d+)", obj).group(1))
        h = int(re.search(rb"/Height (\d+)", obj).group(1))
        pixels = np.frombuffer(zlib.decompress(_stream(obj)), np.uint8).reshape(h, w)
        assert np.array_equal(pixels, sheet.image), f"page {sheet.index} does not hold its sheet"
        assert sorted(_detect(pixels)) != [] or sheet.col == 2  # middle sheet has no marker
        used.append(int(ref))
    assert sorted(used) == images  # each page its own image


def test_png_output_is_one_image_per_sheet_with_its_dpi(tmp_path):
    paths = mat.write_mat(tmp_path / "mat.png", paper=Paper.A3, dpi=60)
    assert [p.name for p in paths] == ["mat-1.png", "mat-2.png", "mat-3.png"]
    for p in paths:
        data = p.read_bytes()
        i = data.index(b"pHYs")
        ppm_x, ppm_y, unit = struct.unpack(">IIB", data[i + 4:i + 13])
        assert (ppm_x, ppm_y, unit) == (round(60 / 25.4 * 1000),) * 2 + (1,)
        assert cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) is not None


def test_single_sheet_png_keeps_the_given_name(tmp_path):
    paths = mat.write_mat(tmp_path / "mat.png", paper=Paper.A2, dpi=50)
    assert paths == [tmp_path / "mat.png"]
    img = cv2.imread(str(paths[0]), cv2.IMREAD_GRAYSCALE)
    assert sorted(_detect(img)) == [0, 1, 2, 3]


def test_cli_writes_the_mat_and_says_how_to_print_it(tmp_path, capsys):
    assert main(["calibrate", "mat", "--out", str(tmp_path / "m.pdf"), "--paper", "a2",
                 "--dpi", "50"]) == 0
    out = capsys.readouterr().out
    assert "1 A2 landscape sheet" in out and "100 %" in out
    assert (tmp_path / "m.pdf").stat().st_size > 1000


def test_cli_refuses_a_wrong_extension(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:  # a usage error, before any work
        main(["calibrate", "mat", "--out", str(tmp_path / "m.jpg")])
    assert info.value.code == 2
    assert "must end in .pdf or .png" in capsys.readouterr().err


def test_missing_output_folder_is_a_clear_error(tmp_path):
    with pytest.raises(MatError, match="does not exist"):
        mat.write_mat(tmp_path / "no" / "m.pdf", dpi=50)


def test_silly_dpi_is_refused():
    with pytest.raises(MatError, match="--dpi 5 is out of range"):
        mat.render_mat(default_layout(), 5)
