"""Move inference: which moves turn what the referee last knew into what the camera now shows.

Pure. The monitor's belief is a `Scene` (referee.scene): the rules engine's `Table` plus the
cards lying loose where the Table says they do not; from a Scene the referee knows what each
zone should read (`expected`).

`explain(scene, readings, …)` searches for the shortest sequences of steps (moves judged by
`Table.check`, or a loose card going home) after which every visible zone reads what the camera
shows, taken in an order that fits the order the camera saw the table change in
(referee.seen_order, referee.timeline); zones reading `?` are unconstrained. The search
branches only on steps that change the first zone that still differs (referee.candidates), so
it stays small. If exactly one outcome is found the monitor applies it; if several differ, or
none exists while zones are hidden, it waits for more of the table to become visible; if none
exists while everything is visible, the observation is impossible and the monitor warns. It
never picks one of several explanations: that would be a guess.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from referee.candidates import candidates
from referee.cards import Card
from referee.moves import Play, Refill, Spit, TakeBack, TurnUp
from referee.scene import SIXTH_SLOT, SLOT_OF, Scene, Step, mismatches, position_key
from referee.seen_order import (changed_zones, order_after, order_fits, order_start,
                                passes_through, seen_cards_placed, tops_in_seen_order,
                                trails_followed, trails_left)
from referee.timeline import fits
from referee.zones import BACK, EMPTY, SPIT_PILES, STOCK_ZONES, UNKNOWN

# The longest chain of steps one observation may need: the ten turn-ups of a fresh layout, or
# both players making several moves while zones were hidden. A step changes at most two zones,
# so half the number of differing zones is a lower bound that prunes the search.
MAX_STEPS = 14
# Search nodes per observation before the monitor gives up deciding for now (it waits, or warns
# when everything is visible): keeps one observation within a few tens of milliseconds.
MAX_NODES = 4000
# While a hand hides some zones the search is only an attempt to rule early: most such
# searches find several outcomes and the monitor waits anyway, and a hidden zone fits
# almost anything, so they get a smaller budget. So does a monitor that has already failed to
# explain the table: it waits for the cards to be put back, which a short search finds.
MAX_NODES_BLIND = 300
# When the camera sees the whole table again after hands hid parts of it for a while, many
# moves may have to be explained at once (ten steps after a few seconds of play under hands):
# before it gives up, the monitor searches this much further, once (about a second).
MAX_NODES_DEEP = 20000


# --- the search ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Explanation:
    steps: tuple[Step, ...]
    scene: Scene


@dataclass(frozen=True)
class Outcome:
    """`explanation` when exactly one outcome fits; `ambiguous` when several differ; both None /
    False when nothing fits within MAX_STEPS."""

    explanation: Explanation | None
    ambiguous: bool
    candidates: int
    # When ambiguous: the outcomes found, each complete. `complete`: they are all the shortest
    # ones; False when the search ran out of budget first (the truth may be missing).
    options: tuple[Explanation, ...] = ()
    complete: bool = True


def outcome_key(e: Explanation) -> tuple:
    """Equal for two explanations that rule the same things and leave the same position."""
    return _signature(e.steps, e.scene)


def moves_key(e: Explanation) -> tuple:
    """outcome_key but for the card an illegal play landed on (R10): equal for two
    explanations that make the same moves with the same verdicts and leave the same position,
    in whatever order."""
    return _signature(e.steps, e.scene, named=False)


def explain(scene: Scene, readings: Mapping[str, str], *, no_face_down: frozenset[str] = frozenset(),
            seen: Mapping[str, Sequence[str]] | None = None,
            max_steps: int = MAX_STEPS, max_nodes: int = MAX_NODES,
            shown: Mapping[str, frozenset[str]] | None = None,
            layout: bool = False, max_options: int = 1,
            trails: Mapping[str, Sequence[str]] | None = None,
            timeline: Sequence[Mapping[str, str]] = ()) -> Outcome:
    """All shortest step sequences that make `scene` read like `readings` on visible zones.

    The search stops once it has found more than `max_options` outcomes (one is enough to know
    the table is ambiguous; the monitor asks for more when it follows every candidate).

    `no_face_down`: stock zones that were hidden at some moment since the scene was last
    confirmed; for them a card seen leaving face up may have been turned up unseen, so an R11
    "played face down" ruling would be a guess and is not considered. `seen`: the card codes
    each zone showed since then (a turned-up card may have been played since). `shown`: for
    stockpiles, the readings `back` and `empty` each showed since then: an explanation must
    pass through them (a stockpile seen empty was emptied, so a card moved onto it later was
    not stacked on the card the referee last knew there). `trails`: for stockpiles, every
    reading since then in the order the camera saw it: an explanation passes through them in
    that order. `timeline`: what the visible zones read after each observation since `scene`
    (referee.timeline): an explanation can be timed to agree with each in turn.
    """
    seen = seen or {}
    trails = {z: v for z, v in (trails or {}).items() if v}
    states = _states_to_pass(scene, seen, shown, layout)
    if (not mismatches(scene, readings) and _nothing_to_place(scene, seen, states, layout)
            and not trails_left(scene, (), trails)):
        return Outcome(Explanation((), scene), False, 1)
    start = scene
    prefix, scene = _forced_turn_ups(scene, readings, no_face_down, seen, layout)
    if prefix:
        trails = trails_left(start, prefix, trails)
        # What the stockpiles showed meanwhile may need more than the turn-ups (game 4000024:
        # 9♠ seen gone from its stockpile and back, unexplained by a turn-up elsewhere).
        if not mismatches(scene, readings) and not trails and _nothing_to_place(
                scene, seen, _states_to_pass(scene, seen, shown, layout), layout):
            return Outcome(Explanation(prefix, scene), False, 1)
    in_time = _in_time(start, prefix, timeline) if timeline else None
    outcome = _explain(scene, readings, no_face_down, seen, max_steps, max_nodes, states,
                       max_options, trails, in_time)
    if prefix and outcome.explanation is not None:
        rest = outcome.explanation
        return Outcome(Explanation(prefix + rest.steps, rest.scene), False, 1)
    if prefix and outcome.options:
        return Outcome(None, True, outcome.candidates, tuple(
            Explanation(prefix + o.steps, o.scene) for o in outcome.options), outcome.complete)
    return outcome


def _states_to_pass(scene: Scene, seen: Mapping[str, Sequence[str]],
                    shown: Mapping[str, frozenset[str]] | None,
                    layout: bool) -> dict[str, frozenset[str]]:
    """What each stockpile showed since `scene` that it does not show in it: states every
    explanation passes through. A card seen on a stockpile lay there at some moment (a card
    taken back from a pile and played again under a hand was seen at home in between), like
    `back` and `empty`. (Not for a layout: the last round's cards lie on the stockpiles until
    they are dealt.)"""
    states = dict(shown or {})
    for z, codes in seen.items():
        if z in SLOT_OF and not layout:
            states[z] = frozenset(states.get(z, ())) | frozenset(codes)
    return {z: frozenset(v) - {scene.expected(z)} for z, v in states.items()}


def settled(scene: Scene, readings: Mapping[str, str], seen: Mapping[str, Sequence[str]],
            shown: Mapping[str, frozenset[str]] | None = None, layout: bool = False) -> bool:
    """`scene` reads like `readings`, and nothing seen since needs a move either: no pile
    showed a card it does not hold, no stockpile a state it is not in (a table back as it
    was after cards moved under a hand is not a table where nothing happened)."""
    return not mismatches(scene, readings) and _nothing_to_place(
        scene, seen, _states_to_pass(scene, seen, shown, layout), layout)


def _nothing_to_place(scene: Scene, seen: Mapping[str, Sequence[str]],
                      states: Mapping[str, frozenset[str]], layout: bool) -> bool:
    """No move is needed for what was seen: `states` (from _states_to_pass) are all the
    stockpiles' present states, and every card seen on a pile lies there."""
    return layout or (not any(states.values()) and seen_cards_placed((), scene, seen))


