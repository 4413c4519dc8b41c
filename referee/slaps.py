"""Slap arbitration at the end of a round (R18, R23): who takes which spit pile.

Pure: no clocks, no I/O. Times are nanoseconds on the one monotonic clock of DESIGN.md, taken
from the kernel's edge timestamps by `hardware.pads`, so the order of two slaps is the order of
their timestamps, never the order in which the events reached us.

- The pads are armed at the referee's `slap-call` (R23). A slap stamped before arming is a
  false slap (R18).
- After arming only each player's first slap counts (first by timestamp: a player's hand that
  bounces onto the second pad does not change what they chose).
- Different piles: each player takes the pile they slapped. The same pile: the player whose
  slap is stamped first (whose hand is underneath) takes it and the other player takes the
  other pile — unless the two stamps are within the tie window, where the referee cannot tell
  and asks for a re-slap rather than guess.
- Only one player slapped, and the piles were gathered (`lone_decision`): that player takes
  the pile they slapped and the other player the other pile; there is no margin.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Mapping, Sequence

from referee.errors import UserError
from referee.zones import PLAYERS, SPIT_PILES, other_pile

# Two slaps on the same pile closer than this are too close to call. 0.5 ms is far above the
# error of the kernel's edge timestamps (tens of µs, bench/slap.py) and far below what a player
# can see, so a re-slap is asked for only when nobody could honestly say who was first.
DEFAULT_TIE_WINDOW_NS = 500_000

RULE = "R18"


class SlapError(UserError, ValueError):
    """A slap that names an unknown player or pile, or two slaps by the same player."""


@dataclass(frozen=True)
class Slap:
    """One pad's first edge after debouncing: `player` slapped `pile` at `t_ns` (monotonic ns)."""

    t_ns: int
    player: str
    pile: str

    def __post_init__(self) -> None:
        if self.player not in PLAYERS:
            raise SlapError(f"unknown player {self.player!r} in a slap: use one of "
                            f"{', '.join(PLAYERS)}")
        if self.pile not in SPIT_PILES:
            raise SlapError(f"unknown pile {self.pile!r} in a slap: use one of "
                            f"{', '.join(SPIT_PILES)}")
        if not isinstance(self.t_ns, int) or isinstance(self.t_ns, bool):
            raise SlapError(f"slap time must be integer nanoseconds, got {self.t_ns!r}")


class SlapVerdictKind(Enum):
    """What `SlapArbiter.record` made of one slap."""

    COUNTED = "counted"        # the player's first slap after arming: it takes part in the decision
    FALSE_SLAP = "false-slap"  # stamped before the pads were armed (R18, R23)
    IGNORED = "ignored"        # the player already slapped earlier after arming; only the first counts


@dataclass(frozen=True)
class SlapVerdict:
    kind: SlapVerdictKind
    slap: Slap
    message: str
    rule: str = RULE

    @property
    def counted(self) -> bool:
        return self.kind is SlapVerdictKind.COUNTED


@dataclass(frozen=True)
class SlapOutcome:
    """The decision once both players have slapped.

    `piles` maps each spit pile to the player who takes it (empty when `too_close`);
    `slaps` are the two counted slaps in timestamp order (one for a lone slap); `margin_ns` is
    the gap between them (None for a lone slap); `first` is the player stamped first (None
    only when both stamps are equal).
    """

    piles: Mapping[str, str]
    margin_ns: int | None
    too_close: bool
    first: str | None
    slaps: tuple[Slap, ...]
    message: str
    rule: str = RULE
    tie_window_ns: int = field(default=DEFAULT_TIE_WINDOW_NS)

    @property
    def margin_ms(self) -> float | None:
        return None if self.margin_ns is None else self.margin_ns / 1e6

    @property
    def same_pile(self) -> bool:
        return len(self.slaps) == 2 and self.slaps[0].pile == self.slaps[1].pile


def _name(player: str) -> str:
    return player.upper()


def pile_words(pile: str) -> str:
    """`spit.left` -> `the left pile`."""
    return f"the {pile.split('.', 1)[1]} pile"


def resolve_slaps(p1: Slap, p2: Slap, tie_window_ns: int = DEFAULT_TIE_WINDOW_NS) -> SlapOutcome:
    """Decide R18 from the two players' counted slaps (in any order)."""
    if tie_window_ns < 0:
        raise SlapError(f"tie window must be >= 0 ns, got {tie_window_ns}")
    if p1.player == p2.player:
        raise SlapError(f"both slaps are by {p1.player}: R18 needs one slap from each player")
    a, b = sorted((p1, p2), key=lambda s: (s.t_ns, s.player))
    margin = b.t_ns - a.t_ns
    first = a.player if margin > 0 else None
    ms = margin / 1e6
    if a.pile != b.pile:
        piles = {a.pile: a.player, b.pile: b.player}
        msg = (f"{_name(a.player)} takes {pile_words(a.pile)}, {_name(b.player)} takes "
               f"{pile_words(b.pile)} ({RULE})")
        return SlapOutcome(piles, margin, False, first, (a, b), msg, RULE, tie_window_ns)
    if margin <= tie_window_ns:
        msg = (f"Too close to call: both slapped {pile_words(a.pile)} {ms:.2f} ms apart "
               f"(within {tie_window_ns / 1e6:g} ms) — slap again ({RULE})")
        return SlapOutcome({}, margin, True, first, (a, b), msg, RULE, tie_window_ns)
    piles = {a.pile: a.player, other_pile(a.pile): b.player}
    msg = (f"{_name(a.player)} was first on {pile_words(a.pile)} by {ms:.2f} ms and takes it; "
           f"{_name(b.player)} takes {pile_words(other_pile(a.pile))} ({RULE})")
    return SlapOutcome(piles, margin, False, first, (a, b), msg, RULE, tie_window_ns)


