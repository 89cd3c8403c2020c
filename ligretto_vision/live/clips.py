"""Dispute clips, made where the frames are: the feed keeps the last ~2.5 s of JPEGs in a ring, and
for every `dispute` event saves the frames around the touches as a folder of JPEGs plus `clip.json`,
for the panel's slowed-down replay."""
from __future__ import annotations

import json
import math
import re
import shutil
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from ligretto_vision.events import Event

CLIP_FORMAT = "ligretto-clip/1"
CLIP_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$")  # what the panel accepts as a clip folder name


def clip_name(run_id: str, ev: Event) -> str:
    """The clip folder's name for a dispute (its frame already on the run's one clock)."""
    return f"{run_id}-{ev.frame:08d}-pile{ev.get('pile')}"


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

