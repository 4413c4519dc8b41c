"""Bot players and the game simulator: whole games of Spit played through the rules engine.

The simulator holds what the table hides (the shuffled deck, face-down cards, spit cards in
hand) and drives a public `Table` with moves, exactly as a camera referee would see them. Two
bots play at once on one shared event clock: a priority queue of timed intents. A bot notices a
change after its reaction time, decides, and its card touches the pile after a hand-travel time;
meanwhile the other bot may have changed that pile, so races on one pile really happen and the
later card goes back when it no longer fits (R14). Spits follow the referee's call (R16, R23),
slaps end each round (R18) with nanosecond stamps resolved by `referee.slaps`.

Everything random comes from one `random.Random(seed)`: the same seed gives the same game.
A `GameRecord` holds the timed events (`to_jsonl` / `from_jsonl`) so that the true move list can
be written beside a camera log.
"""
from __future__ import annotations

import heapq
import json
import random
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Iterator, Mapping, Union

from referee.cards import DECK, Card
from referee.errors import UserError
from referee.game import Game, RoundResult, slap_needed
from referee.moves import Move, Play, Spit, TurnUp, move_from_dict, move_to_dict
from referee.rules import RulesConfig, Variant
from referee.slaps import DEFAULT_TIE_WINDOW_NS, Slap, resolve_slaps
from referee.state import DEFAULT_SIDE, Table, Verdict
from referee.zones import PLAYERS, SPIT_PILES, STOCK_ZONES, other_pile, other_player

# A round moves each card at most four times: turned up once, moved into an empty slot at most
# once (bots refill only to uncover a card, and a refilled card sits alone in its slot), played
# once, spat once. So a round has at most 4 × 52 legal moves; more would be an engine bug.
MAX_MOVES_PER_ROUND = 4 * 52
# Looks and touches per round, illegal attempts included. A bot that misses a play looks again,
# so this is not a hard bound; with miss and mistake rates capped at MAX_RATE the expected count
# per round is in the low hundreds, and reaching this means the simulation is stuck.
MAX_EVENTS_PER_ROUND = 20_000
# Rounds per game. The points variant ends within 2 × points_limit rounds (every round scores
# at least one point to someone) unless ties play on; standard games have no proven bound, but
# over 10,000 seeds (bench/rules.py) they took 6.3 rounds on average and 37 at most, so 1,000
# means a stuck game, never a long one.
MAX_ROUNDS = 1_000
# Re-slaps after "too close to call" (R18). Two independent hands land within the 0.5 ms tie
# window a few times in a thousand, so 100 in a row means the slap timing is broken.
MAX_RESLAPS = 100
# Miss and mistake rates above this would let a game stall for ever (a bot that never plays).
MAX_RATE = 0.9


class SimulationError(UserError, RuntimeError):
    """Bad simulator settings (a rate outside 0..0.9, a negative time)."""


class ConservationError(RuntimeError):
    """The simulator lost or duplicated a card: an engine bug, never a user error."""


class StuckGameError(RuntimeError):
    """A game passed a hard cap (moves, events or rounds per game): an engine bug."""


# --- settings -----------------------------------------------------------------------------------

# A player's time from a slap call ("Slap!", "Slap again!") to the hand on the pad (R18), on
# average: the bots' default, and the answer referee.obslog and the demo give "Slap again!".
SLAP_S = 0.3

