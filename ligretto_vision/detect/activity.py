"""Watching the table for change, cheaply, every frame.

Each frame is shrunk to a low-resolution top view of the table (4 mm per pixel)
and compared with a reference picture of the table as the referee last accepted
it. What differs is either an arm (it reaches in over the table's edge, and
belongs to the seat it crosses) or a change left behind (a card put down, a card
taken away). A change left behind that has stopped moving and is no longer
touched by any arm is handed on as `Settled`, with the recent history of the
arms that covered it, so the referee can tell who did it and when.

This is the only work done on every frame; everything else runs per settled change.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from ligretto_vision.geometry.calibration import Calibration
from ligretto_vision.geometry.zones import TableLayout

LOW_PPM = 0.25  # 4 mm per pixel
FG_THRESHOLD = 45  # summed over the three channels: a pixel differs from the reference
MOTION_THRESHOLD = 30  # summed over the three channels: a pixel changed since the last frame
_SUM = np.ones((1, 3), np.float32)


def _l1(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-pixel colour difference, summed over channels (saturating at 255); cv2 is far faster
    than a numpy reduction over a 3-long last axis."""
    return cv2.transform(cv2.absdiff(a, b), _SUM)
HISTORY_S = 1.2  # how far back the arm and motion history reaches
BESIDE_PX = 12  # low-res pixels (48 mm) around a region where the hand that worked on it lies
HAND_PX = 40  # low-res pixels (640 mm2): a moving blob this big may be a hand
HAND_MOVING = 0.4  # share of a blob moving in this frame: a hand, not a card coming to rest
ARM_TIP_MM = 60.0  # the far end of an arm, from its edge
LOOSE_FRAMES = 5  # how long a loose hand's seat is remembered where it was
HAND_GAP_PX = 25  # low-res pixels (100 mm): a hand this near the end of an arm is its hand
WITHDRAWING = 0.2  # share of an arm's pixels beside a region that move: the arm is going
EDGE_STILL_S, EDGE_SMALL_MM2 = 1.0, 2500.0  # a change at the edge still this long and this small is no arm
UNDER_ARM_SHARE = 0.3  # a change still joined to an arm is handed on early when its still part covers this


@dataclass
class ArmTrace:
    seat: int  # index into layout.seats
    first: int  # first frame this seat's arm covered the region
    last: int  # last frame it covered the region
    peak: float  # the largest share of the region it covered
    cover: np.ndarray  # share of the region it covered, per frame of history
    overshoot: float = 0.0  # mm the arm reached beyond the region's far side when it covered it most
    let_go: int = -1  # the last frame its hand lay still beside the region before it withdrew

    def arrived(self, start: int, share: float = 0.85) -> int:
        """The frame its hand came to rest on the region: coverage first reached most of its peak
        (a card held in the hand is part of the arm, so this is when the card got there)."""
        i = int(np.argmax(self.cover >= share * self.peak))
        return start + i


