"""What every route may ask for: the panel, the PIN (for a change) and who makes it."""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request
from fastapi import Path as PathParam

from ligretto_vision.panel.context import Panel
from ligretto_vision.panel.store import MAX_ID
from ligretto_vision.panel.text import clean_text, header_text

MAX_WHO = 40

RowId = Annotated[int, PathParam(ge=1, le=MAX_ID, description="a row id (1 to 2^63-1)")]


def panel_of(request: Request) -> Panel:
    return request.app.state.panel


PanelDep = Annotated[Panel, Depends(panel_of)]


def who_from(header: str | None) -> str:
    """The `X-Who` header as the name that was meant (422 when it cannot be a name)."""
    try:
        who = clean_text(header_text(header), "X-Who (who makes the change)")
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    if len(who) > MAX_WHO:
        raise HTTPException(422, f"X-Who: a name of at most {MAX_WHO} characters")
    return who


def client_of(request: Request) -> str:
    """Who asks, for the PIN's lockout: the phone's address."""
    return request.client.host if request.client else ""


def need_pin(request: Request, x_table_pin: str | None = Header(None, description="the table's PIN"),
             x_who: str | None = Header(None, max_length=400, description="who makes the change "
                                        "(percent-encoded UTF-8 for names beyond Latin-1)")) -> str:
    """Who makes the change, once the table's PIN is right."""
    panel = panel_of(request)
    who = who_from(x_who)  # a bad name is refused before the PIN is tried (no try is used up)
    panel.pins.check(x_table_pin, panel.store.setting("pin"), client_of(request))
    return who or "someone at the table"


Who = Annotated[str, Depends(need_pin)]
