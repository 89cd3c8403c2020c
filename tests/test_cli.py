"""The command line as a user meets it."""
import json
import subprocess
import sys

import pytest

from ligretto_vision.cli import main
from ligretto_vision.config import Config, load_config
from ligretto_vision.errors import LigrettoError
from ligretto_vision.events import read_log


def test_simulate_writes_a_valid_log_that_the_rules_accept(tmp_path, capsys):
    out = tmp_path / "sim.jsonl"
    assert main(["simulate", "--players", "5", "--seed", "4", "--events", str(out)]) == 0
    events = read_log(out)
    assert sum(e.type == "count" for e in events) == 5
    assert "score" in capsys.readouterr().out


def test_simulate_refuses_impossible_tables(tmp_path, capsys):
    assert main(["simulate", "--players", "13", "--events", str(tmp_path / "x")]) == 2
    assert "2 to 12" in capsys.readouterr().err
    assert main(["simulate", "--events", str(tmp_path / "no" / "dir" / "x.jsonl")]) == 2
    assert "cannot write the event log" in capsys.readouterr().err


def test_console_script_runs():
    r = subprocess.run([sys.executable, "-m", "ligretto_vision", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "check-log" in r.stdout


def test_config_defaults_and_validation(tmp_path):
    assert Config().rules.stack_penalty == 2  # no file at all: every default
    good = tmp_path / "good.toml"
    good.write_text('[rules]\nstack_penalty = 3\nten = "face-down"\n[panel]\nport = 9000\n')
    cfg = load_config(good)
    assert cfg.rules.stack_penalty == 3 and cfg.panel.port == 9000 and cfg.rules.grace_s == 1.0
    for text, problem in [('[rules]\nstak_penalty = 3\n', "rules.stak_penalty"),
                          ('[panel]\nport = 0\n', "panel.port"),
                          ('[tabel]\n', "tabel"),
                          ('[rules\n', "not valid TOML")]:
        bad = tmp_path / "bad.toml"
        bad.write_text(text)
        with pytest.raises(LigrettoError, match=problem.replace(".", r"\.")) as exc:
            load_config(bad)
        assert "bad.toml" in str(exc.value)
    with pytest.raises(LigrettoError, match="no such config file"):
        load_config(tmp_path / "missing.toml")


def test_config_command_prints_the_settings(tmp_path, capsys):
    assert main(["config"]) == 0
    assert json.loads(capsys.readouterr().out)["rules"]["stack_penalty"] == 2


def test_bench_prints_each_stage_and_the_whole_referees_p95(capsys):
    """Speed is printed, never asserted: this checks only that every figure is there."""
    import re

    from conftest import sample_scenes

    found = [p for p in sample_scenes() if p.name == "s03-count-2p"]
    if not found:
        pytest.skip("sample scene s03-count-2p not found (set LIGRETTO_SHARED)")
    assert main(["bench", str(found[0]), "--frames", "40"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"work on every frame \(change watch\): +[\d.]+ ms median, [\d.]+ ms p95", out), out
    assert re.search(r"whole referee, inference included: +[\d.]+ ms per frame = \d+ frames/s \([\d.]+ ms p95\)", out), out
