"""Standings from ruling streams: exactly once, in order, games, scores, seats, exports."""
from __future__ import annotations

import random

from tournament.simtable import SimulatedTable, game_lines
from tournament.standings import RESULT_COLUMNS, Standings, TableRecord


def msgs(rulings: list[dict], stream: str = "s1") -> list[dict]:
    return [{"stream": stream, "seq": i, "ruling": r} for i, r in enumerate(rulings, 1)]


def game(winner: str | None, t0: float = 0.0, scores: dict | None = None) -> list[dict]:
    """A short but complete game: deal, plays, an illegal play, a round-over, the game-over."""
    end = {"t": t0 + 30, "ruling": "game-over", "winner": winner, "rule": "R21"}
    over = {"t": t0 + 30, "ruling": "round-over", "round": 1, "cards": {"p1": 0, "p2": 52}}
    if scores:
        end["scores"] = over["scores"] = scores
    return [
        {"t": t0 + 1, "ruling": "deal", "round": 1, "cards": {"p1": 26, "p2": 26}, "rule": "R5"},
        {"t": t0 + 2, "ruling": "spit", "player": "p1", "card": "7H", "to": "spit.left"},
        {"t": t0 + 3, "ruling": "play", "player": "p1", "card": "8C", "to": "spit.left"},
        {"t": t0 + 4, "ruling": "play", "player": "p2", "card": "9D", "to": "spit.left"},
        {"t": t0 + 5, "ruling": "illegal", "player": "p2", "card": "2S", "to": "spit.left"},
        over, end,
    ]


def test_duplicates_are_applied_once() -> None:
    rec = TableRecord("table-1")
    stream = msgs(game("p1"))
    applied = []
    for m in stream + stream[2:5] + stream:
        applied += rec.add(m)
    assert [r["ruling"] for r in applied] == [m["ruling"]["ruling"] for m in stream]
    assert rec.duplicates == len(stream) + 3
    assert rec.current.plays == {"p1": 1, "p2": 1}


def test_out_of_order_rulings_wait_for_the_missing_seq() -> None:
    rec = TableRecord("table-1")
    stream = msgs(game("p2"))
    assert rec.add(stream[0])
    assert rec.add(stream[3]) == [] and rec.add(stream[2]) == []
    assert rec.missing == (2, 2)
    filled = rec.add(stream[1])
    assert [r["t"] for r in filled] == [2, 3, 4]
    assert rec.missing is None


def test_any_arrival_order_gives_the_same_standings() -> None:
    stream = msgs(game("p1") + game("p2", 100) + game(None, 200))
    expected = Standings("e")
    for m in stream:
        expected.add("table-1", m)
    rng = random.Random(4)
    for _ in range(20):
        shuffled = stream + rng.sample(stream, 5)
        rng.shuffle(shuffled)
        got = Standings("e")
        for m in shuffled:
            got.add("table-1", m)
        assert got.to_json()["standings"] == expected.to_json()["standings"]
        assert got.result_rows() == expected.result_rows()


def test_a_new_spool_stream_starts_its_seq_again() -> None:
    rec = TableRecord("table-1")
    for m in msgs(game("p1"), "old"):
        rec.add(m)
    for m in msgs(game("p2", 100), "new"):
        rec.add(m)
    assert rec.add(msgs(game("p1"), "old")[0]) == []  # a late resend of the old spool
    assert [g.winner for g in rec.games] == ["p1", "p2"]


def test_seats_rank_by_wins_then_points() -> None:
    st = Standings("e")
    for m in msgs(game("p1", scores={"p1": 60, "p2": 40}) +
                  game("p1", 100, scores={"p1": 100, "p2": 20})):
        st.add("table-1", m)
    for m in msgs(game("p2", scores={"p1": 30, "p2": 100})):
        st.add("table-2", m)
    seats = st.seats()
    top = seats[0]
    assert (top["table"], top["seat"], top["wins"], top["points"]) == ("table-1", "p1", 2, 160)
    assert (seats[1]["table"], seats[1]["seat"], seats[1]["wins"]) == ("table-2", "p2", 1)
    assert [s["rank"] for s in seats] == [1, 2, 3, 4]
    assert set(st.result_rows()[0]) == set(RESULT_COLUMNS)


def test_a_new_deal_of_round_one_closes_an_unfinished_game() -> None:
    rec = TableRecord("table-1")
    for m in msgs(game("p1")[:4] + game("p2", 50)):
        rec.add(m)
    assert [(g.abandoned, g.finished) for g in rec.games] == [(True, False), (False, True)]


def test_standings_of_a_refereed_game_match_its_rulings() -> None:
    lines, rules = game_lines(8)
    table = SimulatedTable(lines, rules, [], speed=0)
    table.run()
    rulings = [r.to_json() for r in table.rulings]
    rec = TableRecord("table-1")
    for m in msgs(rulings):
        rec.add(m)
    g = rec.current
    over = rulings[-1]
    assert over["ruling"] == "game-over" and g.finished and g.winner == over["winner"]
    assert g.plays["p1"] + g.plays["p2"] == sum(r["ruling"] == "play" for r in rulings)
    assert g.rounds_finished == sum(r["ruling"] == "round-over" for r in rulings)
    last_round = [r for r in rulings if r["ruling"] == "round-over"][-1]
    assert g.cards == last_round["cards"]


def test_standard_games_show_no_points() -> None:
    rec = TableRecord("table-1")
    rulings = game("p1")
    rulings[-1]["scores"] = {"p1": 0, "p2": 0}  # what a standard game-over lists (R21)
    for m in msgs(rulings):
        rec.add(m)
    assert rec.current.scores is None
