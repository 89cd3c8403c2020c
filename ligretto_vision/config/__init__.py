"""The one configuration file (TOML), validated, with defaults for everything.

Unknown keys are refused with the file and key named, so a typo never silently
does nothing. `ligretto-vision config` prints the defaults as a starting file.
"""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from ligretto_vision.config.base import Strict
from ligretto_vision.config.vision import VisionConfig
from ligretto_vision.errors import LigrettoError
from ligretto_vision.rules.options import RuleOptions

DEFAULT_PATH = Path("ligretto-vision.toml")


class TableConfig(Strict):
    # where frames come from: "auto" (Pi camera, then USB camera, else the simulated table),
    # "sim", "picamera", "usb:0", a video file or a scene folder
    source: str = "auto"
    players: int = Field(4, ge=2, le=12)  # for the simulated table
    seed: int = 0
    edition: Literal["classic", "dutch", "starwars"] = "classic"
    # a folder like a scene (scene.json with markers, players, seats, card size, rules; enroll/ with one
    # back per player and one face per colour) describing the real table: needed for a camera or video
    # source; a scene folder used as source is its own table folder
    table_folder: Path | None = None


class PanelConfig(Strict):
    host: str = "0.0.0.0"
    port: int = Field(8080, ge=1, le=65535)


class MatchConfig(Strict):
    goal: Literal["rounds", "target", "minutes", "endless"] = "target"
    value: int = Field(99, ge=1)


class DataConfig(Strict):
    database: Path = Path("ligretto-vision.db")  # match history, settings, calibration
    clips: Path = Path("clips")  # dispute clips for review


class Config(Strict):
    table: TableConfig = TableConfig()
    rules: RuleOptions = RuleOptions()
    panel: PanelConfig = PanelConfig()
    match: MatchConfig = MatchConfig()
    data: DataConfig = DataConfig()
    vision: VisionConfig = VisionConfig()  # every vision threshold, one section per stage


def load_config(path: str | Path | None = None) -> Config:
    """Read the config file; no file at the default place means all defaults."""
    explicit = path is not None
    path = Path(path) if explicit else DEFAULT_PATH
    if not path.exists():
        if explicit:
            raise LigrettoError("no such config file", path=str(path))
        return Config()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise LigrettoError(f"not valid TOML: {exc}", path=str(path)) from None
    try:
        return Config(**raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(x) for x in err["loc"])
        raise LigrettoError(f"[{key}]: {err['msg']}", path=str(path)) from None
