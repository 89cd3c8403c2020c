"""The board game's pieces seen from above, as pictures at a given scale (px per mm): the board,
the two-colour cards with their player's printed border, the jokers and the tokens.

Each is drawn `SUPERSAMPLE` times larger and shrunk, so thin border lines and dots stay smooth.
Cards and jokers are BGRA (rounded corners transparent); the board is BGRA too (its edge), the
token carries its own soft shadow in its alpha. Colours are the draw's printed sRGB.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from ligretto_vision.proving.board_draw import BoardDraw

SUPERSAMPLE = 4
CORNER_MM = 1.5  # a card's and a joker's rounded corners
TOKEN_SHARE = 0.55  # a token's diameter, of a field's side
TOKEN_SHADOW_MM = (1.4, 1.8)  # how far a token's shadow falls (x, y)
DASH_MM, DASH_GAP_MM = 3.6, 2.2
DOT_STEP_MM = 2.7
DOUBLE_GAP_MM = 1.3  # between a double border's two lines
DOT_SHARE = 0.95  # a dot's radius, of the line's width: dots as dark as a line is, seen from afar


def _bgr(rgb) -> tuple[int, int, int]:
    return int(rgb[2]), int(rgb[1]), int(rgb[0])


def _canvas(w_mm: float, h_mm: float, ppm: float, fill) -> tuple[np.ndarray, float]:
    s = ppm * SUPERSAMPLE
    img = np.zeros((max(1, round(h_mm * s)), max(1, round(w_mm * s)), 4), np.uint8)
    img[..., :3] = _bgr(fill)
    img[..., 3] = 255
    return img, s


def _shrink(img: np.ndarray, w_mm: float, h_mm: float, ppm: float) -> np.ndarray:
    return cv2.resize(img, (max(1, round(w_mm * ppm)), max(1, round(h_mm * ppm))), interpolation=cv2.INTER_AREA)


def _round_corners(img: np.ndarray, r_px: float) -> None:
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    r = max(1, int(r_px))
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    img[..., 3] = np.minimum(img[..., 3], mask)


def _grain(img: np.ndarray, rng: np.random.Generator, amount: float) -> None:
    """Print and paper grain: a little noise on the colour."""
    n = rng.normal(1.0, amount, img.shape[:2]).astype(np.float32)[..., None]
    img[..., :3] = np.clip(img[..., :3] * n, 0, 255).astype(np.uint8)


def border_line(img: np.ndarray, s: float, w_mm: float, h_mm: float, style: str, d: BoardDraw) -> None:
    """The player's border printed `d.line_inset_mm` in from the edge of a piece `w_mm` x `h_mm`
    (`img` at `s` px per mm): solid, double, dashed or dotted."""
    colour = _bgr(d.line_rgb) + (255,)
    inset = d.line_inset_mm
    thick = max(1, round(d.line_mm * s))

    def rect(k: float, t: int) -> None:
        cv2.rectangle(img, (round(k * s), round(k * s)), (round((w_mm - k) * s), round((h_mm - k) * s)), colour, t, cv2.LINE_AA)

    if style == "solid":
        rect(inset, thick)
    elif style == "double":
        t = max(1, round(d.line_mm * 0.7 * s))
        rect(inset - DOUBLE_GAP_MM / 2, t)
        rect(inset + DOUBLE_GAP_MM / 2, t)
    else:
        x0, y0, x1, y1 = inset, inset, w_mm - inset, h_mm - inset
        for (ax, ay), (bx, by) in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
            length = math.hypot(bx - ax, by - ay)
            ux, uy = (bx - ax) / length, (by - ay) / length
            if style == "dashed":
                n = max(1, round((length + DASH_GAP_MM) / (DASH_MM + DASH_GAP_MM)))
                step = (length + DASH_GAP_MM) / n  # dashes spread evenly, one ending at each corner
                for i in range(n):
                    a, b = i * step, i * step + step - DASH_GAP_MM
                    cv2.line(img, (round((ax + ux * a) * s), round((ay + uy * a) * s)),
                             (round((ax + ux * b) * s), round((ay + uy * b) * s)), colour, thick, cv2.LINE_AA)
            elif style == "dotted":
                n = max(1, round(length / DOT_STEP_MM))
                for i in range(n):
                    a = i * length / n
                    cv2.circle(img, (round((ax + ux * a) * s), round((ay + uy * a) * s)), max(1, round(d.line_mm * DOT_SHARE * s)),
                               colour, -1, cv2.LINE_AA)
            else:
                raise ValueError(f"no border style {style!r}")


def card_picture(colours: tuple[str, str], style: str, d: BoardDraw, ppm: float, seed: int = 0) -> np.ndarray:
    """A card lying long side across: `colours[0]` on its left half, `colours[1]` on its right, a
    light margin round both and the player's border line over them (BGRA)."""
    w, h = 2 * d.field_mm, d.field_mm
    img, s = _canvas(w, h, ppm, d.margin_rgb)
    m = d.card_margin_mm
    cv2.rectangle(img, (round(m * s), round(m * s)), (round(w / 2 * s), round((h - m) * s)), _bgr(d.card_palette[colours[0]]) + (255,), -1)
    cv2.rectangle(img, (round(w / 2 * s), round(m * s)), (round((w - m) * s), round((h - m) * s)), _bgr(d.card_palette[colours[1]]) + (255,), -1)
    border_line(img, s, w, h, style, d)
    _grain(img, np.random.default_rng([d.seed, seed]), 0.015)
    _round_corners(img, CORNER_MM * s)
    return _shrink(img, w, h, ppm)


