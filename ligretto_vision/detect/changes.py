"""What changed on the table: against the reference picture (foreground), since the last frame
(motion), and where a change has lain still long enough to be handed on.

All of it on the low-resolution top view the monitor makes each frame, except `change_mask`,
which compares two 1 px/mm crops of one place (before and after one change).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.detect.arms import NEVER, ArmTrace, blobs
from ligretto_vision.detect.light import light_gain, matched

DEFAULTS = DetectConfig()
_SUM = np.ones((1, 3), np.float32)


@dataclass
class Settled:
    frame: int  # the frame in which the change was found settled
    mask: np.ndarray  # bool, low-res: where the table changed
    bbox_mm: tuple[float, float, float, float]
    arms: list[ArmTrace] = field(default_factory=list)
    history_start: int = 0  # the frame the arm histories begin at
    ppm: float = DEFAULTS.low_ppm  # of `mask`
    uncovered: bool = False  # what an arm lay over when watching began: a part of the table never seen till now
    bare_until: int = NEVER  # most of the change's place still showed the reference until this frame

    @property
    def centre_mm(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.bbox_mm
        return (x0 + x1) / 2, (y0 + y1) / 2

    def area_mm2(self) -> float:
        return float(self.mask.sum()) / self.ppm ** 2

    def near(self, x_mm: float, y_mm: float, within_mm: float) -> bool:
        """Does the change come within `within_mm` of this table point?"""
        ys, xs = np.nonzero(self.mask)
        return len(xs) > 0 and float(np.hypot((xs + 0.5) / self.ppm - x_mm, (ys + 0.5) / self.ppm - y_mm).min()) <= within_mm


def box_of(mask: np.ndarray) -> tuple[int, int, int, int]:
    """The bounding box (x, y, w, h) of a bool mask's pixels."""
    ys, xs = np.nonzero(mask)
    return int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


def _l1(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-pixel colour difference, summed over channels (saturating at 255); cv2 is far faster
    than a numpy reduction over a 3-long last axis."""
    return cv2.transform(cv2.absdiff(a, b), _SUM)


def _above_noise(diff: np.ndarray, threshold: int, cfg: DetectConfig) -> np.ndarray:
    """Where a colour difference exceeds `threshold`, risen with the picture's own noise (sensor
    noise, compression flicker)."""
    return diff > max(threshold, cfg.noise_factor * float(np.median(diff[::4, ::4])))


class ChangeWatch:
    """The reference picture of the table as last accepted, and per low-res pixel when it last
    moved and when its change was last taken in."""

    def __init__(self, shape: tuple[int, int], cfg: DetectConfig = DEFAULTS):
        self.cfg = cfg
        self.ref: np.ndarray | None = None
        self.prev: np.ndarray | None = None
        self.low: np.ndarray | None = None  # the latest top view, in the reference's light
        self.gain = np.ones(3, np.float32)  # today's light -> the reference's light, per channel
        self.fg = np.zeros(shape, np.uint8)  # differs from the reference, in the latest frame
        self.last_motion = np.full(shape, NEVER, np.int32)
        # when the referee last took in the change at each pixel: an arm that was there before
        # belongs to that change, not to the next one at the same place
        self.accepted = np.full(shape, NEVER, np.int32)
        # the last frame each pixel showed the reference: an arm gone before a change's place last
        # did so laid nothing there
        self.bare_at = np.full(shape, NEVER, np.int32)
        self.kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        self._first_cloth: np.ndarray | None = None

    def in_reference_light(self, low: np.ndarray) -> np.ndarray:
        """Undo a change of light over the whole table (a lamp, a cloud) against the reference."""
        self.gain = light_gain(low, self.ref, 4)
        return matched(low, self.gain, self.cfg.light_tolerance)

    def restart_motion(self, low: np.ndarray) -> None:
        """The next frame's motion is measured against `low` (a new mapping: the jump is no motion)."""
        self.prev = self.in_reference_light(low)

    def look(self, index: int, low: np.ndarray, seats_before: np.ndarray | None,
             ignore: np.ndarray | None = None) -> np.ndarray:
        """Take in frame `index`'s top view: its light matched, its motion (returned, bool) and
        its foreground (`fg`). `seats_before`: the arms' seat map a frame ago, if any; `ignore`:
        where nothing is to be seen changing (bool), if anywhere."""
        if self.ref is None:
            self.ref = low.copy()
            self.prev = low
        low = self.in_reference_light(low)
        self.low = low
        # a lone flickering pixel is not motion
        motion = _above_noise(_l1(low, self.prev), self.cfg.motion_threshold, self.cfg)
        motion = cv2.morphologyEx(motion.astype(np.uint8), cv2.MORPH_OPEN, self.kernel).astype(bool)
        if ignore is not None:
            motion[ignore] = False
        self.prev = low
        # where an arm lay a frame ago (moving on, or gone) the arm moved then, not what it uncovers now
        self.last_motion[motion] = index - (seats_before[motion] >= 0) if seats_before is not None else index
        fg = _above_noise(_l1(low, self.ref), self.cfg.fg_threshold, self.cfg).astype(np.uint8)
        if ignore is not None:
            fg[ignore] = 0
        self.fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, self.kernel)
        np.copyto(self.bare_at, index, where=self.fg == 0)
        return motion

    def bare_until(self, mask: np.ndarray) -> int:
        """The frame until which `cfg.bare_share` of the place `mask` (low-res bool) still showed
        the reference."""
        return int(np.quantile(self.bare_at[mask], 1.0 - self.cfg.bare_share, method="lower")) if mask.any() else NEVER

    def uncovered(self, comp: np.ndarray, box, index: int, still_frames: int) -> bool:
        """Is this arm-shaped blob (bool `comp` in `box`) the place an arm lay over when watching
        began, now bare? Hardly taken in since, still for `still_frames`, and showing more bare cloth
        (the reference's commonest colour) than the reference does there: an arm covers cloth, the
        arm that has gone uncovers it."""
        x, y, w, h = box
        win = (slice(y, y + h), slice(x, x + w))
        if (self.accepted[win][comp] != NEVER).mean() > self.cfg.uncovered_seen or \
                (index - self.last_motion[win][comp]).min() < still_frames:
            return False
        return float(self._bare(self.low[win][comp]).mean() - self._bare(self.ref[win][comp]).mean()) >= \
            self.cfg.uncovered_cloth

    def uncovered_part(self, comp: np.ndarray, box, index: int, still_frames: int,
                       border: np.ndarray) -> np.ndarray | None:
        """The part of an arm's blob (bool `comp` in `box`; `border`: the view's edge band in that
        window) where an arm lay when watching began and bare cloth shows now, while other arms
        still join it (all arms meet at the piles: the blob as a whole never lies still). Pixels
        never taken in, still for `still_frames`, bare cloth now but not in the reference; of them
        the pieces that reach from the view's edge as deep in as an arm (`uncovered_reach_mm`: a card
        taken from a player's line leaves bare cloth too, nearer the edge), each at least
        `uncovered_part_px`. None when there is no such part."""
        x, y, w, h = box
        win = (slice(y, y + h), slice(x, x + w))
        least = self.cfg.uncovered_part_px
        part = comp & (self.accepted[win] == NEVER) & (index - self.last_motion[win] >= still_frames)
        if part.sum() < least:
            return None
        part[part] = self._bare(self.low[win][part]) & ~self._bare(self.ref[win][part])  # (an arm resting: never)
        if part.sum() < least:
            return None
        part = cv2.morphologyEx(part.view(np.uint8), cv2.MORPH_OPEN, self.kernel)
        n, labels, stats, _ = blobs(part)
        keep = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= least and border[labels == k].any()
                and self._deepest(labels == k, box, border) >= self.cfg.uncovered_reach_mm]
        return np.isin(labels, keep) if keep else None

    def _deepest(self, part: np.ndarray, box, border: np.ndarray) -> float:
        """How far (mm) `part` (bool, in the window `box`; `border`: the edge band there) reaches in
        from the view's edge it crosses (not the nearest edge: an arm near a corner, or along a
        narrow table, reaches deep from its own edge while it passes near another)."""
        ys, xs = np.nonzero(part)
        h, w = self.fg.shape
        xs, ys = xs + box[0] + 0.5, ys + box[1] + 0.5
        depths = np.stack([xs, w - xs, ys, h - ys])  # from the left, right, top, bottom edge
        crossing = border[part]
        edges = np.unique(depths[:, crossing].argmin(axis=0))  # the edge each crossing pixel lies at
        return float(depths[edges].max()) / self.cfg.low_ppm

    def _bare(self, pixels: np.ndarray) -> np.ndarray:
        """Which of these pixels (..., 3) show bare cloth: near the first picture's commonest colour."""
        if self._first_cloth is None:  # the first picture's commonest colour: the cloth then
            self._first_cloth = np.median(self.ref[::2, ::2].reshape(-1, 3), axis=0)
        return np.abs(pixels.astype(np.float32) - self._first_cloth).max(axis=-1) < self.cfg.cloth_threshold

    def accept(self, mask: np.ndarray, frame: int) -> None:
        """A change taken in: it becomes part of the reference picture."""
        grown = cv2.dilate(mask.astype(np.uint8), self.kernel).astype(bool)
        self.ref[grown] = self.low[grown]
        self.accepted[grown] = frame


