"""The cloth and what lies on it: the cloth's colour at every place of a top view (glare on it
included), or a patterned cloth's colours, and where something other than the cloth lies.

A cloth is held as an array: (3,) one colour, (H, W, 3) its colour place by place (a plain
cloth with glare), or (K, 3) with K >= 2, the colours of a patterned cloth
(checks, stripes), each found all over the table."""
from __future__ import annotations

import cv2
import numpy as np

from ligretto_vision.config.detect import DetectConfig

DEFAULTS = DetectConfig()


def pattern_colours(top: np.ndarray, cfg: DetectConfig = DEFAULTS) -> np.ndarray | None:
    """The colours of a patterned cloth, (K, 3) float32 BGR, or None for a plain one. A cloth's
    colours lie all over the table, a card's in a few places; a pattern's colours lie far apart,
    a plain cloth's shading and weave close together."""
    step = 4
    small = np.ascontiguousarray(top[::step, ::step]).astype(np.float32)
    h, w = small.shape[:2]
    cell = max(1, int(round(cfg.pattern_cell_mm / step)))
    if h < 2 * cell or w < 2 * cell:
        return None  # too small a view to tell
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    cv2.setRNGSeed(0)
    _, labels, centres = cv2.kmeans(small.reshape(-1, 3), cfg.pattern_colours, None, criteria, 2,
                                    cv2.KMEANS_PP_CENTERS)
    labels = labels.reshape(h, w)
    cells = [labels[y:y + cell, x:x + cell] for y in range(0, h - cell + 1, cell) for x in range(0, w - cell + 1, cell)]
    spread = [np.mean([(c == k).mean() >= cfg.pattern_cell_least for c in cells]) for k in range(len(centres))]
    cloth = centres[[k for k, s in enumerate(spread) if s >= cfg.pattern_spread]]
    if len(cloth) < 2 or np.abs(cloth[:, None] - cloth[None]).max() < cfg.pattern_apart:
        return None
    return cloth.astype(np.float32)


def cloth_field(top: np.ndarray, cfg: DetectConfig = DEFAULTS) -> np.ndarray:
    """The cloth's colour at every place of a 1 px/mm top view (H, W, 3 float32), or a
    patterned cloth's colours ((K, 3), `pattern_colours`).

    The table's most common colour, brightened where a lamp's glare lies on it. Glare adds the
    lamp's light to every channel alike (a channel at full brightness can gain no more); a card
    of any colour differs from the cloth unevenly. The glare on the cloth's own cells (near its
    colour, or evenly brighter) is smoothed over them and filled in from around where cards lie;
    only glare moves the field, so a card coloured like the cloth stays off it."""
    threshold = cfg.cloth_threshold
    pattern = pattern_colours(top, cfg)
    if pattern is not None:
        return pattern
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


def cloth_distance(top: np.ndarray, cloth: np.ndarray) -> np.ndarray:
    """How far each pixel of `top` lies from the cloth (largest channel difference; from the
    nearest of a patterned cloth's colours)."""
    px = top.astype(np.float32)
    if cloth.ndim == 2:
        return np.min([_largest_channel(cv2.absdiff(px, np.broadcast_to(c, px.shape).astype(np.float32)))
                       for c in cloth], axis=0)
    return _largest_channel(cv2.absdiff(px, np.broadcast_to(cloth, px.shape).astype(np.float32)))


def _largest_channel(d: np.ndarray) -> np.ndarray:
    # cv2.max over the three planes: some ten times faster than numpy's max along a short last axis
    return cv2.max(cv2.max(d[..., 0], d[..., 1]), d[..., 2])


def cloth_spread(top: np.ndarray, cloth: np.ndarray, cfg: DetectConfig = DEFAULTS) -> float:
    """How far a whole table's cloth strays from its own colour (weave, grain, a pattern's
    shading, the camera's noise): a high share (`spread_percentile`) of the table's pixels lie
    this near it, as cards cover little of a table. A card stands out by a few times this."""
    return float(np.percentile(cloth_distance(top[::2, ::2], cloth[::2, ::2] if cloth.ndim == 3 else cloth),
                               cfg.spread_percentile))