@dataclass
class Settled:
    frame: int  # the frame in which the change was found settled
    mask: np.ndarray  # bool, low-res: where the table changed
    bbox_mm: tuple[float, float, float, float]
    arms: list[ArmTrace] = field(default_factory=list)
    motion: np.ndarray | None = None  # share of the region moving, per frame of history
    history_start: int = 0  # the frame the motion/arm histories begin at

    @property
    def centre_mm(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.bbox_mm
        return (x0 + x1) / 2, (y0 + y1) / 2

    def area_mm2(self) -> float:
        return float(self.mask.sum()) / LOW_PPM ** 2


def _colour_bins(pixels: np.ndarray) -> np.ndarray:
    """BGR pixels (N, 3) -> one of 8x8x8 colour bins."""
    p = pixels.astype(np.int32) >> 5
    return p[:, 0] * 64 + p[:, 1] * 8 + p[:, 2]


class ActivityMonitor:
    def __init__(self, cal: Calibration, layout: TableLayout, fps: float, image_size: tuple[int, int],
                 quiet_s: float = 0.1):
        self.cal, self.layout, self.fps = cal, layout, fps
        self.quiet = max(2, int(round(quiet_s * fps)))
        self.shrink = 0.5 if image_size[0] > 700 else 1.0
        self.size_low = (int(layout.w * LOW_PPM), int(layout.h * LOW_PPM))
        self._maps(image_size)
        self.ref: np.ndarray | None = None
        self.prev: np.ndarray | None = None
        h, w = self.size_low[1], self.size_low[0]
        self.last_motion = np.full((h, w), -10**6, np.int32)
        # when the referee last took in the change at each pixel: an arm that was there before
        # belongs to that change, not to the next one at the same place
        self.accepted = np.full((h, w), -10**6, np.int32)
        self.loose = np.full((h, w), -1, np.int8)  # hands cut off from their arms, as last given to a seat
        self.loose_at = np.full((h, w), -10**6, np.int32)  # and when
        n = int(HISTORY_S * fps)
        self.seat_hist: deque[np.ndarray] = deque(maxlen=n)  # int8 seat index per pixel, -1 none
        self.motion_hist: deque[np.ndarray] = deque(maxlen=n)
        self.frame_hist: deque[int] = deque(maxlen=n)  # the frame each history entry belongs to (some may be skipped)
        self.reach_hist: deque[dict[int, float]] = deque(maxlen=n)  # seat -> how far in its arm reached, mm
        # each seat's arm colours (sleeve, skin), learnt from arms that are alone on the table;
        # they tell two arms apart where they touch or cross
        self.arm_colours = np.zeros((len(layout.seats), 512), np.float32)
        ys, xs = np.mgrid[0:h, 0:w]
        self._px_mm = ((xs + 0.5) / LOW_PPM, (ys + 0.5) / LOW_PPM)
        # each low-res pixel's depth into the table from each seat's edge (mm): fixed geometry
        self._depth = [self._depth_from(k, *self._px_mm) for k in range(len(layout.seats))]
        self.frame = -1
        self.border = np.zeros((h, w), bool)
        self.border[:2, :] = self.border[-2:, :] = self.border[:, :2] = self.border[:, -2:] = True
        self.low: np.ndarray | None = None
        self.fg = np.zeros((h, w), np.uint8)  # differs from the reference, in the latest frame
        self.unarmed = 0.0
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        self._beside = np.ones((2 * BESIDE_PX + 1,) * 2, np.uint8)
        # while cards are spread for the count, hands never leave the spread: then what has lain
        # still is taken in piece by piece, without waiting for every arm to go
        self.piecewise = False
        self.gain = np.ones(3, np.float32)

    def _maps(self, image_size) -> None:
        w, h = self.size_low
        xs = (np.arange(w) + 0.5) / LOW_PPM
        ys = (np.arange(h) + 0.5) / LOW_PPM
        gx, gy = np.meshgrid(xs, ys)
        px = self.cal.to_px(np.stack([gx.ravel(), gy.ravel()], 1)) * self.shrink
        self.map1, self.map2 = cv2.convertMaps(px[:, 0].reshape(h, w).astype(np.float32),
                                               px[:, 1].reshape(h, w).astype(np.float32), cv2.CV_16SC2)

    def recalibrate(self, cal: Calibration, image: np.ndarray) -> None:
        """A new mapping to the table; the reference (a top view, in table millimetres) stays."""
        self.cal = cal
        self._maps((image.shape[1], image.shape[0]))
        self.prev = self._match_light(self.low_view(image))  # the jump itself is no motion

    def low_view(self, image: np.ndarray) -> np.ndarray:
        small = image if self.shrink == 1.0 else cv2.resize(image, None, fx=self.shrink, fy=self.shrink,
                                                             interpolation=cv2.INTER_AREA)
        return cv2.remap(small, self.map1, self.map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def update(self, index: int, image: np.ndarray) -> list[Settled]:
        self.frame = index
        low = self.low_view(image)
        if self.ref is None:
            self.ref = low.copy()
            self.prev = low
        low = self._match_light(low)
        self.low = low
        # thresholds rise with the picture's own noise (sensor noise, compression flicker), and a
        # lone flickering pixel is not motion
        step = _l1(low, self.prev)
        motion = step > max(MOTION_THRESHOLD, 4 * float(np.median(step[::4, ::4])))
        motion = cv2.morphologyEx(motion.astype(np.uint8), cv2.MORPH_OPEN, self._kernel).astype(bool)
        self.prev = low
        # where an arm lay a frame ago (moving on, or gone) the arm moved then, not what it uncovers now
        self.last_motion[motion] = index - (self.seat_hist[-1][motion] >= 0) if self.seat_hist else index
        off = _l1(low, self.ref)
        fg = (off > max(FG_THRESHOLD, 4 * float(np.median(off[::4, ::4])))).astype(np.uint8)
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, self._kernel)
        self.fg = fg
        n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
        seat_map = np.full(fg.shape, -1, np.int8)
        settled, moving = [], []
        for k in range(1, n):
            x, y, w, h, area = stats[k]
            if area < 6:
                continue
            comp = labels[y:y + h, x:x + w] == k
            if self.border[y:y + h, x:x + w][comp].any():
                part = self._seat_map(labels, k, x, y, w, h)
                seat_map[y:y + h, x:x + w][comp] = part[comp]
                continue
            if (index - self.last_motion[y:y + h, x:x + w][comp]).min() < self.quiet:
                if area >= HAND_PX and motion[y:y + h, x:x + w][comp].mean() >= HAND_MOVING:
                    moving.append(k)  # moving all over (a card just laid only settles): a hand cut off from its arm?
                continue  # still moving
            mask = np.zeros(fg.shape, bool)
            mask[y:y + h, x:x + w] = comp
            settled.append(self._settled(mask, (x, y, w, h)))
        if moving:
            self._adopt(labels, moving, seat_map)
        if self.piecewise:
            settled += self._still_pieces(fg, seat_map, index)
        # share of the table that differs and is no arm's: a jump means the picture itself moved
        self.unarmed = float(((fg > 0) & (seat_map < 0)).mean())
        self.reach_hist.append(self._reach(seat_map))
        self.frame_hist.append(index)
        self.seat_hist.append(seat_map)
        self.motion_hist.append(motion)
        return settled

    def still_under_arm(self, box: tuple[int, int, int, int], region: np.ndarray, still_s: float) -> np.ndarray | None:
        """Where a change inside `region` (low-res bool, of the window `box` = x, y, w, h: a
        pile's top card) has lain still for `still_s` while it is still joined to an arm's blob
        (an arm passing by, or lying over part of it), so it cannot settle on its own: that still
        part (in the window), when it covers at least UNDER_ARM_SHARE of the region."""
        x, y, w, h = box
        win = (slice(y, y + h), slice(x, x + w))
        need = UNDER_ARM_SHARE * int(region.sum())
        ch = (self.fg[win] > 0) & region
        if not need or ch.sum() < need or (self.seat_hist[-1][win][ch] >= 0).mean() <= 0.5:
            return None  # too little changed, or not joined to an arm: it settles the usual way
        still = ch & (self.frame - self.last_motion[win] >= still_s * self.fps)
        return still if still.sum() >= need else None

    def settled_part(self, box: tuple[int, int, int, int], part: np.ndarray) -> Settled:
        """A part of the table (low-res bool, of the window `box`) handed on as settled, with its
        arms' history."""
        x, y, w, h = box
        mask = np.zeros(self.fg.shape, bool)
        mask[y:y + h, x:x + w] = part
        ys, xs = np.nonzero(mask)
        return self._settled(mask, (int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)))

    def _still_pieces(self, fg: np.ndarray, seat_map: np.ndarray, index: int) -> list[Settled]:
        """Parts of arm blobs that have not moved for a while and are no arm: cards laid down."""
        still = (fg > 0) & (seat_map >= 0) & ((index - self.last_motion) >= int(0.4 * self.fps))
        still = cv2.morphologyEx(still.astype(np.uint8), cv2.MORPH_OPEN, self._kernel)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(still, connectivity=8)
        out = []
        for k in range(1, n):
            x, y, w, h, area = stats[k]
            if area < 60 or self.border[y:y + h, x:x + w][labels[y:y + h, x:x + w] == k].any():
                continue
            mask = labels == k
            out.append(self._settled(mask, (x, y, w, h)))
        return out

    def _match_light(self, low: np.ndarray) -> np.ndarray:
        """Undo a change of light over the whole table (a lamp, a cloud) against the reference."""
        a = low[::4, ::4].reshape(-1, 3).astype(np.float32) + 1
        b = self.ref[::4, ::4].reshape(-1, 3).astype(np.float32) + 1
        gain = np.median(b / a, axis=0)
        self.gain = gain  # today's light -> the reference's light, per channel
        if np.all(np.abs(gain - 1) < 0.04):
            return low
        return np.clip(low.astype(np.float32) * gain, 0, 255).astype(np.uint8)

    def _depth_from(self, seat: int, xs_mm, ys_mm):
        st = self.layout.seats[seat]
        return (xs_mm - st.edge_point[0]) * st.normal[0] + (ys_mm - st.edge_point[1]) * st.normal[1]

    def _reach(self, seat_map: np.ndarray) -> dict[int, float]:
        """How far into the table each seat's arm reaches in this frame (mm from its edge)."""
        out = {}
        for seat in np.unique(seat_map[seat_map >= 0]):
            sel = seat_map == seat
            out[int(seat)] = float(self._depth[int(seat)][sel].max())
        return out

    def _adopt(self, labels, moving: list[int], seat_map: np.ndarray) -> None:
        """Blobs that move but reach no edge are hands whose wrist or sleeve is the cloth's colour
        (skin on wood, a green sleeve on green felt): each is the arm whose far end (not its side:
        arms cross) lies nearest it, when that is plain; with no arm's end near, the seat of the
        loose hand it overlaps, given in the last LOOSE_FRAMES."""
        dist = {}
        for s in np.unique(seat_map[seat_map >= 0]):
            arm = seat_map == s
            depth = self._depth[int(s)]
            tip = arm & (depth >= depth[arm].max() - ARM_TIP_MM)  # where the wrist leaves the arm
            dist[int(s)] = cv2.distanceTransform((~tip).astype(np.uint8), cv2.DIST_L2, 3)
        for k in moving:
            comp = labels == k
            gaps = sorted((float(d[comp].min()), s) for s, d in dist.items())
            if gaps and gaps[0][0] <= HAND_GAP_PX and (len(gaps) == 1 or gaps[1][0] > 2 * gaps[0][0] + 2):
                seat_map[comp] = self.loose[comp] = gaps[0][1]
                self.loose_at[comp] = self.frame
                continue
            # no arm's end near: the loose hand that was here just before (remembered, not renewed:
            # LOOSE_FRAMES after its arm was last seen)
            before = np.unique(self.loose[comp & (self.frame - self.loose_at <= LOOSE_FRAMES)])
            if len(before) == 1:
                seat_map[comp] = before[0]

    def _seat_map(self, labels, k, x, y, w, h) -> np.ndarray:
        """Seat index for each pixel of an arm blob. Two arms that touch each other (or a change
        they pass over) form one blob; each part then belongs to the edge it hangs from, found by
        growing from each place the blob crosses the edge, along the blob."""
        comp = labels[y:y + h, x:x + w] == k
        edge = comp & self.border[y:y + h, x:x + w]
        n, lab = cv2.connectedComponents(edge.astype(np.uint8), connectivity=8)
        seats = []
        for i in range(1, n):
            ys, xs = np.nonzero(lab == i)
            cx, cy = (xs.mean() + x + 0.5) / LOW_PPM, (ys.mean() + y + 0.5) / LOW_PPM
            seats.append(self.layout.seats.index(self.layout.seat_at_edge(cx, cy)))
        out = np.full(comp.shape, -1, np.int8)
        bins = _colour_bins(self.low[y:y + h, x:x + w][comp])
        if len(set(seats)) <= 1:
            out[comp] = seats[0] if seats else -1
            if seats:
                self.arm_colours[seats[0]] *= 0.995
                self.arm_colours[seats[0]] += np.bincount(bins, minlength=512)
            return out
        grown = np.where(lab > 0, lab, 0).astype(np.int32)
        todo = comp & (grown == 0)
        kernel = np.ones((3, 3), np.uint8)
        for _ in range(w + h):  # grow every crossing's region one pixel a round, inside the blob
            if not todo.any():
                break
            spread = cv2.dilate(grown.astype(np.float32), kernel).astype(np.int32)
            new = todo & (spread > 0)
            if not new.any():
                break
            grown[new] = spread[new]
            todo &= ~new
        for i, seat in enumerate(seats, start=1):
            out[grown == i] = seat
        # where the arms' colours tell clearly whose a pixel is, that wins over the path along the blob
        cands = sorted(set(seats))
        hist = self.arm_colours[cands]
        if (hist.sum(1) > 300).all():
            like = hist[:, bins] / hist.sum(1, keepdims=True)  # (seats, pixels)
            order = np.argsort(-like, axis=0)
            best = like[order[0], np.arange(like.shape[1])]
            second = like[order[1], np.arange(like.shape[1])]
            sure = best > 2 * second + 1e-4
            vals = out[comp]
            vals[sure] = np.array(cands, np.int8)[order[0][sure]]
            out[comp] = vals
        return out

    def _settled(self, mask: np.ndarray, box) -> Settled:
        x, y, w, h = box
        bbox = (x / LOW_PPM, y / LOW_PPM, (x + w) / LOW_PPM, (y + h) / LOW_PPM)
        start = self.frame_hist[0] if self.frame_hist else self.frame
        # the histories are looked at only in a window around the region (and beside it)
        win = (slice(max(0, y - BESIDE_PX), y + h + BESIDE_PX), slice(max(0, x - BESIDE_PX), x + w + BESIDE_PX))
        m = mask[win]
        region = m.sum()
        n = len(self.seat_hist)
        covers: dict[int, np.ndarray] = {}
        motion = np.zeros(n, np.float32)
        taken_in = self.accepted[win][m]
        for i, (seats, mov) in enumerate(zip(self.seat_hist, self.motion_hist)):
            motion[i] = mov[win][m].mean()
            s = np.where(taken_in < self.frame_hist[i], seats[win][m], -1)
            for seat in np.unique(s[s >= 0]):
                covers.setdefault(int(seat), np.zeros(n, np.float32))[i] = float((s == seat).sum()) / region
        # two arms over one place at once: which let go last (its card lies on top) shows in when
        # each began to withdraw; their coverage of the place cannot tell once they touch
        beside = cv2.dilate(m.astype(np.uint8), self._beside).astype(bool) & ~m
        arms = {}
        for seat, cov in covers.items():
            idx = np.nonzero(cov)[0]
            peak_i = int(cov.argmax())
            far = float(self._depth[seat][win][m].max())
            reach = self.reach_hist[peak_i].get(seat, far) if peak_i < len(self.reach_hist) else far
            arms[seat] = ArmTrace(seat, start + int(idx[0]), start + int(idx[-1]), float(cov.max()), cov,
                                  reach - far, self._let_go(seat, beside, win, int(idx[-1])))
        return Settled(self.frame, mask, bbox, sorted(arms.values(), key=lambda a: a.last), motion, start)

    def _let_go(self, seat: int, beside: np.ndarray, win, last_i: int) -> int:
        stillest, least = self.frame_hist[last_i], 2.0
        for i in range(last_i, -1, -1):
            sel = beside & (self.seat_hist[i][win] == seat)
            n = int(sel.sum())
            if not n:
                continue
            share = int((sel & self.motion_hist[i][win]).sum()) / n
            if share < WITHDRAWING:
                return self.frame_hist[i]
            if share < least:
                stillest, least = self.frame_hist[i], share
        return stillest  # it never lay still: the moment it moved least

    def arms_on_table(self) -> bool:
        """Is any arm reaching over the table in the latest frame? A small change at the table's
        edge that has not moved for EDGE_STILL_S is no arm (a card nudged at the edge, a cuff left
        there); an arm resting on the table is bigger than EDGE_SMALL_MM2."""
        if not self.seat_hist:
            return False
        seats = self.seat_hist[-1]
        if ((seats >= 0) & (self.frame - self.last_motion < EDGE_STILL_S * self.fps)).any():
            return True
        sizes = np.bincount(seats[seats >= 0].astype(np.intp), minlength=1)
        return float(sizes.max()) / LOW_PPM ** 2 > EDGE_SMALL_MM2

    def accept(self, s: Settled) -> None:
        """The referee has taken this change in: it becomes part of the reference picture."""
        grown = cv2.dilate(s.mask.astype(np.uint8), self._kernel).astype(bool)
        self.ref[grown] = self.low[grown]
        self.accepted[grown] = self.frame