@dataclass(frozen=True, slots=True)
class BotConfig:
    """One bot's speed and skill. Times in seconds; each delay is drawn from a normal
    distribution with the given mean and spread, clipped at `min_delay_s`."""

    # From a change on the table to the bot deciding what to do (a human sees a new spit card
    # and finds a play in roughly half a second).
    reaction_s: float = 0.55
    reaction_spread_s: float = 0.2
    # Hand travel from deciding to the card touching the pile (R14: touch time counts).
    move_s: float = 0.25
    move_spread_s: float = 0.06
    # From the slap call to the hand on the pad (R18); fast, so slaps are often close.
    slap_s: float = SLAP_S
    slap_spread_s: float = 0.06
    # Probability, at each look, of not seeing a play (or uncover move) that is there.
    miss_rate: float = 0.1
    # Probability, at each look, of dropping an illegal card on a spit pile (ruled, taken back),
    # and at each round end of slapping before the call (a false slap, R18).
    mistake_rate: float = 0.0
    # Probability of slapping the larger spit pile instead of the smaller (R18).
    slap_error_rate: float = 0.1
    # From an illegal card touching the pile to it being back on its stockpile.
    take_back_s: float = 1.0
    min_delay_s: float = 0.05

    def __post_init__(self) -> None:
        for name in ("miss_rate", "mistake_rate", "slap_error_rate"):
            v = getattr(self, name)
            if not 0.0 <= v <= MAX_RATE:
                raise SimulationError(f"bot {name} must be between 0 and {MAX_RATE}, got {v}: "
                                      "above that a bot may never play and the game stalls")
        for name in ("reaction_s", "reaction_spread_s", "move_s", "move_spread_s", "slap_s",
                     "slap_spread_s", "take_back_s", "min_delay_s"):
            if getattr(self, name) < 0:
                raise SimulationError(f"bot {name} must be >= 0 seconds, got {getattr(self, name)}")


@dataclass(frozen=True, slots=True)
class SimConfig:
    """The simulated referee's timing and the checks the simulator runs."""

    rules: RulesConfig = field(default_factory=RulesConfig)
    bots: tuple[BotConfig, BotConfig] = (BotConfig(), BotConfig())
    # R23: "Spit!" once R16 has held for this long (seconds of game time); the same settle
    # time prompts a player who only has uncover moves left, and a second one calls spit anyway.
    settle_s: float = 1.5
    # Time between a round's result and the next deal (gathering, shuffling, dealing: R19).
    ready_s: float = 20.0
    # Slap pads' tie window (R18): two slaps on one pile closer than this are slapped again.
    tie_window_ns: int = DEFAULT_TIE_WINDOW_NS
    # Check the 52 cards (public count and hidden identities) after every move.
    check_conservation: bool = True


# --- the record ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RoundStart:
    t: float
    number: int
    counts: Mapping[str, int]
    layouts: Mapping[str, tuple[int, ...]]
    tops: Mapping[str, str]  # zone -> card code turned up at the deal (R5)


@dataclass(frozen=True, slots=True)
class Moved:
    t: float
    move: Move


@dataclass(frozen=True, slots=True)
class Attempt:
    """An illegal card a bot dropped on a spit pile (a mistake, or a lost race, R14): ruled
    by `verdict` and back on its stockpile at `taken_back_t`. The table never held it."""

    t: float
    move: Move
    verdict: Verdict
    taken_back_t: float


@dataclass(frozen=True, slots=True)
class SpitCall:
    t: float
    forced: bool = False  # called after the R16 prompt although uncover moves were left


@dataclass(frozen=True, slots=True)
class Prompt:
    """R16 Decision: only uncover moves left for the settle time; the referee prompts."""

    t: float
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SlapCall:
    t: float


@dataclass(frozen=True, slots=True)
class SlapMade:
    """One pad's first edge (R18), as `referee.slaps.Slap`; `false` when before the call."""

    slap: Slap
    false: bool = False

    @property
    def t(self) -> float:
        return self.slap.t_ns / 1e9


@dataclass(frozen=True, slots=True)
class SlapResult:
    t: float
    piles: Mapping[str, str]
    margin_ns: int
    too_close: bool


@dataclass(frozen=True, slots=True)
class RoundOver:
    t: float
    number: int
    case: str
    cleared_by: str | None
    single_pile: bool
    held: Mapping[str, int]
    piles_taken: Mapping[str, str]
    counts: Mapping[str, int]
    scores: Mapping[str, int]
    fresh_deal: bool = False


@dataclass(frozen=True, slots=True)
class GameEnd:
    t: float
    winner: str | None
    scores: Mapping[str, int]
    rule: str


Event = Union[RoundStart, Moved, Attempt, SpitCall, Prompt, SlapCall, SlapMade, SlapResult,
              RoundOver, GameEnd]

_EVENT_TYPES: dict[str, type] = {
    "round-start": RoundStart, "move": Moved, "attempt": Attempt, "spit-call": SpitCall,
    "prompt": Prompt, "slap-call": SlapCall, "slap": SlapMade, "slap-result": SlapResult,
    "round-over": RoundOver, "game-end": GameEnd,
}
_TYPE_NAMES = {v: k for k, v in _EVENT_TYPES.items()}


