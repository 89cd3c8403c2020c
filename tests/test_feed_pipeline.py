"""PipelineFeed: the real referee's events and pictures reach the live hub (and the scoreboard).

These test what the feed guarantees, not how well the referee sees: every event list the
pipeline emits is published, in order; annotated frames are published at the right size;
calibration and camera status reach the hub; a round's counts reach the match keeper.
"""
from __future__ import annotations

import json
import shutil
import threading
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from pydantic import ValidationError

from ligretto_vision.capture import Frame, ResilientSource, SourceLost
from ligretto_vision.config import Config
from ligretto_vision.errors import LigrettoError
from ligretto_vision.events import Event, read_log
from ligretto_vision.live.camera_feed import PipelineFeed, open_pipeline_feed
from ligretto_vision.live.sim_feed import SimFeed
from ligretto_vision.live import LiveHub
from ligretto_vision.live import overlay
from ligretto_vision.panel import server
from ligretto_vision.recognise.patches import Pose
from ligretto_vision.referee.view import DecisionView, PileView, TableView
from ligretto_vision.scene import load_scene
from fastapi.testclient import TestClient

from ligretto_vision.panel.app import create_app
from panel_support import make_test_panel, open_test_panel, unlock

SCENES = Path(__file__).resolve().parents[2] / "shared" / "scenes"
S03 = SCENES / "s03-count-2p"
MODEL = Path(__file__).resolve().parents[1] / "models" / "numbers.onnx"


def need_scene() -> None:
    if not (S03 / "scene.json").is_file():
        print(f"skipped: sample scene {S03} is absent")
        pytest.skip(f"sample scene {S03} is absent")


# ---- stand-ins ------------------------------------------------------------------------------------------
class NoNumbers:
    """A number model that sees only backs: used when models/numbers.onnx is not trained yet."""

    def probabilities(self, patches):
        p = np.zeros((len(patches), 11), np.float32)
        p[:, 0] = 1.0
        return p


def real_pipeline(record: list):
    """The real Pipeline, its emits recorded on the way to the feed."""
    pipeline = pytest.importorskip("ligretto_vision.referee.pipeline", reason="the referee is not there")
    from ligretto_vision.recognise.reader import CardReader, Enrollment

    Pipeline = pipeline.Pipeline

    def make(scene, emit, on_status, reader=None):
        if reader is None and not MODEL.exists():
            print(f"{MODEL} missing (not trained yet): the card reader sees backs only")
            reader = CardReader(Enrollment.from_folder(scene.folder / "enroll", scene.card_mm, scene.colours,
                                                       scene.player_ids), model=NoNumbers())

        def tee(events):
            record.append(list(events))
            emit(events)
        return Pipeline(scene, tee, reader=reader, on_status=on_status)
    return make


class FakeCal:
    def to_px(self, pts_mm):
        return np.asarray(pts_mm, np.float64).reshape(-1, 2) * 0.45  # 1300 mm table -> 585 px


def two_piles(frame: int) -> TableView:
    """What the referee shows: a red 3 laid legally, a blue 9 laid illegally."""
    return TableView(frame, (PileView(1, "red-3", True, Pose(650, 380, 0)), PileView(2, "blue-9", False, Pose(400, 380, 0))))


class ScriptedPipeline:
    """Stands in for Pipeline: at frame f emits the event lists script[f]; calibrates at frame 2."""

    made: list = []

    def __init__(self, scene, emit, on_status, reader=None, script=None):
        self.scene, self.emit, self.on_status, self.script = scene, emit, on_status, script or {}
        self.referee = self.cal = self.view = None
        self.reader = reader or object()
        self.flushes = 0
        ScriptedPipeline.made.append(self)

    def feed(self, frame: Frame) -> None:
        if frame.index == 0:
            self.on_status({"calibration": "failed", "message": "markers not found", "frame": 0})
        elif frame.index == 2 and self.referee is None:
            self.referee, self.cal = object(), FakeCal()
            self.on_status({"calibration": "ok", "error_mm": 0.5, "frame": 2})
        if self.referee is not None:
            self.view = two_piles(frame.index)
        for events in self.script.get(frame.index, []):
            self.emit(events)

    def run(self, frames) -> None:
        self.flushes += 1


