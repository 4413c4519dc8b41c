"""vision.stream: incremental frames must show exactly what a from-scratch drawing shows."""
import random

import cv2
import numpy as np

from vision.render import (LIGHTS, CameraPose, Hand, Look, PlacedCard, Scene, random_scene,
                           spit_pile)
from vision.stream import FrameStream

CLEAN = Look(blur_sigma=0.0, noise_sigma=0.0, jpeg_quality=None)


def _stream(renderer, deck, back, look=CLEAN, camera=CameraPose(tilt_deg=6.0)):
    return FrameStream(renderer, deck, back, camera=camera, look=look, mat_bgr=(60, 110, 40))




def test_incremental_frame_equals_a_fresh_drawing_of_the_same_table(renderer):
    rng = random.Random(5)
    scenes = [random_scene(rng, "gnome-anglo", "pysol-standard-back101", hands=0) for _ in range(4)]
    moving = _stream(renderer, "gnome-anglo", "pysol-standard-back101")
    for sc in scenes:  # every zone changes several times
        moving.frame(sc.piles)
    last = scenes[-1].piles
    fresh = _stream(renderer, "gnome-anglo", "pysol-standard-back101")
    a = moving.frame(last).frame.astype(int)
    b = fresh.frame(last).frame.astype(int)
    # Patches are warped separately, so edge pixels may differ by interpolation only.
    assert np.mean(np.abs(a - b)) < 0.5
    assert np.percentile(np.abs(a - b), 99.9) < 40


def test_stream_matches_the_full_renderer(renderer):
    rng = random.Random(9)
    sc = random_scene(rng, "kde-standard", "pysol-standard-back041", hands=0,
                      camera=CameraPose(tilt_deg=6.0), look=CLEAN)
    full, truth = renderer.render(Scene(sc.piles, sc.deck, sc.back, (), sc.camera, CLEAN,
                                        (60, 110, 40), 0, 0))
    shot = _stream(renderer, "kde-standard", "pysol-standard-back041").frame(sc.piles)
    assert shot.readings == truth.readings
    diff = np.abs(full.astype(int) - shot.frame.astype(int))
    assert np.mean(diff) < 1.0


def test_stream_matches_the_full_renderer_under_a_coloured_light_and_glare(renderer):
    rng = random.Random(11)
    look = Look(light_gain=0.9, light_gradient=(0.2, -0.1), glare=(640.0, 300.0, 90.0, 60.0),
                light_colour=LIGHTS["magenta"], blur_sigma=0.0, noise_sigma=0.0,
                jpeg_quality=None)
    sc = random_scene(rng, "gnome-paris", "pysol-standard-back041", hands=0,
                      camera=CameraPose(tilt_deg=6.0), look=look)
    full, _ = renderer.render(Scene(sc.piles, sc.deck, sc.back, (), sc.camera, look,
                                    (60, 110, 40), 0, 0))
    shot = _stream(renderer, "gnome-paris", "pysol-standard-back041", look=look).frame(sc.piles)
    assert np.mean(np.abs(full.astype(int) - shot.frame.astype(int))) < 1.0


def test_relit_stream_shows_what_a_stream_started_in_that_light_shows(renderer):
    # A lamp switched on mid-game: from the next frame on, the table, the cards played since
    # and the hands are in the new light; switched off, the frame is as before.
    rng = random.Random(12)
    before = random_scene(rng, "gnome-anglo", "pysol-standard-back101", hands=0)
    after = random_scene(rng, "gnome-anglo", "pysol-standard-back101", hands=0)
    lamp = Look(light_gain=1.1, glare=(400.0, 200.0, 120.0, 50.0), light_colour=LIGHTS["warm"],
                blur_sigma=0.0, noise_sigma=0.0, jpeg_quality=None)
    hand = Hand(*renderer.layout.zones["spit.left"].center, "p2")
    moving = _stream(renderer, "gnome-anglo", "pysol-standard-back101")
    first = moving.frame(before.piles, (hand,)).frame
    moving.relight(lamp)
    lit = moving.frame(after.piles, (hand,)).frame
    fresh = _stream(renderer, "gnome-anglo", "pysol-standard-back101", look=lamp)
    want = fresh.frame(after.piles, (hand,)).frame
    assert np.mean(np.abs(lit.astype(int) - want.astype(int))) < 0.5
    assert np.mean(np.abs(lit.astype(int) - first.astype(int))) > 10
    moving.relight(CLEAN)
    back = moving.frame(before.piles, (hand,)).frame
    assert np.mean(np.abs(back.astype(int) - first.astype(int))) < 0.5
    # The sensor stays as it was: relight takes only the light from the look it is given.
    moving.relight(Look(light_colour=LIGHTS["warm"]))
    assert (moving.look.blur_sigma, moving.look.noise_sigma, moving.look.jpeg_quality) \
        == (0.0, 0.0, None)


def test_a_hand_covers_the_zones_it_is_over_and_nothing_else(renderer):
    stream = _stream(renderer, "gnome-tango", "pysol-standard-back131")
    zone = stream.layout.zones["spit.right"]
    piles = {"spit.right": spit_pile(random.Random(1), ["7H", "8C"])}
    hand = Hand(zone.center[0], zone.center[1] + 30, "p1")
    shot = stream.frame(piles, (hand,))
    assert "spit.right" in shot.occluded
    assert "p2.stock1" not in shot.occluded and "spit.left" not in shot.occluded
    bare = stream.frame(piles, ())
    assert bare.occluded == frozenset()
    # The hand changes the image where it is, and only near there: from its fingertips (the
    # longest finger ends 110 mm beyond the palm's centre, 8.5 mm wide), its fingers' and
    # thumb's sides (40 mm left, 72 mm right: vision.render._draw_hand, a p1 hand pointing up
    # the mat) back along its forearm to p1's edge of the table, with 8 mm for the soft rim and
    # the shadow.
    changed = np.any(np.abs(shot.frame.astype(int) - bare.frame.astype(int)) > 30, axis=2)
    x, y, w, h = cv2.boundingRect(np.uint8(changed))
    assert w > 50 and h > 50
    assert y + h == changed.shape[0]  # the forearm runs out of the frame at p1's side
    ys, xs = np.nonzero(changed)
    mm = cv2.perspectiveTransform(np.float32(np.c_[xs, ys])[None],
                                  np.linalg.inv(stream.table_to_frame))[0] - (hand.x_mm, hand.y_mm)
    assert -40 - 8 < mm[:, 0].min() and mm[:, 0].max() < 72 + 8, (mm[:, 0].min(), mm[:, 0].max())
    assert -(110 + 8.5) - 8 < mm[:, 1].min() < -(110 + 8.5) + 8, mm[:, 1].min()
    [[(cx, cy)]] = cv2.perspectiveTransform(np.float32([[(hand.x_mm, hand.y_mm)]]), stream.table_to_frame)
    assert changed[int(round(cy)), int(round(cx))]  # the palm itself


def test_every_frame_has_fresh_sensor_noise(renderer):
    stream = _stream(renderer, "gnome-paris", "pysol-standard-back111",
                     look=Look(noise_sigma=3.0, jpeg_quality=90))
    piles = {"p1.stock1": (PlacedCard("AS"),)}
    a, b = stream.frame(piles).frame, stream.frame(piles).frame
    assert not np.array_equal(a, b)
    assert np.mean(np.abs(a.astype(int) - b.astype(int))) < 6
