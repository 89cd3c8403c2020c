"""The event log (SCENES.md): what the referee writes, the panel shows and the scorer reads.

Events stay close to their JSON form: a type, a frame and the keys that type has.
Reading validates every line and names file, line and problem on the first bad one.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterable

from ligretto_vision.errors import LigrettoError

# keys each event type must carry besides `type` and `frame`
REQUIRED: dict[str, tuple[str, ...]] = {
    "state": ("piles", "players"),
    "play": ("player", "card", "pile"),
    "takeback": ("player", "card", "pile"),
    "dispute": ("pile", "card", "claims", "winner"),
    "pile_closed": ("pile",),
    "round_end": ("player",),
    "count": ("player", "centre", "stack"),
    "refill": ("player", "card"),
    "flip": ("player", "top", "count"),
    "recycle": ("player",),
    "round_blocked": (),  # ours: nobody could play any more, the round is scored as it stands (001)
}
ILLEGAL_REASONS = ("wrong-colour", "wrong-number", "after-stop", "two-cards")


@dataclass
class Event:
    type: str
    frame: int
    data: dict = field(default_factory=dict)

    def get(self, key: str, default=None):
        return self.data.get(key, default)

    def to_json(self) -> dict:
        return {"type": self.type, "frame": self.frame, **self.data}

    @classmethod
    def from_json(cls, obj: dict) -> "Event":
        data = {k: v for k, v in obj.items() if k not in ("type", "frame")}
        return cls(obj["type"], obj["frame"], data)


def check_event(obj: object) -> Event:
    """Validate one decoded line; ValueError names the problem."""
    if not isinstance(obj, dict):
        raise ValueError("an event must be a JSON object")
    typ = obj.get("type")
    if typ not in REQUIRED:
        raise ValueError(f"unknown event type {typ!r} (known: {', '.join(REQUIRED)})")
    frame = obj.get("frame")
    if isinstance(frame, bool) or not isinstance(frame, int) or frame < 0:
        raise ValueError(f"{typ}: 'frame' must be a whole number >= 0, not {frame!r}")
    missing = [k for k in REQUIRED[typ] if k not in obj]
    if missing:
        raise ValueError(f"{typ} at frame {frame}: missing {', '.join(missing)}")
    return Event.from_json(obj)


def read_log(path: str | Path) -> list[Event]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LigrettoError("no such event log", path=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LigrettoError(f"cannot read event log: {exc}", path=str(path)) from None
    events: list[Event] = []
    last = -1
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            ev = check_event(json.loads(line))
        except json.JSONDecodeError as exc:
            raise LigrettoError(f"not valid JSON ({exc.msg} at column {exc.colno})", path=str(path), line=no) from None
        except ValueError as exc:
            raise LigrettoError(str(exc), path=str(path), line=no) from None
        if ev.frame < last:
            raise LigrettoError(f"frame {ev.frame} comes after frame {last}: the log must be in frame order",
                                path=str(path), line=no)
        last = ev.frame
        ev.data["_line"] = no  # kept so later checks can name the line; never written back
        events.append(ev)
    return events


def write_events(events: Iterable[Event], out: IO[str]) -> None:
    for ev in events:
        out.write(json.dumps({k: v for k, v in ev.to_json().items() if not k.startswith("_")}) + "\n")
