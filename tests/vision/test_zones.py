"""Zones: cutting zones out of a frame; empty / back / face for every deck and every back."""
from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from calibration.layout import default_layout
from referee.zones import ALL_ZONES
from tests.conftest import DATA
from vision.rectify import from_homography
from vision.render import (Look, PlacedCard, Renderer, Scene, available_backs,
                           available_decks, random_scene, stock_pile)
from vision.zones import CUT_PX_PER_MM, ZoneCutter, ZoneKind

DECKS = available_decks(DATA / "decks")
BACKS = available_backs(DATA / "backs")
LAYOUT = default_layout()




def _looks(frame, truth):
    cutter = ZoneCutter(from_homography(truth.frame_to_table, (1280, 720)), LAYOUT)
    whites = cutter.paper_white(frame)
    return {z: cutter.look(cutter.cut(frame, z), z, cutter.white_at(whites, z)) for z in ALL_ZONES}


def _kind(reading: str) -> ZoneKind:
    return {"empty": ZoneKind.EMPTY, "back": ZoneKind.BACK}.get(reading, ZoneKind.FACE)


@pytest.mark.parametrize("back", BACKS)
def test_every_back_design_reads_back_never_face_or_empty(renderer, back):
    """Each of the 11 backs face down on five stockpiles, over 1–4 more backs."""
    rng = random.Random(back)
    piles = {z: stock_pile(rng, rng.randrange(0, 4), "back") for z in LAYOUT.zones
             if z.startswith("p1.")}
    frame, truth = renderer.render(Scene(piles, deck="gnome-tango", back=back,
                                         look=Look(blur_sigma=0.7, noise_sigma=3, jpeg_quality=80)))
    looks = _looks(frame, truth)
    for z in piles:
        assert looks[z].kind in (ZoneKind.BACK, ZoneKind.FACE), (z, looks[z])
        assert looks[z].kind is not ZoneKind.EMPTY
    # At most one in five may fall to the face path (which then reads `?`, never a card).
    assert sum(looks[z].kind is ZoneKind.BACK for z in piles) >= 4


@pytest.mark.parametrize("deck", DECKS)
def test_faces_of_every_deck_are_never_called_back_or_empty(renderer, deck):
    for seed in range(3):
        rng = random.Random(f"{deck}{seed}")
        frame, truth = renderer.render(random_scene(rng, deck, rng.choice(BACKS), hands=0))
        looks = _looks(frame, truth)
        for z in ALL_ZONES:
            want = truth.readings[z]
            if want not in ("back", "empty"):
                assert looks[z].kind is ZoneKind.FACE, (z, want, looks[z])


@pytest.mark.parametrize("deck", DECKS)
def test_under_a_warm_light_faces_are_faces_and_backs_backs(renderer, deck):
    # A lamp warmer than the camera's white balance: blue at 0.62 and green at 0.85 of red.
    # White paper is then orange (Lab chroma 32); judged against colourless rather than the
    # markers' paper, which the same light tints alike, no face showed paper white and every
    # face read `back`.
    gain = np.array([0.62, 0.85, 1.0], np.float32)
    for seed in range(2):
        rng = random.Random(f"warm-{deck}{seed}")
        frame, truth = renderer.render(random_scene(rng, deck, rng.choice(BACKS), hands=0))
        warm = np.clip(frame.astype(np.float32) * gain, 0, 255).astype(np.uint8)
        looks = _looks(warm, truth)
        for z in ALL_ZONES:
            want = truth.readings[z]
            if want == "back":
                assert looks[z].kind in (ZoneKind.BACK, ZoneKind.UNSURE), (z, want, looks[z])
            elif want != "empty":
                assert looks[z].kind is ZoneKind.FACE, (z, want, looks[z])


def test_empty_zones_read_empty_on_every_mat_colour(renderer):
    from vision.render import MAT_COLOURS_BGR
    for mat in MAT_COLOURS_BGR:
        frame, truth = renderer.render(Scene({}, deck="gnome-anglo", back=BACKS[0], mat_bgr=mat))
        looks = _looks(frame, truth)
        assert all(lk.kind is ZoneKind.EMPTY for lk in looks.values()), mat


@pytest.mark.parametrize("level", [255, 235, 128, 20])
def test_a_blank_frame_reads_no_zone_empty(renderer, level):
    """A camera blinded by light, or a sheet over the lens: no mat and no printed outline, so
    nothing says any zone is the mat's bare zone (it read empty everywhere, and the referee
    dealt a new round from it)."""
    frame, truth = renderer.render(Scene({}, deck="gnome-anglo", back=BACKS[0]))
    noise = np.random.default_rng(level).normal(0, 4, frame.shape)
    blank = np.clip(level + noise, 0, 255).astype(np.uint8)
    assert all(lk.kind is ZoneKind.UNSURE for lk in _looks(blank, truth).values())


