"""A simulated table for tests and bench/tournament.py: a bot game's camera log refereed live.

The game comes from referee.simulate (seeded bots), its camera observation log from
referee.obslog; `SimulatedTable.run` feeds that log to a real `Monitor` through a
`RefereeSession` whose sinks (a TablePublisher) hear every ruling, at the log's own pace
divided by `speed` (1.0 = the live ruling rate of a real game).
"""
from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from referee.live.session import RefereeSession, RulingSink
from referee.monitor import Monitor, MonitorConfig
from referee.obslog import ObsConfig, observation_log
from referee.rulings import Ruling
from referee.simulate import Simulator, config_for_variant

NS_PER_S = 1_000_000_000


def game_lines(seed: int, variant: str = "standard") -> tuple[list[dict[str, Any]], Any]:
    """The observation log of the bots' game `seed` and its rules."""
    record = Simulator(seed, config_for_variant(variant)).run()
    return observation_log(record, ObsConfig(), random.Random(seed)), record.rules


@dataclass
class SimulatedTable:
    lines: list[dict[str, Any]]
    rules: Any
    sinks: list[RulingSink]
    speed: float = 1.0
    rulings: list[Ruling] = field(default_factory=list)

    def run(self, stop: threading.Event | None = None, max_s: float | None = None) -> bool:
        """Referee the log; True when it was fed to the end (False: stopped or out of time)."""
        session = RefereeSession(Monitor(MonitorConfig(rules=self.rules)), None, self.sinks,
                                 on_ruling=self.rulings.append)
        if not self.lines:
            return True
        t_first = float(self.lines[0]["t"])
        wall0 = time.monotonic()
        for line in self.lines:
            t = float(line["t"])
            if self.speed > 0:
                wait = wall0 + (t - t_first) / self.speed - time.monotonic()
                if wait > 0 and (stop.wait(wait) if stop else time.sleep(wait)):
                    return False
            if stop is not None and stop.is_set():
                return False
            if max_s is not None and time.monotonic() - wall0 > max_s:
                return False
            t_ns = round(t * NS_PER_S)
            if "start" in line:
                session.start(line["start"], t_ns)
            elif "observe" in line:
                session.observe(line["observe"], t_ns)
            elif "slap" in line:
                session.slap({"slap": line["slap"]}, int(line["slap"].get("t_ns", t_ns)))
        session.flush()
        return True
