"""What lies on the board game's fields, read from the board's top view (geometry/board_grid.py):
the fields' colours on the empty board, a card half's colour, the printed border that tells whose
card or joker it is (learned from enroll/borders/), and the white of tokens and jokers."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ligretto_vision.config.board import BoardConfig
from ligretto_vision.errors import LigrettoError
from ligretto_vision.geometry.board_grid import BoardGrid, Cell


def _lab(bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(bgr.reshape(-1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)


def _inner(grid: BoardGrid, cell: Cell, inset: float = 0.28) -> tuple[slice, slice]:
    c, r = cell
    a, b = int(grid.px * inset), int(grid.px * (1 - inset))
    return slice(r * grid.px + a, r * grid.px + b), slice(c * grid.px + a, c * grid.px + b)


def coloured(view_hsv: np.ndarray, cfg: BoardConfig) -> np.ndarray:
    """Pixels of a field's or a card's colour: not token or joker white (a dark field under a warm
    dim lamp is as unsaturated as the white, but not as bright)."""
    return ~white(view_hsv, cfg)


def white(view_hsv: np.ndarray, cfg: BoardConfig) -> np.ndarray:
    return (view_hsv[..., 2] >= cfg.white_least) & (view_hsv[..., 1] <= cfg.white_most_sat)


@dataclass(frozen=True)
class Palette:
    """The board's colours as this camera sees them (Lab), learned from the empty board."""
    names: tuple[str, ...]
    lab: np.ndarray  # (n, 3)

    def nearest(self, lab: np.ndarray) -> tuple[str, float]:
        """The colour nearest `lab`, and how much nearer than the next (0: a tie, 1: sure)."""
        d = np.linalg.norm(self.lab - lab, axis=1)
        o = np.argsort(d)
        return self.names[o[0]], float(1 - d[o[0]] / max(d[o[1]], 1e-6))


def cell_lab(view: np.ndarray, view_hsv: np.ndarray, grid: BoardGrid, cell: Cell, cfg: BoardConfig) -> np.ndarray | None:
    """The median colour of the field inside a printed border, its coloured pixels only (a token or
    a hand's shadow left out; None: too few show)."""
    sl = _inner(grid, cell, 0.16)
    mask = coloured(view_hsv[sl], cfg) & (view_hsv[sl][..., 2] > 0.6 * np.median(view_hsv[sl][..., 2]))
    if mask.sum() < 0.1 * mask.size:
        return None
    return np.median(_lab(view[sl][mask]), axis=0)


def read_fields(view: np.ndarray, grid: BoardGrid, colours: list[str], palette: dict[str, tuple[int, int, int]],
                cfg: BoardConfig) -> tuple[tuple[tuple[str, ...], ...], Palette]:
    """Every field's colour on the empty board. The fields' own colours are grouped into as many as
    the game has (k-means in Lab), and each group is named by the nearest of scene.json's `palette`
    (RGB) one to one, so a board printed in other shades is read by its own colours."""
    hsv = cv2.cvtColor(view, cv2.COLOR_BGR2HSV)
    cells = [(c, r) for r in range(grid.rows) for c in range(grid.cols)]
    labs = [cell_lab(view, hsv, grid, cell, cfg) for cell in cells]
    if any(v is None for v in labs):
        bad = [list(cells[i]) for i, v in enumerate(labs) if v is None][:5]
        raise LigrettoError(f"the empty board shows no field colour at {bad}: is something lying on it?")
    data = np.array(labs, np.float32)
    k = len(colours)
    ref = _lab(np.array([palette[c][::-1] for c in colours], np.uint8)) if palette else None
    if ref is None:
        centres = _kmeans(data, data[np.linspace(0, len(data) - 1, k).astype(int)])
    else:
        # grouped and named as under the palette's light: a warm, dim or tinted lamp scales each
        # channel; the board's mean is the palette's (its colours come about equally often)
        bgr = cv2.cvtColor(data.reshape(-1, 1, 3).astype(np.uint8), cv2.COLOR_LAB2BGR).reshape(-1, 3).astype(np.float32)
        want = np.array([palette[c][::-1] for c in colours], np.float32).mean(axis=0)
        lit = _lab(np.clip(bgr * (want / np.maximum(bgr.mean(axis=0), 1.0)), 0, 255))
        seen = _kmeans(lit, ref)
        from itertools import permutations
        best = list(min(permutations(range(k)), key=lambda p: sum(np.linalg.norm(seen[p[i]] - ref[i]) for i in range(k))))
        label = np.argmin(np.linalg.norm(lit[:, None] - seen[None], axis=2), axis=1)
        # the groups' colours as this camera sees them (cards are read in the same light)
        centres = np.array([data[label == j].mean(axis=0) if (label == j).any() else seen[j] for j in best], np.float32)
    pal = Palette(tuple(colours), centres)
    names = [pal.nearest(v)[0] for v in data]
    return tuple(tuple(names[r * grid.cols:(r + 1) * grid.cols]) for r in range(grid.rows)), pal


