"""The table as it happens: the annotated video, its latest picture, the pictures of plays to check, the
event stream, the state and the feed's status."""
from __future__ import annotations

import asyncio
import json

import anyio
import cv2
import numpy as np
from fastapi import APIRouter, Header, HTTPException, Request
from fastapi.responses import Response, StreamingResponse

from ligretto_vision.panel.routes.deps import PanelDep, RowId

MAX_VIDEO_FPS = 15.0

router = APIRouter()


@router.get("/video.mjpg", summary="Live annotated video (MJPEG)")
async def video(panel: PanelDep):
    async def frames():
        last, min_gap = 0, 1.0 / MAX_VIDEO_FPS
        # Each picture is followed at once by the next part's boundary and headers: Chrome shows a part
        # only when the next one has begun, so this way the newest picture shows without waiting for
        # the one after it (and a single picture, or an ended feed's last one, shows at all).
        part = b"--frame\r\nContent-Type: image/jpeg\r\n\r\n"
        yield part
        while not panel.stop.is_set():
            fid, jpeg = await anyio.to_thread.run_sync(panel.hub.wait_frame, last, 1.0)
            if fid == last or jpeg is None:
                continue
            last = fid
            yield jpeg + b"\r\n" + part
            await asyncio.sleep(min_gap)
    return StreamingResponse(frames(), media_type="multipart/x-mixed-replace; boundary=frame",
                             headers={"Cache-Control": "no-store"})


@router.get("/api/frame.jpg", summary="The latest annotated frame as one picture")
def frame(panel: PanelDep):
    _, jpeg = panel.hub.wait_frame(-1, 0)
    if jpeg is None:
        raise HTTPException(503, "no picture yet: the feed has not sent a frame")
    return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.get("/api/checks/{no}.jpg", summary="The picture of a play to check: the table where its card lies")
def check_picture(no: RowId, panel: PanelDep):
    kept = panel.keeper.pictures.get(no)
    if kept is None:
        raise HTTPException(404, f"no picture {no}: only the last few plays to check keep theirs")
    return Response(zoomed(*kept), media_type="image/jpeg", headers={"Cache-Control": "private, max-age=86400"})


def zoomed(jpeg: bytes, view: dict | None) -> bytes:
    """The part `view` of a JPEG (x, y, w, h as shares of the picture), or the whole one when there is
    no view or the picture cannot be read."""
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR) if view else None
    if img is None:
        return jpeg
    h, w = img.shape[:2]
    x0, y0 = int(view["x"] * w), int(view["y"] * h)
    part = img[y0:y0 + max(1, int(view["h"] * h)), x0:x0 + max(1, int(view["w"] * w))]
    ok, out = cv2.imencode(".jpg", part, [cv2.IMWRITE_JPEG_QUALITY, 85]) if part.size else (False, None)
    return out.tobytes() if ok else jpeg


@router.get("/api/events", summary="Server-sent events: every referee event as it happens, and the panel state")
async def events(request: Request, panel: PanelDep, since: int | None = None,
                 last_event_id: str | None = Header(None)):
    keeper, hub = panel.keeper, panel.hub
    lei = (last_event_id or "").strip()
    start = since if since is not None else int(lei) if lei.isdecimal() and len(lei) <= 18 else None

    async def stream():
        pos = keeper.processed if start is None else max(0, min(start, keeper.processed))
        version, quiet = -1, 0.0
        yield "retry: 1000\n\n"
        while not panel.stop.is_set() and not await request.is_disconnected():
            upto = keeper.processed
            if upto > pos:
                for i, ev in enumerate(hub.events_since(pos)[:upto - pos]):
                    data = {k: v for k, v in ev.to_json().items() if not k.startswith("_")}
                    yield f"id: {pos + i + 1}\nevent: hub\ndata: {json.dumps(data, default=str)}\n\n"
                pos = upto
            if keeper.version != version:
                snap = keeper.snapshot()
                version = snap["version"]
                yield f"event: state\ndata: {json.dumps(snap, default=str)}\n\n"
                quiet = 0.0
            quiet += 0.1
            if quiet > 15:  # an event, not a comment: the page sees it and knows the connection lives
                yield "event: ping\ndata: {}\n\n"
                quiet = 0.0
            await asyncio.sleep(0.1)
    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@router.get("/api/state", summary="Round, live tallies, last illegal play, last play to check and the match scoreboard")
def state(panel: PanelDep):
    return panel.keeper.snapshot()


@router.get("/api/status", summary="The feed's state: source, calibration, frame rate")
def status(panel: PanelDep):
    return dict(panel.hub.status)