class FakeSource:
    def __init__(self, n: int, size=(640, 360), fps=30.0, name="fake", fail_at: int | None = None):
        self.n, self.size, self.fps, self.name, self.fail_at = n, size, fps, name, fail_at
        self.image = np.full((size[1], size[0], 3), 90, np.uint8)
        self.closed = False

    def frames(self):
        for i in range(self.n):
            if i == self.fail_at:
                raise SourceLost("unplugged")
            yield Frame(i, i / self.fps, self.image)

    def close(self):
        self.closed = True


class RecordingHub(LiveHub):
    def __init__(self):
        super().__init__()
        self.statuses: list[dict] = []

    def set_status(self, **kw):
        self.statuses.append(kw)
        super().set_status(**kw)


def jpeg_size(jpeg: bytes) -> tuple[int, int]:
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    return img.shape[1], img.shape[0]


# ---- the real pipeline over a sample scene ------------------------------------------------------------------
def test_scene_feed_publishes_all_pipeline_events_in_order_and_frames():
    need_scene()
    record: list[list[Event]] = []
    feed = open_pipeline_feed(str(S03), None, realtime=False, max_frames=150, make_pipeline=real_pipeline(record))
    hub = LiveHub()
    frames: list[bytes] = []
    orig = hub.publish_frame
    hub.publish_frame = lambda jpeg: (frames.append(jpeg), orig(jpeg))
    feed.run(hub, threading.Event())

    assert feed.frames_fed == 150 and feed.errors == 0
    emitted = [e for batch in record for e in batch]
    assert hub.events_since(0) == emitted  # everything the pipeline emitted, in the order it emitted it
    plays = [e.frame for e in hub.events_since(0) if e.type == "play"]
    assert plays == sorted(plays)
    assert frames, "no annotated frame was published"
    assert all(jpeg_size(j) == (960, 540) for j in frames)  # 1280x720 scene, downscaled to 960 wide
    assert len(frames) < 150  # drawn at most 15 a second, not every frame
    assert hub.status["fps"] == 30.0 and hub.status["players"] == ["P1", "P2"]
    assert hub.status["calibration"]["state"] == "ok"  # the sample scene's markers are found
    assert hub.status["source_state"]["state"] == "stopped"


# ---- what the feed guarantees, with a scripted pipeline -------------------------------------------------------
def test_feed_publishes_in_order_counts_reach_the_scoreboard_and_disputes_get_clips(tmp_path):
    need_scene()
    truth = [e for e in read_log(S03 / "truth.jsonl") if e.type != "state"]
    script: dict[int, list[list[Event]]] = defaultdict(list)
    for e in truth:  # decided 15 frames late, one emit per event (several emits in one frame)
        script[e.frame + 15].append([e])
    dispute = Event("dispute", 300, {"pile": 3, "card": "yellow-8", "winner": "P1",
                                     "claims": [{"player": "P1", "touch": 296}, {"player": "P2", "touch": 298}]})
    script[315].append([dispute])
    scene = load_scene(S03)
    ScriptedPipeline.made = []
    feed = PipelineFeed(FakeSource(940), scene, clips=tmp_path / "clips", max_render_fps=1e6,
                        make_pipeline=lambda *a: ScriptedPipeline(*a, script=script))
    panel = make_test_panel(tmp_path, players=2)
    hub = RecordingHub()
    panel.keeper.hub = hub
    feed.run(hub, threading.Event())

    got = hub.events_since(0)
    assert [(e.type, e.frame) for e in got] == [(e.type, e.frame) for e in sorted(truth + [dispute],
                                                                                   key=lambda e: e.frame)]
    counts = [i for i, e in enumerate(got) if e.type == "count"]
    assert len(counts) == 2
    # a round's counts go out in one publish (the keeper reads them as one group); then a fresh referee
    # (the first pipeline only checks the table when the feed is made; each round gets its own)
    assert len(ScriptedPipeline.made) == 3 and ScriptedPipeline.made[1].flushes == 1
    assert hub.status["round"] == 2
    panel.keeper.poll()
    rounds = panel.store.rounds(panel.keeper.match_row["id"])
    assert len(rounds) == 1 and set(rounds[0]["scores"]) == {"P1", "P2"}
    assert rounds[0]["scores"]["P1"] == 18  # 18 in the centre, stack empty
    # the dispute got a clip name and a saved clip with frames around the touches
    disp = next(e for e in got if e.type == "dispute")
    clip = tmp_path / "clips" / disp.get("clip")
    meta = json.loads((clip / "clip.json").read_text())
    assert meta["frames"][0]["frame"] <= 296 and meta["frames"][-1]["frame"] >= 300
    # frames: 640 px wide stays 640; pile outlines drawn once calibrated
    assert jpeg_size(hub.wait_frame(0, 0)[1]) == (640, 360)
    assert hub.status["source_state"]["state"] == "ended"


