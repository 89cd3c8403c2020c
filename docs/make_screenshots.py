"""Make the README's panel screenshots: a fast simulated table plays a few rounds, then
headless chromium photographs each page at phone size.

    .venv/bin/python docs/make_screenshots.py           # writes docs/panel-*.png, four players (about 40 s)
    .venv/bin/python docs/make_screenshots.py --twelve  # docs/panel-{live,scores,stats}-12.png, twelve players
    .venv/bin/python docs/make_screenshots.py --board   # docs/panel-board.png: the board game, sample b01 refereed
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from panel_support import CHROMIUM, CHROMIUM_ARGS, PHONE, TWELVE, ThreadedServer, make_test_panel, name_players  # noqa: E402

from ligretto_vision.live.sim_feed import SimFeed  # noqa: E402

DOCS = Path(__file__).resolve().parent
NAMES = ["Anna", "Ben", "Cleo", "Dev"]


def main(twelve: bool = False) -> None:
    """Four players: every page and a dispute's replay; twelve: the pages whose lists grow with the players."""
    names, suffix = (TWELVE, "-12") if twelve else (NAMES, "")
    tabs = ["live", "scores", "stats"] if twelve else ["live", "scores", "stats", "setup"]
    with tempfile.TemporaryDirectory() as tmp:
        panel = make_test_panel(Path(tmp), players=len(names))
        name_players(panel, names, "docs")
        panel.feed = SimFeed(players=len(names), seed=11, speed=25, clips=panel.clips, names=panel.settings.names)
        with ThreadedServer(panel) as srv:
            while len(panel.keeper.match.rounds) < 4 or not (twelve or panel.store.disputes()):  # a dispute to replay
                time.sleep(0.5)
            with sync_playwright() as p:
                b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                pg = b.new_page(viewport=PHONE)
                for tab in tabs:
                    pg.goto(f"{srv.url}/#{tab}")
                    pg.wait_for_timeout(2500)
                    pg.screenshot(path=str(DOCS / f"panel-{tab}{suffix}.png"), full_page=True)
                if not twelve:
                    ready = [d for d in panel.store.disputes() if (panel.clips / d["clip"] / "clip.json").exists()]
                    pg.goto(f"{srv.url}/#disputes/{ready[0]['id']}")
                    pg.wait_for_timeout(1500)
                    pg.screenshot(path=str(DOCS / "panel-dispute.png"), full_page=True)
                b.close()
        panel.store.close()


def board() -> None:
    """The board game's page once the board referee has replayed the sample board scene b01."""
    from ligretto_vision.live.board_feed import BoardFeed

    scene = DOCS.parents[1] / "shared" / "scenes-board" / "b01-board-2p"
    with tempfile.TemporaryDirectory() as tmp:
        panel = make_test_panel(Path(tmp), players=2)
        panel.feed = BoardFeed(scene, speed=1000)
        with ThreadedServer(panel) as srv:
            while not panel.hub.status.get("board_done"):
                time.sleep(0.5)
            with sync_playwright() as p:
                b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                pg = b.new_page(viewport=PHONE)
                pg.goto(f"{srv.url}/board")
                pg.wait_for_selector("#board svg")
                pg.wait_for_timeout(1000)
                pg.screenshot(path=str(DOCS / "panel-board.png"), full_page=True)
                b.close()
        panel.store.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--twelve", action="store_true", help="a table of twelve: docs/panel-{live,scores,stats}-12.png")
    ap.add_argument("--board", action="store_true", help="the board game's page: docs/panel-board.png")
    args = ap.parse_args()
    board() if args.board else main(args.twelve)
