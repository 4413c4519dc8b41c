"""The same seed gives the same game in every process (not only within one): nothing in the
simulator may depend on Python's per-process hash seed (set iteration order)."""
import os
import subprocess
import sys

CODE = """
from referee.simulate import BotConfig, SimConfig, simulate_game
bot = BotConfig(mistake_rate=0.05)
rec = simulate_game(11, SimConfig(bots=(bot, bot), ready_s=3.0))
import hashlib; print(hashlib.sha256(rec.to_jsonl().encode()).hexdigest())
"""


def test_same_seed_same_game_whatever_the_hash_seed():
    digests = set()
    for hash_seed in ("0", "1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True,
                             text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1
