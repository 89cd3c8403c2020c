"""Measuring the seeing stages on scenes with truth (never used by the referee itself).

`ligretto-vision eval-reading SCENE...`: for every truth `play`, the card lying at its `at`
position is read, in the frame 0.5 s after the play (or the frame before the next event on
that pile, if sooner). Two figures: reading at the true pose (recognition alone), and
finding the card from a guess 8 mm and 8 degrees off first (detection + recognition).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ligretto_vision.detect.outlines import refine
from ligretto_vision.errors import LigrettoError
from ligretto_vision.geometry.calibration import MarkerLayout, calibrate
from ligretto_vision.recognise.patches import Pose, card_patch
from ligretto_vision.recognise.reader import CardReader, Enrollment
from ligretto_vision.scene import load_scene


@dataclass
class ReadingScore:
    scene: str
    total: int = 0
    right_at_truth: int = 0
    right_after_search: int = 0
    calibration_mm: float = 0.0
    misses: list[str] = field(default_factory=list)


def _truth(scene_dir) -> list[dict]:
    """A scene's truth lines (the measuring tools' only reader of them)."""
    return [json.loads(l) for l in (Path(scene_dir) / "truth.jsonl").read_text().splitlines() if l.strip()]


def _look_frames(truth: list[dict], fps: float) -> list[tuple[dict, int]]:
    out = []
    for i, e in enumerate(truth):
        if e["type"] != "play":
            continue
        look = e["frame"] + int(round(0.5 * fps))
        nxt = [t["frame"] for t in truth[i + 1:] if str(t.get("pile")) == str(e["pile"]) and t["frame"] > e["frame"]]
        if nxt:
            look = min(look, nxt[0] - 1)
        out.append((e, look))
    return out


def eval_reading(scene_dir, reader: CardReader | None = None) -> ReadingScore:
    scene = load_scene(scene_dir)
    truth = _truth(scene_dir)
    looks = _look_frames(truth, scene.fps)
    want = {f for _, f in looks}
    reader = reader or CardReader.for_scene(scene)
    cap = cv2.VideoCapture(str(scene.video_path))
    frames, i, cal = {}, 0, None
    while want - frames.keys():
        ok, img = cap.read()
        if not ok:
            break
        if cal is None:
            cal = calibrate(img, MarkerLayout.from_scene(scene))
        if i in want:
            frames[i] = img
        i += 1
    cap.release()
    score = ReadingScore(Path(scene_dir).name, calibration_mm=cal.error_mm)
    rng = np.random.default_rng(0)
    for e, f in looks:
        if f not in frames:
            continue
        img = frames[f]
        x, y, a = e["at"]
        truth_pose = Pose(x, y, a)
        r1 = reader.read([card_patch(img, cal.to_px, truth_pose, scene.card_mm)])[0]
        off = rng.normal(0, 1, 2)
        guess = Pose(x + 8 * off[0] / np.hypot(*off), y + 8 * off[1] / np.hypot(*off), a + rng.choice([-8, 8]))
        origin = (x - 90, y - 90)
        found = refine(cal.crop(img, origin, (180, 180)), origin, guess, scene.card_mm, search_mm=12, search_deg=12)
        r2 = reader.read([card_patch(img, cal.to_px, found.pose, scene.card_mm)])[0]
        score.total += 1
        score.right_at_truth += r1.card == e["card"]
        score.right_after_search += r2.card == e["card"]
        if r1.card != e["card"] or r2.card != e["card"]:
            score.misses.append(f"frame {f}: {e['card']} read {r1.card} (at truth), {r2.card} (after search)")
    return score


def eval_lag(scene_dir, tol_s: float = 0.25) -> tuple[list[tuple[float, dict]], int]:
    """How long after each truth `play` (its rest frame) the live pipeline, fed frame by frame,
    decided it: (lag in seconds, truth play) for every play it found (same card, within
    `tol_s`), and how many truth plays there were."""
    from ligretto_vision.capture.scene_source import SceneSource
    from ligretto_vision.referee.pipeline import Pipeline

    truth = _truth(scene_dir)
    source = SceneSource(scene_dir)
    decided: list[tuple[int, object]] = []  # (frame it was decided in, event)
    now = [0]

    def frames():
        for frame in source.frames():
            now[0] = frame.index
            yield frame

    pipe = Pipeline(source.scene, lambda events: decided.extend((now[0], e) for e in events), hold_s=0)
    try:
        pipe.run(frames())  # the live pipeline as `replay` runs it, the recording's end included
    finally:
        source.close()
    fps, tol = source.scene.fps, tol_s * source.scene.fps
    plays = [(when, e) for when, e in decided if e.type == "play"]
    used, out = set(), []
    truth_plays = [t for t in truth if t["type"] == "play"]
    for t in truth_plays:
        for i, (when, e) in enumerate(plays):
            if i not in used and e.data.get("card") == t["card"] and abs(e.frame - t["frame"]) <= tol:
                used.add(i)
                out.append(((when - t["frame"]) / fps, t))
                break
    return out, len(truth_plays)


def eval_backs(scene_dirs, per_back: int = 150, seed: int = 0, reader_for=None,
               fingers: bool = False) -> dict[str, tuple[int, int]]:
    """Every enrolled back of each scene, rendered onto our own tables (light, blur, noise,
    compression, a pile below, a slightly wrong crop) and told apart from the scene's others."""
    from ligretto_vision.sim.samples import sample

    rng = np.random.default_rng(seed)
    out = {}
    for d in scene_dirs:
        scene = load_scene(d)
        en = Enrollment.from_folder(scene.folder / "enroll", scene.card_mm, scene.colours, scene.player_ids)
        reader = reader_for(en) if reader_for else CardReader(en)
        right = total = 0
        for p in scene.player_ids:
            pic = cv2.imread(str(scene.folder / "enroll" / "backs" / f"{p}.png"))
            for _ in range(per_back):
                s = sample(rng, picture=pic, number=0, hard=0.7, fingers=fingers)
                owner, _ = reader.owner_of_back(s.patch)
                right += owner == p
                total += 1
        out[Path(d).name] = (right, total)
    return out


