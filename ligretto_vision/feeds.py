"""Feeds: what puts a table's events and pictures into the live hub.

A feed is anything with `run(hub, stop_event)`: it publishes events and annotated
JPEG frames into a `LiveHub` until `stop_event` is set. There are two: `SimFeed`, the
simulated table played in real time, and `PipelineFeed`, the real referee
(`referee.pipeline.Pipeline`) on a camera, a video file or a recorded scene folder.

Dispute clips are made here, where the frames are: the feed keeps the last ~2.5 s
of JPEGs in a ring, and for every `dispute` event saves the frames around the
touches as a folder of JPEGs plus `clip.json`, for the panel's slowed-down replay.
"""
from __future__ import annotations

import json
import logging
import math
import re
import shutil
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol

import cv2
import numpy as np

from pydantic import ValidationError

from ligretto_vision.geometry.zones import seat_direction
from ligretto_vision.errors import LigrettoError
from ligretto_vision.events import Event
from ligretto_vision.live import LiveHub
from ligretto_vision.rules import RuleOptions
from ligretto_vision.scene import Scene, load_scene
from ligretto_vision.sim import BotStyle, SimTable, TableState

log = logging.getLogger("ligretto_vision.feeds")

CLIP_FORMAT = "ligretto-clip/1"
CLIP_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$")  # what the panel accepts as a clip folder name
PAUSE_BETWEEN_ROUNDS_S = 4.0  # the counted table stays on screen this long
MAX_ROUND_S = 1800.0  # a round nobody can finish is scored as it stands (as SimTable.run does)


class Feed(Protocol):
    def run(self, hub: LiveHub, stop: threading.Event) -> None: ...


# ---- dispute clips ------------------------------------------------------------------------------
@dataclass
class ClipRecorder:
    """Ring buffer of recent JPEG frames; saves a clip for each dispute once frames after it are in."""
    folder: Path
    fps: float
    keep_s: float = 2.5
    before_s: float = 0.8  # frames kept before the earliest touch
    after_s: float = 0.6  # frames kept after the dispute's play frame
    ring: deque = field(init=False)
    pending: list[tuple[Event, int]] = field(default_factory=list)
    saved: list[Path] = field(default_factory=list)

    def __post_init__(self):
        self.ring = deque(maxlen=max(2, int(self.keep_s * self.fps) + 1))

    def on_event(self, ev: Event) -> None:
        if ev.type == "dispute" and ev.get("clip"):
            self.pending.append((ev, ev.frame + int(math.ceil(self.after_s * self.fps))))

    def add_frame(self, frame: int, jpeg: bytes) -> None:
        self.ring.append((frame, jpeg))
        due = [(ev, d) for ev, d in self.pending if d <= frame]
        for item in due:
            self.pending.remove(item)
            self._save(item[0])

    def flush(self) -> None:
        """Save what is pending with the frames there are (the feed is stopping)."""
        for ev, _ in self.pending:
            self._save(ev)
        self.pending.clear()

    def _save(self, ev: Event) -> None:
        touches = [c["touch"] for c in ev.get("claims", []) if isinstance(c.get("touch"), int)]
        start = min(touches + [ev.frame]) - int(self.before_s * self.fps)
        frames = [(f, j) for f, j in self.ring if f >= start]
        if frames:
            self.saved.append(save_clip(self.folder / ev.get("clip"), ev, frames, self.fps))


