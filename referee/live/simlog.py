"""`simulate --log DIR`: write each bot game's camera observation log beside its true move list.

For game `index` it writes `DIR/game-NNNN.jsonl`, the observation log a camera would have
produced (referee.obslog, with occlusion and delayed turn-ups; replay it with `spit-referee
replay`), and `DIR/game-NNNN.moves.jsonl`, the simulator's GameRecord (the truth to compare the
rulings with). Files are written whole and renamed into place, so a log is never half written,
and never over an existing file: a folder holding an earlier run's logs is refused before any
game is played (`check_free`), so a game's log and its true moves always come from one run.
"""
from __future__ import annotations

import os
import random
from pathlib import Path

from referee.errors import UserError
from referee.log import encode
from referee.obslog import ObsConfig, observation_log
from referee.simulate import GameRecord


class SimLogError(UserError):
    """The log directory cannot be created or written."""


def log_paths(directory: str | os.PathLike[str], index: int) -> tuple[Path, Path]:
    """(observation log, true move list) of game `index` in `directory`."""
    d = Path(directory)
    return d / f"game-{index:04d}.jsonl", d / f"game-{index:04d}.moves.jsonl"


def check_free(directory: str | os.PathLike[str], games: int) -> None:
    """Refuse (SimLogError) when a log of any of the first `games` games is already in
    `directory`: writing would replace it."""
    for index in range(games):
        _check_absent(log_paths(directory, index))


def _check_absent(paths: tuple[Path, ...]) -> None:
    for path in paths:
        if path.exists():
            raise SimLogError(f"{path} already exists: choose an empty folder for --log, "
                              "or move the earlier logs out of it")


def write_game_logs(record: GameRecord, directory: str | os.PathLike[str], index: int,
                    rng_seed: int, config: ObsConfig | None = None) -> tuple[Path, Path]:
    """Write game `index`'s observation log (noise drawn from `rng_seed`) and its GameRecord."""
    obs_path, moves_path = log_paths(directory, index)
    _check_absent((obs_path, moves_path))
    try:
        obs_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimLogError(f"cannot create the log directory {directory}: {exc.strerror}; "
                          "choose a writable --log directory") from None
    lines = observation_log(record, config or ObsConfig.noisy(), random.Random(rng_seed))
    _write_atomic(obs_path, "".join(encode(line) + "\n" for line in lines))
    _write_atomic(moves_path, record.to_jsonl())
    return obs_path, moves_path


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        raise SimLogError(f"cannot write {path}: {exc.strerror}") from None
