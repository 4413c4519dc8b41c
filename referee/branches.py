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

from referee.infer import MAX_NODES, MAX_NODES_DEEP, Explanation, explain, outcome_key
from referee.scene import mismatches
from referee.seen_order import uncovers_seen
from referee.steps import lays_out_sixth

# More candidates than this and following them all costs more than it is likely to give back:
# the monitor falls back to waiting for a table it can explain from its last sure position.
# A few cards played under hands, each perhaps lying illegally where it landed, give ten or
# twenty orders (game 48000231: ten); the table tells most apart within a few lines, and a
# candidate it rules out costs one search. Six, until 2026-12-05: hands over half the moves,
# 100 games of seed 48, 1,007 moves missed with 6 and 836 with 32, in the same time.
MAX_BRANCHES = 32
# Deep searches one observation line may make: with many candidates out of the usual budget,
# each a second or more, one line could hold the referee up for several seconds (game 43000151
# at 289.1 s: nine, 8 s). Those it cannot afford leave the line undecided, as running out of
# budget does: the referee waits for the next line.
MAX_DEEP_SEARCHES = 3


@dataclass(frozen=True)
class Followed:
    """The candidates after one more observation. `undecided`: a candidate's search ran out of
    budget, so the list may lack the truth and must not be trusted to narrow down."""

    branches: tuple[Explanation, ...]
    undecided: bool = False


def follow(branches: Sequence[Explanation], readings: Mapping[str, str], *,
           no_face_down: frozenset[str], seen: Mapping[str, Sequence[str]],
           shown: Mapping[str, frozenset[str]], most: int | None = None) -> Followed:
    """Carry every candidate forward to `readings` (the whole table visible). Each keeps its
    steps from the last sure position, so a candidate left alone is a complete explanation of
    everything since then. With `most`, only ways of at most that many steps in all count:
    another explanation (the position the monitor took) reaches the table in that many, so a
    candidate needing more is no longer one, and its search can stop there."""
    out: dict[tuple, Explanation] = {}

    def fewest_yet() -> int | None:
        return min([len(e.steps) for e in out.values()] + ([] if most is None else [most]),
                   default=None)

    # Each candidate is searched with the usual budget first, then the ones it did not decide
    # with the deep one: a candidate the table has ruled out may take a long search to refute
    # (game 15000056: 3♣ lying illegally under 2♠ and A♣, which the table then showed on top;
    # 4,000 positions did not exhaust it, 20,000 did). A search that needs no more than 4,000
    # goes the same way and ends the same under either. Only the fewest moves count (below),
    # so once a candidate has reached the table the others are searched no deeper than it
    # needed: the same outcome, and a candidate that needs many more moves costs a small
    # search, not the whole budget (game 48000216: 22 candidates, four of them out of budget,
    # 7 s of CPU for one line). And a candidate whose search runs out is not ruled out by
    # that, but where the others reach the table in fewer moves than it has got through, a
    # search that deep decides it (game 48000171: a candidate with 5♣, 6♠ and 7♥ lying
    # illegally could not be refuted in 20,000 positions while the other reached the table
    # in one move; undecided, the referee took the table as read 2 s later and lost the
    # game's counts).
    pending = [(b, None) for b in branches]
    deep_left = MAX_DEEP_SEARCHES
    for budget in (MAX_NODES, MAX_NODES_DEEP, MAX_NODES_DEEP):
        left = []
        for b, tried in pending:
            within = fewest_yet()
            bound = None if within is None else within - len(b.steps)
            searches = bound is None or bound >= 1  # (else _carried decides at once)
            if budget == MAX_NODES_DEEP and (tried == (budget, bound)
                                             or (searches and not deep_left)):
                left.append((b, tried))  # searched so already (the last pass is for a bound
                continue                 # tightened since), or no deep search left
            if budget == MAX_NODES_DEEP and searches:
                deep_left -= 1
            found = _carried(b, readings, no_face_down, seen, shown, budget, bound)
            if found is None:
                left.append((b, (budget, bound)))
                continue
            for joined in found:
                out.setdefault(outcome_key(joined), joined)
        pending = left
    if pending:
        return Followed(tuple(branches), undecided=True)
    # The referee's rule everywhere: the shortest explanation of what it saw since it was last
    # sure. A candidate that needs more moves to reach this table than another (a card it had
    # played illegally must now come back out from under a spit card) is no longer one.
    # (With `most`, a candidate that already fitted with more steps than that is none.)
    fewest = fewest_yet()
    return Followed(tuple(e for e in out.values() if len(e.steps) == fewest))


def _carried(b: Explanation, readings: Mapping[str, str], no_face_down: frozenset[str],
             seen: Mapping[str, Sequence[str]], shown: Mapping[str, frozenset[str]],
             max_nodes: int, max_steps: int | None) -> list[Explanation] | None:
    """The candidate `b` carried forward to `readings`: each way it gets there (none if it
    cannot have been the truth), or None if the search ran out of `max_nodes`. With
    `max_steps`, only ways of at most that many more steps."""
    if not mismatches(b.scene, readings):
        return [b] if uncovers_seen(b.scene, (), seen) else []
    if max_steps is not None and max_steps < 1:
        return []
    bound = {} if max_steps is None else {"max_steps": max_steps}
    o = explain(b.scene, readings, no_face_down=no_face_down, seen=seen, shown=shown,
                max_nodes=max_nodes, max_options=MAX_BRANCHES, **bound)
    if o.explanation is not None:
        found = [o.explanation]
    elif o.ambiguous and o.complete:
        found = list(o.options)
    elif o.ambiguous:
        return None
    else:
        return []  # this candidate cannot have been the truth
    if max_steps is not None and any(lays_out_sixth(s) for e in found for s in e.steps):
        # A card laid out as a sixth stockpile (R13) explains a table only where nothing else
        # does, however many moves that takes (infer.explain): a bounded search cannot say.
        return _carried(b, readings, no_face_down, seen, shown, max_nodes, None)
    # A card seen on a pile this candidate had buried: it needs more moves than these to show
    # it, and so is not the shortest explanation.
    return [Explanation(b.steps + e.steps, e.scene) for e in found
            if uncovers_seen(b.scene, e.steps, seen)]
