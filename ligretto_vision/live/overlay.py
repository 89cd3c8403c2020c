"""The camera picture with what the referee sees drawn on it: the table's outline, each pile's top card
(its colour, or red when laid illegally), the referee's latest looks, a calibration/source banner and a
caption. It draws from the referee's read-only `TableView`, never from the referee itself."""
from __future__ import annotations

import logging

import cv2
import numpy as np

from ligretto_vision.live.schematic import RED, WHITE, card_colour, draw_label
from ligretto_vision.referee.view import TableView
from ligretto_vision.scene import Scene

log = logging.getLogger(__name__)

MAX_FRAME_W = 960  # annotated frames are downscaled to at most this width
CAL_COLOURS = {"ok": (60, 170, 60), "moved": (0, 140, 255), "failed": RED, "waiting": (0, 140, 255),
               "enrol": (0, 140, 255)}
TABLE_EDGE = (0, 215, 255)
LOOK = (0, 255, 255)  # the referee's latest looks
SHOWN_LOOKS = 4  # at most this many of the latest looks are drawn ...
LOOK_S = 1.0  # ... each for this long


def banner(name: str, source_state: dict, calibration: dict, ended: str | None) -> tuple[str, tuple[int, int, int]]:
    """The top banner's text and colour: the feed ended, the camera lost, else the calibration's state."""
    if ended:
        return ended, (0, 140, 255)
    if source_state.get("state") in ("lost", "reconnecting", "gave-up"):
        retry = f", retry in {source_state['retry_in_s']:g} s" if source_state.get("retry_in_s") else ""
        return f"{name} {source_state['state']}: {source_state.get('error') or ''}{retry}", RED
    word = {"ok": "calibrated", "moved": "camera moved", "failed": "calibrating", "waiting": "calibrating",
            "enrol": "not refereeing"}.get(calibration["state"], calibration["state"])
    return f"{word}: {calibration['detail']}", CAL_COLOURS.get(calibration["state"], RED)


def annotate(image: np.ndarray, table: Scene, cal, view: TableView | None, top: tuple[str, tuple[int, int, int]],
             caption: str) -> np.ndarray:
    """`image` downscaled to at most MAX_FRAME_W wide, with the view (once calibrated: `cal` not None),
    the banner `top` and the caption drawn on it."""
    h, w = image.shape[:2]
    s = min(1.0, MAX_FRAME_W / w)
    if s < 1.0:
        img = cv2.resize(image, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA)
    else:
        img = image.copy()
    if cal is not None and view is not None:
        try:
            _draw_view(img, s, cal, table, view)
        except Exception:  # drawing must never stop the feed
            log.debug("annotation failed", exc_info=True)
    _draw_banner(img, *top)
    draw_label(img, caption, (8, img.shape[0] - 8), 0.55)
    return img


def _draw_view(img: np.ndarray, s: float, cal, table: Scene, view: TableView) -> None:
    tw, th = table.table_mm
    n = 8  # points per edge: lens distortion bends straight edges a little
    edge = [(tw * i / n, 0) for i in range(n)] + [(tw, th * i / n) for i in range(n)] \
        + [(tw * (n - i) / n, th) for i in range(n)] + [(0, th * (n - i) / n) for i in range(n)]
    pts = (cal.to_px(edge) * s).round().astype(np.int32)
    cv2.polylines(img, [pts], True, TABLE_EDGE, 1, cv2.LINE_AA)
    card_mm = table.card_mm
    for pile in view.piles:
        quad = (cal.to_px(pile.pose.corners(card_mm)) * s).round().astype(np.int32)
        colour = card_colour(pile.card) if pile.legal else RED
        cv2.polylines(img, [quad], True, colour, 2 if pile.legal else 3, cv2.LINE_AA)
        x, y = quad[:, 0].min(), quad[:, 1].min()
        label = f"#{pile.id} {pile.card}" + ("" if pile.legal else " illegal")
        draw_label(img, label, (int(x), max(12, int(y) - 3)), 0.45, WHITE if pile.legal else (120, 120, 255))
    fps = float(table.fps)
    for d in view.decisions[-SHOWN_LOOKS:]:
        if d.pose is None or d.kind == "play" or view.frame - d.frame > LOOK_S * fps:
            continue
        quad = (cal.to_px(d.pose.corners(card_mm)) * s).round().astype(np.int32)
        cv2.polylines(img, [quad], True, LOOK, 1, cv2.LINE_AA)
        draw_label(img, d.kind, (int(quad[:, 0].min()), int(quad[:, 1].max()) + 14), 0.4, LOOK)


def _draw_banner(img: np.ndarray, text: str, colour: tuple[int, int, int]) -> None:
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
    cv2.rectangle(img, (0, 0), (min(img.shape[1], tw + 12), th + 10), colour, -1)
    cv2.putText(img, text, (6, th + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5, WHITE, 1, cv2.LINE_AA)
