"""The cloth and what lies on it: the cloth's colour at every place of a top view (glare on it
included), and where something other than the cloth lies."""
from __future__ import annotations

import cv2
import numpy as np

from ligretto_vision.config.detect import DetectConfig

DEFAULTS = DetectConfig()


def cloth_field(top: np.ndarray, cfg: DetectConfig = DEFAULTS) -> np.ndarray:
    """The cloth's colour at every place of a 1 px/mm top view (H, W, 3 float32).

    The table's most common colour, brightened where a lamp's glare lies on it. Glare adds the
    lamp's light to every channel alike (a channel at full brightness can gain no more); a card
    of any colour differs from the cloth unevenly. The glare on the cloth's own cells (near its
    colour, or evenly brighter) is smoothed over them and filled in from around where cards lie;
    only glare moves the field, so a card coloured like the cloth stays off it."""
    threshold = cfg.cloth_threshold
    cloth = np.median(top[::8, ::8].reshape(-1, 3), axis=0).astype(np.float32)
    f = 1.0 / cfg.glare_cell_mm
    if min(top.shape[:2]) * f < 3:
        return np.broadcast_to(cloth, top.shape).astype(np.float32)  # too small a view to tell
    small = cv2.resize(top, None, fx=f, fy=f, interpolation=cv2.INTER_AREA).astype(np.float32)
    gain = small - cloth
    room = small < cfg.glare_full
    top_gain = np.where(room, gain, -np.inf).max(2)
    low_gain = np.where(room, gain, np.inf).min(2)
    # a channel that hit full brightness lost some of its gain, never gained more than the others
    lost = np.where(room, -np.inf, gain).max(2) <= top_gain + cfg.glare_clip_slack
    even = np.where(room.any(2), (top_gain - low_gain < cfg.glare_even_share * gain.mean(2) + cfg.glare_even_slack)
                    & lost, True)
    # glare: evenly brighter by more than the cloth's own weave or grain differs
    glare = even & (gain.min(2) > cfg.glare_min_gain) & (gain.mean(2) > threshold / 2)
    w = (glare | (np.abs(gain).max(2) < threshold)).astype(np.float32)  # the cloth's own cells
    sigma = cfg.glare_smooth_mm / cfg.glare_cell_mm
    lift = gain * glare[..., None]
    near = cv2.GaussianBlur(w, (0, 0), sigma)[..., None]
    filled = np.where(near > cfg.glare_fill_min, cv2.GaussianBlur(lift * w[..., None], (0, 0), sigma) / (near + 1e-3), 0)
    return cloth + cv2.resize(filled, (top.shape[1], top.shape[0]), interpolation=cv2.INTER_LINEAR)


def not_cloth(top: np.ndarray, exclude: list[tuple[float, float, float]] = (),
              cloth: np.ndarray | None = None, light: float = 1.0, cfg: DetectConfig = DEFAULTS) -> np.ndarray:
    """Where a 1 px/mm top view shows something other than the cloth (uint8 0/1).

    Not the cloth: a colour far from the cloth's (`cloth_field`: glare on the cloth is still
    cloth), or the busy texture of a card (numerals, balls, edges) on a plain cloth, so that
    a blue card on a blue cloth is still found. `exclude`: (x, y, radius) places to ignore,
    such as the markers. `cloth`: the cloth's colour (or its field, cut to this view) when
    known (a small view may be mostly cards). `light`: see `light_level`; in dim light every
    difference is smaller."""
    threshold = cfg.cloth_threshold
    if cloth is None:
        cloth = cloth_field(top, cfg)
    off = np.abs(top.astype(np.float32) - cloth).max(axis=2) > threshold * light
    grey = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)
    window = (cfg.busy_window_px, cfg.busy_window_px)
    mean = cv2.blur(grey, window)
    std = np.sqrt(np.maximum(cv2.blur(grey * grey, window) - mean * mean, 0))
    busy = std > cfg.busy_std * light
    busy = cv2.morphologyEx(busy.astype(np.uint8), cv2.MORPH_CLOSE,
                            np.ones((cfg.busy_close_px, cfg.busy_close_px), np.uint8)).astype(bool)
    off = (off | busy).astype(np.uint8)
    for x, y, r in exclude:
        cv2.circle(off, (int(x), int(y)), int(r), 0, -1)
    return cv2.morphologyEx(off, cv2.MORPH_OPEN, np.ones((cfg.cloth_open_px, cfg.cloth_open_px), np.uint8))
