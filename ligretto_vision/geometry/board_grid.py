"""The board game's board on the table: a grid of square fields (BOARD-SCENES.md `board`), seen
from straight above through the table's calibration, so that field (col, row) is always the same
block of pixels whatever the camera's angle."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ligretto_vision.errors import LigrettoError
from ligretto_vision.geometry.calibration import Calibration

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

    def view(self, cal: Calibration, frame: np.ndarray) -> np.ndarray:
        """The board seen from straight above, `px` pixels per field, rows down."""
        return cal.crop(frame, self.origin_mm, self.size_mm, self.px / self.field_mm)

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
