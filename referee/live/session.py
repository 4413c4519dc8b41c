"""One refereeing session: the loop shared by `run` and `demo`.

Inputs (observations from vision, slaps and pad warnings from the pads) go to the monitor in
timestamp order; every input line and every ruling goes to the crash-safe event log, so the log
replays to the same rulings (`spit-referee replay`); every ruling goes to the announcers and the
view. Timed calls (R23: "Spit!" after the settle time) need the monitor to see time pass while
the table is still: when a call falls due and no other line arrives, the session feeds an empty
observation, logged like any other input, so a replay makes the same call at the same time.

A resumed session (`--resume LOG`) feeds the log's inputs back into a fresh monitor (its rulings
come out the same and are not logged or announced again, but those a crash kept from the log
are written and announced now), then maps the new clock onto the log's: a reboot restarts the
monotonic clock, and the log's time must never go backwards. The monitor names a bad input by
its line in the log's file, ruling lines counted, as `spit-referee replay` of the file does.

With a coach (`--coach`, referee.coach) every monitor ruling that is an illegal action is followed
by the coach's plain-words explanation, and hints come after each line and on a still table when
`coach.deadline()` falls due; coach rulings are logged and announced like the monitor's, marked
by their `coach` key. A coach-only tick feeds the monitor nothing, so the log's input lines, and
the monitor's rulings over them, are the same with or without the coach.
"""
from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Protocol

from referee.coach import Coach
from referee.live.eventlog import EventLog, unlogged
from referee.monitor import Monitor
from referee.rulings import Ruling, RulingKind

NS_PER_S = 1_000_000_000
INPUT_KEYS = ("start", "observe", "slap")
# After a resume the new clock starts this far after the log's last line (seconds): the gap is
# visible in the log and keeps every time strictly increasing.
RESUME_GAP_S = 1.0


class RulingSink(Protocol):
    def announce(self, ruling: Ruling) -> None: ...


@dataclass
class SessionStats:
    inputs: int = 0
    observations: int = 0
    slaps: int = 0
    ticks: int = 0
    rulings: int = 0
    resumed_lines: int = 0


