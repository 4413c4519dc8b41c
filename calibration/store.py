"""The calibration file: one versioned JSON document of typed sections, validated on load.

Every `calibrate <step>` command writes its own section through `load_for_update`/`save`
(`load_for_update` also takes an older file, or a bad section of the step's own, keeping a
backup, so that the advice to re-run a step works); `run`, `demo` and `read-table` read the
whole file. A bad file never reaches the referee: `load` checks every field and raises
`CalibrationError` naming the field (`pads.pins.p1.left: ...`) and saying how to fix it. `save` writes a temporary file, fsyncs it and renames it over the old one, so a crash
leaves either the old file or the new one, never half of one.

Sections (contracts.md): `camera`, `table` and `deck` are optional (None until calibrated);
`layout`, `pads`, `outputs`, `referee` and `vision` always exist and take their defaults when
the file leaves them out.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from calibration.layout import Layout, Marker, Rect, default_layout
from referee.errors import UserError
from referee.zones import ALL_ZONES, PLAYERS, SPIT_PILES

VERSION = 1
"""The file format this code reads and writes. Bump it (and add a migration or a message to
`_OLDER_VERSION_ADVICE`) whenever a section changes meaning."""

PAD_NAMES: tuple[str, ...] = tuple(f"{p}.{side}" for p in PLAYERS for side in ("left", "right"))
VARIANTS: tuple[str, ...] = ("standard", "points")  # R21, R22

# BCM numbers of the Raspberry Pi 40-pin header's GPIOs (0 and 1 are the HAT EEPROM pins, usable
# but reserved; we allow them since the user may know better).
GPIO_MIN, GPIO_MAX = 0, 27

ARUCO_DICTIONARIES: frozenset[str] = frozenset(
    [f"DICT_{n}X{n}_{k}" for n in (4, 5, 6, 7) for k in (50, 100, 250, 1000)]
    + ["DICT_ARUCO_ORIGINAL", "DICT_APRILTAG_16h5", "DICT_APRILTAG_25h9",
       "DICT_APRILTAG_36h10", "DICT_APRILTAG_36h11"]
)

# Which command rewrites each section, for the "how to fix it" half of every message.
_FIX = {
    "camera": "re-run `spit-referee calibrate camera`, or delete the \"camera\" section to run "
              "without lens correction",
    "table": "re-run `spit-referee calibrate table` with the mat in view",
    "layout": "fix it, or delete the \"layout\" section to use the standard mat "
              "(`spit-referee calibrate mat` prints it)",
    "deck": "re-run `spit-referee calibrate deck`, or delete the \"deck\" section",
    "pads": "re-run `spit-referee calibrate pads`, or edit the value",
    "outputs": "edit the value (see the defaults in calibration/store.py)",
    "referee": "edit the value (see RULES.md for each decision)",
    "vision": "edit the value, or delete it to use the default",
    "": "fix the file, or delete it and re-run the `spit-referee calibrate` steps",
}

# How to make a file from nothing: `calibrate table` needs a frame of the mat to fit.
_MAKE_WITH_TABLE = "`spit-referee calibrate table --calibration {path} --camera SRC` (or --image PHOTO of the mat)"



class CalibrationError(UserError):
    """The calibration file is missing, unreadable, from another version, or has a bad field.
    `field` is the dotted path of the bad field (`pads.pins.p1.left`), when there is one."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class CalibrationMissingError(CalibrationError, FileNotFoundError):
    """No calibration file at the given path."""


class CalibrationCorruptError(CalibrationError):
    """The file is not a JSON object (cut short, edited badly, or not ours)."""


class CalibrationVersionError(CalibrationError):
    """The file's `version` is older or newer than the one this code reads. `replaceable` when
    it is one of ours from an older version (or from before versions existed): the calibrate
    steps may then start a new file over it, keeping the old one as a backup."""

    def __init__(self, message: str, *, replaceable: bool = False) -> None:
        super().__init__(message, field="version")
        self.replaceable = replaceable


# --- sections ---------------------------------------------------------------------------------

Matrix3 = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]


@dataclass(frozen=True)
class CameraSection:
    """Lens intrinsics from `calibrate camera`: 3×3 camera matrix (pixels), distortion
    coefficients in OpenCV's order (k1 k2 p1 p2 [k3 ...]), and the resolution they hold for."""

    matrix: Matrix3
    dist: tuple[float, ...]
    resolution: tuple[int, int]
    rms_px: float | None = None  # RMS reprojection error of the fit, pixels (for the record)

    def matrix_array(self):
        import numpy as np
        return np.array(self.matrix, dtype=np.float64)

    def dist_array(self):
        import numpy as np
        return np.array(self.dist, dtype=np.float64)


