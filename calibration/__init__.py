"""Producing and checking the calibration file: camera intrinsics, table homography, zone
layout, deck templates, pad wiring and referee options."""
