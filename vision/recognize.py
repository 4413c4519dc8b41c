"""Read a flattened card's rank and suit from its corner indices, with a confidence.

`read_card(card_image)` takes a canonical card from `vision.card.flatten` (upright or upside
down) and reads the index in BOTH corners that carry one (top-left, and bottom-right turned
180°). In each corner the rank mark (the topmost mark; "10" is two marks side by side) and the
suit mark (the mark below it) are cut out of the ink (vision.marks) and named by two small
networks (vision.corner_model: rank: 13 ranks + "not a rank"; suit: 4 suits + "not a suit")
trained by `python -m vision.train` on deck designs and many fonts. A corner that does not read
surely at the normal ink cut gets more looks (`read_corner_views`: the dark core only, faint
print too, long thin lines such as a court card's frame taken out, the rank's column alone, a
tall mark parted at its neck or at each of its waists, the green channel alone, where a court's
yellow art is light), and the surest is kept. The ink colour (red or black) must agree with the
suit, and on a number card or an ace the big pips in the body (vision.pips) must not show
another suit than the index. A known deck's templates (vision.templates, from `calibrate deck`)
may sharpen a corner's reading.

Never a wrong card: the two corners must agree (a lone readable corner stays below the default
threshold; the exceptions are number cards: one whose other corner lost only its suit, when its
rank mark names the same rank and two big pips the same suit, and one whose other corner shows
nothing else, when the lone corner is 0.95 sure, two big pips show its suit and the pips number
its rank, or names the same rank in the other suit of that colour, when the pips side with the
0.95-sure corner and number the rank), and below `MIN_CONFIDENCE` the reading has `card=None`
(the zone reads `?`). A blurred, half-covered or unknown object therefore comes back as None,
not as a guess.

The model is a small .npz file (vision/models/corner_mlp.npz, vision.corner_model) run with
numpy: no torch, no network, a few milliseconds per card on one core.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.corner_model import (
    RANKS, RED_SUITS, SUITS, CornerModel, CornerReading, default_model, gate_by_colour,
    glyph_features,
)
from vision.marks import (
    CornerMarks, column_marks, corner_views, cut_marks, find_marks, neck_splits, split_at_neck,
)
from vision.pips import (
    PIP_COUNT_BODY, ace_pip_lean, body_suit, counts_rank, court_suit, pip_candidates, pip_votes,
    pip_votes_of, pips_confirm, shows_court_art,
)

if TYPE_CHECKING:
    from vision.templates import Templates

# Below this the reading is not trusted and `card` is None. Default of the calibration file's
# vision.min_confidence (contracts.md); `read_card(min_confidence=…)` overrides it.
MIN_CONFIDENCE = 0.9

# --- the looks at a corner that did not read surely ---------------------------------------------
# A corner read with less confidence than this at the normal cut is looked at again at the
# other cuts (strict, loose), and the surest of the looks is kept: ~0.3 ms per extra look, paid
# only by corners that did not read well.
RETRY_BELOW = 0.95
# The other looks, in order (strict, loose, lines removed): the dark core, faint print, and both
# cuts again with long thin lines taken out (see vision.marks.remove_lines).
LOOKS = ((True, False, False), (False, True, False), (False, False, True), (False, True, True))
# Last looks, at fixed cuts between the normal and the strict one (contrast, fraction of the
# paper's brightness): blur joins a faint red index to the big pip beside it (gnome-bonded's
# "8" over its small heart, run into the big heart) at the normal cut, while the strict cut
# keeps too little of the thin strokes; somewhere between, the marks come apart whole.
CUT_LOOKS = (0.35, 0.40, 0.45)
# And looks fainter than the loose cut: a rank printed in hair-thin strokes (npm-cardsjs'
# serif "K") blurs to a grey 0.15-0.25 below the paper, where the loose cut breaks it into
# dots (the topmost dot is taken for the rank, the suit lies too far under it); at 0.15 the
# letter is whole. Held out on --seed stress-a (table 5), one corner of an npm-cardsjs KC read
# in none of its 20 looks, the other in all. Paper grain, sensor noise and JPEG stay below it
# (noise sigma <= 5 on paper >= 150: 4.5 sigma), and the corners must still agree.
FAINTEST_CUTS = (0.15,)
# A rank printed in thin strokes (gnome-anglo's serif "J", "Q", "K") fades under blur far more
# than the solid small suit under it: at the normal and strict cuts the suit is the only mark,
# taken for the rank, with no suit under it; at the loose cut the faint rank joins the court's
# frame line beside it. A further look keeps that cut from the lone mark's top row down, takes
# faint print as ink above it (one row of paper between), and leaves out what lies right of
# the mark's column (the frame); the ink's colour is then the suit's. The cuts whose lone mark
# is looked above (strict or not): held out on bench/vision.py's tables, 6 more of gnome-anglo's
# 322 faces read (10 of 204 on --seed stress-a), none wrong.
FAINT_RANK_CUTS = (False, True)
# The cuts the faint rank above the lone mark is looked for at: loose, and normal (False).
# Shading of the paper (a card in a hand's shadow, the light falling off) can make the loose
# cut take the paper around a faint rank for ink, one blob with it, while the normal cut keeps
# the rank whole: gnome-bonded's pink "J" over its small heart, which blur joined to the big
# heart beside it at the normal cut (held out, the bench's one JH that no look read).
FAINT_ABOVE_LOOSE = (True, False)
# A last look leaves out a band this wide (px, on the canonical card: 1.5 % of its width, 1 %
# of its height) along the card's two outer edges of the corner: the edge line, or the table's
# shadow beside a loose outline, that blur has joined to the index (kde-standard's small
# heart, run into the card's right edge line) makes one mark with it, which touches the crop's
# border and is refused. The index of every deck we know starts >= 6 px from the edges.
EDGE_BAND_PX = 3
# Looks cut from the green channel alone, normal and strict (the cuts of this tuple): red and
# black print are dark there as in the darkest channel, while the yellow and green of a
# court's picture are light. gnome-paris prints its QS's small spade against the yellow
# stem of a flower, which blur joins to it in the darkest channel: the spade's mark runs off
# the corner and no suit is found under the "Q".
GREEN_LOOKS = (False, True)
# A green look at a fixed cut of CUT_LOOKS too: where the stem's shaded edge is darker in green
# than the normal cut, the spade stays joined to it, and the strict cut keeps too little of the "Q"
# (held out, gnome-paris' QS read in one corner only in all 19 looks of a --seed stress-a
# table and all 43 of a --seed check-h3 one; in green at the 0.45 cut both read QS). Only the
# strictest of them: at 0.40 a look at another paris QS read its small spade as a club
# (0.65), a rival that left the card `?`.
GREEN_CUTS = (0.45,)
# The column cuts (COLUMN_CUTS) name only number cards (2-10), whose suit the pips check
# (PIPS_VETO): read with them, the held-out model named a gnome-anglo JC's small clubs as
# spades in both corners (1 of 210 extra tables), with nothing to contradict it. (Looks cut on
# brightness, where yellow art is no ink, freed gnome-paris' court indices from the stems run
# into them but named an npm-cardsjs JS as JC: they are not used.)
NUMBER_RANKS = frozenset({"2", "3", "4", "5", "6", "7", "8", "9", "10"})
# Where the index column is cut when no mark at all is free of the crop's border (fractions of
# the corner crop's width, 60 px): right of the narrow indices that sit close beside the big
# pips, left of those pips. On the seven decks' artwork the rank boxes end by 0.45 of the crop
# (npm-cardsjs), 0.5 (gnome-anglo), 0.55 (gnome-bonded, gnome-paris), 0.62 (kde-standard) and
# 0.92 (the "10" of gnome-tango and openclipart-simple); a cut at 0.35 ran through
# npm-cardsjs' "8" (read "5" at 0.7). A rank cut through reads as no rank or not surely, and
# the two corners must still agree.
COLUMN_CUTS = (0.45, 0.5)
# --- combining evidence ---------------------------------------------------------------------
# A single readable corner (the other hidden by a hand, cut off, or blurred) is worth less than
# two agreeing corners: its confidence is multiplied by this, which keeps it below the default
# threshold. So at the default threshold a card is only ever read when BOTH corners agree; a
# half-covered card reads `?` until it is uncovered (never a guess from half the evidence).
ONE_CORNER_FACTOR = 0.88
# A corner whose suit was lost still confirms the other corner's rank when its rank mark alone
# names that rank this surely (see _rank_and_pips).
RANK_ONLY_MIN_P = 0.95
# When the pips show another suit than the index, the reading keeps this share of its
# confidence, far below any threshold: one of the two is wrong and we cannot tell which.
PIP_DISAGREE_FACTOR = 0.2
PIPS_VETO = "the pips look like"  # how a CardReading's reason starts when the pips vetoed it
COURT_RANKS = frozenset({"J", "Q", "K"})
# A corner's own reading counts as naming a card (CardReading.corners) from this confidence
# (rank × suit) up: held out, npm-cardsjs' QS read QC along one outline (0.99, 0.97) while a
# corner along another outline read QS at 0.68.
CORNER_NAMES_MIN = 0.5
# A court card (J, Q, K) has no pips to check its index against, so it is read only when each
# of its two corners reads it at least this surely (rank × suit), however sure the two are
# together (see combine). Held out, along one outline an npm-cardsjs KS read KC from corners
# at 0.559 and 0.979, together 0.904 (bench/vision.py --seed s13-extra, table 34); of 2,336
# court looks that read over the bench, stress-a, check-h3 and s13-extra tables, that was the
# one wrong, and 8 had a corner below 0.6 (the next, right, 0.61 and 0.63).
COURT_CORNER_MIN_P = 0.6
COURT_WEAK_CORNER = "a court card's corner read weakly"  # a CardReading's reason then
COURT_ART = "the body shows a court card's picture, the index reads"
# Ranks whose pips all lie outside PIP_BODY (vision.pips).
OUTER_PIP_RANKS = frozenset({"2", "3", "4"})
# A number card with one corner read and nothing of the other (hidden, cut off, blurred away) is
# read when three independent looks agree: that corner, sure to at least ONE_CORNER_MIN_P (its
# rank × suit probability), the big pips' suit (≥ 2 votes), and the number of pips, which must
# be the rank. On the bench, held out, corners read wrong reached 0.95 (npm-cardsjs' 8D read
# as 6D with three diamond pips voting D): the suit alone confirms nothing about the rank, the
# count does.
ONE_CORNER_MIN_P = 0.95
# Two corners that agree but are not surely enough read together (see combine) are read when
# the pips show the same suit and number the rank: the pips count as a third look with this
# much doubt (two corners at 0.8 and 0.94 then make 0.98; two at 0.5 still make only 0.89).
PIP_LOOK_DOUBT = 0.05


@dataclass(frozen=True)
class CardReading:
    """What a card image says: `card` ("7H") or None when `confidence` < the threshold."""

    card: str | None
    rank: str | None
    suit: str | None
    confidence: float
    reason: str = ""  # why `card` is None, in plain words; empty when read
    # The cards the corners named on their own, each at least CORNER_NAMES_MIN sure (rank ×
    # suit): what another look at the same card is checked against (vision.reader).
    corners: tuple[str, ...] = ()
    # What each of the two index corners (corner_views' order: top-left, bottom-right) read on
    # its own: (card, rank × suit probability), or (None, 0.0) where no rank and suit did.
    views: tuple[tuple[str | None, float], ...] = ()
    # The suit the pips showed when they vetoed the index (reason PIPS_VETO), else None.
    pips: str | None = None

    def to_json(self) -> dict:
        d: dict = {"card": self.card, "rank": self.rank, "suit": self.suit,
                   "confidence": round(float(self.confidence), 4)}
        if self.card is None:
            d["reason"] = self.reason
        return d


# --- reading ------------------------------------------------------------------------------------

def read_corner(marks: CornerMarks, model: CornerModel) -> CornerReading | None:
    if marks.rank is None or marks.suit is None:
        return None
    rank_p = model.rank.probabilities(glyph_features(marks.rank))[0]
    suit_p = model.suit.probabilities(glyph_features(marks.suit))[0].copy()
    # The ink colour must agree with the suit's shape: a black heart is not a heart.
    return CornerReading(rank_p, gate_by_colour(suit_p, marks.ink))


def read_corner_views(view: np.ndarray, model: CornerModel) -> CornerReading | None:
    """One upright corner read at the normal ink cut and, when that is not sure, at the strict
    and loose cuts too: the surest card reading of the looks (a reading that is a rank and a
    suit beats one that is not)."""
    best = read_corner(find_marks(view), model)
    if best is not None and best.is_card and best.confidence >= RETRY_BELOW:
        return best
    looks = [cut_marks(view, strict, loose, unlined=unlined) for strict, loose, unlined in LOOKS]
    plain = cut_marks(view, strict=False)
    if plain.rank is not None and plain.suit is None:
        looks += neck_splits(plain)
    if plain.rank is not None:
        # The index column alone, whatever find_marks settled on: its strict look may have
        # found a "suit" that is the small suit joined to the big pip beside it (gnome-bonded's
        # 4C: the small club runs into the big club's lobe), which is no suit, and then it
        # never looked at the column.
        column = column_marks(view, plain)
        if column is not None:
            looks.append(column)
    faint = looks[LOOKS.index((False, True, False))]
    if faint.rank is not None and faint.suit is None:
        # A faint rank found only at the loose cut, with no suit under it: there the small
        # suit can run into the big pip beside it (gnome-anglo's grey "J" over a small spade
        # joined to the big one). Its column alone, at the loose cut.
        column = column_marks(view, faint, loose=True)
        if column is not None:
            looks.append(column)
    looks += [cut_marks(view, False, contrast=c) for c in CUT_LOOKS + FAINTEST_CUTS]
    anchors = set()
    for strict in FAINT_RANK_CUTS:
        found = looks[0] if strict else plain
        if found.rank is not None and found.suit is None and found.rank_box not in anchors:
            # The one mark found may be the suit under a rank too faint for this cut (see
            # FAINT_RANK_CUTS): the rank is looked for above it at the loose cut, in its column.
            assert found.rank_box is not None
            anchors.add(found.rank_box)
            x0, y0, x1, _ = found.rank_box
            looks += [cut_marks(view, strict, faint_above=y0, right_cut=x1 + 1, faint_loose=fl)
                      for fl in FAINT_ABOVE_LOOSE]
    looks += [cut_marks(view, strict, edge_band=EDGE_BAND_PX) for strict in (False, True)]
    looks += [cut_marks(view, strict, green=True) for strict in GREEN_LOOKS]
    looks += [cut_marks(view, False, contrast=c, green=True) for c in GREEN_CUTS]
    # Looks whose reading counts only when it names a number card (see NUMBER_RANKS).
    numbers: list[CornerMarks] = []
    if plain.rank is None:
        # No mark free of the crop's border: the rank and suit may make one mark with the big
        # pip beside them, running off the crop's right side (npm-cardsjs' 8C: "8", small club
        # and big club joined by blur). The index column alone is looked at, cut at each of
        # COLUMN_CUTS, normal and loose ink; a rank and suit left joined are parted.
        for loose in (False, True):
            for frac in COLUMN_CUTS:
                col = cut_marks(view, False, loose, right_cut=round(view.shape[1] * frac))
                if col.rank is not None:
                    numbers.append(col)
                    if col.suit is None:
                        numbers += [split_at_neck(col)] + neck_splits(col)
    for marks, any_rank in [(m, True) for m in looks] + [(m, False) for m in numbers]:
        r = read_corner(marks, model)
        if r is None or (not any_rank and r.is_card and RANKS[r.rank] not in NUMBER_RANKS):
            continue
        if best is None or (r.is_card, r.confidence) > (best.is_card, best.confidence):
            best = r
    return best


def read_card(card_image: np.ndarray, templates: "Templates | None" = None, *,
              min_confidence: float = MIN_CONFIDENCE,
              model: CornerModel | None = None) -> CardReading:
    """Read a canonical card image (from `vision.card.flatten`, upright or upside down).

    `templates` (from `vision.templates.load_templates`, built by `calibrate deck`) may
    sharpen the reading of a known deck; they are never needed. `min_confidence` is the
    calibration's vision.min_confidence."""
    if card_image is None or card_image.size == 0:
        return CardReading(None, None, None, 0.0, "empty image")
    if card_image.ndim == 2:
        card_image = cv2.cvtColor(card_image, cv2.COLOR_GRAY2BGR)
    elif card_image.shape[2] == 4:
        card_image = cv2.cvtColor(card_image, cv2.COLOR_BGRA2BGR)
    model = model or default_model()
    readings: list[CornerReading] = []
    views = corner_views(card_image)
    per_view: list[CornerReading | None] = []
    own: list[tuple[str | None, float]] = []
    for view in views:
        r = read_corner_views(view, model)
        per_view.append(r)
        if r is not None:
            if templates is not None:
                r = templates.adjust(view, r)
            readings.append(r)
        own.append((RANKS[r.rank] + SUITS[r.suit], r.confidence) if r is not None and r.is_card
                   else (None, 0.0))
    reading = combine(readings, min_confidence)
    corners = tuple(RANKS[r.rank] + SUITS[r.suit] for r in readings
                    if r.is_card and r.confidence >= CORNER_NAMES_MIN)
    if reading.card is None and reading.reason == "only one corner readable":
        reading = _rank_and_pips(card_image, views, per_view, reading, model, min_confidence)
    if reading.card is None and reading.reason == "only one corner readable":
        reading = _corner_and_pip_count(card_image, per_view, reading, model, min_confidence)
    if reading.card is None and reading.reason == "low confidence":
        reading = _agreed_and_pip_count(card_image, readings, reading, model, min_confidence)
    if reading.card is None and reading.reason == "the two corners disagree":
        reading = _suit_by_pips(card_image, per_view, reading, model, min_confidence)
    if reading.rank is not None and reading.suit is not None and reading.rank not in COURT_RANKS:
        # The pips are big copies of the index suit: a small blurred club in the corner can
        # look like a spade, its pips cannot. A disagreement means the index is not to be
        # trusted, read or not: an unread look whose pips disagree vetoes what another outline
        # of the same card reads (vision.reader), which may cut the pips off (held out, a
        # gnome-anglo 9C read 9S along an outline half off the card, after the outline on the
        # card had read one corner only, 9S, over club pips).
        pips = body_suit(card_image, model)
        if pips is None and reading.rank in OUTER_PIP_RANKS:
            # A 2's or 3's pips lie in the outer rows, outside PIP_BODY: the whole card's pips
            # vote (index boxes left out). Held out, an npm-cardsjs 2S whose two blurred indices
            # both read as clubs had no pips to contradict them.
            votes = pip_votes(card_image, model, PIP_COUNT_BODY)
            pips = None if votes is None else votes[0]
        if pips is not None and pips != reading.suit:
            reading = CardReading(None, reading.rank, reading.suit,
                                  reading.confidence * PIP_DISAGREE_FACTOR,
                                  f"{PIPS_VETO} {pips}, the index like {reading.suit}", pips=pips)
        elif pips is None and reading.rank == "A":
            # An ace's one pip that the network cannot name surely still vetoes when it leans
            # to another suit: along an outline off the card the pip is skewed (held out, a
            # gnome-anglo AC read AS so, its pip 0.79 club, its small clubs spade-like).
            lean = ace_pip_lean(card_image, model)
            if lean is not None and lean != reading.suit:
                reading = CardReading(None, reading.rank, reading.suit,
                                      reading.confidence * PIP_DISAGREE_FACTOR,
                                      f"{PIPS_VETO} {lean}, the index like {reading.suit}", pips=lean)
    if reading.card is not None and reading.rank not in COURT_RANKS and shows_court_art(card_image):
        reading = CardReading(None, reading.rank, reading.suit, reading.confidence * PIP_DISAGREE_FACTOR,
                              f"{COURT_ART} {reading.rank}")
    return replace(reading, corners=corners, views=tuple(own))


