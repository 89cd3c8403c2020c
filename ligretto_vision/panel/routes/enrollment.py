"""Enrollment: one face per colour, one back per player, photographed on a phone (a real table only)."""
from __future__ import annotations

import anyio
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse

from ligretto_vision.panel import enrollment
from ligretto_vision.panel.routes.deps import PanelDep, Who

router = APIRouter()


@router.get("/api/enrollment", summary="Which colours and players of the table in use have an enrollment picture")
def get_enrollment(panel: PanelDep):
    return enrollment.status(enrollment.table_of(panel.feed))


@router.get("/api/enrollment/{kind}/{name}.png", summary="A stored enrollment crop")
def enrollment_picture(kind: str, name: str, panel: PanelDep):
    path = enrollment.check_target(enrollment.table_of(panel.feed), kind, name)
    if not path.is_file():
        raise HTTPException(404, f"{name} has no enrolled {kind[:-1]} yet")
    return FileResponse(path, media_type="image/png", headers={"Cache-Control": "no-cache"})


@router.post("/api/enrollment/{kind}/{name}", summary="Enrol a colour's face or a player's back from a photo (PIN)",
             description="The request body is the photo of one card (PNG or JPEG, within the request size "
                         "limit): it is cut to the card, turned upright and stored in the table folder's enroll/.",
             openapi_extra={"requestBody": {"required": True, "content": {
                 "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
                 "image/png": {"schema": {"type": "string", "format": "binary"}}}}})
async def post_enrollment(kind: str, name: str, request: Request, panel: PanelDep, who: Who):
    table = enrollment.table_of(panel.feed)
    enrollment.check_target(table, kind, name)
    data = await request.body()

    def work() -> dict:  # OpenCV and SQLite off the event loop
        out = enrollment.enrol(table, kind, name, data)
        panel.store.set_setting("enrollment", {"card": f"{kind}/{name}", "size": out["size"],
                                               "outline_found": out["outline_found"]}, who)
        reloaded = panel.feed.use_enrollment()  # a table to enrol is a camera table: its feed reads the crops
        out["referee"] = "uses it from the next round" if reloaded else "uses it once every colour has a face"
        return out
    return await anyio.to_thread.run_sync(work)