def save_clip(path: Path, ev: Event, frames: list[tuple[int, bytes]], fps: float) -> Path:
    """Write frame JPEGs and clip.json; the folder appears whole (renamed into place) or not at all."""
    tmp = path.with_name(path.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    listing = []
    for f, jpeg in frames:
        name = f"{f:08d}.jpg"
        (tmp / name).write_bytes(jpeg)
        listing.append({"frame": f, "file": name})
    meta = {"format": CLIP_FORMAT, "fps": fps, "event": {k: v for k, v in ev.to_json().items() if not k.startswith("_")},
            "claims": ev.get("claims", []), "winner": ev.get("winner"), "frames": listing}
    (tmp / "clip.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    return path


# ---- the schematic picture of the table ------------------------------------------------------------
CARD_BGR = {"red": (50, 50, 215), "green": (60, 160, 60), "blue": (200, 110, 30), "yellow": (40, 200, 235),
            "pink": (180, 110, 250), "turquoise": (190, 190, 40)}
FELT = (52, 96, 38)
WHITE, BLACK, RED = (255, 255, 255), (0, 0, 0), (40, 40, 230)
WIDTH_PX = 720


def _colour_of(card: str | None) -> tuple[int, int, int]:
    return CARD_BGR.get((card or "").rpartition("-")[0], (150, 150, 150))


def _card(img: np.ndarray, x: int, y: int, w: int, h: int, card: str | None, outline=WHITE) -> None:
    cv2.rectangle(img, (x, y), (x + w, y + h), _colour_of(card), -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), outline, 2 if outline == RED else 1)
    if card:
        num = card.rpartition("-")[2]
        ink = BLACK if card.startswith(("yellow", "pink", "turquoise")) else WHITE
        scale = h / 60
        (tw, th), _ = cv2.getTextSize(num, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        cv2.putText(img, num, (x + (w - tw) // 2, y + (h + th) // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, ink, 2,
                    cv2.LINE_AA)


def _text(img, text, org, scale=0.45, colour=WHITE, thick=1) -> None:
    """Text on a dark band, readable on any card or felt."""
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x = min(max(2, org[0]), img.shape[1] - tw - 2)
    y = org[1]
    cv2.rectangle(img, (x - 2, y - th - 2), (x + tw + 2, y + base), (25, 40, 20), -1)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def draw_table(state: TableState, table_mm: tuple[float, float], tallies: dict[str, tuple[int, int]],
               caption: str, names: dict[str, str] | None = None,
               strays: dict[str, list[str]] | None = None) -> np.ndarray:
    """A top view of the table: centre piles with their top card, each seat's cards and tallies.

    `tallies` is {player: (cards laid, illegal plays)}; `strays` {pile id: illegal cards lying on it
    until taken back} (the snapshot lists them after the pile's run). Plain drawing on purpose: a
    photo-realistic render replaces it later behind the same feed.
    """
    names, strays = names or {}, strays or {}
    s = WIDTH_PX / table_mm[0]
    w, h = WIDTH_PX, int(round(table_mm[1] * s))
    img = np.full((h, w, 3), FELT, np.uint8)
    cw, ch = int(60 * s), int(90 * s)  # a card is about 60 x 90 mm
    for pile in state.piles:
        if not pile.cards:
            continue
        x, y = int(pile.at[0] * s) - cw // 2, int(pile.at[1] * s) - ch // 2
        wrong = strays.get(str(pile.id), [])
        run = [c for c, _ in pile.cards][:len(pile.cards) - len(wrong)]
        if run:
            top = run[-1]
            closed = top.endswith("-10")
            _card(img, x, y, cw, ch, top, outline=(200, 200, 200) if closed else WHITE)
            if closed:
                cv2.line(img, (x, y), (x + cw, y + ch), (220, 220, 220), 1)
        for i, card in enumerate(wrong):  # an illegal card lies across the pile, red-edged
            _card(img, x + cw // 3 + 4 * i, y + ch // 3 + 4 * i, cw, ch, card, outline=RED)
        _text(img, f"#{pile.id}", (x, y - 3), 0.45)
    for pid, p in state.players.items():
        dx, dy = seat_direction(p["seat"])
        px, py = w / 2 + dx * w * 0.40, h / 2 + dy * h * 0.40
        row = list(p["row"])
        sw, sh = int(cw * 0.55), int(ch * 0.55)
        zone_w = (len(row) + 1) * (sw + 3) + 6
        bx = min(max(4, int(px) - zone_w // 2), w - zone_w - 4)
        by = min(max(14, int(py) - 26), h - sh - 20)
        for i, c in enumerate(row):
            if c:
                _card(img, bx + i * (sw + 3), by + 14, sw, sh, c)
        stack_top = p["stack"][-1] if p["stack"] else None
        sx = bx + len(row) * (sw + 3) + 6
        if stack_top:
            _card(img, sx, by + 14, sw, sh, stack_top, outline=(0, 215, 255))
        laid, illegal = tallies.get(pid, (0, 0))
        name = names.get(pid, pid)
        _text(img, f"{name}  laid {laid}  illegal {illegal}  stack {len(p['stack'])}", (bx, by + 8), 0.55,
              (120, 120, 255) if illegal else WHITE)
        held = p.get("held")
        if held and held["kind"] == "play" and held["card"]:
            _card(img, int(w / 2 + (px - w / 2) * 0.55) - sw // 2, int(h / 2 + (py - h / 2) * 0.55) - sh // 2,
                  sw, sh, held["card"], outline=(0, 255, 255))
    _text(img, caption, (8, h - 8), 0.6)
    return img


def encode_jpeg(img: np.ndarray, quality: int = 75) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()


# ---- the simulated table as a live feed ------------------------------------------------------------
@dataclass
class SimFeed:
    """Bots play round after round in real time (seed+1 each round) and the hub gets every event and frame.

    `round_no`, when given, numbers the rounds on the video and in the hub's status (the panel gives
    its match's round, so header and video say the same); `next_seed`, when given, is asked for each
    round's deal (the panel counts deals in its database, so a restart does not deal the same again).
    """
    players: int = 4
    seed: int = 0
    fps: float = 15.0
    speed: float = 1.0  # >1 runs the table faster than real time (demos, tests)
    mistakes: float = 0.03  # bots sometimes play a wrong card, so the referee has something to call
    clips: Path | None = None
    # asked at each round's start, so the panel's set-up takes effect from the next round
    rules: Callable[[], RuleOptions] = RuleOptions
    edition: Callable[[], str] = lambda: "classic"
    names: Callable[[], dict[str, str]] = dict
    max_render_fps: float = 15.0
    rounds_played: int = 0
    round_no: Callable[[], int] | None = None
    next_seed: Callable[[], int] | None = None
    _label: int | None = None

    def run(self, hub: LiveHub, stop: threading.Event) -> None:
        run_id = time.strftime("%Y%m%d-%H%M%S")
        recorder = ClipRecorder(Path(self.clips), self.fps) if self.clips else None
        ids = [f"P{i + 1}" for i in range(self.players)]
        hub.set_status(source="simulated table", fps=self.fps, players=ids, speed=self.speed,
                       calibration={"state": "ok", "detail": "simulated table: its geometry is known exactly"})
        offset, seed = 0, self.seed
        clock = _Pacer(self.fps * self.speed, self.max_render_fps)
        try:
            while not stop.is_set():
                if self.next_seed is not None:
                    seed = self.next_seed()
                table = SimTable(self.players, seed=seed, options=self.rules(), fps=self.fps,
                                 edition_name=self.edition(), style=BotStyle(mistakes=self.mistakes))
                self.rounds_played += 1
                self._label = None
                hub.set_status(round=self._round_label(hub), seed=seed, round_start_frame=offset)
                limit = int(MAX_ROUND_S * self.fps)
                while not table.over and not stop.is_set():
                    label = self._round_label(hub)  # before this step's events (a count) reach the panel
                    new = table.step() if table.frame < limit else table.run(max_s=0)[len(table.events):]
                    frame = offset + table.frame - 1
                    self._publish(hub, new, offset, run_id, recorder)
                    if clock.tick():
                        self._frame(hub, table, frame, recorder, label=label)
                offset += table.frame
                pause = int(PAUSE_BETWEEN_ROUNDS_S * self.fps)
                for i in range(pause):  # the counted table stays on screen, frames keep counting
                    if stop.is_set():
                        break
                    if clock.tick():
                        self._frame(hub, table, offset + i, recorder, counted=True, label=label)
                offset += pause
                seed += 1
        finally:
            if recorder:
                recorder.flush()

    def _publish(self, hub: LiveHub, events: list[Event], offset: int, run_id: str, recorder) -> None:
        if not events:
            return
        out = []
        for e in events:
            data = dict(e.data)  # every frame number moves on by the rounds before: one clock for the whole run
            if isinstance(data.get("touch"), int):
                data["touch"] += offset
            if e.type == "dispute":
                data["claims"] = [{**c, "touch": c["touch"] + offset} for c in data.get("claims", [])]
            if e.type == "dispute" and recorder:
                data["clip"] = f"{run_id}-{e.frame + offset:08d}-pile{e.get('pile')}"
            ev = Event(e.type, e.frame + offset, data)
            out.append(ev)
            if recorder:
                recorder.on_event(ev)
        hub.publish(out)

    def _round_label(self, hub: LiveHub) -> int:
        """The number of the round under way (the panel's, else this feed's count); the status follows it."""
        no = self.round_no() if self.round_no is not None else self.rounds_played
        if no != self._label:
            self._label = no
            if hub.status.get("round") != no:
                hub.set_status(round=no)
        return no

    def _frame(self, hub: LiveHub, table: SimTable, frame: int, recorder, counted: bool = False,
               label: int | None = None) -> None:
        tallies = {p: (z.played, z.illegal) for p, z in table.round.zones.items()}
        secs = table.frame / self.fps
        no = self.rounds_played if label is None else label
        caption = (f"round {no} counted" if counted
                   else f"round {no}  {int(secs // 60)}:{int(secs % 60):02d}  frame {frame}")
        strays = {k: [str(pc.card) for pc in pile.strays] for k, pile in table.round.piles.items() if pile.strays}
        jpeg = encode_jpeg(draw_table(table.snapshot(), table.table_mm, tallies, caption, self.names(), strays))
        hub.publish_frame(jpeg)
        if recorder:
            recorder.add_frame(frame, jpeg)


class _Pacer:
    """Holds a loop to `rate` steps per second and says which steps to draw (at most `draw_rate` a second)."""

    def __init__(self, rate: float, draw_rate: float):
        self.step_s, self.draw_s = 1.0 / rate, 1.0 / draw_rate
        self.t0, self.n, self.last_draw = time.monotonic(), 0, -1e9

    def tick(self) -> bool:
        self.n += 1
        now = time.monotonic()
        wait = self.t0 + self.n * self.step_s - now
        if wait > 0:
            time.sleep(wait)
        elif wait < -1.0:  # far behind (a slow machine): stop trying to catch up
            self.t0, self.n = now, 0
        now = time.monotonic()
        if now - self.last_draw >= self.draw_s * 0.9:
            self.last_draw = now
            return True
        return False


# ---- the real referee on camera frames ---------------------------------------------------------------
MAX_FRAME_W = 960  # annotated frames are downscaled to at most this width
CAL_COLOURS = {"ok": (60, 170, 60), "moved": (0, 140, 255), "failed": RED, "waiting": (0, 140, 255)}
TABLE_EDGE = (0, 215, 255)


def load_table(folder: str | Path, *, fps: float | None = None, size: tuple[int, int] | None = None) -> Scene:
    """A table folder: scene.json (markers, players and seats, card size, colours, rules) and enroll/.

    A table folder for a camera needs no video: `video`, `fps`, `size` (and `format`) may be left
    out of its scene.json; the camera's frame rate and size are used where given.
    """
    from ligretto_vision.scene import _first_error  # noqa: PLC0415

    folder = Path(folder).expanduser()
    path = folder / "scene.json"
    if not folder.is_dir():
        raise LigrettoError("[table].table_folder: no such folder", path=str(folder))
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raw = None  # load_scene reports exactly what is wrong
    if not isinstance(raw, dict):
        scene = load_scene(folder)
    else:
        raw = {"format": "ligretto-scene/1", "video": "", **raw}
        raw.setdefault("fps", fps or 30.0)
        raw.setdefault("size", list(size or (1280, 720)))
        try:
            scene = Scene(**raw, folder=folder)
        except (ValidationError, TypeError) as exc:
            msg = _first_error(exc) if isinstance(exc, ValidationError) else str(exc)
            raise LigrettoError(msg, path=str(path)) from None
        scene.rule_options()
    if not (folder / "enroll").is_dir():
        raise LigrettoError("the table folder has no enroll/ (one back per player, one face per colour): the "
                            "referee cannot read cards without it", path=str(folder))
    update = {}
    if fps and fps > 0:
        update["fps"] = float(fps)
    if size:
        update["size"] = tuple(size)
    return scene.model_copy(update=update) if update else scene


def check_player_ids(table: Scene) -> None:
    """The panel names players P1..Pn; the table's players must be those, in that order."""
    want = [f"P{i + 1}" for i in range(len(table.players))]
    if table.player_ids != want:
        raise LigrettoError(f"players are {', '.join(table.player_ids)}; the panel needs them named "
                            f"{', '.join(want)}", path=str(table.folder / "scene.json"))


def _default_pipeline(scene: Scene, emit, on_status, reader=None):
    from ligretto_vision.referee.pipeline import Pipeline  # noqa: PLC0415  (heavy: OpenCV models, ONNX)

    return Pipeline(scene, emit, reader=reader, on_status=on_status, hold_s=0.0)  # players see a play at once


@dataclass
class PipelineFeed:
    """The real referee: frames from a camera, a video or a scene folder through `Pipeline` into the hub.

    - every event list the pipeline emits is published as it comes, one `publish` per frame (so a
      round's `count` events always arrive together, as the keeper expects);
    - after a round's `count` events a fresh pipeline (same card reader) referees the next round;
      frame numbers carry on, one clock for the whole run;
    - an annotated JPEG of the camera picture (table outline, each pile's top card with its text and
      pile id, a calibration/source banner) at most `max_render_fps` a second, at most 960 px wide;
    - the same JPEGs feed the dispute-clip recorder;
    - a file or scene that ends stops the feed: the status says `ended` and the last picture, with an
      "ended" banner, stays on the panel. A live camera is reconnected by ResilientSource meanwhile.
    """
    source: object  # a FrameSource; None until `open` attaches one (see open_pipeline_feed)
    table: Scene
    realtime: bool = False  # pace to the source's fps (files and scenes); a camera paces itself
    speed: float = 1.0
    clips: Path | None = None
    max_frames: int | None = None
    max_render_fps: float = 15.0
    make_pipeline: Callable | None = None  # (scene, emit, on_status, reader) -> Pipeline; default the real one
    name: str = ""
    rounds_played: int = 1  # the round under way
    round_no: Callable[[], int] | None = None  # the panel's number of the round under way, when it has one
    frames_fed: int = 0
    errors: int = 0
    pipeline: object = None
    _hub: LiveHub | None = None
    _batch: list = field(default_factory=list)
    _source_state: dict = field(default_factory=dict)
    _calibration: dict = field(default_factory=lambda: {"state": "waiting", "detail": "looking for the table markers"})

    def __post_init__(self):
        self.name = self.name or getattr(self.source, "name", None) or "camera"
        self.make_pipeline = self.make_pipeline or _default_pipeline
        self.pipeline = self.make_pipeline(self.table, self._emit, self.pipeline_status)

    # ---- status callbacks (any thread) ----------------------------------------------------------
    def source_status(self, st: dict) -> None:
        """ResilientSource's on_status: camera ok / lost / reconnecting / ended / gave-up."""
        self._source_state = dict(st)
        if self._hub is not None:
            self._hub.set_status(source=self.name, source_state=dict(st))

    def pipeline_status(self, st: dict) -> None:
        """Pipeline's on_status: {"calibration": "ok"|"failed"|"moved", "message"|"error_mm", "frame"}."""
        state = str(st.get("calibration", "unknown"))
        if state == "ok":
            detail = f"markers found, error {st.get('error_mm', '?')} mm (frame {st.get('frame')})"
        else:
            detail = str(st.get("message") or state)
        self._calibration = {"state": state, "detail": detail, "frame": st.get("frame")}
        if self._hub is not None:
            self._hub.set_status(calibration=dict(self._calibration))

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
        clock = _Pacer(fps * self.speed, self.max_render_fps) if self.realtime else _DrawClock(self.max_render_fps)
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
                e = Event(e.type, e.frame, {**e.data, "clip": f"{run_id}-{e.frame:08d}-pile{e.get('pile')}"})
            if recorder:
                recorder.on_event(e)
            counted |= e.type == "count"
            out.append(e)
        if counted:  # the round is over: its held-back events go out with it, then a fresh referee
            self._flush_pipeline()
            out += self._take()
            self.rounds_played += 1
            self.pipeline = self.make_pipeline(self.table, self._emit, self.pipeline_status,
                                               getattr(self.pipeline, "reader", None))
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
        img = frame.image
        h, w = img.shape[:2]
        s = min(1.0, MAX_FRAME_W / w)
        if s < 1.0:
            img = cv2.resize(img, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA)
        else:
            img = img.copy()
        p = self.pipeline
        cal = getattr(p, "cal", None) if getattr(p, "referee", None) is not None else None
        if cal is not None:
            try:
                self._draw_referee(img, s, cal, p.referee, frame.index)
            except Exception:  # drawing must never stop the feed
                log.debug("annotation failed", exc_info=True)
        self._banner(img, ended)
        secs = frame.index / float(getattr(self.source, "fps", 0) or self.table.fps)
        no = self.rounds_played
        if self.round_no is not None:
            no = self.round_no()
            if self._hub is not None and self._hub.status.get("round") != no:
                self._hub.set_status(round=no)
        _text(img, f"round {no}  {int(secs // 60)}:{int(secs % 60):02d}  frame {frame.index}",
              (8, img.shape[0] - 8), 0.55)
        return img

    def _draw_referee(self, img: np.ndarray, s: float, cal, referee, now: int) -> None:
        tw, th = self.table.table_mm
        n = 8  # points per edge: lens distortion bends straight edges a little
        edge = [(tw * i / n, 0) for i in range(n)] + [(tw, th * i / n) for i in range(n)] \
            + [(tw * (n - i) / n, th) for i in range(n)] + [(0, th * (n - i) / n) for i in range(n)]
        pts = (cal.to_px(edge) * s).round().astype(np.int32)
        cv2.polylines(img, [pts], True, TABLE_EDGE, 1, cv2.LINE_AA)
        card_mm = self.table.card_mm
        for pile in list(referee.piles.piles.values()):
            if not pile.cards:
                continue
            top = pile.cards[-1]
            quad = (cal.to_px(top.pose.corners(card_mm)) * s).round().astype(np.int32)
            colour = _colour_of(top.card) if top.legal else RED
            cv2.polylines(img, [quad], True, colour, 2 if top.legal else 3, cv2.LINE_AA)
            x, y = quad[:, 0].min(), quad[:, 1].min()
            label = f"#{pile.id} {top.card}" + ("" if top.legal else " illegal")
            _text(img, label, (int(x), max(12, int(y) - 3)), 0.45, WHITE if top.legal else (120, 120, 255))
        fps = float(self.table.fps)
        for d in list(referee.decisions)[-4:]:  # the referee's latest looks, for a second
            if d.pose is None or d.kind == "play" or now - d.frame > fps:
                continue
            quad = (cal.to_px(d.pose.corners(card_mm)) * s).round().astype(np.int32)
            cv2.polylines(img, [quad], True, (0, 255, 255), 1, cv2.LINE_AA)
            _text(img, d.kind, (int(quad[:, 0].min()), int(quad[:, 1].max()) + 14), 0.4, (0, 255, 255))

    def _banner(self, img: np.ndarray, ended: str | None) -> None:
        src = self._source_state
        if ended:
            text, colour = ended, (0, 140, 255)
        elif src.get("state") in ("lost", "reconnecting", "gave-up"):
            retry = f", retry in {src['retry_in_s']:g} s" if src.get("retry_in_s") else ""
            text, colour = f"{self.name} {src['state']}: {src.get('error') or ''}{retry}", RED
        else:
            cal = self._calibration
            word = {"ok": "calibrated", "moved": "camera moved", "failed": "calibrating",
                    "waiting": "calibrating"}.get(cal["state"], cal["state"])
            text, colour = f"{word}: {cal['detail']}", CAL_COLOURS.get(cal["state"], RED)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
        cv2.rectangle(img, (0, 0), (min(img.shape[1], tw + 12), th + 10), colour, -1)
        cv2.putText(img, text, (6, th + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5, WHITE, 1, cv2.LINE_AA)


class _DrawClock:
    """No pacing (cameras pace themselves; tests run flat out), drawing at most `draw_rate` a second."""

    def __init__(self, draw_rate: float):
        self.draw_s, self.last_draw = 1.0 / draw_rate, -1e9

    def tick(self) -> bool:
        now = time.monotonic()
        if now - self.last_draw >= self.draw_s * 0.9:
            self.last_draw = now
            return True
        return False


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
    table = load_table(table_folder)  # checked before the camera is opened
    check_player_ids(table)
    relay = _StatusRelay()
    source = open_source(spec, on_status=relay)
    table = table.model_copy(update={"fps": float(source.fps or table.fps), "size": tuple(source.size)})
    is_file = bool(getattr(source, "is_file", False))
    feed = PipelineFeed(source, table, realtime=is_file if realtime is None else realtime, speed=speed,
                        clips=clips, **kw)
    relay.attach(feed.source_status)
    return feed


class _StatusRelay:
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
