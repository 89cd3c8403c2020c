"""Teaching the referee a table's cards from the panel: one face per colour, one back per player.

A phone photo of one card lying on the table is cut to the card (the largest four-cornered
outline in the picture), turned upright (long side vertical) at `CROP_PPM` px per mm of the
table's `card_mm`, and stored as `<table_folder>/enroll/<kind>/<name>.png`, the crops
`recognise.reader.Enrollment.from_folder` reads. Without a card outline the whole picture is
used (a close-up of the card) and the answer says so. Files are written whole or not at all
(a temp file renamed into place).

The simulated table reads its cards itself: it has no table folder and needs no enrollment.
"""
from __future__ import annotations

import os
import struct
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from fastapi import HTTPException

from ligretto_vision.detect.outlines import card_in_photo
from ligretto_vision.panel.guard import MAX_BODY

KINDS = {"faces": "colour", "backs": "player"}
CROP_PPM = 0.9  # stored crops: about 53 x 82 px for a classic card (the reader resizes them to 1 px/mm)
MAX_PIXELS = 40_000_000  # a picture claiming more is refused before it is decoded
SIM_MESSAGE = "the simulated table reads its cards itself: no enrollment is needed"


# ---- the table in use --------------------------------------------------------------------------------
def table_of(feed) -> object | None:
    """The Scene describing the real table the feed referees; None for the simulated table."""
    table = getattr(feed, "table", None)
    return table if table is not None and getattr(table, "folder", None) is not None else None


def names_of(table, kind: str) -> list[str]:
    return list(table.colours) if kind == "faces" else list(table.player_ids)


def crop_path(table, kind: str, name: str) -> Path:
    return Path(table.folder) / "enroll" / kind / f"{name}.png"


def check_target(table, kind: str, name: str) -> Path:
    """The file for (kind, name), or a 4xx saying what is wrong."""
    if table is None:
        raise HTTPException(409, SIM_MESSAGE)
    if kind not in KINDS:
        raise HTTPException(404, f"no enrollment kind '{kind}': use 'faces' (one per colour) or 'backs' (one per player)")
    names = names_of(table, kind)
    if name not in names:
        raise HTTPException(404, f"this table has no {KINDS[kind]} '{name}': {', '.join(names)}")
    return crop_path(table, kind, name)


def status(table) -> dict:
    """Which colours and players have an enrollment crop, for GET /api/enrollment."""
    if table is None:
        return {"needed": False, "message": SIM_MESSAGE, "table_folder": None, "faces": [], "backs": []}
    out: dict = {"needed": True, "table_folder": str(Path(table.folder).resolve()),
                 "card_mm": list(table.card_mm), "max_upload_bytes": MAX_BODY}
    for kind in KINDS:
        rows = []
        for name in names_of(table, kind):
            path = crop_path(table, kind, name)
            row = {"name": name, "enrolled": path.is_file(), "size": None, "updated_at": None,
                   "url": f"/api/enrollment/{kind}/{name}.png"}
            if row["enrolled"]:
                img = cv2.imread(str(path), cv2.IMREAD_COLOR)
                row["size"] = [int(img.shape[1]), int(img.shape[0])] if img is not None else None
                row["updated_at"] = path.stat().st_mtime
            rows.append(row)
        out[kind] = rows
    missing = [r["name"] for r in out["faces"] if not r["enrolled"]]
    out["complete"] = not missing
    out["message"] = (f"colours still to enrol: {', '.join(missing)} (the referee needs one face per colour)"
                      if missing else "every colour is enrolled; a player's back is optional but tells "
                      "whose card a face-down card is")
    return out


# ---- pictures in ----------------------------------------------------------------------------------------
def picture_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG or JPEG header without decoding it; None if it is neither."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    if data[:3] == b"\xff\xd8\xff":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                return None
            marker = data[i + 1]
            if marker == 0xFF:  # fill byte
                i += 1
                continue
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            seg = struct.unpack(">H", data[i + 2:i + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h, w = struct.unpack(">HH", data[i + 5:i + 9])
                return w, h
            i += 2 + seg
        return None
    return None


def decode(data: bytes) -> np.ndarray:
    """A BGR picture from PNG or JPEG bytes, or a 4xx."""
    if not data:
        raise HTTPException(400, "no picture: send the photo of one card as the request body (PNG or JPEG)")
    size = picture_size(data)
    if size is None:
        raise HTTPException(415, "not a PNG or JPEG picture: send a photo of one card")
    if size[0] * size[1] > MAX_PIXELS:
        raise HTTPException(413, f"picture too large: {size[0]} x {size[1]} px, at most {MAX_PIXELS // 1_000_000} megapixels")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise HTTPException(415, "the picture could not be read (a broken PNG or JPEG file)")
    return img


# ---- finding and cutting the card ---------------------------------------------------------------------
def crop_card(img: np.ndarray, card_mm, ppm: float = CROP_PPM) -> tuple[np.ndarray, bool]:
    """(upright crop of the card, whether its outline was found); the whole picture when it was not."""
    w, h = max(1, round(card_mm[0] * ppm)), max(1, round(card_mm[1] * ppm))
    quad = card_in_photo(img, card_mm)
    if quad is None:
        if min(img.shape[:2]) < 20 or float(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).std()) < 6.0:
            raise HTTPException(422, "no card in the picture: lay one card on a plain table and fill most "
                                     "of the photo with it")
        if img.shape[1] > img.shape[0]:
            img = np.ascontiguousarray(np.rot90(img))
        return cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA), False
    k = 4  # warp at 4x, then shrink: no aliasing from a big photo
    dst = np.float32([[0, 0], [w * k, 0], [w * k, h * k], [0, h * k]])
    M = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    big = cv2.warpPerspective(img, M, (w * k, h * k), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA), True


# ---- storing ---------------------------------------------------------------------------------------------
def save_png(path: Path, img: np.ndarray) -> None:
    """Write `img` as PNG at `path` whole or not at all: a temp file beside it, synced, renamed into place."""
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise HTTPException(500, "could not encode the crop as PNG")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".png.tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(buf.tobytes())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # the rename itself survives a power cut once the folder is synced
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def enrol(table, kind: str, name: str, data: bytes) -> dict:
    """Cut the card out of the picture `data`, store it, and say what was stored."""
    path = check_target(table, kind, name)
    img = decode(data)
    crop, outline = crop_card(img, table.card_mm)
    save_png(path, crop)
    what = "face" if kind == "faces" else "back"
    msg = (f"the {what} of {name} is enrolled" if outline else
           f"no card outline found: the whole picture was used as the {what} of {name} (for a better crop, "
           "photograph the card from above on a plain table, the whole card in the picture)")
    return {"kind": kind, "name": name, "path": str(path), "size": [int(crop.shape[1]), int(crop.shape[0])],
            "outline_found": outline, "message": msg, "saved_at": time.time()}
