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
MAX_BRANCHES = 6


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
    for b in branches:
        if not mismatches(b.scene, readings):
            if uncovers_seen(b.scene, (), seen):
                out.setdefault(outcome_key(b), b)
            continue
        # The deep budget, not the usual one: a candidate the table has ruled out may take a
        # long search to refute (game 15000056: 3♣ lying illegally under 2♠ and A♣, which the
        # table then showed on top; 4,000 positions did not exhaust it, 20,000 did). A search
        # that needs no more than 4,000 goes the same way and ends the same under either.
        o = explain(b.scene, readings, no_face_down=no_face_down, seen=seen, shown=shown,
                    max_nodes=MAX_NODES_DEEP, max_options=MAX_BRANCHES)
        if o.explanation is not None:
            found = [o.explanation]
        elif o.ambiguous and o.complete:
            found = list(o.options)
        elif o.ambiguous:
            return Followed(tuple(branches), undecided=True)
        else:
            continue  # this candidate cannot have been the truth
        for e in found:
            if not uncovers_seen(b.scene, e.steps, seen):
                # A card seen on a pile this candidate had buried: it needs more moves than
                # these to show it, and so is not the shortest explanation.
                continue
            joined = Explanation(b.steps + e.steps, e.scene)
            out.setdefault(outcome_key(joined), joined)
    # The referee's rule everywhere: the shortest explanation of what it saw since it was last
    # sure. A candidate that needs more moves to reach this table than another (a card it had
    # played illegally must now come back out from under a spit card) is no longer one.
    fewest = min((len(e.steps) for e in out.values()), default=0)
    return Followed(tuple(e for e in out.values() if len(e.steps) == fewest))