def still_pieces(fg: np.ndarray, seat_map: np.ndarray, still_since: np.ndarray, border: np.ndarray,
                 kernel: np.ndarray, cfg: DetectConfig = DEFAULTS) -> list[tuple[np.ndarray, tuple]]:
    """Parts of arm blobs that have lain still (`still_since`: frames since each pixel last moved)
    for `cfg.piece_still_s` and are no arm: cards laid down. Each as (bool mask, box x, y, w, h)."""
    still = (fg > 0) & (seat_map >= 0) & still_since
    still = cv2.morphologyEx(still.astype(np.uint8), cv2.MORPH_OPEN, kernel)
    n, labels, stats, _ = blobs(still)
    out = []
    for k in range(1, n):
        x, y, w, h, area = stats[k]
        if area < cfg.piece_min_px or border[y:y + h, x:x + w][labels[y:y + h, x:x + w] == k].any():
            continue
        out.append((labels == k, (x, y, w, h)))
    return out


def change_mask(after: np.ndarray, before: np.ndarray, cfg: DetectConfig = DEFAULTS) -> np.ndarray:
    """Where `after` differs from `before` (1 px/mm crops of one place), the light of the two
    moments made alike first: a lamp or a cloud between them is not a change (and in dimmer
    light every difference is smaller: the threshold is scaled with it)."""
    threshold = cfg.change_threshold
    gain = light_gain(before, after)
    alike = matched(before, gain, cfg.light_tolerance)
    if alike is not before:
        threshold = threshold * float(np.clip(gain.mean(), cfg.dimmest_light, 1.0))
    d = cv2.absdiff(after, alike).max(axis=2) > threshold
    d = cv2.morphologyEx(d.astype(np.uint8), cv2.MORPH_OPEN, np.ones((cfg.change_open_px,) * 2, np.uint8))
    return cv2.morphologyEx(d, cv2.MORPH_CLOSE, np.ones((cfg.change_close_px,) * 2, np.uint8)).astype(bool)