def event_to_dict(e: Event) -> dict[str, Any]:
    d: dict[str, Any] = {"type": _TYPE_NAMES[type(e)]}
    if type(e) is SlapMade:
        d.update(t=e.t, t_ns=e.slap.t_ns, player=e.slap.player, pile=e.slap.pile, false=e.false)
        return d
    for name in e.__slots__:  # type: ignore[union-attr]
        v = getattr(e, name)
        if name == "move":
            v = move_to_dict(v)
        elif name == "verdict":
            v = {"ok": v.ok, "rule": v.rule, "kind": v.kind, "message": v.message}
        elif isinstance(v, Mapping):
            v = {k: (list(x) if isinstance(x, tuple) else x) for k, x in v.items()}
        elif isinstance(v, tuple):
            v = list(v)
        d[name] = v
    return d


def event_from_dict(d: Mapping[str, Any]) -> Event:
    try:
        cls = _EVENT_TYPES[d["type"]]
    except (KeyError, TypeError):
        raise SimulationError(f"not a game-record event: {d!r}") from None
    if cls is SlapMade:
        return SlapMade(Slap(d["t_ns"], d["player"], d["pile"]), d.get("false", False))
    kwargs = {}
    for name in cls.__slots__:
        v = d[name]
        if name == "move":
            v = move_from_dict(v)
        elif name == "verdict":
            v = Verdict(v["ok"], v["rule"], v["kind"], v["message"])
        elif name == "layouts":
            v = {k: tuple(x) for k, x in v.items()}
        elif name == "players":
            v = tuple(v)
        kwargs[name] = v
    return cls(**kwargs)


def event_time(e: Event) -> float:
    return e.t


@dataclass
class GameRecord:
    """One simulated game: its seed and settings, the timed events in time order, and the
    result. `finished` is False only if the simulator hit a cap or lost a card (a bug)."""

    seed: int
    rules: RulesConfig
    events: list[Event] = field(default_factory=list)
    finished: bool = False
    winner: str | None = None
    scores: dict[str, int] = field(default_factory=dict)
    rounds: int = 0
    conservation_ok: bool = True
    error: str | None = None

    def count(self, kind: type) -> int:
        return sum(1 for e in self.events if type(e) is kind)

    @property
    def moves(self) -> list[Move]:
        return [e.move for e in self.events if type(e) is Moved]

    @property
    def plays(self) -> int:
        return sum(1 for e in self.events if type(e) is Moved and type(e.move) is Play)

    @property
    def spits(self) -> int:
        return sum(1 for e in self.events if type(e) is Moved and type(e.move) is Spit)

    @property
    def slaps(self) -> int:
        return self.count(SlapMade)

    @property
    def attempts(self) -> int:
        return self.count(Attempt)

    def moves_per_round(self) -> list[int]:
        """Legal moves in each finished round (checked against MAX_MOVES_PER_ROUND)."""
        counts, n = [], 0
        for e in self.events:
            if type(e) is RoundStart:
                n = 0
            elif type(e) is Moved:
                n += 1
            elif type(e) is RoundOver:
                counts.append(n)
        return counts

    def to_jsonl(self) -> str:
        head = {"type": "game", "seed": self.seed, "rules": self.rules.to_dict(),
                "finished": self.finished, "winner": self.winner, "scores": self.scores,
                "rounds": self.rounds, "conservation_ok": self.conservation_ok,
                "error": self.error}
        lines = [json.dumps(head, ensure_ascii=False)]
        lines.extend(json.dumps(event_to_dict(e), ensure_ascii=False) for e in self.events)
        return "\n".join(lines) + "\n"

    @classmethod
    def from_jsonl(cls, text: str) -> "GameRecord":
        lines = [ln for ln in text.splitlines() if ln.strip()]
        try:
            head = json.loads(lines[0])
            if head.get("type") != "game":
                raise SimulationError("a game record starts with a {\"type\": \"game\"} line")
            rec = cls(seed=head["seed"], rules=RulesConfig.from_dict(head["rules"]),
                      finished=head["finished"], winner=head["winner"],
                      scores=dict(head["scores"]), rounds=head["rounds"],
                      conservation_ok=head["conservation_ok"], error=head.get("error"))
            rec.events = [event_from_dict(json.loads(ln)) for ln in lines[1:]]
        except (IndexError, KeyError, ValueError, TypeError) as exc:
            if isinstance(exc, UserError):
                raise
            raise SimulationError(f"not a game record ({exc!r}): write one with "
                                  "GameRecord.to_jsonl") from None
        return rec


