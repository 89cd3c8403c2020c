"""Teaching the referee a table's cards from the panel: one face per colour, one back per player,
and the ten numbers of one colour.

A phone photo of one card lying on the table is cut to the card (the largest four-cornered
outline in the picture), turned upright (long side vertical) at `CROP_PPM` px per mm of the
table's `card_mm`, and stored as `<table_folder>/enroll/<kind>/<name>.png`, the crops
`recognise.reader.Enrollment.from_folder` reads. Without a card outline the whole picture is
used (a close-up of the card) and the answer says so. Files are written whole or not at all
(a temp file renamed into place).

The ten numbers (`enrol_numbers`): one photo of 1 to 10 of one colour laid out apart, in a row
(or rows, top row first), is cut into the ten cards (`detect.outlines.cards_in_photo`), each
upright, stored as `enroll/numbers/1.png … 10.png` (the crops the reader learns the deck's print
from; SCENES.md) in reading order, the ten replaced together or not at all. Which way is up: the
cards' long side is vertical, and of the two ways that leaves the one in which the reader reads
more cards as the number of their place (then: more surely); on a tie the photo's own up (a
photo taken sideways: its right edge). The answer says what the reader read on each. A table
without them works on the general number model.

The simulated table reads its cards itself: it has no table folder and needs no enrollment.
"""
from __future__ import annotations

import functools
import os
import shutil
import struct
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from fastapi import HTTPException

from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.detect.outlines import card_in_photo, cards_in_photo
from ligretto_vision.errors import LigrettoError
from ligretto_vision.panel.guard import MAX_BODY
from ligretto_vision.recognise.reader import CardReader, Enrollment, NumberModel, Reading, face_colour, upright

KINDS = {"faces": "colour", "backs": "player"}
CROP_PPM = 0.9  # stored crops: about 53 x 82 px for a classic card (the reader resizes them to 1 px/mm)
MAX_PIXELS = 40_000_000  # a picture claiming more is refused before it is decoded
SIM_MESSAGE = "the simulated table reads its cards itself: no enrollment is needed"
NUMBERS = tuple(range(1, 11))  # the numbers step: 1 to 10 of one colour
LAY_OUT = ("lay out 1 to 10 of one colour in order, in a row (or two rows of five), a finger apart, none touching "
           "another or the photo's edge, and take the photo from above")


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
        return {"needed": False, "message": SIM_MESSAGE, "table_folder": None, "faces": [], "backs": [],
                "numbers": None}
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
    out["numbers"] = numbers_status(table)
    missing = [r["name"] for r in out["faces"] if not r["enrolled"]]
    out["complete"] = not missing
    out["message"] = (f"colours still to enrol: {', '.join(missing)} (the referee needs one face per colour)"
                      if missing else "every colour is enrolled; a player's back is optional but tells "
                      "whose card a face-down card is")
    return out


def numbers_path(table) -> Path:
    return Path(table.folder) / "enroll" / "numbers"


def numbers_status(table) -> dict:
    """Whether the ten numbers are enrolled (optional: without them the general number model reads)."""
    folder = numbers_path(table)
    cards = [{"number": n, "enrolled": (folder / f"{n}.png").is_file(), "url": f"/api/enrollment/numbers/{n}.png"}
             for n in NUMBERS]
    enrolled = all(c["enrolled"] for c in cards)
    return {"enrolled": enrolled, "cards": cards,
            "updated_at": (folder / "10.png").stat().st_mtime if enrolled else None,
            "message": "the ten numbers are enrolled: the referee reads this deck's print with them" if enrolled
            else "the ten numbers are not enrolled (optional): the referee reads numbers with its general model; "
                 "to teach it this deck's print, " + LAY_OUT}


def number_crop_path(table, number: int) -> Path:
    """The stored crop of `number`, or a 4xx saying what is wrong."""
    if table is None:
        raise HTTPException(409, SIM_MESSAGE)
    if number not in NUMBERS:
        raise HTTPException(404, f"no number {number}: the numbers enrolled are 1 to 10")
    return numbers_path(table) / f"{number}.png"


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


