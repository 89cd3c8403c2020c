"""OpenCV VideoCapture behind the FrameSource interface: a USB camera, a stream URL or a video file.

Files and cameras differ in what a frame's time means: a file's frame n was taken at
n / fps (its own clock), a live camera's frame when `grab()` returned (time.monotonic,
the clock the Pi camera's SensorTimestamp also uses), so live times line up across a
reconnect.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Iterator

import cv2

from ligretto_vision.capture.frame import Frame, SourceLost
from ligretto_vision.errors import LigrettoError

STREAM_TIMEOUT_MS = 5000  # a network stream that says nothing this long is stalled


class VideoCaptureSource:
    """One cv2.VideoCapture. `target`: camera index (int), stream URL or video file path."""

    def __init__(self, target: int | str | Path, *, fps: float | None = None,
                 size: tuple[int, int] | None = None, name: str | None = None):
        self.target = target
        self.is_file = isinstance(target, Path) or (isinstance(target, str) and "://" not in target)
        self.name = name or (f"usb:{target}" if isinstance(target, int) else str(target))
        self._cap = _open_capture(target, size, fps)
        if not self._cap.isOpened():
            self._cap.release()
            if self.is_file:
                raise LigrettoError("OpenCV cannot open this video (missing, or a codec it lacks)", path=str(target))
            raise LigrettoError(f"cannot open camera or stream {self.name!r}")
        reported = self._cap.get(cv2.CAP_PROP_FPS) or 0.0
        # some cameras and streams report 0 or nonsense fps; trust a given value, else assume 30
        self.fps = float(fps or (reported if 0 < reported < 1000 else 30.0))
        self.size = (int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        self.frame_count = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT)) if self.is_file else None

    def frames(self) -> Iterator[Frame]:
        index = 0
        while True:
            if not self._cap.grab():
                if self.is_file:
                    return  # the end of a file is the normal end
                raise SourceLost(f"{self.name}: no frame (unplugged or stalled?)")
            grabbed_at = time.monotonic()
            ok, image = self._cap.retrieve()
            if not ok or image is None:
                if self.is_file:
                    return
                raise SourceLost(f"{self.name}: frame {index} could not be decoded")
            t = index / self.fps if self.is_file else grabbed_at
            yield Frame(index=index, t=t, image=image)
            index += 1

    def close(self) -> None:
        self._cap.release()


def _open_capture(target: int | str | Path, size: tuple[int, int] | None, fps: float | None) -> cv2.VideoCapture:
    if isinstance(target, int):
        cap = cv2.VideoCapture(target)
        if size:  # ask; a camera that cannot do it silently keeps its own size
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        if fps:
            cap.set(cv2.CAP_PROP_FPS, fps)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not one from a queue
        return cap
    target = str(target)
    if "://" in target:  # bounded waits so a dead stream ends in SourceLost, not a hang
        return cv2.VideoCapture(target, cv2.CAP_FFMPEG, [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, STREAM_TIMEOUT_MS,
                                                         cv2.CAP_PROP_READ_TIMEOUT_MSEC, STREAM_TIMEOUT_MS])
    return cv2.VideoCapture(target)