def _rank_and_pips(card_image: np.ndarray, views: list[np.ndarray],
                   per_view: list[CornerReading | None], one: CardReading, model: CornerModel,
                   min_confidence: float) -> CardReading:
    """A number card (2–10) with one corner read and the other corner's suit lost (joined to a
    pip, cut at the card's edge): it is read when the other corner's rank mark alone names the
    same rank (RANK_ONLY_MIN_P sure) and at least two big pips in the body show the same suit.
    The rank then has two independent looks and the suit two (the index and the pips), as with
    two agreeing corners. A court card's big suit marks (court_suit) stand for the pips; aces
    (one pip) stay `?`."""
    if one.rank is None or one.rank == "A":
        return one
    k = RANKS.index(one.rank)
    good = [i for i, r in enumerate(per_view) if r is not None and r.is_card
            and (RANKS[r.rank], SUITS[r.suit]) == (one.rank, one.suit)]
    if len(good) != 1:
        return one
    other = 1 - good[0]
    r = per_view[other]
    if r is not None and r.is_card:
        return one  # the other corner read as another card: a disagreement, not a lost suit
    if r is not None:
        p_rank = float(r.rank_p[k])
    else:
        marks = find_marks(views[other])
        if marks.rank is None:
            return one
        p_rank = float(model.rank.probabilities(glyph_features(marks.rank))[0][k])
    if p_rank < RANK_ONLY_MIN_P:
        return one
    if one.rank in COURT_RANKS:
        if court_suit(card_image, model) != one.suit:
            return one
    else:
        pips = pip_votes(card_image, model)
        if pips is None or pips[0] != one.suit or pips[1] < 2:
            return one
    conf = min(per_view[good[0]].confidence, p_rank)  # type: ignore[union-attr]
    if conf < min_confidence:
        return CardReading(None, one.rank, one.suit, conf, "only one corner readable")
    return CardReading(one.rank + one.suit, one.rank, one.suit, conf)


