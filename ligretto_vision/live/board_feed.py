"""The board game's feed: the board referee on a board scene's frames (`"game": "board"`), at the
scene's pace. What it decides goes into the hub: the board as it sees it (status `board`, which the
panel's board page shows) and the latest picture; its events go to `log` when one is given, not into
the card game's match tallies (the match keeper counts card-game rounds)."""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import cv2

from ligretto_vision.capture.scene_source import SceneSource
from ligretto_vision.config.vision import VisionConfig
from ligretto_vision.events import write_events
from ligretto_vision.live.hub import LiveHub
from ligretto_vision.referee.board.referee import BoardReferee

log = logging.getLogger(__name__)


class BoardFeed:
    round_no = None

    def __init__(self, folder: str | Path, speed: float = 1.0, vision: VisionConfig = VisionConfig(),
                 log: Path | None = None):
        self.source = SceneSource(folder)
        self.table = self.source.scene
        self.speed, self.vision, self.log = speed, vision, log

    def to_picture(self, points_mm):
        return None  # the board page draws the board itself; no dispute replays to zoom

    def run(self, hub: LiveHub, stop: threading.Event) -> None:
        try:
            self._run(hub, stop)
        except Exception as exc:  # the referee failed: the panel says so, and the feed is done
            log.exception("the board referee stopped")
            hub.set_status(board_error=str(exc), board_done=True)
        finally:
            self.source.close()

    def _run(self, hub: LiveHub, stop: threading.Event) -> None:
        referee = BoardReferee(self.table, self._emit, self.vision.board, self.vision.detect)
        hub.set_status(source=f"board scene {self.table.folder.name}", game="board", board=referee.state())
        step = 1.0 / (self.table.fps * max(self.speed, 1e-3))
        next_t = time.monotonic()
        for f in self.source.frames():
            if stop.is_set():
                return
            referee.push(f.index, f.image)
            if f.index % 5 == 0:
                ok, jpeg = cv2.imencode(".jpg", f.image, [cv2.IMWRITE_JPEG_QUALITY, 70])
                if ok:
                    hub.publish_frame(jpeg.tobytes())
                hub.set_status(board=referee.state(), frame=f.index)
            next_t += step
            time.sleep(max(0.0, next_t - time.monotonic()))
        referee.finish()
        hub.set_status(board=referee.state(), board_done=True)

    def _emit(self, events) -> None:
        if self.log is not None:  # the board log, when one is asked for
            with self.log.open("a", encoding="utf-8") as fh:
                write_events([e.to_event() for e in events], fh)
