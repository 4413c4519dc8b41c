"""The room's light over a rendered game: a lamp switched on and off, clouds passing.

The demo's camera films one table for minutes, and the light in a room does not hold still for
that long. `RoomLight` is the light over time, relative to the game's own `Look`: a gain
(brighter or darker) and a colour (B, G, R gains against the camera's white balance), straight
lines between moments (`Keyframe`), a switch being two moments a millisecond apart.
`RoomLight.draw` draws the changes of a game:
- a cloud: the light falls by 15-30 % over 1.5-3 s, stays so for a few seconds and comes back;
- a lamp switched on: at once a warmer light (a household lamp against daylight) and brighter;
  then the camera's automatic exposure takes back most of the brightness within a second or so,
  and its automatic white balance part of the cast over a few seconds (picamera2 runs both);
- the lamp switched off: at once the game's own light, seen darker at first, as the exposure
  was set for the lamp, until the exposure comes back within a second or so.
`FrameStream.relight` bakes a new light into the stream's image.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Sequence

from vision.render import LIGHTS, Look

WHITE = LIGHTS["white"]
SWITCH_S = 0.001  # a switch: the light changes between two frames
# The camera's automatic exposure after a switch: it takes back this share of the change in
# brightness within this many seconds. (White paper under a lamp 16 % brighter clipped, and
# hid a card's edge over the cards beneath, white on white: demo seed 5, with no exposure.)
EXPOSURE_S = (0.5, 1.5)
EXPOSURE_TAKES_BACK = (0.5, 0.9)


@dataclass(frozen=True)
class Light:
    gain: float = 1.0  # times the game's light_gain
    colour: tuple[float, float, float] = WHITE  # B, G, R gains against the white balance


@dataclass(frozen=True)
class Keyframe:
    t: float  # record time, seconds
    light: Light
    what: str = ""  # what happens from here, said in the demo's summary ("" for a ramp's end)


class RoomLight:
    """The light at every moment of a game: the keyframes' light, in straight lines between
    them; before the first and after the last, theirs."""

    def __init__(self, keys: Sequence[Keyframe] = ()) -> None:
        self.keys = tuple(sorted(keys, key=lambda k: k.t))

    def at(self, t: float) -> Light:
        keys = self.keys
        if not keys or t <= keys[0].t:
            return keys[0].light if keys else Light()
        for a, b in zip(keys, keys[1:]):
            if t < b.t:
                u = (t - a.t) / (b.t - a.t)
                return Light(_mix(a.light.gain, b.light.gain, u),
                             tuple(_mix(x, y, u) for x, y in zip(a.light.colour, b.light.colour)))
        return keys[-1].light

    def look(self, base: Look, t: float) -> Look:
        """`base` (the game's light, camera and sensor) in the room's light at `t`."""
        light = self.at(t)
        colour = tuple(c * b for c, b in zip(light.colour, base.light_colour))
        return replace(base, light_gain=base.light_gain * light.gain, light_colour=colour)

    def changes(self, until: float = float("inf")) -> list[str]:
        """What happens to the light up to `until`, in order, with its time (for the demo's
        summary)."""
        return [f"{k.what} at {k.t:.0f} s" for k in self.keys if k.what and k.t <= until]

    @classmethod
    def draw(cls, rng: random.Random, start_s: float, end_s: float,
               every_s: tuple[float, float] = (20.0, 40.0)) -> RoomLight:
        """Changes from `start_s` to `end_s`, one every `every_s` seconds: clouds, and a lamp
        switched on and, later, off again."""
        keys = [Keyframe(start_s, Light())]
        t = start_s + rng.uniform(*every_s) / 2
        lamp_on = False
        exposure = 1.0  # the camera's exposure against the game's (below 1 under the lamp)
        kinds = ("cloud", "lamp")
        k = rng.randrange(2)
        while t < end_s:
            now = keys[-1].light
            if kinds[k % 2] == "cloud":
                down, stay = rng.uniform(1.5, 3.0), rng.uniform(3.0, 8.0)
                dim = Light(now.gain * rng.uniform(0.7, 0.85), now.colour)
                keys += [Keyframe(t, now, "a cloud passes"), Keyframe(t + down, dim),
                         Keyframe(t + down + stay, dim), Keyframe(t + 2 * down + stay, now)]
                t += 2 * down + stay
            elif not lamp_on:
                warm = LIGHTS[rng.choice(("warm", "very-warm"))]
                cast = tuple(_mix(1.0, c, rng.uniform(0.6, 1.0)) for c in warm)
                brighter = rng.uniform(1.05, 1.25)
                lit = Light(now.gain * brighter, cast)
                # The camera's white balance takes back part of the cast, over a few seconds,
                balanced = tuple(_mix(c, 1.0, rng.uniform(0.3, 0.6)) for c in cast)
                settle = rng.uniform(2.0, 5.0)
                # and its exposure most of the brightness, sooner.
                exposed = rng.uniform(*EXPOSURE_S)
                exposure = _mix(brighter, 1.0, rng.uniform(*EXPOSURE_TAKES_BACK)) / brighter
                on_the_way = tuple(_mix(c, b, exposed / settle) for c, b in zip(cast, balanced))
                keys += [Keyframe(t, now, "a lamp is switched on"),
                         Keyframe(t + SWITCH_S, lit),
                         Keyframe(t + SWITCH_S + exposed, Light(lit.gain * exposure, on_the_way)),
                         Keyframe(t + SWITCH_S + settle, Light(lit.gain * exposure, balanced))]
                t += SWITCH_S + settle
                lamp_on = True
            else:
                # The game's own light, through the exposure set for the lamp, until the
                # exposure comes back.
                exposed = rng.uniform(*EXPOSURE_S)
                keys += [Keyframe(t, now, "the lamp is switched off"),
                         Keyframe(t + SWITCH_S, Light(exposure)),
                         Keyframe(t + SWITCH_S + exposed, Light())]
                t += SWITCH_S + exposed
                exposure = 1.0
                lamp_on = False
            k += 1
            t += rng.uniform(*every_s)
        return cls(keys)


def _mix(a: float, b: float, u: float) -> float:
    return a + (b - a) * u
