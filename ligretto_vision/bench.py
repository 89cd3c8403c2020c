"""`ligretto-vision bench SCENE`: what the referee costs, stage by stage, on one core.

Printed figures, never asserted in tests. Video decoding is measured on its own line:
a Pi camera delivers frames without it. The Pi 5 estimate assumes one Pi 5 core does the
same work about three times slower than one core of this machine (the ratio the project
plans with); it is an estimate, not a measurement.
"""
from __future__ import annotations

import time

import cv2
import numpy as np

from ligretto_vision.capture.frame import Frame
from ligretto_vision.capture.scene_source import SceneSource
from ligretto_vision.detect.activity import ActivityMonitor
from ligretto_vision.geometry.calibration import MarkerLayout, calibrate
from ligretto_vision.geometry.zones import layout_from_scene
from ligretto_vision.recognise.patches import Pose, card_patch
from ligretto_vision.referee.pipeline import Pipeline

PI5_SLOWER = 3.0


def bench(scene_dir, max_frames: int = 900) -> dict:
    cv2.setNumThreads(1)
    source = SceneSource(scene_dir)
    scene = source.scene
    frames, decode = [], []
    it = source.frames()
    while len(frames) < max_frames:
        t = time.perf_counter()
        f = next(it, None)
        decode.append(time.perf_counter() - t)
        if f is None:
            break
        frames.append(f)
    source.close()
    cal = calibrate(frames[0].image, MarkerLayout.from_scene(scene))
    mon = ActivityMonitor(cal, layout_from_scene(scene), scene.fps, tuple(scene.size))
    per_frame = []
    for f in frames:
        t = time.perf_counter()
        for s in mon.update(f.index, f.image):
            mon.accept(s)
        per_frame.append(time.perf_counter() - t)
    pipe = Pipeline(scene, lambda events: None)
    t = time.perf_counter()
    pipe.feed(frames[0])  # calibration and reading what already lies on the table: once, at start
    start = time.perf_counter() - t
    fed = []  # each frame's whole work: the frames that read a card or decide a play cost most
    for f in frames[1:]:
        t = time.perf_counter()
        pipe.feed(f)
        fed.append(time.perf_counter() - t)
    whole = sum(fed) * len(frames) / max(1, len(fed))
    reader = pipe.reader
    pose = Pose(scene.table_mm[0] / 2, scene.table_mm[1] / 2, 0.0)
    patch_t, model_t = [], []
    for _ in range(100):
        t = time.perf_counter()
        patch = card_patch(frames[0].image, cal.to_px, pose, scene.card_mm)
        patch_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        reader.read([patch])
        model_t.append(time.perf_counter() - t)
    ms = lambda xs: 1000 * float(np.median(xs))
    return {"frames": len(frames), "size": f"{scene.size[0]}x{scene.size[1]}", "fps": scene.fps,
            "decode_ms": ms(decode), "per_frame_ms": ms(per_frame),
            "per_frame_p95_ms": 1000 * float(np.percentile(per_frame, 95)),
            "pipeline_fps": len(frames) / whole, "pipeline_ms": 1000 * whole / len(frames),
            "pipeline_p95_ms": 1000 * float(np.percentile(fed or [0.0], 95)),
            "card_patch_ms": ms(patch_t), "number_model_ms": ms(model_t), "events": pipe.stats.events,
            "start_s": start}


PI_CAMERA_MODES = [(640, 360), (1280, 720), (1536, 864), (1920, 1080)]  # main-stream sizes the Pi cameras offer at 30+ fps


