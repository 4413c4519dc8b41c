"""Slap arbitration (R18, R23): timestamps decide, ties inside the window ask for a re-slap."""
import itertools

import pytest

from referee.slaps import (
    DEFAULT_TIE_WINDOW_NS,
    Slap,
    SlapArbiter,
    SlapError,
    SlapVerdictKind,
    resolve_slaps,
    unseen_end_outcome,
)

L, R = "spit.left", "spit.right"
MS = 1_000_000


def test_different_piles_each_player_takes_the_pile_they_slapped_R18():
    out = resolve_slaps(Slap(1_000, "p1", L), Slap(2_000, "p2", R))
    assert dict(out.piles) == {L: "p1", R: "p2"}
    assert not out.too_close and out.margin_ns == 1_000


def test_different_piles_within_tie_window_is_still_decided_R18():
    out = resolve_slaps(Slap(1_000, "p1", R), Slap(1_000, "p2", L))
    assert dict(out.piles) == {R: "p1", L: "p2"} and not out.too_close


def test_same_pile_first_stamp_takes_it_and_other_player_takes_other_pile_R18():
    out = resolve_slaps(Slap(10 * MS, "p1", L), Slap(12 * MS, "p2", L))
    assert dict(out.piles) == {L: "p1", R: "p2"}
    assert out.first == "p1" and out.margin_ns == 2 * MS and out.margin_ms == 2.0
    assert "P1" in out.message and "R18" in out.message


def test_same_pile_argument_order_does_not_matter():
    a, b = Slap(5 * MS, "p2", R), Slap(7 * MS, "p1", R)
    assert resolve_slaps(a, b) == resolve_slaps(b, a)
    assert dict(resolve_slaps(b, a).piles) == {R: "p2", L: "p1"}


@pytest.mark.parametrize("gap_ns", [0, 1, 250_000, DEFAULT_TIE_WINDOW_NS])
def test_same_pile_within_tie_window_is_too_close_and_asks_for_reslap(gap_ns):
    out = resolve_slaps(Slap(MS, "p1", L), Slap(MS + gap_ns, "p2", L))
    assert out.too_close and dict(out.piles) == {}
    assert "slap again" in out.message


def test_same_pile_just_outside_tie_window_is_decided():
    out = resolve_slaps(Slap(MS, "p2", L), Slap(MS + DEFAULT_TIE_WINDOW_NS + 1, "p1", L))
    assert not out.too_close and dict(out.piles) == {L: "p2", R: "p1"}


def test_tie_window_is_configurable():
    a, b = Slap(0, "p1", L), Slap(300_000, "p2", L)
    assert resolve_slaps(a, b, tie_window_ns=100_000).piles == {L: "p1", R: "p2"}
    assert resolve_slaps(a, b, tie_window_ns=400_000).too_close


def test_two_slaps_by_one_player_cannot_be_resolved():
    with pytest.raises(SlapError, match="one slap from each player"):
        resolve_slaps(Slap(0, "p1", L), Slap(5, "p1", R))


@pytest.mark.parametrize("player,pile", [("p3", L), ("p1", "spit.middle"), ("p1", "p1.stock1")])
def test_slap_with_unknown_player_or_pile_is_refused(player, pile):
    with pytest.raises(SlapError, match="use one of"):
        Slap(0, player, pile)


def test_negative_tie_window_is_refused():
    with pytest.raises(SlapError, match="tie window"):
        SlapArbiter(tie_window_ns=-1)


def test_slap_before_arming_is_a_false_slap_R18():
    arb = SlapArbiter()
    v = arb.record(Slap(5 * MS, "p1", L))
    assert v.kind is SlapVerdictKind.FALSE_SLAP and v.rule == "R18" and not v.counted
    assert arb.decision() is None


def test_slap_stamped_before_the_call_but_arriving_after_it_is_false_R23():
    arb = SlapArbiter()
    arb.arm(10 * MS)
    v = arb.record(Slap(10 * MS - 1, "p2", R))
    assert v.kind is SlapVerdictKind.FALSE_SLAP
    assert arb.waiting_for() == ("p1", "p2")


def test_false_slap_does_not_stop_the_players_real_slap_counting():
    arb = SlapArbiter()
    arb.record(Slap(1 * MS, "p1", L))
    arb.arm(2 * MS)
    assert arb.record(Slap(3 * MS, "p1", L)).counted
    assert arb.record(Slap(4 * MS, "p2", L)).counted
    assert arb.decision().piles == {L: "p1", R: "p2"}


def test_no_decision_until_both_players_have_slapped():
    arb = SlapArbiter()
    arb.arm(0)
    arb.record(Slap(MS, "p1", L))
    assert arb.decision() is None and arb.waiting_for() == ("p2",)


