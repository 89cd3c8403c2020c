"""The board game's board on the table: a grid of square fields (BOARD-SCENES.md `board`), seen
from straight above through the table's calibration, so that field (col, row) is always the same
block of pixels whatever the camera's angle."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ligretto_vision.errors import LigrettoError
from ligretto_vision.geometry.calibration import Calibration, picture_px_per_view

Cell = tuple[int, int]  # (col, row), as the rules' board


@dataclass(frozen=True)
class BoardGrid:
    origin_mm: tuple[float, float]  # field (0, 0)'s top-left corner on the table
    field_mm: float
    cols: int
    rows: int
    px: int = 32  # pixels per field in the view

    @classmethod
    def of(cls, spec, px: int = 32, where: str = "scene.json") -> "BoardGrid":
        """From scene.json's `board` ({"origin_mm": [x, y], "field_mm": f, "cols": C, "rows": R})."""
        if not isinstance(spec, dict):
            raise LigrettoError("a board scene needs `board`: origin_mm, field_mm, cols, rows", path=where)
        try:
            grid = cls((float(spec["origin_mm"][0]), float(spec["origin_mm"][1])), float(spec["field_mm"]),
                       int(spec["cols"]), int(spec["rows"]), px)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise LigrettoError(f"board: {exc.__class__.__name__} {exc} (needs origin_mm, field_mm, cols, rows)",
                                path=where) from None
        if grid.field_mm <= 0 or grid.cols < 2 or grid.rows < 2:
            raise LigrettoError("board: fields must have a size and the board at least 2 by 2", path=where)
        return grid

    @property
    def size_mm(self) -> tuple[float, float]:
        return self.cols * self.field_mm, self.rows * self.field_mm

    def warp(self, cal: Calibration) -> "BoardWarp":
        """The board seen from straight above through this calibration, `px` pixels per field, rows
        down: its maps, to render it also shifted (a shaking camera)."""
        m1, m2 = cal.warp_maps(self.origin_mm, self.size_mm, self.px / self.field_mm)
        mx, my = cv2.convertMaps(m1, m2, cv2.CV_32FC1)
        h = mx.shape[0]
        row = ((np.arange(h, dtype=np.float32) + 0.5) / h - 0.5)[:, None]  # as detect/shake.py's step_rows counts
        return BoardWarp(m1, m2, mx, my, picture_px_per_view(mx, my).astype(np.float32), row)

    def box(self, cells) -> tuple[slice, slice]:
        """The view's pixels of the rectangle the cells span (rows, cols)."""
        cs = [c for c, _ in cells]
        rs = [r for _, r in cells]
        return (slice(min(rs) * self.px, (max(rs) + 1) * self.px), slice(min(cs) * self.px, (max(cs) + 1) * self.px))

    def per_cell(self, image: np.ndarray, step: int = 1) -> np.ndarray:
        """The mean of a (H, W) map seen at `step`-th pixels, per field: (rows, cols)."""
        n = self.px // step
        return image.reshape(self.rows, n, self.cols, n).mean(axis=(1, 3))

    def contains(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.cols and 0 <= cell[1] < self.rows


@dataclass(frozen=True)
class BoardWarp:
    """One calibration's top view of the board, rendered as it is or shifted by `by` view pixels
    (the picture's own pixels, not the view's edge repeated, come in at the board's edges)."""
    m1: np.ndarray
    m2: np.ndarray
    map_x: np.ndarray
    map_y: np.ndarray
    per_px: np.ndarray  # (2, 2) picture pixels per view pixel
    row: np.ndarray  # (h, 1) each row's place, -0.5 at the top to 0.5 at the bottom

    def view(self, frame: np.ndarray, by=None) -> np.ndarray:
        """view(p) = the board's top view at p + by: `by` is (x, y) at the middle row and (x, y) more
        per view height downwards (detect/shake.py's `step_rows`)."""
        if by is None or np.abs(by).max() < 0.05:
            return cv2.remap(frame, self.m1, self.m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        sx, sy = by[0] + by[2] * self.row, by[1] + by[3] * self.row  # per row
        ox = self.per_px[0, 0] * sx + self.per_px[0, 1] * sy
        oy = self.per_px[1, 0] * sx + self.per_px[1, 1] * sy
        return cv2.remap(frame, self.map_x + ox.astype(np.float32), self.map_y + oy.astype(np.float32),
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
