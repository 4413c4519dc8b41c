"""Stabilise: motion per zone, hands over zones, and readings held until they are stable.

Three parts, each cheap enough to run on every frame (they look at a quarter-size frame):
- `MotionDetector`: which zones changed since the previous frame (where their cards lie: a
  hand passing beside a zone does not move it), and which changed, they or the few mm around
  them, since they were last read (only those are cut and read again: that is how a frame fits
  in 5 ms).
- `HandDetector`: a hand or an arm over the mat. It samples the bare mat between the zones on a
  grid; anything there that is not mat and reaches the mat's edge is an arm coming from a
  player (cards never lie there). Zones it touches are covered when, in the full-size frame,
  the arm's skin shows on the zone's edge line (a hand stopping a few mm short does not cover
  it), and the search carries on past a covered zone, because an arm over one stockpile can
  end in a hand over the spit pile. Each sample is also compared with itself on earlier
  frames: mat never turns darker and glossier at once, a dark hand over a dark mat can
  (GLOSSY_*).
- `Stabilizer`: a zone reads `?` at once when it changes or is covered, and gets a reading
  again only when the same reading has held for `stable_frames` frames in a row. It reports
  only zones whose reading changed. Frames of `?` between two frames that show the zone's
  pixels unchanged since it was read (a hand passed over without touching it) do not break
  the count: the reading's frames before them count with those after. The frame a zone
  stops moving (the hand that laid a card leaves it) counts as the first of them when the
  next frame shows the zone's pixels unchanged: the card already lay still on it.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.layout import Layout, Rect
from referee.zones import ALL_ZONES, UNKNOWN
from vision.observation import Observation
from vision.rectify import Rectification

SMALL_SCALE = 4  # motion and hands are judged on a frame this many times smaller per side
# A pixel of the quarter-size grey frame has "changed" past this many grey levels: sensor noise
# (σ ≤ 5 at full size, ~2.5 after the 2×2 averaging of the resize) stays below with p < 1e-4.
PIXEL_CHANGE = 15
MOVING_MIN_FRACTION = 0.01  # share of a zone's pixels that must change: one finger tip is ~2 %
# A zone moves when the part of it a card lies on changes: the zone less MOTION_INSET_MM on
# each side, the band a card laid square never reaches (a 63 x 88 mm card lies >= 8.5 mm inside
# a 90 x 105 mm zone's sides, >= 13.5 mm inside a spit zone's). A card placed, lifted, turned or
# nudged changes its middle, and a hand over the card does. In that band and around the zone a
# neighbour's hand passes, its fingertips and their soft shadow (vision.render casts it 8-12 mm
# beyond the hand, blurred over ~6 mm): counted as motion, they made a pile `?` for a frame
# whenever a hand came or went beside it, and the stabiliser's count started again (demo seeds
# 1-5: 6 of the 12 rulings later than 3 frames from sight). Demo seed 1, per frame and zone,
# flagged moving with the zone grown by 6 mm / the zone / less 4 mm / less 8 mm: with no hand
# over it (the render's truth) 196 / 84 / 29 / 9 of 20,087; with a hand over >= 0.2 % of it
# that HandDetector left uncovered 54 / 54 / 54 / 54 of 209 (the same frames); in the frame a
# hand left it 263 / 263 / 260 / 258 of 263 (the 5: only fingertips had reached the band, and
# they are gone from the frame).
MOTION_INSET_MM = 8.0
# Anything changing this close around a zone makes it read again, though (a card's overhang).
READ_GROW_MM = 6.0
STABLE_FRAMES = 3  # default; the calibration file's vision.stable_frames overrides it

GRID_MM = 5.0  # spacing of the samples of bare mat
ZONE_CLEARANCE_MM = 4.0  # samples keep this far from a zone: its outline, a card's overhang
MARKER_CLEARANCE_MM = 8.0  # and from a marker with its white paper
EDGE_BAND_MM = 14.0  # samples this close to the mat's edge are where an arm comes in
TOUCH_MM = 9.0  # a not-mat sample this close to a zone touches it
# A sample of mat under any light is gain × the mat's colour + glare × white. A sample is not
# mat when it lies farther than this (grey levels, quarter-size frame: noise σ ≈ 3) from every
# such mix, or is far darker than the mat (a dark sleeve, a shadowless dark hand).
NOT_MAT_RESIDUAL = 14.0
NOT_MAT_MIN_GAIN = 0.35
# "White" above is the colour of the light: glare is the light reflected as it comes. The
# reader measures it on the markers' white paper (vision.zones.light_colour) and gives it to
# the detector (HandDetector.light; None: white). Under a light of another colour than the
# camera's white balance, pink skin can be the mat's colour plus white glare: under a magenta
# cast (green at 0.8 of red and blue) a hand, B, G, R (110, 110, 179), is the maroon mat's
# (35, 29, 87) at gain 1.33 plus white within 8 grey levels, and was taken for mat; plus
# magenta glare, it is 21 away.
MIN_ARM_SAMPLES = 3  # fewer not-mat samples at the edge are a speck or a crumb, not an arm
# A hand close to the mat's own colour (the darkest skin tone on a dark red mat: gain 0.6 plus a
# little white fits it within ~10 grey levels) passes the test above. Samples farther than
# FAINT_RESIDUAL from every mix are "faint": noise and JPEG alone make ~1 % of bare mat faint,
# in specks of at most 4 samples (bench tables, noise σ 4, JPEG 65–95), so a faint region counts
# as an arm only when it is large and joined to the mat's edge, and joins an arm only when it is
# larger than any speck. A forearm 60 mm wide crossing the 14 mm edge band is ~36 samples.
FAINT_RESIDUAL = 7.0
FAINT_ARM_MIN_SAMPLES = 20
FAINT_JOIN_MIN_SAMPLES = 8
# The grid's nearest samples lie 5–7.5 mm from a zone, so an arm that stops a few mm short of a
# zone touches it as surely as one that reaches in (on the bench, 17 of the zones marked covered
# had no hand over them). With the full-size frame at hand, a zone an arm touches is covered
# only when that arm's skin shows on the zone's edge line: a hand cannot reach into a zone
# without crossing it. The edge line is sampled every GATE_STEP_MM along it and at
# GATE_OFFSETS_MM across it (− inside), in the full frame (~1.6 px/mm): a finger crossing it
# (≥ 12 mm wide) covers ≥ 20 of its samples. Only on the zone's own side: skin colour spreads
# 1-2 mm beyond a hand's edge (its rounded, blurred rim, the lens), and lines 0.5 and 1.5 mm
# outside the zone (as they were) covered 3 bench faces (held out, 50 tables per deck) whose
# hands stopped 0.4-0.8 mm short of the zone, and 4 whose fingertips lay in the zone's outer
# 2 mm (0.03-0.13 % of it), where no card lies. Seven zones of those tables and of seed
# stress-a's 30 that a hand reached 0.4-4 mm into are no longer covered: a fingertip's end
# showed on under GATE_MIN_SKIN samples, and no hand lay over the zone less 8 mm, where cards lie.
GATE_STEP_MM = 1.0
GATE_OFFSETS_MM = (-1.5, -0.5)
# The edge line leaves out this much at each of the zone's corners: a hand passing a zone's
# corner clips it there without reaching the card, which lies ≥ 8 mm inside the zone's sides
# (a 63 × 88 mm card on a 90 × 105 mm zone). On the bench (held out, 50 tables per deck) the
# detector covered 32 zones with no hand over them (the render's truth: under 0.2 % of the
# zone); 18 of them showed skin on the edge line only within 8 mm of a corner.
GATE_CORNER_MM = 8.0
# A sample is skin when gain × the arm's colour + glare × white explains it within
# SKIN_RESIDUAL grey levels (full-size frame: noise σ ≤ 5, JPEG), with the gain in
# [SKIN_MIN_GAIN, SKIN_MAX_GAIN] (the hand's rounded edge is shaded to 0.7 of its colour and
# light falls off across the frame by up to ±40 %; a card's white paper fits only with a gain
# near 0) and glare ≥ 0.
SKIN_RESIDUAL = 22.0
SKIN_MIN_GAIN = 0.4
SKIN_MAX_GAIN = 1.9
# Skin samples on a zone's edge that make it covered: far fewer than a fingertip makes (≥ 40),
# more than JPEG specks of a back's skin-like print at the card's edge.
GATE_MIN_SKIN = 6
ARM_COLOUR_MIN_SAMPLES = 3  # clear not-mat samples needed to know an arm's colour
# A dark hand can pass for a dark mat by colour alone: the darkest skin tone over the maroon mat
# in a dim warm light, B, G, R (21, 33, 56), is the mat (28, 32, 85) at gain 0.48 plus glare of
# the light's colour within 6.2 grey levels (demo seed 19, frame 3,142), and in white light at
# full gain within 9 (vision.render's 6 tones × 6 mats × 7 lights). But the glare that fit is
# not there: a sample of mat can become darker than it was (a shadow, a cloud) or glossier (a
# lamp, glare moving onto it), never both at once, since what shades the mat shades its glare
# too. (vision.render adds glare over a hand's shadow, which keeps a shadow's glare as it was;
# a real shadow takes glare away.) So each sample is also compared with itself on earlier
# frames (HandDetector's background): one whose gain fell by GLOSSY_DARKER of the mat's while
# its glare rose by GLOSSY_SIGMAS of the frame's own spread of glare changes is not mat. Both
# changes are counted from the median sample's, so a cloud, a lamp or the camera's white
# balance moving the whole mat does not count; samples are the mean of 3 × 3 quarter-size
# pixels (~7 mm), which cuts noise to a third (the hand above: gain −0.56, glare +0.24 from
# its background, median of its samples; bare mat ±0.09 at the 1st/99th percentile, one pixel).
GLOSSY_DARKER = 0.25
GLOSSY_SIGMAS = 5.0
GLOSSY_MIN_GLARE = 0.08
# More of the mat than this darker and glossier at once is the room's light changing (its
# colour and brightness unevenly), not an arm: the rule rests a frame and the background moves on.
GLOSSY_MAX_SHARE = 0.4
BACKGROUND_RATE = 0.25  # share of a mat sample's new value taken into its background a frame
# A sample the rule marks though its colour fits the mat follows its new value this much slower
# (time constant ~1.7 s at 30 fps). Without it the background of a sample marked once froze
# there for good: where a lamp switched on changed the colour of the glare (demo seed 12, at
# 55 s, 12 samples beside p1.stock2, marked until the game's end), the zone stayed disturbed
# and its face-down card read `?` for 226 frames. A hand that passes for the mat is still
# marked for the ~1.3 s it takes the background to cover half of its change (seed 19's:
# gain -0.56 against GLOSSY_DARKER's 0.25), longer than a hand rests on a pile in play.
BACKGROUND_DRIFT_RATE = 0.02
CLIPPED_LEVEL = 250  # a sample with a channel this bright is clipped: its colour is not the skin's


def small_frame(frame: np.ndarray) -> np.ndarray:
    """The frame at 1/SMALL_SCALE per side (bilinear: ~0.4 ms at 1280×720, where INTER_AREA
    takes ~3.5 ms)."""
    h, w = frame.shape[:2]
    return cv2.resize(frame, (w // SMALL_SCALE, h // SMALL_SCALE), interpolation=cv2.INTER_LINEAR)


def _to_small(px: np.ndarray) -> np.ndarray:
    """Frame pixel coordinates → quarter-frame pixel coordinates (resize maps centres)."""
    return (px - (SMALL_SCALE - 1) / 2) / SMALL_SCALE


class MotionDetector:
    """Per zone: did it change since the previous frame, and since it was last read?"""

    def __init__(self, rect: Rectification, layout: Layout, zones: tuple[str, ...] = ALL_ZONES,
                 grow_mm: float = READ_GROW_MM, inset_mm: float = MOTION_INSET_MM) -> None:
        self._boxes = {z: _small_box(rect, layout.zones[z], grow_mm) for z in zones}
        self._moving_boxes = {z: _small_box(rect, layout.zones[z], -inset_mm) for z in zones}
        self._previous: np.ndarray | None = None
        self._before: np.ndarray | None = None  # the frame before `_previous`
        self._at_read: dict[str, np.ndarray] = {}

    def update(self, small_grey: np.ndarray) -> set[str]:
        """Zones that changed since the previous frame. The first frame has nothing to compare
        with: no zone moved (the stabiliser's count of stable frames starts there)."""
        prev, self._previous = self._previous, small_grey
        if prev is None or prev.shape != small_grey.shape:
            self._before = None
            return set()
        self._before = prev
        return {z for z, box in self._moving_boxes.items() if _changed(prev[box], small_grey[box])}

    def still_since_previous(self, zone: str) -> bool:
        """Whether the zone and the few mm around it (all a reading looks at) show the same
        pixels on the last frame given to `update` as on the one before it."""
        if self._before is None:
            return False
        box = self._boxes[zone]
        return not _changed(self._before[box], self._previous[box])

    def needs_read(self, zone: str, small_grey: np.ndarray) -> bool:
        """Whether a zone's pixels differ from when it was last read (or it never was)."""
        before = self._at_read.get(zone)
        return before is None or _changed(before, small_grey[self._boxes[zone]])

    def mark_read(self, zone: str, small_grey: np.ndarray) -> None:
        self._at_read[zone] = small_grey[self._boxes[zone]].copy()

    def forget(self, zone: str) -> None:
        self._at_read.pop(zone, None)


def _small_box(rect: Rectification, r: Rect, grow_mm: float) -> tuple[slice, slice]:
    """The quarter-frame box around zone rectangle `r` grown by `grow_mm` on each side
    (negative: shrunk)."""
    grown = Rect(r.x - grow_mm, r.y - grow_mm, r.w + 2 * grow_mm, r.h + 2 * grow_mm)
    x0, y0, x1, y1 = rect.frame_box(grown)
    (sx0, sy0), (sx1, sy1) = _to_small(np.array([[x0, y0], [x1, y1]], float))
    return (slice(max(0, int(sy0)), int(np.ceil(sy1)) + 1),
            slice(max(0, int(sx0)), int(np.ceil(sx1)) + 1))


def _changed(a: np.ndarray, b: np.ndarray) -> bool:
    diff = cv2.absdiff(a, b)
    return np.count_nonzero(diff > PIXEL_CHANGE) > MOVING_MIN_FRACTION * diff.size


@dataclass(frozen=True)
class HandReport:
    covered: frozenset[str]
    arm_samples: int  # not-mat samples joined to the mat's edge (0: no arm in view)
    mat_bgr: tuple[float, float, float]  # the bare mat's median colour in this frame
    # Zones with any not-mat sample near them, joined to an arm or not: a shadow, a finger, a
    # dropped card. Such a zone may still be read, but never called a back (see reader.py).
    disturbed: frozenset[str] = frozenset()
    # Zones an arm came near whose edge line shows none of its skin (GATE_*), with the arm's
    # colour (B, G, R; None when unknown): it stops outside them, though it may lie on the ring
    # of mat around them (see reader.py).
    cleared: Mapping[str, tuple[float, float, float] | None] = field(default_factory=dict)


class HandDetector:
    """Arms and hands over the mat, from samples of the bare mat between zones."""

    def __init__(self, rect: Rectification, layout: Layout, zones: tuple[str, ...] = ALL_ZONES) -> None:
        xs = np.arange(GRID_MM / 2, layout.width_mm, GRID_MM)
        ys = np.arange(GRID_MM / 2, layout.height_mm, GRID_MM)
        gx, gy = np.meshgrid(xs, ys)
        keep = np.ones(gx.shape, bool)
        for r in layout.zones.values():
            keep &= ~_near(gx, gy, r, ZONE_CLEARANCE_MM)
        for m in layout.markers:
            keep &= ~_near(gx, gy, Rect(m.x, m.y, m.size, m.size), MARKER_CLEARANCE_MM)
        px = rect.table_points_to_frame(np.column_stack([gx.ravel(), gy.ravel()]))
        sp = np.round(_to_small(px)).astype(int)
        sw, sh = rect.size[0] // SMALL_SCALE, rect.size[1] // SMALL_SCALE
        inside = (sp[:, 0] >= 0) & (sp[:, 0] < sw) & (sp[:, 1] >= 0) & (sp[:, 1] < sh)
        keep &= inside.reshape(keep.shape)
        self._keep = keep
        self._shape = keep.shape
        self._flat_index = (np.clip(sp[:, 1], 0, sh - 1) * sw + np.clip(sp[:, 0], 0, sw - 1))[keep.ravel()]
        edge = ((gx < EDGE_BAND_MM) | (gx > layout.width_mm - EDGE_BAND_MM)
                | (gy < EDGE_BAND_MM) | (gy > layout.height_mm - EDGE_BAND_MM))
        self._edge = edge & keep
        self._touch = {z: _near(gx, gy, layout.zones[z], TOUCH_MM) & keep for z in zones}
        self._gate = {z: _edge_line(rect, layout.zones[z]) for z in zones}
        self._sample_number = np.full(self._shape, -1, np.int64)  # grid cell → index in samples
        self._sample_number[keep] = np.arange(int(keep.sum()))
        self.light: tuple[float, float, float] | None = None  # glare's colour (NOT_MAT_RESIDUAL)
        self._background: np.ndarray | None = None  # each sample's mat on recent frames (GLOSSY_*)

    def detect(self, small_bgr: np.ndarray, frame: np.ndarray | None = None) -> HandReport:
        """Arms over the mat in `small_bgr` (small_frame of the camera frame). With `frame`, the
        full-size frame, a zone an arm touches is covered only if the arm crosses its edge
        line (GATE_*); without it, every zone an arm touches is covered."""
        samples = small_bgr.reshape(-1, 3)[self._flat_index].astype(np.float32)
        mat = mat_colour(samples)
        mat_bgr = (float(mat[0]), float(mat[1]), float(mat[2]))
        residual, gain = mat_fit(samples, mat, self.light)  # (not_mat, at two thresholds)
        by_colour = (residual > NOT_MAT_RESIDUAL) | (gain < NOT_MAT_MIN_GAIN)
        faint_colour = by_colour | (residual > FAINT_RESIDUAL)
        smooth = cv2.blur(small_bgr, (3, 3)).reshape(-1, 3)[self._flat_index].astype(np.float32)
        glossy = (darker_and_glossier(smooth, self._background, mat, self.light)
                  if self._background is not None else np.zeros(len(samples), bool))
        outside = by_colour | glossy
        faint = faint_colour | glossy
        self._remember_mat(smooth, ~faint, glossy & ~faint_colour)
        grid = np.zeros(self._shape, np.uint8)
        grid[self._keep] = faint.astype(np.uint8)
        # Lone specks (noise, a JPEG block, a crumb) go: a not-mat sample needs a not-mat
        # neighbour. An arm is ~12 samples wide and a finger 3; both keep theirs.
        neighbours = cv2.filter2D(grid, -1, _NEIGHBOURS, borderType=cv2.BORDER_CONSTANT)
        grid &= (neighbours >= 2).astype(np.uint8)
        raw = np.zeros(self._shape, bool)
        raw[self._keep] = outside
        disturbed = frozenset(z for z, m in self._touch.items() if (raw & m).any())
        n, labels = cv2.connectedComponents(grid, connectivity=8)
        if n <= 1:
            return HandReport(frozenset(), 0, mat_bgr, disturbed)
        sizes = np.bincount(labels.ravel(), minlength=n)
        clear = np.bincount(labels[raw & (grid > 0)], minlength=n)  # samples clearly not mat
        arm = set(np.unique(labels[self._edge & (grid > 0)]).tolist()) - {0}
        arm = {c for c in arm if clear[c] >= MIN_ARM_SAMPLES or sizes[c] >= FAINT_ARM_MIN_SAMPLES}
        joins = {c for c in range(1, n) if clear[c] > 0 or sizes[c] >= FAINT_JOIN_MIN_SAMPLES}
        touching = {z: (set(np.unique(labels[m]).tolist()) - {0}) & joins
                    for z, m in self._touch.items()}
        covered: set[str] = set()
        cleared: dict[str, tuple | None] = {}  # touched, no arm's skin on the zone's edge line
        memo: dict = {}  # the edge checks' shared work: the frame's 3 × 3 mean, arm colours
        # An arm over a zone hides the mat under it; whatever not-mat lies on the zone's far
        # side is the same arm going on, so it joins the arm.
        grew = True
        while grew:
            grew = False
            for z, comps in touching.items():
                if z in covered or z in cleared or not comps & arm:
                    continue
                if frame is not None and not self._crosses_edge(frame, memo, z, comps & arm, arm,
                                                                 labels, raw, samples, mat, n):
                    cleared[z] = memo[("skin", z)]
                    continue
                covered.add(z)
                arm |= comps
                grew = True
        return HandReport(frozenset(covered), int(sum(sizes[c] for c in arm)), mat_bgr,
                          disturbed | frozenset(covered), cleared)

    def _remember_mat(self, smooth: np.ndarray, bare: np.ndarray, drifting: np.ndarray) -> None:
        """Move the background of the samples that are mat on this frame toward them, and of
        those only the background tells from mat (`drifting`) slowly (BACKGROUND_DRIFT_RATE)."""
        if self._background is None:
            self._background = smooth.copy()
            return
        # (As one product over every sample: a boolean index three times took ~0.8 ms.)
        slow = np.where(drifting, np.float32(BACKGROUND_DRIFT_RATE), np.float32(0.0))
        rate = np.where(bare, np.float32(BACKGROUND_RATE), slow)[:, None]
        self._background += rate * (smooth - self._background)

    def _crosses_edge(self, frame: np.ndarray, memo: dict, zone: str, comps: set[int],
                      arm: set[int], labels: np.ndarray, raw: np.ndarray, samples: np.ndarray,
                      mat: np.ndarray, n_labels: int) -> bool:
        """Whether the arm touching `zone` through components `comps` (part of `arm`) shows its
        skin on the zone's edge line. The skin's colour is the median of the clearly-not-mat,
        unclipped samples of the whole arm and, apart, of `comps` near the zone (the light
        there, though they may be a fingertip's blurred edge): skin of either colour counts.
        An arm whose colour is unknown (skin close to the mat's colour, or all of it clipped)
        is taken to cross the line. `memo` keeps what one frame's zones share, and the whole
        arm's colour as memo[("skin", zone)]."""
        memo[("skin", zone)] = None
        index = self._gate[zone]
        if len(index) == 0:
            return True
        key = ("arm", frozenset(arm))
        if key not in memo:
            memo[key] = self._skin_colour(arm, self._keep, labels, raw, samples, n_labels)
        whole = memo[key]
        if whole is not None:
            memo[("skin", zone)] = (float(whole[0]), float(whole[1]), float(whole[2]))
        # Each sample is the mean of the 3 × 3 pixels around it (~2 mm): noise σ 4 drops to
        # ~1.4, so the faint not-mat test below holds on bare mat (cv2.blur: ~0.4 ms a frame).
        if "smooth" not in memo:
            memo["smooth"] = cv2.blur(frame, (3, 3)).reshape(-1, 3)
        pixels = memo["smooth"][index].astype(np.float64)
        # Skin is also not mat (its colour came from not-mat samples): a hue of skin shared by
        # the mat (a reddish mat, a pink tone) must not make the bare mat on the edge line
        # count as a hand. Faint counts: a dark hand on a dark red mat differs from it by
        # ~10 grey levels only.
        pixels = pixels[not_mat(pixels, mat, FAINT_RESIDUAL, self.light)]
        if len(pixels) < GATE_MIN_SKIN:
            # Bare mat all along the edge line: the arm stops short, whatever its colour. (An
            # arm of unknown colour, as close to the mat's as the darkest hand on the dark red
            # mat, had covered every zone it came near: bench gnome-tango table 34's spit.left,
            # the hand 3.8 mm short of it.)
            return False
        if whole is None:
            # Not-mat on the line, and no colour to tell skin from a card's paper or print
            # lying over the zone's edge: taken to be the arm.
            return True  # (comps is part of the arm: its samples near the zone are fewer)
        colours = [whole]
        near = self._skin_colour(comps, self._touch[zone], labels, raw, samples, n_labels)
        if near is not None:
            colours.append(near)
        return any(np.count_nonzero(skin(pixels, c, self.light)) >= GATE_MIN_SKIN for c in colours)

    def _skin_colour(self, members: set[int], where: np.ndarray, labels: np.ndarray,
                     raw: np.ndarray, samples: np.ndarray, n_labels: int) -> np.ndarray | None:
        """Median colour of the clearly-not-mat, unclipped samples of components `members`
        within `where`; None with fewer than ARM_COLOUR_MIN_SAMPLES of them."""
        member = np.zeros(n_labels, bool)
        member[list(members)] = True
        vals = samples[self._sample_number[member[labels] & raw & where]]
        vals = vals[vals.max(axis=1) < CLIPPED_LEVEL]
        return np.median(vals, axis=0) if len(vals) >= ARM_COLOUR_MIN_SAMPLES else None


_NEIGHBOURS = np.ones((3, 3), np.float32)


def _edge_line(rect: Rectification, r: Rect) -> np.ndarray:
    """Flat indices into the full-size frame of the samples along `r`'s edge, its corners left
    out (GATE_*)."""
    pts = []
    c = GATE_CORNER_MM
    for off in GATE_OFFSETS_MM:
        x0, y0, x1, y1 = r.x - off, r.y - off, r.x + r.w + off, r.y + r.h + off
        xs = np.arange(r.x + c, r.x + r.w - c + 1e-9, GATE_STEP_MM)
        ys = np.arange(r.y + c, r.y + r.h - c + 1e-9, GATE_STEP_MM)
        pts += [np.column_stack([xs, np.full_like(xs, y0)]), np.column_stack([xs, np.full_like(xs, y1)]),
                np.column_stack([np.full_like(ys, x0), ys]), np.column_stack([np.full_like(ys, x1), ys])]
    px = np.round(rect.table_points_to_frame(np.vstack(pts))).astype(int)
    w, h = rect.size
    ok = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    return np.unique(px[ok, 1] * w + px[ok, 0])


_WHITE = np.ones(3) / np.sqrt(3.0)


def glare_axis(light: tuple[float, float, float] | None = None) -> np.ndarray:
    """The unit (B, G, R) direction of glare: the light's colour, or white."""
    if light is None:
        return _WHITE
    v = np.asarray(light, np.float64)
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else _WHITE


def skin(pixels: np.ndarray, colour, light: tuple[float, float, float] | None = None) -> np.ndarray:
    """Pixels (N, 3) that gain × colour + glare explains (SKIN_*): skin of that colour."""
    white = 255.0 * glare_axis(light)
    basis = np.column_stack([np.asarray(colour, np.float64), white])
    coeffs = pixels @ np.linalg.pinv(basis).T
    residual = np.linalg.norm(pixels - coeffs @ basis.T, axis=1)
    return ((residual < SKIN_RESIDUAL) & (coeffs[:, 0] >= SKIN_MIN_GAIN)
            & (coeffs[:, 0] <= SKIN_MAX_GAIN) & (coeffs[:, 1] >= -0.05))


def mat_colour(samples: np.ndarray) -> np.ndarray:
    """The bare mat's colour (B, G, R) from samples (N, 3) that are mostly mat: the median
    chromaticity (each sample over its brightness) times the median brightness. The median of
    each channel alone mixes samples of different light: with two arms over a quarter of the
    samples and light falling off 40 % across the mat, each channel's median is another
    sample's, and their mix was a colour no mat sample had (bench/vision.py's gnome-bonded
    table 29: 88 % of a blue-grey mat then read as an arm). The chromaticity of mat samples
    hardly varies with the light, so arms move its median little."""
    s = np.asarray(samples, np.float32).reshape(-1, 3)
    brightness = s.sum(axis=1) + 1.0
    return np.median(s / brightness[:, None], axis=0) * float(np.median(brightness))


def not_mat(samples: np.ndarray, mat: np.ndarray | None = None,
            residual_max: float = NOT_MAT_RESIDUAL,
            light: tuple[float, float, float] | None = None) -> np.ndarray:
    """Samples (N, 3) that no gain × mat + glare explains (see NOT_MAT_RESIDUAL); glare has
    the colour of `light` (B, G, R), white when None."""
    residual, gain = mat_fit(samples, mat, light)
    return (residual > residual_max) | (gain < NOT_MAT_MIN_GAIN)


def mat_fit(samples: np.ndarray, mat: np.ndarray | None = None,
            light: tuple[float, float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For samples (N, 3): how far each lies from the nearest gain × mat + glare of `light`'s
    colour, and its gain along the mat; `not_mat` thresholds them."""
    mat = (mat_colour(samples) if mat is None else np.asarray(mat)).astype(np.float64)
    s = samples.astype(np.float64)
    white = glare_axis(light)
    m_norm = max(1.0, float(np.linalg.norm(mat)))
    if _grey(mat / m_norm, white):  # only gain is seen
        # The plane through mat and white is ill-defined here (noise picks its tilt, and could
        # tilt it onto a skin tone), so a sample must lie in the thin wedge between the mat's
        # colour and white: gain × mat + glare × white with both ≥ 0. Measuring from the grey
        # axis alone put a slightly tinted mat's own colour 17 grey levels off (blue-grey
        # (120, 100, 80) at gain 0.7): the whole mat read as an arm (bench tables).
        return _wedge_residual(s, mat / m_norm, white), (s @ white) / max(1.0, float(mat @ white))
    basis = np.column_stack([mat, white * m_norm])
    coeffs = s @ np.linalg.pinv(basis).T  # (N, 2): gain along the mat, glare along white
    # (Glare's share is not checked: for a mat of little colour, mat and white are nearly
    # parallel and noise swings the split between them; the residual is what is well measured.)
    return np.linalg.norm(s - coeffs @ basis.T, axis=1), coeffs[:, 0]


def darker_and_glossier(samples: np.ndarray, background: np.ndarray, mat: np.ndarray,
                        light: tuple[float, float, float] | None = None) -> np.ndarray:
    """Samples (N, 3) that have become darker and glossier than their `background` (N, 3)
    both at once (GLOSSY_*), measured as gain × `mat` + glare of `light`'s colour, each
    change counted from the median sample's. None on a grey mat (gain and glare are one
    direction there) or when most of the mat changed so (the light did)."""
    mat = np.asarray(mat, np.float64)
    white = glare_axis(light)
    m_norm = max(1.0, float(np.linalg.norm(mat)))
    flagged = np.zeros(len(samples), bool)
    if len(samples) == 0 or _grey(mat / m_norm, white):
        return flagged
    to_coeffs = np.linalg.pinv(np.column_stack([mat, white * m_norm])).T.astype(np.float32)
    change = (np.asarray(samples, np.float32) - background) @ to_coeffs  # (N, 2): gain, glare
    # The median sample's change, and the spread of glare's, from every 4th sample (as good
    # for a median of thousands, and a quarter of the time).
    some = change[::4]
    usual = np.median(some, axis=0)
    flagged = change[:, 0] < usual[0] - GLOSSY_DARKER
    if not flagged.any():
        return flagged
    spread = 1.4826 * float(np.median(np.abs(some[:, 1] - usual[1])))
    flagged &= change[:, 1] > usual[1] + max(GLOSSY_MIN_GLARE, GLOSSY_SIGMAS * spread)
    if np.count_nonzero(flagged) > GLOSSY_MAX_SHARE * len(samples):
        flagged[:] = False
    return flagged


def _grey(mat_unit: np.ndarray, white: np.ndarray) -> bool:
    """Whether the mat's colour (unit vector) is the light's own, within ~8°: a grey mat."""
    return float(np.linalg.norm(mat_unit - white)) < 0.14


def _wedge_residual(s: np.ndarray, m: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Distance of each sample (N, 3) from the wedge {a·m + b·w : a, b ≥ 0} (m, w unit)."""
    c = float(m @ w)
    along_m = s @ m
    to_m = np.linalg.norm(s - np.maximum(along_m, 0.0)[:, None] * m, axis=1)
    along_w = s @ w
    to_w = np.linalg.norm(s - np.maximum(along_w, 0.0)[:, None] * w, axis=1)
    best = np.minimum(to_m, to_w)
    if c > 1.0 - 1e-9:  # m is w: the wedge is one ray
        return best
    # Inside the wedge's span: least squares on the two directions; kept where both ≥ 0.
    det = 1.0 - c * c
    a = (along_m - c * along_w) / det
    b = (along_w - c * along_m) / det
    inside = (a >= 0) & (b >= 0)
    plane = np.linalg.norm(s - a[:, None] * m - b[:, None] * w, axis=1)
    return np.where(inside, np.minimum(plane, best), best)


def _near(gx: np.ndarray, gy: np.ndarray, r: Rect, margin: float) -> np.ndarray:
    return ((gx > r.x - margin) & (gx < r.x + r.w + margin)
            & (gy > r.y - margin) & (gy < r.y + r.h + margin))


class Stabilizer:
    """Holds each zone's reading until it is stable; reports only the zones that changed."""

    def __init__(self, stable_frames: int = STABLE_FRAMES, zones: tuple[str, ...] = ALL_ZONES) -> None:
        if stable_frames < 1:
            raise ValueError("stable_frames must be at least 1")
        self.stable_frames = stable_frames
        self._public: dict[str, str | None] = {z: None for z in zones}  # None: nothing said yet
        self._public_conf: dict[str, float] = {}
        self._candidate: dict[str, tuple[str, int, float]] = {}
        # The candidate a `?` interrupted, kept while the zone's pixels may still prove unchanged
        self._held: dict[str, tuple[str, int, float]] = {}

    @property
    def readings(self) -> dict[str, str]:
        """What has been reported for each zone (`?` for zones never reported)."""
        return {z: (r if r is not None else UNKNOWN) for z, r in self._public.items()}

    def snapshot(self, t_ns: int) -> Observation:
        readings = self.readings
        return Observation(t_ns, readings, {z: self._public_conf.get(z, 1.0) for z in readings})

    def update(self, t_ns: int, raw: dict[str, tuple[str, float]],
               unchanged: Collection[str] = (), settled: Collection[str] = ()) -> Observation:
        """Feed one frame's raw readings {zone: (reading, confidence)}; `?` for a zone that
        moved or is covered. `unchanged`: zones whose reading comes from pixels that have not
        changed since the zone was last read (TableReader's cache), so from the same look as
        the reading before any `?` in between. Returns the zones whose reported reading changed
        (may be none).

        Such a zone's count goes on from where the `?` broke it: the frames before the `?` and
        after it show the same pixels, so the same card lying still, and the frames of `?` (a
        hand passing over it, leaving) add nothing to doubt it. A hand that changed anything
        there changes the pixels, and the zone is read afresh and counted from one, as before.
        The zone still reads `?` on every frame it moves or is covered.

        `settled`: zones that read `?` on the previous frame only because they moved (no hand
        covered them), and whose pixels this frame shows unchanged since then: the card lay
        as it lies now on that frame too, so that frame counts as one of the reading's
        `stable_frames` (the frame a hand leaves a pile shows as motion, and the card on the
        pile is still from it on)."""
        changed: dict[str, str] = {}
        conf: dict[str, float] = {}
        for zone, (reading, confidence) in raw.items():
            if zone not in self._public:
                continue
            if reading == UNKNOWN:
                broken = self._candidate.pop(zone, None)
                if broken is not None:
                    self._held[zone] = broken
                if self._public[zone] != UNKNOWN:
                    self._public[zone] = UNKNOWN
                    self._public_conf[zone] = 1.0
                    changed[zone], conf[zone] = UNKNOWN, 1.0
                continue
            held = self._held.pop(zone, None)
            if (zone in unchanged and held is not None and held[0] == reading
                    and zone not in self._candidate):
                self._candidate[zone] = held
            cand = self._candidate.get(zone)
            count = cand[1] + 1 if cand is not None and cand[0] == reading else 1
            if zone in settled:
                count += 1
            low = min(confidence, cand[2]) if cand is not None and cand[0] == reading else confidence
            self._candidate[zone] = (reading, count, low)
            if count >= self.stable_frames:
                if self._public[zone] != reading:
                    self._public[zone] = reading
                    self._public_conf[zone] = low
                    changed[zone], conf[zone] = reading, low
            elif self._public[zone] not in (None, UNKNOWN, reading):
                # A new reading that has not yet held: the zone is changing, so say so now.
                self._public[zone] = UNKNOWN
                self._public_conf[zone] = 1.0
                changed[zone], conf[zone] = UNKNOWN, 1.0
        return Observation(t_ns, changed, conf)
