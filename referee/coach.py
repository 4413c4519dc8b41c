"""Coach mode for beginners (`run --coach`, `demo --coach`): hints and plain-words rules.

Pure and deterministic, driven by log time. After each monitor line the coach looks at the
monitor's *confirmed* table: when a player has had a legal play (R10: a face-up stockpile top
adjacent to a spit pile top) unplayed for `hint_after_s`, it says so once per (player, card,
pile top) — "P1: your 7♣ goes on the 8♦ (R10)". Every illegal, false-spit and false-slap ruling
is followed by the rule it cites in plain words. Coach output is a `warning` ruling with the key
`"coach": "hint"` or `"coach": "explain"` (the monitor's own R16 prompt is marked the same way
with `"prompt"`); the monitor's rulings are never changed, so `replay` stays exact.

The coach never claims what the monitor is unsure of: no hint while any zone reads `?`, while a
card lies loose (played illegally, not yet taken back), while the camera shows something the
monitor has not explained yet, or while a spit or the end of a round is under way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.rulings import Ruling, RulingKind, player_name, pretty
from referee.scene import mismatches
from referee.state import Table
from referee.zones import PLAYERS, STOCK_ZONES, UNKNOWN

if TYPE_CHECKING:
    from referee.monitor import Monitor

# Seconds a blocked table must hold before "Spit!" (R23) in coach mode. The 1.5 s default suits
# players who see a block at a glance; a learner needs time to check all ten stockpile tops
# against both piles before agreeing that nobody can play, and twice as long gives that.
COACH_SETTLE_S = 3.0

# The kinds of ruling that the coach explains (the players' illegal actions, R24).
EXPLAINED_KINDS = frozenset({RulingKind.ILLEGAL, RulingKind.FALSE_SPIT, RulingKind.FALSE_SLAP})

# Each rule a ruling can cite, in plain words for someone who has never played (RULES.md).
RULE_TEXT: dict[str, str] = {
    "R1": "The game uses one deck, so every card exists only once.",
    "R8": "A round starts when both players say \"Spit!\" together and each turns their top "
          "spit card face up into the centre: those two cards start the spit piles.",
    "R9": "Both players play at the same time, with no turns, using one hand and moving one "
          "card at a time.",
    "R10": "You may put the face-up top card of one of your own stockpiles onto either spit "
           "pile when its rank is one step away from the pile's top card, up or down (a 7 goes "
           "on a 6 or an 8; King and Ace, and Ace and 2, are next to each other). Suits and "
           "colours do not matter, and a card never goes on the same rank.",
    "R11": "When a stockpile's top card has gone, you may turn the next card of that pile face "
           "up. A face-down card is never played before it has been turned up.",
    "R12": "When one of your five stockpile places is empty, you may move a face-up top card "
           "from another of your stockpiles into it, then turn up the card it uncovered. Cards "
           "move between stockpiles only into an empty place, never onto another card.",
    "R13": "You never have more than five stockpiles.",
    "R14": "A card counts as played the moment it touches a spit pile, and it can never be "
           "taken back.",
    "R15": "Only your stockpile cards are played onto the spit piles; your spit cards go to "
           "the centre only when everybody spits.",
    "R16": "You spit only when nobody can play: no face-up stockpile card fits either pile and "
           "nothing is left to turn up or move into an empty place. Then both say \"Spit!\" and "
           "turn a spit card onto your own side's pile. A player with no spit cards left does "
           "not spit.",
    "R17": "A round ends when a player has played all their stockpile cards, or when nobody "
           "can play and nobody has spit cards left. Then stop playing and slap.",
    "R18": "Slap only after the referee calls \"Slap!\" at the end of a round: each player "
           "slaps the spit pile they want (the smaller one is best). Slapping earlier is a false "
           "slap.",
}

# What went wrong, by the ruling's `illegal_kind` (state.Table.check's kinds, the monitor's
# `false-slap`), in a beginner's words; the rule's text follows it.
KIND_TEXT: dict[str, str] = {
    "not-adjacent": "that card is not one step away from the pile's top card.",
    "equal-rank": "a card never goes on a card of the same rank.",
    # The camera could not see which of two cards it lay on; neither was one step away.
    "equal-rank or not-adjacent": "that card was not one step away from the pile's top card, "
                                  "whichever of the two cards was on top.",
    "empty-pile": "that spit pile has no card yet, so wait for the spit.",
    "face-down": "that card was still face down: turn it up first, then play it.",
    "not-your-card": "that card belongs to the other player.",
    "empty-slot": "that stockpile place is empty, so the card cannot have come from there.",
    "not-on-top": "only the top card of a stockpile can be moved.",
    "from-spit-hand": "that card came from your spit cards, not from a stockpile.",
    "taken-back": "that card was already played.",
    "duplicate-card": "that card is already face up somewhere else; check what the camera saw.",
    "sixth-stockpile": "that would make a sixth stockpile.",
    "already-face-up": "that stockpile's top card is already face up.",
    "nothing-to-turn": "that stockpile place is empty; there is nothing to turn up.",
    "same-slot": "the card was put back onto its own stockpile.",
    "stacking": "cards are never stacked onto another stockpile.",
    "no-empty-slot": "no stockpile place is empty, so cards stay where they are.",
    "no-spit-cards": "you have no spit cards left.",
    "false-spit": "somebody could still play, so it was not time to spit.",
    "wrong-pile": "each player spits onto their own side's pile.",
    "round-over": "the round was already over.",
    "false-slap": "the round was not over yet.",
}


@dataclass(frozen=True)
class CoachConfig:
    """`hint_after_s`: seconds of log time a legal play must stay unplayed before the coach
    points it out. A learner finds a play within 2-3 s when they see it; 4 s leaves them that
    time to find it alone (hints too early take the game away) and is short enough that they
    are not left staring at a play they missed."""

    hint_after_s: float = 4.0

    def __post_init__(self) -> None:
        if not self.hint_after_s > 0:
            raise ValueError(f"hint_after_s must be a positive number of seconds, "
                             f"got {self.hint_after_s}")


# (round, player, card code, spit pile, the pile's top card code)
HintKey = tuple[int, str, str, str, str]


def sure_table(monitor: "Monitor") -> Table | None:
    """The monitor's table when it is sure of it and play is on: every zone visible, no card
    loose, the camera showing exactly what the monitor believes, no spit or round end pending.
    None otherwise."""
    from referee.monitor import Phase

    scene = monitor.scene
    if monitor.phase is not Phase.PLAYING or scene is None or scene.loose:
        return None
    if any(r == UNKNOWN for r in monitor.readings.values()):
        return None
    if mismatches(scene, monitor.readings):
        return None
    table = scene.table
    if table.pending_spits or table.round_end() is not None:
        return None
    return table


def available_plays(monitor: "Monitor", table: Table) -> dict[HintKey, tuple[str, int]]:
    """Every legal play now (R10), keyed by (round, player, card, pile, top): (player, slot)."""
    out: dict[HintKey, tuple[str, int]] = {}
    for p in PLAYERS:
        for play in table.legal_plays(p):
            top = table.top(play.pile)
            out[(monitor.game.round, p, play.card.code, play.pile, top.code)] = (p, play.slot)
    return out


class Coach:
    """Hints and explanations for beginners. Call `update(monitor, t)` after each line fed to
    the monitor (and when `deadline()` falls due on a still table); pass each monitor ruling to
    `explain`."""

    def __init__(self, config: CoachConfig | None = None) -> None:
        self.config = config or CoachConfig()
        self._since: dict[HintKey, float] = {}      # available play → log time first seen
        self._slot: dict[HintKey, int] = {}
        self._hinted: set[HintKey] = set()
        self._sure = False  # the last update saw a confirmed table

    def update(self, monitor: "Monitor", t: float) -> list[Ruling]:
        """Hints due at log time `t` from the monitor's confirmed table."""
        table = sure_table(monitor)
        self._sure = table is not None
        if table is None:
            from referee.monitor import Phase

            if monitor.phase is not Phase.PLAYING:
                self._since.clear()  # between rounds: nothing carries over
            return []  # unsure: keep the clocks, say nothing
        now = available_plays(monitor, table)
        self._since = {k: self._since.get(k, t) for k in now}
        self._slot = {k: slot for k, (_, slot) in now.items()}
        out: list[Ruling] = []
        for key in sorted(self._since):
            if key in self._hinted or t < self._since[key] + self.config.hint_after_s:
                continue
            self._hinted.add(key)
            out.append(self._hint(t, key))
        return out

    def deadline(self) -> float | None:
        """The log time of the next hint if the table stays as it is; None when none is due.
        Only plays seen on a confirmed table are timed, so an unsure table gets no hint."""
        if not self._sure:
            return None  # the next line the monitor makes sense of decides
        due = [since + self.config.hint_after_s for k, since in self._since.items()
               if k not in self._hinted]
        return min(due) if due else None

    def restore(self, ruling: Ruling) -> None:
        """A hint already given (read back from a resumed log): never give it again."""
        if ruling.extra.get("coach") == "hint" and "round" in ruling.extra:
            top = ruling.extra.get("top")
            if ruling.player and ruling.card and ruling.to and top:
                self._hinted.add((int(ruling.extra["round"]), ruling.player, ruling.card,
                                  ruling.to, top))

    def _hint(self, t: float, key: HintKey) -> Ruling:
        rnd, player, card, pile, top = key
        slot = self._slot[key]
        return Ruling(t, RulingKind.WARNING, player=player, card=card,
                      from_=STOCK_ZONES[player][slot], to=pile, rule="R10",
                      message=f"{player_name(player)}: your {pretty(card)} goes on the "
                              f"{pretty(top)} (R10)",
                      extra={"coach": "hint", "round": rnd, "top": top})

    @staticmethod
    def explain(ruling: Ruling) -> Ruling | None:
        """The rule behind an illegal, false-spit or false-slap ruling, in plain words; None
        for every other ruling."""
        if ruling.kind not in EXPLAINED_KINDS or "coach" in ruling.extra:
            return None
        kind = ruling.extra.get("illegal_kind") or ruling.kind.value
        rule_text = RULE_TEXT.get(ruling.rule or "")
        what = KIND_TEXT.get(kind)
        if rule_text is None and what is None:
            return None  # a rule the coach has no words for: say nothing rather than guess
        words = " ".join(x for x in (f"Not allowed: {what}" if what else None,
                                     f"The rule ({ruling.rule}): {rule_text}" if rule_text
                                     else None) if x)
        who = f"{player_name(ruling.player)}: " if ruling.player else ""
        return Ruling(ruling.t, RulingKind.WARNING, player=ruling.player, card=ruling.card,
                      rule=ruling.rule, message=who + words,
                      extra={"coach": "explain", "explains": kind})


def is_coach(ruling: Ruling) -> bool:
    """True for the coach's own rulings (they are never the monitor's)."""
    return "coach" in ruling.extra
