"""The camera's view of a simulated game (referee.obslog) and `simulate --log` files."""
import json
import random

import pytest

from referee.log import LogReader, ObserveInput
from referee.live.simlog import log_paths, write_game_logs
from referee.obslog import ObsConfig, observation_log, true_items
from referee.simulate import Attempt, BotConfig, GameRecord, Moved, SimConfig, simulate_game
from referee.moves import TurnUp

BOT = BotConfig(mistake_rate=0.05)
SIM = SimConfig(bots=(BOT, BOT))


@pytest.fixture(scope="module")
def record():
    return simulate_game(7, SIM)


def test_log_lines_are_valid_and_in_time_order(record):
    lines = observation_log(record, ObsConfig.noisy(), random.Random(1))
    reader = LogReader()
    entries = [reader.read(line) for line in lines]  # raises on a bad line or time going back
    assert "start" in lines[0]
    assert sum(isinstance(e, ObserveInput) for e in entries) > 50


def test_without_noise_every_turned_up_card_is_seen_on_its_zone(record):
    lines = observation_log(record, ObsConfig(), random.Random(1))
    shown = {(z, r) for ln in lines if "observe" in ln for z, r in ln["observe"].items()}
    for e in record.events:
        if isinstance(e, Moved) and isinstance(e.move, TurnUp):
            assert (f"{e.move.player}.stock{e.move.slot + 1}", e.move.card.code) in shown


def test_with_occlusion_every_illegal_card_is_still_seen_on_its_pile(record):
    lines = observation_log(record, ObsConfig(occlusion_p=1.0), random.Random(3))
    shown = {(z, r) for ln in lines if "observe" in ln for z, r in ln["observe"].items()}
    attempts = [e for e in record.events if isinstance(e, Attempt)]
    assert attempts, "the bots made no mistake in this game: pick another seed"
    for e in attempts:
        assert (e.move.pile, e.move.card.code) in shown
    assert any(r == "?" for ln in lines if "observe" in ln for r in ln["observe"].values())


def test_the_same_seed_gives_the_same_log(record):
    a = observation_log(record, ObsConfig.noisy(), random.Random(5))
    b = observation_log(record, ObsConfig.noisy(), random.Random(5))
    assert a == b


def test_simulate_log_writes_the_camera_log_beside_the_true_moves(tmp_path, record):
    obs, moves = write_game_logs(record, tmp_path / "logs", 3, 11)
    assert (obs, moves) == log_paths(tmp_path / "logs", 3)
    assert obs.name == "game-0003.jsonl" and moves.name == "game-0003.moves.jsonl"
    back = GameRecord.from_jsonl(moves.read_text())
    assert true_items(back) == true_items(record)
    first = json.loads(obs.read_text().splitlines()[0])
    assert first["start"] == {"p1": 26, "p2": 26}
    assert not list((tmp_path / "logs").glob("*.tmp"))
