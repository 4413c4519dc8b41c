"""Parsing event-log lines (DESIGN.md): typed inputs, and errors that name the line."""
import pytest

from referee.log import (LogLineError, LogReader, ObserveInput, RulingRecord, SlapInput,
                         StartInput, parse_line)
from referee.rulings import RulingKind


def test_observe_line_gives_its_readings_with_card_codes_upper_cased():
    entry = parse_line('{"t": 0.5, "observe": {"p1.stock1": "7h", "spit.left": "empty", '
                       '"p2.stock3": "?", "p2.stock5": "back"}}', 3)
    assert entry == ObserveInput(0.5, {"p1.stock1": "7H", "spit.left": "empty",
                                       "p2.stock3": "?", "p2.stock5": "back"}, 3)


def test_slap_line_gives_player_pile_and_nanoseconds():
    entry = parse_line({"t": 4.21, "slap": {"player": "p1", "pile": "spit.left"}}, 1)
    assert entry == SlapInput(4.21, 4_210_000_000, "p1", "spit.left", 1)


def test_slap_line_keeps_an_exact_nanosecond_stamp_when_given():
    entry = parse_line({"t": 4.21, "slap": {"player": "p2", "pile": "spit.right",
                                           "t_ns": 4_210_000_123}})
    assert entry.t_ns == 4_210_000_123


def test_start_line_gives_counts():
    entry = parse_line('{"t": 0, "start": {"p1": 16, "p2": 36}}')
    assert isinstance(entry, StartInput) and entry.counts == {"p1": 16, "p2": 36}


def test_ruling_line_is_read_as_a_record():
    entry = parse_line('{"t": 1, "ruling": "spit-call", "rule": "R16", "message": "Spit!"}')
    assert isinstance(entry, RulingRecord) and entry.ruling.kind is RulingKind.SPIT_CALL


@pytest.mark.parametrize("line, words", [
    ("{not json", "not JSON"),
    ("[1, 2]", "JSON object"),
    ('{"observe": {}}', '"t"'),
    ('{"t": 1, "observe": {"p3.stock1": "7H"}}', "unknown zone 'p3.stock1'"),
    ('{"t": 1, "observe": {"p1.stock1": "1H"}}', "unknown card code '1H'"),
    ('{"t": 1, "observe": {"p1.stock1": 7}}', "must be a string"),
    ('{"t": 1, "slap": {"player": "p3", "pile": "spit.left"}}', "unknown player"),
    ('{"t": 1, "slap": {"player": "p1", "pile": "p1.stock1"}}', "unknown pile"),
    ('{"t": 1, "start": {"p1": 20, "p2": 20}}', "add up to 52"),
    ('{"t": 1, "hello": 2}', "exactly one of"),
    ('{"t": 1, "ruling": "dance"}', "unknown ruling"),
])
def test_bad_line_error_names_the_line_and_the_problem(line, words):
    with pytest.raises(LogLineError) as info:
        parse_line(line, 7)
    assert info.value.lineno == 7
    assert str(info.value).startswith("line 7: ")
    assert words in str(info.value)


def test_reader_refuses_time_going_backwards_and_keeps_its_clock():
    reader = LogReader()
    reader.read('{"t": 2.0, "observe": {}}')
    with pytest.raises(LogLineError, match="line 2: time goes backwards"):
        reader.read('{"t": 1.0, "observe": {}}')
    # the refused line did not move the clock: a line at t=1.5 is still backwards, 2.5 is fine
    with pytest.raises(LogLineError, match="line 3"):
        reader.read('{"t": 1.5, "observe": {}}')
    assert reader.read('{"t": 2.5, "observe": {}}').t == 2.5


@pytest.mark.parametrize("t", ["1e308", "-1e10", "1" + "0" * 400])
def test_a_time_beyond_292_years_is_refused_as_corrupt(t):
    # 1e308 s made `round(t * 1e9)` overflow in the slap code; a line that far from the clock's
    # start is corrupt, whatever its kind.
    with pytest.raises(LogLineError) as info:
        parse_line(f'{{"t": {t}, "slap": {{"player": "p1", "pile": "spit.left"}}}}', 63)
    assert str(info.value).startswith("line 63: ")
    assert "292 years" in str(info.value) and "corrupt" in str(info.value)


def test_a_unix_time_is_still_a_time():
    assert parse_line('{"t": 1733000000.25, "observe": {}}').t == 1733000000.25


def test_a_slap_stamp_out_of_64_bits_is_refused():
    with pytest.raises(LogLineError, match="t_ns"):
        parse_line({"t": 1.0, "slap": {"player": "p1", "pile": "spit.left", "t_ns": 2**64}}, 2)


def test_a_number_too_long_for_python_is_a_bad_line_not_a_crash():
    with pytest.raises(LogLineError, match="line 5: a number on this line is too long"):
        parse_line('{"t": 1' + "0" * 5000 + ', "observe": {}}', 5)
