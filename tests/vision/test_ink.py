"""The ink's colour (vision.marks.ink_colour) and what it allows (vision.corner_model's
colour_probabilities, gate_by_colour): black ink is black whatever the light, red ink red, and
a court's coloured picture neither; on real photos and the decks' artwork."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.cards import DECK
from tests.vision.helpers_cards import PHOTOS, SCENES, camera_canonical, flat
from vision import pips
from vision.card import find_cards, flatten
from vision.corner_model import SUITS, colour_probabilities, gate_by_colour
from vision.marks import Ink, corner_views, find_marks, ink_colour

BLACK_UNDER_JPEG = ("10C", "AS", "2C", "AC", "9C", "3S")


def test_black_ink_under_a_warm_light_is_black(shared_data):
    # q3: an ace of spades on a laptop lid under a warm lamp; the paper is pink and the black
    # index's red exceeds its green by 21 levels of 90. Measured as a ratio of red to green
    # (before), one corner's ink was red (0.19 against a middle of 0.14) and the card `?`.
    img = cv2.imread(str(SCENES / "q3.jpg"), cv2.IMREAD_COLOR)
    card = flatten(img, find_cards(img)[0])
    for view in corner_views(card):
        p_red, p_black = colour_probabilities(find_marks(view).ink)
        assert p_black > 0.9 and p_red < 0.1


# The 52 cards, not a glob of the photos: without the shared data a glob is an empty
# parametrization, which pytest skips; each card then fails, as the shared_data fixture says.
CODES = sorted(c.code for c in DECK)


def test_the_real_photos_are_the_52_cards(shared_data):
    assert sorted(p.stem for p in PHOTOS.glob("*.jpg")) == CODES


@pytest.mark.parametrize("code", CODES)
def test_the_index_ink_of_every_real_photo_is_its_colour(shared_data, code):
    red = code[-1] in "HD"
    for view in corner_views(flat(code)):
        p_red, p_black = colour_probabilities(find_marks(view).ink)
        assert (p_red if red else p_black) > 0.99


def test_a_courts_orange_picture_is_neither_red_nor_black_ink():
    # gnome-tango's KS: the biggest pip-sized mark of its body is the king's orange face.
    # Taken for red ink it read as a heart beside the picture (court_suit: H for a spade).
    found = pips.pip_candidates(camera_canonical("gnome-tango", "KS"), pips.PIP_COUNT_BODY)
    cands, body, labels, stats, paper, _ = found
    ink = ink_colour(body, labels, stats, [cands[0][1]], paper)
    assert ink.tint > 0.4
    assert max(colour_probabilities(ink)) < 0.01


def test_what_the_colour_rules_out_goes_to_no_suit():
    heart = np.array([0.02, 0.95, 0.02, 0.01, 0.0])
    for ink, kept in ((Ink(0.4, 0.02), "H"), (Ink(0.0, 0.0), None), (Ink(0.19, 0.53), None)):
        gated = gate_by_colour(heart, ink)
        assert gated.sum() == pytest.approx(1.0)
        k = int(np.argmax(gated))
        assert (SUITS[k] if k < len(SUITS) else None) == kept


def test_black_print_keeps_black_when_jpeg_spreads_a_warm_lights_colour_into_it(renderer,
                                                                                monkeypatch):
    # bench/vision.py's third gnome-anglo table under a lamp whose blue is 0.45 and green 0.75
    # of its red, with the camera's JPEG (quality 85): JPEG keeps colour at half resolution,
    # and thin black print takes on the orange of the paper around it. Channel by channel
    # against the paper it then measured red (Ink.red 0.10-0.13), and six black cards read
    # `?` (suits a red ink rules out). Bled colour is never redder than the paper it came
    # from (Ink.redder).
    import random
    from dataclasses import replace

    from calibration.layout import default_layout
    from tests.conftest import DATA
    from vision.reader import TableReader
    from vision.rectify import from_homography
    from vision.render import LIGHTS, available_backs, random_scene

    backs = available_backs(DATA / "backs")
    rng = random.Random("bench-vision-gnome-anglo")
    for _ in range(3):
        scene = random_scene(rng, "gnome-anglo", rng.choice(backs))
    scene = replace(scene, look=replace(scene.look, light_colour=LIGHTS["very-warm"]))
    assert scene.look.jpeg_quality == 85
    frame, truth = renderer.render(scene)
    def read():
        reader = TableReader(from_homography(truth.frame_to_table, (1280, 720)), default_layout())
        got = reader.read_zones(frame)
        return {z: got[z].reading for z in black}

    black = {z: t for z, t in truth.readings.items() if t in BLACK_UNDER_JPEG}
    assert len(black) == len(BLACK_UNDER_JPEG)
    assert read() == black
    from vision import corner_model
    ratio_only = corner_model.colour_probabilities
    monkeypatch.setattr(corner_model, "colour_probabilities",
                        lambda ink: ratio_only(Ink(ink.red, ink.tint)))
    assert list(read().values()).count("?") >= 3


def test_ink_redder_than_its_paper_decides_red_under_a_reddish_light():
    # Ink.redder is measured only under a reddish light; there, red ink must also be redder
    # than its paper in absolute terms (YCrCb Cr), which bled colour never is.
    assert colour_probabilities(Ink(0.2, 0.05))[0] > 0.99  # white light: red
    assert colour_probabilities(Ink(0.2, 0.05, redder=1.0))[1] > 0.9  # bled paper: black
    assert colour_probabilities(Ink(0.2, 0.05, redder=25.0))[0] > 0.99  # red print
    assert colour_probabilities(Ink(0.02, 0.05, redder=25.0))[1] > 0.99  # black by its ratio
