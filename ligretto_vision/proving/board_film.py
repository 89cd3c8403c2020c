"""A generated board-game scene (BOARD-SCENES.md): its frames, and the whole scene folder.

`BoardFilm` is the card game's film (`film.TableFilm`: the table's surface, markers, light,
arms and camera with its effects) over a board: the board's fields, the pieces lying still on
it and beside it, the pieces in the players' hands, as `board_script` timed them.
`generate_board` writes the folder: scene.json, video.mp4, enroll/borders/P1.png ... and
enroll/token.png, truth.jsonl, and draw.json (what was drawn, for a report; no referee reads it).
"""
from __future__ import annotations

import json
import time
import zlib
from pathlib import Path

import cv2
import numpy as np

from ligretto_vision.events import write_events
from ligretto_vision.geometry.seats import seat_name
from ligretto_vision.proving.board_draw import CARDS, BoardDraw, draw_board_table
from ligretto_vision.proving.board_pieces import board_picture, card_picture, joker_picture, token_picture
from ligretto_vision.proving.board_script import BoardScript, board_script
from ligretto_vision.proving.film import Arm, TableFilm, VideoOut, arms_of
from ligretto_vision.proving.generate import Generated, enroll_crop
from ligretto_vision.rules.board import BoardOptions
from ligretto_vision.sim.render import paste_card

BOARD_GENERATOR_VERSION = 1  # bump when generated board scenes change
BOARD_SHADOW = 0.45  # the board's cardboard casts a shadow on the table


class BoardFilm(TableFilm):
    """Renders frame after frame of a `BoardScript` (frames in order: the hands' paths are
    forgotten as they pass)."""

    def __init__(self, draw: BoardDraw, script: BoardScript):
        self.script = script
        self.border = dict(zip(draw.player_ids, draw.borders))
        super().__init__(draw)
        bw, bh = draw.board_mm
        self.board_base = self.base.copy()  # the table with the board on it: what pieces lie on
        paste_card(self.board_base, board_picture(draw, self.ppm),
                   self._px((draw.origin_mm[0] + bw / 2, draw.origin_mm[1] + bh / 2)), 0.0, shadow=BOARD_SHADOW)

    def _arms(self, rng: np.random.Generator) -> dict[str, list[Arm]]:
        arms = {}
        for pid in self.d.player_ids:
            arm, = arms_of(rng, [self.script.rests[pid]])
            arm.keys = list(self.script.paths[pid])
            arms[pid] = [arm]
        return arms

    def _image_key(self, look: str, owner: str | None) -> tuple:
        return look, owner

    def card_img(self, look: str, owner: str | None) -> np.ndarray:
        key = self._image_key(look, owner)
        if key not in self.faces:
            self.faces[key] = piece_picture(self.d, look, self.border.get(owner), self.ppm)
        return self.faces[key]

    def _still(self, f: int) -> np.ndarray:
        lying = []  # tokens over cards, each kind in the order it came to rest
        for i, piece in enumerate(self.script.pieces):
            span = piece.span(f)
            if span is not None and not span.held:
                lying.append((piece.is_token, span.f0, i, span))
        lying.sort(key=lambda t: t[:3])
        key = tuple((i, f0) for _, f0, i, _ in lying)
        if key == self._static_key:
            return self._static
        img = self.board_base.copy()
        for _, _, i, span in lying:
            piece = self.script.pieces[i]
            self._paste(img, piece.look, piece.owner, span.pose0)
        img = self._lit_table(img)
        self._static_key, self._static = key, img
        self._still_cam = None
        return img

    def _hands_now(self, f: int) -> list:
        for arms in self.arms.values():
            for arm in arms:
                arm.forget_before(f)
        return [(p.look, p.owner, s.pose(f)) for p in self.script.pieces if (s := p.span(f)) is not None and s.held]


