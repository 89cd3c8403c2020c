"""The panel without a browser: match keeping, the store, PIN, corrections, bad requests, clips, the sim feed."""
from __future__ import annotations

import json
import sqlite3
import threading
import time


from ligretto_vision.events import Event, amendment
from ligretto_vision.live.clips import ClipRecorder
from ligretto_vision.live.sim_feed import SimFeed
from ligretto_vision.live import LiveHub
from ligretto_vision.panel.keeper import player_stats, trends
from ligretto_vision.rules import Match, MatchGoal, RuleOptions
from ligretto_vision.rules.scoring import round_score
from panel_support import PIN, client, counts, make_test_panel, panel, play, settle, unlock  # noqa: F401 (fixtures)


# ---- keeping the match -----------------------------------------------------------------------------------
def test_tallies_alert_and_a_dispute_count_per_player(panel):
    hub = panel.hub
    hub.set_status(fps=10)
    hub.publish([play(10, "P1", "red-1", 1), play(30, "P2", "red-2", 1), play(40, "P3", "blue-5", 1, False, "wrong-colour")])
    hub.publish([play(50, "P1", "red-3", 1, touch=48), play(52, "P3", "red-3", 1, touch=47),
                 Event("dispute", 52, {"pile": 1, "card": "red-3", "winner": "P3",
                                       "claims": [{"player": "P1", "touch": 48}, {"player": "P3", "touch": 47}]}),
                 Event("takeback", 60, {"player": "P1", "card": "red-3", "pile": 1})])
    settle(panel)
    snap = panel.keeper.snapshot()
    t = snap["round"]["tallies"]
    assert (t["P1"]["laid"], t["P2"]["laid"], t["P3"]["laid"]) == (1, 1, 1)  # P1's red-3 lost the dispute and left
    assert t["P3"]["illegal"] == 1 and t["P3"]["disputes_won"] == 1 and t["P1"]["disputes"] == 1
    assert snap["alert"]["card"] == "blue-5" and "pile 1 is red" in snap["alert"]["why"]
    assert panel.store.disputes()[0]["winner"] == "P3"
    # P2's red-2 landed 2 s after pile 1 opened (frame 10 -> 30 at 10 fps)
    assert panel.keeper.live.tallies["P2"].open_to_land == [2.0]


def test_a_play_amended_to_after_stop_when_the_round_end_comes_is_no_longer_counted(panel):
    late = play(40, "P2", "red-2", 1)
    panel.hub.publish([play(10, "P1", "red-1", 1), late])
    panel.hub.publish([Event("round_end", 20, {"player": "P3"}),
                       amendment(late, legal=False, reason="after-stop")])  # as the rules send it
    settle(panel)
    snap = panel.keeper.snapshot()
    t = snap["round"]["tallies"]
    assert (t["P1"]["laid"], t["P2"]["laid"], t["P2"]["illegal"]) == (1, 0, 1)
    shown = [p for p in snap["round"]["plays"] if p["card"] == "red-2"]
    assert shown and not shown[0]["legal"] and shown[0]["reason"] == "after-stop"
    assert shown[0]["said"] == "after the stop" and "Ligretto Stop!" in shown[0]["why"]
    assert late.data["legal"] is True  # the event published stays as it was


def test_a_call_of_illegal_amended_to_unsure_is_no_longer_an_alert_but_a_card_to_check(panel):
    """The card called illegal stayed on its pile (nobody took it back): the rules amend the call to
    unsure; the panel counts the card as laid, drops the alert and asks to check it instead."""
    wrong = play(40, "P2", "red-4", 1, False, "wrong-number")
    panel.hub.publish([play(10, "P1", "red-1", 1), wrong])
    settle(panel)
    assert panel.keeper.snapshot()["alert"]["card"] == "red-4"
    panel.hub.publish([amendment(wrong, legal=None, reason=None, unsure=True, unsure_of="left-lying")])
    settle(panel)
    snap = panel.keeper.snapshot()
    tally = snap["round"]["tallies"]["P2"]
    assert (tally["laid"], tally["illegal"]) == (1, 0)
    assert snap["alert"] is None and snap["check"]["card"] == "red-4" and "nobody took it back" in snap["check"]["why"]
    shown = [p for p in snap["round"]["plays"] if p["card"] == "red-4"][0]
    assert shown["legal"] is None and shown["unsure"] and shown["reason"] is None and not shown.get("said")