def test_a_court_card_face_up_over_backs_is_a_face(renderer):
    rng = random.Random(3)
    piles = {z: stock_pile(rng, 4, code) for z, code in
             zip(("p1.stock1", "p1.stock2", "p1.stock3", "p1.stock4"), ("KH", "QS", "JD", "KC"))}
    for deck in ("gnome-paris", "kde-standard"):
        frame, truth = renderer.render(Scene(piles, deck=deck, back="pysol-standard-back101"))
        looks = _looks(frame, truth)
        assert all(looks[z].kind is ZoneKind.FACE for z in piles), (deck, looks)


def test_a_real_photographed_card_face_is_a_face(renderer, shared_data, tmp_path):
    """Card art cut from a real photograph (../shared/data/photos) laid on a rendered mat."""
    photo = cv2.imread(str(shared_data / "photos" / "single-cards" / "QS.jpg"))
    grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    _, paper = cv2.threshold(cv2.GaussianBlur(grey, (5, 5), 0), 0, 255,
                             cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    box = cv2.boxPoints(cv2.minAreaRect(max(contours, key=cv2.contourArea)))
    side = np.linalg.norm(box[1] - box[0]), np.linalg.norm(box[2] - box[1])
    w, h = (250, 350) if side[0] < side[1] else (350, 250)
    art = cv2.warpPerspective(photo, cv2.getPerspectiveTransform(
        box.astype(np.float32), np.float32([[0, 0], [w, 0], [w, h], [0, h]])), (w, h))
    if w > h:
        art = cv2.rotate(art, cv2.ROTATE_90_CLOCKWISE)
    deck = tmp_path / "photo"
    deck.mkdir()
    cv2.imwrite(str(deck / "QS.png"), art)
    r = Renderer(tmp_path, DATA / "backs")
    piles = {"p1.stock1": (PlacedCard("QS", 2, 1, 12),), "spit.left": (PlacedCard("QS", 0, 0, -15),)}
    frame, truth = r.render(Scene(piles, deck="photo", back=BACKS[0]))
    looks = _looks(frame, truth)
    assert looks["p1.stock1"].kind is ZoneKind.FACE
    assert looks["spit.left"].kind is ZoneKind.FACE


def test_cut_is_small_grey_sized_by_the_zone(renderer):
    frame, truth = renderer.render(Scene({}, deck="gnome-anglo", back=BACKS[0]))
    cutter = ZoneCutter(from_homography(truth.frame_to_table, (1280, 720)), LAYOUT)
    cut = cutter.cut(frame, "p1.stock1")
    rect = LAYOUT.zones["p1.stock1"]
    assert cut.shape[:2] == (round((rect.h + 12) * CUT_PX_PER_MM), round((rect.w + 12) * CUT_PX_PER_MM))


def test_partly_covered_zone_is_never_read_empty(renderer):
    """A stray object covering a quarter of an empty zone: not empty (unsure or more)."""
    frame, truth = renderer.render(Scene({}, deck="gnome-anglo", back=BACKS[0]))
    r = LAYOUT.zones["p2.stock2"]
    quad = np.array([[r.x, r.y], [r.x + r.w / 2, r.y], [r.x + r.w / 2, r.y + r.h / 2],
                     [r.x, r.y + r.h / 2]])
    px = cv2.perspectiveTransform(quad.reshape(-1, 1, 2), truth.table_to_frame).astype(np.int32)
    cv2.fillConvexPoly(frame, px, (200, 200, 200))
    assert _looks(frame, truth)["p2.stock2"].kind is not ZoneKind.EMPTY


@pytest.mark.parametrize("zone", ["p1.stock3", "spit.left"])
def test_glare_on_an_empty_zone_is_never_a_card(renderer, zone):
    """A glare spot centred on an empty zone (the camera's random looks: sigma 30-140 px, up to
    +90 grey levels) is light, not a card: on every mat, a soft one reads empty and a strong one
    never back or face (it read as a back on every mat: `?` at most)."""
    from vision.render import MAT_COLOURS_BGR
    _, plain = renderer.render(Scene({}, deck="gnome-anglo", back=BACKS[0]))
    centre = np.array(LAYOUT.zones[zone].center, np.float64).reshape(1, 1, 2)
    x, y = cv2.perspectiveTransform(centre, plain.table_to_frame).ravel()
    for mat in MAT_COLOURS_BGR:
        for sigma, strength in ((60, 90), (40, 90), (90, 90), (60, 50), (120, 90)):
            frame, truth = renderer.render(Scene({}, deck="gnome-anglo", back=BACKS[0], mat_bgr=mat,
                                                 look=Look(glare=(x + 30, y - 20, sigma, strength))))
            look = _looks(frame, truth)[zone]
            assert look.kind in (ZoneKind.EMPTY, ZoneKind.UNSURE), (mat, sigma, strength, look)
            if look.content < 0.3:
                assert look.kind is ZoneKind.EMPTY, (mat, sigma, strength, look)
