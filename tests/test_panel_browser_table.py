"""The panel at a real table (issue 21), as a person sees it: Debian's headless chromium via Playwright.

The connection lost and found again, the PIN asked for where a change is made, names in any script,
the change log on a phone, reasons in words and the alert, the zoomed dispute replay, /docs with no
internet, sound, vibration, a screen kept awake and dark mode. The simulated table runs without
mistakes, so every illegal play here is one the test publishes.
"""
from __future__ import annotations

import time

import cv2
import numpy as np
import pytest

from ligretto_vision.events import Event
from ligretto_vision.live.clips import save_clip
from ligretto_vision.live.sim_feed import SimFeed
from ligretto_vision.panel.pin import hash_pin
from panel_support import (PHONE, PIN, ThreadedServer, browser, counts, free_port, make_test_panel,  # noqa: F401
                           open_page, play)

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("panel-table")
    panel = make_test_panel(tmp, players=4)
    panel.feed = SimFeed(players=4, seed=11, mistakes=0.0, clips=panel.clips, names=panel.settings.video_names)
    panel.store.set_setting("pin", hash_pin(PIN), "test", log_values=False)
    with ThreadedServer(panel) as srv:
        yield srv
    panel.store.close()


@pytest.fixture
def page(browser, server):
    server.panel.pins = type(server.panel.pins)()  # each test starts with no wrong PIN counted against this address
    errors: list[str] = []
    ctx, pg = open_page(browser, server.url, errors)
    yield pg
    ctx.close()
    assert not errors, f"the page raised: {errors}"


def next_frame(hub) -> int:
    return hub.events[-1].frame + 1 if hub.events else 1


def jpeg(width: int, height: int, colour=(40, 90, 40)) -> bytes:
    ok, buf = cv2.imencode(".jpg", np.full((height, width, 3), colour, np.uint8))
    return buf.tobytes()


