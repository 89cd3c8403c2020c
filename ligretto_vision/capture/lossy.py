"""Frames lost as a USB camera or a Pi busy elsewhere loses them, in bursts: for measuring how the
referee judges around gaps (`ligretto-vision replay SCENE --lose-frames SHARE`). The frames that
come keep their numbers, as a live source numbers frames by their capture time
(`capture.frame.frame_number`), so the log stays comparable with the scene's truth."""
from __future__ import annotations

from typing import Iterable, Iterator

import numpy as np

from ligretto_vision.capture.frame import Frame
from ligretto_vision.errors import LigrettoError

LONGEST_BURST = 4  # frames lost at once, at most: a camera's buffer overrun, a slow moment on the Pi


def losing_frames(frames: Iterable[Frame], share: float, seed: int = 0) -> Iterator[Frame]:
    """`frames` with about `share` of them lost, in bursts of 1 to LONGEST_BURST; the first frame
    always comes (the table is calibrated from it)."""
    if not 0.0 <= share < 1.0:
        raise LigrettoError(f"the share of frames lost must be at least 0 and below 1, not {share:g}")
    return _losing(frames, share / ((1 + LONGEST_BURST) / 2), np.random.default_rng(seed))


def _losing(frames: Iterable[Frame], start: float, rng: np.random.Generator) -> Iterator[Frame]:
    """`start`: the chance, per frame, that a burst begins."""
    skip, came = 0, False  # a burst is followed by a frame that comes (else two would be one)
    for frame in frames:
        if skip:
            skip -= 1
        elif came and rng.random() < start:
            skip, came = int(rng.integers(1, LONGEST_BURST + 1)) - 1, False
        else:
            came = True
            yield frame