def test_arrival_order_differs_from_timestamp_order_timestamps_decide():
    arb = SlapArbiter()
    arb.arm(0)
    arb.record(Slap(9 * MS, "p2", R))  # arrives first, stamped later
    arb.record(Slap(8 * MS, "p1", R))
    out = arb.decision()
    assert out.first == "p1" and out.piles == {R: "p1", L: "p2"} and out.margin_ns == MS


def test_only_each_players_first_slap_counts():
    arb = SlapArbiter()
    arb.arm(0)
    arb.record(Slap(2 * MS, "p1", L))
    v = arb.record(Slap(3 * MS, "p1", R))  # hand bounced onto the other pad
    assert v.kind is SlapVerdictKind.IGNORED
    arb.record(Slap(4 * MS, "p2", L))
    assert arb.decision().piles == {L: "p1", R: "p2"}


def test_a_players_earlier_stamped_slap_arriving_late_replaces_the_later_one():
    arb = SlapArbiter()
    arb.arm(0)
    arb.record(Slap(6 * MS, "p1", R))
    assert arb.record(Slap(5 * MS, "p1", L)).counted
    arb.record(Slap(7 * MS, "p2", L))
    assert arb.decision().piles == {L: "p1", R: "p2"}


def test_rearming_after_too_close_starts_a_fresh_reslap():
    arb = SlapArbiter()
    arb.arm(0)
    arb.record(Slap(MS, "p1", L))
    arb.record(Slap(MS + 100, "p2", L))
    assert arb.decision().too_close
    arb.arm(2 * MS)
    assert arb.decision() is None
    arb.record(Slap(5 * MS, "p2", L))
    arb.record(Slap(6 * MS, "p1", L))
    assert arb.decision().piles == {L: "p2", R: "p1"}


def test_disarm_makes_later_slaps_false_again():
    arb = SlapArbiter()
    arb.arm(0)
    arb.disarm()
    assert not arb.armed
    assert arb.record(Slap(MS, "p1", L)).kind is SlapVerdictKind.FALSE_SLAP


@pytest.mark.parametrize("t1,t2", [(1, 2), (2, 1), (1, 1_000_000), (900_000, 100)])
@pytest.mark.parametrize("pile1,pile2", list(itertools.product((L, R), repeat=2)))
def test_every_ordering_gives_each_pile_to_exactly_one_player_or_asks_again(t1, t2, pile1, pile2):
    # Both arrival orders must give the same outcome, and a decided outcome gives away both piles.
    s1, s2 = Slap(t1, "p1", pile1), Slap(t2, "p2", pile2)
    outcomes = []
    for order in ((s1, s2), (s2, s1)):
        arb = SlapArbiter()
        arb.arm(0)
        for s in order:
            arb.record(s)
        outcomes.append(arb.decision())
    assert outcomes[0] == outcomes[1]
    out = outcomes[0]
    if out.too_close:
        assert pile1 == pile2 and abs(t1 - t2) <= DEFAULT_TIE_WINDOW_NS
    else:
        assert sorted(out.piles) == [L, R] and sorted(out.piles.values()) == ["p1", "p2"]
        if pile1 != pile2:
            assert out.piles[pile1] == "p1" and out.piles[pile2] == "p2"
        else:
            earlier = "p1" if t1 < t2 else "p2"
            assert out.piles[pile1] == earlier


def test_an_unseen_end_before_every_slap_decides_when_no_player_slapped_twice_R18():
    got = unseen_end_outcome(0, [Slap(100 * MS, "p2", R), Slap(150 * MS, "p1", L)])
    assert got.piles == {R: "p2", L: "p1"}


def test_an_unseen_end_waits_for_a_player_who_has_not_slapped_R18():
    assert unseen_end_outcome(0, [Slap(100 * MS, "p1", L)]) is None


def test_a_player_who_slapped_twice_may_have_slapped_falsely_first_R18():
    # P1 left at 100 ms, P2 left at 400 ms, P1 left again at 450 ms: P1 first if the end came
    # before 100 ms, P2 first if it came between (P1's first slap false): slap again.
    slaps = [Slap(100 * MS, "p1", L), Slap(400 * MS, "p2", L), Slap(450 * MS, "p1", L)]
    assert unseen_end_outcome(0, slaps) == "again"


def test_a_second_slap_that_gives_the_same_piles_either_way_is_decided_R18():
    # P2 slapped the right pile; P1 the left twice: P1 takes the left whichever slap counts.
    slaps = [Slap(100 * MS, "p1", L), Slap(200 * MS, "p2", R), Slap(300 * MS, "p1", L)]
    assert unseen_end_outcome(0, slaps).piles == {L: "p1", R: "p2"}