@dataclass(frozen=True)
class TableSection:
    """The homography from frame pixels (undistorted, when a camera section exists) to table
    millimetres, from `calibrate table`; `resolution` is the frame size [w, h] it was found at."""

    homography: Matrix3
    reprojection_error_mm: float
    resolution: tuple[int, int]

    def homography_array(self):
        import numpy as np
        return np.array(self.homography, dtype=np.float64)


@dataclass(frozen=True)
class DeckSection:
    """Where `calibrate deck` put the per-deck card images (one `<code>.png` per card).
    A relative path in the file is relative to the calibration file's folder; `load` resolves
    it, so `templates_dir` here is always absolute."""

    templates_dir: Path


@dataclass(frozen=True)
class PadsSection:
    """Slap-pad wiring and timing (hardware/). `pins` maps each pad to a BCM GPIO number."""

    pins: Mapping[str, int] = field(default_factory=lambda: {
        "p1.left": 17, "p1.right": 27, "p2.left": 22, "p2.right": 23})
    pull_up: bool = True
    bounce_ms: float = 20.0       # ignore edges this long after a press's first edge
    tie_window_ms: float = 0.5    # slaps closer than this are too close to call (R18)
    stuck_ms: float = 3000.0      # a pad held this long is reported stuck
    measured: Mapping[str, Any] = field(default_factory=dict)  # figures from `calibrate pads`


@dataclass(frozen=True)
class SpeechSection:
    enabled: bool = False
    voice: str = "en"
    rate: int = 170  # espeak-ng words per minute


@dataclass(frozen=True)
class OutputsSection:
    """The announcers: console text, speech, an LED per spit pile, a buzzer (GPIO numbers)."""

    console: bool = True
    speech: SpeechSection = field(default_factory=SpeechSection)
    leds: Mapping[str, int] | None = field(default_factory=lambda: {"spit.left": 5, "spit.right": 6})
    buzzer: int | None = 13


@dataclass(frozen=True)
class RefereeSection:
    """Referee options: the variant (R21/R22), the spit-call settle time (R16), and the rules
    decisions as {referee.rules.RulesConfig field: value}."""

    variant: str = "standard"
    settle_s: float = 1.5
    rules: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class VisionSection:
    stable_frames: int = 3          # a zone's reading must hold this many frames to be reported
    min_confidence: float = 0.9     # below this a card reads `?`, never a guess


_SECTION_TYPES: dict[str, type] = {
    "camera": CameraSection, "table": TableSection, "layout": Layout, "deck": DeckSection,
    "pads": PadsSection, "outputs": OutputsSection, "referee": RefereeSection,
    "vision": VisionSection,
}
_OPTIONAL_SECTIONS = frozenset({"camera", "table", "deck"})


@dataclass(frozen=True)
class Calibration:
    """The whole calibration file as typed sections."""

    layout: Layout = field(default_factory=default_layout)
    pads: PadsSection = field(default_factory=PadsSection)
    outputs: OutputsSection = field(default_factory=OutputsSection)
    referee: RefereeSection = field(default_factory=RefereeSection)
    vision: VisionSection = field(default_factory=VisionSection)
    camera: CameraSection | None = None
    table: TableSection | None = None
    deck: DeckSection | None = None

    def replace_section(self, name: str | None = None, value: Any = None, /,
                        **sections: Any) -> "Calibration":
        """A copy with sections replaced: `cal.replace_section("table", t)` or
        `cal.replace_section(table=t, camera=None)`. Each value must be that section's type
        (or None for an optional section)."""
        if name is not None:
            sections = {name: value, **sections}
        for key, val in sections.items():
            if key not in _SECTION_TYPES:
                raise ValueError(f"no calibration section {key!r}: sections are "
                                 f"{', '.join(_SECTION_TYPES)}")
            if val is None and key in _OPTIONAL_SECTIONS:
                continue
            if not isinstance(val, _SECTION_TYPES[key]):
                raise TypeError(f"section {key!r} must be a {_SECTION_TYPES[key].__name__}, "
                                f"got {type(val).__name__}")
        return dataclasses.replace(self, **sections)

    def rules_config(self):
        """The referee.rules.RulesConfig these options describe (variant included)."""
        from referee.rules import RulesConfig, Variant  # the rules engine, pure
        return RulesConfig(**dict(self.referee.rules), variant=Variant[self.referee.variant.upper()])


