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