@dataclass
class RefereeSession:
    """Feeds the monitor, logs, announces. `log` may be None (nothing is written)."""

    monitor: Monitor
    log: EventLog | None = None
    sinks: list[RulingSink] = field(default_factory=list)
    on_ruling: Callable[[Ruling], None] | None = None
    offset_ns: int = 0  # added to every new timestamp (non-zero after a resume)
    stats: SessionStats = field(default_factory=SessionStats)
    coach: Coach | None = None
    _queue: list = field(default_factory=list)
    _seq: Any = field(default_factory=itertools.count)
    _hold_ns: int | None = None  # slaps stamped at or after this wait (hold_slaps_from)

    # --- resume -------------------------------------------------------------------------------

    def resume_from(self, objects: Iterable[Mapping[str, Any]], now_ns: int,
                    linenos: Iterable[int] | None = None) -> list[Ruling]:
        """Replay a log's input lines (`linenos`: their numbers in the file) into the monitor,
        and map `now_ns` just after the log's last time. The monitor's rulings come out as
        logged and are not logged or announced again, except those the log does not hold: a
        crash between an input and its rulings. Those are written and announced now, and
        returned (eventlog.unlogged)."""
        rulings: list[Ruling] = []
        logged: list[Mapping[str, Any]] = []
        last_t = None
        numbers = iter(linenos) if linenos is not None else itertools.repeat(None)
        for obj in objects:
            lineno = next(numbers)
            if "t" in obj and isinstance(obj["t"], (int, float)):
                last_t = float(obj["t"])
            if "ruling" in obj:
                logged.append(obj)
            if any(k in obj for k in INPUT_KEYS):
                rulings += self.monitor.feed(dict(obj), lineno)
                self.stats.resumed_lines += 1
                if self.coach is not None:
                    self.coach.update(self.monitor, self.monitor.t)  # already said, if due
            elif self.coach is not None and "coach" in obj and "ruling" in obj:
                try:
                    self.coach.restore(Ruling.from_json(obj))
                except (KeyError, ValueError, TypeError):
                    pass  # a torn ruling line: at worst a hint is given again
        if last_t is not None:
            self.offset_ns = round((last_t + RESUME_GAP_S) * NS_PER_S) - now_ns
        missing, mismatched = unlogged(logged, [r.to_json() for r in rulings])
        recovered = rulings[len(rulings) - len(missing):]
        if self.coach is not None:
            recovered = [x for r in recovered
                         for x in (r, self.coach.explain(r)) if x is not None]
        if mismatched:
            recovered.append(Ruling(
                last_t or 0.0, RulingKind.WARNING,
                message=f"resumed: {mismatched} of the log's rulings are not what this version "
                        "rules from the log's inputs (a log from another version or other "
                        "settings); refereeing goes on from the table as replayed"))
        self._emit(recovered)
        return recovered

    # --- inputs -------------------------------------------------------------------------------

    def slap(self, line: Mapping[str, Any], t_ns: int) -> None:
        """Queue a pad's slap line (stamped `t_ns` on the new clock) to be fed in time order."""
        heapq.heappush(self._queue, (t_ns + self.offset_ns, next(self._seq), dict(line)))

    def take_pad_events(self, pads: Any) -> None:
        """Everything the pads (hardware.pads.Pads, or None: no pads) have reported: slaps
        queued in time order, pad faults logged as warnings, and slaps held back behind a
        press still settling (hold_slaps_from)."""
        if pads is None:
            return
        from hardware.pads import PadWarning, SlapEvent

        events, unsettled = pads.take()
        for ev in events:
            if isinstance(ev, SlapEvent):
                self.slap(ev.to_log_line(), ev.t_ns)
            elif isinstance(ev, PadWarning):
                self.warning(ev.to_log_line())
        self.hold_slaps_from(unsettled)

    def hold_slaps_from(self, t_ns: int | None) -> None:
        """A pad's press first touched at `t_ns` (the new clock) has not settled yet: it may
        still become a slap stamped then, so slaps stamped at or after it are not fed until
        it has (None: none pending). Fed on arrival, a slap that bounced longer would come
        after a later one and R18 would be judged out of order (hardware.pads.Pads.take)."""
        self._hold_ns = None if t_ns is None else t_ns + self.offset_ns

    def warning(self, line: Mapping[str, Any]) -> None:
        """A note on the hardware (a stuck or chattering pad, a lost camera): logged and
        announced, not judged. Stamped with the log's clock, the time of the last input line,
        so that the log stays in time order: a pad's fault or a note may come after frames
        stamped later than it was, or before frames stamped earlier. Before any input line,
        at its own time."""
        obj = dict(line)
        clock = self.monitor.reader.last_t
        if clock is not None:
            obj["t"] = clock
        elif "t" in obj:
            obj["t"] = float(obj["t"]) + self.offset_ns / NS_PER_S
        self._emit([Ruling.from_json(obj)])

    def observe(self, readings: Mapping[str, str] | None, t_ns: int) -> list[Ruling]:
        """A frame at `t_ns`: earlier slaps first, then the observation of the zones that
        changed (None or empty: nothing changed), then any timed call now due."""
        t_ns += self.offset_ns
        out = self._flush_until(t_ns)
        t = t_ns / NS_PER_S
        if readings:
            out += self._feed({"t": t, "observe": dict(readings)})
            self.stats.observations += 1
        else:
            due = self.monitor.deadline()
            if due is not None and t >= due:
                out += self._feed({"t": t, "observe": {}})
                self.stats.ticks += 1
            elif self.coach is not None:
                hint_due = self.coach.deadline()
                if hint_due is not None and t >= hint_due:
                    hints = self.coach.update(self.monitor, t)
                    self._emit(hints)
                    out += hints
        return out

    def start(self, counts: Mapping[str, int], t_ns: int) -> list[Ruling]:
        return self._feed({"t": (t_ns + self.offset_ns) / NS_PER_S, "start": dict(counts)})

    def flush(self) -> list[Ruling]:
        """Feed every queued slap (at the end of a session)."""
        self._hold_ns = None
        return self._flush_until(None)

    def _flush_until(self, t_ns: int | None) -> list[Ruling]:
        out: list[Ruling] = []
        if self._hold_ns is not None:
            t_ns = self._hold_ns - 1 if t_ns is None else min(t_ns, self._hold_ns - 1)
        while self._queue and (t_ns is None or self._queue[0][0] <= t_ns):
            ts, _, line = heapq.heappop(self._queue)
            line["t"] = ts / NS_PER_S
            out += self._feed(line)
            self.stats.slaps += 1
        return out

    def _feed(self, line: dict[str, Any]) -> list[Ruling]:
        lineno = self.log.append(line) if self.log is not None else None
        self.stats.inputs += 1
        rulings = self.monitor.feed(line, lineno)
        if self.coach is not None:
            rulings = self._coached(rulings)
        self._emit(rulings)
        return rulings

    def _coached(self, rulings: list[Ruling]) -> list[Ruling]:
        out: list[Ruling] = []
        for r in rulings:
            out.append(r)
            why = self.coach.explain(r)
            if why is not None:
                out.append(why)
        return out + self.coach.update(self.monitor, self.monitor.t)

    def _emit(self, rulings: list[Ruling]) -> None:
        for r in rulings:
            self.stats.rulings += 1
            if self.log is not None:
                self.log.ruling(r)  # durable before anyone hears it
            for sink in self.sinks:
                sink.announce(r)
            if self.on_ruling is not None:
                self.on_ruling(r)