def default_calibration() -> Calibration:
    """Every section at its default: the standard mat, default pins; no camera, table or deck."""
    return Calibration()


# --- validation helpers -----------------------------------------------------------------------

class _Checker:
    """Reads one JSON value with a dotted field path, raising CalibrationError that names it."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, problem: str) -> CalibrationError:
        section = path.split(".", 1)[0] if path else ""
        fix = _FIX.get(section, _FIX[""])
        return CalibrationError(f"{self.source}: {path}: {problem} — {fix}", field=path)

    def obj(self, v: Any, path: str, keys: set[str], required: set[str] = frozenset()) -> dict:
        if not isinstance(v, dict):
            raise self.fail(path, f"expected an object {{...}}, got {_show(v)}")
        unknown = sorted(set(v) - keys)
        if unknown:
            raise self.fail(f"{path}.{unknown[0]}" if path else unknown[0],
                            f"unknown field (known fields: {', '.join(sorted(keys))}); "
                            "check its spelling")
        missing = sorted(required - set(v))
        if missing:
            raise self.fail(f"{path}.{missing[0]}" if path else missing[0], "is missing")
        return v

    def number(self, v: Any, path: str, *, min_: float | None = None, positive: bool = False,
               what: str = "a number") -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise self.fail(path, f"expected {what}, got {_show(v)}")
        if positive and v <= 0:
            raise self.fail(path, f"expected {what} greater than 0, got {_show(v)}")
        if min_ is not None and v < min_:
            raise self.fail(path, f"expected {what} of at least {min_:g}, got {_show(v)}")
        return float(v)

    def integer(self, v: Any, path: str, *, lo: int | None = None, hi: int | None = None,
                what: str = "an integer") -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(path, f"expected {what}, got {_show(v)}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise self.fail(path, f"expected {what} from {lo} to {hi}, got {v}")
        return v

    def gpio(self, v: Any, path: str) -> int:
        return self.integer(v, path, lo=GPIO_MIN, hi=GPIO_MAX, what="an integer GPIO number")

    def boolean(self, v: Any, path: str) -> bool:
        if not isinstance(v, bool):
            raise self.fail(path, f"expected true or false, got {_show(v)}")
        return v

    def string(self, v: Any, path: str, choices: tuple[str, ...] | frozenset[str] | None = None) -> str:
        if not isinstance(v, str) or not v:
            raise self.fail(path, f"expected a text value, got {_show(v)}")
        if choices is not None and v not in choices:
            raise self.fail(path, f"expected one of {', '.join(sorted(choices))}, got {_show(v)}")
        return v

    def matrix3(self, v: Any, path: str) -> Matrix3:
        if not (isinstance(v, list) and len(v) == 3 and all(isinstance(r, list) and len(r) == 3 for r in v)):
            raise self.fail(path, f"expected a 3×3 matrix [[a,b,c],[d,e,f],[g,h,i]], got {_show(v)}")
        rows = tuple(tuple(self.number(x, f"{path}[{i}][{j}]") for j, x in enumerate(r))
                     for i, r in enumerate(v))
        det = _det3(rows)
        if abs(det) < 1e-12:
            raise self.fail(path, "is singular (determinant 0), so it maps nothing")
        return rows  # type: ignore[return-value]

    def resolution(self, v: Any, path: str) -> tuple[int, int]:
        if not (isinstance(v, list) and len(v) == 2):
            raise self.fail(path, f"expected [width, height] in pixels, got {_show(v)}")
        w = self.integer(v[0], f"{path}[0]", lo=1, hi=100_000, what="a width in pixels")
        h = self.integer(v[1], f"{path}[1]", lo=1, hi=100_000, what="a height in pixels")
        return (w, h)


def _show(v: Any) -> str:
    text = json.dumps(v) if not isinstance(v, float) or math.isfinite(v) else str(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _det3(m: Any) -> float:
    return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))


# --- parsing each section ---------------------------------------------------------------------

def _parse_camera(c: _Checker, v: Any) -> CameraSection:
    d = c.obj(v, "camera", {"matrix", "dist", "resolution", "rms_px"}, {"matrix", "dist", "resolution"})
    matrix = c.matrix3(d["matrix"], "camera.matrix")
    if matrix[0][0] <= 0 or matrix[1][1] <= 0:
        raise c.fail("camera.matrix", "focal lengths fx, fy must be positive")
    dist = d["dist"]
    if not isinstance(dist, list) or len(dist) not in (4, 5, 8, 12, 14):
        raise c.fail("camera.dist", "expected 4, 5, 8, 12 or 14 distortion coefficients "
                                    f"(OpenCV's order k1 k2 p1 p2 k3 ...), got {_show(dist)}")
    dist_t = tuple(c.number(x, f"camera.dist[{i}]") for i, x in enumerate(dist))
    rms = d.get("rms_px")
    return CameraSection(matrix, dist_t, c.resolution(d["resolution"], "camera.resolution"),
                         None if rms is None else c.number(rms, "camera.rms_px", min_=0))


def _parse_table(c: _Checker, v: Any) -> TableSection:
    d = c.obj(v, "table", {"homography", "reprojection_error_mm", "resolution"},
              {"homography", "reprojection_error_mm", "resolution"})
    return TableSection(
        c.matrix3(d["homography"], "table.homography"),
        c.number(d["reprojection_error_mm"], "table.reprojection_error_mm", min_=0,
                 what="a distance in mm"),
        c.resolution(d["resolution"], "table.resolution"),
    )


def _parse_layout(c: _Checker, v: Any) -> Layout:
    d = c.obj(v, "layout", {"width_mm", "height_mm", "zones", "markers", "aruco_dictionary", "extra"},
              {"width_mm", "height_mm", "zones", "markers"})
    w = c.number(d["width_mm"], "layout.width_mm", positive=True, what="a width in mm")
    h = c.number(d["height_mm"], "layout.height_mm", positive=True, what="a height in mm")
    zones_v = d["zones"]
    if not isinstance(zones_v, dict):
        raise c.fail("layout.zones", f"expected {{zone name: [x, y, w, h]}}, got {_show(zones_v)}")
    for name in zones_v:
        if name not in ALL_ZONES:
            raise c.fail(f"layout.zones.{name}", f"unknown zone; zones are {', '.join(ALL_ZONES)}")
    zones: dict[str, Rect] = {}
    for name in ALL_ZONES:
        path = f"layout.zones.{name}"
        if name not in zones_v:
            raise c.fail(path, "is missing: the layout needs all twelve zones")
        r = zones_v[name]
        if not (isinstance(r, list) and len(r) == 4):
            raise c.fail(path, f"expected [x, y, w, h] in mm, got {_show(r)}")
        x, y, rw, rh = (c.number(r[i], f"{path}[{i}]", what="a length in mm") for i in range(4))
        if rw <= 0 or rh <= 0:
            raise c.fail(path, f"width and height must be greater than 0, got {rw:g} × {rh:g}")
        if x < 0 or y < 0 or x + rw > w or y + rh > h:
            raise c.fail(path, f"lies outside the {w:g} × {h:g} mm mat")
        zones[name] = Rect(x, y, rw, rh)
    dictionary = c.string(d.get("aruco_dictionary", "DICT_4X4_50"), "layout.aruco_dictionary",
                          ARUCO_DICTIONARIES)
    dict_size = int(dictionary.rsplit("_", 1)[1]) if dictionary.startswith("DICT_") and dictionary[5].isdigit() else None
    markers_v = d["markers"]
    if not isinstance(markers_v, list) or len(markers_v) < 4:
        raise c.fail("layout.markers", "expected a list of at least 4 markers "
                     "[{\"id\": 0, \"x\": 8, \"y\": 8, \"size\": 30}, ...] (a homography needs 4 "
                     f"points spread over the mat), got {_show(markers_v)}")
    markers: list[Marker] = []
    seen: set[int] = set()
    for i, m in enumerate(markers_v):
        path = f"layout.markers[{i}]"
        m = c.obj(m, path, {"id", "x", "y", "size"}, {"id", "x", "y", "size"})
        mid = c.integer(m["id"], f"{path}.id", lo=0, hi=(dict_size - 1) if dict_size else 10_000,
                        what="a marker id")
        if mid in seen:
            raise c.fail(f"{path}.id", f"marker id {mid} appears twice; each marker needs its own id")
        seen.add(mid)
        mx = c.number(m["x"], f"{path}.x", what="a position in mm")
        my = c.number(m["y"], f"{path}.y", what="a position in mm")
        ms = c.number(m["size"], f"{path}.size", positive=True, what="a side in mm")
        if mx < 0 or my < 0 or mx + ms > w or my + ms > h:
            raise c.fail(path, f"lies outside the {w:g} × {h:g} mm mat")
        markers.append(Marker(mid, mx, my, ms))
    extra = d.get("extra", {})
    if not isinstance(extra, dict):
        raise c.fail("layout.extra", f"expected an object, got {_show(extra)}")
    return Layout(w, h, zones, tuple(markers), dictionary, dict(extra))


def _parse_deck(c: _Checker, v: Any, base: Path) -> DeckSection:
    d = c.obj(v, "deck", {"templates_dir"}, {"templates_dir"})
    p = Path(c.string(d["templates_dir"], "deck.templates_dir")).expanduser()
    return DeckSection(p if p.is_absolute() else (base / p).resolve())


def _parse_pads(c: _Checker, v: Any) -> PadsSection:
    d = c.obj(v, "pads", {"pins", "pull_up", "bounce_ms", "tie_window_ms", "stuck_ms", "measured"})
    dflt = PadsSection()
    pins_v = d.get("pins", dict(dflt.pins))
    pins_v = c.obj(pins_v, "pads.pins", set(PAD_NAMES), set(PAD_NAMES))
    pins = {name: c.gpio(pins_v[name], f"pads.pins.{name}") for name in PAD_NAMES}
    _check_distinct(c, {f"pads.pins.{k}": p for k, p in pins.items()})
    measured = d.get("measured", {})
    if not isinstance(measured, dict):
        raise c.fail("pads.measured", f"expected an object, got {_show(measured)}")
    return PadsSection(
        pins=pins,
        pull_up=c.boolean(d.get("pull_up", dflt.pull_up), "pads.pull_up"),
        bounce_ms=c.number(d.get("bounce_ms", dflt.bounce_ms), "pads.bounce_ms", min_=0,
                           what="a time in ms"),
        tie_window_ms=c.number(d.get("tie_window_ms", dflt.tie_window_ms), "pads.tie_window_ms",
                               min_=0, what="a time in ms"),
        stuck_ms=c.number(d.get("stuck_ms", dflt.stuck_ms), "pads.stuck_ms", positive=True,
                          what="a time in ms"),
        measured=dict(measured),
    )


def _check_distinct(c: _Checker, pins: dict[str, int]) -> None:
    seen: dict[int, str] = {}
    for path, pin in pins.items():
        if pin in seen:
            raise c.fail(path, f"GPIO {pin} is already used by {seen[pin]}; "
                               "each pad, LED and buzzer needs its own pin")
        seen[pin] = path


def _parse_outputs(c: _Checker, v: Any, pads: PadsSection) -> OutputsSection:
    d = c.obj(v, "outputs", {"console", "speech", "leds", "buzzer"})
    dflt = OutputsSection()
    sp = c.obj(d.get("speech", {}), "outputs.speech", {"enabled", "voice", "rate"})
    speech = SpeechSection(
        enabled=c.boolean(sp.get("enabled", dflt.speech.enabled), "outputs.speech.enabled"),
        voice=c.string(sp.get("voice", dflt.speech.voice), "outputs.speech.voice"),
        rate=c.integer(sp.get("rate", dflt.speech.rate), "outputs.speech.rate", lo=80, hi=500,
                       what="a speaking rate in words per minute"),
    )
    leds_v = d.get("leds", dict(dflt.leds or {}))
    leds = None
    if leds_v is not None:
        leds_v = c.obj(leds_v, "outputs.leds", set(SPIT_PILES))
        leds = {k: c.gpio(leds_v[k], f"outputs.leds.{k}") for k in SPIT_PILES if k in leds_v}
    buzzer_v = d.get("buzzer", dflt.buzzer)
    buzzer = None if buzzer_v is None else c.gpio(buzzer_v, "outputs.buzzer")
    used = {f"pads.pins.{k}": p for k, p in pads.pins.items()}
    used.update({f"outputs.leds.{k}": p for k, p in (leds or {}).items()})
    if buzzer is not None:
        used["outputs.buzzer"] = buzzer
    _check_distinct(c, used)
    return OutputsSection(c.boolean(d.get("console", dflt.console), "outputs.console"),
                          speech, leds, buzzer)


def _rules_fields() -> dict[str, Any] | None:
    """RulesConfig's fields and defaults, or None while the rules engine is not installed."""
    try:
        from referee.rules import RulesConfig
    except ImportError:
        return None
    defaults = RulesConfig()
    return {f.name: getattr(defaults, f.name) for f in dataclasses.fields(RulesConfig)}


