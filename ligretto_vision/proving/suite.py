"""A suite of generated scenes: made (or reused), refereed with the live pipeline, scored with
../shared/tools/score_events.py, and reported per kind of variation, on both cores.

    ligretto-vision proving-ground --suite quick              # ~10 scenes, for every change
    ligretto-vision proving-ground --suite standard            # 60 scenes, for an issue's figures
    ligretto-vision proving-ground --suite standard --range tune   # the range one may tune on

The measuring range (the default) is never tuned on. Scenes are kept under `--dir`
(build/proving/<range>/<seed>) and made again only when the generator has changed.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ligretto_vision.capture.lossy import losing_frames
from ligretto_vision.config.vision import VisionConfig
from ligretto_vision.errors import LigrettoError
from ligretto_vision.proving.draw import seed_range
from ligretto_vision.proving.generate import GENERATOR_VERSION

SUITES = {"quick": 10, "standard": 60}
FIGURES = ("play_f1", "player_acc", "legal_acc", "illegal_recall", "pile_consistency", "takeback_f1", "dispute_acc",
           "round_end_err", "count_exact")
AXES = ("profile", "print", "font", "edition", "seats", "surface", "effect", "ten", "video")


@dataclass
class SceneResult:
    seed: int
    kinds: dict
    figures: dict = field(default_factory=dict)
    phantom_plays: int = 0  # predicted plays that match no truth play
    called_illegal: int = 0  # plays the referee called illegal
    wrongly_illegal: int = 0  # ... of which the truth says legal (or that match no truth play)
    frames: int = 0
    make_s: float = 0.0
    referee_s: float = 0.0
    error: str | None = None


def find_scorer(explicit: str | None = None, name: str = "score_events.py") -> Path:
    """../shared/tools/<name> beside the project (the card game's scorer, or score_board.py), or where
    `explicit` says."""
    here = Path(__file__).resolve().parents[2]
    for p in ([Path(explicit)] if explicit else []) + [here.parent / "shared" / "tools" / name,
                                                       Path.cwd().parent / "shared" / "tools" / name]:
        if p.is_file():
            return p
    raise LigrettoError(f"the scorer {name} was not found (looked in ../shared/tools/); give --scorer PATH")


def _kept(folder: Path) -> bool:
    try:
        meta = json.loads((folder / "draw.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return meta.get("generator") == GENERATOR_VERSION and (folder / "video.mp4").is_file() and (folder / "truth.jsonl").is_file()


def match_plays(pred: list[dict], truth: list[dict], tol: float) -> list[tuple[dict, dict | None]]:
    """Each predicted play with the truth play it matches (same card, nearest frame within tol), as the scorer pairs them."""
    pairs = sorted(((abs(p["frame"] - t["frame"]), i, j) for i, p in enumerate(pred) for j, t in enumerate(truth)
                    if p.get("card", "").lower() == t.get("card", "").lower() and abs(p["frame"] - t["frame"]) <= tol))
    used_p, used_t, match = set(), set(), {}
    for _, i, j in pairs:
        if i not in used_p and j not in used_t:
            used_p.add(i), used_t.add(j)
            match[i] = truth[j]
    return [(p, match.get(i)) for i, p in enumerate(pred)]


def events_in(path: Path) -> list[dict]:
    """The events of a log (or a truth) file, in its order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def plays_in(path: Path) -> list[dict]:
    return [e for e in events_in(path) if e.get("type") == "play"]


def wrongly_called(pairs: list[tuple[dict, dict | None]]) -> list[tuple[dict, dict | None]]:
    """Of `match_plays`' pairs, the plays called illegal that the truth says were legal, or made no such play."""
    return [(p, t) for p, t in pairs if p.get("legal") is False and (t is None or t.get("legal") is not False)]


def run_scene(seed: int, root: str, scorer: str, vision: VisionConfig = VisionConfig(),
              lose_frames: float = 0.0) -> SceneResult:
    """Make (or reuse) one scene, referee it (with `vision`'s thresholds; `lose_frames` of its frames
    lost on the way, as a live camera may) and score it. Runs in a worker process."""
    import cv2

    cv2.setNumThreads(1)
    from ligretto_vision.proving.generate import generate
    from ligretto_vision.referee.replay import replay

    folder = Path(root) / str(seed)
    res = SceneResult(seed, {})
    try:
        if not _kept(folder):
            res.make_s = generate(seed, folder).seconds
        meta = json.loads((folder / "draw.json").read_text(encoding="utf-8"))
        res.kinds, res.frames = meta["kinds"], meta["frames"]
        log = folder / "referee.jsonl"
        t0 = time.monotonic()
        replay(folder, log, vision=vision, lose_frames=lose_frames, seed=seed)  # the live pipeline; it never reads truth.jsonl
        res.referee_s = time.monotonic() - t0
        out = subprocess.run([sys.executable, scorer, str(folder), str(log)], capture_output=True, text=True, check=True)
        res.figures = json.loads(out.stdout)
        fps = json.loads((folder / "scene.json").read_text(encoding="utf-8"))["fps"]
        pairs = match_plays(plays_in(log), plays_in(folder / "truth.jsonl"), 0.25 * fps)
        res.phantom_plays = sum(t is None for _, t in pairs)
        res.called_illegal = sum(p.get("legal") is False for p, _ in pairs)
        res.wrongly_illegal = len(wrongly_called(pairs))
    except Exception as exc:  # one broken scene is reported, never stops the suite
        res.error = f"{type(exc).__name__}: {exc}"
    return res


def run_suite(suite: str = "quick", range_name: str = "measure", root: str | Path = "build/proving",
              workers: int = 2, scorer: str | None = None, seeds: list[int] | None = None,
              vision: VisionConfig = VisionConfig(), lose_frames: float = 0.0) -> list[SceneResult]:
    if seeds is None:
        if suite not in SUITES:
            raise LigrettoError(f"unknown suite {suite!r} (known: {', '.join(SUITES)})")
        first = seed_range(range_name)
        seeds = [first + i for i in range(SUITES[suite])]
    losing_frames((), lose_frames)  # a share it refuses is refused before any scene is made
    where = Path(root) / range_name
    where.mkdir(parents=True, exist_ok=True)
    score = str(find_scorer(scorer))
    if workers <= 1:
        return [run_scene(s, str(where), score, vision, lose_frames) for s in seeds]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(run_scene, seeds, [str(where)] * len(seeds), [score] * len(seeds), [vision] * len(seeds),
                             [lose_frames] * len(seeds)))


