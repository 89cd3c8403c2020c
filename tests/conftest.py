import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("LIGRETTO_SHARED", ROOT.parent / "shared"))
SCENES = SHARED / "scenes"


def sample_scenes() -> list[Path]:
    return sorted(p for p in SCENES.glob("*") if (p / "scene.json").exists()) if SCENES.is_dir() else []


@pytest.fixture
def scenes_dir() -> Path:
    if not SCENES.is_dir():
        pytest.skip(f"sample scenes not found at {SCENES} (set LIGRETTO_SHARED to the shared/ folder)")
    return SCENES
