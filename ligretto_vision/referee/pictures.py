"""The referee's pictures of the table: the top view as last accepted (1 px/mm), the bare cloth,
and the close look at a change (its crop, what in it changed, the monitor's low-res region)."""
from __future__ import annotations

import cv2
import numpy as np

from ligretto_vision.detect.activity import ActivityMonitor, Settled
from ligretto_vision.detect.changes import change_mask
from ligretto_vision.detect.cloth import cloth_busy, cloth_field, not_cloth
from ligretto_vision.detect.outlines import card_area, cover
from ligretto_vision.geometry.calibration import Calibration
from ligretto_vision.geometry.zones import TableLayout
from ligretto_vision.recognise.patches import Pose

REGION_GROW_PX = 4  # a change's low-res mask, at 1 px/mm, is grown this much: its low-res pixels are 4 mm across


class TablePictures:
    def __init__(self, cal: Calibration, layout: TableLayout, monitor: ActivityMonitor, card_mm,
                 accept_margin_mm: float = 8.0):
        self.cal, self.layout, self.monitor, self.card_mm = cal, layout, monitor, card_mm
        self.accept_margin_mm = accept_margin_mm  # around a change only taken in, the region cropped
        self.ref_full: np.ndarray | None = None  # 1 px/mm top view of the table as last accepted
        self.cloth: np.ndarray | None = None  # the bare cloth's colour, cell by cell, when watching began
        self.busy = 0.0  # how busy the bare cloth is of itself (`cloth_busy`)
        self._regions: dict[Pose, tuple] = {}  # a card's place -> its low-res window and mask (piles' tops)

    def first_look(self, image: np.ndarray) -> np.ndarray:
        """The table as it lies when watching starts (1 px/mm), and the cloth's colour learned from it.
        It becomes the reference picture once the piles on it are known (`start`)."""
        top = self.cal.crop(image, (0, 0), (self.layout.w, self.layout.h))
        self.cloth = cloth_field(top, self.monitor.cfg)
        self.busy = cloth_busy(top, self.monitor.cfg)
        return top

    def start(self, top: np.ndarray) -> None:
        self.ref_full = top

    def crop_around(self, s: Settled, image: np.ndarray, margin: float):
        """The table around a change, seen from above at 1 px/mm: (origin mm, picture)."""
        return self.crop_box(s.bbox_mm, image, margin)

    def crop_box(self, box_mm, image: np.ndarray, margin: float):
        """The table around a box (x0, y0, x1, y1 mm), seen from above at 1 px/mm: (origin mm, picture)."""
        x0, y0, x1, y1 = box_mm
        origin = (max(0.0, x0 - margin), max(0.0, y0 - margin))
        size = (min(self.layout.w, x1 + margin) - origin[0], min(self.layout.h, y1 + margin) - origin[1])
        return origin, self.cal.crop(image, origin, size)

    def changed(self, s: Settled, origin, after: np.ndarray) -> np.ndarray:
        """Where the close look at a change differs from the table as last accepted (1 px/mm)."""
        return change_mask(after, _table_crop(self.ref_full, origin, after.shape), self.monitor.cfg) & \
            self.region_mask(s, origin, after.shape)

    def lay_before(self, pose: Pose) -> float:
        """The share of a card at `pose` that was not bare cloth in the table as last accepted: something
        lay there before the change now looked at."""
        origin, before = self._around(pose)
        if before.size == 0:
            return 0.0  # off the table
        off = not_cloth(before, cloth=self.cloth_now(origin, before.shape), light=self.light(), cfg=self.monitor.cfg,
                        busy=self.busy)
        return cover(off, origin, pose, self._middle())

    def look(self, pose: Pose) -> np.ndarray:
        """The table as last accepted where a card at `pose` lies (a copy), to tell later whether it
        has changed there since (`changed_since`)."""
        return self._around(pose)[1].copy()

    def changed_since(self, pose: Pose, look: np.ndarray) -> float:
        """The share of the middle of a card at `pose` where the table as last accepted differs from
        `look`, taken there earlier: a card laid there meanwhile that nobody was seen laying."""
        origin, now = self._around(pose)
        if now.size == 0:
            return 0.0  # off the table
        if now.shape != look.shape:
            return 1.0
        return cover(change_mask(now, look, self.monitor.cfg), origin, pose, self._middle())

    def uncovered_change(self, pose: Pose, looks: tuple[np.ndarray, np.ndarray], over: list[Pose],
                         edge_mm: float) -> tuple[float, float, float]:
        """Of a card at `pose` lying partly under the cards at `over`: the area (mm²) of it out from
        under them, less `edge_mm` along every edge (places are known to a few mm), where its coming
        showed (the two `looks` differ: a blue card laid on a blue one changed only its print), and
        the shares of that area where the table as last accepted differs from each of `looks` (the
        place when the card was taken in; before it came)."""
        origin, now = self._around(pose)
        if now.size == 0 or any(now.shape != look.shape for look in looks):
            return 0.0, 0.0, 0.0
        out = card_area(now.shape, origin, pose, self.card_mm)
        for p in over:
            out &= ~card_area(now.shape, origin, p, self.card_mm)
        k = 2 * int(round(edge_mm)) + 1
        out = cv2.erode(out.astype(np.uint8), np.ones((k, k), np.uint8)).astype(bool)
        out &= change_mask(*looks, self.monitor.cfg)
        if not out.any():
            return 0.0, 0.0, 0.0
        since, before = (float(change_mask(now, look, self.monitor.cfg)[out].mean()) for look in looks)
        return float(out.sum()), since, before

    def _around(self, pose: Pose) -> tuple[tuple[int, int], np.ndarray]:
        """The table as last accepted around a card at `pose`, whichever way it is turned: (origin mm, picture)."""
        reach = float(np.hypot(*self.card_mm)) / 2 + 2
        x0, y0 = max(0, int(pose.x - reach)), max(0, int(pose.y - reach))
        return (x0, y0), self.ref_full[y0:max(y0, int(pose.y + reach) + 1), x0:max(x0, int(pose.x + reach) + 1)]

    def _middle(self) -> tuple[float, float]:
        """A card's middle: a card laid beside another overlaps only its edge."""
        return self.card_mm[0] * 0.6, self.card_mm[1] * 0.6

    def cloth_now(self, origin, shape) -> np.ndarray:
        """The cloth's colour where a crop lies (a patterned cloth's colours: the same everywhere), in
        today's light."""
        here = self.cloth if self.cloth.ndim == 2 else _table_crop(self.cloth, origin, shape)
        return here / self.monitor.gain

    def light(self) -> float:
        """The light now against when watching began (1: the same, less: dimmer), as `light_level`
        scales: in dim light a card differs less from the cloth."""
        return float(np.clip(1.0 / self.monitor.gain.mean(), self.monitor.cfg.dimmest_light, 1.0))

    def region_mask(self, s: Settled, origin, shape) -> np.ndarray:
        """The monitor's low-res change mask, at 1 px/mm in the crop (`origin` >= 0, as `crop_box`
        gives), grown a little: `upscaled_window`."""
        return upscaled_window(s.mask, 1 / self.monitor.ppm, origin, shape[:2], REGION_GROW_PX)

    def accept(self, s: Settled, image: np.ndarray, origin=None, after=None) -> None:
        """The table as it now lies where this change lies becomes the reference (an arm or another
        card moving nearby is not taken in)."""
        if origin is None:
            origin, after = self.crop_around(s, image, self.accept_margin_mm)
        x0, y0 = int(round(origin[0])), int(round(origin[1]))
        h = min(after.shape[0], self.ref_full.shape[0] - y0)
        w = min(after.shape[1], self.ref_full.shape[1] - x0)
        where = self.region_mask(s, origin, after.shape)[:h, :w]
        self.ref_full[y0:y0 + h, x0:x0 + w][where] = after[:h, :w][where]

    def still_under_arm(self, pose: Pose, still_s: float) -> tuple[tuple[int, int, int, int], np.ndarray] | None:
        """The part of a card at `pose` that has lain still `still_s` under an arm, in the monitor's
        low-res pixels (window, mask), or None."""
        box, region = self.low_region(pose)
        still = self.monitor.still_under_arm(box, region, still_s)
        return None if still is None else (box, still)

    def low_region(self, pose: Pose) -> tuple[tuple[int, int, int, int], np.ndarray]:
        """The monitor's low-res pixels a card at `pose` covers: its window (x, y, w, h) and mask."""
        if pose not in self._regions:
            if len(self._regions) > 200:
                self._regions.clear()  # tops of piles long gone
            px = (pose.corners(self.card_mm) * self.monitor.ppm).astype(np.int32)
            h, w = self.monitor.fg.shape
            x0, y0 = np.clip(px.min(0), 0, (w - 1, h - 1))
            x1, y1 = np.clip(px.max(0) + 1, 1, (w, h))
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(mask, px - (x0, y0), 1)
            self._regions[pose] = ((int(x0), int(y0), int(x1 - x0), int(y1 - y0)), mask.astype(bool))
        return self._regions[pose]