def _parse_referee(c: _Checker, v: Any) -> RefereeSection:
    d = c.obj(v, "referee", {"variant", "settle_s", "rules"})
    dflt = RefereeSection()
    rules = d.get("rules", {})
    if not isinstance(rules, dict):
        raise c.fail("referee.rules", f"expected {{decision: value}}, got {_show(rules)}")
    known = _rules_fields()
    if known is not None:
        for key, value in rules.items():
            path = f"referee.rules.{key}"
            if key == "variant":
                raise c.fail(path, "set the variant in referee.variant, not in referee.rules")
            if key not in known:
                raise c.fail(path, "is not a rules decision; known decisions: "
                                   f"{', '.join(sorted(k for k in known if k != 'variant'))}")
            default = known[key]
            if isinstance(default, bool):
                c.boolean(value, path)
            elif isinstance(default, int):
                c.integer(value, path, lo=1, hi=10**9, what="a whole number")
            elif isinstance(default, float):
                c.number(value, path, min_=0)
            elif isinstance(default, str):
                c.string(value, path)
    return RefereeSection(
        variant=c.string(d.get("variant", dflt.variant), "referee.variant", VARIANTS),
        settle_s=c.number(d.get("settle_s", dflt.settle_s), "referee.settle_s", min_=0,
                          what="a time in seconds"),
        rules=dict(rules),
    )


