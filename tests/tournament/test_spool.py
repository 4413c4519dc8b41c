"""The publisher's spool: crash-safe, bounded, in order, resends rather than loses."""
from __future__ import annotations

import json

from tournament.spool import ACKED_FILE, SPOOL_FILE, Spool


def ruling(i: int) -> dict:
    return {"t": float(i), "ruling": "play", "player": "p1", "card": "7H"}


def filled(path, n: int, **options) -> Spool:
    """A spool in `path` holding rulings 0..n-1 of table-1 (seq 1..n)."""
    s = Spool(path, **options)
    for i in range(n):
        s.append("table-1", ruling(i), 0.0)
    return s


def test_unacknowledged_rulings_survive_a_restart_in_order(tmp_path) -> None:
    s = filled(tmp_path, 10)
    s.acknowledge(4)
    s.close()
    again = Spool(tmp_path)
    assert [m["seq"] for m in again.pending(0, 100)] == [5, 6, 7, 8, 9, 10]
    assert again.stream == s.stream
    assert again.append("table-1", ruling(10), 0.0)["seq"] == 11


def test_a_torn_last_line_is_cut_off(tmp_path) -> None:
    s = filled(tmp_path, 3)
    s.close()
    with open(tmp_path / SPOOL_FILE, "ab") as f:
        f.write(b'{"stream": "x", "seq": 4, "rul')  # the crash came mid-write
    again = Spool(tmp_path)
    assert [m["seq"] for m in again.pending(0, 100)] == [1, 2, 3]
    assert again.append("table-1", ruling(3), 0.0)["seq"] == 4
    again.close()
    lines = (tmp_path / SPOOL_FILE).read_text().splitlines()
    assert [json.loads(x)["seq"] for x in lines] == [1, 2, 3, 4]


def test_a_damaged_ack_file_resends_everything(tmp_path) -> None:
    s = filled(tmp_path, 3)
    s.acknowledge(3)
    s.close()
    (tmp_path / ACKED_FILE).write_text("garbage")
    assert [m["seq"] for m in Spool(tmp_path).pending(0, 100)] == [1, 2, 3]


def test_a_full_spool_refuses_but_keeps_the_seq_gap_visible(tmp_path) -> None:
    s = Spool(tmp_path, max_pending=3)
    got = [s.append("table-1", ruling(i), 0.0) for i in range(5)]
    assert [m and m["seq"] for m in got] == [1, 2, 3, None, None]
    assert s.stats().overflowed == 2
    s.acknowledge(3)
    assert s.append("table-1", ruling(5), 0.0)["seq"] == 6


def test_acknowledged_lines_are_compacted_away(tmp_path) -> None:
    s = filled(tmp_path, 8, compact_after=5)
    s.acknowledge(6)
    s.close()
    lines = (tmp_path / SPOOL_FILE).read_text().splitlines()
    assert [json.loads(x)["seq"] for x in lines] == [7, 8]
    assert Spool(tmp_path).last_seq == 8