# --- the simulator ------------------------------------------------------------------------------

# Event-queue intents. A tuple (t, seq, kind, player, data, generation) keeps heapq cheap; seq
# breaks ties in time deterministically, and events of an earlier round carry an old generation.
_LOOK, _TOUCH, _SETTLE = 0, 1, 2
_SPIT = "spit"  # the intent of a bot about to spit


class _Bot:
    __slots__ = ("player", "cfg", "busy")

    def __init__(self, player: str, cfg: BotConfig) -> None:
        self.player = player
        self.cfg = cfg
        self.busy = False


class Simulator:
    """Plays one game; `run()` returns its GameRecord."""

    def __init__(self, seed: int, config: SimConfig | None = None) -> None:
        self.seed = seed
        self.cfg = config or SimConfig()
        self.rng = random.Random(seed)
        self.game = Game(self.cfg.rules)
        self.bots = {p: _Bot(p, c) for p, c in zip(PLAYERS, self.cfg.bots)}
        self.record = GameRecord(seed=seed, rules=self.cfg.rules)
        self.t = 0.0
        # Hidden identities: face-down cards per slot (top last) and spit cards (top last).
        self.down: dict[str, list[list[Card]]] = {}
        self.hand: dict[str, list[Card]] = {}
        self.table: Table | None = None
        self._heap: list[tuple] = []
        self._seq = 0
        self._gen = 0
        self._version = 0
        self._moves = 0
        self._events = 0

    # -- clock ---------------------------------------------------------------------------------

    def _delay(self, mean: float, spread: float, cfg: BotConfig) -> float:
        d = self.rng.gauss(mean, spread)
        return d if d > cfg.min_delay_s else cfg.min_delay_s

    def _at(self, t: float, kind: int, player: str | None, data: Any = None) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, kind, player, data, self._gen))

    # -- game ----------------------------------------------------------------------------------

    def run(self) -> GameRecord:
        rec = self.record
        try:
            deck = list(DECK)
            self.rng.shuffle(deck)
            # R4: deal 26 cards to each player, alternately.
            cards = {PLAYERS[0]: deck[0::2], PLAYERS[1]: deck[1::2]}
            while True:
                if self.game.round >= MAX_ROUNDS:
                    raise StuckGameError(f"game passed {MAX_ROUNDS} rounds")
                result = self._play_round(cards)
                if result.game_over is not None:
                    rec.winner = result.game_over.winner
                    rec.scores = dict(result.game_over.scores)
                    rec.events.append(GameEnd(self.t, rec.winner, rec.scores,
                                              result.game_over.rule))
                    rec.finished = True
                    break
                cards = self._gather(result)
                self.t += self.cfg.ready_s
        except ConservationError as exc:
            rec.conservation_ok = False
            rec.error = f"conservation: {exc}"
        except StuckGameError as exc:
            rec.error = f"stuck: {exc}"
        rec.rounds = self.game.round
        rec.events.sort(key=event_time)  # false slaps are stamped before the moves they follow
        return rec

    def _gather(self, result: RoundResult) -> dict[str, list[Card]]:
        """Each player's cards for the next round: stock and spit cards left, plus the spit
        pile(s) taken (R19); a fresh deal when the points variant restarts (R22)."""
        t = self.table
        if result.fresh_deal:
            deck = list(DECK)
            self.rng.shuffle(deck)
            return {PLAYERS[0]: deck[0::2], PLAYERS[1]: deck[1::2]}
        cards: dict[str, list[Card]] = {}
        for p in PLAYERS:
            mine = list(self.hand[p])
            for i, s in enumerate(t.slots[p]):
                mine.extend(self.down[p][i])
                mine.extend(s.under)
                if s.up is not None:
                    mine.append(s.up)
            cards[p] = mine
        for pile, p in result.piles_taken.items():
            cards[p].extend(t.piles[pile])
        for p in PLAYERS:
            if len(cards[p]) != result.counts[p]:
                raise ConservationError(f"{p} gathers {len(cards[p])} cards, the referee "
                                        f"counts {result.counts[p]}")
        return cards

    def _play_round(self, cards: dict[str, list[Card]]) -> RoundResult:
        self._gen += 1
        self._heap = []
        self._moves = 0
        self._events = 0
        for bot in self.bots.values():
            bot.busy = False
        for p in PLAYERS:
            self.rng.shuffle(cards[p])  # R19: each player shuffles their cards
        table = self.game.new_table()
        self.table = table
        tops: dict[str, str] = {}
        layouts: dict[str, tuple[int, ...]] = {}
        for p in PLAYERS:
            mine = cards[p]
            pos = 0
            self.down[p] = []
            for i, s in enumerate(table.slots[p]):
                self.down[p].append(mine[pos:pos + s.down])
                pos += s.down
            self.hand[p] = mine[pos:]
            layouts[p] = tuple(s.down for s in table.slots[p])
            # R5: the top card of every stockpile is turned face up.
            for i, s in enumerate(table.slots[p]):
                if s.down:
                    card = self.down[p][i].pop()
                    table.apply(TurnUp(p, i, card))
                    tops[STOCK_ZONES[p][i]] = card.code
        self.record.events.append(RoundStart(self.t, self.game.round,
                                             dict(self.game.counts), layouts, tops))
        self._check_cards()
        # R8: the bots look at the new layout (a short one may need a refill first, R7/R12);
        # "Spit!" is called once nobody can play for the settle time, as at every spit (R16).
        self._changed()
        while True:
            if not self._heap:
                raise StuckGameError(f"round {self.game.round}: nothing left to happen but "
                                     f"no round end: {table!r}")
            t, _seq, kind, player, data, gen = heapq.heappop(self._heap)
            if gen != self._gen:
                continue
            self._events += 1
            if self._events > MAX_EVENTS_PER_ROUND:
                raise StuckGameError(f"round {self.game.round} passed {MAX_EVENTS_PER_ROUND} "
                                     "events")
            self.t = t
            if kind == _LOOK:
                self._look(self.bots[player])
            elif kind == _TOUCH:
                if self._touch(self.bots[player], data):
                    end = table.round_end()  # only a move can end the round (R17)
                    if end is not None:
                        return self._end_round(end)
            elif kind == _SETTLE:
                self._settle(data)

    # -- bots ----------------------------------------------------------------------------------

    def _changed(self) -> None:
        """The table changed: idle bots will notice after their reaction time, and the referee
        starts a settle timer when R16 holds or only uncover moves are left."""
        self._version += 1
        t = self.t
        for bot in self.bots.values():
            if not bot.busy:
                bot.busy = True
                c = bot.cfg
                self._at(t + self._delay(c.reaction_s, c.reaction_spread_s, c), _LOOK,
                         bot.player)
        table = self.table
        if not table.pending_spits and (table.spit_hand[PLAYERS[0]]
                                        or table.spit_hand[PLAYERS[1]]):
            if not (table.can_play(PLAYERS[0]) or table.can_play(PLAYERS[1])):
                self._at(t + self.cfg.settle_s, _SETTLE, None, (self._version, 1))

    def _look(self, bot: _Bot) -> None:
        bot.busy = False
        table, p, c, rng = self.table, bot.player, bot.cfg, self.rng
        if p in table.pending_spits and table.spit_hand[p]:
            self._plan(bot, _SPIT)
            return
        if c.mistake_rate and rng.random() < c.mistake_rate:
            wrong = self._wrong_play(p)
            if wrong is not None:
                self._plan(bot, wrong)
                return
        plays = table.legal_plays(p)
        if plays:
            if rng.random() < c.miss_rate:
                self._relook(bot)
            else:
                self._plan(bot, plays[rng.randrange(len(plays))] if len(plays) > 1 else plays[0])
            return
        if table.can_uncover(p):
            if rng.random() < c.miss_rate:
                self._relook(bot)
            else:
                # Turn-ups are listed first: the cheapest way to uncover a card.
                self._plan(bot, table.uncover_moves(p)[0])
            return
        # Nothing to do: stay idle until the table changes or the referee calls.

    def _wrong_play(self, p: str) -> Play | None:
        table = self.table
        adj = table._adj
        options = []
        for i, s in enumerate(table.slots[p]):
            if s.up is None:
                continue
            for pile in SPIT_PILES:
                top = table.top(pile)
                if top is not None and not adj[s.up.rank][top.rank]:
                    options.append(Play(p, i, pile, s.up))
        return options[self.rng.randrange(len(options))] if options else None

    def _relook(self, bot: _Bot) -> None:
        bot.busy = True
        c = bot.cfg
        self._at(self.t + self._delay(c.reaction_s, c.reaction_spread_s, c), _LOOK, bot.player)

    def _plan(self, bot: _Bot, intent: Any) -> None:
        bot.busy = True
        c = bot.cfg
        self._at(self.t + self._delay(c.move_s, c.move_spread_s, c), _TOUCH, bot.player, intent)

    def _touch(self, bot: _Bot, intent: Any) -> bool:
        """The bot's card touches down now (R14): legal moves stand, an illegal card is ruled
        and goes back to its stockpile."""
        bot.busy = False
        p, table = bot.player, self.table
        if intent is _SPIT:
            if not (p in table.pending_spits and table.spit_hand[p]):
                self._relook(bot)
                return False
            pile = table.side[p] or DEFAULT_SIDE[p]
            if table.config.spit_onto_own_side and table.side[p] is None:
                other = table.side[other_player(p)]
                if other == pile:
                    pile = other_pile(pile)
            move: Move = Spit(p, pile, self.hand[p][-1])
        elif type(intent) is TurnUp:
            move = TurnUp(p, intent.slot, self.down[p][intent.slot][-1])
        else:
            move = intent
        verdict = table.check(move)
        if not verdict.ok:
            back = self.t + bot.cfg.take_back_s
            self.record.events.append(Attempt(self.t, move, verdict, back))
            bot.busy = True
            self._at(back, _LOOK, p)
            return False
        table.apply(move)
        t = type(move)
        if t is TurnUp:
            self.down[p][move.slot].pop()
        elif t is Spit:
            self.hand[p].pop()
        self.record.events.append(Moved(self.t, move))
        self._moves += 1
        if self._moves > MAX_MOVES_PER_ROUND:
            raise StuckGameError(f"round {self.game.round} passed {MAX_MOVES_PER_ROUND} moves")
        if self.cfg.check_conservation:
            self._check_cards()
        self._changed()
        return True

    # -- the simulated referee ---------------------------------------------------------------

    def _settle(self, data: tuple[int, int]) -> None:
        version, stage = data
        if version != self._version:
            return  # something happened since: the settle time starts again
        table = self.table
        if table.spit_due():
            self._call_spit(forced=False)
        elif stage == 1 and not table.pending_spits and not (
                table.can_play(PLAYERS[0]) or table.can_play(PLAYERS[1])):
            # Only uncover moves are left (R16 Decision): prompt, and call spit if nothing
            # changes within a second settle time.
            who = tuple(p for p in PLAYERS if table.can_uncover(p))
            self.record.events.append(Prompt(self.t, who))
            self._at(self.t + self.cfg.settle_s, _SETTLE, None, (version, 2))
        elif stage == 2 and not table.pending_spits:
            self._call_spit(forced=True)

    def _call_spit(self, forced: bool) -> None:
        table = self.table
        if not (table.spit_hand[PLAYERS[0]] or table.spit_hand[PLAYERS[1]]):
            return
        if not forced and not table.spit_due():
            return
        table.call_spit()
        self.record.events.append(SpitCall(self.t, forced))
        for p in PLAYERS:  # in seat order: a set's order changes with the hash seed
            if p not in table.pending_spits:
                continue
            bot = self.bots[p]
            if not bot.busy:
                self._relook(bot)

    def _end_round(self, end) -> RoundResult:
        self._gen += 1  # every bot intent of this round is void
        table = self.table
        t_end = self.t
        outcome = None
        if slap_needed(table, end):
            for p, bot in self.bots.items():
                # A false slap (R18): the bot anticipates the end and slaps before the call.
                if bot.cfg.mistake_rate and self.rng.random() < bot.cfg.mistake_rate:
                    early = max(0.0, t_end - self._delay(0.3, 0.1, bot.cfg))
                    pile = SPIT_PILES[self.rng.randrange(2)]
                    self.record.events.append(SlapMade(Slap(_ns(early), p, pile), True))
            reslaps = 0
            while True:
                self.record.events.append(SlapCall(self.t))
                slaps = [self._slap(bot) for bot in self.bots.values()]
                for s in sorted(slaps, key=lambda s: s.t_ns):
                    self.record.events.append(SlapMade(s))
                outcome = resolve_slaps(slaps[0], slaps[1], self.cfg.tie_window_ns)
                self.t = max(s.t_ns for s in slaps) / 1e9
                self.record.events.append(SlapResult(self.t, dict(outcome.piles),
                                                     outcome.margin_ns, outcome.too_close))
                if not outcome.too_close:
                    break
                reslaps += 1
                if reslaps > MAX_RESLAPS:
                    raise StuckGameError(f"{MAX_RESLAPS} slaps in a row too close to call")
                self.t += 1.0  # the referee asks for a re-slap
        result = self.game.finish_round(table, outcome)
        self.record.events.append(RoundOver(
            self.t, result.number, end.case.value, end.player, end.single_pile,
            dict(result.held), dict(result.piles_taken), dict(result.counts),
            dict(result.scores), result.fresh_deal))
        return result

    def _slap(self, bot: _Bot) -> Slap:
        """R18: each player tries to slap the smaller spit pile."""
        table, c = self.table, bot.cfg
        sizes = {pile: len(table.piles[pile]) for pile in SPIT_PILES}
        left, right = SPIT_PILES
        if sizes[left] == sizes[right]:
            pile = SPIT_PILES[self.rng.randrange(2)]
        else:
            pile = left if sizes[left] < sizes[right] else right
            if self.rng.random() < c.slap_error_rate:
                pile = right if pile == left else left
        t = self.t + self._delay(c.slap_s, c.slap_spread_s, c)
        return Slap(_ns(t), bot.player, pile)

    # -- invariants ----------------------------------------------------------------------------

    def _check_cards(self) -> None:
        """All 52 cards accounted for (R1): the public count, the hidden counts against the
        Table's, and the multiset of identities against the deck."""
        table = self.table
        if table.card_count() != 52:
            raise ConservationError(f"the table counts {table.card_count()} cards")
        every = table.visible_cards()
        for p in PLAYERS:
            if len(self.hand[p]) != table.spit_hand[p]:
                raise ConservationError(f"{p} holds {len(self.hand[p])} spit cards, the table "
                                        f"says {table.spit_hand[p]}")
            every.extend(self.hand[p])
            for i, s in enumerate(table.slots[p]):
                hidden = self.down[p][i]
                if len(hidden) != s.down:
                    raise ConservationError(f"{p} slot {i} hides {len(hidden)} cards, the table "
                                            f"says {s.down}")
                every.extend(hidden)
        # Identity, not equality: every card object is one of DECK's 52, so a copied or
        # invented card fails too, and ids hash far faster than Card values.
        if len(every) != 52 or set(map(id, every)) != _DECK_IDS:
            missing = _DECK_SET - set(every)
            dupes = [c.code for c, n in Counter(every).items() if n > 1]
            raise ConservationError(f"cards missing {sorted(c.code for c in missing)}, "
                                    f"twice {dupes}")