def _parse_vision(c: _Checker, v: Any) -> VisionSection:
    d = c.obj(v, "vision", {"stable_frames", "min_confidence"})
    dflt = VisionSection()
    conf = c.number(d.get("min_confidence", dflt.min_confidence), "vision.min_confidence",
                    what="a confidence between 0 and 1")
    if not 0 < conf <= 1:
        raise c.fail("vision.min_confidence", f"expected a confidence above 0 and at most 1, got {conf:g}")
    return VisionSection(
        stable_frames=c.integer(d.get("stable_frames", dflt.stable_frames), "vision.stable_frames",
                                lo=1, hi=300, what="a number of frames"),
        min_confidence=conf,
    )


def from_dict(doc: Any, *, source: str = "calibration", base: Path | None = None) -> Calibration:
    """Validate a parsed JSON document (with `version`) into a Calibration."""
    c = _Checker(source)
    if not isinstance(doc, dict):
        raise CalibrationCorruptError(
            f"{source}: expected a JSON object {{\"version\": {VERSION}, ...}}, got {_show(doc)} — "
            f"{_FIX['']}")
    _check_version(source, doc)
    c.obj(doc, "", {"version", *_SECTION_TYPES})
    base = base or Path.cwd()
    pads = _parse_pads(c, doc.get("pads", {}))
    return Calibration(
        layout=_parse_layout(c, doc["layout"]) if "layout" in doc else default_layout(),
        pads=pads,
        outputs=_parse_outputs(c, doc.get("outputs", {}), pads),
        referee=_parse_referee(c, doc.get("referee", {})),
        vision=_parse_vision(c, doc.get("vision", {})),
        camera=None if doc.get("camera") is None else _parse_camera(c, doc["camera"]),
        table=None if doc.get("table") is None else _parse_table(c, doc["table"]),
        deck=None if doc.get("deck") is None else _parse_deck(c, doc["deck"], base),
    )


