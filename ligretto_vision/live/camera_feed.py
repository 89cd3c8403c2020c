"""The real referee as a live feed: frames from a camera, a video or a scene folder through `Pipeline`
into the hub, each round refereed with the table as the panel has set it up."""
from __future__ import annotations

import dataclasses
import functools
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ligretto_vision.config.vision import VisionConfig
from ligretto_vision.errors import LigrettoError
from ligretto_vision.events import Event
from ligretto_vision.live.clips import ClipRecorder, clip_name
from ligretto_vision.live.hub import LiveHub
from ligretto_vision.live.overlay import annotate, banner
from ligretto_vision.live.pacing import Pacer
from ligretto_vision.live.schematic import encode_jpeg
from ligretto_vision.rules import RuleOptions
from ligretto_vision.scene import Scene, load_scene

log = logging.getLogger(__name__)


def check_player_ids(table: Scene) -> None:
    """The panel names players P1..Pn; the table's players must be those, in that order."""
    want = [f"P{i + 1}" for i in range(len(table.players))]
    if table.player_ids != want:
        raise LigrettoError(f"players are {', '.join(table.player_ids)}; the panel needs them named "
                            f"{', '.join(want)}", path=str(table.folder / "scene.json"))


def table_for_round(table: Scene, rules: RuleOptions | None, seats: dict[str, str | int] | None) -> Scene:
    """The table folder's description with the rules and seats the panel has set (those not set stay)."""
    update: dict = {}
    if rules is not None:
        update["rules"] = dataclasses.asdict(rules)
    if seats is not None:
        update["players"] = [p.model_copy(update={"seat": seats.get(p.id, p.seat)}) for p in table.players]
    return table.model_copy(update=update) if update else table


def missing_faces(table: Scene) -> list[str]:
    """The table's colours with no enrolled face yet: the referee reads no card before each has one."""
    faces = Path(table.folder) / "enroll" / "faces"
    return [c for c in table.colours if not (faces / f"{c}.png").is_file()]


def _default_pipeline(scene: Scene, emit, on_status, reader=None, vision: VisionConfig = VisionConfig()):
    from ligretto_vision.referee.pipeline import Pipeline  # noqa: PLC0415  (heavy: OpenCV models, ONNX)

    # hold_s 0: players see a play at once
    return Pipeline(scene, emit, reader=reader, on_status=on_status, hold_s=0.0, vision=vision)