def test_an_amendment_of_a_card_taken_back_or_of_no_play_changes_nothing(panel):
    taken = play(10, "P1", "red-1", 1)
    closed = Event("pile_closed", 12, {"pile": 1})
    panel.hub.publish([taken, Event("takeback", 11, {"player": "P1", "card": "red-1", "pile": 1}), closed,
                       amendment(taken, legal=False, reason="after-stop"), amendment(closed, why_withdrawn="after-stop")])
    settle(panel)
    t = panel.keeper.snapshot()["round"]["tallies"]["P1"]
    assert (t["laid"], t["illegal"]) == (0, 0)


def test_a_round_is_scored_with_the_rules_and_kept(panel):
    hub = panel.hub
    hub.publish([play(5, "P1", "red-1", 1), play(9, "P2", "blue-7", 1, False, "wrong-colour")])
    # no `score` in these counts: the keeper asks rules.scoring (illegal penalty from the options)
    panel.keeper.rules = lambda: RuleOptions(illegal_penalty=1, stack_penalty=3)
    hub.publish([Event("count", 99, {"player": "P1", "centre": 8, "stack": 2}),
                 Event("count", 99, {"player": "P2", "centre": 5, "stack": 0}),
                 Event("count", 99, {"player": "P3", "centre": 3, "stack": 4})])
    settle(panel)
    opts = RuleOptions(illegal_penalty=1, stack_penalty=3)
    want = {"P1": round_score(8, 2, opts), "P2": round_score(5, 0, opts, illegal=1), "P3": round_score(3, 4, opts)}
    assert want == {"P1": 2, "P2": 4, "P3": -9}
    rounds = panel.store.rounds(panel.keeper.match_row["id"])
    assert [r["scores"] for r in rounds] == [want]
    snap = panel.keeper.snapshot()
    assert snap["round"]["no"] == 2 and snap["match"]["totals"] == want
    assert snap["round"]["tallies"]["P2"]["illegal"] == 0  # a new round starts from nothing


def test_the_match_ends_at_its_goal_and_a_new_one_starts(tmp_path):
    panel = make_test_panel(tmp_path, players=2, goal="rounds", value=2)
    first = panel.keeper.match_row["id"]
    panel.hub.publish(counts(10, {"P1": 5, "P2": 3}))
    settle(panel)
    panel.hub.publish(counts(20, {"P1": -2, "P2": 9}))
    settle(panel)
    done = panel.store.match(first)
    assert done["ended_at"] is not None and done["winners"] == ["P2"]  # 3 vs 12
    assert panel.keeper.match_row["id"] != first and panel.keeper.snapshot()["round"]["no"] == 1


def test_trend_arrows_follow_places_not_points():
    m = Match(["A", "B", "C"], MatchGoal("endless"))
    m.add_round({"A": 10, "B": 5, "C": 0})
    m.add_round({"A": 0, "B": 8, "C": 1})  # B passes A
    assert trends(m) == {"A": "down", "B": "up", "C": "same"}


def test_player_stats_add_up_rounds():
    r = {"scores": {"P1": 4}, "stats": {"minutes": 2.0, "players": {"P1": {
        "laid": 10, "illegal": 1, "disputes": 2, "disputes_won": 1, "open_to_land": [1.0, 3.0]}}}}
    s = player_stats([r, r])["P1"]
    assert s["cards_per_minute"] == 5.0 and s["open_to_land_s"] == 2.0
    assert (s["illegal"], s["disputes_won"], s["points"], s["rounds"]) == (2, 2, 8, 2)


# ---- PIN and changes ------------------------------------------------------------------------------------------
def test_changes_need_the_pin_and_the_pin_is_stored_hashed(client, panel):
    body = {"goal": "rounds", "value": 5}
    r = client.put("/api/settings/match", json=body)
    assert r.status_code == 409 and "no PIN yet" in r.json()["detail"]
    headers = unlock(client)
    assert client.post("/api/pin", json={"pin": "1111"}).status_code == 401  # taking over needs the current PIN
    r = client.put("/api/settings/match", json=body)
    assert r.status_code == 401 and r.json()["detail"] == "this change needs the table's PIN"
    r = client.put("/api/settings/match", json=body, headers={"X-Table-PIN": "0000"})
    assert r.status_code == 403 and r.json()["detail"] == "wrong PIN"
    assert client.put("/api/settings/match", json=body, headers=headers).status_code == 200
    assert client.get("/api/settings").json()["match_goal"] == {"kind": "rounds", "value": 5}
    assert panel.keeper.match.goal == MatchGoal("rounds", 5)
    raw = panel.store.path.read_bytes() + b"".join(p.read_bytes() for p in panel.store.path.parent.glob("*.db-wal"))
    assert PIN.encode() not in raw and "hash" in panel.store.setting("pin")
    assert panel.store.changes()[0]["who"] == "Anna"


