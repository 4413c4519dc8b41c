"""Announcers: how rulings reach the players. Console text, speech, LEDs, a buzzer, several at once.

Every announcer takes a ruling in its DESIGN.md log shape (`{"t", "ruling", "player", "message",
…}`, or any object with `to_json()` returning it) and must never block the referee: speech runs
in its own thread from a queue, LEDs and the buzzer switch in gpiozero's background threads.
Each announcer is optional and configured by the calibration file's `outputs` section;
`build_announcers` builds the set and notes what it left out and why, and later what stopped
working (`Announcers.note`: passed to its `report` callback at once, and kept for
`Announcers.take_notes()`, which the referee's loop drains into warning lines).
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
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
# The timed calls: players react to them within a second, so one still waiting after
# STALE_CALL_S is not spoken ("Slap!" after the slaps are over sends hands to the piles).
TIMED_CALL_KINDS = frozenset({"spit-call", "slap-call"})
STALE_CALL_S = 1.5
# Any other call still waiting after STALE_S is not spoken either: the table has moved on, and
# the console and the log still have it.
STALE_S = 6.0
# espeak-ng returns once the words have been played. It gets SPEECH_START_S to start and open
# the audio device, plus SPEECH_SLACK times the words' length at the chosen rate; one that takes
# longer is stuck (a blocked audio device) and is killed, so the calls behind it are not held up
# ("Spit!" at 170 words a minute: 2.5 s).
SPEECH_START_S = 2.0
SPEECH_SLACK = 1.5
# close() waits this long for the speech thread once the speaking espeak-ng has been killed.
SPEECH_CLOSE_WAIT_S = 2.0
BEEP_S = 0.15  # a short beep: audible over a game, over before the next card lands
SLAP_BLINK_S = 0.15  # LED blink half-period at "Slap!": distinct from the steady "Spit!" light


class SpeechUnavailableError(UserError):
    """espeak-ng is not installed or cannot run."""


class SpeechFailed(Exception):
    """One utterance failed: espeak-ng could not start, timed out, or reported an error."""


class OutputUnavailableError(UserError):
    """An LED or buzzer pin cannot be opened (another program or an overlay holds it)."""


def _open_output(device: Callable[..., Any], pin: int, factory: Any, what: str) -> Any:
    """A gpiozero output device on `pin`, or OutputUnavailableError saying what to do."""
    try:
        return device(pin, pin_factory=factory)
    except Exception as exc:  # gpiozero's GPIOPinInUse and others, lgpio's own error type
        raise OutputUnavailableError(
            f"no {what}: GPIO {pin} cannot be opened ({exc}); another program or a "
            "device-tree overlay may hold it: free it, or change the pin in the calibration "
            "file's `outputs` section") from exc


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


class EspeakRunner:
    """Speaks one text with espeak-ng, blocking until it has been played (SpeechAnnouncer calls
    it from its own thread). Raises SpeechFailed when espeak-ng cannot start, exits with an
    error, prints one (with no audio device it prints an error and exits 0), or takes longer
    than `timeout_s` seconds (None: SPEECH_START_S plus the words' length; see there), in which
    case it is killed. `close()` kills the one speaking and lets no other start."""

    def __init__(self, exe: str, voice: str = "en", rate: int = 170,
                 timeout_s: float | None = None) -> None:
        self.exe, self.voice, self.rate, self.timeout_s = exe, voice, rate, timeout_s
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._closed = False

    def timeout_for(self, text: str) -> float:
        """Seconds espeak-ng gets for `text` before it counts as stuck."""
        if self.timeout_s is not None:
            return self.timeout_s
        return SPEECH_START_S + SPEECH_SLACK * len(text.split()) * 60.0 / max(self.rate, 1)

    def __call__(self, text: str) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                # Its own process group, so a kill reaches anything it started (an audio
                # helper holding the stderr pipe would otherwise keep us waiting).
                proc = subprocess.Popen(
                    [self.exe, "-v", self.voice, "-s", str(self.rate), "--", text],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE, text=True, errors="replace",
                    start_new_session=True)
            except OSError as exc:
                raise SpeechFailed(f"espeak-ng could not start: {exc}") from exc
            self._proc = proc
        try:
            _, err = proc.communicate(timeout=self.timeout_for(text))
        except subprocess.TimeoutExpired:
            self._kill(proc)
            try:
                proc.communicate(timeout=SPEECH_CLOSE_WAIT_S)  # reap it
            except subprocess.TimeoutExpired:
                pass  # something outside its group holds the pipe: leave it
            raise SpeechFailed(f"espeak-ng did not finish within {self.timeout_for(text):.1f} s "
                               "(a blocked audio device?) and was stopped") from None
        finally:
            with self._lock:
                self._proc = None
        if self._closed:
            return
        lines = [ln.strip() for ln in (err or "").splitlines() if ln.strip()]
        if proc.returncode != 0 or lines:
            last = lines[-1][:200] if lines else "no message"
            raise SpeechFailed(f"espeak-ng failed (exit {proc.returncode}): {last}")

    @staticmethod
    def _kill(proc: subprocess.Popen[str]) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._proc is not None:
                self._kill(self._proc)


def espeak_runner(voice: str = "en", rate: int = 170, *,
                  timeout_s: float | None = None) -> EspeakRunner:
    """An EspeakRunner for the espeak-ng on PATH; SpeechUnavailableError when there is none."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise SpeechUnavailableError(
            "speech is on but espeak-ng is not installed: `sudo apt install espeak-ng`, or set "
            "outputs.speech.enabled to false in the calibration file")
    return EspeakRunner(exe, voice, rate, timeout_s)


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
    other calls follow in order. A call whose turn comes too late is not spoken ("Spit!" and
    "Slap!" after `call_stale_s` seconds, others after `stale_s`). `runner(text)` does the
    speaking (espeak-ng by default). The first failure is passed to `report` once (from the
    speech thread); speech goes on trying, since a busy audio device often recovers, and every
    failure is kept in `errors` (the first MAX_ERRORS)."""

    MAX_ERRORS = 20

    def __init__(self, voice: str = "en", rate: int = 170, runner: Runner | None = None,
                 max_pending: int = MAX_PENDING_SPEECH, *,
                 report: Callable[[str], None] | None = None, stale_s: float = STALE_S,
                 call_stale_s: float = STALE_CALL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._run = runner if runner is not None else espeak_runner(voice, rate)
        # Each entry: (text, when announced on `clock`, seconds after which it is stale).
        self._urgent: deque[tuple[str, float, float]] = deque(maxlen=max_pending)
        self._normal: deque[tuple[str, float, float]] = deque(maxlen=max_pending)
        self._stale_s, self._call_stale_s, self._clock = stale_s, call_stale_s, clock
        self._report = report
        self._cv = threading.Condition()
        self._busy = False
        self._closed = False
        self.errors: list[str] = []
        self.failures = 0
        self.dropped_late = 0
        self._thread = threading.Thread(target=self._work, name="speech", daemon=True)
        self._thread.start()

    def announce(self, ruling: Any) -> None:
        text = spoken_text(ruling)
        if text is None:
            return
        kind = as_ruling_dict(ruling).get("ruling")
        stale = self._call_stale_s if kind in TIMED_CALL_KINDS else self._stale_s
        with self._cv:
            (self._urgent if kind in URGENT_KINDS else self._normal).append(
                (text, self._clock(), stale))
            self._cv.notify()

    def _next(self) -> str | None:
        now = self._clock()
        while self._urgent or self._normal:
            # Newest urgent call first, then the others in order.
            text, at, stale = self._urgent.pop() if self._urgent else self._normal.popleft()
            if now - at <= stale:
                return text
            self.dropped_late += 1
        return None

    def _work(self) -> None:
        while True:
            with self._cv:
                while not self._closed and not (self._urgent or self._normal):
                    self._cv.wait()
                if self._closed:
                    return
                text = self._next()
                if text is None:  # all were late: wake wait_idle
                    self._cv.notify_all()
                    continue
                self._busy = True
            try:
                self._run(text)
            except Exception as exc:  # a speech failure must never stop the referee
                if not self._closed:
                    self._failed(exc)
            finally:
                with self._cv:
                    self._busy = False
                    self._cv.notify_all()

    def _failed(self, exc: Exception) -> None:
        self.failures += 1
        if len(self.errors) < self.MAX_ERRORS:
            self.errors.append(f"speech failed: {exc}")
        if self.failures == 1 and self._report is not None:
            try:
                self._report(f"speech failed: {exc}. Calls are still tried, and skipped when "
                             "late; check the sound output (`espeak-ng hello` in a terminal, "
                             "`aplay -l`), or turn speech off (no --voice, "
                             "outputs.speech.enabled false)")
            except Exception:
                pass  # a broken report must not stop speech either

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Block until everything queued has been spoken or dropped (for tests and clean
        shutdown)."""
        with self._cv:
            return self._cv.wait_for(lambda: not (self._busy or self._urgent or self._normal),
                                     timeout=timeout)

    def close(self) -> None:
        """Stop speaking: what is queued is dropped and the espeak-ng speaking is killed."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        stop = getattr(self._run, "close", None)
        if callable(stop):
            stop()
        self._thread.join(timeout=SPEECH_CLOSE_WAIT_S)


class LedAnnouncer:
    """One LED per spit pile: lit at "Spit!" until that pile's spit card lands; both blink at
    "Slap!" until the result."""

    def __init__(self, pins: Mapping[str, int], factory: Any, *,
                 on_unavailable: Callable[[str], None] | None = None) -> None:
        """`pins`: {spit pile: GPIO number}. A pin that cannot be opened raises
        OutputUnavailableError, or, with `on_unavailable`, is left out and its message passed
        there (the other LEDs still work; `leds` may then be empty)."""
        from gpiozero import LED

        unknown = set(pins) - set(SPIT_PILES)
        if unknown:
            raise UserError(f"outputs.leds names {', '.join(sorted(unknown))}: use "
                            f"{' and '.join(SPIT_PILES)}")
        self.leds: dict[str, Any] = {}
        for pile, pin in pins.items():
            try:
                self.leds[pile] = _open_output(LED, pin, factory, f"LED for {pile}")
            except OutputUnavailableError as exc:
                if on_unavailable is None:
                    self.close()  # release the pins already opened
                    raise
                on_unavailable(str(exc))

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

        self.buzzer = _open_output(Buzzer, pin, factory, "buzzer")
        self.beep_s = beep_s

    def announce(self, ruling: Any) -> None:
        if as_ruling_dict(ruling).get("ruling") in BUZZ_KINDS:
            self.buzzer.beep(on_time=self.beep_s, off_time=self.beep_s, n=1, background=True)

    def close(self) -> None:
        self.buzzer.close()


class Announcers:
    """Several announcers as one. A failing announcer is reported once and then left out, so
    a broken LED never silences the console or stops the referee.

    Notes (an output left out, an announcer switched off, speech failing) go through `note`:
    each is passed to `report` as it happens (in the thread that noticed it, possibly the
    speech thread; by default printed on stderr), kept in `notes`, and returned once by
    `take_notes()`, which is safe to call from any thread."""

    def __init__(self, announcers: Iterable[Announcer] = (), notes: Iterable[str] = (),
                 report: Callable[[str], None] | None = None) -> None:
        self.announcers = list(announcers)
        self.notes: list[str] = []
        self._unread: list[str] = []
        self._lock = threading.Lock()
        self._report = report or (lambda msg: print(msg, file=sys.stderr))
        for message in notes:
            self.note(message)

    def note(self, message: str) -> None:
        """Record a note and pass it on at once (see the class)."""
        with self._lock:
            self.notes.append(message)
            self._unread.append(message)
        try:
            self._report(message)
        except Exception:
            pass  # a failing report must not stop the referee; take_notes() still has it

    def take_notes(self) -> list[str]:
        """The notes made since the last call, oldest first."""
        with self._lock:
            unread, self._unread = self._unread, []
        return unread

    def announce(self, ruling: Any) -> None:
        r = as_ruling_dict(ruling)
        for a in list(self.announcers):
            try:
                a.announce(r)
            except Exception as exc:
                self.announcers.remove(a)
                _close_quietly(a)
                self.note(f"{type(a).__name__} failed and is switched off: {exc}")

    def close(self) -> None:
        for a in self.announcers:
            _close_quietly(a)

    def __enter__(self) -> "Announcers":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _close_quietly(a: Announcer) -> None:
    try:
        a.close()
    except Exception:
        pass


def build_announcers(outputs: Any, *, factory: Any = None, stream: TextIO | None = None,
                     speech_runner: Runner | None = None,
                     report: Callable[[str], None] | None = None) -> Announcers:
    """The announcers the calibration file's `outputs` section asks for.

    LEDs and the buzzer need a pin `factory` (the pads'); without one, or when a pin cannot be
    opened, they are left out with a note. Speech without espeak-ng is left out with a note
    saying how to install it. Every note, now and during the game, goes to `report` and to
    `Announcers.take_notes()` (see Announcers)."""
    many = Announcers(report=report)
    if outputs.console:
        many.announcers.append(ConsoleAnnouncer(stream))
    sp = outputs.speech
    if sp.enabled:
        try:
            many.announcers.append(SpeechAnnouncer(sp.voice, sp.rate, runner=speech_runner,
                                                   report=many.note))
        except SpeechUnavailableError as exc:
            many.note(f"no speech: {exc}")
    gpio_outputs = [name for name, on in (("LEDs", outputs.leds), ("buzzer", outputs.buzzer
                                                                   is not None)) if on]
    if gpio_outputs and factory is None:
        many.note(f"no {' and '.join(gpio_outputs)}: no GPIO in use (pads off)")
    elif factory is not None:
        if outputs.leds:
            leds = LedAnnouncer(outputs.leds, factory, on_unavailable=many.note)
            if leds.leds:
                many.announcers.append(leds)
        if outputs.buzzer is not None:
            try:
                many.announcers.append(BuzzerAnnouncer(outputs.buzzer, factory))
            except OutputUnavailableError as exc:
                many.note(str(exc))
    return many
