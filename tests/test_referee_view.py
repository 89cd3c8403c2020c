"""The pipeline's read-only view of the table (`Pipeline.view`): the door the overlay and the panel
read, never the referee itself."""
import dataclasses
import json

import pytest

from conftest import sample_scenes
from ligretto_vision.capture.frame import Frame
from ligretto_vision.capture.scene_source import SceneSource
from ligretto_vision.config.referee import RefereeConfig
from ligretto_vision.config.vision import VisionConfig
from ligretto_vision.referee.pipeline import VIEW_DECISIONS, Pipeline
from ligretto_vision.referee.view import TableView


def test_the_view_shows_each_pile_top_and_the_latest_decisions_built_once_a_frame():
    """s01 up to its first few plays: every pile the plays went to is in the view with their card on top,
    the plays among its decisions; asked twice in a frame it is one object, after the next frame a new one."""
    s01 = [p for p in sample_scenes() if p.name == "s01-play-4p"]
    if not s01:
        pytest.skip("sample scene s01-play-4p not found (set LIGRETTO_SHARED)")
    source = SceneSource(s01[0])
    events = []
    pipe = Pipeline(source.scene, events.extend, hold_s=0)
    assert pipe.view is None  # before calibration
    for frame in source.frames():
        pipe.feed(frame)
        if sum(e.type == "play" for e in events) >= 3:
            break
    source.close()
    view = pipe.view
    assert isinstance(view, TableView) and view is pipe.view and view.frame == frame.index
    tops = {}
    for e in events:
        if e.type == "play":
            tops[str(e.data["pile"])] = e.data["card"]
    shown = {str(p.id): p.card for p in view.piles}  # the piles found at the start too (s01 begins mid-round)
    assert tops and all(shown[pid] == card for pid, card in tops.items()), (shown, tops)
    assert len(view.decisions) <= VIEW_DECISIONS
    assert [d.kind for d in view.decisions].count("play") >= 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.piles[0].card = "red-1"  # read-only
    pipe.feed(Frame(frame.index + 1, frame.t + 1 / source.fps, frame.image))  # the next frame
    assert pipe.view is not view
    pipe.feed(frame)  # one that came after a later one is skipped: the view stands
    assert pipe.view.frame == frame.index + 1


def test_a_config_reaches_the_referee(tmp_path):
    """The referee decides by the thresholds handed in: with every face judged unreadable (least_read 1),
    s01's first seconds make no play."""
    s01 = [p for p in sample_scenes() if p.name == "s01-play-4p"]
    if not s01:
        pytest.skip("sample scene s01-play-4p not found (set LIGRETTO_SHARED)")
    truth = [json.loads(l) for l in (s01[0] / "truth.jsonl").read_text().splitlines() if l.strip()]
    first_play = min(e["frame"] for e in truth if e["type"] == "play")
    source = SceneSource(s01[0])
    events = []
    pipe = Pipeline(source.scene, events.extend, hold_s=0,
                    vision=VisionConfig(referee=RefereeConfig(least_read=1.0, early_sure=1.0)))
    for frame in source.frames():
        pipe.feed(frame)
        if frame.index > first_play + 60:
            break
    source.close()
    assert not [e for e in events if e.type == "play"]
    assert "unreadable" in {d.kind for d in pipe.view.decisions}
