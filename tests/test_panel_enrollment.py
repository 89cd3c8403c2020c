"""Enrollment from the panel: a photo of one card becomes the table's enroll/ crop, upright and whole;
a photo of the ten numbers of one colour becomes enroll/numbers/1.png … 10.png.

The table folder is a temp copy of a sample scene's scene.json (no enroll crops): the panel's feed is a
PipelineFeed with no frames, its pipeline a stand-in that needs no number model.
"""
from __future__ import annotations

import json
import os
import shutil
import threading
import types
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from conftest import SCENES
from ligretto_vision.live import LiveHub
from ligretto_vision.live.camera_feed import PipelineFeed
from ligretto_vision.panel import enrollment
from ligretto_vision.panel.app import create_app
from ligretto_vision.panel.guard import MAX_BODY
from ligretto_vision.recognise.reader import CardReader, Enrollment, face_colour
from ligretto_vision.scene import load_scene
from ligretto_vision.sim.render import paste_card, render_back, render_face
from panel_support import PHONE, PIN, ThreadedServer, browser, open_test_panel, unlock  # noqa: F401  (browser: a fixture)

SCENE = SCENES / "s03-count-2p"
CARD_MM = (59.0, 91.0)


@pytest.fixture
def table_folder(tmp_path) -> Path:
    if not (SCENE / "scene.json").exists():
        reason = f"sample scene not found at {SCENE} (set LIGRETTO_SHARED to the shared/ folder)"
        print(reason)
        pytest.skip(reason)
    folder = tmp_path / "table"
    (folder / "enroll").mkdir(parents=True)
    shutil.copy(SCENE / "scene.json", folder / "scene.json")
    return folder


class StandInPipeline:
    """What the feed keeps of a round's pipeline: the card reader it was given, or one read from the table
    folder (as Pipeline makes it, with a stand-in for the number model)."""

    def __init__(self, scene, emit, on_status, reader=None):
        self.reader = reader or CardReader(Enrollment.from_folder(scene.folder / "enroll", scene.card_mm,
                                                                  scene.colours, scene.player_ids),
                                           model="the number model")


NO_FRAMES = types.SimpleNamespace(name="camera", fps=30.0, frames=lambda: iter(()), close=lambda: None)


@pytest.fixture
def table_panel(tmp_path, table_folder):
    table = load_scene(table_folder, camera=True)
    feed = PipelineFeed(NO_FRAMES, table, make_pipeline=StandInPipeline)
    with open_test_panel(tmp_path, feed=feed, players=len(table.players)) as p:
        yield p


@pytest.fixture
def client(table_panel):
    with TestClient(create_app(table_panel)) as c:
        yield c


def palette_bgr(colour: str) -> tuple[int, int, int]:
    r, g, b = json.loads((SCENE / "scene.json").read_text())["palette"][colour]
    return b, g, r


def photo(card_bgra: np.ndarray, angle: float, background=(196, 190, 182), size=(480, 360), seed=0,
          fmt: str = ".jpg") -> bytes:
    """A phone-like photo: the card pasted turned on a plain, slightly uneven table, encoded."""
    w, h = size
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), background, np.float32)
    img *= np.linspace(0.92, 1.05, w)[None, :, None]  # a little light fall-off
    noise = 2.0 if fmt == ".jpg" else 0.0  # PNG keeps noise losslessly: a plain table keeps it small
    img = (img + rng.normal(0, noise, img.shape)).clip(0, 255).astype(np.uint8)
    paste_card(img, card_bgra, (w / 2 + 7, h / 2 - 5), angle)
    ok, buf = cv2.imencode(fmt, img, [cv2.IMWRITE_JPEG_QUALITY, 90] if fmt == ".jpg" else [])
    assert ok
    data = buf.tobytes()
    assert len(data) < MAX_BODY - 1024, f"test photo too large for the panel: {len(data)} bytes"
    return data


def enroll_files(folder: Path) -> list[Path]:
    return sorted(p for p in (folder / "enroll").rglob("*") if p.is_file())