def _check_version(source: str, doc: dict) -> None:
    if "version" not in doc:
        if set(doc) <= set(_SECTION_TYPES):  # our sections only: a file from before versions
            raise CalibrationVersionError(
                f"{source}: has no \"version\" field: it was written before calibration files "
                f"had versions, and cannot be converted safely — {_regenerate(source)}",
                replaceable=True)
        raise CalibrationVersionError(
            f"{source}: has no \"version\" field and fields ({', '.join(sorted(set(doc) - set(_SECTION_TYPES)))}) "
            "that no spit-referee calibration file has, so it is not one — check the path, or make "
            f"a new file under another name: {_MAKE_WITH_TABLE.format(path='NEW.json')}")
    v = doc["version"]
    if isinstance(v, bool) or not isinstance(v, int):
        raise CalibrationVersionError(
            f"{source}: version: expected an integer, got {_show(v)} — {_FIX['']}")
    if v > VERSION:
        raise CalibrationVersionError(
            f"{source}: was written by a newer spit-referee (file version {v}; this one reads "
            f"version {VERSION}) — upgrade spit-referee, or make a new file under another name: "
            f"{_MAKE_WITH_TABLE.format(path='NEW.json')}")
    if v < VERSION:
        raise CalibrationVersionError(
            f"{source}: is file version {v}, older than version {VERSION} which this "
            f"spit-referee reads, and cannot be converted safely — {_regenerate(source)}",
            replaceable=True)


