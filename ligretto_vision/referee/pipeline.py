"""The live pipeline: a frame source feeding the referee, events going out in frame order.

`replay` is this pipeline fed from a scene's video, frame by frame, exactly as a camera
would feed it: nothing is read ahead and the truth is never read. A play is decided
within `reorder_s` ([vision.referee]) of video after it came to rest (`replay` prints the lags); for the
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
from ligretto_vision.config.vision import VisionConfig
from ligretto_vision.errors import LigrettoError
from ligretto_vision.events import Event, fold_amendments
from ligretto_vision.geometry.calibration import CalibrationError, MarkerLayout, calibrate, check_still, follow_bump
from ligretto_vision.geometry.zones import layout_from_scene
from ligretto_vision.recognise.reader import CardReader
from ligretto_vision.referee.referee import Referee
from ligretto_vision.referee.spec import TableSpec
from ligretto_vision.referee.view import DecisionView, PileView, TableView
from ligretto_vision.rules import Doubts, Round

VIEW_DECISIONS = 8  # how many of the latest decisions the view carries


@dataclass
class Stats:
    frames: int = 0
    missed: int = 0  # frames a live source's numbering left out (dropped by the camera or a busy machine)
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


def frame_gap(last: int, index: int, fps: float, told_s: float) -> str | None:
    """What a live source's numbering (by capture time) says was lost between the frames `last` and
    `index`, if it lasted `told_s` or longer: a camera dropping a frame now and then is normal."""
    n = index - last - 1
    if last < 0 or n <= 0 or n < told_s * fps:
        return None
    return f"frames {last + 1}-{index - 1} never came ({n} frames, {n / fps:.2f} s): judged around the gap"


class Pipeline:
    def __init__(self, scene, emit: Callable[[list[Event]], None], reader: CardReader | None = None,
                 on_status: Callable[[dict], None] | None = None, hold_s: float | None = None,
                 vision: VisionConfig = VisionConfig()):
        self.scene = scene
        self.vision = vision
        self.cfg = cfg = vision.referee
        self.emit = emit
        self.on_status = on_status or (lambda s: None)
        self.layout = layout_from_scene(scene)
        self.markers = MarkerLayout.from_scene(scene)
        self.reader = reader or CardReader.for_scene(scene, vision.recognise)
        self.spec = TableSpec(scene.player_ids, list(scene.colours), tuple(scene.card_mm), scene.rule_options(),
                              float(scene.fps), marker_spots(scene))
        self.referee: Referee | None = None
        self.round: Round | None = None  # the round being refereed (once the table is calibrated)
        self.pending: list[tuple[int, Event]] = []  # (decided at frame, event)
        # a log must be in frame order: hold events until nothing earlier can come (plays are
        # decided within reorder_s, a round's end within last_card_s, a call of illegal amended within
        # confirm_illegal_s); a live panel passes 0
        self.hold_s = cfg.reorder_s + max(cfg.last_card_s, cfg.confirm_illegal_s) if hold_s is None else hold_s
        self.stats = Stats()
        self.size: tuple[int, int] | None = None
        self._next_check = 0
        self._told: list[int] = []  # the markers last reported as moved on the table
        self._last_written = 0  # the frame of the last event that went out
        self._frame = -1  # the last frame fed
        self._view: TableView | None = None  # built when first asked for after each frame

    def feed(self, frame: Frame) -> None:
        t0 = time.perf_counter()
        self.stats.frames += 1
        if frame.index <= self._frame:  # a frame repeated or out of order: what was seen stands
            self.stats.notes.append(f"frame {frame.index}: skipped, it came after frame {self._frame}")
            self.on_status({"frame_problem": f"came after frame {self._frame}", "frame": frame.index})
            return
        if self._frame >= 0:
            self.stats.missed += frame.index - self._frame - 1
        missed = frame_gap(self._frame, frame.index, self.spec.fps, self.cfg.gap_told_s)
        if missed:  # dropped by the camera or a busy machine: judged around, the times stay true
            self.stats.notes.append(f"frame {frame.index}: {missed}")
            self.on_status({"frame_gap": missed, "frame": frame.index})
        self._frame, self._view = frame.index, None
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
                if self.referee.monitor.unarmed - before >= self.cfg.bump_jump:
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
        self.round = Round(self.spec.players, self.spec.options, self.spec.fps,  # the round refereed from now
                           Doubts(self.cfg.doubt_after_s, self.cfg.doubt_gathering, self.cfg.confirm_illegal_s,
                                  self.cfg.taken_least_s))
        self.referee = Referee(self.spec, cal, self.layout, self.reader, self.size, self.round, self.vision)
        self._next_check = frame.index + int(self.cfg.recheck_s * self.spec.fps)
        self.on_status({"calibration": "ok", "error_mm": round(cal.error_mm, 2), "frame": frame.index})

    def _recheck(self, frame: Frame) -> None:
        self._next_check = frame.index + int(self.cfg.recheck_s * self.spec.fps)
        moved = check_still(self.referee.cal, frame.image, self.markers)  # as the camera shakes now
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

    @property
    def view(self) -> TableView | None:
        """What the referee sees now, read-only: each pile's top card and its latest decisions (None
        before the table is calibrated). Built at most once a frame, when first asked for."""
        if self.referee is None:
            return None
        if self._view is None:
            ref = self.referee
            piles = tuple(PileView(p.id, p.top.card, p.top.legal, p.top.pose) for p in list(ref.piles.piles.values()) if p.cards)
            latest = list(ref.decisions)[-VIEW_DECISIONS:]
            self._view = TableView(self._frame, piles, tuple(DecisionView(d.frame, d.kind, d.pose, d.player, d.note)
                                                             for d in latest))
        return self._view

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
        # a correction of an event still held is folded into it; one of an event sent already follows it
        written = fold_amendments([e for _, e in ready], self._last_written)
        if written:
            self._last_written = max(self._last_written, written[-1].frame)
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
