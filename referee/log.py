"""Reading the JSONL event log (DESIGN.md): one line of text → one typed input, or a clear error.

Pure: no files here (referee/live/eventlog.py does the I/O). A log mixes inputs (`start`,
`observe`, `slap`) and outputs (`ruling`); replay feeds the inputs to the monitor and skips the
rulings. Every error names the line number, says what is wrong and what a good line looks like,
so a `warning` ruling can quote it and the monitor can carry on.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Mapping, Union

from referee.cards import CARD_CODES
from referee.errors import UserError
from referee.rulings import Ruling, RulingKind
from referee.zones import ALL_ZONES, PLAYERS, SPECIAL_READINGS, SPIT_PILES

DECK_SIZE = 52  # R1

MAX_ABS_T_S = 9.2e9
"""The largest time a line may carry, in seconds (either sign): 2**63 ns, the range of the
kernel's signed 64-bit nanosecond timestamps, is 9.22e9 s (292 years). A monotonic clock counts
from boot and never comes near it, and even a Unix time (1.7e9 s) fits; a larger `t` is a
corrupt line, whose stamp in nanoseconds (slap timing) would overflow."""
MAX_ABS_T_NS = 2**63 - 1


class LogLineError(UserError, ValueError):
    """A log line that cannot be used; `lineno` is 1-based (0 when the caller gave none). `t`:
    the line's own time, when it has a usable one (its warning is made then)."""

    def __init__(self, lineno: int, problem: str, t: float | None = None) -> None:
        self.lineno = lineno
        self.problem = problem
        self.t = t
        where = f"line {lineno}: " if lineno else ""
        super().__init__(f"{where}{problem}")


class BadStartError(LogLineError):
    """A `start` line whose counts cannot be used: the round's counts are then unknown."""


@dataclass(frozen=True, slots=True)
class StartInput:
    """A round begins with these card counts (a log may begin mid-game). `scores`: points so far
    under the points variant (R22), when the log gives them."""

    t: float
    counts: Mapping[str, int]
    scores: Mapping[str, int] | None = None
    lineno: int = 0


@dataclass(frozen=True, slots=True)
class ObserveInput:
    """The readings of the zones this line names; the others keep their last reading."""

    t: float
    readings: Mapping[str, str]
    lineno: int = 0


@dataclass(frozen=True, slots=True)
class SlapInput:
    """One pad's first edge after debouncing: `player` slapped `pile` at `t_ns` (monotonic ns)."""

    t: float
    t_ns: int
    player: str
    pile: str
    lineno: int = 0


@dataclass(frozen=True, slots=True)
class RulingRecord:
    """A ruling line already in the log (an output; replay skips it, report reads it)."""

    t: float
    ruling: Ruling
    lineno: int = 0


LogInput = Union[StartInput, ObserveInput, SlapInput]
LogEntry = Union[StartInput, ObserveInput, SlapInput, RulingRecord]

_EXAMPLES = (
    '{"t": 0.5, "observe": {"p1.stock1": "7H", "spit.left": "empty"}}, '
    '{"t": 4.2, "slap": {"player": "p1", "pile": "spit.left"}}, '
    '{"t": 0, "start": {"p1": 26, "p2": 26}}'
)


def parse_line(line: str | Mapping[str, Any], lineno: int = 0) -> LogEntry:
    """Parse one log line (text or an already-decoded object). Raises LogLineError."""
    if isinstance(line, str):
        text = line.strip()
        if not text:
            raise LogLineError(lineno, "empty line: each line must be one JSON object")
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LogLineError(lineno, f"not JSON ({exc.msg} at column {exc.colno}): "
                               f"each line must be one JSON object such as {_EXAMPLES}") from None
        except ValueError:  # an integer longer than Python reads (sys.get_int_max_str_digits)
            raise LogLineError(lineno, "a number on this line is too long to read: each line "
                               f"must be one JSON object such as {_EXAMPLES}") from None
        except RecursionError:
            raise LogLineError(lineno, "JSON nested too deeply to read: each line must be one "
                               f"JSON object such as {_EXAMPLES}") from None
    else:
        obj = line
    if not isinstance(obj, Mapping):
        raise LogLineError(lineno, f"a log line must be a JSON object, not {type(obj).__name__}")
    t = _time(obj, lineno)
    try:
        return _entry(obj, t, lineno)
    except LogLineError as exc:
        exc.t = t
        raise


def _entry(obj: Mapping[str, Any], t: float, lineno: int) -> LogEntry:
    kinds = [k for k in ("start", "observe", "slap", "ruling") if k in obj]
    if len(kinds) != 1:
        raise LogLineError(lineno, "a log line needs exactly one of \"start\", \"observe\", "
                           f"\"slap\" or \"ruling\" (found {kinds or 'none'}); e.g. {_EXAMPLES}")
    kind = kinds[0]
    if kind == "observe":
        return ObserveInput(t, _readings(obj["observe"], lineno), lineno)
    if kind == "slap":
        return _slap(obj, t, lineno)
    if kind == "start":
        return _start(obj["start"], t, lineno)
    try:
        return RulingRecord(t, Ruling.from_json(obj), lineno)
    except (ValueError, KeyError, TypeError):
        raise LogLineError(lineno, f"unknown ruling {obj.get('ruling')!r}: rulings are "
                           f"{', '.join(k.value for k in RulingKind)}") from None


