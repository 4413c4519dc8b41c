"""The live rules monitor: event-log lines in (`start`, `observe`, `slap`), rulings out.

Pure and deterministic: the same lines give the same rulings, so every game replays from its
log. The monitor keeps the camera's latest reading of every zone and its belief about the table
(`referee.scene.Scene`: the rules engine's Table plus cards lying where they do not belong).
After each line it asks `infer.explain` which moves turned the belief into what the camera
shows, judges each with `Table.check`, and rules. When zones are hidden (`?`) and the moves are
not certain, it waits; a line it cannot use gives a `warning` naming the line, and the monitor
carries on from its last good state. Time-driven calls (R16 spit, R23 slap) use log time.

The monitor is one class, Monitor (core), in parts: judging (rulings from an explanation),
dealing, resync (getting back in step), ends (a round's end), slaps, late (rulings made
once the table settles a doubt) and calls (timed "Spit!" calls); common holds what they share.
"""
from referee.monitor.calls import CALL_RACE_S
from referee.monitor.common import RESYNC_AFTER_S, InferredMove, MonitorConfig, Phase
from referee.monitor.core import MAX_RESYNC_OPTIONS, Monitor
from referee.monitor.dealing import MAX_UNREAD_TOPS
from referee.monitor.slaps import EARLY_SLAP_GRACE_S

__all__ = ["CALL_RACE_S", "EARLY_SLAP_GRACE_S", "MAX_RESYNC_OPTIONS", "MAX_UNREAD_TOPS",
           "RESYNC_AFTER_S", "InferredMove", "Monitor", "MonitorConfig", "Phase"]
