"""Make the README's panel screenshots: a fast simulated table plays a few rounds, then
headless chromium photographs each page at phone size.

    .venv/bin/python docs/make_screenshots.py      # writes docs/panel-*.png (about 40 s)
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from panel_support import CHROMIUM, CHROMIUM_ARGS, PHONE, ThreadedServer, make_test_panel  # noqa: E402

from ligretto_vision.live.sim_feed import SimFeed  # noqa: E402

DOCS = Path(__file__).resolve().parent
NAMES = ["Anna", "Ben", "Cleo", "Dev"]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        panel = make_test_panel(Path(tmp), players=4)
        panel.store.set_setting("players", [{"id": f"P{i + 1}", "name": n, "seat": s} for i, (n, s) in
                                            enumerate(zip(NAMES, ["south", "north", "west", "east"]))], "docs")
        panel.feed = SimFeed(players=4, seed=11, speed=25, clips=panel.clips, names=panel.settings.names)
        with ThreadedServer(panel) as srv:
            while len(panel.keeper.match.rounds) < 4 or not panel.store.disputes():
                time.sleep(0.5)
            with sync_playwright() as p:
                b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                pg = b.new_page(viewport=PHONE)
                for tab, name in [("live", "live"), ("scores", "scores"), ("stats", "stats"), ("setup", "setup")]:
                    pg.goto(f"{srv.url}/#{tab}")
                    pg.wait_for_timeout(2500)
                    pg.screenshot(path=str(DOCS / f"panel-{name}.png"), full_page=True)
                ready = [d for d in panel.store.disputes() if (panel.clips / d["clip"] / "clip.json").exists()]
                pg.goto(f"{srv.url}/#disputes/{ready[0]['id']}")
                pg.wait_for_timeout(1500)
                pg.screenshot(path=str(DOCS / "panel-dispute.png"), full_page=True)
                b.close()
        panel.store.close()


if __name__ == "__main__":
    main()