def decode(data: bytes, what: str = "one card") -> np.ndarray:
    """A BGR picture from PNG or JPEG bytes, or a 4xx (`what`: what the photo should show)."""
    if not data:
        raise HTTPException(400, f"no picture: send the photo of {what} as the request body (PNG or JPEG)")
    size = picture_size(data)
    if size is None:
        raise HTTPException(415, f"not a PNG or JPEG picture: send a photo of {what}")
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
    return cut(img, quad, card_mm, ppm), True


def cut(img: np.ndarray, quad: np.ndarray, card_mm, ppm: float = CROP_PPM) -> np.ndarray:
    """The card whose corners (TL, TR, BR, BL of the upright card) are `quad` in `img`, upright at `ppm`."""
    w, h = max(1, round(card_mm[0] * ppm)), max(1, round(card_mm[1] * ppm))
    k = 4  # warp at 4x, then shrink: no aliasing from a big photo
    dst = np.float32([[0, 0], [w * k, 0], [w * k, h * k], [0, h * k]])
    M = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    big = cv2.warpPerspective(img, M, (w * k, h * k), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


# ---- the ten numbers: which way up, in which order ------------------------------------------------------
def in_frame(points: np.ndarray, turn: int) -> np.ndarray:
    """Photo px as seen by someone whose up is the photo's up turned `turn` quarters clockwise."""
    p = np.asarray(points, np.float64)
    for _ in range(turn % 4):
        p = np.stack([p[..., 1], -p[..., 0]], -1)
    return p


def upright_corners(quad: np.ndarray, turn: int) -> np.ndarray:
    """`quad` (clockwise corners) started at the corner that is top-left of the card standing upright
    (long side vertical) in the frame of `turn`."""
    f = in_frame(quad, turn)
    rolls = []
    for r in range(4):
        q = np.roll(f, -r, axis=0)
        across = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])
        along = np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[0] - q[3])
        rolls.append((across <= along, float(q[1][0] - q[0][0]), r))  # short side on top, running rightwards
    return np.roll(quad, -max(rolls)[2], axis=0)


def reading_order(quads: list[np.ndarray], turn: int) -> list[np.ndarray]:
    """The cards upright in the frame of `turn`, left to right, top row first: a new row starts
    where the next card (by height) lies more than half a card lower."""
    cards = [upright_corners(q, turn) for q in quads]
    centres = [in_frame(q.mean(0), turn) for q in cards]
    height = float(np.median([np.linalg.norm(q[3] - q[0]) for q in cards]))
    by_height = sorted(range(len(cards)), key=lambda i: centres[i][1])
    rows: list[list[int]] = []
    for i in by_height:
        if rows and centres[i][1] - centres[rows[-1][-1]][1] <= height / 2:
            rows[-1].append(i)
        else:
            rows.append([i])
    return [cards[i] for row in rows for i in sorted(row, key=lambda i: centres[i][0])]


def turns_to_try(quads: list[np.ndarray]) -> tuple[int, int]:
    """The two ways up in which the cards stand upright: the photo's up and down when they stand in it,
    else (taken sideways) its right and left edge; the first is kept on a tie."""
    standing = [abs(q[3][1] - q[0][1]) >= abs(q[3][0] - q[0][0]) for q in quads]  # _card_quad: long side TL->BL
    return (0, 2) if sum(standing) * 2 >= len(standing) else (1, 3)


@functools.lru_cache(maxsize=1)
def general_model() -> NumberModel:
    return NumberModel()


def number_reader(feed, patches: list[np.ndarray], cfg: RecogniseConfig) -> CardReader | None:
    """A card reader on the general number model alone (the referee's model when it runs one): the
    numbers it reads say whether the crops show them, whatever deck was enrolled before. The laid
    colour is its only colour (this step reads numbers, not colours). None without a number model."""
    model = getattr(getattr(feed, "reader", None), "model", None)
    try:
        model = model if isinstance(model, NumberModel) else general_model()
    except LigrettoError:
        return None
    return CardReader(Enrollment(faces={"laid": face_colour(patches[0])}), model=model, cfg=cfg)


