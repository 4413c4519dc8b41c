"""Whether an order of steps fits what the camera saw each zone show, in the order it showed
it. Pure. (Across zones, the order the whole table changed in: referee.timeline.)

An explanation (referee.infer) must end where the camera shows the table, and get there the
way the camera saw it go: cards it saw land on a spit pile landed in that order (`order_fits`)
and showed on top in that order (`tops_in_seen_order`); every card it saw on a pile is
accounted for there (`seen_cards_placed`); each state a stockpile showed meanwhile (`back`,
`empty`, a card) is one the steps pass through (`passes_through`), and so are its readings in
the order they came (its trail, `trails_followed`). The search checks a complete explanation
with these. `order_start` and `order_after` keep, step by step, what of the order of the
steps the checks look at: the search tells the same position reached in different orders
apart by it, and `order_after` refuses at once a card covered unseen by its own player's next
one (R9). `uncovers_seen`: a candidate carried forward (referee.branches) uncovered the cards
seen since on a pile that lay buried in it.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from referee.moves import Play, Spit, TakeBack
from referee.scene import PILES, Scene, Step, cards_on
from referee.zones import ALL_ZONES, SPIT_PILES


def order_start(scene: Scene, shown: Mapping[str, frozenset[str]], timed: bool = False
                ) -> tuple:
    """What of the order of the steps the checks on a complete explanation look at, before
    any step (see order_after): per spit pile, the cards the camera saw there placed on it
    in order, and its tops in order (order_fits, tops_in_seen_order); per spit pile, the
    player whose card nobody saw lies on top (R9, see order_after); and which of the states
    the camera saw stockpiles in (`shown`: `back`, `empty`) have been passed, as (zone,
    state) pairs (passes_through). With `timed` (the search keeps to a timeline), also
    the steps that changed each zone, in order (changed_zones): all that
    referee.timeline.fits looks at."""
    start = ((), ()), ((), ()), (None, None), _states_passed(frozenset(), scene, shown)
    return start + (((),) * len(ALL_ZONES),) if timed else start


def changed_zones(changes: tuple, before: Scene, step: Step, after: Scene) -> tuple:
    """`changes` (per zone, the steps that changed it, in order) once `step` has led from
    `before` to `after`."""
    ident = (step.move, step.verdict.kind, step.returned is not None, step.held)
    return tuple(c + (ident,) if after.expected(z) != before.expected(z) else c
                 for z, c in zip(ALL_ZONES, changes))


def _states_passed(passed: frozenset, scene: Scene,
                   shown: Mapping[str, frozenset[str]]) -> frozenset:
    """`passed` with the states of `shown` that `scene` puts its stockpiles in."""
    now = {(z, scene.expected(z)) for z in shown}
    return passed | {(z, state) for z, state in now if state in shown[z]}


def order_after(order: tuple, step: Step, after: Scene, seen: Mapping[str, Sequence[str]],
                readings: Mapping[str, str], hidden: frozenset[str],
                shown: Mapping[str, frozenset[str]]) -> tuple | None:
    """`order` (order_start) once `step` has led to `after`. Only cards the camera saw on a
    pile are recorded: how the others were ordered no check looks at.

    None when `step` is a stock card covering one of the same player's that the camera never
    saw on a pile it watched throughout. A pile in view (no `?` since the position, so no
    hand and no motion over it) reports each card that stays on it for the stabiliser's few
    frames; a card covered before that was covered by the other player's hand, since one hand
    moves one card at a time (R9) and cannot fetch and lay a second card that fast (game
    1000193: P1's 9♦, played from a hidden stockpile and never seen on the left pile, was
    covered by P2's 8♦, not by P1's own 9♠). Plays only: whose spit card a card is the camera
    cannot see."""
    placed, tops, owners, passed, *changes = order
    move = step.move
    pile = getattr(move, "pile", None)
    if step.returned is None and isinstance(move, (Play, Spit)) and pile in PILES:
        k = SPIT_PILES.index(pile)
        code = move.card.code
        shows = seen.get(pile, ())
        if pile not in hidden:
            if isinstance(move, Play) and owners[k] == move.player:
                return None
            owner = (move.player if isinstance(move, Play) and code not in shows
                     and code != readings.get(pile) else None)
            owners = owners[:k] + (owner,) + owners[k + 1:]
        if code in shows:
            placed = placed[:k] + (placed[k] + (code,),) + placed[k + 1:]
    else:
        lifted_from = (step.returned.at if step.returned is not None
                       else move.pile if isinstance(move, TakeBack) else None)
        if lifted_from in PILES and lifted_from not in hidden:
            k = SPIT_PILES.index(lifted_from)
            owners = owners[:k] + (None,) + owners[k + 1:]
    new_tops = list(tops)
    for k, p in enumerate(SPIT_PILES):
        if seen.get(p):  # (no check looks at the tops of a pile the camera saw nothing on)
            top, t = after.expected(p), tops[k]
            if top in seen[p] and (not t or t[-1] != top):
                new_tops[k] = t + (top,)
    return (placed, tuple(new_tops), owners, _states_passed(passed, after, shown), *changes)


def passes_through(start: Scene, steps: Sequence[Step],
                   shown: Mapping[str, frozenset[str]]) -> bool:
    """Every reading a stockpile showed meanwhile (`back`, `empty`, a card) is a state the steps
    pass through."""
    if not shown:
        return True
    missing = {z: set(v) - {start.expected(z)} for z, v in shown.items()}
    missing = {z: v for z, v in missing.items() if v}
    if not missing:
        return True
    scene = start.copy()
    for step in steps:
        scene.apply(step)
        for z in list(missing):
            missing[z].discard(scene.expected(z))
            if not missing[z]:
                del missing[z]
        if not missing:
            return True
    return False


def trails_followed(start: Scene, steps: Sequence[Step],
                    trails: Mapping[str, Sequence[str]]) -> bool:
    """The readings each stockpile showed, in the order the camera saw them, are states the
    steps put it in one after another (from `start` on). A card seen back home and then gone
    again left again: an explanation that leaves it at home under the hand does not fit
    (game 4000021: J♥ taken back, seen home, then the pile seen face down; "J♥ played
    legally, J♦ on it illegal" left J♥ on the pile all along)."""
    return not trails_left(start, steps, trails)


def trails_left(start: Scene, steps: Sequence[Step],
                trails: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """What of each trail (see trails_followed) `steps` from `start` do not pass through."""
    want = {z: list(v) for z, v in trails.items() if v}

    def passed(scene: Scene) -> None:
        for z in list(want):
            if scene.expected(z) == want[z][0]:
                want[z].pop(0)
                if not want[z]:
                    del want[z]

    passed(start)
    if want and steps:
        scene = start.copy()
        for step in steps:
            scene.apply(step)
            passed(scene)
            if not want:
                break
    return want


def passed_whole(start: Scene, steps: Sequence[Step], zone: str, trail: list[str]) -> bool:
    """`steps` from `start` pass through every state `trail` shows on `zone`, in order: what
    the zone showed is accounted for, though its new state showed before the last of them
    too (game 1000367 with hands over a tenth of the moves: P2's 5♦ tried on 7♣ and taken
    back, stockpile 4 seen face down, then 5♦, then played again under a hand; ruled, and
    "face down, then 5♦" was still looked for there from a stockpile face down again, which
    nothing explained: the table was taken as read and the game's counts lost)."""
    return not trails_left(start, steps, {zone: trail})


def tops_in_seen_order(start: Scene, steps: Sequence[Step],
                       seen: Mapping[str, Sequence[str]]) -> bool:
    """The cards the camera saw on a spit pile that the steps put there showed in the order
    the camera saw them: the steps make each of them the pile's top, one after another. A
    card lifted off again counts too, and so does what its lifting uncovers (game 1000167:
    3♣ seen, then 5♥ when 3♣ was taken back, then 4♠; 3♣ cannot have gone on 4♠ and been
    taken back from there, which would have shown 4♠ after it, never 5♥). Cards on the pile
    at the start are left out: the camera may have seen them before it."""
    want: dict[str, list[str]] = {}
    for pile in SPIT_PILES:
        shown = seen.get(pile, ())
        if len(shown) < 2:
            continue
        there = cards_on(start, pile)
        placed = {s.move.card.code for s in steps if s.returned is None
                  and isinstance(s.move, (Play, Spit)) and s.move.pile == pile}
        order = [c for c in shown if c in placed and c not in there]
        if len(order) > 1:
            want[pile] = order
    if not want:
        return True
    tops = _tops_during(start, steps, want)
    for pile, order in want.items():
        left = iter(tops[pile])
        if not all(card in left for card in order):  # (a subsequence of the tops)
            return False
    return True


def _tops_during(start: Scene, steps: Sequence[Step], piles) -> dict[str, list[str]]:
    """What each of `piles` shows after each of the steps from `start`, in order."""
    tops: dict[str, list[str]] = {pile: [] for pile in piles}
    scene = start.copy()
    for step in steps:
        scene.apply(step)
        for pile, shown in tops.items():
            shown.append(scene.expected(pile))
    return tops


def uncovers_seen(start: Scene, steps: Sequence[Step],
                  seen: Mapping[str, Sequence[str]]) -> bool:
    """For sightings all made after `start` (a candidate carried forward, referee.branches): a
    card the camera saw on a pile that lay under the pile's top at the start showed because
    the steps uncovered it, so it is the pile's top at some point of them. (explain's own
    checks leave the cards on a pile at the start out: there, the camera may have seen them
    before the start.) Game 4000022: 6♣ seen on the left pile after 10♣ went home, which
    a candidate with 6♣ under 5♦ cannot show."""
    need: dict[str, set[str]] = {}
    for pile in SPIT_PILES:
        top = start.expected(pile)
        buried = set(seen.get(pile, ())) & cards_on(start, pile) - {top}
        if buried:
            need[pile] = buried
    if not need:
        return True
    tops = _tops_during(start, steps, need)
    return all(cards <= set(tops[pile]) for pile, cards in need.items())


def seen_cards_placed(steps: Sequence[Step], scene: Scene,
                      seen: Mapping[str, Sequence[str]]) -> bool:
    """Every card the camera saw on a pile is accounted for there: it was on it already, or
    one of the steps put it there."""
    for pile in SPIT_PILES:
        shown = seen.get(pile)
        if not shown:
            continue
        there = cards_on(scene, pile)
        there.update(s.move.card.code for s in steps
                     if isinstance(s.move, (Play, Spit)) and s.move.pile == pile)
        if any(code not in there for code in shown):
            return False
    return True


def order_fits(steps: Sequence[Step], seen: Mapping[str, Sequence[str]]) -> bool:
    """Cards the camera saw land on a pile, one after another, were placed in that order."""
    for pile in SPIT_PILES:
        shown = seen.get(pile)
        if not shown:
            continue
        # A card lifted off again (returned, or taken back, R14) uncovers the one beneath, which
        # the camera then sees after it: only cards that stay are ordered by what was seen.
        lifted = {s.move.card.code for s in steps
                  if (s.returned is not None and s.returned.at == pile)
                  or (isinstance(s.move, TakeBack) and s.move.pile == pile)}
        placed = [s.move.card.code for s in steps if s.returned is None
                  and isinstance(s.move, (Play, Spit)) and s.move.pile == pile
                  and s.move.card.code not in lifted]
        if len(placed) < 2:
            continue
        order = [c for c in shown if c in placed]
        if [c for c in placed if c in order] != order:
            return False
    return True