def _regenerate(source: str) -> str:
    # Each writing step replaces such a file (load_for_update), so following this works.
    return (f"make it again: {_MAKE_WITH_TABLE.format(path=source)} keeps the old file as "
            f"{source}.bak and starts a new one; if you use lens correction, run `spit-referee "
            f"calibrate camera --calibration {source} --images DIR` (or --camera SRC) before it; "
            "and `calibrate deck` and `calibrate pads` again if you had used them")


# --- writing ----------------------------------------------------------------------------------

def to_dict(cal: Calibration, *, base: Path | None = None) -> dict:
    """The JSON document of a Calibration (`version` first, then sections in a fixed order)."""
    lay = cal.layout
    doc: dict[str, Any] = {"version": VERSION}
    if cal.camera is not None:
        doc["camera"] = {"matrix": [list(r) for r in cal.camera.matrix],
                         "dist": list(cal.camera.dist),
                         "resolution": list(cal.camera.resolution)}
        if cal.camera.rms_px is not None:
            doc["camera"]["rms_px"] = cal.camera.rms_px
    if cal.table is not None:
        doc["table"] = {"homography": [list(r) for r in cal.table.homography],
                        "reprojection_error_mm": cal.table.reprojection_error_mm,
                        "resolution": list(cal.table.resolution)}
    doc["layout"] = {
        "width_mm": lay.width_mm, "height_mm": lay.height_mm,
        "zones": {n: [r.x, r.y, r.w, r.h] for n, r in lay.zones.items()},
        "markers": [{"id": m.id, "x": m.x, "y": m.y, "size": m.size} for m in lay.markers],
        "aruco_dictionary": lay.aruco_dictionary,
    }
    if lay.extra:
        doc["layout"]["extra"] = dict(lay.extra)
    if cal.deck is not None:
        p = Path(cal.deck.templates_dir)
        if base is not None and p.is_absolute():
            try:
                p = p.resolve().relative_to(base.resolve())
            except ValueError:
                pass  # outside the calibration folder: keep it absolute
        doc["deck"] = {"templates_dir": str(p)}
    pads = cal.pads
    doc["pads"] = {"pins": dict(pads.pins), "pull_up": pads.pull_up, "bounce_ms": pads.bounce_ms,
                   "tie_window_ms": pads.tie_window_ms, "stuck_ms": pads.stuck_ms,
                   "measured": dict(pads.measured)}
    out = cal.outputs
    doc["outputs"] = {"console": out.console,
                      "speech": dataclasses.asdict(out.speech),
                      "leds": None if out.leds is None else dict(out.leds),
                      "buzzer": out.buzzer}
    doc["referee"] = {"variant": cal.referee.variant, "settle_s": cal.referee.settle_s,
                      "rules": dict(cal.referee.rules)}
    doc["vision"] = dataclasses.asdict(cal.vision)
    return doc


def save(cal: Calibration, path: str | os.PathLike) -> Path:
    """Validate and write `cal` to `path` atomically (temp file, fsync, rename, fsync folder)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    doc = to_dict(cal, base=folder)
    from_dict(json.loads(json.dumps(doc)), source=str(path), base=folder)  # never write a bad file
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise CalibrationError(f"cannot write the calibration file {path}: {exc.strerror} — "
                               "choose a folder you can write to") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            # mkstemp makes it 0600, which the service's own user could not read.
            os.fchmod(f.fileno(), _file_mode(path))
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise CalibrationError(
                f"cannot write the calibration file {path}: {exc.strerror or exc}; the previous "
                "file is unchanged — check the path and the disk, then run the step again") from exc
        raise
    _fsync_dir(folder)
    return path


def _file_mode(path: Path) -> int:
    """The old file's permissions when there is one, else what a new file gets (umask)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_dir(folder: Path) -> None:
    # The rename is durable only once the folder's entry is on disk.
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


