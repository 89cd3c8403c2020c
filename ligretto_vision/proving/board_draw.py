"""Every choice of one generated board-game table (BOARD-SCENES.md), drawn from a seed and a kind.

The board game's counterpart of `draw.py`, and drawn with its pieces: the table's surface
(`draw_surface`), the corner markers (`corner_markers`), the light and the camera with its effects
(`draw_light`, `draw_light_events`, `draw_camera`). What is the board game's own: the board (its
size, field size, the random layout of the four colours, their printed shades), the players'
borders, the cards' print (margin, line) and the bots' pace and mistakes.

Kinds (`BOARD_KINDS`): `plain` (two players, the usual board and light, a steady camera),
`other-board` (another board size and field size, other shades, two or three players),
`four-players`, each camera or light effect of the card game's generator alone
(`draw.CAMERA_EFFECTS`: vibration, knock, h264-4mbit, rolling-shutter, lamp-switch,
warm-dim-flicker, glare), and `all` (three of them at once).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from ligretto_vision.errors import LigrettoError
from ligretto_vision.geometry.seats import default_seats
from ligretto_vision.proving.draw import (CAMERA_EFFECTS, MARKER_MM, SIZES, FilmedTable, LightPlan, corner_markers,
                                          draw_camera, draw_light, draw_light_events, draw_surface, draw_vibration_hz)
from ligretto_vision.rules.board import Board
from ligretto_vision.sim.board_table import COLOURS, random_board
from ligretto_vision.sim.render import CARD_BGR

BOARD_KINDS = ("plain", "other-board", "four-players", "all") + CAMERA_EFFECTS
BORDERS = ("solid", "double", "dashed", "dotted")  # BOARD-SCENES.md: the border printed on a player's cards
CARDS = 8  # cards per player: a round of 6-10 cards each keeps a scene 20-60 s long
TABLE_ASPECT = (1.4, 1.6)  # a table's width, of its depth
PER_CARD_S = 1.0  # about how long a board scene lasts per card laid (the light's and the knock's timing)


@dataclass
class BoardDraw(FilmedTable):
    seed: int
    kind: str
    profile: str  # "clean", "one-effect" or "all", as the card game's draw says it
    effects: tuple
    seats: list  # angles (geometry.seats), named edges
    borders: list  # per player, one of BORDERS
    cards: int  # per player
    board: Board
    field_mm: float
    origin_mm: tuple  # the board's top-left corner, table mm
    palette: dict  # colour -> printed sRGB of the board's fields (scene.json `palette`)
    card_palette: dict  # colour -> printed sRGB of the cards' halves (another print run: a little off)
    field_shade: float  # how much one field's print differs from the next (share of its brightness)
    field_gap_mm: float  # the light line between fields
    section: int | None  # the board's sections are square tiles of this many fields (None: one sheet)
    gap_rgb: tuple
    card_margin_mm: float  # the light outer margin of a card
    margin_rgb: tuple
    line_inset_mm: float  # the border line, this far in from the card's edge
    line_mm: float
    line_rgb: tuple
    token_rgb: tuple
    surface: str
    surface_rgb: tuple
    table_mm: tuple
    marker_mm: float
    markers: dict
    props: list
    light: LightPlan
    size: tuple
    fps: float
    camera_h: np.ndarray
    lens_k1: float
    vibration_px: float
    vibration_hz: tuple
    knock: object
    rolling_shutter_s: float
    codec: str
    bitrate_mbit: float
    noise: float
    speed: float  # players' pace: 1 usual
    mistakes: float  # the bots' share of cards laid wrongly on purpose
    take_back: float  # of which they notice and take back
    length_s: float  # the scene's expected length (the light's and the knock's timing; stretched to the real one)

    @property
    def n_players(self) -> int:
        return len(self.seats)

    @property
    def player_ids(self) -> list[str]:
        return [f"P{i + 1}" for i in range(self.n_players)]

    @property
    def board_mm(self) -> tuple[float, float]:
        return self.board.cols * self.field_mm, self.board.rows * self.field_mm

    def cell_centre(self, cell) -> tuple[float, float]:
        """A field's centre in table mm."""
        return (self.origin_mm[0] + (cell[0] + 0.5) * self.field_mm, self.origin_mm[1] + (cell[1] + 0.5) * self.field_mm)

    def kinds(self) -> dict[str, str]:
        """What was drawn, by the axes a report groups by."""
        return {"kind": self.kind, "players": str(self.n_players), "board": f"{self.board.cols}x{self.board.rows}",
                "field_mm": f"{self.field_mm:g}", "surface": self.surface, "effects": "+".join(self.effects) or "none",
                "video": f"{self.size[1]}p{int(self.fps)} {self.codec}"}