def _forced_turn_ups(scene: Scene, readings: Mapping[str, str], no_face_down: frozenset[str],
                     seen: Mapping[str, Sequence[str]],
                     layout: bool = False) -> tuple[tuple[Step, ...], Scene]:
    """Turn-ups every explanation has, taken out of the search (a fresh layout's ten tops
    would otherwise be searched in every order). A stockpile the camera watched the whole time
    that showed a face-down card and now shows a card nobody has seen was turned up, and
    nothing else happened there. While no spit pile changes, nothing else on the table depends
    on when (no spit whose R16 verdict a new top would change, no play that ends the round)."""
    if not layout and any(readings.get(p, UNKNOWN) not in (UNKNOWN, scene.expected(p))
                          or seen.get(p) for p in SPIT_PILES):
        return (), scene
    bad = mismatches(scene, readings)
    if layout or all(_new_top(scene, readings, z, seen) for z in bad):
        # Nothing but new tops: the turn-ups are the shortest explanation, and the only one
        # of that length, even where a hand hid the stockpile for a while.
        no_face_down = frozenset()
    steps: list[Step] = []
    for z in bad:
        code = readings[z]
        if (z in no_face_down or not _new_top(scene, readings, z, seen)
                or any(code in v for q, v in seen.items() if q != z)):
            continue
        player, slot = SLOT_OF[z]
        move = TurnUp(player, slot, Card.parse(code))
        verdict = scene.table.check(move)
        if not verdict.ok:
            continue
        if not steps:
            scene = scene.copy()
        step = Step(move, verdict)
        scene.apply(step)
        steps.append(step)
    return tuple(steps), scene