_DECK_SET = frozenset(DECK)
_DECK_IDS = frozenset(map(id, DECK))


def _ns(t: float) -> int:
    return int(round(t * 1e9))


def simulate_game(seed: int, config: SimConfig | None = None) -> GameRecord:
    """Play one whole game; the same seed and config give the same record."""
    return Simulator(seed, config).run()


def game_seed(seed: int, index: int) -> int:
    """The seed of game `index` in a run started with `seed` (stable across versions)."""
    return seed * 1_000_003 + index


@dataclass
class Summary:
    """What `spit-referee simulate` prints."""

    games: int = 0
    finished: int = 0
    winners: dict[str, int] = field(default_factory=lambda: {"p1": 0, "p2": 0, "draw": 0})
    rounds: int = 0
    max_rounds: int = 0
    plays: int = 0
    spits: int = 0
    slaps: int = 0
    attempts: int = 0
    conservation_ok: bool = True
    errors: list[str] = field(default_factory=list)

    def add(self, rec: GameRecord) -> None:
        self.games += 1
        if rec.finished:
            self.finished += 1
            self.winners[rec.winner or "draw"] += 1
        self.rounds += rec.rounds
        self.max_rounds = max(self.max_rounds, rec.rounds)
        self.plays += rec.plays
        self.spits += rec.spits
        self.slaps += rec.slaps
        self.attempts += rec.attempts
        self.conservation_ok &= rec.conservation_ok
        if rec.error:
            self.errors.append(f"seed {rec.seed}: {rec.error}")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["errors"] = self.errors[:20]
        return d


