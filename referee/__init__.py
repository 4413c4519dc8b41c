"""The referee: a pure, deterministic Spit rules engine and the monitor that infers moves
from table observations. No I/O here, except in `cli.py` and `live.py`, the application."""
