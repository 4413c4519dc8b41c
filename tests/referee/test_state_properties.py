"""Bad input never corrupts the table: random moves on positions reached in real games."""
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import DECK
from referee.moves import Play, Refill, Spit, TakeBack, TurnUp
from referee.simulate import BotConfig, SimConfig, replay, simulate_game
from referee.state import IllegalMove, Table
from referee.zones import PLAYERS, SPIT_PILES

PLAYER = st.sampled_from(PLAYERS)
PILE = st.sampled_from(SPIT_PILES)
SLOT = st.integers(min_value=0, max_value=5)  # 5 is a sixth stockpile (R13)
CARD = st.sampled_from(DECK)
MOVES = st.one_of(
    st.builds(Play, PLAYER, st.one_of(st.none(), SLOT), PILE, CARD),
    st.builds(TurnUp, PLAYER, SLOT, CARD),
    st.builds(Refill, PLAYER, SLOT, SLOT, CARD),
    st.builds(Spit, PLAYER, PILE, CARD),
    st.builds(TakeBack, PLAYER, PILE, st.one_of(st.none(), SLOT), CARD),
)
_GAMES = {}


def _positions(seed: int) -> list[Table]:
    if seed not in _GAMES:
        bot = BotConfig(mistake_rate=0.2)
        rec = simulate_game(seed, SimConfig(bots=(bot, bot)))
        _GAMES[seed] = [t.copy() for _e, t in replay(rec)]
    return _GAMES[seed]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 4), st.integers(0, 10_000), st.lists(MOVES, min_size=1, max_size=8))
def test_refused_moves_leave_the_table_unchanged_and_accepted_ones_keep_52_cards(
        seed, index, moves):
    positions = _positions(seed)
    table = positions[index % len(positions)].copy()
    for move in moves:
        before = table.to_dict()
        verdict = table.check(move)
        assert table.to_dict() == before  # check never changes anything
        if verdict.ok:
            table.push(move)
        else:
            # R24: the rule in brackets, and after the dash what the player must do.
            assert f"({verdict.rule})" in verdict.message and " — " in verdict.message
            try:
                table.push(move)
            except IllegalMove as exc:
                assert exc.verdict == verdict
            else:
                raise AssertionError(f"{move} was pushed although refused: {verdict}")
            assert table.to_dict() == before
        assert table.card_count() == 52
        visible = table.visible_cards()
        assert len(visible) == len(set(visible))  # never two of one card (R1)