def test_guessing_the_pin_is_stopped(client):
    unlock(client)
    codes = [client.put("/api/settings/match", json={"goal": "endless"}, headers={"X-Table-PIN": f"{i:04d}"}).status_code
             for i in range(7)]
    assert codes[:5] == [403] * 5 and codes[5:] == [429, 429]
    r = client.put("/api/settings/match", json={"goal": "endless"}, headers={"X-Table-PIN": PIN})
    assert r.status_code == 429 and "try again" in r.json()["detail"]  # even the right PIN waits


def test_a_round_correction_changes_totals_and_is_logged(client, panel):
    headers = unlock(client)
    panel.hub.publish(counts(50, {"P1": 4, "P2": -2, "P3": 7}))
    settle(panel)
    rid = panel.store.rounds()[0]["id"]
    r = client.put(f"/api/rounds/{rid}", json={"scores": {"P2": 6}, "who": "Ben", "note": "miscounted"},
                   headers=headers)
    assert r.status_code == 200 and r.json()["scores"] == {"P1": 4, "P2": 6, "P3": 7} and r.json()["corrected"]
    assert client.get("/api/state").json()["match"]["totals"]["P2"] == 6
    change = client.get("/api/changes").json()[0]
    assert change["who"] == "Ben" and change["before"]["P2"] == -2 and change["after"]["P2"] == 6
    assert change["note"] == "miscounted" and change["at"] > 0
    r = client.put(f"/api/rounds/{rid}", json={"scores": {"P9": 1}, "who": "Ben"}, headers=headers)
    assert r.status_code == 422 and "P9" in r.json()["detail"]
    assert client.put("/api/rounds/999", json={"scores": {"P1": 1}, "who": "Ben"}, headers=headers).status_code == 404


def test_rules_are_validated_by_rule_options_and_used_next_round(client, panel):
    headers = unlock(client)
    r = client.put("/api/settings/rules", json={"edition": "dutch", "options": {"grace_s": 99}}, headers=headers)
    assert r.status_code == 422 and "grace_s" in r.json()["detail"]
    r = client.put("/api/settings/rules", json={"options": {"profi": True, "colour": "red"}}, headers=headers)
    assert r.status_code == 422 and "colour" in r.json()["detail"]
    good = {"edition": "dutch", "options": {"ten": "face-down", "stack_penalty": 3, "ten_points": 2, "handicap": True}}
    assert client.put("/api/settings/rules", json=good, headers=headers).status_code == 200
    assert panel.settings.rules() == RuleOptions(ten="face-down", stack_penalty=3, ten_points=2, handicap=True)
    assert panel.settings.edition() == "dutch"


def test_players_are_kept_and_no_calibration_is_asked_for(client, panel):
    headers = unlock(client)
    players = [{"id": "P1", "name": "Anna", "seat": "south"}, {"id": "P2", "name": " Ben  B ", "seat": "north"},
               {"id": "P3", "name": "Cleo", "seat": "west"}]
    assert client.put("/api/settings/players", json={"players": players}, headers=headers).status_code == 200
    assert client.get("/api/state").json()["players"][1]["name"] == "Ben B"
    r = client.put("/api/settings/players", json={"players": players[:2]}, headers=headers)
    assert r.status_code == 422 and "P3" in r.json()["detail"]
    # the referee calibrates itself from the table's markers: nothing to store by hand
    cal = {"table_mm": [1200, 800], "markers": {"0": [30, 30]}, "note": "new tape"}
    assert client.put("/api/calibration", json=cal, headers=headers).status_code in (404, 405)
    assert "calibration" not in client.get("/api/settings").json()


