"""Disputes ("who was first") and the frames of their replays."""
from __future__ import annotations

import json
import re

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse

from ligretto_vision.live.clips import CLIP_NAME
from ligretto_vision.panel.context import Panel
from ligretto_vision.panel.routes.deps import PanelDep, RowId

CLIP_FILE = re.compile(r"^(\d{8}\.jpg|clip\.json)$")

router = APIRouter()


@router.get("/api/disputes", summary="Disputes, newest first")
def disputes(panel: PanelDep, limit: int = 50):
    return [_dispute_view(panel, d, frames=False) for d in panel.store.disputes(max(1, min(limit, 500)))]


@router.get("/api/disputes/{dispute_id}", summary="One dispute with its replay frames")
def dispute(dispute_id: RowId, panel: PanelDep):
    d = panel.store.dispute(dispute_id)
    if d is None:
        raise HTTPException(404, f"no dispute {dispute_id}")
    return _dispute_view(panel, d, frames=True)


def _dispute_view(panel: Panel, d: dict, frames: bool) -> dict:
    clip = d.get("clip")
    meta = panel.clips / clip / "clip.json" if clip and CLIP_NAME.match(clip) else None
    if meta is None:
        d["replay"] = "none"
    elif not meta.exists():
        d["replay"] = "saving"
    else:
        d["replay"] = "ready"
        if frames:
            m = json.loads(meta.read_text(encoding="utf-8"))
            d["fps"] = m["fps"]
            d["frames"] = [{"frame": f["frame"], "url": f"/clips/{clip}/{f['file']}"} for f in m["frames"]]
    return d


@router.get("/clips/{name}/{file}", include_in_schema=False)
def clip_file(name: str, file: str, panel: PanelDep):
    if not CLIP_NAME.match(name) or not CLIP_FILE.match(file):
        raise HTTPException(400, "not a clip file name")
    path = panel.clips / name / file
    if not path.is_file():
        raise HTTPException(404, f"no clip file {name}/{file}")
    return FileResponse(path)
