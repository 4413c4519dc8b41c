"""The referee: a pure, deterministic Spit rules engine and the monitor that infers moves
from table observations. No I/O here, except in `cli.py` and `live.py`, the application."""

__all__ = ["Monitor", "MonitorConfig"]


def __getattr__(name: str):  # `referee.Monitor` (DESIGN.md), imported only when asked for
    if name in __all__:
        from referee import monitor

        return getattr(monitor, name)
    raise AttributeError(f"module 'referee' has no attribute {name!r}")
