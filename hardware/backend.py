"""Choosing the pin factory: lgpio on a Raspberry Pi, gpiozero's MockFactory only when asked.

Why lgpio: gpiozero 2.0.1's lgpio factory passes each edge's kernel timestamp (the GPIO
character device's `timestamp_ns`, CLOCK_MONOTONIC) as the `when_changed` ticks, so a slap is
stamped when the pad closed, not when Python got round to it. The other released factories do
not: `native` stamps in a Python thread, `rpigpio` passes no time, and gpiozero's gpiod factory
is not released yet. Using gpiozero (rather than libgpiod directly) keeps one code path for the
Pi, the tests and the demo, which run the same pads on MockFactory pins with injected stamps.
We never fall back to another factory silently: a wrong clock would make wrong slap calls.
"""
from __future__ import annotations

import glob
from enum import Enum
from typing import Any

from referee.errors import UserError

NO_PADS_HINT = ("to referee without slap pads, run `spit-referee run --no-pads ...` (slaps are "
                "then not timed); `spit-referee demo` uses simulated pads")


class NoGpioError(UserError):
    """No usable GPIO with kernel edge timestamps on this computer."""


class Backend(Enum):
    LGPIO = "lgpio"  # a Raspberry Pi (or other board) with /dev/gpiochip* and python3-lgpio
    MOCK = "mock"    # gpiozero MockFactory: tests, the demo, `--mock-pads`


def gpio_chips() -> list[str]:
    return sorted(glob.glob("/dev/gpiochip*"))


def open_pin_factory(backend: Backend | str = Backend.LGPIO, *, chip: int | None = None) -> Any:
    """A gpiozero pin factory for the pads and outputs. Raises NoGpioError saying what to do."""
    backend = Backend(backend)
    if backend is Backend.MOCK:
        from hardware.mockpads import mock_factory
        return mock_factory()
    chips = gpio_chips()
    if not chips:
        raise NoGpioError("no GPIO found on this computer (no /dev/gpiochip*): slap pads need a "
                          f"Raspberry Pi's GPIO header — {NO_PADS_HINT}")
    try:
        import lgpio  # noqa: F401  (the C library's binding; gpiozero imports it too)
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError:
        raise NoGpioError("GPIO found but the lgpio library is not installed: on Raspberry Pi "
                          "OS `sudo apt install python3-lgpio` (make the venv with "
                          "--system-site-packages) or `pip install lgpio`; or "
                          f"{NO_PADS_HINT}") from None
    try:
        return LGPIOFactory(chip=chip)
    except Exception as exc:  # lgpio raises its own error type, gpiozero several of its own
        raise NoGpioError(f"cannot open the GPIO chip ({', '.join(chips)}): {exc} — check that "
                          "your user is in the `gpio` group (or can read and write "
                          f"/dev/gpiochip*); or {NO_PADS_HINT}") from exc


def has_kernel_timestamps(factory: Any) -> bool:
    """True when edge ticks come from the kernel (lgpio) or are injected (mock), so slap order
    can be trusted to the microsecond."""
    name = type(factory).__name__
    return name in ("LGPIOFactory", "MockFactory")
