"""The proving ground's scene generator: every scene it writes is a scene as SCENES.md describes,
and its truth is complete and consistent (the rules agree with every event, as check-log
checks a sample). Two small scenes: one whose camera is knocked, one with twelve seats."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from ligretto_vision.checklog import check_log
from ligretto_vision.events import read_log
from ligretto_vision.proving.deck import HELD_OUT_FAMILIES, held_out_font
from ligretto_vision.proving.draw import MEASURE_FROM, draw_table
from ligretto_vision.proving.film import sleeve_reach_mm
from ligretto_vision.proving.generate import (COUNT_GATHER_S, MIN_PLAY_S, _strays, _table, _window, calm_start,
                                              drawn, generate)
from ligretto_vision.scene import load_scene


def _first_seed(wanted) -> int:
    return next(s for s in range(3000) if wanted(draw_table(s)))


@pytest.fixture(scope="module")
def knocked(tmp_path_factory) -> Path:
    seed = _first_seed(lambda d: d.knock is not None and d.n_players <= 4)
    return generate(seed, tmp_path_factory.mktemp("knocked"), length_s=5).folder


@pytest.fixture(scope="module")
def twelve(tmp_path_factory) -> Path:
    seed = _first_seed(lambda d: d.n_players == 12)
    return generate(seed, tmp_path_factory.mktemp("twelve"), length_s=5).folder


@pytest.fixture(params=["knocked", "twelve"])
def scene_dir(request) -> Path:
    return request.getfixturevalue(request.param)


def test_truth_agrees_with_the_rules_on_every_event(scene_dir):
    report = check_log(scene_dir)
    assert report.checked > 0
    assert report.ok, report.problems


def test_scene_folder_is_complete(scene_dir):
    scene = load_scene(scene_dir)
    meta = json.loads((scene_dir / "draw.json").read_text())
    cap = cv2.VideoCapture(str(scene.video_path))
    frames = 0
    while True:
        ok, img = cap.read()
        if not ok:
            break
        assert img.shape[1::-1] == tuple(scene.size)
        frames += 1
    assert frames == meta["frames"]
    enroll = scene_dir / "enroll"
    for p in scene.player_ids:
        assert cv2.imread(str(enroll / "backs" / f"{p}.png")) is not None
    for c in scene.colours:
        assert cv2.imread(str(enroll / "faces" / f"{c}.png")) is not None
    for n in range(1, 11):
        assert cv2.imread(str(enroll / "numbers" / f"{n}.png")) is not None
    truth = read_log(scene_dir / "truth.jsonl")
    assert all(0 <= e.frame < frames for e in truth)
    assert all(e.get("at") is not None and e.get("from") in ("row", "stack", "discard") for e in truth if e.type == "play")


def _marker_centres(img) -> dict[int, np.ndarray]:
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = det.detectMarkers(img)
    return {} if ids is None else {int(i): c.reshape(4, 2).mean(0) for i, c in zip(ids.ravel(), corners)}


def test_a_knocked_camera_moves_the_view_and_leaves_it_there(knocked):
    cap = cv2.VideoCapture(str(knocked / "video.mp4"))
    ok, first = cap.read()
    last = first
    while True:
        ok, img = cap.read()
        if not ok:
            break
        last = img
    before, after = _marker_centres(first), _marker_centres(last)
    seen = set(before) & set(after)
    assert seen, "no marker found in both the first and the last frame"
    assert max(np.linalg.norm(before[i] - after[i]) for i in seen) > 5


def test_twelve_seats_round_ends_and_everyone_is_counted(twelve):
    scene = load_scene(twelve)
    assert len(scene.players) == 12
    truth = read_log(twelve / "truth.jsonl")
    assert sum(e.type == "round_end" for e in truth) + sum(e.type == "round_blocked" for e in truth) <= 1
    assert {e.data["player"] for e in truth if e.type == "count"} == set(scene.player_ids)
    assert [p.name for p in scene.phases] == ["play", "count"]


def test_a_window_starts_calm_and_a_round_end_window_plays_before_the_count():
    """At a crowded table a card is astray (a takeback under way) most of the time; waiting for a
    calm frame once pushed a round-end window's start past the count (tuning table 27, ten to
    twelve seats: a scene with no play at all). The start is a calm frame, and at least
    MIN_PLAY_S is played before hands gather."""
    assert calm_start([3, 8, 20], 5) == 8
    assert calm_start([3, 8, 20], 9, latest=15) == 8  # the next calm frame is too late: the last before
    assert calm_start([3, 8, 20], 21) == 20 and calm_start([], 7) == 0
    for seed in (27, MEASURE_FROM + 28):  # a tuning and a measuring table that had gone wrong
        d = drawn(seed)
        start, n, count = _window(d)
        assert d.round_end and count is not None
        assert count - start >= (COUNT_GATHER_S + MIN_PLAY_S) * d.fps - 1
        assert start + n > count  # the count is filmed
        t = _table(d)
        while t.frame < start:
            t.step()
        assert not _strays(t)


def test_an_arm_hangs_from_beyond_the_edge_however_far_in_its_hand_reaches():
    """A hand a metre in from a long table's end (12 seats, piles in the middle) is drawn with its
    sleeve reaching back past where it rests beyond the edge: an arm never floats over the table."""
    for hand_from_rest in (450.0, 900.0, 1150.0, 1600.0):
        assert sleeve_reach_mm(hand_from_rest) > hand_from_rest


def test_the_tuning_range_never_draws_what_is_kept_for_measuring():
    tune = [draw_table(s) for s in range(150)]
    assert not any(d.family in HELD_OUT_FAMILIES or held_out_font(Path(d.deck.font)) for d in tune)
    measure = [draw_table(MEASURE_FROM + s) for s in range(150)]
    assert any(d.family in HELD_OUT_FAMILIES for d in measure)
    assert any(held_out_font(Path(d.deck.font)) for d in measure)


def test_one_seed_one_table():
    a, b = draw_table(42), draw_table(42)
    assert a.kinds() == b.kinds() and a.seats == b.seats and a.deck == b.deck
    assert draw_table(43).kinds() != a.kinds() or draw_table(43).seats != a.seats


def test_no_two_players_at_a_table_have_the_same_back():
    """Cards are sorted back to their owners by their backs (rules: each box has its own back
    designs), so two players never share both design and colour: up to twelve seats, three boxes.
    (The third box once took the first one's design, and its colours repeat: two players' cards
    could then be told apart by nobody.)"""
    twelves = [d for d in (draw_table(s) for s in range(400)) if d.n_players >= 11 and d.edition != "starwars"]
    assert twelves
    for d in twelves:
        for i, a in enumerate(d.backs):
            for b in d.backs[i + 1:]:  # the same colour: within the jitter of one print run (+-10 a channel)
                assert a.design != b.design or max(abs(x - y) for x, y in zip(a.rgb, b.rgb)) > 25, (d.seed, a, b)
        assert len({b.design for b in d.backs}) == len({b.box for b in d.backs})
