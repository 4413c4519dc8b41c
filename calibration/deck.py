"""`spit-referee calibrate deck`: per-deck card templates, optional help for the card reader.

Two ways in, one result: a templates folder of flattened, upright card images named by card
code (`7H.png`, 200×280 px, vision.card's canonical card), recorded in the calibration file's
`deck` section. The card reader (`vision.templates.load_templates`) decides how to use them.

- `--images DIR`: a folder of photos or scans, one card each, named by card code (`7H.jpg`,
  `10s.png`). Every name must be a card code and every card may appear once; the card is found
  in each photo (vision.card.find_cards) and flattened. The folder is built aside and swapped in
  whole, so a failed run leaves the previous templates as they were.
- `--camera SRC [--zone spit.left]`: guided capture with the mat in view. For each card the
  user lays it face up in the zone and presses Enter; the zone is cut from a fresh frame through
  the table homography, the top card found and flattened. Each card is saved as it is taken, so
  an interrupted session resumes where it stopped (cards already in the folder are skipped).
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from referee.cards import DECK, Card, UnknownCardError
from referee.errors import UserError
from referee.zones import check_zone

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})
TEMPLATES_DIRNAME = "deck-templates"
CARD_ASPECT_RANGE = (1.36, 1.46)
"""Height/width of an image taken as an already-flattened card when no outline is found in it:
a poker card is 88/63 = 1.40; photos (4:3 = 1.33, 3:2 = 1.5) fall outside, so a photo whose
card was not found is refused rather than stored whole."""
ZONE_MARGIN_MM = 15.0
"""Cut this much around the zone: a card turned ~20° pokes out of its zone rectangle."""
CROP_PX_PER_MM = 4.0
"""Scale of the zone cut: above any real camera's ~1.5–3 px/mm, so no detail is lost."""
CARD_SIZE_TOLERANCE = 0.25
"""In a zone cut (known scale), an outline counts as the card only if its sides are within 25 %
of a 63 × 88 mm card's: the zone's own printed outline, or a pile's, must not pass for one."""
LINE_ERASE_MM = 2.0
"""Bright lines thinner than this (the mat's printed zone outline) are erased before looking for
the card again: the outline around the card otherwise passes for a larger card holding it."""
MIN_BLOB_FILL = 0.9
"""A bright blob is taken as a lone card only if it fills its rotated box this well (a card's
rounded corners leave ~2 % out; a hand or two overlapping cards leave much more)."""
FRESH_FRAMES = 5
"""Frames read after Enter before the one used: a webcam's buffered frames predate the card."""


class DeckError(UserError):
    """The deck images cannot be used: bad names, duplicates, no card found, nothing to do."""


@dataclass(frozen=True)
class DeckImage:
    card: Card
    path: Path


# --- naming -----------------------------------------------------------------------------------

def scan_folder(folder: Path) -> list[DeckImage]:
    """The images of `folder`, each named by a card code; clear errors for anything else."""
    if not folder.is_dir():
        raise DeckError(f"--images {folder}: no such folder")
    try:
        paths = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
    except OSError as exc:
        raise DeckError(f"--images {folder}: cannot list it ({exc.strerror or exc}): check its "
                        "permissions") from exc
    if not paths:
        raise DeckError(f"--images {folder}: no images in it; name one image per card by its "
                        "code, e.g. 7H.png, 10S.jpg, AC.png")
    bad: list[str] = []
    seen: dict[Card, Path] = {}
    dupes: list[str] = []
    images: list[DeckImage] = []
    for p in paths:
        try:
            card = Card.parse(p.stem)
        except UnknownCardError:
            bad.append(p.name)
            continue
        if card in seen:
            dupes.append(f"{seen[card].name} and {p.name} are both {card.code}")
            continue
        seen[card] = p
        images.append(DeckImage(card, p))
    if bad:
        shown = ", ".join(bad[:6]) + (f" and {len(bad) - 6} more" if len(bad) > 6 else "")
        raise DeckError(f"--images {folder}: {shown}: not named by a card code; rename each image "
                        "to its card's code (rank A 2-10 J Q K, then suit S H D C: 7H.png, 10S.jpg)")
    if dupes:
        raise DeckError(f"--images {folder}: the same card twice ({'; '.join(dupes)}); keep one "
                        "image per card")
    return images


