"""The panel of a table of twelve on a phone (390×844, Debian's chromium): the live tallies, the scoreboard
and the stats show all twelve names, each inside the screen (the scoreboard's older rounds may scroll in
their own box, never the page), no name or number over another, a name too long shortened but whole in
its title.

The simulated table plays twelve players fast until a few rounds are scored; the page is measured
through the DOM (getBoundingClientRect of every name and every cell's text).
"""
from __future__ import annotations

import time

import pytest

from ligretto_vision.live.sim_feed import SimFeed
from panel_support import (PHONE, page, TWELVE, ThreadedServer, browser, make_test_panel, name_players,  # noqa: F401
                           open_page)

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")

ROUNDS = 4

# every player's name box, every cell's text box (a name's box as shown, cut; other cells' text as laid out,
# so text running out of its cell shows), the box a table scrolls in, and how wide the page is
MEASURE = """(sel) => {
  const table = document.querySelector(sel), rect = (r) => ({l: r.left, r: r.right, t: r.top, b: r.bottom});
  const text = (cell) => { const n = cell.querySelector(".name"); if (n) return rect(n.getBoundingClientRect());
    const range = document.createRange(); range.selectNodeContents(cell); return rect(range.getBoundingClientRect()); };
  const scroller = table.closest(".scroll");
  return {page: document.documentElement.scrollWidth, viewport: document.documentElement.clientWidth,
    names: [...table.querySelectorAll("tbody .name")].map((n) => ({title: n.title, ...rect(n.getBoundingClientRect())})),
    texts: [...table.querySelectorAll("th, td")].map(text).filter((b) => b.r - b.l > 0),
    table: rect(table.getBoundingClientRect()),
    scroller: scroller && {...rect(scroller.getBoundingClientRect()), wide: scroller.scrollWidth, shown: scroller.clientWidth}};
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    panel = make_test_panel(tmp_path_factory.mktemp("panel12"), players=12)
    name_players(panel, TWELVE)
    panel.feed = SimFeed(players=12, seed=5, speed=25, clips=panel.clips, names=panel.settings.names)
    with ThreadedServer(panel) as srv:
        deadline = time.monotonic() + 180
        while len(panel.keeper.match.rounds) < ROUNDS:  # a scoreboard and stats to show
            if time.monotonic() > deadline:
                raise RuntimeError(f"the simulated table of twelve scored {len(panel.keeper.match.rounds)} rounds "
                                   f"in 180 s, not {ROUNDS}")
            time.sleep(0.2)
        yield srv
    panel.store.close()


def overlapping(boxes: list[dict]) -> list[tuple[dict, dict]]:
    """Pairs of boxes that cover each other by more than half a pixel both ways."""
    return [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]
            if min(a["r"], b["r"]) - max(a["l"], b["l"]) > 0.5 and min(a["b"], b["b"]) - max(a["t"], b["t"]) > 0.5]


def inside(box: dict, left: float, right: float) -> bool:
    return box["l"] >= left - 0.5 and box["r"] <= right + 0.5


# the page, its tables, whether each must fit whole (the scoreboard's rounds may scroll in their own box)
PAGES = [("live", ["#tally"], True), ("scores", ["#board"], False), ("stats", ["#stats-match", "#stats-all"], True)]


@pytest.mark.parametrize("tab, tables, whole", PAGES, ids=[p[0] for p in PAGES])
def test_twelve_players_fit_a_phone(page, tab, tables, whole):
    page.click(f"nav a[data-tab={tab}]")
    for sel in tables:
        page.wait_for_function(f"document.querySelectorAll('{sel} tbody tr[data-player]').length === 12")
        m = page.evaluate(MEASURE, sel)
        assert m["viewport"] == PHONE["width"]
        assert sorted(n["title"] for n in m["names"]) == sorted(TWELVE), f"{sel}: a name missing or not whole in its title"
        for n in m["names"]:
            assert inside(n, 0, m["viewport"]), f"{sel}: {n['title']} lies outside the screen: {n}"
        if m["scroller"]:
            assert inside(m["scroller"], 0, m["viewport"]), f"{sel}: its scrolling box runs off the screen"
        if whole:
            assert inside(m["table"], 0, m["viewport"]), f"{sel} is wider than the phone: {m['table']}"
            assert not m["scroller"] or m["scroller"]["wide"] <= m["scroller"]["shown"], f"{sel} has to be scrolled"
        clash = overlapping(m["texts"])
        assert not clash, f"{sel}: text over text: {clash[:3]}"
        assert m["page"] <= PHONE["width"], f"the {tab} page is {m['page']} px wide, wider than the phone"
