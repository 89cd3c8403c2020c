"""The board game's page in a real browser (Debian's headless chromium via Playwright): the board
referee replays a sample board scene, fast, and the page draws the board as the referee sees it,
each illegal placement with why, and the round's ranks, chips and cards put aside.
docs/make_screenshots.py --board photographs it for the README."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from ligretto_vision.live.board_feed import BoardFeed
from panel_support import ThreadedServer, browser, make_test_panel  # noqa: F401
from panel_support import PHONE

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
SCENE = Path(__file__).resolve().parents[2] / "shared" / "scenes-board" / "b01-board-2p"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not SCENE.is_dir():
        reason = f"the shared board sample scene is not beside the project ({SCENE})"
        print(reason)
        pytest.skip(reason)
    panel = make_test_panel(tmp_path_factory.mktemp("board"), players=2)
    panel.feed = BoardFeed(SCENE, speed=1000)  # as fast as the referee goes
    with ThreadedServer(panel) as srv:
        deadline = time.monotonic() + 180
        while not panel.hub.status.get("board_done") and time.monotonic() < deadline:
            time.sleep(0.5)
        yield srv
    panel.store.close()


def test_the_board_page_shows_the_board_the_illegal_cards_with_why_and_the_ranks(browser, server):
    state = server.panel.hub.status["board"]
    assert server.panel.hub.status.get("board_done"), "the board referee did not finish the scene in time"
    errors: list[str] = []
    ctx = browser.new_context(viewport=PHONE)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/board")
    page.wait_for_selector("#board svg")
    assert page.locator("#board rect.field").count() == state["cols"] * state["rows"]
    assert page.locator("#board g.card").count() == sum(not x["joker"] for x in state["lying"]) > 0
    assert page.locator("#board circle.token").count() == len(state["tokens"]) == 4
    # every illegal placement is listed with why, in words
    assert state["illegal"], "the sample has illegal cards"
    assert page.locator("#illegal li").count() == len(state["illegal"])
    assert page.locator("#illegal .why").first.inner_text() in (
        "the colours do not match the fields", "not next to a token", "it covers a card or a token",
        "it touches a token at a corner only", "the colours are the wrong way round", "laid after the stop")
    rows = page.locator("#ranks tbody tr")
    assert rows.count() == 2
    first = rows.first.locator("td").all_inner_texts()
    if state["ranks"]:  # the round ranked: places, chips and cards put aside per player, best first
        best = min(state["ranks"], key=lambda r: r["place"])
        assert first[:2] == [best["player"], str(best["place"])] and first[4:] == [str(best["chips"]), str(best["aside"])]
    else:  # not ranked (what was seen could not be: a note says why): the cards and jokers left
        print("the referee did not rank the sample's round:", state["notes"])
        player = first[0]
        assert first[1:4] == ["–", str(state["left"][player]["cards"]), str(state["left"][player]["jokers"])]
    # nothing wider than the phone
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    ctx.close()
    assert not errors, f"the page raised: {errors}"


def test_the_board_api_of_a_card_game_table_says_there_is_no_board(tmp_path):
    from fastapi.testclient import TestClient

    from ligretto_vision.panel.app import create_app

    panel = make_test_panel(tmp_path, players=2)
    res = TestClient(create_app(panel)).get("/api/board")
    assert res.status_code == 404 and "card game" in res.json()["error"]
    panel.store.close()


def test_serving_a_board_scene_runs_the_board_referee(tmp_path):
    """`[table].source` a board scene folder: `serve` referees it with the board referee."""
    if not SCENE.is_dir():
        pytest.skip(f"the shared board sample scene is not beside the project ({SCENE})")
    from panel_support import temp_config

    from ligretto_vision.panel.server import build

    cfg = temp_config(tmp_path, 2, None)
    cfg = cfg.model_copy(update={"table": cfg.table.model_copy(update={"source": str(SCENE)})})
    panel = build(cfg)
    assert isinstance(panel.feed, BoardFeed) and panel.settings.player_ids == ["P1", "P2"]
    panel.store.close()
