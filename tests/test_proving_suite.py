"""The proving ground's report: plays paired as the scorer pairs them, every scene counted under
each kind it has, and the plays called illegal checked against the truth."""
from __future__ import annotations

import pytest

from ligretto_vision.proving.suite import SceneResult, match_plays, find_scorer, report


def _play(frame, card, legal=True):
    return {"type": "play", "frame": frame, "card": card, "legal": legal}


def test_plays_pair_one_to_one_by_card_nearest_first():
    pred = [_play(10, "red-3"), _play(12, "red-3"), _play(40, "blue-1")]
    truth = [_play(11, "red-3"), _play(30, "blue-1")]
    pairs = match_plays(pred, truth, tol=7.5)
    assert pairs[0][1] is truth[0] and pairs[1][1] is None  # 10 and 12 are one frame away: the earlier pair wins
    assert pairs[2][1] is None  # 10 frames off: beyond the tolerance


def _result(seed, effects, play_f1, called=0, wrong=0, error=None):
    kinds = {"profile": "one-effect", "print": "classic", "font": "usual", "edition": "classic", "seats": "4",
             "surface": "felt", "effects": effects, "ten": "face-up", "video": "720p30 h264"}
    return SceneResult(seed, kinds, {"play_f1": play_f1, "legal_acc": 1.0}, called_illegal=called,
                       wrongly_illegal=wrong, frames=100, referee_s=1.0, error=error)


def test_a_scene_counts_for_each_of_its_effects_and_errors_are_named():
    text = report([_result(1, "knock+glare", 0.5, called=4, wrong=1), _result(2, "glare", 1.0),
                   _result(3, "", 0.0, error="RuntimeError: boom")])
    rows = {line.split(" | ")[0].strip("| "): line for line in text.splitlines() if line.startswith("| ")}
    assert rows["effect: glare"].split(" | ")[1] == "2"  # scenes 1 and 2
    assert rows["effect: knock"].split(" | ")[1] == "1"
    assert rows["effect: glare"].split(" | ")[2] == "0.75"  # mean play_f1 of 0.5 and 1.0
    assert rows["**all**"].split(" | ")[1] == "2"  # the broken scene is not averaged in ...
    assert "3: ERROR RuntimeError: boom" in text  # ... but named
    assert "illegal precision 0.750" in text


def test_the_scorer_is_found_beside_the_project():
    assert find_scorer().name == "score_events.py"


def test_each_missed_play_is_put_down_to_why_and_wrong_calls_are_listed():
    from ligretto_vision.proving.misses import misses

    def play(frame, card, player, legal=True, at=(500.0, 400.0)):
        return {"type": "play", "frame": frame, "card": card, "player": player, "legal": legal, "at": list(at)}

    truth = [play(10, "red-2", "P1"),  # found
             play(50, "red-3", "P2"),  # written 20 frames late
             play(90, "blue-4", "P1"), play(93, "blue-4", "P3", legal=False),  # a dispute seen as one card
             {"type": "dispute", "frame": 93, "card": "blue-4", "winner": "P1",
              "claims": [{"player": "P1", "touch": 88}, {"player": "P3", "touch": 91}]},
             play(130, "green-6", "P2", at=(700.0, 300.0)),  # read as another card where it lies
             play(170, "yellow-9", "P3", at=(300.0, 600.0))]  # nothing written at all
    log = [play(10, "red-2", "P1"), play(70, "red-3", "P2"), play(94, "blue-4", "P3", legal=False),
           play(131, "green-8", "P2", at=(703.0, 302.0)),
           play(200, "red-4", "P1", legal=False)]  # a call of illegal with no such play in the truth
    found = {(m.frame, m.card): m for m in misses(7, log, truth, fps=30.0)}
    assert found[(50, "red-3")].why == "late" and "frame 70" in found[(50, "red-3")].seen
    assert found[(90, "blue-4")].why == "dispute"  # the log's one card paired with the loser's
    assert found[(130, "green-6")].why == "misread" and "green-8" in found[(130, "green-6")].seen
    assert found[(170, "yellow-9")].why == "unwritten"
    assert found[(200, "red-4")].why == "wrong call" and found[(200, "red-4")].seen == "truth: no such play"
    assert (10, "red-2") not in found and (93, "blue-4") not in found and len(found) == 5


def test_a_share_of_frames_lost_that_cannot_be_is_refused_before_any_scene_is_made(tmp_path):
    from ligretto_vision.errors import LigrettoError
    from ligretto_vision.proving.suite import run_suite

    with pytest.raises(LigrettoError, match="share of frames lost must be at least 0 and below 1, not 1.5"):
        run_suite(seeds=[3], root=tmp_path, lose_frames=1.5)
    assert not any(tmp_path.iterdir())  # nothing made
