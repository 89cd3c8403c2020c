"""check-log: the rules engine agrees with the sample truths, and finds planted disagreements."""
import json
import shutil

import pytest

from conftest import sample_scenes
from ligretto_vision.checklog import check_log
from ligretto_vision.cli import main
from ligretto_vision.errors import LigrettoError


@pytest.mark.parametrize("scene", sample_scenes(), ids=lambda p: p.name)
def test_rules_agree_with_every_sample_truth(scene, capsys):
    assert main(["check-log", str(scene)]) == 0
    out = capsys.readouterr().out
    n = sum(1 for line in (scene / "truth.jsonl").read_text().splitlines() if '"state"' not in line and line.strip())
    assert f"checked {n} events: agrees with the rules on every event" in out


def copy_scene(scenes_dir, tmp_path, name="s02-dispute-3p"):
    dst = tmp_path / name
    dst.mkdir()
    shutil.copy(scenes_dir / name / "scene.json", dst / "scene.json")
    return dst, [json.loads(l) for l in (scenes_dir / name / "truth.jsonl").read_text().splitlines() if l.strip()]


def write(dst, lines):
    (dst / "truth.jsonl").write_text("\n".join(l if isinstance(l, str) else json.dumps(l) for l in lines) + "\n")


def test_flipped_legality_is_reported_with_line(scenes_dir, tmp_path):
    dst, lines = copy_scene(scenes_dir, tmp_path)
    i = next(i for i, e in enumerate(lines) if e["type"] == "play" and e["legal"] is False)
    lines[i]["legal"] = True
    del lines[i]["reason"]
    write(dst, lines)
    rep = check_log(dst)
    assert any(f"truth.jsonl:{i + 1}:" in p and "log says legal, the rules say illegal" in p for p in rep.problems)


def test_wrong_dispute_winner_and_missing_round_end_are_reported(scenes_dir, tmp_path):
    dst, lines = copy_scene(scenes_dir, tmp_path)
    d = next(e for e in lines if e["type"] == "dispute" and e["winner"] != "both")
    d["winner"] = "P1" if d["winner"] != "P1" else "P2"
    write(dst, lines)
    assert any("dispute over" in p for p in check_log(dst).problems)

    (tmp_path / "b").mkdir()
    dst, lines = copy_scene(scenes_dir, tmp_path / "b", "s03-count-2p")
    write(dst, [e for e in lines if e["type"] != "round_end"])
    assert any("the rules expect round_end" in p for p in check_log(dst).problems)


def test_wrong_count_is_reported(scenes_dir, tmp_path):
    dst, lines = copy_scene(scenes_dir, tmp_path, "s03-count-2p")
    lines[-1]["stack"] += 1
    write(dst, lines)
    problems = check_log(dst).problems
    assert any("stack cards left" in p for p in problems)


def test_impossible_takeback_is_reported(scenes_dir, tmp_path):
    dst, lines = copy_scene(scenes_dir, tmp_path)
    lines.append({"type": "takeback", "frame": 5000, "player": "P1", "card": "green-9", "pile": 1})
    write(dst, lines)
    assert any("cannot have happened" in p and "green-9" in p for p in check_log(dst).problems)


@pytest.mark.parametrize("bad,problem", [
    ('{"type": "play", "frame": 3', "not valid JSON"),
    ('{"type": "wave", "frame": 3}', "unknown event type"),
    ('{"type": "play", "frame": 3, "player": "P1", "pile": 1}', "missing card"),
    ('{"type": "play", "frame": -1, "player": "P1", "card": "red-1", "pile": 1}', "'frame'"),
    ('{"type": "play", "frame": 130, "player": "P1", "card": "mauve-1", "pile": 1}', "colour 'mauve'"),
])
def test_malformed_lines_name_file_line_and_problem(scenes_dir, tmp_path, capsys, bad, problem):
    dst, lines = copy_scene(scenes_dir, tmp_path)
    write(dst, [*lines[:3], bad, *lines[3:]])
    assert main(["check-log", str(dst)]) == 2
    err = capsys.readouterr().err
    assert "truth.jsonl:4:" in err and problem in err and "Traceback" not in err


def test_out_of_order_frames_are_refused(scenes_dir, tmp_path):
    dst, lines = copy_scene(scenes_dir, tmp_path)
    lines[2]["frame"] = 99999
    write(dst, lines)
    with pytest.raises(LigrettoError, match="frame order"):
        check_log(dst)