def joker_picture(style: str, d: BoardDraw, ppm: float) -> np.ndarray:
    """A joker: a white square tile of one field with a star of the four colours and the player's
    border (BGRA)."""
    side = d.field_mm - 0.6
    img, s = _canvas(side, side, ppm, d.margin_rgb)
    c = side / 2 * s
    colours = list(d.card_palette.values())
    for k in range(8):  # four long points in the four colours, four short ones between them
        a = math.radians(k * 45 - 90)
        r = side * (0.36 if k % 2 == 0 else 0.22) * s
        wing = side * 0.07 * s
        tip = (c + r * math.cos(a), c + r * math.sin(a))
        left = (c + wing * math.cos(a - math.pi / 2), c + wing * math.sin(a - math.pi / 2))
        right = (c + wing * math.cos(a + math.pi / 2), c + wing * math.sin(a + math.pi / 2))
        col = colours[(k // 2) % len(colours)] if k % 2 == 0 else (150, 150, 150)
        cv2.fillPoly(img, [np.int32([tip, left, (c, c), right])], _bgr(col) + (255,), cv2.LINE_AA)
    cv2.circle(img, (round(c), round(c)), max(1, round(side * 0.05 * s)), (255, 255, 255, 255), -1, cv2.LINE_AA)
    border_line(img, s, side, side, style, d)
    _round_corners(img, CORNER_MM * s)
    return _shrink(img, side, side, ppm)


def token_picture(d: BoardDraw, ppm: float) -> np.ndarray:
    """A token from above: a white disc `TOKEN_SHARE` of a field across, lit from the top left,
    with its soft shadow (BGRA: the shadow is dark and half transparent)."""
    dia = TOKEN_SHARE * d.field_mm
    side = dia * 1.6
    s = ppm * SUPERSAMPLE
    n = max(1, round(side * s))
    c, r = n / 2, dia / 2 * s
    shadow = np.zeros((n, n), np.float32)
    cv2.circle(shadow, (round(c + TOKEN_SHADOW_MM[0] * s), round(c + TOKEN_SHADOW_MM[1] * s)), round(r), 0.55, -1, cv2.LINE_AA)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 1.3 * s)
    disc = np.zeros((n, n), np.float32)
    cv2.circle(disc, (round(c), round(c)), round(r), 1.0, -1, cv2.LINE_AA)
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    rr = np.hypot(xs - c, ys - c) / r
    light = 1.0 - 0.12 * np.clip((rr - 0.75) / 0.25, 0, 1)  # the rim's edge turns away from the lamp
    light += 0.05 * np.exp(-(((xs - c + 0.3 * r) ** 2 + (ys - c + 0.3 * r) ** 2) / (2 * (0.3 * r) ** 2)))
    colour = np.array(_bgr(d.token_rgb), np.float32) * light[..., None]
    img = np.zeros((n, n, 4), np.float32)
    img[..., :3] = colour * disc[..., None]  # the shadow's colour is black
    img[..., 3] = np.maximum(disc, shadow * (1 - disc)) * 255
    return _shrink(np.clip(img, 0, 255).astype(np.uint8), side, side, ppm)


def board_picture(d: BoardDraw, ppm: float) -> np.ndarray:
    """The board: every field its colour's printed shade, each field a little off the next
    (`field_shade`), the light lines between fields and, where the board is made of square
    sections, a seam between them (BGRA)."""
    rng = np.random.default_rng([d.seed, 17])
    board, f = d.board, d.field_mm
    w, h = d.board_mm
    img, s = _canvas(w, h, ppm, d.gap_rgb)
    gap = d.field_gap_mm
    section_shade = rng.normal(1.0, d.field_shade * 0.5, (board.rows, board.cols))
    if d.section:  # one print run per section
        tiles = rng.normal(1.0, d.field_shade * 0.5, (board.rows // d.section + 1, board.cols // d.section + 1))
        section_shade = np.fromfunction(lambda r, c: tiles[r.astype(int) // d.section, c.astype(int) // d.section],
                                        (board.rows, board.cols))
    for (col, row) in board.cells:
        shade = section_shade[row, col] * (1 + d.field_shade * float(np.clip(rng.normal(), -2, 2)))
        rgb = np.clip(np.array(d.palette[board.colour((col, row))], np.float32) * shade, 0, 255)
        g0 = [gap / 2, gap / 2]
        g1 = [gap / 2, gap / 2]
        if d.section:  # the seam between two sections is wider
            for k, v, n in ((0, col, board.cols), (1, row, board.rows)):
                if v % d.section == 0 and v:
                    g0[k] += gap
                if (v + 1) % d.section == 0 and v + 1 < n:
                    g1[k] += gap
        x0, y0 = (col * f + g0[0]) * s, (row * f + g0[1]) * s
        x1, y1 = ((col + 1) * f - g1[0]) * s, ((row + 1) * f - g1[1]) * s
        cv2.rectangle(img, (round(x0), round(y0)), (round(x1) - 1, round(y1) - 1), _bgr(rgb) + (255,), -1)
    edge = tuple(int(v * 0.8) for v in _bgr(d.gap_rgb)) + (255,)
    cv2.rectangle(img, (0, 0), (img.shape[1] - 1, img.shape[0] - 1), edge, max(1, round(0.6 * s)))
    _grain(img, rng, 0.012)
    return _shrink(img, w, h, ppm)