def numbers_photo(count: int = 10, rows: int = 1, upside_down: bool = False, ppm: float = 1.6, seed: int = 0,
                  size: tuple[int, int] | None = None, noise: float = 1.5) -> tuple[bytes, list[np.ndarray]]:
    """A phone-like JPEG of the red cards 1 to `count` laid in order, a little askew, in `rows` rows on a
    plain table (the photo turned half round when `upside_down`), and the cards as rendered (BGR)."""
    faces = [render_face(palette_bgr("red"), n, CARD_MM, ppm=4.0) for n in range(1, count + 1)]
    per = -(-count // rows)
    cw, ch = CARD_MM[0] * ppm, CARD_MM[1] * ppm
    w, h = size or (int(per * cw * 1.3 + 80), int(rows * ch * 1.3 + 80))
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), (96, 130, 84), np.float32)  # green felt
    img = (img + rng.normal(0, noise, img.shape)).clip(0, 255).astype(np.uint8)
    for i, face in enumerate(faces):
        r, c = divmod(i, per)
        centre = (w / 2 + (c - (per - 1) / 2) * cw * 1.3 + rng.uniform(-3, 3), h / 2 + (r - (rows - 1) / 2) * ch * 1.3)
        paste_card(img, face, centre, rng.uniform(-5, 5), scale=ppm / 4.0)
    if upside_down:
        img = np.ascontiguousarray(img[::-1, ::-1])
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok and len(buf) < MAX_BODY - 1024, f"test photo too large for the panel: {len(buf)} bytes"
    return buf.tobytes(), [f[..., :3] for f in faces]


def which_card(crop: np.ndarray, faces: list[np.ndarray]) -> int:
    """The number of the rendered face (upright) a stored crop looks most like, its border left out."""
    def unlike(face):
        small = cv2.resize(face, crop.shape[1::-1], interpolation=cv2.INTER_AREA).astype(float)
        return float(np.abs(crop.astype(float) - small)[5:-5, 5:-5].mean())
    return 1 + min(range(len(faces)), key=lambda i: unlike(faces[i]))


def number_crops(folder: Path) -> list[np.ndarray | None]:
    return [cv2.imread(str(folder / "enroll" / "numbers" / f"{n}.png")) for n in range(1, 11)]


# ---- the table in use -------------------------------------------------------------------------------------
def test_the_simulated_table_needs_no_enrollment(tmp_path):
    with open_test_panel(tmp_path, players=3) as p, TestClient(create_app(p)) as c:  # no feed: the simulated table
        st = c.get("/api/enrollment").json()
        assert st["needed"] is False and "no enrollment is needed" in st["message"]
        headers = unlock(c)
        r = c.post("/api/enrollment/backs/P1", content=b"\x89PNG", headers=headers)
        assert r.status_code == 409 and "simulated table" in r.json()["detail"]


def test_status_lists_the_tables_colours_and_players(client, table_folder):
    st = client.get("/api/enrollment").json()
    assert st["needed"] is True and st["table_folder"] == str(table_folder.resolve())
    assert [r["name"] for r in st["faces"]] == ["red", "green", "blue", "yellow"]
    assert [r["name"] for r in st["backs"]] == ["P1", "P2"]
    assert not any(r["enrolled"] for r in st["faces"] + st["backs"])
    assert st["complete"] is False and "red" in st["message"]
    assert client.get("/api/enrollment/backs/P1.png").status_code == 404


