"""What the table has set up on the panel (kept in the store), over the config file's defaults.

The request bodies of the set-up pages are defined here too, so one model both
validates what a phone sends and says what is stored.
"""
from __future__ import annotations

import dataclasses
from typing import Annotated, Callable, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from ligretto_vision.config import Config
from ligretto_vision.geometry.seats import default_seats, seat_name
from ligretto_vision.scene import Scene
from ligretto_vision.panel.store import Store
from ligretto_vision.panel.text import ascii_name, clean_text, same_name_key
from ligretto_vision.rules import MatchGoal, RuleOptions


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # Infinity/NaN: a 422, never stored


def filled(what: str, blank: str) -> Callable[[str], str]:
    """A validator: the text tidied (clean_text), refused with `blank` when nothing is left."""
    def check(v: str) -> str:
        v = clean_text(v, what)
        if not v:
            raise ValueError(blank)
        return v
    return check


Note = Annotated[str, Field(max_length=200), AfterValidator(lambda v: clean_text(v, "a note"))]


class RulesBody(Body):
    edition: Literal["classic", "dutch", "starwars"] = "classic"
    options: RuleOptions = RuleOptions()


class PlayerSetup(Body):
    id: str = Field(pattern=r"^P\d{1,2}$")
    name: Annotated[str, Field(min_length=1, max_length=20), AfterValidator(filled("a name", "a name cannot be blank"))]
    seat: Literal["south", "west", "north", "east"] | int = Field(description="table edge, or degrees (more than 4 players)")

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


class PinBody(Body):
    pin: str = Field(pattern=r"^\d{4,8}$", description="the new PIN: 4 to 8 digits")
    current: str | None = Field(None, pattern=r"^\d{1,12}$", description="the PIN in force, when changing it")


class CorrectionBody(Body):
    scores: dict[Annotated[str, StringConstraints(pattern=r"^P\d{1,2}$")], int] = Field(min_length=1, max_length=12)
    who: Annotated[str, Field(min_length=1, max_length=40), AfterValidator(filled("who", "say who makes the correction"))]
    note: Note = ""

    @field_validator("scores")
    @classmethod
    def _sane(cls, v: dict[str, int]) -> dict[str, int]:
        bad = [p for p, s in v.items() if not -200 <= s <= 200]
        if bad:
            raise ValueError(f"a round score is between -200 and 200 ({', '.join(bad)})")
        return v


class TableSettings:
    """The set-up in force: what the panel stored, else the real table's own (its folder's scene.json,
    when a camera referees one), else the config file's."""

    def __init__(self, store: Store, cfg: Config, table: Scene | None = None):
        self.store, self.cfg, self.table = store, cfg, table
        self.player_ids = [f"P{i + 1}" for i in range(cfg.table.players)]

    def rules(self) -> RuleOptions:
        stored = self.store.setting("rules")
        if stored:
            return RuleOptions(**stored["options"])
        return self.table.rule_options() if self.table is not None else self.cfg.rules

    def edition(self) -> str:
        stored = self.store.setting("rules")
        if stored:
            return stored["edition"]
        return self.table.edition if self.table is not None else self.cfg.table.edition

    def players(self) -> list[dict]:
        stored = {p["id"]: p for p in self.store.setting("players", [])}
        if self.table is not None:  # the real table's seats, as its folder describes them
            return [stored.get(p.id, {"id": p.id, "name": p.id, "seat": p.seat}) for p in self.table.players]
        few = len(self.player_ids) <= 4  # at the edges, by name; more players at whole degrees
        seats = [seat_name(a) if few else round(a) for a in default_seats(len(self.player_ids))]
        return [stored.get(p, {"id": p, "name": p, "seat": seat}) for p, seat in zip(self.player_ids, seats)]

    def seats(self) -> dict[str, str | int]:
        return {p["id"]: p["seat"] for p in self.players()}

    def names(self) -> dict[str, str]:
        return {p["id"]: p["name"] for p in self.players()}

    def video_names(self) -> dict[str, str]:
        """The names as the video draws them (its fonts are ASCII: "Łukasz" is drawn "Lukasz")."""
        return {p: ascii_name(n, p) for p, n in self.names().items()}

    def goal(self) -> MatchGoal:
        stored = self.store.setting("match_goal")
        return MatchGoal(**stored) if stored else MatchGoal(self.cfg.match.goal, self.cfg.match.value)

    def has_pin(self) -> bool:
        return self.store.setting("pin") is not None

    def public(self) -> dict:
        """Everything a set-up page shows (never the PIN's hash)."""
        return {"rules": {"edition": self.edition(), "options": dataclasses.asdict(self.rules())},
                "players": self.players(), "match_goal": dataclasses.asdict(self.goal()),
                "has_pin": self.has_pin()}

