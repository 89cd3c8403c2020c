"""The table's set-up: rules and edition, players and seats, the match goal, the PIN."""
from __future__ import annotations

import dataclasses

from fastapi import APIRouter, Header, HTTPException, Request

from ligretto_vision.panel.pin import PinRefused, hash_pin
from ligretto_vision.panel.routes.deps import PanelDep, Who, client_of, who_from
from ligretto_vision.panel.settings import GoalBody, PinBody, PlayersBody, RulesBody
from ligretto_vision.rules import MatchGoal

router = APIRouter()


@router.get("/api/settings", summary="Rules, players and seats, match goal, whether a PIN is set")
def get_settings(panel: PanelDep):
    return panel.settings.public()


@router.post("/api/pin", summary="Choose the table's PIN (first start), or change it with the current one")
def set_pin(body: PinBody, request: Request, panel: PanelDep, x_who: str | None = Header(None, max_length=400)):
    who = who_from(x_who)
    if panel.settings.has_pin():
        if not body.current:
            raise PinRefused(401, "this table already has a PIN: give the current one to change it")
        panel.pins.check(body.current, panel.store.setting("pin"), client_of(request))
    panel.store.set_setting("pin", hash_pin(body.pin), who or "someone at the table", log_values=False)
    return {"has_pin": True}


@router.put("/api/settings/rules", summary="Rule options and edition (PIN); used from the next round")
def put_rules(body: RulesBody, panel: PanelDep, who: Who):
    settings = panel.settings
    panel.store.set_setting("rules", {"edition": body.edition, "options": dataclasses.asdict(body.options)}, who,
                            before=settings.public()["rules"])
    return settings.public()["rules"]


@router.put("/api/settings/players", summary="Players' names and seats (PIN)")
def put_players(body: PlayersBody, panel: PanelDep, who: Who):
    settings = panel.settings
    ids = [p.id for p in body.players]
    if sorted(ids) != sorted(settings.player_ids):
        raise HTTPException(422, f"name every player of this table once: {', '.join(settings.player_ids)}")
    panel.store.set_setting("players", [p.model_dump() for p in body.players], who, before=settings.players())
    panel.keeper.touch()
    return settings.players()


@router.put("/api/settings/match", summary="How long a match lasts (PIN); counts for the match under way")
def put_goal(body: GoalBody, panel: PanelDep, who: Who):
    goal = MatchGoal(body.goal, body.value)
    panel.store.set_setting("match_goal", dataclasses.asdict(goal), who,
                            before=dataclasses.asdict(panel.settings.goal()))
    panel.keeper.set_goal(goal)
    return dataclasses.asdict(goal)