def read_way(img: np.ndarray, quads: list[np.ndarray], turn: int, card_mm, feed,
             cfg: RecogniseConfig) -> tuple[list[np.ndarray], list[Reading] | None, tuple[int, float]]:
    """(crops in reading order, readings or None, score) for the cards seen upright in the frame of
    `turn`; the score: how many read as the number of their place, then how surely."""
    crops = [cut(img, q, card_mm) for q in reading_order(quads, turn)]
    patches = [upright(c, card_mm) for c in crops]
    reader = number_reader(feed, patches, cfg)
    if reader is None:
        return crops, None, (0, 0.0)
    readings = reader.read(patches)
    right = sum(r.number == n for r, n in zip(readings, NUMBERS))
    return crops, readings, (right, float(sum(r.confidence for r in readings)))


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


def save_numbers(folder: Path, crops: list[np.ndarray]) -> None:
    """The crops as `folder`/1.png … 10.png, the ten replaced together: written into a new folder
    beside it, which then takes the old one's place (a crash between leaves no numbers, never a mix)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    old = folder.parent / f"{tmp.name}-old"
    try:
        tmp.chmod(0o755)
        for n, crop in zip(NUMBERS, crops):
            save_png(tmp / f"{n}.png", crop)
        if folder.exists():
            os.replace(folder, old)
        os.replace(tmp, folder)
    except BaseException:
        if old.exists() and not folder.exists():
            os.replace(old, folder)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)


def check_numbers(table) -> None:
    if table is None:
        raise HTTPException(409, SIM_MESSAGE)


def enrol_numbers(table, data: bytes, feed=None, detect: DetectConfig = DetectConfig(),
                  recognise: RecogniseConfig = RecogniseConfig()) -> dict:
    """Cut the ten cards out of the photo `data`, read them, store them; a 422 (nothing stored) unless
    exactly ten are found. `feed`: the table's feed, whose number model reads them when it has one."""
    check_numbers(table)
    img = decode(data, "1 to 10 of one colour laid out")
    quads = cards_in_photo(img, table.card_mm, detect)
    if len(quads) != len(NUMBERS):
        raise HTTPException(422, f"found {len(quads)} card{'s' * (len(quads) != 1)}, not {len(NUMBERS)}: nothing "
                                 f"was stored; {LAY_OUT}")
    ways = [(turn, *read_way(img, quads, turn, table.card_mm, feed, recognise)) for turn in turns_to_try(quads)]
    turn, crops, readings, _ = max(ways, key=lambda w: w[3])  # max keeps the first of equals
    save_numbers(numbers_path(table), crops)
    return {"kind": "numbers", "found": len(quads), "path": str(numbers_path(table)), "turn": turn,
            "size": [int(crops[0].shape[1]), int(crops[0].shape[0])],
            "cards": [number_answer(n, r) for n, r in zip(NUMBERS, readings or [None] * len(NUMBERS))],
            "message": numbers_message(readings), "saved_at": time.time()}


def number_answer(number: int, reading: Reading | None) -> dict:
    return {"number": number, "url": f"/api/enrollment/numbers/{number}.png",
            "read": reading.number if reading is not None and reading.face_up else None,
            "confidence": round(float(reading.confidence), 3) if reading is not None else None}


def numbers_message(readings: list[Reading] | None) -> str:
    if readings is None:
        return "the ten numbers are enrolled (no number model here to read them with)"
    wrong = [f"{r.number if r.face_up and r.number else '?'} on card {n}"
             for n, r in zip(NUMBERS, readings) if r.number != n]
    if not wrong:
        return "the ten numbers are enrolled; the reader read each right"
    return (f"the ten numbers are enrolled, each as the number of its place; the general reader read "
            f"{', '.join(wrong)}. If the cards did not lie 1 to 10 in order, {LAY_OUT}")


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
