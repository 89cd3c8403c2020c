"""What the table has set up on the panel (kept in the store), over the config file's defaults.

The request bodies of the set-up pages are defined here too, so one model both
validates what a phone sends and says what is stored.
"""
from __future__ import annotations

import dataclasses
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ligretto_vision.config import Config
from ligretto_vision.panel.store import Store
from ligretto_vision.rules import MatchGoal, RuleOptions

SEATS = ("south", "west", "north", "east")


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RulesBody(Body):
    edition: Literal["classic", "dutch", "starwars"] = "classic"
    options: RuleOptions = RuleOptions()


class PlayerSetup(Body):
    id: str = Field(pattern=r"^P\d{1,2}$")
    name: str = Field(min_length=1, max_length=20)
    seat: Literal["south", "west", "north", "east"] | int = Field(description="table edge, or degrees (more than 4 players)")

    @field_validator("name")
    @classmethod
    def _tidy(cls, v: str) -> str:
        v = " ".join(v.split())
        if not v:
            raise ValueError("a name cannot be blank")
        return v

    @field_validator("seat")
    @classmethod
    def _angle(cls, v):
        if isinstance(v, int) and not 0 <= v < 360:
            raise ValueError("a seat angle is 0 to 359 degrees")
        return v


class PlayersBody(Body):
    players: list[PlayerSetup] = Field(min_length=2, max_length=12)


class GoalBody(Body):
    goal: Literal["rounds", "target", "minutes", "endless"]
    value: int = Field(99, ge=1, le=100_000)


class CalibrationBody(Body):
    table_mm: tuple[float, float] | None = Field(None, description="table area covered by the markers, mm")
    markers: dict[str, tuple[float, float]] | None = Field(None, description="marker id -> centre in table mm")
    note: str = Field("", max_length=200)


class PinBody(Body):
    pin: str = Field(pattern=r"^\d{4,8}$", description="the new PIN: 4 to 8 digits")
    current: str | None = Field(None, description="the PIN in force, when changing it")


class CorrectionBody(Body):
    scores: dict[str, int] = Field(min_length=1)
    who: str = Field(min_length=1, max_length=40)
    note: str = Field("", max_length=200)

    @field_validator("scores")
    @classmethod
    def _sane(cls, v: dict[str, int]) -> dict[str, int]:
        bad = [p for p, s in v.items() if not -200 <= s <= 200]
        if bad:
            raise ValueError(f"a round score is between -200 and 200 ({', '.join(bad)})")
        return v


class TableSettings:
    def __init__(self, store: Store, cfg: Config):
        self.store, self.cfg = store, cfg
        self.player_ids = [f"P{i + 1}" for i in range(cfg.table.players)]

    def rules(self) -> RuleOptions:
        stored = self.store.setting("rules")
        return RuleOptions(**stored["options"]) if stored else self.cfg.rules

    def edition(self) -> str:
        stored = self.store.setting("rules")
        return stored["edition"] if stored else self.cfg.table.edition

    def players(self) -> list[dict]:
        stored = {p["id"]: p for p in self.store.setting("players", [])}
        default_seats = SEATS if len(self.player_ids) <= 4 else [round(360 * i / len(self.player_ids))
                                                                   for i in range(len(self.player_ids))]
        order = [0, 2, 1, 3]  # the simulated table seats 2 players face to face, then west, east
        return [stored.get(p, {"id": p, "name": p,
                               "seat": default_seats[order[i]] if len(self.player_ids) <= 4 else default_seats[i]})
                for i, p in enumerate(self.player_ids)]

    def names(self) -> dict[str, str]:
        return {p["id"]: p["name"] for p in self.players()}

    def goal(self) -> MatchGoal:
        stored = self.store.setting("match_goal")
        return MatchGoal(**stored) if stored else MatchGoal(self.cfg.match.goal, self.cfg.match.value)

    def calibration(self) -> dict | None:
        return self.store.setting("calibration")

    def has_pin(self) -> bool:
        return self.store.setting("pin") is not None

    def public(self) -> dict:
        """Everything a set-up page shows (never the PIN's hash)."""
        return {"rules": {"edition": self.edition(), "options": dataclasses.asdict(self.rules())},
                "players": self.players(), "match_goal": dataclasses.asdict(self.goal()),
                "calibration": self.calibration(), "has_pin": self.has_pin()}
