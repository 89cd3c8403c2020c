"""The live pipeline: a frame source feeding the referee, events going out in frame order.

`replay` is this pipeline fed from a scene's video, frame by frame, exactly as a camera
would feed it: nothing is read ahead and the truth is never read. A play is decided
within `REORDER_S` of video after it came to rest (`replay` prints the lags); for the
log, events are held a little longer so that it is in frame order even when a move is
recognised a few frames after a later one, or a round's end after its last card landed.
The live panel takes events the moment they are decided.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from ligretto_vision.capture.frame import Frame
from ligretto_vision.errors import LigrettoError
from ligretto_vision.events import Event, fold_amendments
from ligretto_vision.geometry.calibration import CalibrationError, MarkerLayout, calibrate, check_still, follow_bump
from ligretto_vision.geometry.zones import layout_from_scene
from ligretto_vision.recognise.reader import CardReader
from ligretto_vision.referee.referee import LAST_CARD_S, Referee, TableSpec

REORDER_S = 0.5  # the most the referee may wait before it decides (and so hold an event)
RECHECK_S = 2.0  # how often the markers are checked for a bumped camera ...
BUMP_JUMP = 0.05  # ... and at once when this share of the table changes in one frame with no arm there


@dataclass
class Stats:
    frames: int = 0
    events: int = 0
    lags_s: list[float] = field(default_factory=list)  # decision time minus event time, per play
    referee_s: float = 0.0  # time spent in the referee (decode excluded)
    notes: list[str] = field(default_factory=list)

    def lag_summary(self) -> str:
        if not self.lags_s:
            return "no plays"
        lags = np.array(self.lags_s)
        return f"median {np.median(lags):.2f} s, worst {lags.max():.2f} s over {len(lags)} plays"


def marker_spots(scene) -> list[tuple[float, float, float]]:
    """Where the markers lie (with their white margin): never cards."""
    r = scene.markers.size_mm * 0.75 + 12
    return [(x, y, r) for x, y in scene.markers.centres_mm.values()]


def _broken(frame: Frame, size) -> str | None:
    img = frame.image
    if not isinstance(img, np.ndarray) or img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        return "not a colour picture"
    if size and (img.shape[1], img.shape[0]) != tuple(size):
        return f"{img.shape[1]}x{img.shape[0]} instead of {size[0]}x{size[1]}"
    return None


class Pipeline:
    def __init__(self, scene, emit: Callable[[list[Event]], None], reader: CardReader | None = None,
                 on_status: Callable[[dict], None] | None = None, hold_s: float | None = None):
        self.scene = scene
        self.emit = emit
        self.on_status = on_status or (lambda s: None)
        self.layout = layout_from_scene(scene)
        self.markers = MarkerLayout.from_scene(scene)
        self.reader = reader or CardReader.for_scene(scene)
        self.spec = TableSpec(scene.player_ids, list(scene.colours), tuple(scene.card_mm), scene.rule_options(),
                              float(scene.fps), marker_spots(scene))
        self.referee: Referee | None = None
        self.pending: list[tuple[int, Event]] = []  # (decided at frame, event)
        # a log must be in frame order: hold events until nothing earlier can come (plays are
        # decided within REORDER_S, a round's end within LAST_CARD_S); a live panel passes 0
        self.hold_s = REORDER_S + LAST_CARD_S if hold_s is None else hold_s
        self.stats = Stats()
        self.size: tuple[int, int] | None = None
        self._next_check = 0
        self._told: list[int] = []  # the markers last reported as moved on the table

    def feed(self, frame: Frame) -> None:
        t0 = time.perf_counter()
        self.stats.frames += 1
        problem = _broken(frame, self.referee is not None and self.size)
        if problem:  # a torn or empty frame from a flaky camera: say so, skip it, keep going
            self.stats.notes.append(f"frame {frame.index}: skipped, {problem}")
            self.on_status({"frame_problem": problem, "frame": frame.index})
            return
        if self.referee is None:
            self._calibrate(frame)
        elif frame.index >= self._next_check:
            self._recheck(frame)
        if self.referee is not None:
            before = self.referee.monitor.unarmed
            try:
                for ev in self.referee.on_frame(frame.index, frame.image):
                    self.pending.append((frame.index, ev))
                if self.referee.monitor.unarmed - before >= BUMP_JUMP:
                    self._next_check = frame.index + 1  # much of the table changed at once: a bump? look now
            except Exception as exc:  # one bad frame must not end a match: report it and go on
                self.stats.notes.append(f"frame {frame.index}: the referee failed on it ({type(exc).__name__}: {exc})")
                self.on_status({"referee_error": str(exc), "frame": frame.index})
        self._release(frame.index)
        self.stats.referee_s += time.perf_counter() - t0

    def _calibrate(self, frame: Frame) -> None:
        try:
            cal = calibrate(frame.image, self.markers)
        except CalibrationError as exc:
            if frame.index % max(1, int(self.spec.fps)) == 0:
                self.on_status({"calibration": "failed", "message": str(exc), "frame": frame.index})
                self.stats.notes.append(f"frame {frame.index}: {exc}")
            return
        self.cal = cal
        self.size = (frame.image.shape[1], frame.image.shape[0])
        self.referee = Referee(self.spec, cal, self.layout, self.reader, self.size)
        self._next_check = frame.index + int(RECHECK_S * self.spec.fps)
        self.on_status({"calibration": "ok", "error_mm": round(cal.error_mm, 2), "frame": frame.index})

    def _recheck(self, frame: Frame) -> None:
        self._next_check = frame.index + int(RECHECK_S * self.spec.fps)
        moved = check_still(self.cal, frame.image, self.markers)
        if moved is None or (not moved.camera and moved.markers == self._told):
            self._told = [] if moved is None else self._told
            return  # still where calibration put them, or a moved marker already reported
        self._told = moved.markers
        self.stats.notes.append(f"frame {frame.index}: {moved}")
        self.on_status({"calibration": "moved", "message": moved.message, "frame": frame.index})
        if not moved.camera:
            return  # one marker moved (or is half hidden): calibrating on it would be wrong
        try:
            cal = calibrate(frame.image, self.markers)
        except CalibrationError as exc:
            try:  # some markers out of view: follow the move of those still seen
                cal = follow_bump(self.cal, frame.image, self.markers)
            except CalibrationError as why:
                self.on_status({"calibration": "failed", "message": f"{exc} ({why})", "frame": frame.index})
                self.stats.notes.append(f"frame {frame.index}: {exc} ({why})")
                return
            self.stats.notes.append(f"frame {frame.index}: followed the camera's move from the markers in view")
        self.cal = cal
        self.referee.recalibrate(cal, frame.image)

    def _release(self, now: int, flush: bool = False) -> None:
        hold = self.hold_s * self.spec.fps
        ready = [(d, e) for d, e in self.pending if flush or now - e.frame >= hold]
        if not ready:
            return
        self.pending = [p for p in self.pending if p not in ready]
        ready.sort(key=lambda de: de[1].frame)
        for d, e in ready:
            if e.type == "play":
                self.stats.lags_s.append((d - e.frame) / self.spec.fps)
        written = fold_amendments([e for _, e in ready])  # a correction of an event still held is folded into it
        self.stats.events += len(written)
        self.emit(written)

    def run(self, frames: Iterable[Frame]) -> Stats:
        last = None
        for f in frames:
            self.feed(f)
            last = f
        if self.referee is not None and last is not None:
            # the recording ends: what was waiting to be decided is decided on its last frame
            self.pending += [(last.index, e) for e in self.referee.finish(last.index, last.image)]
        self._release(10**12, flush=True)
        if self.referee is None:
            raise LigrettoError("the table markers were never found in the video: " + "; ".join(self.stats.notes[-1:]))
        return self.stats