# ---- bad requests -----------------------------------------------------------------------------------------------
def test_bad_requests_get_a_clear_4xx_and_the_panel_keeps_working(client):
    headers = {**unlock(client), "Content-Type": "application/json"}
    r = client.put("/api/settings/match", content=b'{"goal": "rounds", ', headers=headers)
    assert r.status_code == 422 and r.json()["detail"] == "the request body is not valid JSON"
    r = client.put("/api/settings/match", content=b"x" * 200_000, headers=headers)
    assert r.status_code == 413 and "too large" in r.json()["detail"]
    r = client.put("/api/settings/match", json={"goal": "forever"}, headers=headers)
    assert r.status_code == 422 and r.json()["detail"].startswith("goal:")
    r = client.put("/api/settings/match", headers=headers)
    assert r.status_code == 422 and "JSON body" in r.json()["detail"]
    assert client.get("/api/nothing-here").status_code == 404
    assert client.delete("/api/state").status_code == 405
    assert client.get("/clips/..%2F..%2Fetc/passwd").status_code in (400, 404)
    assert client.get("/api/disputes/12345").json()["detail"] == "no dispute 12345"
    assert client.get("/api/state").status_code == 200


def test_export_qr_and_openapi(client, panel):
    panel.hub.publish(counts(50, {"P1": 4, "P2": -2, "P3": 7}))
    settle(panel)
    csv_text = client.get("/api/export.csv").text.splitlines()
    assert csv_text[0].startswith("\ufeffmatch,round,ended_at,player") and len(csv_text) == 4
    assert any(line.endswith(",P2,P2,-2,-2,2,2,no") for line in csv_text)
    svg = client.get("/api/qr.svg")
    assert svg.headers["content-type"] == "image/svg+xml" and b"<svg" in svg.content
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/state", "/api/events", "/api/rounds/{round_id}", "/api/settings/rules"} <= set(paths)


# ---- clips and the simulated feed -------------------------------------------------------------------------------
def test_a_dispute_clip_holds_the_frames_around_both_touches(tmp_path):
    rec = ClipRecorder(tmp_path, fps=10, keep_s=3, before_s=0.5, after_s=0.3)
    ev = Event("dispute", 20, {"pile": 2, "card": "red-4", "winner": "P1", "clip": "c1",
                               "claims": [{"player": "P1", "touch": 16}, {"player": "P2", "touch": 18}]})
    for f in range(0, 20):
        rec.add_frame(f, b"jpeg%d" % f)
    rec.on_event(ev)
    for f in range(20, 30):
        rec.add_frame(f, b"jpeg%d" % f)
    meta = json.loads((tmp_path / "c1" / "clip.json").read_text())
    frames = [f["frame"] for f in meta["frames"]]
    assert frames[0] == 11 and frames[-1] == 23 and 16 in frames and 18 in frames
    assert (tmp_path / "c1" / "00000016.jpg").read_bytes() == b"jpeg16" and meta["winner"] == "P1"


def test_the_sim_feed_plays_round_after_round_on_one_clock(tmp_path):
    hub, stop = LiveHub(), threading.Event()
    feed = SimFeed(players=2, seed=3, speed=400, clips=tmp_path / "clips", max_render_fps=30)
    t = threading.Thread(target=feed.run, args=(hub, stop))
    t.start()
    deadline = time.monotonic() + 60
    while sum(e.type == "count" for e in hub.events_since(0)) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    t.join(timeout=10)
    evs = hub.events_since(0)
    frames = [e.frame for e in evs]
    assert frames == sorted(frames) and sum(e.type == "count" for e in evs) >= 4
    assert hub.status["round"] >= 2 and hub.wait_frame(0, 0)[1][:2] == b"\xff\xd8"  # a JPEG
    for d in (e for e in evs if e.type == "dispute"):  # touches are on the same clock as the frames
        assert all(d.frame - 30 <= c["touch"] <= d.frame for c in d.get("claims"))


def test_the_store_survives_reopening(tmp_path):
    panel = make_test_panel(tmp_path, players=2)
    panel.hub.publish(counts(10, {"P1": 5, "P2": 3}))
    settle(panel)
    panel.store.close()
    again = make_test_panel(tmp_path, players=2)
    assert again.keeper.match.totals() == {"P1": 5, "P2": 3} and again.keeper.snapshot()["round"]["no"] == 2
    mode = sqlite3.connect(tmp_path / "table.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
