"""Reading an explanation's steps (referee.scene.Step): which are illegal, which were lifted
off their pile again, the zones each touches, the card each landed on, and the ruling each
gives. Pure functions over steps and tables, shared by the monitor and its doubts."""
from __future__ import annotations

from collections import Counter
from functools import reduce
from typing import Any, Sequence

from referee.cards import Card
from referee.moves import Play, Refill, Spit, TakeBack, TurnUp
from referee.rulings import Ruling, RulingKind
from referee.scene import SIXTH_SLOT, Step
from referee.state import Table
from referee.zones import ALL_ZONES, EMPTY, SPIT_PILES, STOCK_ZONES

# The kinds of an R10 verdict (referee.state): a card that does not fit the top it lands on.
R10_KINDS = {"not-adjacent", "equal-rank"}
# The kind of an R14 verdict (referee.state): a played card taken back.
TAKEN_BACK = "taken-back"


def illegal_steps(steps: tuple[Step, ...]) -> list[Step]:
    """The steps of an explanation ruled illegal (a card going home is no new ruling)."""
    return [s for s in steps if not s.verdict.ok and s.returned is None]


def lays_out_sixth(step: Step) -> bool:
    """`step` lays a card out as a sixth stockpile (R13): a card gone from every zone, which
    the search takes only where nothing else explains the table (referee.infer)."""
    return isinstance(step.move, Refill) and step.move.to_slot >= SIXTH_SLOT


def is_lifted(step: Step, steps: tuple[Step, ...]) -> bool:
    """A later step takes `step`'s card off its pile again: the camera saw what lay beneath."""
    return any(s.returned is not None and s.returned.move == step.move for s in steps)


def taken_back_after(play: Step, later: Sequence[Step]) -> bool:
    """A later step lifts `play`'s card back off its pile (R14)."""
    return any(isinstance(s.move, TakeBack) and s.move.card == play.move.card
               and s.move.pile == play.move.pile for s in later)


def stacked(table: Table, steps: tuple[Step, ...]) -> tuple[set[Card], Card | None]:
    """The face-up cards `steps` cover by moving another card onto their stockpile (R12), and
    the first of them the steps then move off it again, if any: uncovered, it may as well
    have left before, and the move into its slot been legal (game 26000095: Q♠ "stacked on
    A♦", put back, A♦ played, Q♠ moved in)."""
    covered: set[Card] = set()
    uncovered = None
    before = table.copy()
    for step in steps:
        move = step.move
        if isinstance(move, Refill) and move.to_slot < SIXTH_SLOT:
            up = before.slots[move.player][move.to_slot].up
            if up is not None and up != move.card:
                covered.add(up)
        if (uncovered is None and isinstance(move, (Play, Refill)) and move.card in covered
                and step.returned is None):
            uncovered = move.card
        advance(before, step)
    return covered, uncovered


def advance(table: Table, step: Step) -> None:
    """Carry `table` past `step` as the rules see it: a legal move is made. A card ruled
    illegal lies loose, off the table the rules judge, and a loose card going home leaves
    it as it was, except a spit laid on the wrong pile and moved to the right one, which is
    then the spit itself (referee.candidates._returns)."""
    if step.legal:
        table.apply(step.move)
    elif step.returned is not None and isinstance(step.move, Spit) and step.verdict.ok:
        table.apply(step.move)


def top_beneath(table: Table, step: Step) -> str | None:
    """The top of the spit pile a play or spit lands on (or "empty"); None for other moves."""
    pile = getattr(step.move, "pile", None)
    if not isinstance(step.move, (Play, Spit)) or pile not in SPIT_PILES:
        return None
    return table.piles[pile][-1].code if table.piles[pile] else EMPTY


def step_keys(table: Table, steps: tuple[Step, ...]) -> list[tuple]:
    """What each step's ruling says, the card it landed on included (a spit's message does
    not name it), from `table` on: equal keys in two explanations are the same ruling."""
    before = table.copy()
    keys = []
    for step in steps:
        keys.append((step.move, step.verdict.kind, step.verdict.message,
                     step.returned is not None, top_beneath(before, step)))
        advance(before, step)
    return keys


def not_agreed(keys: Sequence[tuple], others: Sequence[Sequence[tuple]]) -> set[int]:
    """The indexes of the steps (their step_keys) whose ruling is not made by every one of
    `others` (each an explanation's step_keys) too, each ruling matched once: the steps that
    cannot be ruled while any of those may be true."""
    agreed = reduce(lambda x, y: x & y, [Counter(o) for o in others])
    unsure = set()
    for k, key in enumerate(keys):
        if agreed[key] > 0:
            agreed[key] -= 1
        else:
            unsure.add(k)
    return unsure


def move_zones(move: Any) -> tuple[str | None, str | None]:
    """The zone a move takes its card from and the zone it puts it on (a spit's source is
    `<player>.hand`; a sixth stockpile, R13, is None)."""
    if isinstance(move, Play):
        src = (STOCK_ZONES[move.player][move.slot] if move.slot is not None and move.slot < 5
               else f"{move.player}.hand" if move.slot is None else None)
        return src, move.pile
    if isinstance(move, Refill):
        dst = STOCK_ZONES[move.player][move.to_slot] if move.to_slot < 5 else None
        return STOCK_ZONES[move.player][move.from_slot], dst
    if isinstance(move, Spit):
        return f"{move.player}.hand", move.pile
    if isinstance(move, TakeBack):
        dst = STOCK_ZONES[move.player][move.slot] if move.slot is not None else None
        return move.pile, dst
    return None, None


def step_zones(move: Any) -> set[str]:
    """The zones a move takes a card from or puts one on (a turn-up: its stockpile)."""
    if isinstance(move, TurnUp):
        return {STOCK_ZONES[move.player][move.slot]}
    return {z for z in move_zones(move) if z in ALL_ZONES}


def ruling_for(t: float, step: Step, before: Table) -> Ruling | None:
    """The ruling `step` gives, made at log time `t` on the table `before` it, or None: a
    turn-up is never ruled, and a card ruled illegal and since taken back is not ruled
    again."""
    move, verdict = step.move, step.verdict
    if step.returned is not None:
        if isinstance(move, Spit) and verdict.ok:
            return Ruling(t, RulingKind.SPIT, player=move.player, card=move.card.code,
                          to=move.pile, rule=verdict.rule, message=verdict.message)
        return None  # a card ruled illegal has been taken back, as the ruling asked
    if isinstance(move, TurnUp):
        return None  # always legal; the referee just learns the card
    src, dst = move_zones(move)
    extra = {} if verdict.ok else {"illegal_kind": verdict.kind}
    if verdict.ok:
        kind = {Play: RulingKind.PLAY, Refill: RulingKind.REFILL,
                Spit: RulingKind.SPIT}[type(move)]
    elif verdict.kind == "false-spit":
        kind = RulingKind.FALSE_SPIT
    else:
        kind = RulingKind.ILLEGAL
    # A ruling names only the table's zones (DESIGN.md): a spit card, or one played from
    # the spit cards in hand (R15), comes from the player's hand, which is none, and its
    # ruling has no `from` (the message says where it came from).
    return Ruling(t, kind, player=move.player, card=move.card.code,
                  from_=src if src in ALL_ZONES else None, to=dst,
                  rule=verdict.rule, message=verdict.message, extra=extra)
