"""A scene folder (SCENES.md): scene.json, the video, enrollment images.

scene.json is validated here once; everything downstream gets a typed `Scene`.
Unknown keys in scene.json are kept and ignored (the format may grow); missing or
malformed ones are named with the file.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ligretto_vision.errors import LigrettoError
from ligretto_vision.geometry.seats import seat_angle
from ligretto_vision.rules.options import RuleOptions


class Markers(BaseModel):
    dict_name: str = Field("DICT_4X4_50", alias="dict")
    size_mm: float = Field(gt=0)
    centres_mm: dict[str, tuple[float, float]]


class PlayerSeat(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    seat: str | float

    @property
    def angle(self) -> float:
        """Seat as an angle around the table centre (geometry/seats.py)."""
        return seat_angle(self.seat)


class Phase(BaseModel):
    name: str
    from_: int = Field(alias="from")
    to: int


class Scene(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    format: str
    video: str
    fps: float = Field(gt=0)
    size: tuple[int, int]
    edition: str = "classic"
    colours: list[str] = Field(min_length=4, max_length=4)
    palette: dict[str, tuple[int, int, int]] = {}
    card_mm: tuple[float, float]
    table_mm: tuple[float, float]
    markers: Markers
    players: list[PlayerSeat] = Field(min_length=2, max_length=12)
    rules: dict[str, Any] = {}
    phases: list[Phase] = []
    folder: Path = Path(".")

    @field_validator("format")
    @classmethod
    def _format(cls, v: str) -> str:
        if not v.startswith("ligretto-scene/"):
            raise ValueError(f"format {v!r} is not a ligretto scene")
        return v

    @field_validator("players")
    @classmethod
    def _seats(cls, v: list[PlayerSeat]) -> list[PlayerSeat]:
        for p in v:
            p.angle  # raises on a seat name we do not know
        if len({p.id for p in v}) != len(v):
            raise ValueError("player ids must differ")
        return v

    @property
    def player_ids(self) -> list[str]:
        return [p.id for p in self.players]

    @property
    def video_path(self) -> Path:
        return self.folder / self.video

    @property
    def is_board_game(self) -> bool:
        return getattr(self, "game", "cards") == "board"

    def rule_options(self) -> RuleOptions:
        """scene.json `rules` as validated rule options."""
        try:
            return RuleOptions(**self.rules)
        except ValidationError as exc:
            raise LigrettoError(f"rules: {_first_error(exc)}", path=str(self.folder / "scene.json")) from None


def load_scene(folder: str | Path, *, camera: bool = False, fps: float | None = None,
               size: tuple[int, int] | None = None) -> Scene:
    """A scene folder, or with `camera` a table folder for a live camera.

    A table folder (scene.json with markers, players and seats, card size, colours, rules; enroll/ with
    a face per colour and a back per player, or the panel's Set-up enrols them) needs no video: `video`,
    `fps`, `size` (and `format`) may be left out of its scene.json; the camera's frame rate and size
    are used where given.
    """
    folder = Path(folder).expanduser() if camera else Path(folder)
    path = folder / "scene.json"
    if not folder.is_dir():
        raise LigrettoError("[table].table_folder: no such folder" if camera else "no such scene folder",
                            path=str(folder))
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LigrettoError("scene folder has no scene.json", path=str(folder)) from None
    except json.JSONDecodeError as exc:
        raise LigrettoError(f"not valid JSON ({exc.msg} at column {exc.colno})", path=str(path), line=exc.lineno) from None
    if not isinstance(raw, dict):
        raise LigrettoError("scene.json must hold one JSON object", path=str(path))
    if camera:
        raw = {"format": "ligretto-scene/1", "video": "", **raw}
        raw.setdefault("fps", fps or 30.0)
        raw.setdefault("size", list(size or (1280, 720)))
    try:
        scene = Scene(**raw, folder=folder)
    except (ValidationError, TypeError) as exc:
        msg = _first_error(exc) if isinstance(exc, ValidationError) else str(exc)
        raise LigrettoError(msg, path=str(path)) from None
    if not scene.is_board_game:
        scene.rule_options()  # validate the rules now, not mid-replay
    return _for_camera(scene, fps, size) if camera else scene


def _for_camera(scene: Scene, fps: float | None, size: tuple[int, int] | None) -> Scene:
    update = {}
    if fps and fps > 0:
        update["fps"] = float(fps)
    if size:
        update["size"] = tuple(size)
    return scene.model_copy(update=update) if update else scene


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(x) for x in err["loc"])
    return f"{where}: {err['msg']}" if where else err["msg"]