# --- finding and flattening the card ----------------------------------------------------------

def flatten_card(image: np.ndarray, *, source: str) -> np.ndarray:
    """The canonical flattened card (vision.card) of the card in a photo: the largest card
    outline. An image that is already one card, cut to its edges, is taken whole."""
    import cv2
    from vision.card import CARD_H, CARD_W, find_cards, flatten
    quad = next(iter(find_cards(image)), None)
    if quad is not None:
        return flatten(image, quad)
    h, w = image.shape[:2]
    lo, hi = CARD_ASPECT_RANGE
    if lo <= h / w <= hi or lo <= w / h <= hi:
        img = image if h >= w else cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        elif img.shape[2] == 4:
            img = _on_white(img)
        return cv2.resize(img, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)
    raise DeckError(f"no card found in {source}: photograph the whole card flat on a darker, "
                    "plain background, or crop the image to the card's edges")


def _on_white(bgra: np.ndarray) -> np.ndarray:
    alpha = bgra[:, :, 3:4].astype(np.float32) / 255
    return (bgra[:, :, :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)


def _read(path: Path) -> np.ndarray:
    import cv2
    try:
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    except cv2.error:  # some decoders raise on a damaged file instead of returning None
        img = None
    if img is None:
        raise DeckError(f"{path} cannot be read as an image: replace or remove it")
    if img.ndim == 3 and img.shape[2] == 4:
        img = _on_white(img)  # artwork with transparent rounded corners
    elif img.dtype != np.uint8:
        img = cv2.convertScaleAbs(img, alpha=255.0 / max(1, int(img.max())))
    return img


def _write_png(path: Path, image: np.ndarray) -> None:
    """Write atomically: a half-written template would be read as a broken card."""
    import cv2
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise DeckError(f"cannot encode {path.name}")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise _cannot_write(path.parent, exc) from exc
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(buf.tobytes())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _cannot_write(path.parent, exc) from exc
        raise


def _cannot_write(folder: Path, exc: OSError) -> DeckError:
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        return DeckError(f"cannot make the templates folder in {folder}: part of that path is a "
                         "file, not a folder; give --out a folder path")
    return DeckError(f"cannot write the templates into {folder} ({exc.strerror or exc}): give "
                     "--out a folder you can write to")


def check_out_folder(out: Path) -> None:
    """Refuse an `--out` that is a file, or a folder holding anything but card templates: the
    templates folder is replaced whole, and must never take a user's other files with it."""
    if out.exists() and not out.is_dir():
        raise DeckError(f"--out {out} is a file, not a folder: give the templates folder's path "
                        f"(e.g. {out.with_name(TEMPLATES_DIRNAME)})")
    if not out.is_dir():
        return
    try:
        entries = list(out.iterdir())
    except OSError as exc:
        raise DeckError(f"--out {out}: cannot list it ({exc.strerror or exc}): check its "
                        "permissions") from exc
    foreign = sorted(p.name for p in entries if not p.name.startswith(".") and not _is_template(p))
    if foreign:
        shown = ", ".join(foreign[:4]) + (f" and {len(foreign) - 4} more" if len(foreign) > 4 else "")
        raise DeckError(f"--out {out} holds files that are not card templates ({shown}), and "
                        "the templates folder is replaced whole: give --out a new or empty "
                        "folder, or the templates folder of an earlier `calibrate deck`")


def _is_template(p: Path) -> bool:
    if p.suffix != ".png" or not p.is_file():
        return False
    try:
        Card.parse(p.stem)
    except UnknownCardError:
        return False
    return True


def build_from_folder(images: list[DeckImage], out: Path) -> list[Card]:
    """Flatten every image into a new templates folder and swap it in place of `out`."""
    check_out_folder(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as exc:
        raise _cannot_write(out.parent, exc) from exc
    try:
        for item in images:
            flat = flatten_card(_read(item.path), source=str(item.path))
            _write_png(staging / f"{item.card.code}.png", flat)
        old = None
        if out.exists():
            old = out.with_name(f".{out.name}.old")
            if old.exists():
                shutil.rmtree(old)
            os.replace(out, old)
        os.replace(staging, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):
            raise _cannot_write(out.parent, exc) from exc
        raise
    return [i.card for i in images]


# --- guided capture ---------------------------------------------------------------------------

def cut_zone(frame: np.ndarray, frame_to_table: np.ndarray, zone_rect) -> np.ndarray:
    """The zone (plus ZONE_MARGIN_MM around it) seen straight down at CROP_PX_PER_MM."""
    import cv2
    m, k = ZONE_MARGIN_MM, CROP_PX_PER_MM
    x0, y0 = zone_rect.x - m, zone_rect.y - m
    w, h = round((zone_rect.w + 2 * m) * k), round((zone_rect.h + 2 * m) * k)
    table_to_crop = np.array([[k, 0, -x0 * k], [0, k, -y0 * k], [0, 0, 1]], np.float64)
    return cv2.warpPerspective(frame, table_to_crop @ np.asarray(frame_to_table, np.float64),
                               (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def card_in_zone(crop: np.ndarray) -> np.ndarray | None:
    """The flattened top card of a zone cut made by `cut_zone`, or None when no outline of a
    card's size (at CROP_PX_PER_MM) is found."""
    import cv2
    from calibration.layout import CARD_H_MM, CARD_W_MM
    from vision.card import Quad, find_cards, flatten
    want_short, want_long = CARD_W_MM * CROP_PX_PER_MM, CARD_H_MM * CROP_PX_PER_MM
    tol = CARD_SIZE_TOLERANCE

    def card_sized(q) -> bool:
        s = q.side_lengths()
        short, long_ = sorted([(s[0] + s[2]) / 2, (s[1] + s[3]) / 2])
        return abs(short / want_short - 1) <= tol and abs(long_ / want_long - 1) <= tol

    quads = [q for q in find_cards(crop) if card_sized(q)]
    if not quads:
        side = round(LINE_ERASE_MM * CROP_PX_PER_MM) | 1
        opened = cv2.morphologyEx(crop, cv2.MORPH_OPEN,
                                  cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)))
        quads = [q for q in find_cards(opened) if card_sized(q)]
        if not quads:
            # One card alone on a plain zone (what guided capture asks for): the bright paper
            # is the largest blob once the outline is erased; its rotated box is the card.
            gray = cv2.cvtColor(opened, cv2.COLOR_BGR2GRAY) if opened.ndim == 3 else opened
            _, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
            contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            if contours:
                blob = max(contours, key=cv2.contourArea)
                box = cv2.boxPoints(cv2.minAreaRect(blob))
                q = Quad.from_points(box, cv2.contourArea(blob) / max(cv2.contourArea(box), 1.0))
                if card_sized(q) and q.score >= MIN_BLOB_FILL:
                    quads = [q]
    if not quads:
        return None
    return flatten(crop, max(quads, key=lambda q: q.score))  # the top card's outline is whole


def _fresh(frames: Iterator) -> np.ndarray:
    frame = None
    for _ in range(FRESH_FRAMES):
        try:
            frame, _t = next(frames)
        except StopIteration:
            break
    if frame is None:
        raise DeckError("the camera stream ended: start `calibrate deck` again to take the "
                        "remaining cards (those already taken are kept)")
    return frame


def capture(frames: Iterator, frame_to_table: np.ndarray, zone_rect, zone: str, out: Path,
            ask: Callable[[str], str], say: Callable[[str], None] = print,
            cards: tuple[Card, ...] = DECK) -> list[Card]:
    """Ask for each card not yet in `out`, take it from the zone, save it. Returns the cards
    taken in this session. `ask` answers "" (taken), "s" (skip this card) or "q" (stop)."""
    if out.exists() and not out.is_dir():
        check_out_folder(out)  # a file: says so
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot_write(out, exc) from exc
    have = {p.stem.upper() for p in out.glob("*.png")}
    todo = [c for c in cards if c.code not in have]
    if have:
        say(f"{len(have)} cards already in {out}; {len(todo)} to go")
    taken: list[Card] = []
    for card in todo:
        while True:
            answer = ask(f"Lay {card.pretty} ({card.code}) face up in {zone}, then press Enter "
                         "[s = skip this card, q = finish]: ").strip().lower()
            if answer in ("q", "s"):
                break
            flat = card_in_zone(cut_zone(_fresh(frames), frame_to_table, zone_rect))
            if flat is None:
                say(f"no card found in {zone}: lay {card.code} inside the zone outline, face up, "
                    "with no hand over it, and press Enter again")
                continue
            _write_png(out / f"{card.code}.png", flat)
            taken.append(card)
            say(f"took {card.code}")
            break
        if answer == "q":
            break
    return taken


# --- command line -----------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--images", metavar="DIR", help="a folder of card images named by code (7H.png)")
    src.add_argument("--camera", metavar="SRC", help="guided capture: picamera2, a device index, ...")
    parser.add_argument("--zone", default="spit.left", help="where to lay each card (default spit.left)")
    parser.add_argument("--calibration", metavar="FILE", default="calibration.json",
                        help="the calibration file to update (created if missing)")
    parser.add_argument("--out", metavar="DIR",
                        help=f"templates folder (default: {TEMPLATES_DIRNAME}/ beside the calibration file)")


def command(args: argparse.Namespace, ask: Callable[[str], str] = input) -> int:
    from calibration.store import DeckSection, load_for_update, save
    path = Path(args.calibration)
    cal = load_for_update(path, "deck")
    out = Path(args.out) if args.out else path.parent / TEMPLATES_DIRNAME
    if args.images:
        images = scan_folder(Path(args.images))
        cards = build_from_folder(images, out)
        print(f"flattened {len(cards)} cards into {out}")
    else:
        zone = check_zone(args.zone)
        from vision.sources import open_source
        with open_source(args.camera) as source:
            frames = iter(source)
            if cal.camera is not None:
                # The table homography maps undistorted pixels (calibrate camera, then table).
                from calibration.camera import undistort
                frames = ((undistort(f, cal), t) for f, t in frames)
            if cal.table is not None:
                frame_to_table = cal.table.homography_array()
            else:
                from calibration.table import fit_homography
                first = _fresh(frames)
                frame_to_table = fit_homography(first, cal.layout, source=f"camera {args.camera}").homography
                print("no table calibration: found the mat's markers in the first frame")
            cards = capture(frames, frame_to_table, cal.layout.zones[zone], zone, out, ask)
        print(f"took {len(cards)} cards this time")
    present = {p.stem.upper() for p in out.glob("*.png")} if out.is_dir() else set()
    if not present:
        raise DeckError("no cards were taken, so no templates were saved; run `calibrate deck` "
                        "again when the cards are at hand")
    missing = [c.code for c in DECK if c.code not in present]
    if missing:
        print(f"{len(present)} of 52 cards have templates; missing: {' '.join(missing)} "
              "(the reader works without them)")
    save(cal.replace_section(deck=DeckSection(out.resolve())), path)
    print(f"saved deck.templates_dir = {out} to {path}")
    return 0