# ---- the connection lost and found again ---------------------------------------------------------------------
def test_the_page_says_when_the_connection_is_lost_and_comes_back_by_itself(browser, tmp_path):
    port, errors = free_port(), []

    def start(width: int) -> ThreadedServer:  # the same table (database, port) each time, as a restart
        panel = make_test_panel(tmp_path, players=2, port=port)
        panel.hub.publish_frame(jpeg(width, width // 2))
        return ThreadedServer(panel).__enter__()
    first = start(320)
    ctx, pg = open_page(browser, first.url, errors)
    try:
        pg.wait_for_function("document.querySelector('#video').naturalWidth === 320", timeout=10_000)
        assert pg.locator("#offline").is_hidden()
        first.__exit__(None, None, None)
        first.panel.store.close()
        pg.wait_for_selector("#offline", state="visible", timeout=10_000)
        assert "Connection lost" in pg.inner_text("#offline") and "reconnecting" in pg.inner_text("#offline")
        assert float(pg.eval_on_selector("main", "m => getComputedStyle(m).opacity")) < 0.6  # stale: greyed out
        assert pg.eval_on_selector("#tally", "t => getComputedStyle(t.closest('main')).filter") != "none"
        second = start(480)  # the server is back, with a different picture: the video must be the new one
        try:
            pg.wait_for_selector("#offline", state="hidden", timeout=20_000)
            pg.wait_for_function("document.querySelector('#video').naturalWidth === 480", timeout=20_000)
            assert float(pg.eval_on_selector("main", "m => getComputedStyle(m).opacity")) == 1.0
        finally:
            second.__exit__(None, None, None)
            second.panel.store.close()
    finally:
        ctx.close()
    assert not errors, errors


# ---- the PIN where the change is made; names in any script -------------------------------------------------
def test_the_pin_is_asked_for_where_the_change_is_made(page, server):
    panel, hub = server.panel, server.panel.hub
    hub.publish(counts(next_frame(hub), {"P1": 3, "P2": 1, "P3": 0, "P4": -2}))
    page.click("nav a[data-tab=scores]")
    link = page.locator(".round-link").first  # the newest round
    link.wait_for()
    rid = int(link.get_attribute("data-round"))
    link.click()
    form = page.locator("#correct")
    assert form.locator("input[name=pin]").is_visible()  # asked here, not on another page
    assert "PIN" in form.inner_text()
    page.fill("#correct input[name=s-P4]", "9")
    page.fill("#correct input[name=who]", "Dora")
    page.fill("#correct input[name=pin]", "0000")
    page.click("#correct button[type=submit]")
    msg = page.locator("#correct .form-msg")
    msg.wait_for(state="visible")
    assert msg.inner_text() == "That PIN is wrong: check it and enter it in this form again."
    page.fill("#correct input[name=pin]", PIN)
    page.click("#correct button[type=submit]")
    form.wait_for(state="hidden")
    corrected = panel.store.round(rid)
    assert corrected["scores"]["P4"] == 9 and corrected["corrected"]

    page.evaluate("sessionStorage.clear()")  # another phone: nobody typed the PIN on it yet
    before = panel.keeper.match_row["id"]
    page.click("#new-match")
    nm = page.locator("#new-match-form")
    nm.wait_for(state="visible")
    assert f"Match {before} ends now" in nm.inner_text() and nm.locator("input[name=pin]").input_value() == ""
    page.fill("#new-match-form input[name=pin]", "1111")
    page.click("#new-match-form button[type=submit]")
    page.locator("#new-match-form .form-msg").wait_for(state="visible")
    assert "PIN is wrong" in page.inner_text("#new-match-form .form-msg")
    assert panel.keeper.match_row["id"] == before
    page.fill("#new-match-form input[name=pin]", PIN)
    page.click("#new-match-form button[type=submit]")
    nm.wait_for(state="hidden")
    assert panel.keeper.match_row["id"] != before
    assert "X-Table-PIN" not in page.content() and "header" not in page.inner_text("body")


def test_names_in_any_script_save_from_the_set_up_page(page, server):
    store = server.panel.store
    page.click("nav a[data-tab=setup]")
    page.locator("#player-fields input[name=name-P1]").wait_for()
    page.fill("#unlock input[name=pin]", PIN)
    page.fill("#unlock input[name=who]", "Łukasz")  # a header cannot carry it as it is: the page encodes it
    page.fill("#player-fields input[name=name-P1]", "Zoë 🎲")
    page.fill("#player-fields input[name=name-P2]", "李雷")
    page.click("#players button[type=submit]")
    page.wait_for_function("document.querySelector('#toast').textContent === 'Players saved'")
    assert server.panel.settings.names()["P1"] == "Zoë 🎲" and server.panel.settings.names()["P2"] == "李雷"
    assert store.changes()[0]["who"] == "Łukasz"
    page.click("nav a[data-tab=live]")
    page.wait_for_function("document.querySelector('#tally tbody tr[data-player=P1] td').textContent === 'Zoë 🎲'")
    # a name with a direction override is refused, in words, and nothing is lost. The tab reloads its
    # fields from the server when opened: emptied first, the field waited for is the reloaded one, not
    # the old one that the reload would overwrite after it is typed into
    page.evaluate("document.querySelector('#player-fields').innerHTML = ''")
    page.click("nav a[data-tab=setup]")
    page.locator("#player-fields input[name=name-P3]").wait_for()
    page.fill("#player-fields input[name=name-P3]", "Cleo\u202e99")
    page.click("#players button[type=submit]")
    page.wait_for_function("document.querySelector('#toast').textContent.includes('direction control character')")
    assert server.panel.settings.names()["P3"] == "P3"


def test_the_change_log_reads_as_sentences_and_fits_a_phone(page, server):
    panel, hub = server.panel, server.panel.hub
    hub.publish(counts(next_frame(hub), {"P1": 1, "P2": 2, "P3": 3, "P4": 4}))
    deadline = time.monotonic() + 10
    while not panel.store.rounds(panel.keeper.match_row["id"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    rid = panel.store.rounds(panel.keeper.match_row["id"])[-1]["id"]
    page.evaluate(f"sessionStorage.setItem('pin', '{PIN}'); sessionStorage.setItem('who', 'Anna')")
    page.evaluate("fetch('/api/settings/match', {method: 'PUT', headers: {'Content-Type': 'application/json', "
                  f"'X-Table-PIN': '{PIN}', 'X-Who': 'Anna'}}, body: JSON.stringify({{goal: 'target', value: 300}})}})")
    page.evaluate(f"fetch('/api/rounds/{rid}', {{method: 'PUT', headers: {{'Content-Type': 'application/json', "
                  f"'X-Table-PIN': '{PIN}'}}, body: JSON.stringify({{scores: {{P2: 5}}, who: 'Ben', "
                  f"note: '{'x' * 150}'}})}})")
    page.click("nav a[data-tab=scores]")
    page.wait_for_function("[...document.querySelectorAll('#changes li')].some(li => "
                           "li.textContent.includes('Anna changed the goal from 99 to 300 points'))")
    page.wait_for_function("[...document.querySelectorAll('#changes li')].some(li => li.textContent.includes('Ben corrected round'))")
    text = page.inner_text("#changes")
    assert "{" not in text and "match_goal" not in text
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # long notes wrap
    widest = page.evaluate("Math.max(...[...document.querySelectorAll('#changes li')].map(li => li.getBoundingClientRect().right))")
    assert widest <= PHONE["width"]


# ---- reasons in words; the alert -------------------------------------------------------------------------------
def test_reasons_in_words_and_an_alert_that_can_be_dismissed_and_stays_on_live(page, server):
    hub = server.panel.hub
    page.wait_for_function("document.querySelector('#conn').classList.contains('on')")
    f = next_frame(hub)
    hub.publish([play(f, "P1", "red-1", "T31"), play(f + 1, "P2", "red-3", "T31", legal=False, reason="wrong-number")])
    page.wait_for_function("[...document.querySelectorAll('#plays li')].some(li => li.dataset.card === 'red-3')")
    item = page.locator("#plays li[data-card='red-3']").first.inner_text()
    assert "not one higher" in item and "wrong-number" not in item
    alert = page.locator("#alert")
    alert.wait_for(state="visible")
    assert "needs red-2" in alert.inner_text()
    page.click("#alert-close")
    assert alert.is_hidden()
    hub.publish([play(f + 2, "P3", "green-5", "T31", legal=False, reason="wrong-colour")])
    page.wait_for_function("document.querySelector('#alert-text').textContent.includes('green-5')")
    assert alert.is_visible()
    page.click("nav a[data-tab=scores]")
    page.wait_for_function("document.body.dataset.tab === 'scores'")  # the tab changes on hashchange, after the click
    assert alert.is_hidden()  # about the live round: on Live only
    hub.publish([play(f + 3, "P4", "blue-7", "T31", legal=False, reason="wrong-colour")])
    page.wait_for_function("document.querySelector('#alert-text').textContent.includes('blue-7')")
    assert alert.is_hidden()
    page.click("nav a[data-tab=live]")
    page.wait_for_function("document.body.dataset.tab === 'live'")
    assert alert.is_visible()


# ---- the dispute replay, zoomed on the pile --------------------------------------------------------------------
def test_the_dispute_replay_zooms_on_the_pile_and_its_markers_do_not_overlap(page, server):
    panel, hub = server.panel, server.panel.hub
    grabbed, last = [], 0
    while len(grabbed) < 12:
        last, frame = hub.wait_frame(last, 2.0)
        grabbed.append((2_000_000 + len(grabbed), frame))
    first = grabbed[0][0]
    claims = [{"player": "P3", "touch": first + 5}, {"player": "P4", "touch": first + 6}]  # a frame apart
    ev = Event("dispute", first + 7, {"pile": "T8", "card": "blue-4", "claims": claims, "winner": "P3",
                                      "clip": "zoom-dispute-T8"})
    save_clip(panel.clips / "zoom-dispute-T8", ev, grabbed, 15.0)
    hub.publish([play(first + 5, "P3", "blue-4", "T8", at=[650.0, 380.0, 0.0]),
                 play(first + 7, "P4", "blue-4", "T8", at=[655.0, 384.0, 90.0]), ev])
    page.click("nav a[data-tab=disputes]")
    page.locator("#disputes a", has_text="Pile T8").click()
    page.wait_for_function("document.querySelector('#replay-img').naturalWidth > 0")
    page.wait_for_function("document.querySelector('#replay-frame').classList.contains('zoomed')")
    box = page.eval_on_selector("#replay-frame", "e => e.getBoundingClientRect().toJSON()")
    img = page.eval_on_selector("#replay-img", "e => e.getBoundingClientRect().toJSON()")
    assert img["width"] > 2.5 * box["width"]  # zoomed in
    cx, cy = img["x"] + img["width"] * 650 / 1300, img["y"] + img["height"] * 380 / 760  # the pile on the picture
    assert box["x"] < cx < box["x"] + box["width"] and box["y"] < cy < box["y"] + box["height"]
    for _ in range(5):
        page.click("#replay-next")
    mark = page.eval_on_selector("#replay-mark", "e => e.getBoundingClientRect().toJSON()")
    assert page.inner_text("#replay-mark").startswith("P3's card touches") and mark["y"] >= box["y"] + box["height"]
    ticks = page.eval_on_selector_all(".tick", "ts => ts.map(t => t.getBoundingClientRect().toJSON())")
    assert len(ticks) == 2
    a, b = ticks
    overlap = min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0 and \
        min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0
    assert not overlap, ticks
    assert all(t["right"] <= PHONE["width"] for t in ticks)
    page.click("#replay-zoom")  # the whole table, on request
    whole = page.eval_on_selector("#replay-img", "e => e.getBoundingClientRect().toJSON()")
    assert abs(whole["width"] - box["width"]) < 2


# ---- /docs with no internet; the icon --------------------------------------------------------------------------
def test_the_api_docs_work_with_no_internet_and_the_page_has_an_icon(browser, server):
    ctx = browser.new_context()
    outside, failed = [], []

    def only_the_table(route):
        if route.request.url.startswith(server.url):
            route.continue_()
        else:  # a table with no internet
            outside.append(route.request.url)
            route.abort()
    ctx.route("**/*", only_the_table)
    pg = ctx.new_page()
    pg.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    pg.goto(server.url + "/docs")
    pg.wait_for_selector(".swagger-ui .info .title", timeout=20_000)
    assert "Ligretto table panel" in pg.inner_text(".swagger-ui .info .title")
    pg.wait_for_selector(".opblock-summary-path[data-path='/api/state']")
    pg.goto(server.url + "/")
    pg.wait_for_function("document.querySelector('#round-label').textContent.startsWith('Round ')")
    icon = pg.eval_on_selector("link[rel=icon]", "l => l.href")
    fetch_ok = "u => fetch(u, {cache: 'no-store'}).then(r => r.ok && r.headers.get('content-type').startsWith('image/'))"
    assert pg.evaluate(fetch_ok, icon)
    ico = pg.request.get(server.url + "/favicon.ico")  # (routed pages cannot fetch /favicon.ico themselves)
    assert ico.ok and ico.headers["content-type"] == "image/png"
    ctx.close()
    assert not outside, outside
    assert not failed, failed


# ---- sound, vibration, the screen kept awake, dark mode ----------------------------------------------------------
CUES = """
window.__cues = {osc: [], vib: [], wake: 0};
const makeOsc = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
  const o = makeOsc.call(this), start = o.start.bind(o);
  o.start = (t) => { window.__cues.osc.push(o.frequency.value); return start(t); };
  return o;
};
navigator.vibrate = (p) => { window.__cues.vib.push(p); return true; };
Object.defineProperty(navigator, "wakeLock", {configurable: true, value: {request: async (kind) => {
  window.__cues.wake += 1; return {release: async () => {}, addEventListener() {}}; }}});
"""


def test_sound_vibration_a_screen_kept_awake_and_dark_mode_on_request(browser, server):
    hub, errors = server.panel.hub, []
    ctx = browser.new_context(viewport=PHONE, color_scheme="dark")
    ctx.add_init_script(CUES)
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(server.url + "/")
    pg.wait_for_function("document.querySelector('#conn').classList.contains('on')")
    bg = lambda: pg.evaluate("getComputedStyle(document.body).backgroundColor")  # noqa: E731
    assert bg() == "rgb(18, 21, 18)"  # the phone is set to dark: so is the panel
    # off unless asked: an illegal play makes no sound
    hub.publish([play(next_frame(hub), "P2", "pink-9", "T41", legal=False, reason="wrong-colour")])
    pg.wait_for_function("document.querySelector('#alert-text').textContent.includes('pink-9')")
    assert pg.evaluate("window.__cues.osc.length + window.__cues.vib.length") == 0
    pg.click("nav a[data-tab=setup]")
    for name in ("sound", "vibrate", "awake"):
        pg.check(f"#phone input[name={name}]")
    pg.wait_for_function("window.__cues.wake === 1")
    assert "stays on" in pg.inner_text("#awake-state")
    pg.select_option("#phone select[name=theme]", "light")
    assert bg() == "rgb(246, 245, 240)"
    pg.select_option("#phone select[name=theme]", "dark")
    assert bg() == "rgb(18, 21, 18)"
    pg.evaluate("window.__cues.osc = []; window.__cues.vib = []")
    pg.click("nav a[data-tab=live]")
    hub.publish([play(next_frame(hub), "P3", "pink-8", "T41", legal=False, reason="wrong-colour")])
    # (the simulated table's own round may end meanwhile and cue too: look for each cue, not a count)
    pg.wait_for_function("window.__cues.osc.includes(880) && window.__cues.vib.some(v => v.length === 3)")
    assert [250, 100, 250] in pg.evaluate("window.__cues.vib")
    pg.evaluate("window.__cues.osc = []; window.__cues.vib = []")
    hub.publish(counts(next_frame(hub), {"P1": 0, "P2": 0, "P3": 0, "P4": 0}))  # the round ends
    pg.wait_for_function("window.__cues.osc.includes(523) && window.__cues.vib.some(v => v.length === 1)")
    assert [120] in pg.evaluate("window.__cues.vib")
    pg.reload()  # the choices are this phone's: kept
    pg.wait_for_function("document.querySelector('#conn').classList.contains('on')")
    assert bg() == "rgb(18, 21, 18)"
    assert pg.evaluate("window.__cues.wake") == 1
    ctx.close()
    assert not errors, errors


def test_without_the_wake_lock_a_silent_video_keeps_the_screen_on(browser, server):
    errors: list[str] = []
    ctx = browser.new_context(viewport=PHONE)
    ctx.add_init_script("delete Navigator.prototype.wakeLock;")  # as on a phone opening the panel over plain http
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(server.url + "/#setup")
    pg.check("#phone input[name=awake]")
    pg.wait_for_function("document.querySelector('.wake-video') && !document.querySelector('.wake-video').paused")
    assert "silent video" in pg.inner_text("#awake-state")
    pg.uncheck("#phone input[name=awake]")
    assert pg.evaluate("document.querySelector('.wake-video')") is None
    ctx.close()
    assert not errors, errors