@dataclass
class PipelineFeed:
    """The real referee: frames from a camera, a video or a scene folder through `Pipeline` into the hub.

    - every event list the pipeline emits is published as it comes, one `publish` per frame (so a
      round's `count` events always arrive together, as the keeper expects);
    - each round is refereed by a fresh pipeline (same card reader, unless `use_enrollment` gave it a
      new one), made when the round starts with the rules and seats the panel has set (`rules`,
      `seats`); frame numbers carry on, one clock for the whole run;
    - an annotated JPEG of the camera picture (table outline, each pile's top card with its text and
      pile id, a calibration/source banner) at most `max_render_fps` a second, at most 960 px wide;
    - the same JPEGs feed the dispute-clip recorder;
    - a file or scene that ends stops the feed: the status says `ended` and the last picture, with an
      "ended" banner, stays on the panel. A live camera is reconnected by ResilientSource meanwhile;
    - a table whose colours are not all enrolled yet is shown, not refereed, until the panel's Set-up
      has enrolled a face of each (`use_enrollment`): the first round starts with the next frame.
    """
    source: object  # a FrameSource; None until `open` attaches one (see open_pipeline_feed)
    table: Scene
    realtime: bool = False  # pace to the source's fps (files and scenes); a camera paces itself
    speed: float = 1.0
    clips: Path | None = None
    max_frames: int | None = None
    max_render_fps: float = 15.0
    make_pipeline: Callable | None = None  # (scene, emit, on_status, reader) -> Pipeline; default the real one
    vision: VisionConfig = VisionConfig()  # the config file's [vision]: every threshold of the real pipeline
    name: str = ""
    rounds_played: int = 1  # the round under way
    round_no: Callable[[], int] | None = None  # the panel's number of the round under way, when it has one
    # asked at each round's start, so the panel's set-up takes effect from the next round
    rules: Callable[[], RuleOptions] | None = None
    seats: Callable[[], dict[str, str | int]] | None = None
    frames_fed: int = 0
    errors: int = 0
    pipeline: object = None
    reader: object = None  # the card reader every round's pipeline gets (None: the pipeline makes one)
    _hub: LiveHub | None = None
    _batch: list = field(default_factory=list)
    _source_state: dict = field(default_factory=dict)
    _calibration: dict = field(default_factory=lambda: {"state": "waiting", "detail": "looking for the table markers"})
    _start: bool = False  # enrollment is complete: the first round starts with the next frame

    def __post_init__(self):
        self.name = self.name or getattr(self.source, "name", None) or "camera"
        self.make_pipeline = self.make_pipeline or functools.partial(_default_pipeline, vision=self.vision)
        self._new_round()  # an enrolled table whose cards cannot be read fails here, before anything runs

    def _new_round(self) -> None:
        if self.reader is None:
            missing = missing_faces(self.table)
            if missing:  # nothing to read cards with: show the camera, referee nothing yet
                self.pipeline = None
                self._calibration = {"state": "enrol", "detail": f"enrol a face of {', '.join(missing)} on the "
                                     "Set-up page: the referee starts once every colour has one"}
                return
        scene = table_for_round(self.table, self.rules and self.rules(), self.seats and self.seats())
        self.pipeline = self.make_pipeline(scene, self._emit, self.pipeline_status, self.reader)
        self.reader, self._start = getattr(self.pipeline, "reader", None), False

    # ---- doors for the panel (any thread) -------------------------------------------------------------
    def use_enrollment(self) -> bool:
        """Read the table folder's enroll/ again: the next round's referee reads cards with it (the number
        model is kept), or with no referee yet the first round starts. False, and the reader in use stays,
        while a colour has no face or a crop is broken."""
        from ligretto_vision.recognise.reader import CardReader, Enrollment  # noqa: PLC0415

        t = self.table
        enroll = Path(t.folder) / "enroll"
        if missing_faces(t):
            return False
        if self.reader is None:
            self._start = True
            return True
        try:
            en = Enrollment.from_folder(enroll, t.card_mm, t.colours, t.player_ids)
        except Exception:  # a broken crop of another card: keep the reader that works
            log.warning("the enrolled crops in %s cannot be read: the referee keeps its cards", enroll, exc_info=True)
            return False
        # one assignment: the next round gets the old reader or the new one
        self.reader = CardReader(en, model=self.reader.model, cfg=self.vision.recognise)
        return True

    def to_picture(self, points_mm: list[tuple[float, float]]) -> list[tuple[float, float]] | None:
        """Through the calibration onto the camera picture; None until the markers are found."""
        cal = self._cal()
        if cal is None:
            return None
        w, h = self.table.size
        return [(float(x) / w, float(y) / h) for x, y in cal.to_px(points_mm)]

    def _cal(self):
        return getattr(self.pipeline, "cal", None) if getattr(self.pipeline, "referee", None) is not None else None

    # ---- status callbacks (any thread) ----------------------------------------------------------
    def source_status(self, st: dict) -> None:
        """ResilientSource's on_status: camera ok / lost / reconnecting / ended / gave-up."""
        self._source_state = dict(st)
        if self._hub is not None:
            self._hub.set_status(source=self.name, source_state=dict(st))

    def pipeline_status(self, st: dict) -> None:
        """Pipeline's on_status: {"calibration": "ok"|"failed"|"moved", "message"|"error_mm", "frame"},
        or what happened to a frame: {"frame_gap" | "frame_problem" | "referee_error": text, "frame"}."""
        if "calibration" not in st:  # the frames' news, beside the calibration's
            if self._hub is not None:
                self._hub.set_status(frames={**st, "at": time.time()})
            return
        state = str(st["calibration"])
        if state == "ok":
            detail = f"markers found, error {st.get('error_mm', '?')} mm (frame {st.get('frame')})"
        else:
            detail = str(st.get("message") or state)
        self._set_calibration({"state": state, "detail": detail, "frame": st.get("frame")})

    def _set_calibration(self, cal: dict) -> None:
        self._calibration = cal
        if self._hub is not None:
            self._hub.set_status(calibration=dict(cal))

    def _emit(self, events: list[Event]) -> None:
        self._batch.extend(events)

    # ---- the loop -----------------------------------------------------------------------------------
    def run(self, hub: LiveHub, stop: threading.Event) -> None:
        self._hub = hub
        run_id = time.strftime("%Y%m%d-%H%M%S")
        fps = float(getattr(self.source, "fps", 0) or self.table.fps)
        recorder = ClipRecorder(Path(self.clips), fps) if self.clips else None
        hub.set_status(source=self.name, fps=fps, players=self.table.player_ids, speed=self.speed,
                       table=str(self.table.folder), round=self.rounds_played, round_start_frame=0,
                       calibration=dict(self._calibration),
                       source_state=self._source_state or {"source": self.name, "state": "ok"})
        clock = Pacer(self.max_render_fps, fps * self.speed if self.realtime else None)
        self._new_round()  # with the panel's set-up as it is now
        frame = None
        ended = "stopped"
        frames = iter(self.source.frames())
        try:
            while not stop.is_set():
                if self.max_frames is not None and self.frames_fed >= self.max_frames:
                    ended = f"stopped after {self.max_frames} frames"
                    break
                try:
                    frame = next(frames)
                except StopIteration:
                    ended = "ended"
                    break
                self._feed(frame)
                self._publish(hub, run_id, recorder, frame.index)
                if clock.tick():
                    self._draw(hub, frame, recorder)
        except Exception as exc:  # the source gave up (ResilientSource max_attempts) or broke
            ended = f"failed: {type(exc).__name__}: {exc}"
            log.exception("feed %s stopped", self.name)
        finally:
            self._flush_pipeline()
            if frame is not None:
                self._publish(hub, run_id, recorder, frame.index)
            state = {"source": self.name, "state": "ended" if ended == "ended" else "stopped",
                     "detail": f"{ended} at frame {frame.index if frame else 0}", "frames": self.frames_fed}
            hub.set_status(source_state={**self._source_state, **state})
            if frame is not None:
                self._draw(hub, frame, recorder, ended=f"{self.name} {ended}")
            if recorder:
                recorder.flush()
            try:
                frames.close()
            except Exception:
                pass
            self.source.close()

    def _feed(self, frame) -> None:
        self.frames_fed += 1
        try:
            if self.pipeline is None:  # waiting for enrollment
                if not self._start:
                    return
                self._start = False
                self._new_round()
                self._set_calibration({"state": "waiting", "detail": "looking for the table markers"})
            self.pipeline.feed(frame)
        except Exception:  # one bad frame must not take the referee (and the panel's video) down
            self.errors += 1
            if self.errors <= 3 or self.errors % 100 == 0:
                log.exception("the referee failed on frame %d (%d failures so far)", frame.index, self.errors)
            if self._hub is not None:
                self._hub.set_status(referee_errors=self.errors)

    def _flush_pipeline(self) -> None:
        """Hand out what the pipeline still holds back (it waits up to REORDER_S before deciding)."""
        if getattr(self.pipeline, "referee", None) is None:
            return  # nothing can be held before calibration (and run() would say the markers were never found)
        try:
            self.pipeline.run(())
        except Exception:
            log.exception("flushing the referee failed")

    def _publish(self, hub: LiveHub, run_id: str, recorder, now: int) -> None:
        if not self._batch:
            return
        out, counted = [], False
        for e in self._take():
            if e.type == "dispute" and recorder and not e.get("clip"):
                e = Event(e.type, e.frame, {**e.data, "clip": clip_name(run_id, e)})
            if recorder:
                recorder.on_event(e)
            counted |= e.type == "count"
            out.append(e)
        if counted:  # the round is over: its held-back events go out with it, then a fresh referee
            self._flush_pipeline()
            out += self._take()
            self.rounds_played += 1
            self._new_round()
        hub.publish(out)
        if counted:
            # with the panel's numbering the next picture says the new number, once the panel has the count
            hub.set_status(round_start_frame=now + 1, **({"round": self.rounds_played} if self.round_no is None else {}))

    def _take(self) -> list[Event]:
        out, self._batch = self._batch, []
        return out

    # ---- the annotated picture ----------------------------------------------------------------------
    def _draw(self, hub: LiveHub, frame, recorder, ended: str | None = None) -> None:
        jpeg = encode_jpeg(self.annotate(frame, ended))
        hub.publish_frame(jpeg)
        if recorder and not ended:
            recorder.add_frame(frame.index, jpeg)

    def annotate(self, frame, ended: str | None = None) -> np.ndarray:
        """The camera picture, downscaled, with what the referee sees drawn on it."""
        secs = frame.index / float(getattr(self.source, "fps", 0) or self.table.fps)
        no = self.rounds_played
        if self.round_no is not None:
            no = self.round_no()
            if self._hub is not None and self._hub.status.get("round") != no:
                self._hub.set_status(round=no)
        cal = self._cal()
        return annotate(frame.image, self.table, cal, self.pipeline.view if cal is not None else None,
                        banner(self.name, self._source_state, self._calibration, ended),
                        f"round {no}  {int(secs // 60)}:{int(secs % 60):02d}  frame {frame.index}")