def _corner_and_pip_count(card_image: np.ndarray, per_view: list[CornerReading | None],
                          one: CardReading, model: CornerModel,
                          min_confidence: float) -> CardReading:
    """A number card (2–10) with one corner read surely and the other corner showing no other
    rank or suit: read when at least two big pips show its suit and the pips number its rank
    (see ONE_CORNER_MIN_P). Court cards and aces stay `?`."""
    if one.rank is None or one.rank in COURT_RANKS or one.rank == "A":
        return one
    good = [r for r in per_view if r is not None and r.is_card]
    if len(good) != 1 or good[0].confidence < max(ONE_CORNER_MIN_P, min_confidence):
        return one
    if (RANKS[good[0].rank], SUITS[good[0].suit]) != (one.rank, one.suit):
        return one
    for r in per_view:
        if r is None or r is good[0]:
            continue
        # What the other corner does show must not name another rank or another suit.
        if r.rank < len(RANKS) and RANKS[r.rank] != one.rank:
            return one
        if r.suit < len(SUITS) and SUITS[r.suit] != one.suit:
            return one
    # The pips of the whole card vote (a 2's two pips lie in the outer rows, outside PIP_BODY).
    if not pips_confirm(card_image, model, one.rank, one.suit):
        return one
    return CardReading(one.rank + one.suit, one.rank, one.suit, good[0].confidence)