def piece_picture(d: BoardDraw, look: str, border: str | None, ppm: float) -> np.ndarray:
    """The picture of a piece by its script look: "card:<left>+<right>", "joker" or "token"."""
    if look.startswith("card:"):
        left, right = look[len("card:"):].split("+")
        return card_picture((left, right), border, d, ppm, seed=zlib.crc32(f"{look}/{border}".encode()))
    if look == "joker":
        return joker_picture(border, d, ppm)
    if look == "token":
        return token_picture(d, ppm)
    raise ValueError(f"no piece {look!r}")


def board_scene_json(d: BoardDraw, script: BoardScript) -> dict:
    """scene.json of a board scene (BOARD-SCENES.md "The table", SCENES.md for the rest)."""
    options = BoardOptions(cards=d.cards)
    f = d.field_mm
    return {
        "format": "ligretto-scene/1", "game": "board", "video": "video.mp4", "fps": d.fps, "size": list(d.size),
        "edition": "board", "colours": list(d.palette), "palette": {c: list(v) for c, v in d.palette.items()},
        "board": {"origin_mm": list(d.origin_mm), "field_mm": f, "cols": d.board.cols, "rows": d.board.rows},
        "card_mm": [2 * f, f], "tokens": script.tokens, "cards": options.cards, "jokers": options.jokers,
        "table_mm": list(d.table_mm),
        "markers": {"dict": "DICT_4X4_50", "size_mm": d.marker_mm, "centres_mm": {k: list(v) for k, v in d.markers.items()}},
        "players": [{"id": p, "seat": seat_name(a), "border": b} for p, a, b in zip(d.player_ids, d.seats, d.borders)],
        "rules": {"swapped": options.swapped}, "phases": script.phases,
    }


def _enroll(folder: Path, d: BoardDraw, film: BoardFilm) -> None:
    """The set-up step's crops as this camera sees them (at its scale, in its light, on the table's
    cloth): one card of each player, upright, long side across, and a token."""
    ppm = d.cam_ppm
    gain = np.array(d.light.gain(0.0)) * film.field_mean
    rng = np.random.default_rng([d.seed, 5])
    borders = folder / "enroll" / "borders"
    borders.mkdir(parents=True, exist_ok=True)
    colours = list(d.card_palette)
    for pid, style in film.border.items():
        pair = tuple(str(c) for c in rng.choice(colours, 2, replace=False))
        cv2.imwrite(str(borders / f"{pid}.png"), enroll_crop(d, card_picture(pair, style, d, ppm), gain, rng))
    cv2.imwrite(str(folder / "enroll" / "token.png"), enroll_crop(d, token_picture(d, ppm), gain, rng))


def board_filming(seed: int, kind: str = "plain", cards: int = CARDS) -> BoardFilm:
    """The film of the board scene of `seed` and `kind`: its table drawn, its round played and timed
    (the draw's light and knock stretched to the round's length), ready to render frame by frame."""
    d = draw_board_table(seed, kind, cards)
    script = board_script(d)
    d.stretch_to(script.frames / d.fps)
    return BoardFilm(d, script)


def generate_board(seed: int, out: str | Path, kind: str = "plain", cards: int = CARDS) -> Generated:
    """Write the board scene of `seed` and `kind` (board_draw.BOARD_KINDS), each player laying up to
    `cards` cards, into folder `out` (made if missing)."""
    t0 = time.monotonic()
    film = board_filming(seed, kind, cards)
    d, script = film.d, film.script
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    video = VideoOut(folder / "video.mp4", d.size, d.fps, d.codec, d.bitrate_mbit)
    try:
        for f in range(script.frames):
            video.write(film.frame(f))
    finally:
        video.close()
    _enroll(folder, d, film)
    (folder / "scene.json").write_text(json.dumps(board_scene_json(d, script), indent=1), encoding="utf-8")
    with (folder / "truth.jsonl").open("w", encoding="utf-8") as fh:
        write_events(script.truth, fh)
    (folder / "draw.json").write_text(json.dumps({"seed": seed, "kind": kind, "cards": cards, "generator": BOARD_GENERATOR_VERSION,
                                                  "kinds": d.kinds(), "frames": script.frames}, indent=1), encoding="utf-8")
    return Generated(folder, script.frames, time.monotonic() - t0)
