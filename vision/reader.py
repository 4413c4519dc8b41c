"""TableReader: camera frames in, `Observation`s out (DESIGN.md data flow).

Per frame: a quarter-size copy tells which zones moved and where hands are (vision.stabilize);
zones that moved or are covered read `?`; zones whose pixels are as they were when last read
keep that reading without being cut again (this is how a frame fits in the 5 ms budget); the
rest are cut (vision.zones) and judged empty / back / face, and a face's top card is found,
flattened and read by engineer "cards"'s `vision.card` and `vision.recognize`. The stabiliser
then reports only zones whose reading changed and has held for `stable_frames` frames.

`read_still` reads one photograph on its own (no motion, no stabiliser): `read-table`.
"""
from __future__ import annotations

import functools
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import cv2
import numpy as np

from calibration.layout import Layout, default_layout
from referee.zones import ALL_ZONES, BACK, EMPTY, UNKNOWN
from vision import card as card_finder
from vision import corner_model, pips, recognize
from vision.marks import darkest_channel
from vision.imagefile import ImageFileError, load_image
from vision.observation import Observation
from vision.rectify import Rectification, check_frame, from_calibration, from_markers
from vision.stabilize import (STABLE_FRAMES, HandDetector, MotionDetector, Stabilizer,
                              small_frame)
from vision.templates import load_templates
from vision.topcard import (CARD_LENGTHS_MM, lies_under, locate_card_outlines, locate_top_card,
                            outlines_from_corner, refine_outline)
from vision.zones import READ_PX_PER_MM, ZoneCutter, ZoneKind, ZoneLook, light_colour

if TYPE_CHECKING:
    from calibration.store import Calibration

STAGES = ("check", "motion", "hands", "zones", "faces", "stabilize")
# When no outline reads because a corner shows no index, each outline is grown about its centre
# by these factors and read again: 3-10 % of the card's size, 1.3-4.4 mm on its long side, the
# error of a fit that settled on an inner edge. On the bench (held out, 20 tables per deck) this
# read 17 more faces of 936, none wrong; ~1 ms per extra look, paid only by faces not read.
GROW_FACTORS = (1.03, 1.06, 1.10)
_GROW_REASONS = ("only one corner readable", "no card index found")
# When still nothing reads, the next best-supported card outlines of the cut (besides the best
# one, which is already read): on a pile the best-supported rectangle is not always the top
# card (glare along one of its sides, the pile beneath squared with the zone's printed outline).
# An outline that lies under another (vision.topcard.lies_under) is a card beneath and is not
# read; a read still needs both corners to agree, and two outlines reading different cards
# make `?`.
EXTRA_OUTLINES = 3
# A zone with something not mat beside it (HandReport.disturbed: a hand stopping short, its
# shadow) is a back only when this little of its card is open paper white (ZoneLook.white),
# half of zones.BACK_MAX_WHITE: on bench/vision.py's tables (50 per deck, and 30 of seed
# stress-a) faces show >= 0.11 (>= 0.148 beside a hand), backs beside a hand <= 0.052, most 0.
# Demoting every such back to `?` left 11 of 487 backs unread.
DISTURBED_BACK_MAX_WHITE = 0.04
# The light's colour (zones.light_colour, glare's colour in the mat model) is measured on the
# markers' paper every this many frames of a stream (0.18 ms a time on this machine), and on
# every still: a lamp's colour does not change from one frame to the next. It is measured
# again whenever a zone is read (the markers' paper is measured for that anyway): a lamp
# switched on may leave the frame's lightness as it was (warmer and brighter, demo seed 52)
# and so move no zone, while a card it lights differently is read at once.
LIGHT_EVERY_FRAMES = 15
# A face whose index was not read is read again on the next frames, up to this many reads in
# all, though its pixels did not change enough to count as moved (MOVING_MIN_FRACTION): the
# first still frame after a hand left can hold what a whole-zone difference does not show
# (demo seed 5, frame 23,468: a spat J♠ read "no card index found" on it, and that cached `?`
# stood for the 10 clear frames until the next hand, which the referee never saw; the same
# pixels two frames on read J♠). A face nothing reads costs two reads more each time it
# settles.
UNREAD_FACE_READS = 3
SUIT_IN_DOUBT = "face: corners read two suits of"  # how ZoneReading.why starts then
# An outline that lies under an outline that read the card (vision.topcard.lies_under: inside
# it, its sides show fewer edges than the other's do inside it) and is turned more than this
# from it is another card's, beneath (a fit of the card read is turned as it, within the fine
# search's 1.5°). What it reads is that card's index, or the top card's seen turned by as much,
# beyond what the corner networks learned (vision.train turns glyphs up to 6° and an outline's
# corners are off by up to 1.5 % of the card's height, ~2°): neither says anything against
# the card read. See _beneath.
BENEATH_TURN_DEG = 6.0
# When no outline reads both corners, two corners read along two outlines (see
# TableReader._across_outlines) each this sure (rank × suit; the level at which one corner
# with the pips' count is trusted, recognize.ONE_CORNER_MIN_P), and this far apart on the
# table (a card's opposite corners lie ~100 mm apart; one corner seen along two outlines
# lies within ~20 mm, the worst fits found).
ACROSS_MIN_P = recognize.ONE_CORNER_MIN_P
ACROSS_APART_MM = 50.0
# Last, an outline is rebuilt from each index corner read this surely (rank × suit) along some
# outline (TableReader._from_sure_corners); corners closer than SAME_CORNER_MM are one.
ANCHOR_MIN_P = recognize.ONE_CORNER_MIN_P
SAME_CORNER_MM = 3.0


