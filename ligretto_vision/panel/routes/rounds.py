"""Corrections of a round's scores by hand, and the change log (who changed what and when)."""
from __future__ import annotations

from fastapi import APIRouter, HTTPException

from ligretto_vision.panel.changelog import describe
from ligretto_vision.panel.routes.deps import PanelDep, RowId, Who
from ligretto_vision.panel.settings import CorrectionBody

router = APIRouter()


@router.put("/api/rounds/{round_id}", summary="Correct a round's scores by hand (PIN); the change is logged")
def correct(round_id: RowId, body: CorrectionBody, panel: PanelDep, _: Who):
    try:
        return panel.keeper.correct_round(round_id, body.scores, body.who.strip(), body.note)
    except KeyError:
        raise HTTPException(404, f"no round {round_id}") from None
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None


@router.get("/api/changes", summary="Who changed what and when")
def changes(panel: PanelDep, limit: int = 100):
    names = panel.settings.names()
    return [{**c, "text": describe(c, names)} for c in panel.store.changes(max(1, min(limit, 1000)))]
