"""Game statistics from rulings (spit-referee report)."""
from referee.report import build_report, format_text
from referee.rulings import Ruling, RulingKind as K


def _r(t, kind, player=None, **extra):
    return Ruling(t, kind, player=player, extra=extra)


LOG = [
    _r(0.0, K.DEAL, cards={"p1": 26, "p2": 26}),
    _r(2.0, K.SPIT, "p1"), _r(2.2, K.SPIT, "p2"),
    _r(3.0, K.PLAY, "p1"), _r(3.5, K.PLAY, "p2"), _r(4.0, K.PLAY, "p1"),
    _r(5.0, K.ILLEGAL, "p2", illegal_kind="not-adjacent"),
    _r(10.0, K.SPIT, "p1"), _r(10.1, K.SPIT, "p2"), _r(10.9, K.PLAY, "p2"),
    _r(11.0, K.FALSE_SLAP, "p1"),
    _r(12.0, K.SLAP_CALL), _r(12.4, K.SLAP_RESULT, margin_ms=12.5,
                               piles={"spit.left": "p1", "spit.right": "p2"}),
    _r(12.4, K.ROUND_OVER, cards={"p1": 20, "p2": 32}),
    _r(40.0, K.DEAL, cards={"p1": 20, "p2": 32}),
    _r(41.0, K.SPIT, "p1"), _r(42.0, K.PLAY, "p1"),
    _r(70.0, K.ROUND_OVER, cards={"p1": 0, "p2": 52}),
    _r(70.0, K.GAME_OVER, "p1", winner="p1", scores={"p1": 0, "p2": 0}),
]


def test_round_duration_runs_from_deal_to_round_over():
    rep = build_report(LOG)
    assert [r.duration_s for r in rep.rounds] == [12.4, 30.0]
    assert rep.finished and rep.winner == "p1"


def test_plays_and_plays_per_minute_per_player():
    r1 = build_report(LOG).rounds[0]
    assert r1.plays == {"p1": 2, "p2": 2}
    assert abs(r1.plays_per_minute("p1") - 2 * 60 / 12.4) < 1e-9


def test_reaction_time_from_the_later_spit_card_to_each_players_first_play():
    r1 = build_report(LOG).rounds[0]
    assert [round(x, 6) for x in r1.reaction_s["p1"]] == [0.8]
    assert [round(x, 6) for x in r1.reaction_s["p2"]] == [1.3, 0.8]
    assert [round(x, 6) for x in r1.first_reaction_s] == [0.8, 0.8]


def test_illegal_plays_and_false_slaps_count_per_player_by_kind():
    r1 = build_report(LOG).rounds[0]
    assert r1.illegal == {"p1": 1, "p2": 1}
    assert r1.illegal_kinds == {"p1": {"false-slap": 1}, "p2": {"not-adjacent": 1}}


def test_slap_margins_are_reported_in_ms():
    rep = build_report(LOG)
    assert rep.rounds[0].slap_margins_ms == [12.5]
    assert rep.to_json()["totals"]["slap_margins_ms"] == [12.5]


def test_a_log_cut_off_mid_round_reports_that_round_as_unfinished():
    rep = build_report(LOG[:8])
    assert not rep.finished and len(rep.rounds) == 1 and not rep.rounds[0].finished


def test_text_report_names_rounds_and_players():
    text = format_text(build_report(LOG))
    assert "P1 wins" in text and "Round 2" in text and "12.50 ms" in text
    # A standard game has no points: its game-over's zeros are not a score line.
    assert "Scores" not in text and build_report(LOG).scores is None


def test_a_points_game_reports_the_scores_of_its_rounds_R22():
    log = [r if r.kind is not K.ROUND_OVER else
           _r(r.t, K.ROUND_OVER, cards=r.extra["cards"], scores={"p1": 3, "p2": 0})
           for r in LOG[:-1]]
    log.append(_r(70.0, K.GAME_OVER, "p1", winner="p1", scores={"p1": 3, "p2": 0}))
    rep = build_report(log)
    assert rep.scores == {"p1": 3, "p2": 0} and "Scores: P1 3, P2 0" in format_text(rep)


def test_a_deal_after_an_uncertain_game_over_means_the_game_went_on():
    # Monitor._play_on: the players dealt again after a game-over called from counts the
    # referee was unsure of; the report must not say the game was won.
    log = LOG + [_r(90.0, K.DEAL, cards={"p1": 26, "p2": 26}, uncertain=True),
                 _r(91.0, K.SPIT, "p2"), _r(92.0, K.PLAY, "p2")]
    rep = build_report(log)
    assert not rep.finished and rep.winner is None
    assert len(rep.rounds) == 3


def test_moves_seen_after_a_game_end_under_a_hand_count_in_the_last_round():
    # Monitor._look_again: a play made under the hand that hid part of the table as the game
    # ended is ruled once the hand has gone ("after_end"), and an end whose counts were
    # uncertain may be ruled again, sure ("confirmed"). Both belong to the last round: no
    # round is added, and the last round still ends at its round-over.
    log = LOG[:-2] + [
        _r(70.0, K.ROUND_OVER, cards={"p1": 0, "p2": 52}, uncertain=True),
        _r(70.0, K.GAME_OVER, "p1", winner="p1", scores={"p1": 0, "p2": 0}),
        _r(70.4, K.PLAY, "p2", after_end=True),
        _r(70.5, K.ROUND_OVER, cards={"p1": 0, "p2": 52}, confirmed=True)]
    rep = build_report(log)
    assert len(rep.rounds) == 2 and rep.finished and rep.winner == "p1"
    last = rep.rounds[-1]
    assert last.plays == {"p1": 1, "p2": 1} and last.duration_s == 30.0
    assert last.cards_after == {"p1": 0, "p2": 52}
