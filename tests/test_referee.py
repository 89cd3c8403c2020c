"""The referee on a recorded sample scene, measured by the project's scorer, and its robustness."""
import importlib.util
import os
import shutil

import numpy as np
import pytest

from conftest import SHARED, sample_scenes
from ligretto_vision.capture.frame import Frame
from ligretto_vision.capture.scene_source import SceneSource
from ligretto_vision.events import read_log
from ligretto_vision.referee.pipeline import Pipeline
from ligretto_vision.referee.replay import replay

THRESHOLDS = {"play_f1": 0.98, "player_acc": 0.97, "legal_acc": 0.99, "illegal_recall": 0.95,
              "takeback_f1": 0.95, "pile_consistency": 0.98}
S03 = [p for p in sample_scenes() if p.name == "s03-count-2p"]


def _replay_harder_copy(tmp_path, name: str, **harder) -> dict:
    """Score a blind replay of a sample scene made harder by `evaluate.perturb_scene(**harder)`."""
    found = [p for p in sample_scenes() if p.name == name]
    if not found:
        pytest.skip(f"sample scene {name} not found (set LIGRETTO_SHARED)")
    from ligretto_vision.evaluate import perturb_scene

    copy = perturb_scene(found[0], tmp_path / "copy", **harder)
    (tmp_path / "run").mkdir()
    return blind_replay(copy, tmp_path / "run")[2]


def _assert_bars(figures: dict, **lower: float) -> None:
    """Every bar of the refereeing issue, except those given a lower (named) bar here."""
    for key, low in {**THRESHOLDS, **lower}.items():
        assert figures[key] >= low, (key, figures)


