"""The rules configuration: every Decision of RULES.md with its documented default."""
import pytest

from referee.rules import RulesConfig, RulesConfigError, Variant


def test_defaults_are_the_documented_decisions():
    c = RulesConfig()
    assert c.accept_any_layout is True  # R7
    assert c.equal_ranks_adjacent is False  # R10
    assert c.stacking_allowed is False  # R12
    assert c.spit_onto_own_side is True  # R16
    assert c.uncover_moves_count_as_available is True  # R16
    assert c.tie_is_draw is True  # R22
    assert c.variant is Variant.STANDARD and c.points_limit == 100  # R21, R22


def test_config_round_trips_through_json():
    c = RulesConfig(variant=Variant.POINTS, points_limit=50, tie_is_draw=False)
    assert RulesConfig.from_dict(c.to_dict()) == c
    assert c.to_dict()["variant"] == "points"


def test_a_misspelt_option_is_refused_by_name():
    with pytest.raises(RulesConfigError, match="equal_rank_adjacent"):
        RulesConfig.from_dict({"equal_rank_adjacent": True})


def test_a_wrong_type_is_refused():
    with pytest.raises(RulesConfigError, match="true or false"):
        RulesConfig(equal_ranks_adjacent="yes")
    with pytest.raises(RulesConfigError, match="points_limit"):
        RulesConfig(points_limit=0)
    with pytest.raises(RulesConfigError, match="variant"):
        RulesConfig.from_dict({"variant": "speed"})