class SlapArbiter:
    """Collects slaps for one slap-call and decides R18 once both players have slapped.

    Feed every slap to `record` in arrival order; the decision depends only on timestamps.
    `arm(t_ns)` at each slap-call (also for a re-slap after a too-close call) starts afresh;
    `disarm()` after the round's result, so that stray slaps are false again.
    """

    def __init__(self, tie_window_ns: int = DEFAULT_TIE_WINDOW_NS) -> None:
        if tie_window_ns < 0:
            raise SlapError(f"tie window must be >= 0 ns, got {tie_window_ns}")
        self.tie_window_ns = tie_window_ns
        self._armed_at: int | None = None
        self._first: dict[str, Slap] = {}

    @property
    def armed(self) -> bool:
        return self._armed_at is not None

    @property
    def armed_at(self) -> int | None:
        return self._armed_at

    def arm(self, t_ns: int) -> None:
        """The referee called "Slap!" at `t_ns` (R23): slaps stamped from then on count."""
        self._armed_at = t_ns
        self._first = {}

    def disarm(self) -> None:
        self._armed_at = None
        self._first = {}

    def waiting_for(self) -> tuple[str, ...]:
        """Players who have not slapped since arming (empty when not armed)."""
        if self._armed_at is None:
            return ()
        return tuple(p for p in PLAYERS if p not in self._first)

    def record(self, slap: Slap) -> SlapVerdict:
        who = _name(slap.player)
        if self._armed_at is None or slap.t_ns < self._armed_at:
            return SlapVerdict(SlapVerdictKind.FALSE_SLAP, slap,
                               f"False slap: {who} slapped {pile_words(slap.pile)} before "
                               f"\"Slap!\" was called ({RULE}) — wait for the call")
        held = self._first.get(slap.player)
        if held is not None and held.t_ns <= slap.t_ns:
            return SlapVerdict(SlapVerdictKind.IGNORED, slap,
                               f"{who} already slapped {pile_words(held.pile)}; only the first "
                               f"slap counts ({RULE})")
        # A slap that arrives later but is stamped earlier than the one we held is the real
        # first slap of this player: timestamps decide, not arrival.
        self._first[slap.player] = slap
        return SlapVerdict(SlapVerdictKind.COUNTED, slap,
                           f"{who} slapped {pile_words(slap.pile)} ({RULE})")

    def decision(self) -> SlapOutcome | None:
        """The R18 outcome once both players have a counted slap, else None."""
        if len(self._first) < len(PLAYERS):
            return None
        return resolve_slaps(self._first[PLAYERS[0]], self._first[PLAYERS[1]],
                             self.tie_window_ns)

    def lone_decision(self) -> SlapOutcome | None:
        """R18 when one player alone has a counted slap and the round is over for the table
        (the spit piles were gathered): that player takes the pile they slapped, the other
        player the other pile. None unless exactly one player slapped."""
        if len(self._first) != 1:
            return None
        (slap,) = self._first.values()
        other = next(p for p in PLAYERS if p != slap.player)
        rest = other_pile(slap.pile)
        msg = (f"Only {_name(slap.player)} slapped before the spit piles were gathered: "
               f"{_name(slap.player)} takes {pile_words(slap.pile)}, {_name(other)} takes "
               f"{pile_words(rest)} ({RULE})")
        return SlapOutcome({slap.pile: slap.player, rest: other}, None, False, slap.player,
                           (slap,), msg, RULE, self.tie_window_ns)


def unseen_end_outcome(since_ns: int, slaps: Sequence[Slap],
                       tie_window_ns: int = DEFAULT_TIE_WINDOW_NS) -> SlapOutcome | str | None:
    """R18 when the round ended at a moment nobody saw, some time after `since_ns` (a hand hid
    the last card landing), and `slaps` came since then, in arrival order.

    A slap before the end is false and does not count; a player who made one slaps again after
    it. So the end may lie before every slap, or just after the first slap of any player who
    slapped more than once (that slap then false). Returns the outcome when every such end
    gives the same piles; "again" when they give different piles (the players must slap
    again, R18: choosing would be a guess); None while a player has not slapped."""
    ends = [since_ns] + sorted({s.t_ns + 1 for s in slaps if any(
        o.player == s.player and o.t_ns > s.t_ns for o in slaps)})
    outcomes = []
    for end in ends:
        arbiter = SlapArbiter(tie_window_ns)
        arbiter.arm(end)
        for slap in slaps:
            arbiter.record(slap)
        got = arbiter.decision()
        if got is None:
            return None
        outcomes.append(got)
    if len({(tuple(sorted(o.piles.items())), o.too_close) for o in outcomes}) > 1:
        return "again"
    return outcomes[0]
