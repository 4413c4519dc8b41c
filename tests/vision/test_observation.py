"""Observation: validation and the DESIGN.md `observe` log line."""
from __future__ import annotations

import json

import pytest

from referee.errors import UserError
from referee.zones import ALL_ZONES
from vision.observation import InvalidObservationError, Observation


def test_log_line_has_seconds_and_readings():
    obs = Observation(4_210_000_000, {"p1.stock1": "7H", "spit.left": "empty"},
                      {"p1.stock1": 0.97, "spit.left": 1.0})
    line = obs.to_log_line()
    assert line == {"t": 4.21, "observe": {"p1.stock1": "7H", "spit.left": "empty"}}
    assert json.loads(json.dumps(line)) == line


def test_unknown_zone_is_refused_with_the_zone_list():
    with pytest.raises(InvalidObservationError, match="p1.stock1"):
        Observation(0, {"p3.stock1": "7H"})


@pytest.mark.parametrize("bad", ["7h", "1H", "11S", "joker", "", "BACK"])
def test_reading_that_is_no_card_code_is_refused(bad):
    with pytest.raises(UserError, match="card code"):
        Observation(0, {"p1.stock1": bad})


def test_confidence_outside_unit_interval_is_refused():
    with pytest.raises(InvalidObservationError, match="0..1"):
        Observation(0, {"p1.stock1": "7H"}, {"p1.stock1": 1.5})


def test_missing_confidence_never_reads_as_certain():
    obs = Observation(0, {"p1.stock1": "7H", "p1.stock2": "?"})
    assert obs.confidence["p1.stock1"] == 0.0
    assert obs.confidence["p1.stock2"] == 1.0


def test_all_unknown_observation_names_every_zone():
    obs = Observation.unknown(5)
    assert tuple(obs.readings) == ALL_ZONES
    assert set(obs.readings.values()) == {"?"}


def test_observation_cannot_be_changed_after_creation():
    obs = Observation(0, {"p1.stock1": "7H"})
    with pytest.raises(TypeError):
        obs.readings["p1.stock1"] = "8H"  # type: ignore[index]


def test_readings_are_kept_in_design_zone_order():
    obs = Observation(0, {"spit.right": "empty", "p1.stock1": "back", "p2.stock5": "AS"})
    assert list(obs.readings) == ["p1.stock1", "p2.stock5", "spit.right"]


def test_float_time_is_refused():
    with pytest.raises(InvalidObservationError, match="nanoseconds"):
        Observation(1.5, {})  # type: ignore[arg-type]