def _time(obj: Mapping[str, Any], lineno: int) -> float:
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or (
            isinstance(t, float) and not math.isfinite(t)):
        raise LogLineError(lineno, f"\"t\" must be a number of seconds, got {t!r}")
    if abs(t) > MAX_ABS_T_S:
        shown = f"{t:g} s" if isinstance(t, float) else f"a {len(str(abs(t)))}-digit number"
        raise LogLineError(lineno, f"\"t\" is {shown}, more than {MAX_ABS_T_S:g} s (292 "
                           "years) from the clock's start: not a time of the monotonic clock "
                           "(seconds since boot), so the line is corrupt")
    return float(t)


def _readings(raw: Any, lineno: int) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        raise LogLineError(lineno, "\"observe\" must be an object of zone: reading")
    out: dict[str, str] = {}
    for zone, reading in raw.items():
        if zone not in _ZONES:
            raise LogLineError(lineno, f"unknown zone {zone!r}: zones are {', '.join(ALL_ZONES)}")
        if not isinstance(reading, str):
            raise LogLineError(lineno, f"{zone}: a reading must be a string, got {reading!r}")
        if reading in SPECIAL_READINGS:
            out[zone] = reading
            continue
        code = reading.strip().upper()
        if code not in CARD_CODES:
            raise LogLineError(lineno, f"{zone}: unknown card code {reading!r}: a reading is a "
                               "card code (7H, 10S, AC), \"back\", \"empty\" or \"?\"")
        out[zone] = code
    return out


def _slap(obj: Mapping[str, Any], t: float, lineno: int) -> SlapInput:
    raw = obj["slap"]
    if not isinstance(raw, Mapping):
        raise LogLineError(lineno, "\"slap\" must be an object {\"player\": …, \"pile\": …}")
    player, pile = raw.get("player"), raw.get("pile")
    if player not in PLAYERS:
        raise LogLineError(lineno, f"slap: unknown player {player!r}: use p1 or p2")
    if pile not in SPIT_PILES:
        raise LogLineError(lineno, f"slap: unknown pile {pile!r}: use spit.left or spit.right")
    t_ns = raw.get("t_ns", obj.get("t_ns"))
    if t_ns is None:
        t_ns = round(t * 1e9)
    elif isinstance(t_ns, bool) or not isinstance(t_ns, int):
        raise LogLineError(lineno, f"slap: \"t_ns\" must be an integer, got {t_ns!r}")
    elif abs(t_ns) > MAX_ABS_T_NS:
        raise LogLineError(lineno, "slap: \"t_ns\" is out of range: a kernel timestamp is a "
                           "signed 64-bit number of nanoseconds")
    return SlapInput(t, t_ns, player, pile, lineno)


def _start(raw: Any, t: float, lineno: int) -> StartInput:
    if not isinstance(raw, Mapping):
        raise BadStartError(lineno, "\"start\" must be an object such as {\"p1\": 16, \"p2\": 36}")
    unknown = sorted(str(k) for k in raw if k not in PLAYERS and k != "scores")
    if unknown:
        raise BadStartError(lineno, f"start: unknown {', '.join(map(repr, unknown))}: a start "
                            "line gives \"p1\" and \"p2\" card counts (and \"scores\")")
    counts: dict[str, int] = {}
    for p in PLAYERS:
        n = raw.get(p)
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= DECK_SIZE:
            raise BadStartError(lineno, f"start: {p} needs a card count from 0 to 52, got {n!r}")
        counts[p] = n
    if sum(counts.values()) != DECK_SIZE:
        raise BadStartError(lineno, f"start: the counts must add up to 52 (R1), got "
                           f"{counts['p1']} + {counts['p2']}")
    scores = raw.get("scores")
    if scores is not None:
        if not isinstance(scores, Mapping) or any(
                isinstance(scores.get(p), bool) or not isinstance(scores.get(p), int)
                or scores.get(p) < 0 for p in PLAYERS):
            raise BadStartError(lineno, "start: \"scores\" must give p1 and p2 a whole number "
                               "of points (R22)")
        scores = {p: int(scores[p]) for p in PLAYERS}
    return StartInput(t, counts, scores, lineno)


# A pad reports a press once its bounce has settled, so a log written as events arrive may
# put a slap after frames (or another pad's slap) stamped a little later than it. The slap is
# taken as it is, stamp and all: the race goes by the stamps, never by arrival (R18).
SLAP_ARRIVES_LATE_S = 1.0


class LogReader:
    """Parses lines in order and refuses an input whose time goes backwards, but for a slap
    up to SLAP_ARRIVES_LATE_S behind the clock (it leaves the clock where it is).

    A refused line does not move the clock, so one bad time stamp costs one line.
    """

    def __init__(self) -> None:
        self.lineno = 0
        self.last_t: float | None = None

    def read(self, line: str | Mapping[str, Any], lineno: int | None = None) -> LogEntry:
        """Parse the next line; `lineno` is its number in the file when the caller skipped
        blank lines (otherwise lines are counted here)."""
        self.lineno = self.lineno + 1 if lineno is None else lineno
        entry = parse_line(line, self.lineno)
        if isinstance(entry, RulingRecord):
            return entry
        if self.last_t is not None and entry.t < self.last_t:
            if isinstance(entry, SlapInput) and self.last_t - entry.t <= SLAP_ARRIVES_LATE_S:
                return entry
            late = (f" (a slap may come up to {SLAP_ARRIVES_LATE_S:g} s after lines stamped "
                    "later than it)" if isinstance(entry, SlapInput) else "")
            raise LogLineError(self.lineno, f"time goes backwards: t={entry.t} after "
                               f"t={self.last_t}; log lines must be in time order{late}",
                               entry.t)
        self.last_t = entry.t
        return entry


def encode(obj: Mapping[str, Any]) -> str:
    """One JSONL line (no newline): compact, keys in the order given, UTF-8 text (♥ kept)."""
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


_ZONES = frozenset(ALL_ZONES)