def _suit_by_pips(card_image: np.ndarray, per_view: list[CornerReading | None],
                  split: CardReading, model: CornerModel, min_confidence: float) -> CardReading:
    """A number card (2-10) whose two corners name the same rank and two suits of one colour
    (held out, npm-cardsjs' narrow small spade read as a club in one corner of 10S, 4S, 8S): it
    is read when at least two big pips show one of the two suits and number the rank, and the
    corner naming that suit is ONE_CORNER_MIN_P sure, as a lone corner with the pips' count
    must be. The suit then has two looks of three (a corner and the pips), the rank three (both
    corners and the count). A court card is read so when its big suit marks (court_suit) show
    one of the two suits: its rank has the two corners. Aces stay `?`."""
    if split.rank not in NUMBER_RANKS and split.rank not in COURT_RANKS:
        return split
    cards = [r for r in per_view if r is not None and r.is_card]
    if len(cards) != 2 or cards[0].rank != cards[1].rank:
        return split
    suits = {SUITS[r.suit] for r in cards}
    if len({s in RED_SUITS for s in suits}) != 1:
        return split  # a red and a black suit: the ink's colour is in doubt, not the shape
    if split.rank in COURT_RANKS:
        if min(r.confidence for r in cards) < COURT_CORNER_MIN_P:
            return split  # each corner of a court must read it surely (see combine)
        suit = court_suit(card_image, model)
        if suit not in suits:
            return split
    else:
        found = pip_candidates(card_image, PIP_COUNT_BODY)
        votes = pip_votes_of(found, model)
        if (votes is None or votes[0] not in suits or votes[1] < 2
                or not counts_rank(card_image, found, split.rank)):
            return split
        suit = votes[0]
    agree = next(r for r in cards if SUITS[r.suit] == suit)
    if agree.confidence < max(ONE_CORNER_MIN_P, min_confidence):
        return split
    return CardReading(split.rank + suit, split.rank, suit, agree.confidence)


