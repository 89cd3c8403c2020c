"""The board game's proving ground: generated board scenes of every kind (board_draw.BOARD_KINDS),
made (or reused), refereed with the board referee, scored with ../shared/tools/score_board.py and
reported per kind.

    ligretto-vision proving-ground --game board --range tune      # the range one may tune on
    ligretto-vision proving-ground --game board                   # the measuring range, never tuned on

Scenes are kept under `--dir` (build/proving/board/<range>/<kind>-<seed>) and made again only when
the board generator has changed.
"""
from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ligretto_vision.proving.board_draw import BOARD_KINDS
from ligretto_vision.proving.board_film import BOARD_GENERATOR_VERSION, generate_board
from ligretto_vision.proving.draw import seed_range
from ligretto_vision.proving.suite import find_scorer

FIGURES = ("place_f1", "player_acc", "legal_acc", "illegal_recall", "token_f1", "rank_exact", "takeback_f1")


def _kept(folder: Path) -> bool:
    try:
        return json.loads((folder / "draw.json").read_text(encoding="utf-8"))["generator"] == BOARD_GENERATOR_VERSION
    except (OSError, ValueError, KeyError):
        return False


def run_one(kind: str, seed: int, root: str, scorer: str) -> dict:
    """Make (or reuse) one scene, referee it, score it: {kind, seed, figures} or {kind, seed, error}."""
    from ligretto_vision.referee.replay import replay

    folder = Path(root) / f"{kind}-{seed}"
    try:
        if not _kept(folder):
            generate_board(seed, folder, kind)
        stats = replay(folder, folder / "events.jsonl")
        done = subprocess.run([sys.executable, scorer, str(folder), str(folder / "events.jsonl")],
                              capture_output=True, text=True, check=True)
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        return {"kind": kind, "seed": seed, "figures": figures, "ms_per_frame": 1000 * stats.referee_s / max(1, stats.frames)}
    except Exception as exc:  # one scene's failure is reported, the suite goes on
        return {"kind": kind, "seed": seed, "error": f"{type(exc).__name__}: {exc}"}


def run_board_suite(range_name: str, root: str | Path, per_kind: int = 2, workers: int = 2,
                    scorer: str | None = None) -> list[dict]:
    score = str(find_scorer(scorer, "score_board.py"))
    where = Path(root) / "board" / range_name
    where.mkdir(parents=True, exist_ok=True)
    first = seed_range(range_name)
    jobs = [(kind, first + i, str(where), score) for kind in BOARD_KINDS for i in range(per_kind)]
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(run_one, *zip(*jobs)))


def report(results: list[dict]) -> str:
    """Mean figures per kind and over all, as a markdown table (a figure a scene has none of is left out
    of its mean: no illegal card, no rank)."""
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        if "figures" in r:
            by_kind[r["kind"]].append(r["figures"])
    rows = ["| kind | scenes | " + " | ".join(FIGURES) + " |", "| --- | --- |" + " --- |" * len(FIGURES)]
    for kind, figs in [*by_kind.items(), ("every kind", [f for fs in by_kind.values() for f in fs])]:
        cells = []
        for name in FIGURES:
            vals = [f[name] for f in figs if isinstance(f.get(name), (int, float))]
            cells.append(f"{sum(vals) / len(vals):.3f}" if vals else "–")
        rows.append(f"| {kind} | {len(figs)} | " + " | ".join(cells) + " |")
    errors = [f"{r['kind']}-{r['seed']}: {r['error']}" for r in results if "error" in r]
    return "\n".join(rows + ([""] + [f"error: {e}" for e in errors] if errors else []))