def _kmeans(data: np.ndarray, init: np.ndarray, rounds: int = 20) -> np.ndarray:
    centres = init.astype(np.float32).copy()
    for _ in range(rounds):
        label = np.argmin(np.linalg.norm(data[:, None] - centres[None], axis=2), axis=1)
        for i in range(len(centres)):
            if (label == i).any():
                centres[i] = data[label == i].mean(axis=0)
    return centres


def enrolled_white(cfg: BoardConfig, token_png: Path) -> BoardConfig:
    """The board's thresholds with this table's token white, as the enrolled token (enroll/token.png)
    shows it in this light: no more saturated than it by `white_sat_margin` (a pale hand resting on
    the board is a little more saturated than the tokens, a token seen through a softer lens a
    little more) and at least `white_value_share` as bright (a warm dim lamp makes white yellow and dark)."""
    image = cv2.imread(str(token_png))
    if image is None:
        raise LigrettoError("no token enrolled: the board game finds its tokens by their white (enroll/token.png)",
                            path=str(token_png))
    n = min(image.shape[:2])
    middle = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)[n // 3:2 * n // 3, n // 3:2 * n // 3]
    sat = int(np.median(middle[..., 1])) + cfg.white_sat_margin
    bright = int(np.median(middle[..., 2]) * cfg.white_value_share)
    return cfg.model_copy(update={"white_most_sat": min(255, sat), "white_least": bright})


def token_share(view_hsv: np.ndarray, grid: BoardGrid, cell: Cell, cfg: BoardConfig) -> tuple[float, float]:
    """The share of white in the disc at the field's centre and in its rim: a token is a white disc
    (white middle, coloured rim), a joker a white tile (white rim as well)."""
    c, r = cell
    patch = white(view_hsv[r * grid.px:(r + 1) * grid.px, c * grid.px:(c + 1) * grid.px], cfg)
    n = grid.px
    yy, xx = np.mgrid[:n, :n]
    d = np.hypot(yy - (n - 1) / 2, xx - (n - 1) / 2)
    return float(patch[d < 0.22 * n].mean()), float(patch[(d > 0.36 * n) & (np.minimum(np.minimum(yy, xx),
                                                                  np.minimum(n - 1 - yy, n - 1 - xx)) >= 0.06 * n)].mean())


def token_seen(view_hsv: np.ndarray, grid: BoardGrid, cell: Cell, cfg: BoardConfig) -> bool:
    """A token stands on the field (or on a joker there): a white disc at its middle (a joker's
    middle shows its star)."""
    return token_share(view_hsv, grid, cell, cfg)[0] >= cfg.token_share


def dark_lines(gray: np.ndarray) -> np.ndarray:
    """How much darker each pixel is than its surroundings, as a share of their brightness: printed
    lines, not colour (a line on yellow and on blue alike)."""
    g = gray.astype(np.float32)
    around = cv2.blur(g, (9, 9))
    return np.maximum(0.0, around - g) / np.maximum(around, 20.0) * 100


def upright(patch: np.ndarray, cells) -> np.ndarray:
    """A card's (or joker's) patch turned so that it lies long side across."""
    (c0, r0), (c1, r1) = cells[0], cells[-1]
    return np.ascontiguousarray(np.rot90(patch)) if c0 == c1 and r0 != r1 else patch


def edge_lines(lines: np.ndarray, depth: int) -> np.ndarray:
    """(4, depth, length) of an upright patch's line map: each edge's strips from the edge inwards
    (top, bottom, left, right; corners left out)."""
    h, w = lines.shape
    m = depth
    top, bottom = lines[:m, m:w - m], lines[h - m:, m:w - m][::-1]
    left, right = lines[m:h - m, :m].T, lines[m:h - m, w - m:].T[::-1]
    n = min(top.shape[1], left.shape[1])
    return np.stack([e[:, (e.shape[1] - n) // 2:(e.shape[1] - n) // 2 + n] for e in (top, bottom, left, right)])


def border_strength(lines: np.ndarray, px: int) -> float:
    """How clearly a printed border runs along all four edges: the weakest edge's line."""
    e = edge_lines(lines, max(3, px // 4))
    return float(e.max(axis=1).mean(axis=1).min())


def border_features(lines: np.ndarray, px: int) -> np.ndarray:
    """What a border looks like, wherever it lies within a few pixels: how dark its line is and how
    it runs from the edge inwards (one line or two, each edge's profile aligned at its darkest
    depth), and how much it is broken along the edge (unbroken, dashes or dots)."""
    depth = max(3, px // 4)
    e = edge_lines(lines, depth)  # (4, depth, n)
    prof = e.mean(axis=2)  # (4, depth)
    k = 3
    aligned = np.zeros((4, 2 * k + 1), np.float32)
    for i, p in enumerate(prof):
        at = int(p.argmax())
        for j in range(-k, k + 1):
            if 0 <= at + j < depth:
                aligned[i, j + k] = p[at + j]
    along = e.max(axis=1)  # (4, n)
    broken = along.std(axis=1) / np.maximum(along.mean(axis=1), 1e-3)
    return np.concatenate([aligned.mean(axis=0) / 4, [np.median(broken) * 10]]).astype(np.float32)


class BorderReader:
    """Whose card: the border printed on it, nearest the one enrolled for each player."""

    def __init__(self, refs: dict[str, np.ndarray], px: int):
        self.refs, self.px = refs, px

    @classmethod
    def enrolled(cls, folder: Path, players: list[str], px: int) -> "BorderReader":
        """From enroll/borders/<player>.png (one card of each player, upright, long side across)."""
        refs, missing = {}, []
        for p in players:
            image = cv2.imread(str(folder / f"{p}.png"))
            if image is None:
                missing.append(p)
                continue
            if image.shape[0] > image.shape[1]:
                image = np.ascontiguousarray(np.rot90(image))
            card = cv2.resize(image, (2 * px, px), interpolation=cv2.INTER_AREA)
            refs[p] = border_features(dark_lines(cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)), px)
        if missing:
            raise LigrettoError(f"no border enrolled for {', '.join(missing)}: the board game tells whose card "
                                f"it is by its border (enroll/borders/<player>.png)", path=str(folder))
        return cls(refs, px)

    def owner(self, lines: np.ndarray) -> tuple[str, float]:
        """The player whose border the upright patch's line map shows, and how sure (0 to 1)."""
        f = border_features(lines, self.px)
        d = {p: float(np.linalg.norm(f - r)) for p, r in self.refs.items()}
        o = sorted(d, key=d.get)
        return o[0], (1 - d[o[0]] / max(d[o[1]], 1e-6)) if len(o) > 1 else 1.0
