"""The light on the table: undoing a change of light (a lamp, a cloud) between two pictures of one
place, and how bright the light is.

One way to match light, used by the per-frame top view (against the reference picture) and by
the close look at one change (the crop before against the crop after).
"""
from __future__ import annotations

import cv2
import numpy as np

from ligretto_vision.config.detect import DetectConfig

DEFAULTS = DetectConfig()


def light_gain(seen: np.ndarray, reference: np.ndarray, step: int = 1) -> np.ndarray:
    """Per channel, the gain (float32, 3) that takes the light of `seen` to the light of
    `reference` (two BGR pictures of one place): the median of their ratios, on every `step`-th
    pixel each way. Things that changed are few; the median sees the light."""
    a = seen[::step, ::step].reshape(-1, 3).astype(np.float32) + 1
    b = reference[::step, ::step].reshape(-1, 3).astype(np.float32) + 1
    return np.median(np.ascontiguousarray((b / a).T), axis=1)  # (each channel's ratios contiguous: faster)


def matched(seen: np.ndarray, gain: np.ndarray, tolerance: float = DEFAULTS.light_tolerance) -> np.ndarray:
    """`seen` in the light `gain` leads to (see `light_gain`); `seen` itself when the gain is
    within `tolerance` of 1 in every channel."""
    if np.all(np.abs(gain - 1) < tolerance):
        return seen
    return np.clip(seen.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def light_level(top: np.ndarray, cfg: DetectConfig = DEFAULTS) -> float:
    """How bright the light on a whole-table top view is, against a well-lit table (1.0): the
    whitest things (markers, card whites) reflect what the lamp gives. Contrasts scale with it."""
    grey = cv2.cvtColor(top[::2, ::2], cv2.COLOR_BGR2GRAY)
    return float(np.clip(np.percentile(grey, cfg.white_percentile) / cfg.white_level, cfg.dimmest_light, 1.0))
