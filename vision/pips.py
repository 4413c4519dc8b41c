"""The body of a card: its pips, and a court card's big suit marks.

The index is small and blur can make one suit look like another; the pips are big copies of
the index suit. `body_suit` says which suit the big pips in the body of a number card or an
ace show, `pip_count` how many pips of one size the card shows (a number card's rank), and
`pips_confirm` whether they show a suit and number a rank. A court has no pips, but most
designs print one or two big suit marks, a pip's size, beside the picture: `court_suit`.
`shows_court_art` tells a court's picture by its colours (blue, yellow, green), which no
number card or ace prints. The marks are found with vision.marks' ink cut and named by the
suit network of vision.corner_model; vision.recognize decides what the answers mean for a
card's reading.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.corner_model import SUITS, CornerModel, gate_by_colour, glyph_features
from vision.marks import PAPER_PERCENTILE, ink_colour, ink_mask, mark_image

# Pips: marks in the body between these fractions of the card height (the pips of 2–10 are
# 10–17 %, an ace's big pip up to ~35 %; smaller marks are ornaments, larger ones art).
PIP_MIN_H = 0.07
PIP_MAX_H = 0.38
# The centre band (fraction of the body height): a pip there may stand either way up, so it is
# read upright and turned (BOTH_WAYS).
PIP_MIDDLE = (0.42, 0.58)
PIPS_READ = 3  # the biggest pips of the body that are read (more cost time, add little)
PIP_MIN_P = 0.9  # a pip votes only when the suit network is this sure of it
# An ace's one big pip speaks alone when the network is this sure of it. The pips only ever
# veto (a vote that disagrees with the index makes the card `?`), so doubt is enough: at 0.98,
# gnome-anglo's AC held out (big club read 0.97 C) let its spade-looking index through as AS.
ACE_PIP_MIN_P = 0.9
# An ace's pip that no look names this surely (ACE_PIP_MIN_P) still leans to a suit at this
# probability: enough to veto an index of another suit, not to confirm one.
ACE_PIP_LEAN = 0.5
# Number cards and aces print only red and black ink; a court's picture and frame are blue,
# yellow, green. A card whose body shows such colour (see shows_court_art) is no number card
# or ace, whatever its index reads: held out, a blurred gnome-anglo QD read as 6D (0.95, both
# corners, its diamond pips agreeing). Through camera augmentation of the seven decks (3 × 52
# cards each), no number card or ace has any body pixel whose green and blue, each over the
# paper's, differ by ART_COLOUR; every court has ≥ 1.6 % of its body so.
ART_COLOUR = 0.3
ART_MIN_SHARE = 0.005
# Pips of one card are one size: marks counted as pips are within this ratio of the biggest
# pip's height and area (the centre pip of some decks is no bigger; a court's art, an index
# suit or a stain is another size).
PIP_SAME_H = (0.75, 1.25)
# Where pips are looked for (y0, y1, x0, x1 as fractions of the card): to read their suit, the
# body well clear of the corner indices; to count them, the whole card inside its border (the
# outer rows and columns of pips reach to ~6 % of the height, ~18 % of the width), leaving out
# marks centred in an index's box (INDEX_BOX: x < 24 %, y < 46 % and the same turned 180°).
PIP_BODY = (0.10, 0.90, 0.16, 0.84)
PIP_COUNT_BODY = (0.04, 0.96, 0.06, 0.94)
INDEX_BOX = (0.24, 0.46)
PIP_SAME_AREA = (0.55, 1.6)
# Blur joins pips that lie close to an index or to each other into one mark too big to count
# (held out, gnome-bonded's 10H: each of its four outer pips ran into the "10" beside it at
# the count's half resolution, and the pips numbered 6). When the pips do not number the rank
# they are counted again with the ink pared by this much (px at half resolution) all round:
# joins of a few px part, solid pips (>= 18 px tall there) stay one mark each, and the count
# must still be the rank exactly.
PIP_PARE_PX = 1
BOTH_WAYS = "both"  # a pip on the middle line: read upright and turned
# A court's picture has more pip-sized marks than its one or two big suit marks (crowns, faces,
# hands): this many of the biggest are read (npm-cardsjs' KS: its two crowns are bigger).
COURT_MARKS_READ = 6
# The court's marks are looked for in the darkest channel, then in green alone (True), where a
# court's yellow art is light: npm-cardsjs prints its big spades against the jack's yellow
# hair, one mark with it in the darkest channel, too big for a pip (held out, --seed stress-a,
# a JS whose small spade read as a club along one outline stayed `?`). In green every mark
# is read either way up (npm-cardsjs prints its lower big mark upright). In every look each
# mark is judged by its own ink colour (the biggest marks are often the picture's: a red or
# orange crown, an orange face, no suit). The two looks must not show two suits.
COURT_MARK_GREEN = (False, True)
# And a look at the dark core of the print alone (the strict cut) with the ink pared by
# PIP_PARE_PX: gnome-anglo prints its big clubs a few px beside the small index club, and blur
# joins the two at the half resolution in both channels, one mark running off the body's crop;
# in the dark core they still touch at a rim a pixel wide, which the paring parts. Held out
# (bench/vision.py --seed s15-fresh, gnome-anglo table 14), a KC read along one outline while
# a corner along another named KS stayed `?` with no marks found. This look too may not show
# another suit than the others, and its marks must be of one size, as a design's big suit
# marks are: the cut breaks a court's picture into pieces too, and along an outline half off
# a gnome-anglo KD two slivers of its picture, 2 px wide, read as hearts (--seed stress-a).
COURT_MARK_CORE = True
# Suit marks are about as wide as tall: a mark narrower (or flatter) than this share of its
# other side is a sliver of a picture or a frame line, and counts as one mark of no size.
COURT_MARK_MIN_ASPECT = 0.5


def shows_court_art(card_image: np.ndarray) -> bool:
    """Whether the body of a canonical card shows ink of a colour no suit is printed in (a court
    card's picture and frame: blue, yellow, green), judged against the paper so that the
    light's colour cast does not count: green and blue apart by ART_COLOUR of the paper's
    level in more than ART_MIN_SHARE of the body. Red and black ink, and paper, keep the
    two together."""
    h, w = card_image.shape[:2]
    y0, y1, x0, x1 = (round(h * PIP_BODY[0]), round(h * PIP_BODY[1]), round(w * PIP_BODY[2]),
                      round(w * PIP_BODY[3]))
    body = cv2.resize(card_image[y0:y1, x0:x1], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    px = body.reshape(-1, 3)
    k = len(px) * PAPER_PERCENTILE // 100
    paper = np.partition(px[:, :2], k, axis=0)[k].astype(np.float32) + 1.0  # blue, green
    apart = np.abs(px[:, 1] / paper[1] - px[:, 0] / paper[0])
    return float(np.count_nonzero(apart > ART_COLOUR)) > ART_MIN_SHARE * len(px)


def pip_count(card_image: np.ndarray) -> int:
    """How many pips of one size the body of a card shows (PIP_SAME_*): a number card's rank."""
    return _count(pip_candidates(card_image, PIP_COUNT_BODY)[0])


def _count(cands: list) -> int:
    """pip_count of `pip_candidates`' marks."""
    if not cands:
        return 0
    big_h = max(c[3] for c in cands)
    big = max(c[0] for c in cands if c[3] == big_h)
    return sum(1 for area, _, _, bh in cands
               if PIP_SAME_H[0] * big_h <= bh <= PIP_SAME_H[1] * big_h
               and PIP_SAME_AREA[0] * big <= area <= PIP_SAME_AREA[1] * big)


def body_suit(card_image: np.ndarray, model: CornerModel) -> str | None:
    """The suit the pips in the body of a number card show, when at least two agree (an ace's
    single big pip must be clear on its own), else None."""
    votes = pip_votes(card_image, model)
    return None if votes is None else votes[0]


def pips_confirm(card_image: np.ndarray, model: CornerModel, rank: str, suit: str) -> bool:
    """At least two big pips across the card show `suit`, and the pips number `rank`. (One
    segmentation of the card serves both looks.)"""
    found = pip_candidates(card_image, PIP_COUNT_BODY)
    pips = pip_votes_of(found, model)
    if pips is None or pips[0] != suit or pips[1] < 2:
        return False
    return counts_rank(card_image, found, rank)


def counts_rank(card_image: np.ndarray, found: tuple, rank: str) -> bool:
    """Whether the pips (`found`: `pip_candidates` over PIP_COUNT_BODY) number `rank`; when
    they do not, they are counted once more with the ink pared by a pixel (PIP_PARE_PX), which
    parts a pip from an index or another pip that blur joined it to."""
    if _count(found[0]) == int(rank):
        return True
    return _count(pip_candidates(card_image, PIP_COUNT_BODY, pare=True)[0]) == int(rank)


def pip_candidates(card_image: np.ndarray, body_frac: tuple[float, float, float, float] = PIP_BODY,
                    pare: bool = False, green: bool = False, strict: bool = False
                    ) -> tuple[list, np.ndarray, np.ndarray, np.ndarray, float, np.ndarray]:
    """The pip-sized marks wholly inside `body_frac` (y0, y1, x0, x1 of the card) of a card,
    biggest first: (area, label, which way up, height) each, with the half-size body, its
    labels and stats, paper level and darkest channel. `pare`: the ink pared by PIP_PARE_PX
    first (see counts_rank); `strict`: cut at the print's dark core (see vision.marks.ink_mask)."""
    h, w = card_image.shape[:2]
    y0, y1, x0, x1 = (round(h * body_frac[0]), round(h * body_frac[1]), round(w * body_frac[2]),
                      round(w * body_frac[3]))
    # Half resolution is plenty for pips (≥ 20 px tall on the canonical card) and quarters the
    # cost of the segmentation.
    body = cv2.resize(card_image[y0:y1, x0:x1], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    h, w = h / 2, w / 2
    mask, paper, darkest = ink_mask(body, strict=strict, green=green)
    if pare:
        side = 2 * PIP_PARE_PX + 1
        mask = cv2.erode(mask, np.ones((side, side), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    bh_, bw_ = mask.shape
    cands = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if x <= 1 or y <= 1 or x + bw >= bw_ - 1 or y + bh >= bh_ - 1:
            continue
        if not PIP_MIN_H * h <= bh <= PIP_MAX_H * h or bw > PIP_MAX_H * h or area < 0.4 * bw * bh:
            continue
        cy = (y + bh / 2) / bh_
        if body_frac != PIP_BODY:  # the crop takes in the indices: leave their marks out
            card_x = body_frac[2] + (body_frac[3] - body_frac[2]) * (x + bw / 2) / bw_
            card_y = body_frac[0] + (body_frac[1] - body_frac[0]) * cy
            if ((card_x < INDEX_BOX[0] and card_y < INDEX_BOX[1])
                    or (card_x > 1 - INDEX_BOX[0] and card_y > 1 - INDEX_BOX[1])):
                continue
        # On the middle line a pip may point either way (an ace's one pip sits there): it is
        # read both ways up and votes only when the two looks do not name different suits.
        # Skipping it, as we once did, left an ace's blurred club index free to read as a
        # spade with nothing to contradict it.
        way = BOTH_WAYS if PIP_MIDDLE[0] < cy < PIP_MIDDLE[1] else (cy > 0.5)
        cands.append((int(area), i, way, int(bh)))
    cands.sort(key=lambda c: (c[0], c[1]), reverse=True)
    return cands, body, labels, stats, paper, darkest


def ace_pip_lean(card_image: np.ndarray, model: CornerModel) -> str | None:
    """The suit an ace's one pip-sized mark on the middle line leans to (ACE_PIP_LEAN in either
    way up), or None: no such lone mark, or no lean, or each way up leaning another way."""
    cands, body, labels, stats, paper, darkest = pip_candidates(card_image, PIP_BODY)
    if len(cands) != 1 or cands[0][2] is not BOTH_WAYS:
        return None
    i = cands[0][1]
    mark = mark_image(labels, stats, [i], darkest, paper)
    ink = ink_colour(body, labels, stats, [i], paper)
    probs = model.suit.probabilities(np.stack([glyph_features(mark), glyph_features(mark[::-1, ::-1])]))
    leans = {int(np.argmax(q[:len(SUITS)])) for q in (gate_by_colour(p, ink) for p in probs)
             if float(q[:len(SUITS)].max()) >= ACE_PIP_LEAN}
    return SUITS[leans.pop()] if len(leans) == 1 else None


def pip_votes(card_image: np.ndarray, model: CornerModel,
               body_frac: tuple[float, float, float, float] = PIP_BODY) -> tuple[str, int] | None:
    """body_suit's suit and how many pips voted for it (pips looked for within `body_frac`)."""
    return pip_votes_of(pip_candidates(card_image, body_frac), model)


def court_suit(card_image: np.ndarray, model: CornerModel) -> str | None:
    """The suit a court card's big suit marks show (most designs print one or two beside the
    picture, a pip's size), or None: at least two of the COURT_MARKS_READ biggest pip-sized
    marks of the card must name one suit PIP_MIN_P surely, and none another suit, in the
    darkest channel, in green (COURT_MARK_GREEN) or in the darkest channel's core pared
    (COURT_MARK_CORE), and the looks may not show two suits. The picture's other pip-sized
    marks (crowns, faces, sceptres) read as no suit."""
    shown = set()
    looks = [(green, False) for green in COURT_MARK_GREEN] + [(False, True)] * COURT_MARK_CORE
    for green, core in looks:
        found = pip_candidates(card_image, PIP_COUNT_BODY, pare=core, green=green, strict=core)
        if not found[0]:
            continue
        votes = _vote_counts(found, model, COURT_MARKS_READ, both_ways=green, own_ink=True,
                             one_size=core)
        if votes is None or len(votes) > 1:
            return None  # a mark read two ways, or marks of two suits: no suit shown
        shown |= {SUITS[k] for k, ps in votes.items() if len(ps) >= 2}
    return shown.pop() if len(shown) == 1 else None


def pip_votes_of(found: tuple, model: CornerModel) -> tuple[str, int] | None:
    """pip_votes of `pip_candidates`' result."""
    cands = found[0]
    votes = _vote_counts(found, model, PIPS_READ)
    if not votes:
        return None
    k, ps = max(votes.items(), key=lambda kv: len(kv[1]))
    if len(votes) > 1 and sorted(len(v) for v in votes.values())[-2] == len(ps):
        return None  # the pips do not agree among themselves
    if len(ps) >= 2 or (len(ps) == 1 and len(cands) == 1 and ps[0] >= ACE_PIP_MIN_P):
        return SUITS[k], len(ps)
    return None


def _vote_counts(found: tuple, model: CornerModel, n_read: int, both_ways: bool = False,
                 own_ink: bool = False, one_size: bool = False) -> dict[int, list[float]] | None:
    """{suit index: the probabilities of the pips that name it PIP_MIN_P surely} over the
    `n_read` biggest of `pip_candidates`' marks; None when there are none, or when one of them
    names two suits depending on which way up it is read. `both_ways`: every mark is read either
    way up (see COURT_MARK_GREEN). `own_ink`: each mark is judged by its own ink colour, not
    the biggest one's (a court's biggest pip-sized mark is often its picture's orange crown or
    face, neither red nor black). `one_size`: of the marks
    naming a suit, only the most that are one size and shaped like a suit (_one_size) count
    (see COURT_MARK_CORE)."""
    cands, body, labels, stats, paper, darkest = found
    if not cands:
        return None
    cands = [c[:3] for c in cands]
    if both_ways:
        cands = [(a, i, BOTH_WAYS) for a, i, _ in cands]
    votes: dict[int, list[float]] = {}
    voters: dict[int, list[int]] = {}  # the labels of the marks behind each suit's votes
    chosen = cands[:n_read]
    ids = [c[1] for c in chosen]
    # Pips in the image's top half stand upright, those in the bottom half upside down
    # (whichever way up the card lies): turn those before reading.
    feats, owner = [], []
    for n_pip, (_, i, way) in enumerate(chosen):
        mark = mark_image(labels, stats, [i], darkest, paper)
        for turned in ((False, True) if way is BOTH_WAYS else (bool(way),)):
            feats.append(glyph_features(mark[::-1, ::-1] if turned else mark))
            owner.append(n_pip)
    probs = model.suit.probabilities(np.stack(feats))
    # All pips share one ink; the biggest pip measures it best (unless each has its own).
    shared = None if own_ink else ink_colour(body, labels, stats, ids[:1], paper)
    for n_pip in range(len(chosen)):
        ink = (shared if shared is not None
               else ink_colour(body, labels, stats, [ids[n_pip]], paper))
        looks = [gate_by_colour(p, ink) for p, o in zip(probs, owner) if o == n_pip]
        named = {int(np.argmax(p)) for p in looks if int(np.argmax(p)) < len(SUITS)}
        if len(named) > 1:
            return None  # one pip, two suits depending on which way up: no vote at all
        p = max(looks, key=lambda q: float(q[:len(SUITS)].max()))
        k = int(np.argmax(p))
        if k < len(SUITS) and p[k] >= PIP_MIN_P:
            votes.setdefault(k, []).append(float(p[k]))
            voters.setdefault(k, []).append(ids[n_pip])
    if one_size:
        for k, marks in voters.items():
            groups = [[n for n, j in enumerate(marks) if j == i or _one_size(stats[i], stats[j])]
                      for i in marks]
            votes[k] = [votes[k][n] for n in max(groups, key=len)]
    return votes


def _one_size(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two marks (connectedComponentsWithStats rows) are one size and both shaped
    like a suit: heights within PIP_SAME_H and areas within PIP_SAME_AREA of each other (each
    way), neither narrower nor flatter than COURT_MARK_MIN_ASPECT."""
    def same(x: float, y: float, lo_hi: tuple[float, float]) -> bool:
        return lo_hi[0] <= x / y <= lo_hi[1] and lo_hi[0] <= y / x <= lo_hi[1]

    return (all(min(m[2], m[3]) >= COURT_MARK_MIN_ASPECT * max(m[2], m[3]) for m in (a, b))
            and same(float(a[3]), float(b[3]), PIP_SAME_H)
            and same(float(a[4]), float(b[4]), PIP_SAME_AREA))