@pytest.mark.parametrize("content,problem", [
    ("{not json", "not valid JSON"),
    ('{"format": "ligretto-scene/1"}', "video"),
    ('[1, 2]', "one JSON object"),
])
def test_broken_scene_json_is_named(tmp_path, capsys, content, problem):
    (tmp_path / "scene.json").write_text(content)
    assert main(["check-log", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "scene.json" in err and problem in err


def test_bad_rules_in_scene_json_are_named(scenes_dir, tmp_path, capsys):
    dst, _ = copy_scene(scenes_dir, tmp_path)
    raw = json.loads((dst / "scene.json").read_text())
    raw["rules"]["ten"] = "sideways"
    (dst / "scene.json").write_text(json.dumps(raw))
    assert main(["check-log", str(dst)]) == 2
    assert "rules: ten" in capsys.readouterr().err


def test_missing_scene_and_missing_truth(tmp_path, scenes_dir, capsys):
    assert main(["check-log", str(tmp_path / "nope")]) == 2
    assert "no such scene folder" in capsys.readouterr().err
    dst, _ = copy_scene(scenes_dir, tmp_path)
    assert main(["check-log", str(dst)]) == 2
    assert "no such event log" in capsys.readouterr().err


# ---- a scene that starts in the middle of a round: cards in hand, gaps in rows --------------
def mid_round_state(**players):
    """A state line for s02's table (three players, classic colours) with `players` changed."""
    base = {
        "P1": {"stack": 1, "stack_top": "green-3", "row": [None, "yellow-4", "blue-7", "green-9"],
               "discard_top": "red-9", "held": [{"card": "red-3", "from": "stack"}]},
        "P2": {"stack": 5, "stack_top": "yellow-2", "row": ["red-6", None, "yellow-3", "blue-5"],
               "discard_top": "yellow-9",
               "held": [{"card": "blue-2", "from": "discard"}, {"card": "green-5", "to": "row"}]},
        "P3": {"stack": 4, "stack_top": "blue-4", "row": ["blue-6", "red-7", "yellow-8", None],
               "discard_top": None, "held": [{"card": "yellow-1", "from": "row"}]},
    }
    for p, changes in players.items():
        base[p] = {**base[p], **changes}
    return {"type": "state", "frame": 0, "players": base,
            "piles": {"1": ["red-1", "red-2"], "2": ["blue-1"], "3": ["green-1", "green-2", "green-3", "green-4"]}}


MID_ROUND = [
    {"type": "play", "frame": 10, "player": "P2", "card": "blue-2", "from": "discard", "pile": 2, "legal": True},
    # taken back before frame 0 on its way to the row: it may be played from there
    {"type": "play", "frame": 15, "player": "P2", "card": "green-5", "from": "row", "pile": 3, "legal": True},
    {"type": "play", "frame": 20, "player": "P3", "card": "yellow-1", "from": "row", "pile": 4, "legal": True},
    # the stack's size in the state leaves the held card out: laying it leaves one stack card
    {"type": "play", "frame": 30, "player": "P1", "card": "red-3", "from": "stack", "pile": 1, "legal": True},
    {"type": "refill", "frame": 40, "player": "P1", "card": "green-3"},  # into the gap: the stack is empty
    {"type": "round_end", "frame": 40, "player": "P1"},
    {"type": "count", "frame": 100, "player": "P1", "centre": 3, "stack": 0},
    {"type": "count", "frame": 100, "player": "P2", "centre": 5, "stack": 5},
    {"type": "count", "frame": 100, "player": "P3", "centre": 3, "stack": 4},
]


def test_held_cards_and_row_gaps_in_the_state_line(scenes_dir, tmp_path, capsys):
    dst, _ = copy_scene(scenes_dir, tmp_path)
    write(dst, [mid_round_state(), *MID_ROUND])
    rep = check_log(dst)
    assert rep.problems == [] and rep.checked == len(MID_ROUND)
    assert rep.scores == {"P1": 3, "P2": -5, "P3": -5}
    assert main(["check-log", str(dst)]) == 0
    assert "agrees with the rules on every event" in capsys.readouterr().out


def test_a_held_card_is_playable_only_from_where_it_was_taken(scenes_dir, tmp_path):
    dst, _ = copy_scene(scenes_dir, tmp_path)
    lines = [dict(e) for e in MID_ROUND]
    lines[0]["from"] = "row"  # blue-2 was picked up from the discard pile, and the row has none
    write(dst, [mid_round_state(), *lines])
    problems = check_log(dst).problems
    assert len(problems) == 1 and "truth.jsonl:2:" in problems[0] and "not-playable" in problems[0]


@pytest.mark.parametrize("players,problem", [
    ({"P1": {"row": [None, "yellow-x"]}}, "P1 row: card 'yellow-x'"),
    ({"P2": {"held": [{"card": "blue-2"}]}}, "P2 held"),
    ({"P2": {"held": [{"card": "blue-2", "from": "discard", "to": "row"}]}}, "P2 held"),
    ({"P3": {"held": [{"card": "yellow-1", "from": "pocket"}]}}, "'pocket' is not one of"),
    ({"P3": {"held": {"card": "yellow-1"}}}, "'held' must be a list"),
    ({"P1": {"held": [{"card": "green-3", "from": "stack"}]}}, "holds green-3, which also lies"),
    ({"P1": {"stack": "many"}}, "'stack' must be a whole number"),
    ({"P4": {"stack": 3}}, "'P4', who is not at this table"),
])
def test_a_bad_state_line_names_file_line_and_problem(scenes_dir, tmp_path, capsys, players, problem):
    dst, _ = copy_scene(scenes_dir, tmp_path)
    state = mid_round_state(**{p: c for p, c in players.items() if p != "P4"})
    if "P4" in players:
        state["players"]["P4"] = players["P4"]
    write(dst, [state, *MID_ROUND])
    assert main(["check-log", str(dst)]) == 2
    err = capsys.readouterr().err
    assert "truth.jsonl:1:" in err and problem in err and "Traceback" not in err


def test_an_amend_line_is_checked_as_the_correction_of_the_event_it_names(scenes_dir, tmp_path):
    dst, lines = copy_scene(scenes_dir, tmp_path)
    i = next(i for i, e in enumerate(lines) if e["type"] == "play" and e["legal"] is False)
    reason = lines[i].pop("reason")
    lines[i]["legal"] = True  # sent as legal, then corrected by an amendment: the log agrees with the rules
    of = {"type": "play", "frame": lines[i]["frame"], **{k: lines[i][k] for k in ("player", "card", "pile")}}
    lines.insert(i + 1, {"type": "amend", "frame": lines[i]["frame"], "of": of, "legal": False, "reason": reason})
    write(dst, lines)
    assert check_log(dst).ok, check_log(dst).problems

    lines[i + 1]["of"]["card"] = "red-1" if lines[i]["card"] != "red-1" else "red-2"  # names a play the log has not
    write(dst, lines)
    problems = check_log(dst).problems
    assert any(f"truth.jsonl:{i + 1}:" in p and "log says legal, the rules say illegal" in p for p in problems)
    assert any(f"truth.jsonl:{i + 2}: log has amend" in p for p in problems), problems


def test_an_unsure_play_is_taken_as_written_and_a_card_laid_on_it_is_not_judged(scenes_dir, tmp_path):
    dst, _ = copy_scene(scenes_dir, tmp_path)
    state = {"type": "state", "frame": 0, "piles": {"1": ["blue-1"]},
             "players": {p: {"stack": 10} for p in ("P1", "P2", "P3")}}
    unsure = {"type": "play", "frame": 10, "player": "P2", "card": "blue-2", "pile": 1, "unsure": True,
              "unsure_of": "card", "confidence": 0.5}
    on_it = {"type": "play", "frame": 20, "player": "P3", "card": "green-8", "pile": 1, "unsure": True,
             "unsure_of": "pile-top", "confidence": 0.97}
    # green-8 was not judged, so it is no firm top: a card that does not follow it is not judged either
    # (and lies on top, no firm top in turn); one that follows the top is judged, and firm again
    then = {"type": "play", "frame": 30, "player": "P1", "card": "yellow-2", "pile": 1, "unsure": True,
            "unsure_of": "pile-top"}
    follows = {"type": "play", "frame": 40, "player": "P2", "card": "yellow-3", "pile": 1, "legal": True}
    write(dst, [state, unsure, on_it, then, follows])
    assert check_log(dst).ok, check_log(dst).problems

    judged = {**on_it, "legal": False, "reason": "wrong-colour"}
    del judged["unsure"], judged["unsure_of"]
    write(dst, [state, unsure, judged, then])
    problems = check_log(dst).problems
    assert len(problems) == 1 and "truth.jsonl:3:" in problems[0] \
        and "log says illegal (wrong-colour), the rules say not judged (unsure)" in problems[0]

    write(dst, [state, {**unsure, "legal": True}, on_it, then])
    problems = check_log(dst).problems
    assert len(problems) == 1 and "truth.jsonl:2:" in problems[0] and "both judged" in problems[0]