def draw_board_table(seed: int, kind: str = "plain", cards: int = CARDS) -> BoardDraw:
    """Every choice of the board table of `seed` and `kind` (the same pair gives the same table)."""
    if kind not in BOARD_KINDS:
        raise LigrettoError(f"no board scene kind {kind!r} (kinds: {', '.join(BOARD_KINDS)})")
    if not 1 <= cards <= 15:
        raise LigrettoError(f"a board-game player plays with 1 to 15 cards, not {cards}")
    rng = np.random.default_rng([seed, BOARD_KINDS.index(kind)])
    effects: tuple = (kind,) if kind in CAMERA_EFFECTS else ()
    if kind == "all":
        effects = tuple(str(e) for e in rng.choice(CAMERA_EFFECTS, size=3, replace=False))
    profile = "all" if kind == "all" else "one-effect" if effects else "clean"
    n = {"plain": 2, "four-players": 4, "other-board": int(rng.integers(2, 4))}.get(kind, int(rng.integers(2, 5)))
    seats = default_seats(n)
    borders = [str(b) for b in rng.permutation(BORDERS)[:n]]
    # the board: the sample boards' 12 x 8 / 12 x 12 of 40 mm fields, or any of 8-12 fields of 32-45 mm
    if kind == "plain":
        cols, rows, field_mm = int(rng.integers(10, 13)), int(rng.integers(8, 11)), float(rng.uniform(38, 42))
    elif kind == "four-players":
        cols, rows, field_mm = int(rng.integers(10, 13)), int(rng.integers(10, 13)), float(rng.uniform(36, 42))
    else:
        cols, rows, field_mm = int(rng.integers(8, 13)), int(rng.integers(8, 13)), float(rng.uniform(32, 45))
    field_mm = round(field_mm, 1)
    board = random_board(random.Random(int(rng.integers(2**31))), cols, rows)
    other = kind == "other-board"
    palette = {c: _shade(CARD_BGR[c][::-1], rng, strong=other) for c in COLOURS}
    card_palette = {c: tuple(int(np.clip(v * rng.uniform(0.95, 1.05), 0, 255)) for v in rgb) for c, rgb in palette.items()}
    field_shade = float(rng.uniform(0.04, 0.1) if other else rng.uniform(0.01, 0.04))
    section = int(rng.choice([3, 4, 6])) if rng.random() < 0.6 else None
    light_gap = float(rng.uniform(215, 250))
    gap_rgb = tuple(int(light_gap * k) for k in rng.uniform(0.93, 1.0, 3))
    # the table: the board in the middle, room around it for the players' jokers and the markers; as
    # wide as a table is (the sample scenes' are 1.5 times as wide as deep), so that the camera, which
    # fits the table's depth in its wide picture, sees table all across
    margin = (float(rng.uniform(130, 200)), float(rng.uniform(110, 170)))
    bw, bh = cols * field_mm, rows * field_mm
    depth = bh + 2 * margin[1]
    table_mm = (round(max(bw + 2 * margin[0], depth * rng.uniform(*TABLE_ASPECT))), round(depth))
    origin = (round((table_mm[0] - bw) / 2 + rng.uniform(-8, 8), 1), round((table_mm[1] - bh) / 2 + rng.uniform(-8, 8), 1))
    surface, surface_rgb = draw_surface(rng, list(palette.values()))
    light = draw_light(rng, profile, effects)
    length_s = 6.0 + PER_CARD_S * cards * n
    draw_light_events(rng, light, effects, table_mm, length_s)
    size = SIZES[int(rng.integers(2))]  # 960 x 540 or 1280 x 720
    fps = 30.0
    camera = draw_camera(rng, profile, effects, table_mm, size, fps, length_s)
    return BoardDraw(
        seed=seed, kind=kind, profile=profile, effects=effects, seats=seats, borders=borders, cards=cards, board=board,
        field_mm=field_mm, origin_mm=origin, palette=palette, card_palette=card_palette, field_shade=field_shade,
        field_gap_mm=float(rng.uniform(0.4, 1.4)), section=section, gap_rgb=gap_rgb,
        card_margin_mm=float(rng.uniform(1.2, 2.6)), margin_rgb=tuple(int(v) for v in rng.uniform(228, 252, 3)),
        line_inset_mm=float(rng.uniform(2.6, 4.2)), line_mm=float(rng.uniform(0.7, 1.2)),
        line_rgb=tuple(int(v) for v in rng.uniform(15, 60, 3)), token_rgb=tuple(int(v) for v in rng.uniform(232, 250, 3)),
        surface=surface, surface_rgb=surface_rgb, table_mm=table_mm, marker_mm=MARKER_MM, markers=corner_markers(table_mm),
        props=[], light=light, size=size, fps=fps, **camera, vibration_hz=draw_vibration_hz(rng),
        speed=float(rng.uniform(0.8, 1.25)), mistakes=float(rng.uniform(0.06, 0.14)), take_back=float(rng.uniform(0.4, 0.8)),
        length_s=length_s)


def _shade(rgb, rng: np.random.Generator, strong: bool) -> tuple[int, int, int]:
    """A print run's shade of a colour: a little off the nominal one, or (`strong`) lighter, darker
    or paler as another edition prints it."""
    c = np.array(rgb, np.float32) * rng.uniform(0.92, 1.08, 3)
    if strong:
        c = c * rng.uniform(0.78, 1.15)
        c = c + (255 - c) * rng.uniform(0.0, 0.25)  # paler
    return tuple(int(v) for v in np.clip(c, 0, 255))
