"""A camera that shakes: how far the picture has moved against the reference top view, frame by frame.

A camera on a lamp or a clamp vibrates by a fraction of a pixel to a few pixels; at that scale the
move is a shift of the whole picture. It is found in the low-resolution top view as the one shift
that best explains the difference from the reference through the reference's own gradients (a
Lucas-Kanade step over the whole table: the table's texture and everything on it are the guide);
pixels that differ a lot (an arm, a card just laid) have no say, and a change of light is taken
out first. Each step looks again with the shift so far taken out; two give it to a tenth of a pixel.
The reference's gradients are worked out when next needed after a change is accepted, not per frame.
"""
from __future__ import annotations

import cv2
import numpy as np

from ligretto_vision.config.detect import DetectConfig

DEFAULTS = DetectConfig()


def grey(view: np.ndarray) -> np.ndarray:
    """Grey and a little blurred (a step's linear guess then holds for shifts of a pixel or two)."""
    return cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32), (5, 5), 1.0)


class ShakeGauge:
    """The reference's gradients, and per look the shift (in top-view pixels) of a view against it."""

    def __init__(self, cfg: DetectConfig = DEFAULTS):
        self.cfg = cfg
        self.ref: np.ndarray | None = None

    def reference(self, ref_view: np.ndarray) -> None:
        """The reference top view (BGR) as now accepted."""
        g = grey(ref_view)
        # gradients per top-view pixel, taken at full resolution, kept at every second pixel (the
        # shift is told as well from a quarter of them)
        self.gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)[::2, ::2]
        self.gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)[::2, ::2]
        self.ref = g[::2, ::2].copy()
        self.ref_mean = float(self.ref.mean())
        rows = self.ref.shape[0]
        self.row = ((np.arange(rows, dtype=np.float32) + 0.5) / rows - 0.5)[:, None]  # -0.5 top .. 0.5 bottom

    def _difference(self, view: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The view's difference from the reference, a lamp's change taken out, and each pixel's
        say (an arm or a new card has none)."""
        now = grey(view)[::2, ::2]
        d = now * (self.ref_mean / max(float(now.mean()), 1.0)) - self.ref
        return d, (np.abs(d) < self.cfg.shake_outlier).astype(np.float32)

    def step(self, view: np.ndarray) -> tuple[float, float] | None:
        """The shift (x, y) by which `view` (BGR, the reference's size) shows the reference moved
        (view(p) = ref(p - s)); None where the table has too little texture to tell, or no reference."""
        if self.ref is None:
            return None
        d, w = self._difference(view)
        gxw, gyw = self.gx * w, self.gy * w
        axx, axy, ayy = float((gxw * self.gx).sum()), float((gxw * self.gy).sum()), float((gyw * self.gy).sum())
        a = np.array([[axx, axy], [axy, ayy]])
        if np.linalg.eigvalsh(a)[0] < self.cfg.shake_texture * max(float(w.sum()), 1.0):
            return None  # too little texture across one of the directions: a plain cloth, bare
        s = -np.linalg.solve(a, [float((gxw * d).sum()), float((gyw * d).sum())])
        return float(s[0]), float(s[1])

    def step_rows(self, view: np.ndarray) -> np.ndarray | None:
        """As `step`, with a shift that changes evenly from the view's top row to its bottom one (a
        rolling shutter reads the rows one after another while the camera shakes): (x, y) at the
        middle row and (x, y) more per view height downwards; None as for `step`."""
        if self.ref is None:
            return None
        d, w = self._difference(view)
        basis = [self.gx, self.gy, self.gx * self.row, self.gy * self.row]
        wb = [b * w for b in basis]
        a = np.array([[float((x * y).sum()) for y in basis] for x in wb])
        texture = self.cfg.shake_texture * max(float(w.sum()), 1.0)
        if np.linalg.eigvalsh(a[:2, :2])[0] < texture:
            return None
        b = [float((x * d).sum()) for x in wb]
        # texture only round the middle rows tells no change from top to bottom (the rows' weights
        # reach 1/12 of the shift's where texture is spread evenly): the shift alone then
        if np.linalg.eigvalsh(a[2:, 2:])[0] < texture / 12:
            return np.concatenate([-np.linalg.solve(a[:2, :2], b[:2]), [0.0, 0.0]])
        return -np.linalg.solve(a, b)
