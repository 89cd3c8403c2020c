"""The panel in a real browser (Debian's headless chromium via Playwright) on the simulated table.

Events the tests need at a known moment (a play, a dispute, a round's counts) are
published into the hub by the test itself, alongside the running simulated table.
docs/make_screenshots.py photographs the pages for the README.
"""
from __future__ import annotations

import pytest

from ligretto_vision.events import Event
from ligretto_vision.live.clips import save_clip
from ligretto_vision.live.sim_feed import SimFeed
from panel_support import page, ThreadedServer, browser, counts, make_test_panel, open_page, play  # noqa: F401

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("panel")
    panel = make_test_panel(tmp, players=4)
    panel.feed = SimFeed(players=4, seed=7, clips=panel.clips, names=panel.settings.names)
    with ThreadedServer(panel) as srv:
        yield srv
    panel.store.close()


def test_live_video_shows_the_simulated_table(page):
    page.wait_for_function("document.querySelector('#video').naturalWidth > 0", timeout=10_000)
    assert page.eval_on_selector("#video", "v => v.naturalWidth") == 720
    page.wait_for_function("document.querySelectorAll('#tally tbody tr').length === 4")


def test_an_illegal_play_shows_in_the_list_and_in_an_alert(page, server):
    """The play appears in the last plays, and an alert says who laid what where and why. The running
    table may lay an illegal card of its own right after, which the alert then shows instead: every
    text the alert shows is recorded from before ours is sent, and ours must be among them."""
    hub = server.panel.hub
    page.wait_for_function("document.querySelector('#conn').classList.contains('on')")
    page.evaluate("""() => { window.shownAlerts = []; const a = document.querySelector('#alert');
        const note = () => { if (a.offsetParent !== null) window.shownAlerts.push(a.innerText); };
        new MutationObserver(note).observe(a, {subtree: true, childList: true, characterData: true,
                                               attributes: true}); }""")
    frame = hub.events[-1].frame + 1 if hub.events else 1
    hub.publish([play(frame, "P2", "green-9", "T9", legal=False, reason="wrong-colour")])
    page.wait_for_function("[...document.querySelectorAll('#plays li')].some(li => li.dataset.card === 'green-9'"
                           " && li.textContent.includes('pile T9'))", polling="raf", timeout=5_000)
    text = page.wait_for_function("window.shownAlerts.find(t => t.includes('green-9')) || null",
                                  timeout=5_000).json_value()
    assert "P2" in text and "green-9" in text and "pile T9" in text and "colour" in text


def test_a_play_read_unsurely_asks_to_check_the_card_with_its_picture_and_raises_no_alert(page, server):
    hub = server.panel.hub
    page.wait_for_function("document.querySelector('#conn').classList.contains('on')")
    frame = hub.events[-1].frame + 1 if hub.events else 1
    hub.publish([Event("play", frame, {"player": "P3", "card": "blue-8", "pile": "U1", "unsure": True,
                                       "unsure_of": "card", "confidence": 0.5, "at": [600.0, 400.0, 0.0]})])
    text = page.wait_for_function("""() => { const c = document.querySelector('#check');
        return c && c.offsetParent !== null && c.innerText.includes('blue-8') ? c.innerText : null; }""",
                                  polling="raf", timeout=5_000).json_value()
    assert "Check this card" in text and "pile U1" in text
    page.wait_for_function("document.querySelector('#check-img').naturalWidth > 0", timeout=5_000)  # the table's picture
    assert "blue-8" not in page.inner_text("#alert")
    assert "check" in page.inner_text("#plays li[data-card='blue-8']")


