"""vision.roomlight: the room's light over a demo game."""
from __future__ import annotations

import random

import pytest

from vision.render import LIGHTS, Look
from vision.roomlight import (EXPOSURE_S, EXPOSURE_TAKES_BACK, SWITCH_S, Keyframe, Light,
                              RoomLight)

WARM = LIGHTS["warm"]


def test_the_light_runs_in_straight_lines_between_keyframes_and_holds_outside_them():
    room = RoomLight([Keyframe(10.0, Light()), Keyframe(12.0, Light(0.8, WARM), "a cloud"),
                      Keyframe(20.0, Light(0.8, WARM))])
    assert room.at(0.0) == Light() and room.at(10.0) == Light()
    half = room.at(11.0)
    assert half.gain == pytest.approx(0.9)
    assert half.colour == pytest.approx(tuple((1 + c) / 2 for c in WARM))
    assert room.at(15.0) == Light(0.8, WARM) and room.at(99.0) == Light(0.8, WARM)
    assert RoomLight().at(5.0) == Light()
    assert room.changes() == ["a cloud at 12 s"] and room.changes(until=11.0) == []


def test_a_switch_changes_the_light_between_two_frames():
    room = RoomLight([Keyframe(5.0, Light(), "a lamp is switched on"),
                      Keyframe(5.0 + SWITCH_S, Light(1.2, WARM))])
    frame = 1 / 30
    assert room.at(5.0 - frame) == Light() and room.at(5.0 + frame) == Light(1.2, WARM)


def test_the_rooms_light_is_laid_over_the_games_own_look():
    base = Look(light_gain=0.9, light_colour=(1.0, 0.9, 0.8), blur_sigma=0.3, noise_sigma=1.0)
    room = RoomLight([Keyframe(0.0, Light(1.2, (0.5, 1.0, 1.0)))])
    look = room.look(base, 3.0)
    assert look.light_gain == pytest.approx(1.08)
    assert look.light_colour == pytest.approx((0.5, 0.9, 0.8))
    assert (look.blur_sigma, look.noise_sigma) == (0.3, 1.0)  # the sensor is the game's


@pytest.mark.parametrize("seed", range(8))
def test_a_games_light_clouds_over_and_a_lamp_goes_on_and_off(seed):
    room = RoomLight.draw(random.Random(seed), 5.0, 200.0)
    assert room.keys == RoomLight.draw(random.Random(seed), 5.0, 200.0).keys  # reproducible
    said = [k.what for k in room.keys if k.what]
    assert 4 <= len(said) <= 10, said
    assert "a cloud passes" in said and "a lamp is switched on" in said
    lamp = [w for w in said if "lamp" in w]
    # On, off, on, ...: never switched on twice in a row.
    assert all(("on" in w) == (i % 2 == 0) for i, w in enumerate(lamp)), lamp
    assert room.at(5.0) == Light()
    assert all(5.0 <= k.t for k in room.keys)
    for k in room.keys:
        assert 0.5 <= k.light.gain <= 1.6
        assert all(0.45 <= c <= 1.0 for c in k.light.colour)
    # The lamp warms the light: red strongest, blue weakest.
    for k in room.keys:
        b, g, r = k.light.colour
        assert b <= g <= r == 1.0


@pytest.mark.parametrize("seed", range(8))
def test_the_cameras_exposure_takes_back_most_of_a_switch_within_a_second_or_two(seed):
    room = RoomLight.draw(random.Random(seed), 5.0, 200.0)
    for k in room.keys:
        if k.what == "a lamp is switched on":
            before, lit = k.light.gain, room.at(k.t + 2 * SWITCH_S).gain
            settled = room.at(k.t + SWITCH_S + EXPOSURE_S[1]).gain
            assert lit > before * 1.04
            assert before < settled < lit
            assert settled - before <= (1 - EXPOSURE_TAKES_BACK[0]) * (lit - before) + 1e-9
        if k.what == "the lamp is switched off":
            # The game's light, darker at first (the exposure was set for the lamp), then as
            # it was before the lamp.
            assert room.at(k.t + 2 * SWITCH_S).gain < 1.0
            assert room.at(k.t + SWITCH_S + EXPOSURE_S[1]).gain == pytest.approx(1.0)
