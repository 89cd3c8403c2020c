"""The panel at a real table (issue 21), without a browser: the address `serve` tells, the PIN's
lockout per phone and against parallel guesses, names in any script, huge ids, one round number,
a fresh deal after a restart, the change log in words, reasons in words, the dispute zoom, /docs
with no internet. What a person sees in the browser is in test_panel_browser.py."""
from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from urllib.parse import quote

import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient

from ligretto_vision.live import sim_feed
from ligretto_vision.events import Event
from ligretto_vision.live.camera_feed import PipelineFeed
from ligretto_vision.live.sim_feed import SimFeed
from ligretto_vision.panel import server
from ligretto_vision.panel.app import create_app
from ligretto_vision.panel.routes.pages import served_url
from ligretto_vision.panel.store import Store
from panel_support import PIN, ThreadedServer, client, counts, open_test_panel, panel, play, settle, temp_config, unlock  # noqa: F401 (fixtures)

GOAL = "/api/settings/match"


def wait_for(cond, timeout: float = 20.0, what: str = "the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"{what} did not come within {timeout} s")


def players_body(*names: str, seats=("south", "north", "west")) -> dict:
    return {"players": [{"id": f"P{i + 1}", "name": n, "seat": s} for i, (n, s) in enumerate(zip(names, seats))]}


# ---- the address `serve` tells -------------------------------------------------------------------------------
def test_serve_tells_the_address_a_phone_opens_as_the_qr_code_does(panel):
    url, note = served_url("0.0.0.0", 8080)
    assert "0.0.0.0" not in url and url.startswith("http://") and url.endswith(":8080/") and note == ""
    with TestClient(create_app(panel), base_url="http://127.0.0.1:8080") as c:  # the Set-up page, opened locally
        assert c.get("/api/url").json()["url"] == url
    cfg = panel.cfg.model_copy(update={"panel": panel.cfg.panel.model_copy(update={"host": "0.0.0.0"})})
    line = server.announce(cfg, 8080)
    assert f"panel on {url} " in line and "0.0.0.0" not in line
    local, why = served_url("127.0.0.1", 8080)
    assert local == "http://127.0.0.1:8080/" and "only this computer" in why


# ---- the PIN: per phone, and parallel guesses gain nothing ------------------------------------------------------
def test_a_guest_guessing_the_pin_locks_out_the_guest_not_the_table(panel):
    app = create_app(panel)
    with TestClient(app, client=("192.168.1.50", 40000)) as guest:
        owner = TestClient(app, client=("192.168.1.20", 40001))  # the same app: another phone at the table
        headers = unlock(owner)
        body = {"goal": "rounds", "value": 7}
        codes = [guest.put(GOAL, json=body, headers={"X-Table-PIN": f"{i:04d}"}).status_code for i in range(7)]
        assert codes == [403] * 5 + [429] * 2
        r = guest.put(GOAL, json=body, headers={"X-Table-PIN": PIN})
        assert r.status_code == 429 and "try again in" in r.json()["detail"]
        assert owner.put(GOAL, json=body, headers=headers).status_code == 200  # the real PIN still works
        assert panel.settings.goal().value == 7


def test_forty_parallel_guesses_get_five_pin_checks(tmp_path):
    with open_test_panel(tmp_path, players=2) as panel, ThreadedServer(panel) as srv:
        assert httpx.post(srv.url + "/api/pin", json={"pin": PIN}).status_code == 200

        def guess(i: int) -> int:
            return httpx.put(srv.url + GOAL, json={"goal": "endless"}, headers={"X-Table-PIN": f"{1000 + i}"},
                             timeout=60).status_code
        with ThreadPoolExecutor(40) as pool:
            codes = list(pool.map(guess, range(40)))
        assert codes.count(403) == 5 and codes.count(429) == 35, codes
        # that phone waits, even with the right PIN; another phone (another address) does not
        assert httpx.put(srv.url + GOAL, json={"goal": "endless"}, headers={"X-Table-PIN": PIN}).status_code == 429
        with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2")) as other:
            assert other.put(srv.url + GOAL, json={"goal": "endless"}, headers={"X-Table-PIN": PIN}).status_code == 200


def test_without_a_pin_the_answer_says_so_in_plain_words(client):
    unlock(client)
    detail = client.put(GOAL, json={"goal": "endless"}).json()["detail"]
    assert detail == "this change needs the table's PIN" and "header" not in detail


# ---- names in any script -----------------------------------------------------------------------------------------
def test_names_in_any_script_are_kept_whole(client, panel):
    headers = unlock(client)
    r = client.put("/api/settings/players", json=players_body("Łukasz", "Zoë 🎲", "李雷"),
                   headers={**headers, "X-Who": quote("Łukasz")})  # as the page sends it: percent-encoded UTF-8
    assert r.status_code == 200, r.text
    assert [p["name"] for p in client.get("/api/state").json()["players"]] == ["Łukasz", "Zoë 🎲", "李雷"]
    assert client.get("/api/changes").json()[0]["who"] == "Łukasz"
    # raw UTF-8 bytes in the header, as curl sends them, are read as UTF-8 too (were stored "ZoÃ« ð\x9f\x8e²")
    r = client.put(GOAL, json={"goal": "rounds", "value": 4}, headers={**headers, "X-Who": "Zoë 🎲".encode()})
    assert r.status_code == 200 and client.get("/api/changes").json()[0]["who"] == "Zoë 🎲"
    # a name typed with a combining accent is the same name
    nfd = unicodedata.normalize("NFD", "Zoë 🎲")
    r = client.put("/api/settings/players", json=players_body("Łukasz", nfd, "李雷"), headers=headers)
    assert r.status_code == 200 and panel.settings.names()["P2"] == "Zoë 🎲"
    # the video's fonts draw ASCII: it gets names it can draw
    assert panel.settings.video_names() == {"P1": "Lukasz", "P2": "Zoe", "P3": "P3"}
    # and the CSV keeps them (UTF-8 with a byte order mark, so spreadsheets read them right)
    panel.hub.publish(counts(5, {"P1": 1, "P2": 2, "P3": 3}))
    settle(panel)
    raw = client.get("/api/export.csv").content
    assert raw.startswith(b"\xef\xbb\xbf") and "Zoë 🎲".encode() in raw and "李雷".encode() in raw


@pytest.mark.parametrize("bad", ["Anna\x07", "Ben\u202eevil", "\u2066Cleo", "Dora\nEve", "Eve\u200f"])
def test_control_and_direction_characters_are_refused(client, panel, bad):
    headers = unlock(client)
    r = client.put("/api/settings/players", json=players_body(bad, "Ben", "Cleo"), headers=headers)
    assert r.status_code == 422 and "cannot hold" in r.json()["detail"] and "U+" in r.json()["detail"]
    r = client.put(GOAL, json={"goal": "endless"}, headers={**headers, "X-Who": quote(bad)})
    assert r.status_code == 422 and "X-Who" in r.json()["detail"]
    r = client.put("/api/rounds/1", json={"scores": {"P1": 1}, "who": bad}, headers=headers)
    assert r.status_code == 422
    assert panel.settings.names() == {"P1": "P1", "P2": "P2", "P3": "P3"}  # nothing stored
    assert panel.pins.clients == {}  # refused before the PIN was tried: no try used up


def test_a_lone_surrogate_is_refused_not_a_500(client):
    headers = {**unlock(client), "Content-Type": "application/json"}
    body = b'{"players": [{"id": "P1", "name": "\\ud800x", "seat": "south"}, {"id": "P2", "name": "B", "seat": "north"},' \
           b' {"id": "P3", "name": "C", "seat": "west"}]}'
    r = client.put("/api/settings/players", content=body, headers=headers)
    assert r.status_code == 422 and r.json()["detail"].startswith("players.0.name:")


def test_two_players_of_one_name_or_on_one_seat_are_refused(client, panel):
    headers = unlock(client)
    r = client.put("/api/settings/players", json=players_body("Anna", "anna", "Cleo"), headers=headers)
    assert r.status_code == 422 and r.json()["detail"] == "P1 and P2 are both called anna: give every player a name of their own"
    r = client.put("/api/settings/players", json=players_body("Anna", "Ben", "Cleo", seats=("south", "south", "west")),
                   headers=headers)
    assert r.status_code == 422 and "both sit at south" in r.json()["detail"]
    assert panel.store.setting("players") is None


def test_csv_cells_cannot_run_as_formulas_and_agree_after_a_correction(client, panel):
    headers = unlock(client)
    names = ['=HYPERLINK("//x.io")', "-Ben", "@Cleo"]
    assert client.put("/api/settings/players", json=players_body(*names), headers=headers).status_code == 200
    panel.hub.publish(counts(10, {"P1": 4, "P2": -2, "P3": 7}))
    settle(panel)
    rid = panel.store.rounds()[0]["id"]
    r = client.put(f"/api/rounds/{rid}", json={"scores": {"P2": 6}, "who": "Ben"}, headers=headers)
    assert r.status_code == 200
    text = client.get("/api/export.csv").content.decode("utf-8-sig")
    rows = {row["player"]: row for row in csv.DictReader(io.StringIO(text))}
    assert [rows[p]["name"] for p in ("P1", "P2", "P3")] == ["'" + n for n in names]
    p2 = rows["P2"]  # the score in force (the scoreboard's), the one counted and why they differ
    assert (p2["score"], p2["counted"], p2["centre"], p2["stack"], p2["corrected"]) == ("6", "-2", "2", "2", "yes")
    assert int(p2["centre"]) - 2 * int(p2["stack"]) == int(p2["counted"])
    assert rows["P1"]["corrected"] == "no" and rows["P1"]["score"] == rows["P1"]["counted"] == "4"
    totals = client.get("/api/state").json()["match"]["totals"]
    assert {p: int(row["score"]) for p, row in rows.items()} == totals
    # a second correction keeps what was counted
    client.put(f"/api/rounds/{rid}", json={"scores": {"P2": 5}, "who": "Ben"}, headers=headers)
    again = {row["player"]: row for row in csv.DictReader(io.StringIO(
        client.get("/api/export.csv").content.decode("utf-8-sig")))}
    assert (again["P2"]["score"], again["P2"]["counted"]) == ("5", "-2")


# ---- huge ids and other numbers: a 4xx, never a 500 ---------------------------------------------------------
@pytest.mark.parametrize("path", ["/api/disputes/99999999999999999999999", "/api/matches/99999999999999999999999",
                                  "/api/disputes/9223372036854775808", "/api/matches/0", "/api/disputes/-3"])
def test_huge_or_impossible_ids_get_a_4xx(path, tmp_path):
    with open_test_panel(tmp_path, players=2) as p, TestClient(create_app(p), raise_server_exceptions=False) as c:
        r = c.get(path)
        assert r.status_code in (404, 422) and r.json()["detail"], r.text
        assert c.get("/api/disputes/9223372036854775807").status_code == 404  # the biggest id: simply none
        r = c.put("/api/rounds/99999999999999999999999", json={"scores": {"P1": 1}, "who": "x"}, headers=unlock(c))
        assert r.status_code == 422 and "round_id" in r.json()["detail"]
        assert p.store.match(10 ** 30) is None and p.store.dispute(-10 ** 30) is None


def test_a_huge_last_event_id_is_ignored(panel):
    panel.stop.set()  # the stream ends at once, so the test client can read it whole
    with TestClient(create_app(panel), raise_server_exceptions=False) as c:
        r = c.get("/api/events", headers={"Last-Event-ID": "9" * 5000})
        assert r.status_code == 200 and r.text.startswith("retry: 1000")


def test_infinity_or_nan_is_refused_and_the_settings_stay_readable(tmp_path):
    with open_test_panel(tmp_path, players=2) as p, TestClient(create_app(p), raise_server_exceptions=False) as c:
        headers = {**unlock(c), "Content-Type": "application/json"}
        for body in (b'{"options": {"grace_s": Infinity}}', b'{"options": {"grace_s": NaN}}',
                     b'{"options": {"grace_s": 1e999}}', b'{"options": {"grace_s": -1e400}}'):
            r = c.put("/api/settings/rules", content=body, headers=headers)
            assert r.status_code == 422, (body, r.text)
        assert c.get("/api/settings").status_code == 200 and p.store.setting("rules") is None


# ---- one round number; a fresh deal after a restart -------------------------------------------------------------
def test_header_video_and_status_say_one_round_number(tmp_path, monkeypatch):
    captions: list[str] = []
    draw = sim_feed.draw_table

    def spy(*args, **kw):
        captions.append(args[3])
        return draw(*args, **kw)
    monkeypatch.setattr(sim_feed, "draw_table", spy)
    with open_test_panel(tmp_path, players=2) as panel:
        panel.hub.publish(counts(10, {"P1": 3, "P2": 1}))
        panel.hub.publish(counts(20, {"P1": 0, "P2": 5}))
        settle(panel)  # two rounds of this match were played before this start
        panel.feed = SimFeed(players=2, seed=1, max_render_fps=5)  # on its own it would say "round 1"
        with TestClient(create_app(panel)) as c:
            wait_for(lambda: captions, what="a picture")
            state = c.get("/api/state").json()
            assert state["round"]["no"] == 3 == panel.hub.status["round"] == state["source"]["round"]
            assert captions[-1].startswith("round 3 ")
            assert c.post("/api/matches", headers=unlock(c)).status_code == 200  # a new match mid-round
            wait_for(lambda: captions[-1].startswith("round 1 "), what="round 1 on the video")
            assert c.get("/api/state").json()["round"]["no"] == 1 == panel.hub.status["round"]


def test_a_restarted_simulated_table_deals_afresh(tmp_path):
    base = temp_config(tmp_path, players=2)
    cfg = base.model_copy(update={"table": base.table.model_copy(update={"source": "sim"})})
    seeds = []
    for _ in range(2):  # start, stop, start again on the same database
        panel = server.build(cfg)
        stop = threading.Event()
        t = threading.Thread(target=panel.feed.run, args=(panel.hub, stop))
        t.start()
        try:
            wait_for(lambda: "seed" in panel.hub.status, what="a deal")
            seeds.append(panel.hub.status["seed"])
        finally:
            stop.set()
            t.join(timeout=10)
            panel.store.close()
    assert seeds[0] != seeds[1]
    assert seeds[0] == cfg.table.seed  # the first deal ever is the config's seed: demos stay reproducible


# ---- the change log and reasons in words; the dispute zoom ------------------------------------------------------
def test_the_change_log_reads_as_sentences(client, panel):
    headers = unlock(client)  # Anna
    assert client.put(GOAL, json={"goal": "target", "value": 300}, headers=headers).status_code == 200
    assert client.get("/api/changes").json()[0]["text"] == "Anna changed the goal from 99 to 300 points"
    client.put(GOAL, json={"goal": "rounds", "value": 5}, headers=headers)
    assert client.get("/api/changes").json()[0]["text"] == "Anna changed the goal from 300 points to 5 rounds"
    client.put("/api/settings/rules", json={"options": {"stack_penalty": 3}}, headers=headers)
    assert client.get("/api/changes").json()[0]["text"] == "Anna changed the rules: points off per stack card from 2 to 3"
    client.put("/api/settings/players", json=players_body("Łukasz", "Zoë", "P3", seats=("south", "west", "north")),
               headers=headers)
    assert client.get("/api/changes").json()[0]["text"] == \
        "Anna changed the players: renamed P1 to Łukasz; renamed P2 to Zoë; moved Zoë from north to west; " \
        "moved P3 from west to north"
    panel.hub.publish(counts(10, {"P1": 4, "P2": -2, "P3": 7}))
    settle(panel)
    rid = panel.store.rounds()[0]["id"]
    client.put(f"/api/rounds/{rid}", json={"scores": {"P2": 6}, "who": "Ben", "note": "recount"}, headers=headers)
    change = client.get("/api/changes").json()[0]
    assert change["text"] == f"Ben corrected round 1 of match {panel.keeper.match_row['id']}: Zoë from -2 to 6"
    assert change["note"] == "recount"
    client.post("/api/matches", headers=headers)
    assert client.get("/api/changes").json()[0]["text"].startswith("Anna started a new match (match ")
    assert all("{" not in c["text"] for c in client.get("/api/changes").json())


def test_illegal_plays_say_why_in_words(panel):
    panel.hub.publish([play(5, "P1", "red-1", 1), play(9, "P2", "red-3", 1, False, "wrong-number"),
                       play(12, "P3", "blue-2", 1, False, "wrong-colour")])
    settle(panel)
    snap = panel.keeper.snapshot()
    said = {p["card"]: p.get("said") for p in snap["round"]["plays"]}
    assert said == {"red-1": None, "red-3": "not one higher", "blue-2": "wrong colour"}
    assert snap["alert"]["said"] == "wrong colour" and "pile 1 is red" in snap["alert"]["why"]


def test_a_dispute_keeps_where_on_the_picture_its_cards_lie(panel, client):
    panel.feed = SimFeed(players=3)  # a 1300 x 760 mm table drawn to scale (not started: only its geometry)
    claims = [{"player": "P1", "touch": 40}, {"player": "P3", "touch": 42}]
    panel.hub.publish([play(40, "P1", "blue-4", 2, at=[650.0, 500.0, 3.0]),
                       play(43, "P3", "blue-4", 2, at=[655.0, 505.0, 90.0]),
                       Event("dispute", 43, {"pile": 2, "card": "blue-4", "claims": claims, "winner": "P1"})])
    settle(panel)
    d = client.get("/api/disputes").json()[0]
    v = d["view"]
    assert v is not None and v["w"] < 0.4 and v["h"] < 0.6
    assert v["x"] < 650 / 1300 < v["x"] + v["w"] and v["y"] < 500 / 760 < v["y"] + v["h"]
    assert client.get(f"/api/disputes/{d['id']}").json()["view"] == v


def test_a_camera_dispute_zooms_where_the_calibration_puts_the_pile(panel):
    feed = PipelineFeed.__new__(PipelineFeed)  # only what view_of reads: the calibration and the picture's size
    to_px = lambda pts: np.asarray(pts, np.float64).reshape(-1, 2) * 0.5 + 100  # noqa: E731  (mm -> px)
    feed.pipeline = SimpleNamespace(referee=object(), cal=SimpleNamespace(to_px=to_px))
    feed.table = SimpleNamespace(size=(1280, 720))
    panel.feed = feed
    v = panel.view_of([[650.0, 380.0], [660.0, 390.0]])  # +-150 mm: px 350..505 x 215..370
    assert v == pytest.approx({"x": 350 / 1280, "y": 215 / 720, "w": 155 / 1280, "h": 155 / 720}, abs=1e-4)
    feed.pipeline.referee = None  # not calibrated (yet): the whole picture
    assert panel.view_of([[650.0, 380.0]]) is None


def test_an_older_database_gets_the_new_dispute_column(tmp_path):
    db = sqlite3.connect(tmp_path / "old.db")
    db.executescript("CREATE TABLE disputes (id INTEGER PRIMARY KEY, match_id INTEGER, round_no INTEGER, "
                     "at REAL NOT NULL, frame INTEGER, pile TEXT, card TEXT, claims TEXT NOT NULL, winner TEXT, clip TEXT);"
                     "INSERT INTO disputes(at, claims) VALUES (1.0, '[]');")
    db.commit()
    db.close()
    store = Store(tmp_path / "old.db")
    try:
        assert store.dispute(1)["view"] is None
        n = store.add_dispute(1, 1, 5, "2", "red-3", [], "P1", None, {"x": 0.1, "y": 0.2, "w": 0.3, "h": 0.4})
        assert store.dispute(n)["view"] == {"x": 0.1, "y": 0.2, "w": 0.3, "h": 0.4}
    finally:
        store.close()


# ---- /docs with no internet; the icon ------------------------------------------------------------------------------
def test_the_api_docs_and_the_icon_come_from_the_panel_itself(client):
    html = client.get("/docs").text
    assert "/static-docs/swagger-ui-bundle.js" in html and "/static-docs/swagger-ui.css" in html
    assert "cdn" not in html and "https://" not in html
    js = client.get("/static-docs/swagger-ui-bundle.js")
    assert js.status_code == 200 and "SwaggerUIBundle" in js.text[:2000]
    assert client.get("/static-docs/swagger-ui.css").status_code == 200
    redoc = client.get("/redoc").text
    assert "/static-docs/redoc.standalone.js" in redoc and "https://" not in redoc
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert client.get("/apple-touch-icon.png").content[:4] == b"\x89PNG"
    assert client.get("/static/favicon.svg").headers["content-type"].startswith("image/svg+xml")
    page = client.get("/").text
    assert 'rel="icon"' in page and "https://" not in page
    assert json.loads(client.get("/openapi.json").text)["info"]["title"] == "Ligretto table panel"
