"""Announcers: how rulings reach the players. Console text, speech, LEDs, a buzzer, several at once.

Every announcer takes a ruling in its DESIGN.md log shape (`{"t", "ruling", "player", "message",
…}`, or any object with `to_json()` returning it) and must never block the referee: speech runs
in its own thread from a queue, LEDs and the buzzer switch in gpiozero's background threads.
Each announcer is optional and configured by the calibration file's `outputs` section;
`build_announcers` builds the set and says in `notes` what it left out and why.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import threading
from collections import deque
from typing import Any, Callable, Iterable, Mapping, Protocol, TextIO

from referee.errors import UserError
from referee.zones import SPIT_PILES

# Calls the players must hear at once; the newest of them is spoken first (a "Slap!" queued
# behind an old "Spit!" is useless once the round has ended).
URGENT_KINDS = frozenset({"spit-call", "slap-call", "slap-result", "illegal", "false-spit",
                          "false-slap"})
# Spoken at all: legal moves (play, refill, spit, deal) happen several times a second and are
# left to the console; saying them would bury the calls that matter.
SPOKEN_KINDS = URGENT_KINDS | {"round-over", "game-over", "warning"}
# Kinds that sound the buzzer: a play or call the players must undo.
BUZZ_KINDS = frozenset({"illegal", "false-spit", "false-slap"})

# At most this many calls wait to be spoken; older ones are dropped, since a call that is
# several seconds late misleads more than it helps.
MAX_PENDING_SPEECH = 6
BEEP_S = 0.15  # a short beep: audible over a game, over before the next card lands
SLAP_BLINK_S = 0.15  # LED blink half-period at "Slap!": distinct from the steady "Spit!" light


class SpeechUnavailableError(UserError):
    """espeak-ng is not installed or cannot run."""


class Announcer(Protocol):
    def announce(self, ruling: Any) -> None: ...

    def close(self) -> None: ...


def as_ruling_dict(ruling: Any) -> Mapping[str, Any]:
    """A ruling as its DESIGN.md log object (accepts a Ruling or the dict itself)."""
    to_json = getattr(ruling, "to_json", None)
    return to_json() if callable(to_json) else ruling


_SUITS = {"♠": " of spades", "♥": " of hearts", "♦": " of diamonds", "♣": " of clubs"}
_RANK_WORDS = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}


def spoken_text(ruling: Any) -> str | None:
    """What to say for a ruling, in words a speech synthesiser reads well; None: say nothing."""
    r = as_ruling_dict(ruling)
    kind = r.get("ruling")
    if kind not in SPOKEN_KINDS:
        return None
    if kind == "spit-call":
        return "Spit!"
    if kind == "slap-call":
        return "Slap!"
    text = str(r.get("message") or kind.replace("-", " "))
    text = re.sub(r"\s*\(R\d+\)", "", text)  # rule numbers are for the log, not the ear
    text = re.sub(r"\b(10|[2-9AJQK])([♠♥♦♣])",
                  lambda m: _RANK_WORDS.get(m.group(1), m.group(1)) + _SUITS[m.group(2)], text)
    text = re.sub(r"\bP([12])\b", lambda m: f"player {'one' if m.group(1) == '1' else 'two'}",
                  text)
    text = re.sub(r"\s*—\s*", ", ", text)
    return text.replace("spit.left", "left pile").replace(
        "spit.right", "right pile").strip()


class ConsoleAnnouncer:
    """One line per ruling: time, kind, message."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream

    def announce(self, ruling: Any) -> None:
        r = as_ruling_dict(ruling)
        out = self.stream or sys.stdout
        msg = r.get("message") or ""
        print(f"[{float(r.get('t', 0.0)):9.3f}] {r.get('ruling', '?'):<11} {msg}", file=out,
              flush=True)

    def close(self) -> None:
        pass


Runner = Callable[[str], None]


