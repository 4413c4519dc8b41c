"""Vision: camera frames to `Observation`s (the reading of each of the twelve zones).
Knows nothing of the rules."""
