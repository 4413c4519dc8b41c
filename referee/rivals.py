"""The positions a resync did not take, followed until the table rules them out.

When several sequences of moves explain the table and the camera cannot tell them apart in
time, the monitor takes the position of one (Monitor._resync) and, until the next round, rules
no illegal move where that position may be wrong, and counts the round's end as uncertain.
The table usually settles it later: a card one candidate left lying loose on a pile must go
home before its stockpile is used again, and a candidate that needs more moves than the
position taken to reach what the camera sees is no longer the shortest explanation (the
referee's rule everywhere, referee.branches). `Rivals` carries the other candidates forward
with the observations; when none is left, the position taken was the truth. So too when the
round ends in the position taken and every candidate needs more moves to end it (its loose cards
handed back). Pure: no clocks, no I/O.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from referee.branches import follow
from referee.infer import Explanation
from referee.scene import Scene, Step, position_key


class Rivals:
    """The candidates a resync left, as positions at the moment it took its own, and the
    number of steps the monitor has ruled or followed since (`taken`). The monitor records in
    `hidden`, `seen` and `shown` what the zones read since the candidates were last carried
    forward (as for its own position)."""

    def __init__(self, chosen: Scene, options: Sequence[Explanation]) -> None:
        key = position_key(chosen)
        self.branches: tuple[Explanation, ...] = tuple(
            Explanation((), o.scene) for o in options if position_key(o.scene) != key)
        self.taken = 0
        self._restart()

    def _restart(self) -> None:
        self.hidden: set[str] = set()
        self.seen: dict[str, list[str]] = {}
        self.shown: dict[str, set[str]] = {}

    def advance(self, steps: Sequence[Step]) -> None:
        """The monitor took these steps from its position."""
        self.taken += len(steps)

    def ruled_out(self, readings: Mapping[str, str]) -> bool:
        """Carry the candidates to `readings`, a table the monitor's position explains with
        `taken` steps, seen whole. True when none of them can still be the truth: none reaches
        the table, or each needs more steps than the position taken."""
        if not self.branches:
            return True
        followed = follow(self.branches, readings, no_face_down=frozenset(self.hidden),
                          seen=self.seen,
                          shown={z: frozenset(v) for z, v in self.shown.items()},
                          most=self.taken)
        if followed.undecided:
            return False  # a search ran out of budget: the candidates stay as they were
        self._restart()
        self.branches = tuple(b for b in followed.branches if len(b.steps) <= self.taken)
        return not self.branches

    def left_at_end(self, readings: Mapping[str, str],
                    loose_taken: int) -> tuple[Explanation, ...] | None:
        """The round is over in the position taken, whose table reads `readings` (seen whole)
        with `loose_taken` cards lying loose: the candidates that can still be the truth, or
        None if a search ran out of budget. Out goes every one that needs more moves than the
        position taken to get there and hand back the cards it leaves lying loose: an illegal
        card goes home (R14), at the latest as the round ends (game 2000011: Q♦, K♠ and A♦
        taken for illegal plays covered at once, or legal ones, until P1 cleared a second
        later)."""
        if not self.branches:
            return ()
        followed = follow(self.branches, readings, no_face_down=frozenset(self.hidden),
                          seen=self.seen,
                          shown={z: frozenset(v) for z, v in self.shown.items()},
                          most=self.taken + loose_taken)
        if followed.undecided:
            return None
        return tuple(b for b in followed.branches
                     if len(b.steps) + len(b.scene.loose) <= self.taken + loose_taken)
