"""Pin factory choice: lgpio for real pads, MockFactory only when asked, clear errors on a PC."""
import sys

import pytest
from gpiozero.pins.mock import MockFactory

from hardware import backend
from hardware.backend import Backend, NoGpioError, has_kernel_timestamps, open_pin_factory
from hardware.clock import ms_to_ns, ns_to_seconds, ticks_to_ns


def test_no_gpio_chip_says_so_and_how_to_run_without_pads(monkeypatch):
    monkeypatch.setattr(backend, "gpio_chips", lambda: [])
    with pytest.raises(NoGpioError, match="no GPIO found.*--no-pads"):
        open_pin_factory()


def test_real_backend_is_the_default_and_never_falls_back_to_mock(monkeypatch):
    monkeypatch.setattr(backend, "gpio_chips", lambda: [])
    with pytest.raises(NoGpioError):
        open_pin_factory("lgpio")


def test_missing_lgpio_library_names_the_package_to_install(monkeypatch):
    monkeypatch.setattr(backend, "gpio_chips", lambda: ["/dev/gpiochip0"])
    monkeypatch.setitem(sys.modules, "lgpio", None)  # import lgpio → ImportError
    with pytest.raises(NoGpioError, match="python3-lgpio.*--no-pads"):
        open_pin_factory(Backend.LGPIO)


def test_mock_backend_only_when_asked_and_it_carries_injected_stamps():
    factory = open_pin_factory("mock")
    assert isinstance(factory, MockFactory) and has_kernel_timestamps(factory)


def test_unknown_backend_name_is_refused():
    with pytest.raises(ValueError):
        open_pin_factory("rpigpio")


def test_edge_ticks_after_days_of_uptime_round_trip_to_the_nanosecond():
    for t_ns in (1, 123_456_789, 3 * 86_400 * 10**9 + 17, 40 * 86_400 * 10**9 + 999_999_999):
        assert ticks_to_ns(t_ns / 1e9) == t_ns


def test_clock_unit_helpers():
    assert ms_to_ns(0.5) == 500_000 and ns_to_seconds(4_210_000_000) == 4.21
