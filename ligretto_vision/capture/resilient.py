"""Keep a live camera going: report when it unplugs or stalls, reconnect with backoff, never restart.

`ResilientSource(open_fn)` opens the source once (a wrong setting fails at start, loudly),
then reads it in a worker thread so a camera that hangs instead of failing is noticed
too (no frame within `stall_s`). On loss it reports, waits (0.5 s, 1 s, 2 s, ... up
to `max_delay_s`), reopens with `open_fn` and goes on numbering frames where it left
off, so the event log's frame numbers never jump back. Frames are numbered by their capture
time (`frame_number`), not counted: a frame the camera dropped, or the seconds a camera was
away, leave their numbers out, and the referee sees the gap.

Status goes to `on_status(dict)` (the panel shows it), and stays readable as `.status`:
    {"source": "usb:0", "state": "ok" | "lost" | "reconnecting" | "ended" | "gave-up",
     "frames": frames delivered so far, "attempt": reconnect attempt, "error": why or None,
     "retry_in_s": seconds to the next try (reconnecting), "at": time.time()}
"""
from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, Iterator

from ligretto_vision.capture.frame import Frame, FrameSource, SourceLost, frame_number

StatusCallback = Callable[[dict], None]


@dataclass(frozen=True)
class Backoff:
    first_s: float = 0.5
    factor: float = 2.0
    max_delay_s: float = 10.0

    def delay(self, attempt: int) -> float:
        return min(self.max_delay_s, self.first_s * self.factor ** max(0, attempt - 1))


class ResilientSource:
    def __init__(self, open_fn: Callable[[], FrameSource], *, name: str | None = None,
                 on_status: StatusCallback | None = None, backoff: Backoff = Backoff(),
                 stall_s: float = 5.0, max_attempts: int | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        self._open_fn, self._on_status, self._sleep = open_fn, on_status, sleep
        self.backoff, self.stall_s, self.max_attempts = backoff, stall_s, max_attempts
        self._source: FrameSource | None = open_fn()  # first open: errors reach the caller
        self.name = name or getattr(self._source, "name", "camera")
        self.fps, self.size = self._source.fps, self._source.size
        self.status: dict = {}
        self._delivered = 0
        self._last = -1  # the number of the last frame delivered
        self._last_at = 0.0  # ... and when it was delivered (time.monotonic)
        self._report("ok", attempt=0)

    def frames(self) -> Iterator[Frame]:
        while True:
            clock = None  # (capture time, number) of the first frame of the camera now open
            try:
                for frame in _watched(self._source, self.stall_s):
                    if clock is None:  # a reopened camera's clock may start anew: the time away is ours
                        away = 0 if self._last < 0 else round((time.monotonic() - self._last_at) * self.fps)
                        clock = (frame.t, self._last + max(1, away))
                    self._last = frame_number(frame.t, clock, self.fps, self._last)
                    self._last_at = time.monotonic()
                    yield replace(frame, index=self._last)
                    self._delivered += 1
                self._report("ended")
                return
            except SourceLost as exc:
                self._report("lost", error=str(exc))
            self._close_source()
            self._source = self._reconnect()

    def close(self) -> None:
        self._close_source()

    # ---- internals --------------------------------------------------------------------------
    def _reconnect(self) -> FrameSource:
        attempt, error = 0, self.status.get("error")
        while True:
            attempt += 1
            if self.max_attempts is not None and attempt > self.max_attempts:
                self._report("gave-up", attempt=attempt - 1, error=error)
                raise SourceLost(f"{self.name}: gave up after {attempt - 1} reconnect attempts: {error}")
            delay = self.backoff.delay(attempt)
            self._report("reconnecting", attempt=attempt, error=error, retry_in_s=delay)
            self._sleep(delay)
            try:
                source = self._open_fn()
            except Exception as exc:  # any failure to reopen is worth another try later
                error = f"{type(exc).__name__}: {exc}"
                continue
            self.fps, self.size = source.fps, source.size
            self._report("ok", attempt=attempt)
            return source

    def _close_source(self) -> None:
        if self._source is not None:
            try:
                self._source.close()
            except Exception:
                pass  # a dead camera may not close cleanly; it is being replaced anyway
            self._source = None

    def _report(self, state: str, *, attempt: int | None = None, error: str | None = None,
                retry_in_s: float | None = None) -> None:
        self.status = {"source": self.name, "state": state, "frames": self._delivered,
                       "attempt": attempt if attempt is not None else self.status.get("attempt", 0),
                       "error": error, "retry_in_s": retry_in_s, "at": time.time()}
        if self._on_status:
            self._on_status(dict(self.status))


def _watched(source: FrameSource, stall_s: float) -> Iterator[Frame]:
    """The source's frames, read in a worker thread; silence longer than stall_s is SourceLost.

    The timeout only runs while the caller waits for a frame, so a slow consumer is never
    taken for a stalled camera.
    """
    box: queue.Queue = queue.Queue(maxsize=2)
    stop = threading.Event()

    def put(item) -> None:
        while not stop.is_set():
            try:
                box.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def pump() -> None:
        try:
            for frame in source.frames():
                if stop.is_set():
                    return
                put(("frame", frame))
            put(("end", None))
        except Exception as exc:  # delivered to the reader, who decides
            put(("error", exc))

    threading.Thread(target=pump, name=f"frames-{getattr(source, 'name', 'source')}", daemon=True).start()
    try:
        while True:
            try:
                kind, item = box.get(timeout=stall_s)
            except queue.Empty:
                raise SourceLost(f"no frame for {stall_s:g} s (stalled)") from None
            if kind == "frame":
                yield item
            elif kind == "end":
                return
            elif isinstance(item, SourceLost):
                raise item
            else:
                raise SourceLost(f"{type(item).__name__}: {item}") from item
    finally:
        stop.set()
