"""A scene folder's video as a frame source: frame indices are the video's frame numbers.

The event log's `frame` is the 0-based index of a video frame, so this source never
skips or renumbers; t = index / scene.json's fps.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ligretto_vision.capture.frame import Frame
from ligretto_vision.capture.video_source import VideoCaptureSource
from ligretto_vision.errors import LigrettoError
from ligretto_vision.scene import Scene, load_scene


class SceneSource:
    def __init__(self, folder: str | Path):
        self.scene: Scene = load_scene(folder)
        self.name = f"scene:{Path(folder).name}"
        path = self.scene.video_path
        if not path.is_file():
            raise LigrettoError(f"scene.json names video {self.scene.video!r}, which is not in the folder",
                                path=str(Path(folder) / "scene.json"))
        self._video = VideoCaptureSource(path, name=self.name)
        self.fps = float(self.scene.fps)
        self.size = tuple(self.scene.size)
        if self._video.size != self.size:
            self._video.close()
            raise LigrettoError(f"video is {self._video.size[0]}x{self._video.size[1]} but scene.json says "
                                f"size {self.size[0]}x{self.size[1]}", path=str(path))

    @property
    def frame_count(self) -> int | None:
        return self._video.frame_count

    def frames(self) -> Iterator[Frame]:
        for f in self._video.frames():
            yield Frame(index=f.index, t=f.index / self.fps, image=f.image)

    def close(self) -> None:
        self._video.close()