def sticking_out(changed: np.ndarray, origin, pose: Pose, card_mm) -> float:
    """How much changed outside the top card, as a share of a card: a second card lies under it,
    sticking out."""
    around = np.zeros(changed.shape, np.uint8)
    cv2.fillConvexPoly(around, (pose.corners((card_mm[0] + 10, card_mm[1] + 10)) - origin).astype(np.int32), 1)
    return float((changed & ~around.astype(bool)).sum()) / (card_mm[0] * card_mm[1])


def upscaled_window(mask: np.ndarray, f: float, origin, shape: tuple[int, int], grow: int) -> np.ndarray:
    """The window at `origin` (x, y px, >= 0) of `shape` of bool `mask` scaled up `f` times as
    `cv2.resize(..., fx=f, fy=f, interpolation=cv2.INTER_NEAREST)` scales it, then grown by `grow`
    px (a square `dilate`), False past its end: the same pixels, but only the window's (and
    `grow` round it) are made, not the whole table's at 1 px/mm for each change looked at."""
    h, w = mask.shape
    big_h, big_w = int(round(h * f)), int(round(w * f))  # cv2.resize's size for fx = fy = f
    x0, y0 = int(round(origin[0])), int(round(origin[1]))
    out = np.zeros(shape, bool)
    if x0 >= big_w or y0 >= big_h:
        return out
    ys = np.arange(max(0, y0 - grow), min(big_h, y0 + shape[0] + grow))
    xs = np.arange(max(0, x0 - grow), min(big_w, x0 + shape[1] + grow))
    # INTER_NEAREST takes source pixel floor(x / f) (OpenCV: cvFloor(x * (1. / f)))
    rows = np.minimum((ys * (1.0 / f)).astype(np.intp), h - 1)
    cols = np.minimum((xs * (1.0 / f)).astype(np.intp), w - 1)
    win = cv2.dilate(np.ascontiguousarray(mask.view(np.uint8)[rows[:, None], cols[None, :]]),
                     np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
    sub = win[y0 - ys[0]:, x0 - xs[0]:][:shape[0], :shape[1]].astype(bool)
    out[:sub.shape[0], :sub.shape[1]] = sub
    return out


def _table_crop(full: np.ndarray, origin, shape) -> np.ndarray:
    """The part of a whole-table picture (1 px/mm) that a crop at `origin` of `shape` shows."""
    x0, y0 = int(round(origin[0])), int(round(origin[1]))
    out = full[y0:y0 + shape[0], x0:x0 + shape[1]]
    if out.shape[:2] != shape[:2]:
        out = cv2.resize(out, (shape[1], shape[0]))
    return out