def run_games(games: int, seed: int, config: SimConfig | None = None,
              on_record: Any = None) -> Summary:
    """Play `games` games (seeds `game_seed(seed, i)`) and summarise them. `on_record(i, seed,
    record)` is called after each game (the CLI writes logs with it)."""
    if games < 0:
        raise SimulationError(f"number of games must be >= 0, got {games}")
    summary = Summary()
    for i in range(games):
        s = game_seed(seed, i)
        rec = simulate_game(s, config)
        summary.add(rec)
        if on_record is not None:
            on_record(i, s, rec)
    return summary


def format_summary(summary: Summary, seed: int, variant: str) -> str:
    s = summary
    w = s.winners
    mean = s.rounds / s.games if s.games else 0.0
    lines = [
        f"{s.games} game(s), seed {seed}, {variant} variant",
        f"finished:  {s.finished}/{s.games}",
        f"winners:   p1 {w['p1']}, p2 {w['p2']}, draws {w['draw']}",
        f"rounds:    {s.rounds} ({mean:.1f} per game, at most {s.max_rounds})",
        f"plays:     {s.plays}",
        f"spits:     {s.spits}",
        f"slaps:     {s.slaps}",
        f"illegal attempts taken back: {s.attempts}",
        "invariant: all 52 cards accounted for at every step: "
        + ("ok" if s.conservation_ok else "FAILED"),
    ]
    lines += [f"error: {e}" for e in s.errors[:20]]
    return "\n".join(lines)