def test_status_callbacks_reach_the_hub_camera_lost_and_calibration(tmp_path, monkeypatch):
    need_scene()
    table = tmp_path / "table"
    table.mkdir()
    raw = json.loads((S03 / "scene.json").read_text())
    for key in ("video", "fps", "size", "format"):
        raw.pop(key)  # a table folder for a camera needs none of these
    (table / "scene.json").write_text(json.dumps(raw))
    shutil.copytree(S03 / "enroll", table / "enroll")
    sources = [FakeSource(6, fail_at=3, name="usb:9"), FakeSource(5, name="usb:9")]

    def fake_open_source(spec, on_status=None, **kw):
        assert spec == "usb:9"
        return ResilientSource(lambda: sources.pop(0), name=spec, on_status=on_status, sleep=lambda s: None)

    monkeypatch.setattr("ligretto_vision.capture.open_source", fake_open_source)
    ScriptedPipeline.made = []
    feed = open_pipeline_feed("usb:9", table, make_pipeline=lambda *a: ScriptedPipeline(*a))
    assert feed.table.fps == 30.0 and tuple(feed.table.size) == (640, 360)  # from the camera
    assert feed.realtime is False  # a camera paces itself
    assert feed._source_state["state"] == "ok"  # reported while opening, before the feed existed
    hub = RecordingHub()
    feed.run(hub, threading.Event())

    states = [s["source_state"]["state"] for s in hub.statuses if "source_state" in s]
    assert states[:1] == ["ok"] and "lost" in states and "reconnecting" in states
    assert states[-1] == "stopped" or states[-1] == "ended"
    cal = [s["calibration"]["state"] for s in hub.statuses if "calibration" in s]
    assert "failed" in cal and cal[-1] == "ok"
    assert feed.frames_fed == 8  # 3 before the camera was lost, 5 after it came back
    assert jpeg_size(hub.wait_frame(0, 0)[1]) == (640, 360)