def _agreed_and_pip_count(card_image: np.ndarray, readings: list[CornerReading],
                          agreed: CardReading, model: CornerModel,
                          min_confidence: float) -> CardReading:
    """A number card (2-10) whose two corners name the same rank and suit, but not surely
    enough together (blur, small print): the pips are a third look, independent of the index.
    When at least two big pips show the same suit and the pips number the rank, the pips count
    as a look with PIP_LOOK_DOUBT doubt. Court cards and aces (no count to check) stay `?`."""
    if agreed.rank is None or agreed.rank in COURT_RANKS or agreed.rank == "A":
        return agreed
    if not pips_confirm(card_image, model, agreed.rank, agreed.suit):
        return agreed
    a, b = (r.confidence for r in readings if r.is_card)
    conf = 1.0 - float(np.sqrt((1.0 - a) * (1.0 - b) * PIP_LOOK_DOUBT))
    if conf < min_confidence:
        return CardReading(None, agreed.rank, agreed.suit, conf, "low confidence")
    return CardReading(agreed.rank + agreed.suit, agreed.rank, agreed.suit, conf)


def combine(readings: list[CornerReading], min_confidence: float = MIN_CONFIDENCE) -> CardReading:
    """Join the corner readings into one card reading; only agreement is trusted."""
    cards = [r for r in readings if r.is_card]
    if not cards:
        return CardReading(None, None, None, 0.0, "no card index found")
    if len(cards) == 1:
        r = cards[0]
        conf = r.confidence * ONE_CORNER_FACTOR
        if len(readings) == 2:  # the other corner held marks that are not a rank and suit
            other = readings[0] if readings[1] is r else readings[1]
            conf *= 1.0 - other.confidence
        rank, suit = RANKS[r.rank], SUITS[r.suit]
        reason = "only one corner readable"
    else:
        a, b = cards
        rank, suit = RANKS[a.rank], SUITS[a.suit]
        if (a.rank, a.suit) != (b.rank, b.suit):
            hi, lo = (a, b) if a.confidence >= b.confidence else (b, a)
            rank, suit = RANKS[hi.rank], SUITS[hi.suit]
            conf = hi.confidence * (1.0 - lo.confidence) * ONE_CORNER_FACTOR
            reason = "the two corners disagree"
        else:
            # Independent looks agree: the chance both are wrong is about the product of each
            # one's doubt; the square root keeps that honest for correlated errors.
            conf = 1.0 - float(np.sqrt((1.0 - a.confidence) * (1.0 - b.confidence)))
            reason = "low confidence"
            weak = min(a.confidence, b.confidence)
            if rank in COURT_RANKS and weak < COURT_CORNER_MIN_P:
                # No pips to check a court's index: one weak corner is weak evidence, and
                # the reading is as sure as that corner (COURT_CORNER_MIN_P).
                return CardReading(None, rank, suit, min(conf, weak), COURT_WEAK_CORNER)
    conf = float(np.clip(conf, 0.0, 1.0))
    if conf < min_confidence:
        return CardReading(None, rank, suit, conf, reason)
    return CardReading(rank + suit, rank, suit, conf)