def bench_modes(scene_dir, frames: int = 300) -> list[dict]:
    """The whole referee at each camera mode: the scene's frames scaled to that size."""
    cv2.setNumThreads(1)
    source = SceneSource(scene_dir)
    scene = source.scene
    src = [f for f, _ in zip(source.frames(), range(frames))]
    source.close()
    out = []
    for w, h in PI_CAMERA_MODES:
        scaled = scene.model_copy(update={"size": (w, h)})
        shots = [Frame(f.index, f.t, cv2.resize(f.image, (w, h), interpolation=cv2.INTER_AREA)) for f in src]
        pipe = Pipeline(scaled, lambda events: None, reader=None)
        t = time.perf_counter()
        pipe.feed(shots[0])
        start = time.perf_counter() - t
        per = []
        for f in shots[1:]:
            t = time.perf_counter()
            pipe.feed(f)
            per.append(time.perf_counter() - t)
        mon = [0.0]
        if pipe.referee is not None:
            mon = []
            m = ActivityMonitor(pipe.cal, layout_from_scene(scaled), scene.fps, (w, h))
            for f in shots:
                t = time.perf_counter()
                for s in m.update(f.index, f.image):
                    m.accept(s)
                mon.append(time.perf_counter() - t)
        out.append({"mode": f"{w}x{h}", "watch_ms": 1000 * float(np.median(mon)),
                    "pipeline_fps": len(per) / max(1e-9, sum(per)), "start_s": start,
                    "calibrated": pipe.referee is not None})
    return out


def report_modes(rows: list[dict]) -> str:
    lines = ["camera mode   watch/frame   whole referee   start    Pi 5 estimate (~3x slower core, assumed)"]
    for r in rows:
        lines.append(f"{r['mode']:>11}   {r['watch_ms']:6.2f} ms   {r['pipeline_fps']:7.0f} fps   {r['start_s']:5.2f} s   "
                     f"{r['pipeline_fps'] / PI5_SLOWER:5.0f} fps" + ("" if r["calibrated"] else "   (markers not found)"))
    return "\n".join(lines)


def bench_count(players=(2, 4, 8, 12), seeds=(0, 1, 2)) -> list[dict]:
    """Counting one face-down centre spread (rendered, with its truth), per number of players."""
    from ligretto_vision.recognise.backs import backs_in_spread
    from ligretto_vision.referee.counting import count_backs
    from ligretto_vision.sim.count_table import render_count

    cv2.setNumThreads(1)
    rows = []
    for n in players:
        for seed in seeds:
            rc = render_count(n, seed)
            top, off = rc.top_view()
            t = time.perf_counter()
            got = count_backs(backs_in_spread(top, off, rc.backs, rc.card_mm))
            rows.append({"players": n, "seed": seed, "cards": sum(rc.centre.values()), "s": time.perf_counter() - t,
                         "exact": all(got[p] == k for p, k in rc.centre.items()) and not got["unknown"]})
    return rows


def report_count(rows: list[dict]) -> str:
    lines = ["counting a centre spread (rendered, 1920x1080, one core)", "players  cards  time     exact"]
    lines += [f"{r['players']:7d}  {r['cards']:5d}  {r['s']:5.2f} s  {'yes' if r['exact'] else 'NO'}" for r in rows]
    return "\n".join(lines)


def report(r: dict) -> str:
    return "\n".join([
        f"scene: {r['frames']} frames of {r['size']} at {r['fps']:g} fps, one core (OpenCV and onnxruntime single-threaded)",
        f"video decode (not needed with a Pi camera): {r['decode_ms']:.2f} ms per frame",
        f"work on every frame (change watch):         {r['per_frame_ms']:.2f} ms median, {r['per_frame_p95_ms']:.2f} ms p95",
        f"start (calibrate, read the piles already lying): {r['start_s']:.2f} s, once",
        f"whole referee, inference included:         {r['pipeline_ms']:.2f} ms per frame = {r['pipeline_fps']:.0f} frames/s"
        f" ({r['pipeline_p95_ms']:.2f} ms p95)",
        f"reading one card: cut-out {r['card_patch_ms']:.2f} ms + number model and colour {r['number_model_ms']:.2f} ms",
        f"Pi 5 estimate (one core ~{PI5_SLOWER:g}x slower, an assumption): "
        f"{r['per_frame_ms'] * PI5_SLOWER:.1f} ms per frame watch, {r['pipeline_fps'] / PI5_SLOWER:.0f} frames/s whole referee",
    ])
