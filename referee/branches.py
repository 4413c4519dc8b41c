"""Following several explanations of the table at once, until the camera tells them apart.

When more than one shortest sequence of moves explains what the camera sees, the referee may
not pick one (it never guesses). But the table usually tells soon which was the truth: a card
taken back shows where it had been, the next card shows which pile it could have gone on. So
instead of keeping only its last sure position and waiting for a table it can explain from
there (which grows harder with every move made meanwhile), the monitor keeps every candidate
position and carries each forward with the observations that follow: a candidate the table
rules out is dropped, and when one is left (or all that are left rule the same moves) its
moves are ruled. Pure: no clocks, no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from referee.infer import MAX_NODES_DEEP, Explanation, explain, outcome_key
from referee.scene import mismatches
from referee.seen_order import uncovers_seen

# More candidates than this and following them all costs more than it is likely to give back:
# the monitor falls back to waiting for a table it can explain from its last sure position.
# A few cards played under hands, each perhaps lying illegally where it landed, give ten or
# twenty orders (game 48000231: ten); the table tells most apart within a few lines, and a
# candidate it rules out costs one search. Six, until 2026-12-05: hands over half the moves,
# 100 games of seed 48, 1,007 moves missed with 6 and 836 with 32, in the same time.
MAX_BRANCHES = 32


@dataclass(frozen=True)
class Followed:
    """The candidates after one more observation. `undecided`: a candidate's search ran out of
    budget, so the list may lack the truth and must not be trusted to narrow down."""

    branches: tuple[Explanation, ...]
    undecided: bool = False


def follow(branches: Sequence[Explanation], readings: Mapping[str, str], *,
           no_face_down: frozenset[str], seen: Mapping[str, Sequence[str]],
           shown: Mapping[str, frozenset[str]]) -> Followed:
    """Carry every candidate forward to `readings` (the whole table visible). Each keeps its
    steps from the last sure position, so a candidate left alone is a complete explanation of
    everything since then."""
    out: dict[tuple, Explanation] = {}
    put_off: list[Explanation] = []
    for b in branches:
        # The deep budget, not the usual one: a candidate the table has ruled out may take a
        # long search to refute (game 15000056: 3♣ lying illegally under 2♠ and A♣, which the
        # table then showed on top; 4,000 positions did not exhaust it, 20,000 did). A search
        # that needs no more than 4,000 goes the same way and ends the same under either.
        found = _carried(b, readings, no_face_down, seen, shown)
        if found is None:
            put_off.append(b)
            continue
        for joined in found:
            out.setdefault(outcome_key(joined), joined)
    # A candidate whose search ran out of budget is not ruled out by that: but where the others
    # reach the table in fewer moves than it has made, it can only be the shortest explanation
    # if it too reaches the table within the moves they need, and a search that deep is small
    # (game 48000171: a candidate with 5♣, 6♠ and 7♥ lying illegally could not be refuted in
    # 20,000 positions while the other reached the table in one move; undecided, the referee
    # took the table as read 2 s later and lost the game's counts).
    for b in put_off:
        within = min((len(e.steps) for e in out.values()), default=None)
        if within is None:
            return Followed(tuple(branches), undecided=True)
        found = _carried(b, readings, no_face_down, seen, shown,
                         max_steps=within - len(b.steps))
        if found is None:
            return Followed(tuple(branches), undecided=True)
        for joined in found:
            out.setdefault(outcome_key(joined), joined)
    # The referee's rule everywhere: the shortest explanation of what it saw since it was last
    # sure. A candidate that needs more moves to reach this table than another (a card it had
    # played illegally must now come back out from under a spit card) is no longer one.
    fewest = min((len(e.steps) for e in out.values()), default=0)
    return Followed(tuple(e for e in out.values() if len(e.steps) == fewest))


def _carried(b: Explanation, readings: Mapping[str, str], no_face_down: frozenset[str],
             seen: Mapping[str, Sequence[str]], shown: Mapping[str, frozenset[str]],
             max_steps: int | None = None) -> list[Explanation] | None:
    """The candidate `b` carried forward to `readings`: each way it gets there (none if it
    cannot have been the truth), or None if the search ran out of budget. With `max_steps`,
    only ways of at most that many more steps."""
    if not mismatches(b.scene, readings):
        return [b] if uncovers_seen(b.scene, (), seen) else []
    if max_steps is not None and max_steps < 1:
        return []
    bound = {} if max_steps is None else {"max_steps": max_steps}
    o = explain(b.scene, readings, no_face_down=no_face_down, seen=seen, shown=shown,
                max_nodes=MAX_NODES_DEEP, max_options=MAX_BRANCHES, **bound)
    if o.explanation is not None:
        found = [o.explanation]
    elif o.ambiguous and o.complete:
        found = list(o.options)
    elif o.ambiguous:
        return None
    else:
        return []  # this candidate cannot have been the truth
    # A card seen on a pile this candidate had buried: it needs more moves than these to show
    # it, and so is not the shortest explanation.
    return [Explanation(b.steps + e.steps, e.scene) for e in found
            if uncovers_seen(b.scene, e.steps, seen)]
