"""The board game: the board as the referee sees it, each illegal placement with why, the ranks."""
from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse

from ligretto_vision.panel.routes.deps import panel_of
from ligretto_vision.panel.routes.pages import STATIC

router = APIRouter()


@router.get("/board", response_class=HTMLResponse, include_in_schema=False)
def board_page():
    return HTMLResponse((STATIC / "board.html").read_text(encoding="utf-8"))


@router.get("/api/board", summary="The board game's board as the referee sees it (the card game has none)")
def board(request: Request):
    state = panel_of(request).hub.status.get("board")
    if state is None:
        return JSONResponse({"error": "this table plays the card game: there is no board"}, status_code=404)
    return state
