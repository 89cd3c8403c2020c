"""The live hub: where the running referee publishes and the panel reads.

Events go into an append-only list (readers keep their own position, so a slow
browser never holds up the referee); the latest annotated frame sits behind a
condition, picamera2-style, so every MJPEG client gets the newest picture and
slow clients simply skip frames.

Positions are absolute (the n-th event ever published). So that a table left running
for days does not grow without bound, only the last `max_events` are kept in memory
(everything is in the store anyway); a reader further behind than that skips ahead.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

from ligretto_vision.events import Event

MAX_EVENTS = 100_000  # about a hundred hours of play


class Feed(Protocol):
    """What puts a table's events and pictures into the hub until `stop` is set (sim_feed, camera_feed)."""
    round_no: Callable[[], int] | None  # the panel's number of the round under way, when it has one

    def run(self, hub: "LiveHub", stop: threading.Event) -> None: ...

    def to_picture(self, points_mm: list[tuple[float, float]]) -> list[tuple[float, float]] | None:
        """Where table points (mm) lie on the feed's picture, as shares of its width and height; None when
        the feed cannot say yet (a camera not calibrated)."""


@dataclass
class LiveHub:
    events: list[Event] = field(default_factory=list)  # the newest events (all of them until max_events)
    status: dict = field(default_factory=dict)  # source state, calibration state, alerts
    max_events: int = MAX_EVENTS
    dropped: int = 0  # events no longer kept: events[i] is event number dropped + i
    _frame: bytes | None = None
    _frame_id: int = 0
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def publish(self, events: list[Event]) -> None:
        with self._cond:
            self.events.extend(events)
            over = len(self.events) - self.max_events
            if over > 0:  # drop a quarter at once, so trimming is rare
                cut = over + self.max_events // 4
                del self.events[:cut]
                self.dropped += cut
            self._cond.notify_all()

    def publish_frame(self, jpeg: bytes) -> None:
        with self._cond:
            self._frame, self._frame_id = jpeg, self._frame_id + 1
            self._cond.notify_all()

    def set_status(self, **kw) -> None:
        with self._cond:
            self.status.update(kw, updated=time.time())
            self._cond.notify_all()

    @property
    def total(self) -> int:
        """How many events were ever published."""
        with self._cond:
            return self.dropped + len(self.events)

    def events_since(self, n: int) -> list[Event]:
        with self._cond:
            return self.events[max(0, n - self.dropped):]

    def wait_events(self, n: int, timeout: float = 1.0) -> list[Event]:
        """Block until there are events after position `n` (or timeout); returns them (maybe none)."""
        with self._cond:
            self._cond.wait_for(lambda: self.dropped + len(self.events) > n, timeout)
            return self.events[max(0, n - self.dropped):]

    def wait_frame(self, last_id: int, timeout: float = 1.0) -> tuple[int, bytes | None]:
        """Block until a frame newer than `last_id` exists (or timeout); returns (id, jpeg)."""
        with self._cond:
            self._cond.wait_for(lambda: self._frame_id != last_id, timeout)
            return self._frame_id, self._frame
