"""The proving ground's report: plays paired as the scorer pairs them, every scene counted under
each kind it has, and the plays called illegal checked against the truth."""
from __future__ import annotations

from ligretto_vision.proving.suite import SceneResult, _matches, find_scorer, report


def _play(frame, card, legal=True):
    return {"type": "play", "frame": frame, "card": card, "legal": legal}


def test_plays_pair_one_to_one_by_card_nearest_first():
    pred = [_play(10, "red-3"), _play(12, "red-3"), _play(40, "blue-1")]
    truth = [_play(11, "red-3"), _play(30, "blue-1")]
    pairs = _matches(pred, truth, tol=7.5)
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
