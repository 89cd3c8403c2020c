"""The one interface between a camera (or a stand-in for one) and the referee."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Protocol

import numpy as np


@dataclass
class Frame:
    index: int  # 0-based frame number since the source started (the event log's `frame`)
    t: float  # capture time in seconds (sensor timestamp where the camera gives one)
    image: np.ndarray  # BGR, uint8, HxWx3


def frame_number(t: float, clock: tuple[float, int], fps: float, last: int) -> int:
    """The number of a live frame captured at `t` (s), from `clock`: (the capture time, the number)
    of an earlier frame of the same camera. Numbered by time, not counted: frames the camera or a
    busy machine dropped leave their numbers out, so a frame number over the fps is the time it
    was taken and every time the referee reports stays true. Never at or before `last` (a
    timestamp that jitters back)."""
    t0, n0 = clock
    return max(last + 1, n0 + int(round((t - t0) * fps)))


class SourceLost(RuntimeError):
    """The source stopped delivering (unplugged, stalled, end of a stream that should not end)."""


class FrameSource(Protocol):
    fps: float
    size: tuple[int, int]  # (width, height)

    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...