def espeak_runner(voice: str = "en", rate: int = 170) -> Runner:
    """Speak with espeak-ng (blocking; SpeechAnnouncer calls it from its own thread)."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise SpeechUnavailableError(
            "speech is on but espeak-ng is not installed: `sudo apt install espeak-ng`, or set "
            "outputs.speech.enabled to false in the calibration file")

    def run(text: str) -> None:
        subprocess.run([exe, "-v", voice, "-s", str(rate), "--", text], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
    return run


def write_wav(text: str, path: str, voice: str = "en", rate: int = 170) -> None:
    """Synthesise `text` into a WAV file with espeak-ng (for checking a voice without a speaker)."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise SpeechUnavailableError("espeak-ng is not installed: `sudo apt install espeak-ng`")
    done = subprocess.run([exe, "-v", voice, "-s", str(rate), "-w", str(path), "--", text],
                          capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise SpeechUnavailableError(f"espeak-ng failed ({done.stderr.strip()}): check the "
                                     f"voice {voice!r} (`espeak-ng --voices` lists them)")


class SpeechAnnouncer:
    """Speaks rulings from a worker thread. Urgent calls go first, the newest of them first;
    other calls follow in order. `runner(text)` does the speaking (espeak-ng by default)."""

    def __init__(self, voice: str = "en", rate: int = 170, runner: Runner | None = None,
                 max_pending: int = MAX_PENDING_SPEECH) -> None:
        self._run = runner if runner is not None else espeak_runner(voice, rate)
        self._urgent: deque[str] = deque(maxlen=max_pending)
        self._normal: deque[str] = deque(maxlen=max_pending)
        self._cv = threading.Condition()
        self._busy = False
        self._closed = False
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._work, name="speech", daemon=True)
        self._thread.start()

    def announce(self, ruling: Any) -> None:
        text = spoken_text(ruling)
        if text is None:
            return
        urgent = as_ruling_dict(ruling).get("ruling") in URGENT_KINDS
        with self._cv:
            (self._urgent if urgent else self._normal).append(text)
            self._cv.notify()

    def _next(self) -> str | None:
        if self._urgent:
            return self._urgent.pop()  # newest urgent call first
        if self._normal:
            return self._normal.popleft()
        return None

    def _work(self) -> None:
        while True:
            with self._cv:
                while not self._closed and not (self._urgent or self._normal):
                    self._cv.wait()
                if self._closed:
                    return
                text = self._next()
                self._busy = True
            try:
                self._run(text)
            except Exception as exc:  # a speech failure must never stop the referee
                self.errors.append(f"speech failed: {exc}")
            finally:
                with self._cv:
                    self._busy = False
                    self._cv.notify_all()

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Block until everything queued has been spoken (for tests and clean shutdown)."""
        with self._cv:
            return self._cv.wait_for(lambda: not (self._busy or self._urgent or self._normal),
                                     timeout=timeout)

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._thread.join(timeout=5)


class LedAnnouncer:
    """One LED per spit pile: lit at "Spit!" until that pile's spit card lands; both blink at
    "Slap!" until the result."""

    def __init__(self, pins: Mapping[str, int], factory: Any) -> None:
        from gpiozero import LED

        unknown = set(pins) - set(SPIT_PILES)
        if unknown:
            raise UserError(f"outputs.leds names {', '.join(sorted(unknown))}: use "
                            f"{' and '.join(SPIT_PILES)}")
        self.leds = {pile: LED(pin, pin_factory=factory) for pile, pin in pins.items()}

    def announce(self, ruling: Any) -> None:
        r = as_ruling_dict(ruling)
        kind = r.get("ruling")
        if kind == "spit-call":
            for led in self.leds.values():
                led.on()
        elif kind == "spit" and r.get("to") in self.leds:
            self.leds[r["to"]].off()
        elif kind == "slap-call":
            for led in self.leds.values():
                led.blink(on_time=SLAP_BLINK_S, off_time=SLAP_BLINK_S, background=True)
        elif kind in ("slap-result", "round-over", "game-over", "deal"):
            for led in self.leds.values():
                led.off()

    def close(self) -> None:
        for led in self.leds.values():
            led.close()


class BuzzerAnnouncer:
    """A short beep on an illegal play, a false spit or a false slap."""

    def __init__(self, pin: int, factory: Any, beep_s: float = BEEP_S) -> None:
        from gpiozero import Buzzer

        self.buzzer = Buzzer(pin, pin_factory=factory)
        self.beep_s = beep_s

    def announce(self, ruling: Any) -> None:
        if as_ruling_dict(ruling).get("ruling") in BUZZ_KINDS:
            self.buzzer.beep(on_time=self.beep_s, off_time=self.beep_s, n=1, background=True)

    def close(self) -> None:
        self.buzzer.close()


class Announcers:
    """Several announcers as one. A failing announcer is reported once and then left out, so
    a broken LED never silences the console or stops the referee."""

    def __init__(self, announcers: Iterable[Announcer] = (), notes: Iterable[str] = (),
                 report: Callable[[str], None] | None = None) -> None:
        self.announcers = list(announcers)
        self.notes = list(notes)
        self._report = report or (lambda msg: print(msg, file=sys.stderr))

    def announce(self, ruling: Any) -> None:
        r = as_ruling_dict(ruling)
        for a in list(self.announcers):
            try:
                a.announce(r)
            except Exception as exc:
                self.announcers.remove(a)
                self._report(f"{type(a).__name__} failed and is switched off: {exc}")

    def close(self) -> None:
        for a in self.announcers:
            try:
                a.close()
            except Exception:
                pass

    def __enter__(self) -> "Announcers":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def build_announcers(outputs: Any, *, factory: Any = None, stream: TextIO | None = None,
                     speech_runner: Runner | None = None,
                     report: Callable[[str], None] | None = None) -> Announcers:
    """The announcers the calibration file's `outputs` section asks for.

    LEDs and the buzzer need a pin `factory` (the pads'); without one they are left out with a
    note. Speech without espeak-ng is left out with a note saying how to install it."""
    out: list[Announcer] = []
    notes: list[str] = []
    if outputs.console:
        out.append(ConsoleAnnouncer(stream))
    sp = outputs.speech
    if sp.enabled:
        try:
            out.append(SpeechAnnouncer(sp.voice, sp.rate, runner=speech_runner))
        except SpeechUnavailableError as exc:
            notes.append(f"no speech: {exc}")
    gpio_outputs = [name for name, on in (("LEDs", outputs.leds), ("buzzer", outputs.buzzer
                                                                   is not None)) if on]
    if gpio_outputs and factory is None:
        notes.append(f"no {' and '.join(gpio_outputs)}: no GPIO in use (pads off)")
    elif factory is not None:
        if outputs.leds:
            out.append(LedAnnouncer(outputs.leds, factory))
        if outputs.buzzer is not None:
            out.append(BuzzerAnnouncer(outputs.buzzer, factory))
    return Announcers(out, notes, report)
