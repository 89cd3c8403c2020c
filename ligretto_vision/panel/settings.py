"""What the table has set up on the panel (kept in the store), over the config file's defaults.

The request bodies of the set-up pages are defined here too, so one model both
validates what a phone sends and says what is stored.
"""
from __future__ import annotations

import dataclasses
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from ligretto_vision.config import Config
from ligretto_vision.panel.store import Store
from ligretto_vision.panel.text import ascii_name, clean_text, same_name_key
from ligretto_vision.rules import MatchGoal, RuleOptions

SEATS = ("south", "west", "north", "east")


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # Infinity/NaN: a 422, never stored


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
        v = clean_text(v, "a name")
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

    @model_validator(mode="after")
    def _one_each(self) -> "PlayersBody":
        names: dict[str, PlayerSetup] = {}
        seats: dict[str | int, PlayerSetup] = {}
        for p in self.players:
            twin = names.setdefault(same_name_key(p.name), p)
            if twin is not p:
                raise ValueError(f"{twin.id} and {p.id} are both called {p.name}: give every player "
                                 f"a name of their own")
            neighbour = seats.setdefault(p.seat, p)
            if neighbour is not p:
                where = f"{p.seat}°" if isinstance(p.seat, int) else p.seat
                raise ValueError(f"{neighbour.id} ({neighbour.name}) and {p.id} ({p.name}) both sit at {where}: "
                                 f"one player to a seat")
        return self


class GoalBody(Body):
    goal: Literal["rounds", "target", "minutes", "endless"]
    value: int = Field(99, ge=1, le=100_000)


Note = Annotated[str, Field(max_length=200)]
MarkerId = Annotated[str, StringConstraints(pattern=r"^\d{1,4}$")]
Mm = Annotated[float, Field(ge=-100_000, le=100_000)]


def _note(v: str) -> str:
    return clean_text(v, "a note")


class CalibrationBody(Body):
    table_mm: tuple[Annotated[float, Field(gt=0, le=100_000)], Annotated[float, Field(gt=0, le=100_000)]] | None = \
        Field(None, description="table area covered by the markers, mm")
    markers: dict[MarkerId, tuple[Mm, Mm]] | None = Field(None, max_length=256,
                                                          description="marker id -> centre in table mm")
    note: Note = ""

    _tidy_note = field_validator("note")(_note)


class PinBody(Body):
    pin: str = Field(pattern=r"^\d{4,8}$", description="the new PIN: 4 to 8 digits")
    current: str | None = Field(None, pattern=r"^\d{1,12}$", description="the PIN in force, when changing it")


class CorrectionBody(Body):
    scores: dict[Annotated[str, StringConstraints(pattern=r"^P\d{1,2}$")], int] = Field(min_length=1, max_length=12)
    who: str = Field(min_length=1, max_length=40)
    note: Note = ""

    _tidy_note = field_validator("note")(_note)

    @field_validator("who")
    @classmethod
    def _who(cls, v: str) -> str:
        v = clean_text(v, "who")
        if not v:
            raise ValueError("say who makes the correction")
        return v

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

    def video_names(self) -> dict[str, str]:
        """The names as the video draws them (its fonts are ASCII: "Łukasz" is drawn "Lukasz")."""
        return {p: ascii_name(n, p) for p, n in self.names().items()}

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