def test_a_dispute_opens_a_slowed_replay_with_the_touches_marked(page, server):
    panel, hub = server.panel, server.panel.hub
    grabbed, last = [], 0
    while len(grabbed) < 12:  # real frames from the running table
        last, jpeg = hub.wait_frame(last, 2.0)
        grabbed.append((1_000_000 + len(grabbed), jpeg))
    first = grabbed[0][0]
    claims = [{"player": "P3", "touch": first + 4}, {"player": "P1", "touch": first + 6}]
    ev = Event("dispute", first + 8, {"pile": "T7", "card": "blue-4", "claims": claims, "winner": "P3",
                                      "clip": "test-dispute-T7"})
    save_clip(panel.clips / "test-dispute-T7", ev, grabbed, 15.0)
    hub.publish([ev])
    page.click("nav a[data-tab=disputes]")
    link = page.locator("#disputes a", has_text="Pile T7")
    link.wait_for()
    link.click()
    page.wait_for_function("document.querySelector('#replay-img').naturalWidth > 0")
    verdict = page.inner_text("#replay-verdict")
    assert "P3's card touched first, 2 frames" in verdict and "P1 takes theirs back" in verdict
    assert page.eval_on_selector("#replay-slider", "s => +s.max") == 11
    assert page.locator(".tick").all_inner_texts() == ["▲ P3", "▲ P1"]
    for _ in range(4):
        page.click("#replay-next")
    assert page.inner_text("#replay-mark") == "P3's card touches (first)"  # frame first+4
    page.click("#replay-next")
    assert page.locator("#replay-mark").is_hidden()
    page.click("#replay-next")
    assert page.inner_text("#replay-mark") == "P1's card touches"
    assert page.eval_on_selector("#replay-speed", "s => s.value") == "0.25"  # slowed down unless asked
    page.click("#replay-play")
    page.wait_for_function("document.querySelector('#replay-info').textContent.startsWith('frame 1000011 ')",
                           timeout=15_000)


def test_a_finished_round_updates_the_scoreboard(page, server):
    hub, keeper = server.panel.hub, server.panel.keeper
    page.click("nav a[data-tab=scores]")
    before = keeper.snapshot()["match"]
    n = len(before["rounds"])
    scores = {"P1": 17, "P2": -13, "P3": 5, "P4": 2}
    hub.publish(counts(hub.events[-1].frame + 1, scores))
    page.wait_for_function(f"[...document.querySelectorAll('#board thead th')].some(th => th.textContent === 'R{n + 1}')")
    for p, s in scores.items():
        row = page.locator(f"#board tbody tr[data-player={p}]")
        cells = row.locator("td").all_inner_texts()
        assert int(cells[1]) == before["totals"][p] + s  # Player, Total, trend, newest round first
        assert cells[3] == f"{s:+d}"
    assert page.inner_text("#round-label").startswith(f"Round {n + 2}")


def test_setup_and_stats_pages_show_what_is_stored(page, server):
    page.click("nav a[data-tab=setup]")
    page.wait_for_function("document.querySelector('#calib-state').textContent === 'ok'")
    assert page.eval_on_selector("#qr", "q => q.naturalWidth") > 0
    assert page.locator("#pin-first").is_visible() == (server.panel.store.setting("pin") is None)
    page.wait_for_function("document.querySelector('#calib-img').naturalWidth > 0")
    page.click("nav a[data-tab=stats]")
    page.wait_for_function("document.querySelectorAll('#stats-match tbody tr').length >= 4")


def test_the_pin_form_and_a_correction_from_the_panel(page, server):
    store = server.panel.store
    page.click("nav a[data-tab=setup]")
    if store.setting("pin") is None:
        page.fill("#pin-first input[name=pin]", "1357")
        page.click("#pin-first button")
        page.wait_for_function("document.querySelector('#pin-first').hidden")
    assert store.setting("pin") is not None
    if not store.rounds(server.panel.keeper.match_row["id"]):
        server.panel.hub.publish(counts(server.panel.hub.events[-1].frame + 1, {"P1": 1, "P2": 1, "P3": 1, "P4": 1}))
    page.click("nav a[data-tab=scores]")
    page.locator(".round-link").first.click()
    page.fill("#correct input[name=s-P4]", "42")
    page.fill("#correct input[name=who]", "Dora")
    page.fill("#correct input[name=note]", "recount")
    page.click("#correct button[type=submit]")
    page.wait_for_function("[...document.querySelectorAll('#changes li')].some(li => li.textContent.includes('Dora'))")
    first = store.rounds(server.panel.keeper.match_row["id"])[0]
    assert first["scores"]["P4"] == 42 and first["corrected"]