@dataclass(frozen=True)
class ZoneReading:
    reading: str
    confidence: float
    why: str  # how it was decided, for `read-table` and debugging


FrameFileError = ImageFileError  # the name this module gave it first


def load_frame(path: str | Path) -> np.ndarray:
    """A BGR frame from an image file, or FrameFileError saying what is wrong with it (the
    same answers as `identify` gives for the same file: vision.imagefile)."""
    return load_image(path, "camera frame")


class TableReader:
    """Reads the twelve zones from frames of one camera set-up."""

    def __init__(self, rectification: Rectification, layout: Layout | None = None, *,
                 stable_frames: int = STABLE_FRAMES,
                 min_confidence: float = recognize.MIN_CONFIDENCE,
                 templates: Any = None, zones: tuple[str, ...] = ALL_ZONES,
                 model: Any = None) -> None:
        self.rectification = rectification
        self.layout = layout or default_layout()
        self.min_confidence = min_confidence
        self.templates = templates
        self.model = model  # a vision.corner_model.CornerModel; None: the shipped one
        self.zones = zones
        self.cutter = ZoneCutter(rectification, self.layout, zones=zones)
        self.motion = MotionDetector(rectification, self.layout, zones)
        self.hands = HandDetector(rectification, self.layout, zones)
        self._light_age = LIGHT_EVERY_FRAMES  # frames since the light's colour was measured
        self.stabilizer = Stabilizer(stable_frames, zones)
        self._cache: dict[str, ZoneReading] = {}
        self._unchanged: set[str] = set()  # zones the last frame took from the cache
        self._moved_clear: set[str] = set()  # zones the last frame read `?` for motion alone
        self._settled: set[str] = set()  # ... that this frame shows as that one did
        self._unread_faces: dict[str, int] = {}  # zone -> reads of its face in a row that failed
        self.timings: dict[str, list[float]] = defaultdict(list)  # seconds per stage per frame

    # --- construction ------------------------------------------------------------------------

    @classmethod
    def from_calibration(cls, cal: "Calibration", size: tuple[int, int]) -> "TableReader":
        """The calibration's homography, vision options and deck templates (if any)."""
        return cls(from_calibration(cal, size), cal.layout, **_options(cal))

    @classmethod
    def from_frame(cls, frame: np.ndarray, layout: Layout | None = None,
                   cal: "Calibration | None" = None) -> "TableReader":
        """The calibration's table section when it has one; else the mat's markers in `frame`."""
        frame = check_frame(frame)
        layout = layout or (cal.layout if cal is not None else default_layout())
        size = (frame.shape[1], frame.shape[0])
        opts = _options(cal) if cal is not None else {}
        if cal is not None and cal.table is not None:
            return cls(from_calibration(cal, size), layout, **opts)
        if cal is not None and cal.camera is not None:
            # The lens correction without a table section: the markers are found in the
            # undistorted frame, as `calibrate table` finds them, and the zones are cut through
            # the same correction (it was dropped here, silently).
            from calibration.camera import undistort
            found = from_markers(undistort(frame, cal.camera), layout)
            return cls(Rectification(found.frame_to_table, size, "markers",
                                     found.reprojection_error_mm, cal.camera.matrix_array(),
                                     cal.camera.dist_array()), layout, **opts)
        return cls(from_markers(frame, layout), layout, **opts)

    # --- reading -----------------------------------------------------------------------------

    def read(self, frame: np.ndarray, t_ns: int) -> Observation:
        """One frame of a stream: the zones whose stable reading changed (often none)."""
        raw = self._read_frame(frame, use_motion=True)
        t0 = time.perf_counter()
        obs = self.stabilizer.update(int(t_ns), {z: (r.reading, r.confidence) for z, r in raw.items()},
                                     self._unchanged, self._settled)
        self.timings["stabilize"].append(time.perf_counter() - t0)
        return obs

    def read_still(self, frame: np.ndarray, t_ns: int = 0) -> Observation:
        """One photograph on its own: every zone's reading (hands still make `?`)."""
        raw = self.read_zones(frame)
        return Observation(int(t_ns), {z: r.reading for z, r in raw.items()},
                           {z: r.confidence for z, r in raw.items()})

    def read_zones(self, frame: np.ndarray) -> dict[str, ZoneReading]:
        """Every zone of one frame, read afresh, with how each was decided."""
        self._cache.clear()
        self._unread_faces.clear()
        return self._read_frame(frame, use_motion=False)

    def snapshot(self, t_ns: int) -> Observation:
        """What the stabiliser has reported so far, for all zones."""
        return self.stabilizer.snapshot(int(t_ns))

    def _read_frame(self, frame: np.ndarray, use_motion: bool) -> dict[str, ZoneReading]:
        tick = time.perf_counter()
        frame = check_frame(frame, self.rectification.size)
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        tick = self._lap("check", tick)
        small = small_frame(frame)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        moving = self.motion.update(grey) if use_motion else set()
        tick = self._lap("motion", tick)
        whites: dict | None = None
        if not use_motion or self._light_age >= LIGHT_EVERY_FRAMES:
            whites = self._paper_and_light(frame)
        self._light_age += 1
        hands = self.hands.detect(small, frame)
        covered = hands.covered
        # A zone that moved on the last frame, no hand over it, and whose pixels have not
        # changed since: the stabiliser counts that frame as one of the reading's.
        self._settled = {z for z in self._moved_clear if z not in covered and z not in moving
                         and self.motion.still_since_previous(z)}
        self._moved_clear = moving - covered
        tick = self._lap("hands", tick)
        out: dict[str, ZoneReading] = {}
        faces: list[str] = []
        looks = {}
        self._unchanged = set()
        for zone in self.zones:
            if zone in covered or zone in moving:
                # The last reading stays cached with the pixels it was read from: when the
                # hand has gone and the zone looks as it did then, it is not read again.
                out[zone] = ZoneReading(UNKNOWN, 1.0, "covered" if zone in covered else "moving")
                continue
            if zone not in self._cache or self.motion.needs_read(zone, grey):
                self._unread_faces.pop(zone, None)  # changed: a new look, read afresh
            elif not 0 < self._unread_faces.get(zone, 0) < UNREAD_FACE_READS:
                out[zone] = self._cache[zone]
                self._unchanged.add(zone)  # the stabiliser may count on from before a `?`
                continue
            if whites is None:
                whites = self._paper_and_light(frame)
            cut = self.cutter.cut(frame, zone)
            white = self.cutter.white_at(whites, zone)
            look = self.cutter.look(cut, zone, white, hands.mat_bgr)
            arm = hands.cleared.get(zone)
            if look.kind is ZoneKind.UNSURE and arm is not None:
                # An arm on the ring of mat around the zone made it UNSURE, but the hand
                # detector saw that arm stop outside the zone (none of its skin on the zone's
                # edge line, GATE_*): its skin on the ring is no reason to doubt the zone; all
                # else there still is (a card across the ring). A face still has to be read
                # (two corners), and empty means next to nothing inside the zone; a back is not
                # taken (a face in the arm's shadow may show too little white paper). Only the
                # whole arm's colour: the colour near the zone, of a blurred fingertip on the
                # mat, can be grey enough to fit white paper.
                beside = self.cutter.look(cut, zone, white, hands.mat_bgr, arm)
                if beside.kind in (ZoneKind.FACE, ZoneKind.EMPTY):
                    look = beside
            if (look.kind is ZoneKind.BACK and zone in hands.disturbed
                    and look.white >= DISTURBED_BACK_MAX_WHITE):
                # Something not mat beside the zone (a shadow, a finger): a shaded face could
                # pass for a back, so this zone is a back only when its surroundings are clear
                # or it shows far less open paper than any face (DISTURBED_BACK_MAX_WHITE).
                look = ZoneLook(ZoneKind.UNSURE, look.content, look.white, 0.0)
            looks[zone] = look
            if look.kind is ZoneKind.FACE:
                faces.append(zone)
                continue
            out[zone] = _from_look(look)
        tick = self._lap("zones", tick)
        for zone in faces:
            out[zone] = self._read_face(frame, zone, hands.mat_bgr)
        tick = self._lap("faces", tick)
        for zone in looks:
            if zone in faces and out[zone].reading == UNKNOWN:
                self._unread_faces[zone] = self._unread_faces.get(zone, 0) + 1
            else:
                self._unread_faces.pop(zone, None)
            self._cache[zone] = out[zone]
            self.motion.mark_read(zone, grey)
        return {z: out[z] for z in self.zones}

    def _paper_and_light(self, frame: np.ndarray) -> dict:
        """The markers' white paper in `frame` (zones.ZoneCutter.paper_white), and from it the
        light's colour for the hand detector and the zones."""
        whites = self.cutter.paper_white(frame)
        self.hands.light = self.cutter.light = light_colour(whites)
        self._light_age = 0
        return whites

    def _read_face(self, frame: np.ndarray, zone: str, mat_bgr) -> ZoneReading:
        """Read the top card two ways: the outline fitted with the cut's known scale
        (vision.topcard) and the outline of the general card finder (vision.card). One
        confident reading is enough; two confident readings that disagree make `?`."""
        img = self.cutter.cut_for_reading(frame, zone)
        # Outlines are found with the zone's printed outline painted out; the index is read
        # from the unpainted cut (the painting smudges dark ink lying on the outline band).
        painted = img if mat_bgr is None else self.cutter.paint_outline(img, zone, mat_bgr)
        quads = []
        fit = locate_top_card(painted, READ_PX_PER_MM)
        if fit is not None:
            quads.append(card_finder.Quad.from_points(fit.corners, fit.support))
        found = card_finder.find_top_card(painted)
        if found is not None:
            quads.append(found)
        named: set[str] = set()  # what every corner of every look read on its own
        looks: list = []  # (outline, CardReading, flattened card) of every look
        read, reasons = self._read_quads(img, quads, named, looks)
        if not read and painted is not img:
            # Neither outline read: fit the card once more on the unpainted cut. Painting the
            # band can eat into a card's edge where it lies on the zone's outline and pull the
            # fit off the card (demo stock piles); the printed outline itself is no card-sized
            # rectangle, and a read still needs both corners to agree.
            fit = locate_top_card(img, READ_PX_PER_MM)
            if fit is not None:
                quad = card_finder.Quad.from_points(fit.corners, fit.support)
                if not any(np.allclose(quad.as_array(), q.as_array(), atol=2.0) for q in quads):
                    quads.append(quad)
                    read, more = self._read_quads(img, [quad], named, looks)
                    reasons += more
        if not read and quads:
            # Still nothing: each outline moved side by side onto the card's own edge nearby
            # (vision.topcard.refine_outline). The fits can be 1–3 mm off, enough to cut an
            # index printed close to the edge; paid only by faces that did not read.
            refined = [refine_outline(img, q.as_array(), READ_PX_PER_MM) for q in quads]
            more_quads = [card_finder.Quad.from_points(r, q.score)
                          for r, q in zip(refined, quads) if r is not None]
            read, more = self._read_quads(img, more_quads, named, looks)
            reasons += more
        if not read and quads and any(r in _GROW_REASONS for r in reasons):
            # An outline a little inside the card (a fit 1-3 px off on one side) cuts the index
            # printed close to that edge: it touches the corner crop's border and is refused
            # (kde-standard's courts, npm-cardsjs). Grown outlines take it in whole; what they
            # take in beyond the card's edge touches the crop's border and is refused too, and
            # a read still needs both corners to agree.
            grown = [_grown(q, f) for f in GROW_FACTORS for q in quads]
            read, more = self._read_quads(img, grown, named, looks)
            reasons += more
        first_others = len(looks)
        if not read:
            # (Also when neither finder gave an outline: the best coarse fit's fine search can
            # fail while the next fits hold the card; demo seed 11's 5♣ on an offset pile.)
            read, more, quads = self._read_other_outlines(img, painted, quads, named, looks)
            reasons += more
        if not read:
            # Then the outlines on a sensitive edge map (vision.topcard.SENSITIVE_CANNY), of
            # each card length (CARD_LENGTHS_MM): the top card's side over the cards beneath
            # is a faint white-on-white line the normal edges miss, and a fit that cannot see
            # it settles a few mm narrower, cutting one index (demo seed 20's K♥ on A♠).
            read, more, quads = self._read_other_outlines(img, painted, quads, named, looks,
                                                          sensitive=True)
            reasons += more
        if not read:
            # Last of the outline searches, the outlines in the darkest colour channel: under a
            # bright light the top card's paper and the paper of the cards beneath it clip to
            # 255 in green and red, so in grey the top card's sides over them vanish and no
            # card-sized outline holds (demo seed 5's 7♣ on spit.left, frame 9,880, under a
            # lamp at 1.12 of the game's light: `?` for all its 27 clear frames). Paper is
            # never as bright in its weakest channel (white paper under a warm lamp, cream
            # card stock), and there the sides still show.
            read, more, quads = self._read_other_outlines(img, darkest_channel(painted), quads,
                                                          named, looks)
            reasons += more
        if not read:
            # The outlines found since, grown as the first ones were, where they cut an index
            # (demo seed 14's K♥, rectified by the markers: a sensitive fit 2 mm narrower).
            cut_short = [q for q, r, _ in looks[first_others:] if r.reason in _GROW_REASONS]
            grown = [_grown(q, f) for f in GROW_FACTORS for q in cut_short]
            read, more = self._read_quads(img, grown, named, looks)
            reasons += more
        if not read:
            read, more = self._read_quads(img, self._from_sure_corners(painted, looks), named, looks)
            reasons += more
        if not quads:
            return ZoneReading(UNKNOWN, 0.0, "face: no card outline found")
        vetoes = [r for _, r, _ in looks if r.reason.startswith(recognize.PIPS_VETO)]
        if vetoes and not _pips_side_with(vetoes, read):
            # One look at this card found its pips showing another suit than its index: the
            # index is not to be trusted, whatever another outline's look made of it (a look
            # whose pips happened not to vote read gnome-anglo's AC as AS, held out).
            return ZoneReading(UNKNOWN, 0.0, f"face: {vetoes[0].reason}")
        if not read:
            return self._across_outlines(looks, named) or ZoneReading(UNKNOWN, 0.0, f"face: {reasons[0]}")
        if len({r.card for r in read}) > 1:
            # A card beneath can show both its indices beside the top card, and an outline
            # fitted to it reads it as surely as the top card's outline reads the top card
            # (held out, a gnome-bonded 8S under a 6C turned 45° across it, --seed check-h3).
            under = {r.card for r in read
                     if _beneath(painted, [_quad_of(o, looks) for o in read if o.card == r.card],
                                 [_quad_of(o, looks) for o in read if o.card != r.card])}
            read = [r for r in read if r.card not in under]
        # The suits a court's big marks show along the outlines: read once, when first needed.
        marks = functools.cache(lambda: self._court_marks(looks))
        cards = sorted({r.card for r in read})
        if len(cards) > 1 and len({c[:-1] for c in cards}) == 1 and cards[0][:-1] in recognize.COURT_RANKS:
            # Two outlines read one court in two suits: as with a rival corner (below), the
            # court's big suit marks may settle it, when they show one suit along every
            # outline (held out, npm-cardsjs' KS read KC surely along one outline of four,
            # its narrow small spade taken for a club; its big spades show along each).
            settled = [c for c in cards
                       if _court_marks_settle(c, [o for o in cards if o != c], marks)]
            if len(settled) == 1:
                read = [r for r in read if r.card == settled[0]]
        if len({r.card for r in read}) != 1:
            return ZoneReading(UNKNOWN, 0.0, "face: two outlines read as different cards")
        card = read[0].card
        rivals = sorted(c for c in named if c[:-1] == card[:-1] and c != card)
        if rivals and card[:-1] in recognize.COURT_RANKS:
            # A corner named along the outline of a card beneath (_beneath) names no rival:
            # it saw that card's own index, or the top card's turned beyond what the networks
            # learned (held out, gnome-paris' QS read QS 0.99 and 0.90 along its outline, and
            # QC 0.67 along a back's beneath it, turned 15.5° from it: bench/vision.py table 32).
            tops = [_quad_of(r, looks) for r in read]
            rivals = sorted({c for q, r, _ in looks for c in r.corners if c in rivals
                             and not _beneath(painted, [q.as_array()], tops)})
        if (rivals and card[:-1] in recognize.COURT_RANKS
                and not _court_marks_settle(card, rivals, marks)):
            # A corner seen along another outline names the same court in another suit: the
            # suit is in doubt, and a court card has no pips to settle it (held out,
            # npm-cardsjs' QS read QC along one outline, a corner along another read QS),
            # unless its big suit marks do. A number card's pips are checked against its
            # index in every look.
            return ZoneReading(UNKNOWN, 0.0, f"{SUIT_IN_DOUBT} {card[:-1]}, as {card} and {rivals[0]}")
        return ZoneReading(read[0].card, min(float(r.confidence) for r in read), "face: read")

    def _other_outlines(self, painted: np.ndarray, quads: list, sensitive: bool = False) -> list:
        """Card outlines of the cut other than `quads` (see EXTRA_OUTLINES), none lying under
        another outline found. `sensitive`: found on the sensitive edge map, trying every card
        length."""
        fits = locate_card_outlines(painted, READ_PX_PER_MM, EXTRA_OUTLINES + 1,
                                    CARD_LENGTHS_MM if sensitive else (), sensitive)
        seen = [q.as_array() for q in quads]
        everyone = seen + [f.corners for f in fits]
        out = []
        for f in fits:
            if any(_same_outline(f.corners, q) for q in seen):
                continue
            if lies_under(painted, f.corners, everyone, READ_PX_PER_MM):
                continue
            out.append(card_finder.Quad.from_points(f.corners, f.support))
            seen.append(f.corners)
        return out

    def _read_other_outlines(self, img: np.ndarray, search: np.ndarray, quads: list,
                             named: set[str], looks: list, sensitive: bool = False
                             ) -> tuple[list, list[str], list]:
        """Read `img` along the outlines _other_outlines finds in `search` (the painted cut or
        its darkest channel) besides `quads`: the confident readings, why the others did not
        read, and `quads` with the new outlines."""
        others = self._other_outlines(search, quads, sensitive)
        read, reasons = self._read_quads(img, others, named, looks)
        return read, reasons, quads + others

    def _from_sure_corners(self, painted: np.ndarray, looks: list) -> list:
        """Outlines rebuilt from each index corner that some look read ANCHOR_MIN_P surely
        (vision.topcard.outlines_from_corner): the fit around it had the card's width or length
        wrong and cut the other index (openclipart-simple's AD on the bench, a fit 56 mm wide
        on a 63.6 mm card). Each corner once, however many looks read it."""
        out: list = []
        corners: list[np.ndarray] = []
        for quad, r, _ in list(looks):
            at = card_finder.portrait_corners(quad)
            for view, (card, p) in enumerate(r.views):
                if card is None or p < ANCHOR_MIN_P:
                    continue
                a, b, c = (0, 1, 3) if view == 0 else (2, 3, 1)
                if any(np.linalg.norm(at[a] - q) < SAME_CORNER_MM * READ_PX_PER_MM for q in corners):
                    continue
                corners.append(at[a])
                out += [card_finder.Quad.from_points(o, quad.score) for o in
                        outlines_from_corner(painted, at[a], at[b] - at[a], at[c] - at[a],
                                             READ_PX_PER_MM)]
        return out

    def _read_quads(self, img: np.ndarray, quads: list, named: set[str],
                    looks: list) -> tuple[list, list[str]]:
        """The confident readings of `img` flattened along each outline, and why the others
        did not read; the cards any corner named on its own are added to `named`, and each
        look (outline, reading, flattened card) to `looks`."""
        read, reasons = [], []
        for quad in quads:
            flat = card_finder.flatten(img, quad)
            r = recognize.read_card(flat, self.templates,
                                    min_confidence=self.min_confidence, model=self.model)
            named.update(r.corners)
            looks.append((quad, r, flat))
            if r.card is not None:
                read.append(r)
            else:
                reasons.append(r.reason)
        return read, reasons

    def _across_outlines(self, looks: list, named: set[str]) -> ZoneReading | None:
        """The card that two different corners of the card name surely, each read along
        another outline (no outline read both: a fit off the card cuts one index, another fit
        the other), or None. Each corner must be ACROSS_MIN_P sure, they must lie
        ACROSS_APART_MM apart on the table (not the same corner seen twice), together as sure
        as two agreeing corners must be, and no corner of any look may have named another
        card. A number card or ace must show no court picture in either look."""
        reads = []  # (card, confidence, where that corner lies in the cut, flattened card)
        for quad, r, flat in looks:
            at = card_finder.portrait_corners(quad)
            for k, (card, p) in enumerate(r.views):
                if card is not None and p >= ACROSS_MIN_P:
                    reads.append((card, p, at[0] if k == 0 else at[2], flat))
        if len({c for c, *_ in reads}) != 1 or len(named - {reads[0][0]}) > 0:
            return None
        best = None
        for i, (card, a, pa, fa) in enumerate(reads):
            for _, b, pb, fb in reads[i + 1:]:
                if np.linalg.norm(pa - pb) < ACROSS_APART_MM * READ_PX_PER_MM:
                    continue
                conf = 1.0 - float(np.sqrt((1.0 - a) * (1.0 - b)))
                if best is None or conf > best[0]:
                    best = (conf, fa, fb)
        if best is None or best[0] < self.min_confidence:
            return None
        card = reads[0][0]
        if card[:-1] not in recognize.COURT_RANKS and any(pips.shows_court_art(f) for f in best[1:]):
            return None
        return ZoneReading(card, best[0], "face: read, its two corners along two outlines")

    def _court_marks(self, looks: list) -> set[str]:
        """The suits the big suit marks beside a court's picture (vision.pips.court_suit) show
        along the outlines of `looks`."""
        model = self.model or corner_model.default_model()
        return {pips.court_suit(flat, model) for _, _, flat in looks} - {None}

    def _lap(self, stage: str, since: float) -> float:
        now = time.perf_counter()
        self.timings[stage].append(now - since)
        return now


