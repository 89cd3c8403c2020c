"""`ligretto-vision inspect SCENE --frame N --out FILE.png`: a picture of what the referee sees in
one frame: the table outline, every card found, with its reading and confidence."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ligretto_vision.errors import LigrettoError
from ligretto_vision.geometry.calibration import MarkerLayout, calibrate
from ligretto_vision.geometry.zones import layout_from_scene
from ligretto_vision.detect.outlines import find_cards
from ligretto_vision.recognise.patches import card_patch
from ligretto_vision.recognise.reader import CardReader
from ligretto_vision.referee.pipeline import marker_spots
from ligretto_vision.scene import load_scene


def read_frame(scene, index: int) -> np.ndarray:
    cap = cv2.VideoCapture(str(scene.video_path))
    if not cap.isOpened():
        raise LigrettoError("cannot open the scene's video", path=str(scene.video_path))
    cap.set(cv2.CAP_PROP_POS_FRAMES, index)
    ok, img = cap.read()
    cap.release()
    if not ok:
        raise LigrettoError(f"the video has no frame {index}", path=str(scene.video_path))
    return img


def inspect(scene_dir, frame: int, out: str | Path) -> list[dict]:
    scene = load_scene(scene_dir)
    img = read_frame(scene, frame)
    cal = calibrate(img, MarkerLayout.from_scene(scene))
    layout = layout_from_scene(scene)
    reader = CardReader.for_scene(scene)
    top = cal.crop(img, (0, 0), scene.table_mm)
    shown = img.copy()
    table = cal.to_px([[0, 0], [scene.table_mm[0], 0], scene.table_mm, [0, scene.table_mm[1]]])
    cv2.polylines(shown, [table.astype(np.int32)], True, (255, 255, 0), 2)
    seen = []
    for found in find_cards(top, scene.card_mm, marker_spots(scene)):
        r = reader.read([card_patch(img, cal.to_px, found.pose, scene.card_mm)])[0]
        label = r.card if r.face_up else f"back {r.owner or '?'}"
        zone = layout.zone_of(found.pose.x, found.pose.y)
        seen.append({"card": label, "at": [round(found.pose.x, 1), round(found.pose.y, 1), round(found.pose.angle, 1)],
                     "confidence": round(r.confidence, 2), "zone": zone or "centre"})
        poly = cal.to_px(found.pose.corners(scene.card_mm)).astype(np.int32)
        colour = (0, 255, 0) if r.confidence > 0.6 else (0, 165, 255)
        cv2.polylines(shown, [poly], True, colour, 2)
        text = f"{label} {r.confidence:.2f}"
        org = tuple(int(v) for v in poly.min(axis=0) + (0, -4))
        cv2.putText(shown, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(shown, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1, cv2.LINE_AA)
    cv2.putText(shown, f"frame {frame}  calibration {cal.error_mm:.2f} mm  {len(seen)} cards", (10, 24),
                cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2, cv2.LINE_AA)
    if not cv2.imwrite(str(out), shown):
        raise LigrettoError("cannot write the picture", path=str(out))
    return seen