def scorer():
    spec = importlib.util.spec_from_file_location("score_events", SHARED / "tools" / "score_events.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def blind_replay(sample, tmp, **replay_kw):
    """Replay a copy of a sample scene without its truth (the referee cannot have read it)."""
    scene = tmp / sample.name
    scene.mkdir()
    for name in ("scene.json", "video.mp4"):
        os.symlink(sample / name, scene / name)
    shutil.copytree(sample / "enroll", scene / "enroll")
    out = tmp / "events.jsonl"
    stats = replay(scene, out, **replay_kw)
    figures = scorer().score(str(sample), str(out))
    return out, stats, figures[0] if isinstance(figures, tuple) else figures


@pytest.fixture(scope="module")
def s03_log(tmp_path_factory):
    if not S03:
        pytest.skip("sample scene s03-count-2p not found (set LIGRETTO_SHARED)")
    return blind_replay(S03[0], tmp_path_factory.mktemp("s03"))


def test_sample_scene_meets_the_referee_thresholds(s03_log):
    _, _, figures = s03_log
    _assert_bars(figures)
    assert figures["round_end_err"] <= 15, figures
    # joined mid-round: the centre cannot come from a live tally, every back is counted in the spread
    assert figures["count_exact"] == 1.0, figures


def test_log_is_in_frame_order_and_decided_quickly(s03_log):
    out, stats, _ = s03_log
    frames = [e.frame for e in read_log(out)]
    assert frames == sorted(frames)
    assert stats.lags_s and max(stats.lags_s) <= 0.6  # plays leave within the 0.5 s hold (+ a frame)
    assert np.median(stats.lags_s) <= 0.3


def test_broken_frames_are_reported_and_skipped():
    if not S03:
        pytest.skip("sample scene s03-count-2p not found")
    src = SceneSource(S03[0])
    notes, emitted = [], []
    pipe = Pipeline(src.scene, emitted.extend, on_status=notes.append)
    for f in src.frames():
        if f.index == 40:
            pipe.feed(Frame(40, f.t, f.image[:100]))  # a torn frame
        elif f.index == 41:
            pipe.feed(Frame(41, f.t, None))  # an empty one
        else:
            pipe.feed(f)
        if f.index > 60:
            break
    src.close()
    assert any("frame 40: skipped" in n for n in pipe.stats.notes)
    assert any("frame 41: skipped, not a colour picture" in n for n in pipe.stats.notes)
    assert any("frame_problem" in n for n in notes)
    assert pipe.referee is not None  # and it went on refereeing


def test_frames_that_never_came_are_told_and_a_frame_out_of_order_is_skipped():
    if not S03:
        pytest.skip("sample scene s03-count-2p not found")
    src = SceneSource(S03[0])
    notes = []
    pipe = Pipeline(src.scene, lambda events: None, on_status=notes.append)
    kept = None
    for f in src.frames():
        if 20 <= f.index <= 24:  # a camera that lost a sixth of a second
            continue
        pipe.feed(f)
        if f.index == 30:
            kept = f
        if f.index == 31:
            pipe.feed(kept)  # a frame delivered twice
        if f.index > 60:
            break
    src.close()
    assert pipe.stats.missed == 5
    gap = "frames 20-24 never came (5 frames, 0.17 s): judged around the gap"
    assert f"frame 25: {gap}" in pipe.stats.notes and {"frame_gap": gap, "frame": 25} in notes
    assert "frame 30: skipped, it came after frame 31" in pipe.stats.notes
    assert pipe.referee is not None and pipe.view.frame == 61  # and it went on refereeing


def test_a_camera_that_loses_a_tenth_of_its_frames_is_refereed_to_the_bars(tmp_path):
    """Frames lost in bursts of up to four (a USB camera's overrun, a slow moment on the Pi): the
    arms' histories are kept by frame number, so a card's touch and rest frames stay true (before,
    they were counted back over the frames that came: s01 with seeds 1-3 wrote plays 8-12 frames
    early, play_f1 0.93-0.95, pile_consistency 0.92 with seed 2)."""
    found = [p for p in sample_scenes() if p.name == "s01-play-4p"]
    if not found:
        pytest.skip("sample scene s01-play-4p not found (set LIGRETTO_SHARED)")
    _, stats, figures = blind_replay(found[0], tmp_path, lose_frames=0.1, seed=2)
    assert stats.missed >= 80, stats.missed
    _assert_bars(figures)


def test_frame_gaps_are_told_when_they_last():
    from ligretto_vision.referee.pipeline import frame_gap

    assert frame_gap(10, 11, 30.0, 0.1) is None  # the next frame
    assert frame_gap(10, 12, 30.0, 0.1) is None  # one frame dropped now and then is normal
    assert frame_gap(10, 14, 30.0, 0.1) == "frames 11-13 never came (3 frames, 0.10 s): judged around the gap"
    assert frame_gap(-1, 5, 30.0, 0.1) is None  # a source whose first frame is not 0
    assert frame_gap(10, 12, 30.0, 0.0) is not None  # told_s 0: every gap


def test_a_bumped_camera_is_recalibrated_and_refereeing_goes_on(tmp_path):
    if not S03:
        pytest.skip("sample scene s03-count-2p not found")
    from ligretto_vision.evaluate import perturb_scene

    scene = perturb_scene(S03[0], tmp_path / "bumped", bump_at=300, bump_px=12)
    (scene / "truth.jsonl").rename(tmp_path / "truth.jsonl")  # the referee must not see it
    out = tmp_path / "events.jsonl"
    stats = replay(scene, out)
    (tmp_path / "truth.jsonl").rename(scene / "truth.jsonl")
    assert any("frame 300" in n and "camera has moved" in n for n in stats.notes), stats.notes
    figures = scorer().score(str(scene), str(out))
    figures = figures[0] if isinstance(figures, tuple) else figures
    assert figures["play_f1"] >= 0.95 and figures["player_acc"] >= 0.95, figures


S04 = [p for p in sample_scenes() if p.name == "s04-round-3p"]


def test_a_whole_round_with_its_count_meets_every_bar(tmp_path):
    """s04: a round watched from its first card to the count."""
    if not S04:
        pytest.skip("sample scene s04-round-3p not found (set LIGRETTO_SHARED)")
    _, _, figures = blind_replay(S04[0], tmp_path)
    _assert_bars(figures)
    assert figures["round_end_err"] <= 15 and figures["count_exact"] == 1.0, figures


S02 = [p for p in sample_scenes() if p.name == "s02-dispute-3p"]


def test_disputes_meet_every_bar(tmp_path):
    """s02: three disputes. Two cards laid at once from facing edges (which lies on top is told by
    which hand withdrew last), a card under another whose arm hardly shows, and their takebacks."""
    if not S02:
        pytest.skip("sample scene s02-dispute-3p not found (set LIGRETTO_SHARED)")
    _, _, figures = blind_replay(S02[0], tmp_path)
    _assert_bars(figures)
    assert figures["dispute_acc"] >= 0.9, figures


def test_disputes_in_dim_warm_noisy_compressed_video(tmp_path):
    """s02 made 45 % darker and warmer over the video, with sensor noise and JPEG quality 35."""
    figures = _replay_harder_copy(tmp_path, "s02-dispute-3p", light_drift=0.45, warm=0.3, noise=6, quality=35)
    _assert_bars(figures)
    assert figures["dispute_acc"] >= 0.9, figures


def test_a_recalibration_keeps_the_reference_pictures():
    """The references are top views in table millimetres: a new camera mapping must not take in
    whatever lies over the table at that moment (an arm, here a dark box)."""
    if not S03:
        pytest.skip("sample scene s03-count-2p not found (set LIGRETTO_SHARED)")
    src = SceneSource(S03[0])
    pipe = Pipeline(src.scene, lambda events: None)
    frames = src.frames()
    first = next(frames)
    pipe.feed(first)
    pipe.feed(next(frames))
    src.close()
    low, full = pipe.referee.table_as_accepted()
    arm = first.image.copy()
    arm[250:450, 500:800] = 20
    pipe.referee.recalibrate(pipe.cal, arm)
    low_after, full_after = pipe.referee.table_as_accepted()
    assert np.array_equal(low_after, low)
    assert np.array_equal(full_after, full)


def test_players_twice_as_fast(tmp_path):
    """s01 with every other frame dropped (the truth's frames halved): cards laid on one pile in
    quick succession are each judged once, by the arm that laid them, also where an arm passing
    over the pile met the laying hand and took most of its pixels (two plays of 41 before the
    arm that fits the way the card lies was asked)."""
    figures = _replay_harder_copy(tmp_path, "s01-play-4p", speed=2)
    _assert_bars(figures)


def test_round_end_with_players_twice_as_fast(tmp_path):
    """s04 at twice the speed: the stack's last card goes into the row just after its player laid
    a row card in the centre. That card is not the last stack card, so the round ends when the
    stack card lands in the row; a card laid 1.4 s later is after-stop, though it was judged
    before the end was known."""
    figures = _replay_harder_copy(tmp_path, "s04-round-3p", speed=2)
    assert figures["round_end_err"] <= 15, figures
    _assert_bars(figures)


def test_cards_on_a_cloth_of_their_own_colour(tmp_path):
    """s01 on a cloth of the red cards' colour: red cards laid on it show little more than their
    numerals and balls, and are still found, read and judged."""
    figures = _replay_harder_copy(tmp_path, "s01-play-4p", cloth_rgb=(218, 34, 39))
    # the messy red pile lying there from the start reads best as its red 4 sticking out below
    # the red 8 on top (0.48): the red 9 and 10 laid on it are judged wrong (README: robustness)
    _assert_bars(figures, legal_acc=0.95)


def test_a_lamps_glare_over_the_middle(tmp_path):
    """s01 under a lamp's glare drifting over the middle (+64 at its peak): a yellow 1 laid on
    the glared wood reads at only about 0.6, and a rectangle across it reads a 4 about as
    surely; the rectangle whose outline stands out all round is the card (README: robustness)."""
    figures = _replay_harder_copy(tmp_path, "s01-play-4p", glare=0.25)
    _assert_bars(figures)


def test_a_lamp_switched_off_mid_round(tmp_path):
    """s01 with the light falling at once to about a third (and warmer) at frame 300: the stack
    places in the players' zones must not look bare in the dim light (a stack taken for gone
    ends the round: every later play would be after-stop; legal_acc had been 0.49)."""
    figures = _replay_harder_copy(tmp_path, "s01-play-4p", dim_at=300, dim_to=(0.3, 0.35, 0.4))
    _assert_bars(figures)


def test_a_camera_knocked_so_far_that_markers_leave_the_picture(tmp_path):
    """s04 (960x540) knocked 30 px and 0.6 degrees at frame 1700: the lower markers leave the
    picture, so the table is followed from the two still in view, and checked at once (a jump
    in what differs from the reference, with no arm there), before the shifted picture is taken
    for moves: it had ended the round 600 frames early."""
    figures = _replay_harder_copy(tmp_path, "s04-round-3p", bump_at=1700, bump_px=30)
    _assert_bars(figures)
    assert figures["round_end_err"] <= 15 and figures["count_exact"] == 1.0, figures


def _s01_table():
    """s01's first frame (a seat at every edge), its calibration, table layout and scene."""
    from ligretto_vision.geometry.calibration import MarkerLayout, calibrate
    from ligretto_vision.geometry.zones import layout_from_scene

    s01 = [p for p in sample_scenes() if p.name == "s01-play-4p"]
    if not s01:
        pytest.skip("sample scene s01-play-4p not found (set LIGRETTO_SHARED)")
    source = SceneSource(s01[0])
    first = next(iter(source.frames())).image
    source.close()
    return first, calibrate(first, MarkerLayout.from_scene(source.scene)), layout_from_scene(source.scene), source.scene


def _painted(image, cal, quads_mm, colours):
    """The camera picture with table-millimetre quadrilaterals painted on it."""
    import cv2

    out = image.copy()
    for quad, colour in zip(quads_mm, colours):
        px = cal.to_px(np.array(quad, np.float64)).astype(np.int32)
        cv2.fillPoly(out, [px], colour)
    return out


def test_a_hand_cut_off_from_its_arm_belongs_to_the_arm_it_ends_at():
    """A wrist the cloth's colour leaves a moving hand with no edge of its own: it is the hand of
    the arm whose far end it lies by, not of an arm it lies beside, and stays so for a moment
    when the whole sleeve vanishes into the cloth."""
    from ligretto_vision.detect.activity import ActivityMonitor

    first, cal, layout, scene = _s01_table()
    mon = ActivityMonitor(cal, layout, scene.fps, tuple(scene.size))
    mon.update(0, first)
    w, h = layout.w, layout.h
    sleeve, skin = (40, 30, 30), (140, 170, 220)
    reach = [(0, 0.40 * h), (0.35 * w, 0.40 * h), (0.35 * w, 0.48 * h), (0, 0.48 * h)]  # from the left edge
    across = [(0.62 * w, 0), (0.68 * w, 0), (0.68 * w, 0.7 * h), (0.62 * w, 0.7 * h)]  # from the top edge
    for i in range(1, 8):
        dy = 24.0 * (i % 2)  # both hands move (a hand moves all over, a card coming to rest hardly)
        at_tip = [(0.35 * w + 30, 0.39 * h + dy), (0.35 * w + 90, 0.39 * h + dy),
                  (0.35 * w + 90, 0.47 * h + dy), (0.35 * w + 30, 0.47 * h + dy)]  # 30 mm past its arm's end
        beside = [(0.68 * w + 30, 0.3 * h + dy), (0.68 * w + 90, 0.3 * h + dy),
                  (0.68 * w + 90, 0.38 * h + dy), (0.68 * w + 30, 0.38 * h + dy)]  # by the middle of the other arm
        mon.update(i, _painted(first, cal, [reach, across, at_tip, beside], [sleeve, sleeve, skin, skin]))
    seat_map = mon.seat_hist[-1]
    left = layout.seats.index(layout.seat_at_edge(1.0, 0.44 * h))

    def near(grid, x, y):
        return grid[int(y * mon.ppm) - 2:int(y * mon.ppm) + 3, int(x * mon.ppm) - 2:int(x * mon.ppm) + 3]

    def seats_at(x, y):
        return set(np.unique(near(seat_map, x, y)))

    assert seats_at(0.1 * w, 0.44 * h) == {left}
    assert seats_at(0.35 * w + 60, 0.43 * h + 24) == {left}  # the cut-off hand: the left arm's
    assert near(mon.motion_hist[-1], 0.68 * w + 60, 0.34 * h + 24).any()  # a moving hand is there,
    assert seats_at(0.68 * w + 60, 0.34 * h + 24) == {-1}  # but beside the top arm's middle: nobody's
    # the whole sleeve vanishes into the cloth: the hand moving on where it was stays the left arm's
    for i in range(8, 10):
        dy = 24.0 * (i % 2) + 8.0
        at_tip = [(0.35 * w + 30, 0.39 * h + dy), (0.35 * w + 90, 0.39 * h + dy),
                  (0.35 * w + 90, 0.47 * h + dy), (0.35 * w + 30, 0.47 * h + dy)]
        mon.update(i, _painted(first, cal, [across, at_tip], [sleeve, skin]))
    seat_map = mon.seat_hist[-1]
    assert seats_at(0.35 * w + 60, 0.43 * h + 32) == {left}


def test_a_small_still_change_at_the_edge_is_no_arm_but_a_resting_arm_is():
    """The count waits for arms to leave; a card nudged at the table's edge must not hold it up."""
    from ligretto_vision.detect.activity import ActivityMonitor

    first, cal, layout, scene = _s01_table()
    w, h = layout.w, layout.h
    sliver = [(0.45 * w, h - 12), (0.5 * w, h - 12), (0.5 * w, h), (0.45 * w, h)]  # 65 x 12 mm at the edge
    resting = [(0, 0.4 * h), (0.3 * w, 0.4 * h), (0.3 * w, 0.5 * h), (0, 0.5 * h)]  # an arm lying still
    for quads, on_table in (([sliver], False), ([resting], True)):
        mon = ActivityMonitor(cal, layout, scene.fps, tuple(scene.size))
        mon.update(0, first)
        still = _painted(first, cal, quads, [(40, 30, 30)] * len(quads))
        for i in range(1, int(1.5 * scene.fps)):
            mon.update(i, still)
        assert mon.arms_on_table() is on_table


def test_a_recording_that_ends_soon_after_the_spread_is_still_counted():
    """The count waits for the spread to lie still a while; a recording that stops 0.3 s after the
    last card of the spread is laid is counted on its last frame, not lost."""
    import itertools
    import json

    if not S03:
        pytest.skip("sample scene s03-count-2p not found (set LIGRETTO_SHARED)")
    truth = [json.loads(l) for l in (S03[0] / "truth.jsonl").read_text().splitlines() if l.strip()]
    counted = min(e["frame"] for e in truth if e["type"] == "count")  # the test may read the truth
    source = SceneSource(S03[0])
    events = []
    pipe = Pipeline(source.scene, events.extend)
    pipe.run(itertools.islice(source.frames(), counted + int(0.3 * source.scene.fps)))
    source.close()
    want = {e["player"]: (e["centre"], e["stack"]) for e in truth if e["type"] == "count"}
    got = {e.data["player"]: (e.data["centre"], e.data["stack"]) for e in events if e.type == "count"}
    assert got == want


def test_a_card_a_passing_sleeve_lies_over_is_decided_before_the_sleeve_goes():
    """s01: P1 lays the yellow 9 at frame 440; from frame 443 to 451 P2's sleeve, on its way to
    another pile, lies over its lower third, so the change there cannot settle until 452. The
    card is read while the sleeve lies there and decided within 0.3 s of its rest frame (the
    latency bar), by the right player, and once only when the sleeve has gone."""
    import json

    s01 = [p for p in sample_scenes() if p.name == "s01-play-4p"]
    if not s01:
        pytest.skip("sample scene s01-play-4p not found (set LIGRETTO_SHARED)")
    truth = [json.loads(l) for l in (s01[0] / "truth.jsonl").read_text().splitlines() if l.strip()]
    laid = next(e for e in truth if e["type"] == "play" and e["frame"] == 440)
    source = SceneSource(s01[0])
    decided = []  # (frame it was decided in, event)
    pipe = Pipeline(source.scene, lambda events: decided.extend((current, e) for e in events), hold_s=0)
    for frame in source.frames():
        current = frame.index
        pipe.feed(frame)
        if current >= 470:
            break
    source.close()
    mine = [(when, e) for when, e in decided if e.type == "play" and e.data["card"] == laid["card"]]
    assert len(mine) == 1, mine
    when, play = mine[0]
    assert play.data["player"] == laid["player"] and play.data["legal"] is True
    assert abs(play.frame - laid["frame"]) <= 2
    assert when - laid["frame"] <= 0.3 * source.scene.fps, when


def test_an_event_withdrawn_before_it_was_written_stays_out_of_the_log():
    """The rules withdraw a 10's `pile_closed` by an amendment when a stop seen late makes the 10
    after-stop; the log holds events a while, so what was withdrawn meanwhile is never written."""
    from ligretto_vision.events import Event, amendment

    if not S03:
        pytest.skip("sample scene s03-count-2p not found (set LIGRETTO_SHARED)")
    written = []
    source = SceneSource(S03[0])
    pipe = Pipeline(source.scene, written.extend)
    pipe.feed(next(iter(source.frames())))  # the table is calibrated; nothing happens in frame 0
    source.close()
    play = Event("play", 140, {"player": "P2", "card": "red-10", "pile": 1, "legal": True})
    closed = Event("pile_closed", 140, {"pile": 1, "face": "face-up"})
    pipe.pending += [(141, play), (141, closed)]
    pipe.pending += [(150, amendment(closed, why_withdrawn="after-stop"))]  # as Round._stop sends it
    pipe.run([])  # nothing more comes: what is held is written
    assert written == [play]


def test_arms_from_twelve_seats_belong_to_their_own_seats():
    """Up to 12 players, three to an edge: an arm reaching in over the edge is its own seat's,
    not a neighbour's 430 mm along the same edge."""
    from ligretto_vision.detect.activity import ActivityMonitor
    from ligretto_vision.geometry.zones import TableLayout

    first, cal, layout4, scene = _s01_table()
    angles = [0, 25, 65, 90, 115, 155, 180, 205, 245, 270, 295, 335]  # none at a corner's marker
    layout = TableLayout((layout4.w, layout4.h), [(f"P{i + 1}", float(a)) for i, a in enumerate(angles)],
                         scene.card_mm, 3)
    for k, seat in enumerate(layout.seats):
        mon = ActivityMonitor(cal, layout, scene.fps, tuple(scene.size))
        mon.update(0, first)
        (ex, ey), (nx, ny) = seat.edge_point, seat.normal
        tx, ty = -ny, nx  # along the edge
        for i in range(1, 6):
            depth = 200.0 + 20 * i  # the arm reaches further in, frame by frame
            arm = [(ex - 40 * tx, ey - 40 * ty), (ex + 40 * tx, ey + 40 * ty),
                   (ex + 40 * tx + depth * nx, ey + 40 * ty + depth * ny),
                   (ex - 40 * tx + depth * nx, ey - 40 * ty + depth * ny)]
            mon.update(i, _painted(first, cal, [arm], [(40, 30, 30)]))
        mx, my = ex + 150 * nx, ey + 150 * ny  # the arm's middle
        got = mon.seat_hist[-1][int(my * mon.ppm) - 1:int(my * mon.ppm) + 2, int(mx * mon.ppm) - 1:int(mx * mon.ppm) + 2]
        assert set(np.unique(got)) == {k}, (seat.player, seat.angle, np.unique(got))


@pytest.mark.parametrize("name", ["s01-play-4p", "s03-count-2p"])
def test_every_play_is_decided_within_0_3_s_of_its_rest_frame(name):
    """The latency bar, counted in video from each truth play's rest frame to the frame the live
    pipeline (fed frame by frame, nothing held back) decided it in."""
    from ligretto_vision.evaluate import eval_lag

    found = [p for p in sample_scenes() if p.name == name]
    if not found:
        pytest.skip(f"sample scene {name} not found (set LIGRETTO_SHARED)")
    lags, total = eval_lag(found[0])
    assert len(lags) == total
    late = [(round(lag, 2), t["card"], t["frame"]) for lag, t in lags if lag > 0.3 + 1e-9]
    assert not late, late


def test_a_card_laid_on_a_pile_the_referee_missed_is_not_called_illegal(tmp_path, monkeypatch):
    """s01 begins with eight piles lying in the centre. Here the referee is made to miss them all
    at the start: a card laid on one lands where the table was not bare though no pile was known
    there, so what it lies on is not known. It is written unsure, never 'wrong number' as if it
    began a pile, and the plays after it on that pile are judged by it again."""
    import json

    from ligretto_vision.referee.referee import Referee

    s01 = [p for p in sample_scenes() if p.name == "s01-play-4p"]
    if not s01:
        pytest.skip("sample scene s01-play-4p not found (set LIGRETTO_SHARED)")
    monkeypatch.setattr(Referee, "_piles_seen", lambda self, *a, **k: None)
    log = blind_replay(s01[0], tmp_path)[0]
    plays = [e for e in map(json.loads, log.read_text().splitlines()) if e["type"] == "play"]
    truth = [e for e in map(json.loads, (s01[0] / "truth.jsonl").read_text().splitlines()) if e["type"] == "play"]
    wrong = [p for p in plays if p.get("legal") is False
             and not any(t["card"] == p["card"] and t.get("legal") is False for t in truth)]
    assert not wrong, wrong
    unsure = [p for p in plays if p.get("unsure_of") == "pile-top"]
    assert len(unsure) >= 3, plays  # the first card on each of the missed piles played on
    later = [p for p in plays if p.get("legal") is True and p["pile"] in {u["pile"] for u in unsure}]
    assert later, "the piles go on from the unsure card: the next ones are judged legal again"


def test_a_card_laid_on_a_pile_whose_top_was_missed_is_not_called_illegal(tmp_path, monkeypatch):
    """s01: P1 lays the blue 5 on the blue 4 at frame 185. Here the referee is made to miss that
    play (as if its change had read as nothing). The blue 6 that follows at 502 does not follow the
    top the referee knows (the 4), but the 4's place changed since it was taken in, with no card
    seen laid there: a card was missed, so the 6 is written unsure, not 'wrong number'. The pile
    goes on from the 6: the 7 is legal, and the blue 9 laid on the 7 at 616 is still illegal."""
    import json

    from ligretto_vision.referee.referee import Referee

    s01 = [p for p in sample_scenes() if p.name == "s01-play-4p"]
    if not s01:
        pytest.skip("sample scene s01-play-4p not found (set LIGRETTO_SHARED)")
    judge = Referee._judge_change

    def missing_the_blue_5(self, s, index, image, top, *rest):
        return [] if top[1].card == "blue-5" else judge(self, s, index, image, top, *rest)

    monkeypatch.setattr(Referee, "_judge_change", missing_the_blue_5)
    log = blind_replay(s01[0], tmp_path)[0]
    plays = {e["card"]: e for e in map(json.loads, log.read_text().splitlines())
             if e["type"] == "play" and e["card"].startswith("blue-") and 490 <= e["frame"] <= 630}
    assert plays["blue-6"].get("unsure") is True and "legal" not in plays["blue-6"], plays
    assert plays["blue-7"]["legal"] is True
    assert plays["blue-9"]["legal"] is False and plays["blue-9"]["reason"] == "wrong-number"


def test_a_card_whose_change_is_too_small_for_a_card_is_still_read_on_its_pile(tmp_path, monkeypatch):
    """A card laid neatly on a pile of its colour changes little more than its numerals: the change
    may settle in pieces each too small to be a card. Here every change in s01 is made to look that
    small: a piece on a known pile is still looked at, and the card that follows the pile, read
    surely, is a play (the 1s that begin piles are lost here: they lie on no pile)."""
    import json

    from ligretto_vision.detect.changes import Settled

    s01 = [p for p in sample_scenes() if p.name == "s01-play-4p"]
    if not s01:
        pytest.skip("sample scene s01-play-4p not found (set LIGRETTO_SHARED)")
    area = Settled.area_mm2
    monkeypatch.setattr(Settled, "area_mm2", lambda self: min(area(self), 1000.0))  # under 0.3 of a card
    log = blind_replay(s01[0], tmp_path)[0]
    plays = [e for e in map(json.loads, log.read_text().splitlines()) if e["type"] == "play"]
    truth = [e for e in map(json.loads, (s01[0] / "truth.jsonl").read_text().splitlines())
             if e["type"] == "play" and e.get("legal") and not e["card"].endswith("-1")]
    found = [t for t in truth if any(p["card"] == t["card"] and abs(p["frame"] - t["frame"]) <= 7 for p in plays)]
    assert len(found) >= 0.8 * len(truth), (len(found), len(truth), plays)
    assert not [p for p in plays if p.get("legal") is False], plays