# ---- the overlay draws what the referee's view says ------------------------------------------------------------
def test_the_overlay_draws_each_piles_top_card_and_the_latest_looks_from_the_view():
    need_scene()
    table = load_scene(S03)
    image = np.full((720, 1280, 3), 90, np.uint8)
    view = TableView(40, two_piles(40).piles, (DecisionView(35, "early-look", Pose(900, 380, 0)),
                                               DecisionView(2, "unchanged", Pose(200, 200, 0))))
    img = overlay.annotate(image, table, FakeCal(), view, ("calibrated", (60, 170, 60)), "round 1")
    assert img.shape == (540, 960, 3)  # 1280 wide, drawn at 960
    s = 960 / 1280

    def outlined(picture, x_mm, y_mm, colour) -> bool:  # a card's left edge, halfway down (card 59 x 91 mm)
        x, y = int(round((x_mm - 59 / 2) * 0.45 * s)), int(round(y_mm * 0.45 * s))
        near = np.abs(picture[y - 2:y + 3, x - 2:x + 3].astype(int) - colour).sum(axis=2).min()
        return bool(near < 100)  # lines are anti-aliased: the nearest pixel is the colour, or most of it
    assert outlined(img, 650, 380, overlay.card_colour("red-3"))  # laid legally: in the card's colour
    assert outlined(img, 400, 380, overlay.RED) and not outlined(img, 400, 380, overlay.card_colour("blue-9"))
    assert outlined(img, 900, 380, overlay.LOOK)  # a look of 5 frames ago is shown ...
    assert not outlined(img, 200, 200, overlay.LOOK)  # ... one of more than a second ago not
    before = overlay.annotate(image, table, None, None, ("calibrating", (0, 140, 255)), "round 1")
    assert not outlined(before, 650, 380, overlay.card_colour("red-3"))  # nothing drawn before calibration


# ---- the panel's set-up reaches the camera referee ---------------------------------------------------------------
def test_the_panels_rules_and_seats_referee_the_next_round_on_a_camera_table(tmp_path):
    need_scene()
    scene = load_scene(S03)
    ScriptedPipeline.made = []
    feed = PipelineFeed(FakeSource(3), scene, make_pipeline=lambda *a: ScriptedPipeline(*a))
    with open_test_panel(tmp_path, feed=feed, players=2) as panel:
        client = TestClient(create_app(panel))  # not started: the test runs the feed's round itself
        shown = client.get("/api/settings").json()
        # until changed on the panel, the set-up shown is the table folder's own
        assert [(p["id"], p["seat"]) for p in shown["players"]] == [("P1", "south"), ("P2", "north")]
        assert shown["rules"]["options"]["grace_s"] == 1.0 == scene.rule_options().grace_s
        headers = unlock(client)
        rules = {"edition": "classic", "options": {"stack_penalty": 3, "grace_s": 0.5}}
        assert client.put("/api/settings/rules", json=rules, headers=headers).status_code == 200
        players = [{"id": "P1", "name": "Anna", "seat": "west"}, {"id": "P2", "name": "Ben", "seat": "east"}]
        assert client.put("/api/settings/players", json={"players": players}, headers=headers).status_code == 200
        feed.run(LiveHub(), threading.Event())

    refereed = ScriptedPipeline.made[-1].scene
    assert refereed.rule_options().stack_penalty == 3 and refereed.rule_options().grace_s == 0.5
    assert [(p.id, p.seat) for p in refereed.players] == [("P1", "west"), ("P2", "east")]
    assert feed.table.players[0].seat == "south"  # the table folder's description stays as it was


def test_a_table_not_enrolled_yet_is_shown_and_refereed_once_every_colour_has_a_face(tmp_path):
    need_scene()
    table = tmp_path / "table"
    table.mkdir()
    (table / "scene.json").write_text((S03 / "scene.json").read_text())
    ScriptedPipeline.made = []
    feed = PipelineFeed(FakeSource(4), load_scene(table, camera=True), max_render_fps=1e6,
                        make_pipeline=lambda *a: ScriptedPipeline(*a))
    hub = LiveHub()
    feed.run(hub, threading.Event())
    assert not ScriptedPipeline.made and feed.frames_fed == 4  # shown, not refereed
    assert hub.status["calibration"]["state"] == "enrol" and "red, green, blue, yellow" in hub.status["calibration"]["detail"]
    assert hub.wait_frame(0, 0)[1] is not None

    shutil.copytree(S03 / "enroll" / "faces", table / "enroll" / "faces")  # as the panel's Set-up stores them
    assert feed.use_enrollment()
    feed.source = FakeSource(4)
    feed.run(hub, threading.Event())
    assert len(ScriptedPipeline.made) == 1 and ScriptedPipeline.made[0].referee is not None  # fed and calibrated
    assert hub.status["calibration"]["state"] == "ok"


