"""Watching the table for change, cheaply, every frame.

Each frame is shrunk to a low-resolution top view of the table (`low_ppm`: 4 mm per pixel)
and compared with a reference picture of the table as the referee last accepted it, in the
reference's light (detect/light.py). What differs is either an arm (it reaches in over the
table's edge, and belongs to the seat it crosses: detect/arms.py) or a change left behind (a
card put down, a card taken away: detect/changes.py). A change left behind that has stopped
moving and is no longer touched by any arm is handed on as `Settled`, with the recent history
of the arms that covered it, so the referee can tell who did it and when.

This is the only work done on every frame; everything else runs per settled change.
"""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.detect.arms import ArmHistory, ArmTrace, SeatMapper, blobs
from ligretto_vision.detect.changes import ChangeWatch, Settled, box_of, still_pieces
from ligretto_vision.detect.shake import ShakeGauge
from ligretto_vision.geometry.calibration import Calibration, picture_px_per_view
from ligretto_vision.geometry.zones import TableLayout

__all__ = ["ActivityMonitor", "ArmTrace", "Settled"]

DEFAULTS = DetectConfig()


class ActivityMonitor:
    """Per frame: the top view, its change against the reference and since the last frame, the
    arms' seat map; handed on: the changes that settled. `counting`: see `count_mode`."""

    def __init__(self, cal: Calibration, layout: TableLayout, fps: float, image_size: tuple[int, int],
                 cfg: DetectConfig = DEFAULTS, counting: bool = False):
        self.cal, self.layout, self.fps, self.cfg = cal, layout, fps, cfg
        self.ppm = cfg.low_ppm
        self.quiet = max(cfg.quiet_min_frames, int(round(cfg.quiet_s * fps)))
        self.piece_frames = int(cfg.piece_still_s * fps)
        self.uncovered_frames = max(1, int(round(cfg.uncovered_s * fps)))
        self.shrink = cfg.shrink if image_size[0] > cfg.shrink_above_px else 1.0
        self.size_low = (int(layout.w * self.ppm), int(layout.h * self.ppm))
        self.gauge = ShakeGauge(cfg)
        self.shaken_at = -10**9  # the last frame the picture was seen to shift
        self._maps()
        shape = (self.size_low[1], self.size_low[0])
        self.changes = ChangeWatch(shape, cfg)
        self.seats = SeatMapper(layout, shape, cfg)
        self.history = ArmHistory(fps, cfg)
        self.border = self.seats.border
        self.frame = -1
        self.ghosts_looked = -1  # the last frame arms' places from the first picture were looked for
        self.unarmed = 0.0  # share of the table that differs and is no arm's, in the latest frame
        self.piecewise = counting

    def count_mode(self, on: bool = True) -> None:
        """While cards are spread for the count, hands never leave the spread: then what has lain
        still is taken in piece by piece, without waiting for every arm to go."""
        self.piecewise = on

    # what the referee reads
    ref = property(lambda self: self.changes.ref, doc="the reference top view, as last accepted")
    low = property(lambda self: self.changes.low, doc="the latest top view, in the reference's light")
    fg = property(lambda self: self.changes.fg, doc="uint8: differs from the reference, in the latest frame")
    gain = property(lambda self: self.changes.gain, doc="today's light -> the reference's light, per channel")
    seat_hist = property(lambda self: self.history.seats, doc="per recent frame: the seat of each pixel's arm, -1 none")
    motion_hist = property(lambda self: self.history.motion, doc="per recent frame: where it moved")

    def _maps(self) -> None:
        w, h = self.size_low
        xs = (np.arange(w) + 0.5) / self.ppm
        ys = (np.arange(h) + 0.5) / self.ppm
        gx, gy = np.meshgrid(xs, ys)
        px = self.cal.to_px(np.stack([gx.ravel(), gy.ravel()], 1)) * self.shrink
        self.map_x, self.map_y = px[:, 0].reshape(h, w).astype(np.float32), px[:, 1].reshape(h, w).astype(np.float32)
        self.map1, self.map2 = cv2.convertMaps(self.map_x, self.map_y, cv2.CV_16SC2)
        self.px_per_low = picture_px_per_view(self.map_x, self.map_y)  # (shrunk) picture px per top-view px
        self.shake = np.zeros(2)  # the picture's shift now, in top-view pixels (detect/shake.py)
        # the table markers' squares: taped down, never played on, and so sharp that what is left of
        # a shake after it was taken out shows on them as a change
        squares = np.zeros((h, w), np.uint8)
        for corners in self.cal.marker_px.values():
            cv2.fillConvexPoly(squares, np.int32(np.round(self.cal.to_mm(corners) * self.ppm)), 1)
        self.marker_squares = cv2.dilate(squares, np.ones((9, 9), np.uint8)).astype(bool)  # with their paper margin

    def recalibrate(self, cal: Calibration, image: np.ndarray) -> None:
        """A new mapping to the table; the reference (a top view, in table millimetres) stays."""
        self.cal = cal
        self._maps()
        self.changes.restart_motion(self._steady_view(image))  # the jump itself is no motion

    @property
    def shake_px(self) -> tuple[float, float]:
        """The picture's shift now against the reference, in camera pixels (0, 0: still)."""
        x, y = self.px_per_low @ self.shake / self.shrink
        return float(x), float(y)

    def low_view(self, image: np.ndarray) -> np.ndarray:
        """The top view of `image`, with the camera's shake (as last found) taken out."""
        small = image if self.shrink == 1.0 else cv2.resize(image, None, fx=self.shrink, fy=self.shrink,
                                                             interpolation=cv2.INTER_AREA)
        if not self.shake.any():
            return cv2.remap(small, self.map1, self.map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        ox, oy = self.px_per_low @ self.shake
        return cv2.remap(small, self.map_x + np.float32(ox), self.map_y + np.float32(oy), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)

    def _steady_view(self, image: np.ndarray) -> np.ndarray:
        """The top view with the shake taken out: starting from the last frame's shift (a vibration
        goes on), looked at again while the gauge still finds a shift worth taking out."""
        low = self.low_view(image)
        still = self.frame - self.shaken_at > self.cfg.shake_memory_frames
        if not self.cfg.follow_shake or (still and self.frame % self.cfg.shake_every_frames):
            return low  # a still camera is looked at for a shake only now and then
        if self.gauge.ref is None and self.changes.ref is not None:
            self.gauge.reference(self.changes.ref)  # once per accepted change, not per frame
        for _ in range(self.cfg.shake_steps):
            step = self.gauge.step(low)
            if step is None or np.hypot(*step) < self.cfg.shake_min_px:
                break
            self.shake = self.shake + step
            self.shaken_at = self.frame
            if np.hypot(*self.shake) > self.cfg.shake_max_px:  # a knock, not a shake: the markers tell
                self.shake = np.zeros(2)
            low = self.low_view(image)
        return low

    def update(self, index: int, image: np.ndarray) -> list[Settled]:
        self.frame = index
        motion = self.changes.look(index, self._steady_view(image), self.history.seats[-1] if self.history.seats else None,
                                   self.marker_squares if index - self.shaken_at <= self.cfg.shake_memory_frames else None)
        fg = self.changes.fg
        seat_map, settled = self._blobs(index, fg, motion)
        if self.piecewise:
            lain_still = (index - self.changes.last_motion) >= self.piece_frames
            settled += [self._settled(mask, box) for mask, box in
                        still_pieces(fg, seat_map, lain_still, self.border, self.changes.kernel, self.cfg)]
        # share of the table that differs and is no arm's: a jump means the picture itself moved
        self.unarmed = float(((fg > 0) & (seat_map < 0)).mean())
        self.history.push(index, seat_map, motion, self.seats.reach(seat_map))
        return settled

    def _blobs(self, index: int, fg: np.ndarray, motion: np.ndarray) -> tuple[np.ndarray, list[Settled]]:
        """Each blob of the foreground: an arm (it crosses the edge; its pixels' seats go into the
        seat map), still moving (a hand cut off from its arm is adopted), or settled."""
        cfg, last_motion = self.cfg, self.changes.last_motion
        n, labels, stats, _ = blobs(fg)
        seat_map = np.full(fg.shape, -1, np.int8)
        settled, moving = [], []
        # an arm's place from the first picture lies there until taken in: looked for now and then
        ghosts = index - self.ghosts_looked >= self.uncovered_frames
        if ghosts:
            self.ghosts_looked = index
        for k in range(1, n):
            x, y, w, h, area = stats[k]
            if area < cfg.min_blob_px:
                continue
            comp = labels[y:y + h, x:x + w] == k
            edge = self.border[y:y + h, x:x + w]
            if edge[comp].any():  # an arm, or an arm's place from the first picture
                if self.changes.uncovered(comp, (x, y, w, h), index, self.uncovered_frames):
                    settled.append(self._uncovered(comp, (x, y)))
                    continue
                gone = self.changes.uncovered_part(comp, (x, y, w, h), index, self.uncovered_frames,
                                                   edge) if ghosts else None
                if gone is not None:
                    settled.append(self._uncovered(gone, (x, y)))
                part = self.seats.seat_part(labels, k, (x, y, w, h), self.changes.low)
                seat_map[y:y + h, x:x + w][comp] = part[comp]
                continue
            if (index - last_motion[y:y + h, x:x + w][comp]).min() < self.quiet:
                if area >= cfg.hand_px and motion[y:y + h, x:x + w][comp].mean() >= cfg.hand_moving:
                    moving.append(k)  # moving all over (a card just laid only settles): a hand cut off from its arm?
                continue  # still moving
            mask = np.zeros(fg.shape, bool)
            mask[y:y + h, x:x + w] = comp
            settled.append(self._settled(mask, (x, y, w, h)))
        if moving:
            self.seats.adopt(labels, moving, seat_map, index)
        return seat_map, settled

    def _uncovered(self, part: np.ndarray, origin: tuple[int, int]) -> Settled:
        """A part (bool, in its window at `origin`) handed on as what an arm lay over when watching began."""
        mask = np.zeros(self.fg.shape, bool)
        mask[origin[1]:origin[1] + part.shape[0], origin[0]:origin[0] + part.shape[1]] = part
        return replace(self._settled(mask, box_of(mask)), uncovered=True)

    def still_under_arm(self, box: tuple[int, int, int, int], region: np.ndarray, still_s: float) -> np.ndarray | None:
        """Where a change inside `region` (low-res bool, of the window `box` = x, y, w, h: a
        pile's top card) has lain still for `still_s` while it is still joined to an arm's blob
        (an arm passing by, or lying over part of it), so it cannot settle on its own: that still
        part (in the window), when it covers at least `under_arm_share` of the region."""
        x, y, w, h = box
        win = (slice(y, y + h), slice(x, x + w))
        need = self.cfg.under_arm_share * int(region.sum())
        ch = (self.fg[win] > 0) & region
        if not need or ch.sum() < need or (self.history.seats[-1][win][ch] >= 0).mean() <= self.cfg.joined_share:
            return None  # too little changed, or not joined to an arm: it settles the usual way
        still = ch & (self.frame - self.changes.last_motion[win] >= still_s * self.fps)
        return still if still.sum() >= need else None

    def settled_part(self, box: tuple[int, int, int, int], part: np.ndarray) -> Settled:
        """A part of the table (low-res bool, of the window `box`) handed on as settled, with its
        arms' history."""
        x, y, w, h = box
        mask = np.zeros(self.fg.shape, bool)
        mask[y:y + h, x:x + w] = part
        return self._settled(mask, box_of(mask))

    def _settled(self, mask: np.ndarray, box) -> Settled:
        x, y, w, h = box
        ppm = self.ppm
        bbox = (x / ppm, y / ppm, (x + w) / ppm, (y + h) / ppm)
        start = self.history.start(self.frame)
        bare = self.changes.bare_until(mask & (self.fg > 0))  # (a region given may hold unchanged parts)
        arms = self.history.traces(mask, box, self.changes.accepted, self.seats.depth)
        arms = [a for a in arms if a.last >= bare]
        return Settled(self.frame, mask, bbox, arms, start, ppm, bare_until=bare)

    def arms_near(self, s: Settled, reach_mm: float) -> list[ArmTrace]:
        """The arms that came within `reach_mm` of a change just settled: where a hand or forearm is
        the cloth's colour (skin on wood), the arm seen ends short of the card it laid."""
        k = 2 * int(round(reach_mm * self.ppm)) + 1
        grown = cv2.dilate(s.mask.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))).astype(bool)
        return self.history.traces(grown, box_of(grown), self.changes.accepted, self.seats.depth)

    def arms_on_table(self) -> bool:
        """Is any arm reaching over the table in the latest frame? (A small still change at the
        table's edge is none: `ArmHistory.arms_on_table`.)"""
        return self.history.arms_on_table(self.frame, self.changes.last_motion)

    def accept(self, s: Settled) -> None:
        """The referee has taken this change in: it becomes part of the reference picture."""
        self.changes.accept(s.mask, self.frame)
        self.gauge.ref = None  # worked out again when the gauge next looks