def _explain(scene: Scene, readings: Mapping[str, str], no_face_down: frozenset[str],
             seen: Mapping[str, Sequence[str]], max_steps: int, max_nodes: int,
             shown: Mapping[str, frozenset[str]], max_options: int,
             trails: Mapping[str, Sequence[str]],
             in_time: Callable[[tuple[Step, ...]], bool] | None = None) -> Outcome:
    budget = [max_nodes, max_options]  # nodes left to search; outcomes to find before stopping
    # A card set aside as a sixth stockpile (R13) is out of every zone, which also fits a card
    # hidden underneath another: so it is considered only when nothing else explains the table.
    left = trails_left(scene, (), trails)
    for sixth in (False, True):
        for depth in range(_lower_bound(scene, readings), max_steps + 1):
            found: dict[tuple, Explanation] = {}
            _search(scene, readings, no_face_down, seen, depth, (), found, sixth, budget,
                    {}, None, (scene, shown, trails, in_time), left,
                    order_start(scene, shown, in_time is not None))
            if budget[0] <= 0:
                # Too many possibilities: wait. What was found is still a list of shortest
                # explanations (not all of them), enough to take a position from (a resync).
                return Outcome(None, True, len(found), tuple(found.values()), complete=False)
            if found:
                if len(found) == 1:
                    return Outcome(next(iter(found.values())), False, 1)
                return Outcome(None, True, len(found), tuple(found.values()),
                               complete=len(found) <= max_options)
    return Outcome(None, False, 0)


def _in_time(start: Scene, prefix: tuple[Step, ...], timeline: Sequence[Mapping[str, str]]
             ) -> Callable[[tuple[Step, ...]], bool]:
    """Whether steps found after `prefix` (from `start`) fit the order the camera saw the
    table change in (referee.timeline)."""
    def in_time(steps: tuple[Step, ...]) -> bool:
        return fits(start, prefix + steps, timeline)
    return in_time


def _new_top(scene: Scene, readings: Mapping[str, str], zone: str,
             seen: Mapping[str, Sequence[str]]) -> bool:
    """`zone` is a stockpile that should show a face-down card and shows a card nobody has
    seen, and showed no other card meanwhile."""
    code = readings.get(zone, UNKNOWN)
    return (zone in SLOT_OF and scene.expected(zone) == BACK
            and code not in (BACK, EMPTY, UNKNOWN) and not set(seen.get(zone, ())) - {code}
            and not scene.known(Card.parse(code)))


