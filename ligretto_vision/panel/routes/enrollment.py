"""Enrollment: one face per colour, one back per player, the ten numbers of one colour, photographed on a
phone (a real table only)."""
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


@router.get("/api/enrollment/numbers/{number}.png", summary="A stored crop of the ten numbers")
def number_picture(number: int, panel: PanelDep):
    path = enrollment.number_crop_path(enrollment.table_of(panel.feed), number)
    if not path.is_file():
        raise HTTPException(404, f"the number {number} is not enrolled yet")
    return FileResponse(path, media_type="image/png", headers={"Cache-Control": "no-cache"})


@router.post("/api/enrollment/numbers", summary="Enrol the ten numbers of one colour from one photo (PIN)",
             description="The request body is one photo (PNG or JPEG, within the request size limit) of the cards "
                         "1 to 10 of one colour laid out apart in a row (or rows, top row first). Each card is cut "
                         "out, turned upright and stored in reading order as enroll/numbers/1.png … 10.png, the ten "
                         "together; the answer lists what the reader read on each (`cards`) and `turn`, the "
                         "quarter turns clockwise from the photo's up to the cards' up. Unless exactly ten cards "
                         "are found nothing is stored (422, naming how many were found).",
             openapi_extra={"requestBody": {"required": True, "content": {
                 "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
                 "image/png": {"schema": {"type": "string", "format": "binary"}}}}})
async def post_numbers(request: Request, panel: PanelDep, who: Who):
    table = enrollment.table_of(panel.feed)
    enrollment.check_numbers(table)
    data = await request.body()

    def work() -> dict:  # OpenCV, the number model and SQLite off the event loop
        vision = panel.cfg.vision
        out = enrollment.enrol_numbers(table, data, panel.feed, vision.detect, vision.recognise)
        panel.store.set_setting("enrollment", {"card": "numbers", "size": out["size"],
                                               "read": [c["read"] for c in out["cards"]]}, who)
        reloaded = panel.feed.use_enrollment()
        out["referee"] = "uses them from the next round" if reloaded else "uses them once every colour has a face"
        return out
    return await anyio.to_thread.run_sync(work)


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