def _groups(results: list[SceneResult]) -> dict[str, dict[str, list[SceneResult]]]:
    out: dict[str, dict[str, list[SceneResult]]] = {a: defaultdict(list) for a in AXES}
    for r in results:
        if r.error:
            continue
        for axis in AXES:
            if axis == "effect":  # a scene with several effects counts for each
                for e in (r.kinds.get("effects") or "none").split("+"):
                    out[axis][e].append(r)
            else:
                out[axis][str(r.kinds.get(axis, "?"))].append(r)
    return out


def _mean(rs: list[SceneResult], key: str) -> str:
    vals = [r.figures[key] for r in rs if r.figures.get(key) is not None]
    if not vals:
        return "–"
    m = sum(vals) / len(vals)
    return f"{m:.0f}" if key == "round_end_err" else f"{m:.2f}"


def report(results: list[SceneResult], worst: int = 8) -> str:
    """Markdown: the mean of each figure overall and per kind, the worst scenes, and errors."""
    ok = [r for r in results if not r.error]
    head = "| kind | scenes | " + " | ".join(FIGURES) + " | phantom plays |"
    sep = "|" + " --- |" * (len(FIGURES) + 3)

    def row(name: str, rs: list[SceneResult]) -> str:
        return f"| {name} | {len(rs)} | " + " | ".join(_mean(rs, k) for k in FIGURES) + f" | {sum(r.phantom_plays for r in rs)} |"

    lines = [head, sep, row("**all**", ok)]
    for axis, groups in _groups(results).items():
        for value in sorted(groups):
            lines.append(row(f"{axis}: {value}", groups[value]))
    called = sum(r.called_illegal for r in ok)
    wrong = sum(r.wrongly_illegal for r in ok)
    lines += ["", f"plays called illegal: {called}, of which legal in truth or no such play: {wrong}"
              + (f" (illegal precision {1 - wrong / called:.3f})" if called else "")]
    frames = sum(r.frames for r in ok)
    ref = sum(r.referee_s for r in ok)
    lines.append(f"referee: {frames} frames in {ref:.0f} s ({frames / ref:.0f} frames/s, one core each)" if ref else "")
    lines += ["", "worst scenes (play_f1 + legal_acc):"]
    for r in sorted(ok, key=lambda r: r.figures.get("play_f1", 0) + r.figures.get("legal_acc", 0))[:worst]:
        figs = ", ".join(f"{k} {v}" for k, v in r.figures.items() if v is not None)
        lines.append(f"- {r.seed}: {figs} — {json.dumps(r.kinds, ensure_ascii=False)}")
    for r in results:
        if r.error:
            lines.append(f"- {r.seed}: ERROR {r.error}")
    return "\n".join(lines)


def save(results: list[SceneResult], path: str | Path) -> None:
    Path(path).write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
