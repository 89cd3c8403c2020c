"""Shared by the panel tests: a config in a temp folder, a panel app, a uvicorn server in a thread."""
from __future__ import annotations

import os
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn
from fastapi.testclient import TestClient

from ligretto_vision.config import Config
from ligretto_vision.events import Event
from ligretto_vision.live import LiveHub
from ligretto_vision.panel.app import create_app
from ligretto_vision.panel.context import Panel, make_panel
from ligretto_vision.panel.store import Store

PIN = "2468"

# Debian's chromium, driven headless by Playwright (see /work/shared/NOTES.md)
CHROMIUM = Path(os.environ.get("LIGRETTO_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
# a table of twelve with realistic names, one as long as the set-up allows (20 characters)
TWELVE = ["Alexandra", "Maximilian-Alexander", "Jo", "Bartholomew", "Ben", "Cleopatra", "Dev", "Friederike",
          "Gus", "Henrietta", "Ida", "Konstantin"]


def unlock(client) -> dict:
    """Set the table's PIN through the API; the headers a change then needs."""
    assert client.post("/api/pin", json={"pin": PIN}).status_code == 200
    return {"X-Table-PIN": PIN, "X-Who": "Anna"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def temp_config(tmp: Path, players: int = 4, port: int | None = None, **match) -> Config:
    return Config(table={"players": players}, panel={"host": "127.0.0.1", "port": port or free_port()},
                  match=match or {"goal": "target", "value": 99},
                  data={"database": str(tmp / "table.db"), "clips": str(tmp / "clips")})


def make_test_panel(tmp: Path, feed=None, players: int = 4, port: int | None = None, **match) -> Panel:
    cfg = temp_config(tmp, players, port, **match)
    return make_panel(cfg, LiveHub(), Store(cfg.data.database), feed)


def name_players(panel: Panel, names: list[str], who: str = "test") -> None:
    """Give the panel's players these names (P1 the first), each in the seat set up for them."""
    panel.store.set_setting("players", [{**p, "name": n} for p, n in zip(panel.settings.players(), names)], who)


@contextmanager
def open_test_panel(tmp: Path, feed=None, players: int = 4, **match):
    """A test panel, shut down and its database closed afterwards."""
    p = make_test_panel(tmp, feed, players, **match)
    try:
        yield p
    finally:
        p.shutdown()
        p.store.close()


def play(frame: int, player: str, card: str, pile, legal: bool = True, reason: str | None = None, **extra) -> Event:
    data = {"player": player, "card": card, "pile": pile, "legal": legal, **extra}
    if reason:
        data["reason"] = reason
    return Event("play", frame, data)


def counts(frame: int, scores: dict[str, int]) -> list[Event]:
    """A round's count events; centre/stack chosen so that centre - 2*stack is the score."""
    out = []
    for p, s in scores.items():
        stack = max(0, -s // 2 + 1) if s < 0 else 0
        out.append(Event("count", frame, {"player": p, "centre": s + 2 * stack, "stack": stack, "score": s}))
    return out


class ThreadedServer:
    """uvicorn in a thread, as the real `serve` runs it, stopped cleanly at the end."""

    def __init__(self, panel: Panel):
        self.panel = panel
        self.port = panel.cfg.panel.port
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(create_app(panel), host="127.0.0.1", port=self.port, log_level="warning",
                                timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "ThreadedServer":
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the panel server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.panel.stop.set()  # ends the video and event streams, so shutdown need not wait for them
        self.server.should_exit = True
        self.thread.join(timeout=10)


# fixtures shared by the panel's API tests (import them into a test module to use them)
@pytest.fixture
def panel(tmp_path):
    with open_test_panel(tmp_path, players=3) as p:
        yield p


@pytest.fixture
def client(panel):
    with TestClient(create_app(panel)) as c:
        yield c


def settle(panel) -> None:
    panel.keeper.poll()  # take in what was published without waiting for the keeper thread


# the browser tests' chromium, one per test module (import `browser` into a test module to use it)
@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
    if not CHROMIUM.exists():
        reason = f"no chromium at {CHROMIUM}: `make setup-browser` installs Debian's (apt-get install chromium)"
        print(reason)
        pytest.skip(reason)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    """The panel of the module's own `server` fixture on a phone; fails the test if the page raised."""
    errors: list[str] = []
    ctx, pg = open_page(browser, server.url, errors)
    yield pg
    ctx.close()
    assert not errors, f"the page raised: {errors}"


def open_page(browser, url: str, errors: list[str], **ctx_args):
    """The panel on a phone-sized page, once it shows a round; the page's errors go into `errors`."""
    ctx = browser.new_context(viewport=PHONE, **ctx_args)
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(url + "/")
    pg.wait_for_function("document.querySelector('#round-label').textContent.startsWith('Round ') && "
                         "!document.querySelector('#round-label').textContent.includes('–')")
    return ctx, pg