def config_for_variant(variant: str, **bot_overrides: Any) -> SimConfig:
    try:
        v = Variant(variant)
    except ValueError:
        raise SimulationError(f"unknown variant {variant!r}: use standard or points") from None
    bot = replace(BotConfig(), **bot_overrides)
    return SimConfig(rules=RulesConfig(variant=v), bots=(bot, bot))


def replay(record: GameRecord) -> Iterator[tuple[Event, Table]]:
    """Re-run a record through a fresh rules engine, independently of the simulator: every
    recorded move is pushed (so it must be legal), every attempt must be refused, and each
    round's result must give the recorded counts. Yields each event with the table after it.
    Raises IllegalMove or ReplayError where the record and the rules disagree."""
    game = Game(record.rules)
    table: Table | None = None
    counted: list[Slap] = []
    outcome = None
    for e in record.events:
        kind = type(e)
        if kind is RoundStart:
            table = game.new_table(e.layouts)
            if dict(e.counts) != game.counts:
                raise ReplayError(f"round {e.number} deals {dict(e.counts)}, the previous "
                                  f"round left {game.counts}")
            for zone, code in e.tops.items():
                p, _, n = zone.partition(".stock")
                table.push(TurnUp(p, int(n) - 1, Card.parse(code)))
        elif kind is Moved:
            table.push(e.move)
        elif kind is Attempt:
            if table.check(e.move).ok:
                raise ReplayError(f"attempt at t={e.t:.3f} is legal: {e.move}")
        elif kind is SpitCall:
            if not e.forced and not table.spit_due():
                raise ReplayError(f"spit called at t={e.t:.3f} but R16 does not hold")
            table.call_spit()
        elif kind is SlapCall:
            counted = []
        elif kind is SlapMade and not e.false:
            counted.append(e.slap)
            if len(counted) == 2:
                outcome = resolve_slaps(counted[0], counted[1], DEFAULT_TIE_WINDOW_NS)
        elif kind is RoundOver:
            result = game.finish_round(table, outcome)
            if dict(result.counts) != dict(e.counts):
                raise ReplayError(f"round {e.number} ends with counts {dict(result.counts)}, "
                                  f"the record says {dict(e.counts)}")
            outcome = None
        yield e, table


class ReplayError(RuntimeError):
    """A game record that the rules engine does not reproduce."""