def open_pipeline_feed(spec: str, table_folder: Path | None, *, speed: float = 1.0, clips: Path | None = None,
                       realtime: bool | None = None, **kw) -> PipelineFeed:
    """The real referee on `spec` ("picamera", "usb:0", a URL, a video file or a scene folder).

    A scene folder is its own table folder and is paced in real time (its fps times `speed`);
    anything else needs `table_folder`, checked before any camera is opened.
    """
    from ligretto_vision.capture import open_source  # noqa: PLC0415

    path = Path(spec).expanduser()
    if (path / "scene.json").is_file():
        from ligretto_vision.capture.scene_source import SceneSource  # noqa: PLC0415

        source = SceneSource(path)
        check_player_ids(source.scene)
        return PipelineFeed(source, source.scene, realtime=True if realtime is None else realtime, speed=speed,
                            clips=clips, **kw)
    if table_folder is None:
        raise LigrettoError(f"[table].source is {spec!r}, a camera or video: the referee needs to know the real "
                            "table. Set [table].table_folder to a folder describing it (scene.json with markers, "
                            "players, seats, card size, rules; enroll/ with one back per player and one face "
                            "per colour) in the set-up")
    table = load_scene(table_folder, camera=True)  # checked before the camera is opened
    check_player_ids(table)
    relay = StatusRelay()
    source = open_source(spec, on_status=relay)
    table = table.model_copy(update={"fps": float(source.fps or table.fps), "size": tuple(source.size)})
    is_file = bool(getattr(source, "is_file", False))
    feed = PipelineFeed(source, table, realtime=is_file if realtime is None else realtime, speed=speed,
                        clips=clips, **kw)
    relay.attach(feed.source_status)
    return feed


class StatusRelay:
    """on_status before the feed exists: keeps the last report and hands it over on attach."""

    def __init__(self):
        self.last: dict | None = None
        self.target: Callable[[dict], None] | None = None

    def __call__(self, st: dict) -> None:
        self.last = st
        if self.target:
            self.target(st)

    def attach(self, target: Callable[[dict], None]) -> None:
        self.target = target
        if self.last is not None:
            target(self.last)
