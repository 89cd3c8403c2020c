"""The simulated table as a frame source.

HOOK for the renderer: `SimSource(renderer=...)` takes any
`Renderer(state, table_mm, size) -> BGR image`. The photo-like renderer is written
elsewhere later; until then `render_schematic` draws a plain top view (felt, piles,
each player's row) that is enough to run the pipeline and the panel end to end.
"""
from __future__ import annotations

import time
from typing import Callable, Iterator

import cv2
import numpy as np

from ligretto_vision.geometry.seats import seat_direction
from ligretto_vision.capture.frame import Frame
from ligretto_vision.events import Event
from ligretto_vision.sim import SimTable, TableState
from ligretto_vision.sim.render import CARD_BGR

Renderer = Callable[[TableState, tuple[float, float], tuple[int, int]], np.ndarray]

FELT_BGR = (60, 110, 50)
CARD_MM = (59.0, 91.0)


class SimSource:
    def __init__(self, table: SimTable | None = None, *, players: int = 4, seed: int = 0,
                 edition: str = "classic", fps: float = 30.0, size: tuple[int, int] = (1280, 720),
                 renderer: Renderer | None = None, realtime: bool = False, tail_s: float = 2.0):
        self.table = table or SimTable(players, seed=seed, fps=fps, edition_name=edition)
        self.fps = float(self.table.fps)
        self.size = size
        self.name = "sim"
        self.renderer = renderer or render_schematic
        self.realtime = realtime  # pace to the wall clock (a live panel), or run flat out (tests, replays)
        self.tail_frames = int(tail_s * self.fps)  # keep showing the counted table a moment
        self.last_events: list[Event] = []  # what happened in the frame just yielded: the truth, for tests

    def frames(self) -> Iterator[Frame]:
        start = time.monotonic()
        tail = 0
        while tail <= self.tail_frames:
            index = self.table.frame
            if self.table.over:
                self.last_events, tail = [], tail + 1
                self.table.frame += 1  # time goes on while nothing happens
            else:
                self.last_events = self.table.step()
            image = self.renderer(self.table.snapshot(), self.table.table_mm, self.size)
            if self.realtime:
                time.sleep(max(0.0, start + index / self.fps - time.monotonic()))
            yield Frame(index=index, t=index / self.fps, image=image)

    def close(self) -> None:
        pass


def render_schematic(state: TableState, table_mm: tuple[float, float], size: tuple[int, int]) -> np.ndarray:
    """A flat top view: every centre pile's top card, and each player's row at their edge."""
    w, h = size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = FELT_BGR
    sx, sy = w / table_mm[0], h / table_mm[1]
    for pile in state.piles:
        if pile.cards:
            _card(img, pile.cards[-1][0], pile.at, 0.0, sx, sy)
    for p in state.players.values():
        dx, dy = seat_direction(p["seat"])
        # a seat's edge point, then the row laid along that edge
        cx, cy = table_mm[0] / 2, table_mm[1] / 2
        ex, ey = cx + dx * cx * 0.8, cy + dy * cy * 0.8
        cards = [c for c in p["row"]] + [p["stack"][-1] if p["stack"] else None]
        for i, card in enumerate(cards):
            off = (i - (len(cards) - 1) / 2) * 75.0
            at = (ex + dy * off, ey - dx * off)  # along the edge
            if card:
                _card(img, card, at, -p["seat"], sx, sy)
    return img


def _card(img: np.ndarray, card: str, at: tuple[float, float], angle_deg: float, sx: float, sy: float) -> None:
    colour, _, number = card.partition("-")
    box = ((at[0] * sx, at[1] * sy), (CARD_MM[0] * sx, CARD_MM[1] * sy), angle_deg)
    pts = cv2.boxPoints(box).astype(np.int32)
    cv2.fillConvexPoly(img, pts, (245, 245, 245))
    inner = ((at[0] * sx, at[1] * sy), (CARD_MM[0] * sx * 0.8, CARD_MM[1] * sy * 0.85), angle_deg)
    cv2.fillConvexPoly(img, cv2.boxPoints(inner).astype(np.int32), CARD_BGR.get(colour, (128, 128, 128)))
    scale = 0.5 * min(sx, sy) * 1.6
    (tw, th), _ = cv2.getTextSize(number, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    org = (int(at[0] * sx - tw / 2), int(at[1] * sy + th / 2))
    cv2.putText(img, number, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 2, cv2.LINE_AA)