def perturb_scene(src, dst, light_drift: float = 0.0, warm: float = 0.0, bump_at: int | None = None,
                  bump_px: float = 0.0, quality: int = 0, noise: float = 0.0, speed: int = 1,
                  glare: float = 0.0, cloth_rgb: tuple[int, int, int] | None = None,
                  dim_at: int | None = None, dim_to: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> Path:
    """A harder copy of a scene for measuring robustness (the truth is copied for the scorer):
    light that dims over the video (`light_drift`: share lost by the end) and turns warm,
    a camera bumped at a frame (shifted and turned a little), heavier compression (JPEG
    `quality` per frame), sensor noise, players `speed` times as fast (only every
    `speed`-th frame kept, the truth's frames scaled to match), a lamp's glare (a
    bright patch of strength `glare` over the centre that drifts slowly), a cloth of
    another colour (`cloth_rgb`, e.g. a card colour: the cloth's texture and shading kept) and
    a lamp switched off or on: from frame `dim_at` on, each channel (B, G, R) at `dim_to` of
    its strength."""
    import shutil

    src, dst = Path(src), Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copy(src / "scene.json", dst / "scene.json")
    if (src / "truth.jsonl").exists():
        lines = _truth(src)
        for e in lines:
            e["frame"] = int(round(e["frame"] / speed))
            for c in e.get("claims", []):
                c["touch"] = int(round(c["touch"] / speed))
        (dst / "truth.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    if (dst / "enroll").exists():
        shutil.rmtree(dst / "enroll")
    shutil.copytree(src / "enroll", dst / "enroll")
    scene = load_scene(src)
    cap = cv2.VideoCapture(str(scene.video_path))
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) or 1
    w, h = scene.size
    out = cv2.VideoWriter(str(dst / scene.video), cv2.VideoWriter_fourcc(*"mp4v"), scene.fps, (w, h))
    rng = np.random.default_rng(0)
    M = cv2.getRotationMatrix2D((w / 2, h / 2), 0.6, 1.0)
    M[:, 2] += (bump_px, bump_px * 0.6)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    recolour = _cloth_recolour(scene.video_path, n, cloth_rgb) if cloth_rgb is not None else None
    i = -1
    while True:
        ok, img = cap.read()
        if not ok:
            break
        i += 1
        if i % speed:
            continue
        f = img.astype(np.float32)
        if recolour is not None:
            f = recolour(f)
        if glare:
            gx, gy = w * (0.45 + 0.1 * np.sin(i / n * np.pi)), h * 0.45
            f += 255 * glare * np.exp(-((xs - gx) ** 2 + (gy - ys) ** 2) / (2 * (0.12 * w) ** 2))[..., None]
        if light_drift or warm:
            k = i / n
            f *= (1 - light_drift * k)
            f *= np.array([1 - warm * k, 1.0, 1 + warm * k * 0.6], np.float32)
        if dim_at is not None and i >= dim_at:
            f *= np.array(dim_to, np.float32)
        if noise:
            f += rng.normal(0, noise, f.shape)
        img = np.clip(f, 0, 255).astype(np.uint8)
        if bump_at is not None and i >= bump_at:
            img = cv2.warpAffine(img, M, (w, h), borderMode=cv2.BORDER_REPLICATE)
        if quality:
            img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
        out.write(img)
    out.release()
    cap.release()
    return dst


def _cloth_recolour(video, n: int, rgb, samples: int = 21):
    """A function that turns the cloth of a video's frames to `rgb`. The empty table is, per
    pixel, whichever of some frames spread over the video is nearest the cloth; a pixel is moved
    towards the new colour by the share of it that is cloth (1 where it matches the empty cloth,
    falling to 0 for a card or an arm), so card edges blend as they would on that cloth. A card
    whose colour is near the old cloth's is partly moved too: use a scene whose cloth is unlike
    every card."""
    cap = cv2.VideoCapture(str(video))
    shots = []
    for k in np.linspace(0, n - 1, samples).astype(int):
        cap.set(cv2.CAP_PROP_POS_FRAMES, int(k))
        ok, img = cap.read()
        if ok:
            shots.append(img)
    cap.release()
    if not shots:
        raise LigrettoError("no frame of the video could be read to find its cloth", path=str(video))
    shots = np.stack(shots)
    cloth = np.median(shots[0].reshape(-1, 3), axis=0).astype(np.float32)
    # per pixel, the shot nearest the cloth's colour: bare cloth there at some moment
    near = np.abs(shots.astype(np.int16) - cloth.astype(np.int16)).sum(-1).argmin(0)
    empty = np.take_along_axis(shots, near[None, ..., None], 0)[0].astype(np.float32)
    clothlike = np.clip(1.5 - np.abs(empty - cloth).sum(-1) / 80.0, 0, 1)[..., None]  # a card lying all along is no cloth
    shift = (np.array(rgb[::-1], np.float32) - cloth) * clothlike

    def recolour(f: np.ndarray) -> np.ndarray:
        # all cloth up to 30 (its weave, the noise), none from 80: a card near the cloth's colour keeps its own
        share = np.clip(1.6 - np.abs(f - empty).sum(-1) / 50.0, 0, 1)[..., None]
        return f + shift * share
    return recolour
