"""Calibration bench: how well and how fast `calibrate table` finds the mat, what undistortion
costs per frame, and how fast the frame sources deliver.

1. Table homography on rendered game tables (vision.render: random camera poses, light, noise,
   JPEG, cards on the piles, hands that may cover a marker): the share of frames calibrated,
   how often a fit was refused, and the error of the fitted homography at every zone corner
   against the renderer's true one (mm: median, p99, max).
2. Per-frame cost on one core, 1280×720: marker detection, `calibration.camera.undistort`.
3. Frame sources: frames/s from an MJPEG video file and from a folder of PNG frames.

    .venv/bin/python bench/calibration.py [--frames 200] [--seed 1]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration import camera, table  # noqa: E402
from calibration.store import CameraSection  # noqa: E402
from calibration.table import (HomographyRejectedError, MarkersNotFoundError,  # noqa: E402
                               apply_homography, check_fit, fit_homography)
from vision import render  # noqa: E402
from vision.sources import FolderSource, VideoCaptureSource  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def bench_table(n: int, seed: int) -> list[np.ndarray]:
    rng = random.Random(seed)
    renderer = render.Renderer(decks_dir=DATA / "decks", backs_dir=DATA / "backs")
    decks = render.available_decks(DATA / "decks")
    backs = render.available_backs(DATA / "backs")
    layout = renderer.layout
    corners = np.array([c for r in layout.zones.values() for c in r.corners()])
    errors, rms, times = [], [], []
    refused = not_found = missing_one = 0
    frames = []
    for i in range(n):
        scene = render.random_scene(rng, rng.choice(decks), rng.choice(backs))
        frame, truth = renderer.render(scene)
        if i < 30:
            frames.append(frame)
        t0 = time.perf_counter()
        try:
            fit = fit_homography(frame, layout)
        except MarkersNotFoundError:
            not_found += 1
            continue
        finally:
            times.append(time.perf_counter() - t0)
        missing_one += bool(fit.missing_ids)
        try:
            check_fit(fit)
        except HomographyRejectedError:
            refused += 1
            continue
        true_px = apply_homography(truth.table_to_frame, corners)
        err = np.linalg.norm(apply_homography(fit.homography, true_px) - corners, axis=1)
        errors.append(float(err.max()))
        rms.append(fit.rms_error_mm)
    ok = len(errors)
    print(f"table homography over {n} rendered tables (random pose, light, cards, hands):")
    print(f"  calibrated {ok}/{n} ({100 * ok / n:.1f} %); markers not found {not_found}; "
          f"refused (error > {table.MAX_REPROJECTION_ERROR_MM:g} mm) {refused}; "
          f"fits with a marker hidden {missing_one}")
    if ok:
        print(f"  worst zone-corner error per frame, mm: median {statistics.median(errors):.2f}, "
              f"p99 {pct(errors, 0.99):.2f}, max {max(errors):.2f}")
        print(f"  reported RMS reprojection error, mm: median {statistics.median(rms):.2f}, "
              f"max {max(rms):.2f}")
    print(f"  marker detection + fit per frame: median {1e3 * statistics.median(times):.1f} ms, "
          f"p99 {1e3 * pct(times, 0.99):.1f} ms")
    return frames


def bench_undistort(frames: list[np.ndarray]) -> None:
    h, w = frames[0].shape[:2]
    lens = CameraSection(((0.9 * w, 0.0, w / 2), (0.0, 0.9 * w, h / 2), (0.0, 0.0, 1.0)),
                         (-0.12, 0.05, 0.0, 0.0, 0.0), (w, h))
    camera.undistort(frames[0], lens)  # build and cache the maps
    for name, imgs in (("colour", frames), ("grey", [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for f in frames])):
        ts = []
        for _ in range(5):
            for f in imgs:
                t0 = time.perf_counter()
                camera.undistort(f, lens)
                ts.append(time.perf_counter() - t0)
        print(f"undistort {w}x{h} {name}: median {1e3 * statistics.median(ts):.2f} ms, "
              f"p99 {1e3 * pct(ts, 0.99):.2f} ms per frame")


def bench_sources(frames: list[np.ndarray]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        h, w = frames[0].shape[:2]
        video = tmp / "game.avi"
        writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, (w, h))
        for _ in range(4):
            for f in frames:
                writer.write(f)
        writer.release()
        folder = tmp / "frames"
        folder.mkdir()
        for i, f in enumerate(frames):
            cv2.imwrite(str(folder / f"{i:04d}.png"), f)
        for name, src in (("MJPEG video", VideoCaptureSource(video, start_ns=0)),
                          ("folder of PNG", FolderSource(folder, start_ns=0))):
            t0 = time.perf_counter()
            n = sum(1 for _ in src)
            dt = time.perf_counter() - t0
            src.close()
            print(f"{name} source, {w}x{h}: {n} frames at {n / dt:.0f} frames/s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    frames = bench_table(args.frames, args.seed)
    bench_undistort(frames)
    bench_sources(frames)


if __name__ == "__main__":
    main()