def _court_marks_settle(card: str, rivals: list[str], marks: Callable[[], set[str]]) -> bool:
    """Whether the big suit marks beside a court's picture (`marks`: TableReader._court_marks
    of the card's looks) settle its suit for `card`, read surely along some outline, against
    `rivals`, the same court in other suits of the same colour that a corner or another
    outline named: the marks must show `card`'s suit along at least one outline and no other
    suit along any. Most designs print them a pip's size, less blurred than the small index
    suit (held out, npm-cardsjs' narrow small spade read as a club along one outline, its big
    spades read as spades along every outline)."""
    red = card[-1] in corner_model.RED_SUITS
    if any((r[-1] in corner_model.RED_SUITS) != red for r in rivals):
        return False  # a red and a black suit: the ink's colour is in doubt, not the shape
    return marks() == {card[-1]}


def _from_look(look) -> ZoneReading:
    if look.kind is ZoneKind.EMPTY:
        return ZoneReading(EMPTY, look.confidence, f"empty: {look.content:.0%} not mat")
    if look.kind is ZoneKind.BACK:
        return ZoneReading(BACK, look.confidence, f"back: {look.white:.0%} open paper white")
    return ZoneReading(UNKNOWN, 0.0, f"unsure: {look.content:.0%} not mat, too little for a card")


