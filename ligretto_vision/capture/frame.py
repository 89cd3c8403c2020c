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


class SourceLost(RuntimeError):
    """The source stopped delivering (unplugged, stalled, end of a stream that should not end)."""


class FrameSource(Protocol):
    fps: float
    size: tuple[int, int]  # (width, height)

    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...