class _DuplicateKey(ValueError):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    # A hand-edited file with a field twice would silently keep the last one.
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def load(path: str | os.PathLike) -> Calibration:
    """Read and validate a calibration file; CalibrationError says what is wrong and what to do."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise CalibrationMissingError(
            f"no calibration file at {path}: make one with "
            f"{_MAKE_WITH_TABLE.format(path=path)}, or check the path") from None
    except IsADirectoryError:
        raise CalibrationError(f"{path} is a folder, not a calibration file: give the path of "
                               "the .json file") from None
    except OSError as exc:
        raise CalibrationError(f"cannot read the calibration file {path}: {exc.strerror} — "
                               "check its permissions") from None
    try:
        doc = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicate_keys)
    except _DuplicateKey as exc:
        raise CalibrationCorruptError(
            f"{path}: field {exc.args[0]!r} appears twice in one object, so which value counts "
            "is unclear — keep one of them") from None
    except UnicodeDecodeError:
        raise CalibrationCorruptError(
            f"{path}: is not a text file, so not a calibration file — {_FIX['']}") from None
    except json.JSONDecodeError as exc:
        raise CalibrationCorruptError(
            f"{path}: is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); it "
            f"may have been cut short or edited by hand — {_FIX['']}") from None
    return from_dict(doc, source=str(path), base=path.parent)


def load_for_update(path: str | os.PathLike, sections: str | tuple[str, ...],
                    say: Callable[[str], None] = print) -> Calibration:
    """What a `calibrate <step>` that rewrites `sections` starts from: the file at `path`, or
    the defaults when there is none yet.

    A file whose message advises running this very step is not refused, or following the
    advice would loop: a file from an older version (or from before versions existed) is
    started afresh from the defaults, and a bad field in one of `sections` drops that section
    for the step to rewrite. Either way the old file is first copied to `FILE.bak` (`say`
    tells where); it is replaced only when the step saves. Any other problem raises
    CalibrationError as `load` does."""
    path = Path(path)
    names = (sections,) if isinstance(sections, str) else tuple(sections)
    if not path.exists():
        return default_calibration()
    try:
        return load(path)
    except CalibrationVersionError as exc:
        if not exc.replaceable:
            raise
        backup = backup_file(path)
        say(f"note: {_problem(exc)}; kept it as {backup}: this step starts a new file from the "
            "defaults (run the other calibrate steps again if you had used them)")
        return default_calibration()
    except CalibrationError as exc:
        if _section_of(exc) not in names:
            raise
        first = exc
    # The JSON parsed (the error named a field), so only the named sections need dropping.
    doc = json.loads(path.read_bytes().decode("utf-8"))
    dropped = []
    exc = first
    while True:
        section = _section_of(exc)
        if section not in names or section in dropped:
            raise exc
        doc.pop(section, None)
        dropped.append(section)
        try:
            cal = from_dict(doc, source=str(path), base=path.parent)
            break
        except CalibrationError as again:
            exc = again
    backup = backup_file(path)
    say(f"note: {_problem(first)}; kept the old file as {backup}: the file this step writes "
        f"leaves the old {' and '.join(dropped)} section{'s' if len(dropped) > 1 else ''} out")
    return cal


def _section_of(exc: CalibrationError) -> str | None:
    if exc.field is None:
        return None
    return exc.field.split(".", 1)[0].split("[", 1)[0]


def _problem(exc: CalibrationError) -> str:
    # The message without its advice (" — re-run ..."): the caller is doing what it advises.
    return str(exc).split(" — ", 1)[0]


def backup_file(path: str | os.PathLike) -> Path:
    """Copy `path` to `path.bak` (or `.bak2`, `.bak3`, ... when a different backup is already
    there; an identical one is reused) and return the backup's path."""
    path = Path(path)
    try:
        data = path.read_bytes()
        n = 1
        while True:
            bak = path.with_name(f"{path.name}.bak{'' if n == 1 else n}")
            if not bak.exists():
                break
            if bak.is_file() and bak.read_bytes() == data:
                return bak
            n += 1
        fd, tmp = tempfile.mkstemp(prefix=f".{bak.name}.", suffix=".tmp", dir=bak.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                os.fchmod(f.fileno(), _file_mode(path))
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, bak)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise CalibrationError(
            f"cannot keep a backup of {path} before replacing it: {exc.strerror or exc} — move "
            "the old file away yourself (or give a new --calibration path) and run the step "
            "again") from exc
    return bak


def load_or_default(path: str | os.PathLike | None) -> Calibration:
    """`load(path)` when a path is given, else `default_calibration()` (for commands whose
    `--calibration` is optional and which create the file if needed)."""
    return default_calibration() if path is None else load(path)


def update(path: str | os.PathLike, change: Callable[[Calibration], Calibration]) -> Calibration:
    """Load `path` (or the defaults if it does not exist yet), apply `change`, save atomically,
    touching no other section. A `calibrate <step>` starts from `load_for_update` instead, so
    that it can also replace an older file or a bad section of its own."""
    path = Path(path)
    cal = load(path) if path.exists() else default_calibration()
    new = change(cal)
    save(new, path)
    return new