# ---- enrolling --------------------------------------------------------------------------------------------
def test_a_rotated_back_photo_is_cut_upright_and_stored(client, table_folder):
    headers = unlock(client)
    colour = (40, 150, 60)
    back = render_back(colour, CARD_MM, ppm=2.5, symbol=2)
    r = client.post("/api/enrollment/backs/P1", content=photo(back, 11), headers={**headers, "Content-Type": "image/jpeg"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["outline_found"] is True and out["size"] == [53, 82]  # card_mm at 0.9 px/mm, long side vertical
    path = table_folder / "enroll" / "backs" / "P1.png"
    assert Path(out["path"]) == path and path.is_file()
    crop = cv2.imread(str(path))
    assert crop.shape == (82, 53, 3)
    # the crop is the card, not the table: its border is the back's colour, nothing of the grey table
    truth = cv2.resize(back[..., :3], (53, 82), interpolation=cv2.INTER_AREA).astype(float)
    assert np.abs(crop.astype(float) - truth)[4:-4, 4:-4].mean() < 25
    edge = np.concatenate([crop[6:-6, 1:3].reshape(-1, 3), crop[6:-6, -3:-1].reshape(-1, 3)]).astype(float)
    assert np.abs(np.median(edge, 0) - colour).max() < 30
    assert [f.name for f in path.parent.iterdir()] == ["P1.png"]  # no temp file left behind
    st = client.get("/api/enrollment").json()
    assert [b["enrolled"] for b in st["backs"]] == [True, False] and st["backs"][0]["size"] == [53, 82]
    png = client.get("/api/enrollment/backs/P1.png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    change = client.get("/api/changes").json()[0]
    assert change["who"] == "Anna" and change["what"] == "enrollment" and change["after"]["card"] == "backs/P1"


def test_a_landscape_card_is_turned_long_side_vertical(client, table_folder):
    headers = unlock(client)
    face = render_face(palette_bgr("blue"), 7, CARD_MM, ppm=2.5)
    r = client.post("/api/enrollment/faces/blue", content=photo(face, 84, fmt=".png"), headers=headers)
    assert r.status_code == 200, r.text
    crop = cv2.imread(str(table_folder / "enroll" / "faces" / "blue.png"))
    assert crop.shape == (82, 53, 3)


def test_enrolled_faces_and_backs_load_and_tell_the_colours_apart(client, table_panel, table_folder):
    headers = unlock(client)
    feed = table_panel.feed
    assert feed.pipeline is None  # no colour enrolled: the camera is shown, nothing refereed
    colours = ["red", "green", "blue", "yellow"]
    for i, c in enumerate(colours):
        face = render_face(palette_bgr(c), 3 + i, CARD_MM, ppm=2.5)
        r = client.post(f"/api/enrollment/faces/{c}", content=photo(face, -14 + 9 * i, seed=i), headers=headers)
        assert r.status_code == 200 and r.json()["outline_found"], r.text
        # the referee starts once every colour has a face
        assert r.json()["referee"] == ("uses it from the next round" if c == "yellow" else "uses it once every colour has a face")
    feed.run(LiveHub(), threading.Event())  # the first round
    first = feed.pipeline.reader
    assert set(first.enrollment.faces) == set(colours)
    # a face enrolled again reaches the next round's referee, which keeps its number model
    face = render_face(palette_bgr("red"), 8, CARD_MM, ppm=2.5)
    r = client.post("/api/enrollment/faces/red", content=photo(face, 6, seed=7), headers=headers)
    assert r.json()["referee"] == "uses it from the next round"
    feed.run(LiveHub(), threading.Event())
    assert feed.pipeline.reader is not first and feed.pipeline.reader.model == "the number model"
    for i, p in enumerate(["P1", "P2"]):
        back = render_back((60 + 80 * i, 90, 200 - 80 * i), CARD_MM, ppm=2.5, symbol=i + 1)
        assert client.post(f"/api/enrollment/backs/{p}", content=photo(back, 5 - 10 * i, seed=9 + i),
                           headers=headers).status_code == 200
    st = client.get("/api/enrollment").json()
    assert st["complete"] is True and all(r["enrolled"] for r in st["faces"] + st["backs"])
    en = Enrollment.from_folder(table_folder / "enroll", CARD_MM, colours, ["P1", "P2"])
    assert set(en.faces) == set(colours) and set(en.backs) == {"P1", "P2"}
    # each colour's enrolled feature is nearest the same colour's upright card as rendered
    for c in colours:
        want = face_colour(cv2.resize(render_face(palette_bgr(c), 5, CARD_MM, ppm=1.0)[..., :3], (59, 91)))
        nearest = min(colours, key=lambda k: float(np.linalg.norm(en.faces[k] - want)))
        assert nearest == c


def test_a_close_up_without_outline_uses_the_whole_picture(client, table_folder):
    headers = unlock(client)
    face = render_face(palette_bgr("red"), 9, CARD_MM, ppm=3.0)[..., :3]  # the card fills the picture
    ok, buf = cv2.imencode(".jpg", face, [cv2.IMWRITE_JPEG_QUALITY, 85])
    r = client.post("/api/enrollment/faces/red", content=buf.tobytes(), headers=headers)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["outline_found"] is False and "whole picture" in out["message"] and out["size"] == [53, 82]
    assert (table_folder / "enroll" / "faces" / "red.png").is_file()


# ---- the ten numbers of one colour ----------------------------------------------------------------------------
def test_the_numbers_are_optional_and_the_status_says_so(client):
    st = client.get("/api/enrollment").json()
    nb = st["numbers"]
    assert nb["enrolled"] is False and "general model" in nb["message"]
    assert [c["number"] for c in nb["cards"]] == list(range(1, 11)) and not any(c["enrolled"] for c in nb["cards"])
    assert "red" in st["message"] and "number" not in st["message"]  # not one of the missing steps
    assert client.get("/api/enrollment/numbers/3.png").status_code == 404


def test_a_row_of_ten_is_cut_into_ten_upright_crops_stored_in_order(client, table_folder):
    headers = unlock(client)
    data, faces = numbers_photo()
    r = client.post("/api/enrollment/numbers", content=data, headers={**headers, "Content-Type": "image/jpeg"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["found"] == 10 and out["size"] == [53, 82] and out["turn"] == 0
    crops = number_crops(table_folder)
    assert all(c is not None and c.shape == (82, 53, 3) for c in crops)
    assert [which_card(c, faces) for c in crops] == list(range(1, 11))  # each file is its own card
    # what the reader read on each crop is in the answer (clean rendered cards: the number laid there)
    assert [c["number"] for c in out["cards"]] == list(range(1, 11))
    assert [c["read"] for c in out["cards"]] == list(range(1, 11)) and "read each right" in out["message"]
    assert sorted(p.name for p in (table_folder / "enroll").iterdir()) == ["numbers"]  # no temp folder left
    st = client.get("/api/enrollment").json()["numbers"]
    assert st["enrolled"] is True and "general model" not in st["message"]
    png = client.get(out["cards"][6]["url"])
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert which_card(cv2.imdecode(np.frombuffer(png.content, np.uint8), cv2.IMREAD_COLOR), faces) == 7
    change = client.get("/api/changes").json()[0]
    assert change["what"] == "enrollment" and change["after"]["card"] == "numbers"
    # the reader the referee is given learns this deck's numbers from the ten crops
    assert Enrollment.from_folder(table_folder / "enroll", CARD_MM, [], []).numerals is not None


def test_two_rows_photographed_upside_down_are_read_in_order_and_turned_upright(client, table_folder):
    headers = unlock(client)
    data, faces = numbers_photo(rows=2, upside_down=True, ppm=1.9, seed=4)
    r = client.post("/api/enrollment/numbers", content=data, headers=headers)
    assert r.status_code == 200, r.text
    assert r.json()["turn"] == 2  # the cards' up is the photo's down
    assert [which_card(c, faces) for c in number_crops(table_folder)] == list(range(1, 11))


def test_nine_cards_store_nothing_and_say_how_many_were_found(client, table_folder):
    headers = unlock(client)
    data, _ = numbers_photo(count=9)
    r = client.post("/api/enrollment/numbers", content=data, headers=headers)
    assert r.status_code == 422 and "found 9 cards, not 10" in r.json()["detail"]
    assert "lay out 1 to 10" in r.json()["detail"]
    assert enroll_files(table_folder) == [] and list((table_folder / "enroll").iterdir()) == []


def test_the_numbers_need_the_pin(client, table_folder):
    data, _ = numbers_photo()
    assert client.post("/api/enrollment/numbers", content=data).status_code == 409  # no PIN chosen yet
    unlock(client)
    r = client.post("/api/enrollment/numbers", content=data)
    assert r.status_code == 401 and "PIN" in r.json()["detail"]
    assert client.post("/api/enrollment/numbers", content=data, headers={"X-Table-PIN": "0000"}).status_code == 403
    assert enroll_files(table_folder) == []


def test_the_simulated_table_takes_no_numbers(tmp_path):
    with open_test_panel(tmp_path, players=3) as p, TestClient(create_app(p)) as c:
        headers = unlock(c)
        r = c.post("/api/enrollment/numbers", content=numbers_photo()[0], headers=headers)
        assert r.status_code == 409 and r.json()["detail"] == enrollment.SIM_MESSAGE
        assert c.get("/api/enrollment").json()["numbers"] is None


def test_a_failed_write_of_the_numbers_leaves_the_old_ten_whole(table_folder, monkeypatch):
    folder = table_folder / "enroll" / "numbers"
    enrollment.save_numbers(folder, [np.full((82, 53, 3), 10 * n, np.uint8) for n in range(1, 11)])
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    save_png, written = enrollment.save_png, []

    def cut_at_the_sixth(path, img):
        if len(written) == 5:
            raise OSError("power cut")
        written.append(path)
        save_png(path, img)

    monkeypatch.setattr(enrollment, "save_png", cut_at_the_sixth)
    with pytest.raises(OSError):
        enrollment.save_numbers(folder, [np.full((82, 53, 3), 200, np.uint8)] * 10)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert [p.name for p in folder.parent.iterdir()] == ["numbers"]  # the half-written set is gone


# ---- refusals: nothing is written -----------------------------------------------------------------------------
def test_without_the_right_pin_nothing_is_written(client, table_folder):
    data = photo(render_back((40, 150, 60), CARD_MM, ppm=2.5), 8)
    assert client.post("/api/enrollment/backs/P1", content=data).status_code == 409  # no PIN chosen yet
    unlock(client)
    r = client.post("/api/enrollment/backs/P1", content=data)
    assert r.status_code == 401 and "PIN" in r.json()["detail"]
    assert client.post("/api/enrollment/backs/P1", content=data, headers={"X-Table-PIN": "0000"}).status_code == 403
    assert enroll_files(table_folder) == []


@pytest.mark.parametrize("path, body, status, words", [
    ("/api/enrollment/fronts/red", "card", 404, "'faces'"),
    ("/api/enrollment/faces/purple", "card", 404, "red, green, blue, yellow"),
    ("/api/enrollment/backs/P7", "card", 404, "P1, P2"),
    ("/api/enrollment/backs/P1", b"", 400, "no picture"),
    ("/api/enrollment/backs/P1", b"hello, this is not a picture", 415, "not a PNG or JPEG"),
    ("/api/enrollment/backs/P1", "broken", 415, "could not be read"),
    ("/api/enrollment/backs/P1", "blank", 422, "no card in the picture"),
    ("/api/enrollment/backs/P1", "huge", 413, "megapixels"),
    ("/api/enrollment/backs/P1", b"\xff" * (MAX_BODY + 10), 413, "too large"),
])
def test_malformed_uploads_are_refused_with_a_reason(client, table_folder, path, body, status, words):
    headers = unlock(client)
    if body == "card":
        body = photo(render_back((40, 150, 60), CARD_MM, ppm=2.5), 8)
    elif body == "broken":
        body = photo(render_back((40, 150, 60), CARD_MM, ppm=2.5), 8)[:400]
    elif body == "blank":
        body = cv2.imencode(".png", np.full((300, 400, 3), 128, np.uint8))[1].tobytes()
    elif body == "huge":  # a tiny file claiming 20000 x 20000 px: refused before decoding
        body = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1].tobytes()
        body = body[:16] + (20000).to_bytes(4, "big") * 2 + body[24:]
    r = client.post(path, content=body, headers=headers)
    assert r.status_code == status, r.text
    assert words in r.json()["detail"]
    assert enroll_files(table_folder) == []


def test_a_failed_write_leaves_the_old_crop_whole(table_folder, monkeypatch):
    path = table_folder / "enroll" / "faces" / "red.png"
    enrollment.save_png(path, np.full((82, 53, 3), 50, np.uint8))
    before = path.read_bytes()

    def cut(*a, **k):
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", cut)
    with pytest.raises(OSError):
        enrollment.save_png(path, np.full((82, 53, 3), 200, np.uint8))
    assert path.read_bytes() == before and [p.name for p in path.parent.iterdir()] == ["red.png"]


# ---- in a browser (optional: skipped without Playwright or Debian's chromium) ------------------------------
def test_the_setup_tab_lists_and_uploads_enrollment_pictures(tmp_path, table_panel, browser):
    from ligretto_vision.panel.pin import hash_pin  # noqa: PLC0415

    table_panel.store.set_setting("pin", hash_pin(PIN), "test", log_values=False)
    big = tmp_path / "photo.png"  # a bigger photo than a request may carry: the page shrinks it
    img = np.full((1200, 1600, 3), (196, 190, 182), np.uint8)
    img = (img + np.random.default_rng(3).normal(0, 6, img.shape)).clip(0, 255).astype(np.uint8)
    paste_card(img, render_back((40, 150, 60), CARD_MM, ppm=8, symbol=2), (820, 590), 9)
    cv2.imwrite(str(big), img)
    assert big.stat().st_size > MAX_BODY
    with ThreadedServer(table_panel) as srv:
        ctx = browser.new_context(viewport=PHONE)
        try:
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(srv.url + "/#setup")
            page.wait_for_function("document.querySelectorAll('#enrol-faces .enrol-item').length === 4")
            assert "Enrollment of backs and colours" in page.inner_text("#enrollment")
            assert page.locator("#enrol-backs .enrol-item").count() == 2
            assert page.get_attribute("#enrol-backs .enrol-item[data-name=P1] input", "capture") == "environment"
            page.fill("#unlock input[name=pin]", PIN)
            page.set_input_files("#enrol-backs .enrol-item[data-name=P1] input[type=file]", str(big))
            page.wait_for_function("document.querySelector('#enrol-backs .enrol-item[data-name=P1] .ok') !== null"
                                   " && document.querySelector('#enrol-backs .enrol-item[data-name=P1] img.thumb')"
                                   ".naturalWidth === 53", timeout=10_000)
            assert not errors, f"the page raised: {errors}"
        finally:
            ctx.close()
    assert cv2.imread(str(table_panel.feed.table.folder / "enroll" / "backs" / "P1.png")).shape == (82, 53, 3)
    assert table_panel.store.changes()[0]["after"] == {"card": "backs/P1", "size": [53, 82], "outline_found": True}


def test_the_setup_tab_enrols_the_ten_numbers_from_one_photo(tmp_path, table_panel, browser):
    from ligretto_vision.panel.pin import hash_pin  # noqa: PLC0415

    table_panel.store.set_setting("pin", hash_pin(PIN), "test", log_values=False)
    faces = [render_face(palette_bgr("red"), n, CARD_MM, ppm=4.0) for n in range(1, 11)]
    big = tmp_path / "ten.png"  # a phone's photo, bigger than a request may carry: the page shrinks it
    img = np.full((620, 1560, 3), (96, 130, 84), np.uint8)
    img = (img + np.random.default_rng(5).normal(0, 4, img.shape)).clip(0, 255).astype(np.uint8)
    for i, face in enumerate(faces):  # a row of ten, 1 to 10, a little askew
        paste_card(img, face, (98 + i * 151, 310 + (-1) ** i * 4), 4 * (-1) ** (i // 2), scale=1.9 / 4.0)
    cv2.imwrite(str(big), img)
    assert big.stat().st_size > MAX_BODY
    folder = table_panel.feed.table.folder / "enroll" / "numbers"
    with ThreadedServer(table_panel) as srv:
        ctx = browser.new_context(viewport=PHONE)
        try:
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(srv.url + "/#setup")
            page.wait_for_function("document.querySelectorAll('#enrol-numbers .number-item').length === 10")
            assert "general model" in page.inner_text("#enrol-numbers-msg")
            assert page.get_attribute("#enrol-numbers-photo input[type=file]", "capture") == "environment"
            page.fill("#unlock input[name=pin]", PIN)
            page.set_input_files("#enrol-numbers-photo input[type=file]", str(big))
            page.wait_for_function("[...document.querySelectorAll('#enrol-numbers img.thumb')]"
                                   ".filter((i) => i.naturalWidth === 53).length === 10"
                                   " && document.querySelectorAll('#enrol-numbers .read').length === 10",
                                   timeout=20_000)
            shown = [page.get_attribute(f"#enrol-numbers .number-item:nth-child({n}) img", "src") for n in range(1, 11)]
            reads = page.locator("#enrol-numbers .read").all_inner_texts()
            assert not errors, f"the page raised: {errors}"
        finally:
            ctx.close()
    assert [s.split("?")[0] for s in shown] == [f"/api/enrollment/numbers/{n}.png" for n in range(1, 11)]
    assert all(r.startswith("read ") for r in reads)
    crops = number_crops(table_panel.feed.table.folder)
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{n}.png" for n in range(1, 11))
    assert [which_card(c, [f[..., :3] for f in faces]) for c in crops] == list(range(1, 11))