def _options(cal: "Calibration") -> dict[str, Any]:
    templates = None
    if cal.deck is not None:
        templates = load_templates(cal.deck.templates_dir,
                                   given_as="deck.templates_dir in the calibration file")
    return {"stable_frames": cal.vision.stable_frames, "min_confidence": cal.vision.min_confidence,
            "templates": templates}


def _pips_side_with(vetoes: list, read: list) -> bool:
    """Whether the looks that read the card agree on one card, of the suit that the pips of
    every vetoing look showed: those looks' indices were the odd ones out (held out, an
    npm-cardsjs 8S read so, while a look that read one corner saw its small spade as a club
    over spade pips). The vetoing look's rank need not be the card's: an outline half on the
    card beneath reads that card's corner and the top card's pips (held out, npm-cardsjs' QS
    over a 5C: "5C" over spade-like marks), and pips that show the suit read say nothing
    against it."""
    return len({r.card for r in read}) == 1 and all(v.pips == read[0].suit for v in vetoes)


def _beneath(painted: np.ndarray, quads: list[np.ndarray], tops: list[np.ndarray]) -> bool:
    """Whether the outlines `quads` (4×2 px in the cut: the outlines of one card, or of one
    look) are another card's, beneath the outlines `tops`: one of them lies under one of
    `tops` (vision.topcard.lies_under, on the cut with the zone's outline painted out: where
    two cards overlap, the top card's sides run on across the card beneath, whose sides end
    under it), turned from it by more than BENEATH_TURN_DEG, and none of `tops` lies so
    under one of them. Outlines turned alike are not judged: which of two fits of one card
    lies under the other says which fits better, not which reads better; and a fit of the
    top card that runs inside it (3 mm off its edges) can lie under a good fit of the card
    beneath, while the top card's good fit lies over it: judged both ways, nothing is."""
    pairs = [(q, t) for q in quads for t in tops if _turn_deg(q, t) > BENEATH_TURN_DEG]
    return (any(lies_under(painted, q, [t], READ_PX_PER_MM) for q, t in pairs)
            and not any(lies_under(painted, t, [q], READ_PX_PER_MM) for q, t in pairs))


