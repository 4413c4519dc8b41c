"""The play mat's geometry in table millimetres: the twelve zones and the ArUco markers.

Table coordinates: origin at the mat's top-left corner as the camera sees it, x to the right,
y down, in millimetres; p1 sits at the bottom (large y), p2 at the top. A standard card is
63 × 88 mm; a stock zone is wide enough for a card turned up to 20° (89 × 104 mm bounding box).
The printed mat (`calibrate mat`), the renderer, and the zone cutter all use this one layout;
a calibration file may carry a different one.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from referee.zones import ALL_ZONES, SPIT_PILES, STOCK_ZONES

CARD_W_MM = 63.0
CARD_H_MM = 88.0


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle in table millimetres (x, y of the top-left corner)."""

    x: float
    y: float
    w: float
    h: float

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)

    def corners(self) -> list[tuple[float, float]]:
        """Top-left, top-right, bottom-right, bottom-left."""
        return [(self.x, self.y), (self.x + self.w, self.y),
                (self.x + self.w, self.y + self.h), (self.x, self.y + self.h)]


@dataclass(frozen=True)
class Marker:
    """A square ArUco marker printed on the mat: its id and top-left corner, side in mm."""

    id: int
    x: float
    y: float
    size: float

    def corners(self) -> list[tuple[float, float]]:
        """Corners in ArUco's order: top-left, top-right, bottom-right, bottom-left."""
        s = self.size
        return [(self.x, self.y), (self.x + s, self.y), (self.x + s, self.y + s), (self.x, self.y + s)]


@dataclass(frozen=True)
class Layout:
    width_mm: float
    height_mm: float
    zones: dict[str, Rect]
    markers: tuple[Marker, ...]
    aruco_dictionary: str = "DICT_4X4_50"
    extra: dict = field(default_factory=dict)


def default_layout() -> Layout:
    """The standard mat: 580 × 410 mm (fits A2 landscape), three rows of zones."""
    width, height = 580.0, 410.0
    stock_w, stock_h, gap = 90.0, 105.0, 8.0
    row_w = 5 * stock_w + 4 * gap
    x0 = (width - row_w) / 2
    zones: dict[str, Rect] = {}
    for i, name in enumerate(STOCK_ZONES["p2"]):
        # p2 faces p1 across the table; as the camera sees it, p2's stock1 is at the right.
        zones[name] = Rect(x0 + (4 - i) * (stock_w + gap), 30.0, stock_w, stock_h)
    for i, name in enumerate(STOCK_ZONES["p1"]):
        zones[name] = Rect(x0 + i * (stock_w + gap), height - 30.0 - stock_h, stock_w, stock_h)
    spit_w, spit_h = 120.0, 115.0
    spit_y = (height - spit_h) / 2
    zones[SPIT_PILES[0]] = Rect(width / 2 - 10.0 - spit_w, spit_y, spit_w, spit_h)
    zones[SPIT_PILES[1]] = Rect(width / 2 + 10.0, spit_y, spit_w, spit_h)
    m = 30.0
    markers = (
        Marker(0, 8.0, 8.0, m),
        Marker(1, width - 8.0 - m, 8.0, m),
        Marker(2, width - 8.0 - m, height - 8.0 - m, m),
        Marker(3, 8.0, height - 8.0 - m, m),
    )
    assert set(zones) == set(ALL_ZONES)
    return Layout(width, height, zones, markers)