def _lower_bound(scene: Scene, readings: Mapping[str, str],
                 bad: Sequence[str] | None = None) -> int:
    """Fewest steps that can explain the differing zones. A step changes at most two zones,
    but a card nobody has seen that shows on a stockpile got there by a turn-up, which changes
    that zone alone."""
    if bad is None:
        bad = mismatches(scene, readings)
    new = sum(1 for z in bad if z in SLOT_OF and readings[z] not in (BACK, EMPTY)
              and not scene.known(Card.parse(readings[z])))
    return max(1, new + (len(bad) - new + 1) // 2)


def _passed(scene: Scene, left: Mapping[str, Sequence[str]]) -> dict[str, Sequence[str]]:
    """`left` (what of each trail is still to pass) once the table is `scene`."""
    out = {}
    for z, v in left.items():
        rest = v[1:] if scene.expected(z) == v[0] else v
        if rest:
            out[z] = rest
    return out


def _search(scene: Scene, readings: Mapping[str, str], no_face_down: frozenset[str],
            seen: Mapping[str, Sequence[str]], depth: int,
            steps: tuple[Step, ...], found: dict[tuple, Explanation], sixth: bool,
            budget: list[int], visited: dict, last: tuple | None,
            root: tuple[Scene, Mapping[str, frozenset[str]], Mapping[str, Sequence[str]],
                        Callable[[tuple[Step, ...]], bool] | None],
            left: Mapping[str, Sequence[str]], order: tuple) -> bool:
    """Depth-first search for every sequence of `depth` steps that explains `readings`.
    Returns whether a sequence below was refused for the order of its steps alone.

    Complete: steps for every zone that differs are tried, because one may have to come before
    another (a slot emptied before it is refilled; which of two cards lying under a pile's new
    top landed first decides which of them is legal, R14). Two kinds of pruning keep it small
    without losing an outcome: a position already searched with the same steps left is not
    searched again (unless reached in another order, where an order was refused below it),
    and of two independent steps (disjoint zones, nothing global) taken one after the other
    only one order is tried (the lexicographically least order of every equivalent sequence
    always survives). `last` is the previous step's (order key,
    footprint); `root` the start, with what the stockpiles showed since (`shown`, `trails`);
    `left` what of the trails the steps so far have not passed; `order` what of the order of
    the steps so far the checks on a complete explanation look at (order_start)."""
    budget[0] -= 1
    if budget[0] <= 0:
        return False
    bad = mismatches(scene, readings)
    refused = False  # a sequence below refused for its order alone
    if not bad:
        placed = seen_cards_placed(steps, scene, seen)  # (whatever their order)
        if placed and (order_fits(steps, seen)
                       and passes_through(root[0], steps, root[1])
                       and tops_in_seen_order(root[0], steps, seen)
                       and trails_followed(root[0], steps, root[2])
                       and (root[3] is None or root[3](steps))):
            scene._memo = scene._known = None  # (the monitor may change the scene it takes)
            found.setdefault(_signature(steps, scene), Explanation(steps, scene))
            return False
        refused = placed
        if depth <= 0:
            return refused
        # The table reads right, but a card the camera saw meanwhile is not accounted for
        # (played and lifted off again): more steps may place it.
    elif depth < _lower_bound(scene, readings, bad) or len(found) > budget[1]:
        return False
    # The checks above look at the order of the steps, not only at where they lead: a
    # position reached in an order they refused must not hide the same position reached in
    # one they pass (game 1000258: 6♦ onto 7♥ before 9♦ was lifted off 7♥ fails the camera's
    # order; 9♦ lifted first, which fits, was skipped as searched, and the table went
    # unexplained). So a position is searched again in another order (`order`, what of it
    # the checks look at) when an order was refused below it the first time. What of the
    # trails is still to pass decides the steps tried below, so it is part of the position,
    # and so is the step before (`last`): it decides which independent steps below are left to
    # the other order (game 36000122: 7♥ then 8♠, legal, cut off below a position reached
    # first through another order, and "8♠ on 8♣, the same rank" ruled as the only order).
    # The steps taken count with what each rules, an illegal play's card beneath included
    # (_step_counts): game 48000243's 5♦ tried on 3♦ under a hand, then taken back, reaches
    # the position of 5♦ tried on 2♥ before 3♦ went there, and was skipped as searched; "5♦
    # on 2♥" was ruled alone.
    key = (position_key(scene), depth, frozenset(_step_counts(steps).items()),
           tuple((z, tuple(v)) for z, v in sorted(left.items())), last)
    memo = visited.get(key)
    if memo is not None:
        if not memo[0] or order in memo[1]:
            return memo[0]
        memo[1].add(order)
    else:
        memo = visited[key] = [False, {order}]
    tried: set[tuple] = set()
    zones = list(bad)
    # A spit card seen on a pile (and covered since) lies under what was played there.
    zones += [p for p in SPIT_PILES if p not in zones and seen.get(p)]
    # A stockpile that reads as expected may still have shown a card nobody knows (turned up
    # and played while a hand hid the pile it went to).
    zones += [z for z in SLOT_OF if z not in zones and seen.get(z)
              and any(not scene.known(Card.parse(c)) or any(
                  lc.card.code == c and lc.home == z for lc in scene.loose) for c in seen[z])]
    # A stockpile that reads as expected but has readings of its trail still to pass (its
    # card left and came back: demo seed 11, A♠ played, covered by 4♠ and taken back).
    zones += [z for z in left if z not in zones]
    for zone in zones:
        for step in candidates(scene, readings, zone, no_face_down, seen, sixth,
                               away=bool(left.get(zone))):
            if not step.verdict.ok and (step.verdict.kind == "round-over"
                                        or isinstance(step.move, TurnUp)):
                continue  # nothing is played after R17; a refused turn-up leaves nothing loose
            if step.held and step.returned not in root[0].loose:
                # Only a card the referee saw lying loose is lifted into a hand: one played
                # and lifted in one explanation is a card shown nowhere, which a hand may
                # hold or a card cover, and the shorter of the two is no evidence (game
                # 47000213: Q♠ "played again on Q♥ and held", where it lay on K♥ under A♥;
                # every illegal play of a long search lifted so also ran it out of nodes,
                # seed 43000159).
                continue
            ident = (step.move, step.verdict.kind, step.returned, step.held)
            if ident in tried:
                continue
            tried.add(ident)
            nxt = scene.copy()
            nxt.apply(step)
            nxt.settle(scene, step)  # (nothing changes it while the search holds it)
            rank = (repr(step.move), step.verdict.kind, step.returned is not None, step.held)
            foot = _footprint(step, nxt)
            if (last is not None and foot is not None and last[1] is not None
                    and not (foot & last[1]) and rank < last[0]):
                continue  # the same two steps in the other order are searched instead
            after = order_after(order, step, nxt, seen, readings, no_face_down, root[1])
            if after is None:
                refused = True  # a card covered unseen by its own player's next one (R9)
                continue
            if root[3] is not None:
                after = after[:4] + (changed_zones(after[4], scene, step, nxt),)
            refused |= _search(nxt, readings, no_face_down, seen, depth - 1, steps + (step,),
                               found, sixth, budget, visited, (rank, foot), root,
                               _passed(nxt, left), after)
            if len(found) > budget[1] or budget[0] <= 0:
                break
    memo[0] = memo[0] or refused
    return refused


def _footprint(step: Step, after: Scene) -> frozenset[str] | None:
    """The zones a step reads or changes; None when it depends on the whole table (a spit,
    R16; a step that ends the round, R17; a card from the hand) and so commutes with nothing."""
    move = step.move
    if isinstance(move, Spit) or after.table.round_end() is not None:
        return None
    if step.returned is not None:
        lc = step.returned
        return frozenset(z for z in (lc.at, lc.home.split(":")[-1], getattr(move, "pile", None))
                         if z is not None)
    if isinstance(move, Play):
        if move.slot is None or move.slot >= SIXTH_SLOT:
            return None
        return frozenset((STOCK_ZONES[move.player][move.slot], move.pile))
    if isinstance(move, TurnUp):
        return frozenset((STOCK_ZONES[move.player][min(move.slot, SIXTH_SLOT - 1)],))
    if isinstance(move, Refill):
        # R12's verdict looks at every stockpile of the player.
        return frozenset(STOCK_ZONES[move.player]) | {"sixth:" + move.player}
    if isinstance(move, TakeBack):
        zones = {move.pile}
        if move.slot is not None:
            zones.add(STOCK_ZONES[move.player][move.slot])
        return frozenset(zones)
    return None


def _step_counts(steps: Sequence[Step]) -> dict[tuple, int]:
    """The steps as the search's memo tells them apart: what they rule, the card an illegal
    play landed on included (_named), whatever their order."""
    counts: dict[tuple, int] = {}
    for s in steps:
        ident = (s.move, s.verdict.kind, s.returned is not None, s.held, _named(s))
        counts[ident] = counts.get(ident, 0) + 1
    return counts


def _signature(steps: Sequence[Step], scene: Scene, named: bool = True) -> tuple:
    """Two explanations are the same outcome when they rule the same things and leave the same
    position; the order of independent steps does not matter. Without `named`, the card an
    illegal play landed on is left out (moves_key)."""
    rulings = tuple(sorted((type(s.move).__name__, repr(s.move), s.verdict.kind,
                            s.returned is not None, s.held, _named(s) if named else "")
                           for s in steps))
    # Loose cards on different zones lie there whatever order they came in.
    return rulings, repr(scene.table.to_dict()), tuple(sorted(
        (lc.card.code, lc.home, lc.at or "", lc.verdict.kind, lc.pile_len)
        for lc in scene.loose))


def _named(step: Step) -> str:
    """What an R10 ruling names besides the move: the card it landed on ("K♥ on 7♦ is not
    adjacent"). A card tried on a pile and taken back leaves the position as it was whichever
    card it was tried on, so that card is part of the outcome (game 6000025: "K♥ on 7♦"
    ruled, where K♥ went on 8♦, played just before). Other rulings name nothing the move and
    the position do not tell, or (a false spit, R16) one of the plays left, which is no
    ruling of its own."""
    v = step.verdict
    return v.message if v.rule == "R10" and not v.ok and step.returned is None else ""
