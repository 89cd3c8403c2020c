"""The live hub: where the running referee publishes and the panel reads.

Events go into an append-only list (readers keep their own position, so a slow
browser never holds up the referee); the latest annotated frame sits behind a
condition, picamera2-style, so every MJPEG client gets the newest picture and
slow clients simply skip frames.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from ligretto_vision.events import Event


@dataclass
class LiveHub:
    events: list[Event] = field(default_factory=list)
    status: dict = field(default_factory=dict)  # source state, calibration state, alerts
    _frame: bytes | None = None
    _frame_id: int = 0
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def publish(self, events: list[Event]) -> None:
        with self._cond:
            self.events.extend(events)
            self._cond.notify_all()

    def publish_frame(self, jpeg: bytes) -> None:
        with self._cond:
            self._frame, self._frame_id = jpeg, self._frame_id + 1
            self._cond.notify_all()

    def set_status(self, **kw) -> None:
        with self._cond:
            self.status.update(kw, updated=time.time())
            self._cond.notify_all()

    def events_since(self, n: int) -> list[Event]:
        with self._cond:
            return self.events[n:]

    def wait_frame(self, last_id: int, timeout: float = 1.0) -> tuple[int, bytes | None]:
        """Block until a frame newer than `last_id` exists (or timeout); returns (id, jpeg)."""
        with self._cond:
            self._cond.wait_for(lambda: self._frame_id != last_id, timeout)
            return self._frame_id, self._frame
