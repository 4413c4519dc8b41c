"""Benchmark of the card reader (vision.card + vision.recognize): accuracy and speed.

    .venv/bin/python bench/identify.py            # photos, scenes, timing, leave-one-deck-out
    .venv/bin/python bench/identify.py --no-loo   # skip the leave-one-deck-out retraining (~3 min)

Prints:
- the 52 real photos of ../shared/data/photos/single-cards/ (a physical deck never used in
  training, no templates): rank and suit accuracy, unread cards, confident wrong readings;
- what is read in the 17 unlabelled scene photos (each outline as identify reads it; for the
  eye: tests/vision/test_recognize_scenes.py labels them);
- time per card read (read_card on a flattened card) and per photo (find + flatten + read), one
  core, median and p99;
- leave-one-deck-out over the seven artwork decks: a model trained without a deck reads that
  deck's cards through camera augmentation (blur, noise, perspective, light, JPEG).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.card import find_cards, flatten  # noqa: E402
from vision.identify import identify, read_outline  # noqa: E402
from vision.recognize import read_card  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def photos() -> None:
    paths = sorted((DATA / "photos" / "single-cards").glob("*.jpg"))
    rank_ok = suit_ok = unread = wrong = 0
    wrong_list, unread_list = [], []
    flats = []
    photo_ms = []
    for p in paths:
        code = p.stem
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        t = time.perf_counter()
        res = identify(img)
        photo_ms.append((time.perf_counter() - t) * 1000)
        r = res.reading
        quads = find_cards(img)
        if quads:
            flats.append(flatten(img, quads[0]))
        if r.card is None:
            unread += 1
            unread_list.append(f"{code}({r.confidence:.2f})")
            continue
        rank_ok += r.rank == code[:-1]
        suit_ok += r.suit == code[-1]
        if r.card != code:
            wrong += 1
            wrong_list.append(f"{code}->{r.card}({r.confidence:.3f})")
    n = len(paths)
    print(f"real photos (unseen deck, no templates): {n} cards")
    print(f"  rank accuracy {100 * rank_ok / n:.1f} %   suit accuracy {100 * suit_ok / n:.1f} %   "
          f"unread {unread} {' '.join(unread_list)}")
    print(f"  confident wrong readings: {wrong} {' '.join(wrong_list)}")
    print(f"  per photo (find + flatten + read, ~900x675): median {statistics.median(photo_ms):.1f} ms  "
          f"p99 {pct(photo_ms, 99):.1f} ms")
    read_ms, cpu_ms = [], []
    for _ in range(10):
        for f in flats:
            t, c = time.perf_counter(), time.process_time()
            read_card(f)
            cpu_ms.append((time.process_time() - c) * 1000)
            read_ms.append((time.perf_counter() - t) * 1000)
    # The cores are shared with other work: CPU time is what the read costs this process,
    # wall time what it took with whatever else ran beside it.
    print(f"  per card read (read_card, 200x280, both corners + pips), {len(read_ms)} reads: "
          f"wall median {statistics.median(read_ms):.2f} ms p99 {pct(read_ms, 99):.2f} ms; "
          f"CPU mean {statistics.mean(cpu_ms):.2f} ms")


def scenes() -> None:
    print("scene photos (unlabelled; what is read, largest outline first):")
    for p in sorted((DATA / "photos" / "scenes").glob("*.jpg"), key=lambda p: int(p.stem[1:])):
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        out = []
        for q in find_cards(img)[:8]:
            r = read_outline(img, q)
            out.append(r.card if r.card else f"?({r.rank}{r.suit or ''} {r.confidence:.2f})")
        print(f"  {p.stem:4s} {' '.join(out) if out else '(no card outline)'}")


def loo() -> None:
    from vision.train import leave_one_deck_out, summary

    print("leave-one-deck-out (retrains 7 models; each deck read by a model that never saw it):")
    t = time.perf_counter()
    scores = leave_one_deck_out(DATA, log=lambda s: print("  " + s.strip()) if s.strip().startswith("held") else None)
    print("  " + summary(scores) + f"   ({time.perf_counter() - t:.0f} s)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-loo", action="store_true", help="skip leave-one-deck-out retraining")
    args = ap.parse_args()
    cv2.setNumThreads(1)  # one core, as on the Pi budget
    photos()
    scenes()
    if not args.no_loo:
        loo()
    return 0


if __name__ == "__main__":
    sys.exit(main())
