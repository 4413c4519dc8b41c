"""The live terminal view draws the table as read, the rulings and the counts."""
import io

from rich.console import Console

from referee.live.view import LiveView, PlainView, make_view
from referee.monitor import Monitor
from referee.rulings import Ruling, RulingKind

LAYOUT = {"p1.stock1": "7H", "p1.stock2": "back", "p1.stock3": "back", "p1.stock4": "back",
          "p1.stock5": "back", "p2.stock1": "KC", "p2.stock2": "back", "p2.stock3": "back",
          "p2.stock4": "back", "p2.stock5": "back", "spit.left": "empty", "spit.right": "empty"}


def test_live_view_shows_the_table_rulings_and_counts():
    out = io.StringIO()
    monitor = Monitor()
    rulings = monitor.feed({"t": 1.0, "observe": LAYOUT})
    view = LiveView(console=Console(file=out, force_terminal=True, width=100))
    with view:
        for r in rulings:
            view.announce(r)
        view.announce(Ruling(2.0, RulingKind.ILLEGAL, "p2", "9C", "p2.stock1", "spit.left",
                             "R10", "P2: 9♣ on 6♦ is not adjacent (R10) — take it back"))
        view.update(monitor, 2.5, force=True)
    text = out.getvalue()
    assert "7♥" in text and "K♣" in text
    assert "not adjacent (R10)" in text
    assert "P1" in text and "P2" in text


def test_plain_view_prints_one_line_per_ruling():
    out = io.StringIO()
    view = PlainView(out)
    view.announce(Ruling(3.25, RulingKind.SPIT_CALL, rule="R16", message="Nobody can play: Spit!"))
    view.announce(Ruling(65.75, RulingKind.SPIT, "p1", rule="R8", message="P1 spits 7♥"))
    # The game's clock (from the first ruling), the kind, the message citing its rule (R24).
    assert out.getvalue().splitlines() == ["  0:00.0  spit-call   Nobody can play: Spit! (R16)",
                                           "  1:02.5  spit        P1 spits 7♥ (R8)"]
    assert isinstance(make_view(True), PlainView)
