"""Feeds: what puts a table's events and pictures into the live hub.

A feed is anything with `run(hub, stop_event)`: it publishes events and annotated
JPEG frames into a `LiveHub` until `stop_event` is set. For now there is one, the
simulated table played in real time; a camera feed will follow with the same shape.

Dispute clips are made here, where the frames are: the feed keeps the last ~2.5 s
of JPEGs in a ring, and for every `dispute` event saves the frames around the
touches as a folder of JPEGs plus `clip.json`, for the panel's slowed-down replay.
"""
from __future__ import annotations

import json
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

from ligretto_vision.events import Event
from ligretto_vision.live import LiveHub
from ligretto_vision.rules import RuleOptions
from ligretto_vision.sim import BotStyle, SimTable, TableState

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
        a = math.radians(p["seat"])
        px, py = w / 2 - math.sin(a) * w * 0.40, h / 2 + math.cos(a) * h * 0.40
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
    """Bots play round after round in real time (seed+1 each round) and the hub gets every event and frame."""
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
                table = SimTable(self.players, seed=seed, options=self.rules(), fps=self.fps,
                                 edition_name=self.edition(), style=BotStyle(mistakes=self.mistakes))
                self.rounds_played += 1
                hub.set_status(round=self.rounds_played, seed=seed, round_start_frame=offset)
                limit = int(MAX_ROUND_S * self.fps)
                while not table.over and not stop.is_set():
                    new = table.step() if table.frame < limit else table.run(max_s=0)[len(table.events):]
                    frame = offset + table.frame - 1
                    self._publish(hub, new, offset, run_id, recorder)
                    if clock.tick():
                        self._frame(hub, table, frame, recorder)
                offset += table.frame
                pause = int(PAUSE_BETWEEN_ROUNDS_S * self.fps)
                for i in range(pause):  # the counted table stays on screen, frames keep counting
                    if stop.is_set():
                        break
                    if clock.tick():
                        self._frame(hub, table, offset + i, recorder, counted=True)
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

    def _frame(self, hub: LiveHub, table: SimTable, frame: int, recorder, counted: bool = False) -> None:
        tallies = {p: (z.played, z.illegal) for p, z in table.round.zones.items()}
        secs = table.frame / self.fps
        caption = (f"round {self.rounds_played} counted" if counted
                   else f"round {self.rounds_played}  {int(secs // 60)}:{int(secs % 60):02d}  frame {frame}")
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