def _quad_of(reading, looks: list) -> np.ndarray:
    """The outline (4×2 px) along which `reading` (a CardReading of `looks`) was read."""
    return next(q.as_array() for q, r, _ in looks if r is reading)


def _turn_deg(a: np.ndarray, b: np.ndarray) -> float:
    """How far apart two outlines (4×2 px) are turned, in degrees (0-90): the angle between
    their long sides."""
    def long_side(q: np.ndarray) -> float:
        q = np.asarray(q, np.float64).reshape(4, 2)
        d = max((q[(i + 1) % 4] - q[i] for i in range(4)), key=lambda v: float(np.hypot(*v)))
        return float(np.degrees(np.arctan2(d[1], d[0])))
    t = abs(long_side(a) - long_side(b)) % 180.0
    return min(t, 180.0 - t)


def _same_outline(a: np.ndarray, b: np.ndarray) -> bool:
    """Two outlines (4×2 px) within 2 mm corner for corner, in any order of corners."""
    a, b = np.asarray(a, np.float64).reshape(4, 2), np.asarray(b, np.float64).reshape(4, 2)
    return min(float(np.abs(np.roll(a, k, 0) - b).max()) for k in range(4)) < 2 * READ_PX_PER_MM


def _grown(quad: "card_finder.Quad", factor: float) -> "card_finder.Quad":
    """`quad` grown by `factor` about its centre."""
    p = quad.as_array().astype(np.float64)
    c = p.mean(axis=0)
    return card_finder.Quad.from_points(c + (p - c) * factor, quad.score)