def test_frames_that_never_came_are_news_beside_the_calibration_not_instead_of_it():
    need_scene()

    class Gappy(ScriptedPipeline):
        def feed(self, frame: Frame) -> None:
            super().feed(frame)
            if frame.index == 3:
                self.on_status({"frame_gap": "frames 3-6 never came (4 frames, 0.13 s): judged around the gap", "frame": 7})

    feed = PipelineFeed(FakeSource(4), load_scene(S03), max_render_fps=1e6, make_pipeline=lambda *a: Gappy(*a))
    hub = LiveHub()
    feed.run(hub, threading.Event())
    assert hub.status["calibration"]["state"] == "ok"  # (it said "unknown" for any news of a frame)
    assert hub.status["frames"]["frame_gap"].startswith("frames 3-6 never came") and hub.status["frames"]["frame"] == 7


# ---- choosing the feed ------------------------------------------------------------------------------------------
def test_camera_source_without_table_folder_is_a_clear_error():
    cfg = Config(table={"source": "usb:0"})
    with pytest.raises(LigrettoError, match=r"table_folder"):
        server.feed_for(cfg, None)
    with pytest.raises(LigrettoError, match="no such folder"):
        server.feed_for(Config(table={"source": "usb:0", "table_folder": "/nonexistent/table"}), None)


def test_table_folder_is_checked(tmp_path):
    need_scene()
    raw = json.loads((S03 / "scene.json").read_text())
    (tmp_path / "scene.json").write_text(json.dumps({**raw, "rules": {"grace_s": 99}}))
    with pytest.raises(LigrettoError, match="grace_s"):
        load_scene(tmp_path, camera=True)
    (tmp_path / "scene.json").write_text(json.dumps({k: v for k, v in raw.items() if k not in ("video", "fps")}))
    table = load_scene(tmp_path, camera=True, fps=25.0)  # no video, and no enroll/ yet: the panel enrols
    assert table.fps == 25.0 and table.video == ""
    with pytest.raises(ValidationError):
        Config(table={"table_folder": str(tmp_path), "typo": 1})  # extra keys are still refused


def test_auto_with_a_camera_but_no_table_falls_back_to_the_simulated_table(monkeypatch, tmp_path):
    monkeypatch.setattr(server, "choose_auto", lambda: ("usb:0", "no Pi camera; USB camera 0 gives frames"))
    assert server.source_for(Config()) == "sim"
    monkeypatch.setattr(server, "choose_auto", lambda: ("sim", "no camera"))
    cfg = Config(data={"database": str(tmp_path / "t.db"), "clips": str(tmp_path / "clips")})
    assert isinstance(server.build(cfg).feed, SimFeed)


def test_serving_a_scene_folder_runs_the_pipeline_with_the_scenes_players_and_the_configs_vision(monkeypatch, tmp_path):
    need_scene()
    visions = []

    def make(*a, vision):
        visions.append(vision)
        return ScriptedPipeline(*a)
    monkeypatch.setattr("ligretto_vision.live.camera_feed._default_pipeline", make)
    cfg = Config(table={"source": str(S03), "players": 4}, vision={"referee": {"reorder_s": 0.25}},
                 data={"database": str(tmp_path / "t.db"), "clips": str(tmp_path / "clips")})
    panel = server.build(cfg, speed=3.0)
    assert isinstance(panel.feed, PipelineFeed) and panel.feed.realtime and panel.feed.speed == 3.0
    assert panel.settings.player_ids == ["P1", "P2"] and panel.keeper.match.players == ["P1", "P2"]
    assert visions and all(v.referee.reorder_s == 0.25 for v in visions)  # a table's config adjusts its referee
    panel.feed.source.close()