def cloth_busy(top: np.ndarray, cfg: DetectConfig = DEFAULTS) -> float:
    """How busy a whole table's cloth is of itself (gravel, flowers, wood grain): the grey spread in
    `busy_window_px` windows that a high share (`spread_percentile`) of the table's pixels stay
    within, as cards cover little of a table."""
    return float(np.percentile(_grey_spread(top, cfg), cfg.spread_percentile))


def _grey_spread(top: np.ndarray, cfg: DetectConfig) -> np.ndarray:
    grey = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)
    window = (cfg.busy_window_px, cfg.busy_window_px)
    mean = cv2.blur(grey, window)
    return np.sqrt(np.maximum(cv2.blur(grey * grey, window) - mean * mean, 0))


def not_cloth(top: np.ndarray, exclude: list[tuple[float, float, float]] = (),
              cloth: np.ndarray | None = None, light: float = 1.0, cfg: DetectConfig = DEFAULTS,
              spread: float | None = None, busy: float = 0.0) -> np.ndarray:
    """Where a 1 px/mm top view shows something other than the cloth (uint8 0/1).

    Not the cloth: a colour far from the cloth's (`cloth_field`: glare on the cloth is still
    cloth), or the busy texture of a card (numerals, balls, edges) on a plain cloth, so that
    a blue card on a blue cloth is still found. `exclude`: (x, y, radius) places to ignore,
    such as the markers. `cloth`: the cloth's colour (or its field, cut to this view) when
    known (a small view may be mostly cards). `light`: see `light_level`; in dim light every
    difference is smaller. `busy`: the bare cloth's own busyness (`cloth_busy`): a card's print is
    busier than `busy_times` that."""
    if cloth is None:
        cloth = cloth_field(top, cfg)
    threshold = cfg.cloth_threshold * light
    if spread is not None and cloth.ndim != 2:
        # a plain cloth only: a pattern's colours fit its cells closely by construction, and the
        # cells' soft borders would stand out against so small a spread
        threshold = min(threshold, max(cfg.cloth_least, cfg.spread_times * spread))
    if cloth.ndim == 2:
        return _not_pattern(top, cloth, exclude, threshold, cfg)
    off = cloth_distance(top, cloth) > threshold
    printed = _grey_spread(top, cfg) > max(cfg.busy_std, cfg.busy_times * busy) * light
    printed = cv2.morphologyEx(printed.astype(np.uint8), cv2.MORPH_CLOSE,
                               np.ones((cfg.busy_close_px, cfg.busy_close_px), np.uint8)).astype(bool)
    off = (off | printed).astype(np.uint8)
    for x, y, r in exclude:
        cv2.circle(off, (int(x), int(y)), int(r), 0, -1)
    return cv2.morphologyEx(off, cv2.MORPH_OPEN, np.ones((cfg.cloth_open_px, cfg.cloth_open_px), np.uint8))


def _not_pattern(top: np.ndarray, colours: np.ndarray, exclude, threshold: float, cfg: DetectConfig) -> np.ndarray:
    """`not_cloth` on a patterned cloth: far from every one of its colours. A pattern is busy all
    over, so a card's busy print says nothing here; a card the colour of one of the pattern's
    cells (a white face on white checks) shows by its print and edges, and what they span is
    filled in (their convex hull: a card cut by the view's edge encloses nothing), where they span
    no more than a few cards."""
    off = (cloth_distance(top, colours) > threshold).astype(np.uint8)
    for x, y, r in exclude:
        cv2.circle(off, (int(x), int(y)), int(r), 0, -1)
    off = cv2.morphologyEx(off, cv2.MORPH_CLOSE, np.ones((cfg.cloth_open_px, cfg.cloth_open_px), np.uint8))
    contours, _ = cv2.findContours(off, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
        hull = cv2.convexHull(c)
        if cv2.contourArea(hull) <= cfg.pattern_fill_mm2:  # a card or a few; not the cloth's own lines (mortar, seams) joined up
            cv2.fillConvexPoly(off, hull, 1)
    return cv2.morphologyEx(off, cv2.MORPH_OPEN, np.ones((cfg.cloth_open_px, cfg.cloth_open_px), np.uint8))
