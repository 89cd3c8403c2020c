"""Rendered cards lying on rendered tables, seen through a simulated camera, with their truth.

One generator for the number model's training set and for the tests of recognition:
a card (face or back) on top of a messy pile on a random cloth, under random light,
down-sampled to a camera's resolution with blur, noise and compression, then cut out
again through `recognise.patches` with a slightly wrong pose, as detection would give it.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ligretto_vision.recognise.patches import Pose, card_patch
from ligretto_vision.sim.render import CardStyle, Light, cloth, degrade, paste_card, render_back, render_face

CARD_MM = (59.0, 91.0)
RENDER_PPM = 2.0
CANVAS_MM = (130.0, 150.0)
HAND_BGR = [(120, 150, 200), (90, 120, 170), (60, 80, 120), (150, 170, 210)]


_cloths: list[np.ndarray] = []


def _cloth(w: int, h: int, colour, rng: np.random.Generator) -> np.ndarray:
    """A cloth of `colour`, from a small stock of textures (making each anew is the slow part)."""
    if not _cloths:
        tex_rng = np.random.default_rng(12345)
        _cloths.extend(cloth((w, h), (128, 128, 128), tex_rng, "wood" if k % 3 == 0 else "felt") for k in range(12))
    tex = _cloths[int(rng.integers(0, len(_cloths)))][:h, :w].astype(np.float32) / 128
    return np.clip(tex * np.array(colour, np.float32), 0, 255).astype(np.uint8)


def _fingers(table: np.ndarray, rng: np.random.Generator, centre_mm, card_angle: float) -> None:
    """Two to four fingers of one hand, tips somewhere on the card (half the time on a numeral
    corner), with the dark creases between them; a hand in motion is blurred along its way."""
    t = np.deg2rad(card_angle)
    sx, sy = rng.choice([-1, 1], 2) if rng.random() < 0.5 else rng.uniform(-1, 1, 2)
    lx, ly = sx * (CARD_MM[0] / 2 - 8) + rng.normal(0, 5), sy * (CARD_MM[1] / 2 - 10) + rng.normal(0, 6)
    tip = np.array([centre_mm[0] + lx * np.cos(t) - ly * np.sin(t), centre_mm[1] + lx * np.sin(t) + ly * np.cos(t)])
    way = rng.uniform(0, 2 * np.pi)  # the direction the fingers point
    d, n = np.array([np.cos(way), np.sin(way)]), np.array([-np.sin(way), np.cos(way)])
    width = rng.uniform(9, 13)
    skin = np.array(HAND_BGR[int(rng.integers(0, len(HAND_BGR)))], np.float32) * rng.uniform(0.8, 1.15)
    layer = np.zeros_like(table)
    mask = np.zeros(table.shape[:2], np.uint8)
    count = int(rng.integers(2, 5))
    first = rng.uniform(0, count - 1)  # where across the hand the chosen spot falls
    for k in range(count):
        end = tip + n * (k - first) * width * 1.02 - d * rng.uniform(0, 10)
        start = end - d * rng.uniform(40, 80)
        a, b = (tuple(int(v) for v in p * RENDER_PPM) for p in (start, end))
        thick = int(width * RENDER_PPM)
        cv2.line(layer, a, b, tuple(float(v) * 0.7 for v in skin), thick + 2, cv2.LINE_AA)  # crease
        cv2.line(layer, a, b, tuple(float(v) for v in skin), thick - 2, cv2.LINE_AA)
        cv2.line(mask, a, b, 255, thick + 2, cv2.LINE_AA)
    if rng.random() < 0.4:
        k = int(rng.integers(3, 12))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        kernel /= kernel.sum() + 1e-6
        layer, mask = cv2.filter2D(layer, -1, kernel), cv2.filter2D(mask, -1, kernel)
    alpha = mask.astype(np.float32)[..., None] / 255
    table[:] = (table * (1 - alpha) + layer * alpha).astype(np.uint8)


@dataclass
class Sample:
    patch: np.ndarray  # upright card patch, 1 px/mm, BGR
    number: int  # 1..10, 0 for a card back
    colour_bgr: tuple[int, int, int]  # the printed colour before light


def random_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(120, 256), rng.integers(90, 256)]]])
    return tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])


def sample(rng: np.random.Generator, back_share: float = 0.12, style: CardStyle | None = None,
           colour: tuple[int, int, int] | None = None, number: int | None = None,
           hard: float = 1.0, picture: np.ndarray | None = None, fingers: bool = True) -> Sample:
    """One rendered card on a pile; `hard` (0..1) scales how bad light and camera get.
    `fingers`: hands over the card, often on a numeral (the number model's training set); without,
    only the edge of a hand now and then (the set the backs figure has been measured on).

    `picture`: an upright BGR picture of the card to use (an enrolled back, say) instead of
    rendering one."""
    colour = colour or random_colour(rng)
    is_back = number == 0 or (number is None and rng.random() < back_share)
    number = 0 if is_back else (number or int(rng.integers(1, 11)))
    style = style or CardStyle.random(rng)
    if picture is not None:
        size = (int(CARD_MM[0] * RENDER_PPM), int(CARD_MM[1] * RENDER_PPM))
        card = np.dstack([cv2.resize(picture, size, interpolation=cv2.INTER_CUBIC), np.full(size[::-1], 255, np.uint8)])
    else:
        card = (render_back(colour, CARD_MM, RENDER_PPM, symbol=int(rng.integers(0, 4)), rng=rng) if is_back
                else render_face(colour, number, CARD_MM, RENDER_PPM, style, rng))
    w, h = int(CANVAS_MM[0] * RENDER_PPM), int(CANVAS_MM[1] * RENDER_PPM)
    table = _cloth(w, h, random_colour(rng) if rng.random() < 0.6 else (40, 90, 140), rng)
    cx, cy = CANVAS_MM[0] / 2, CANVAS_MM[1] / 2
    for _ in range(int(rng.integers(0, 4))):  # the pile below
        below = render_face(random_colour(rng) if rng.random() < 0.5 else colour, int(rng.integers(1, 11)),
                            CARD_MM, RENDER_PPM, CardStyle.random(rng), rng)
        paste_card(table, below, ((cx + rng.uniform(-9, 9)) * RENDER_PPM, (cy + rng.uniform(-9, 9)) * RENDER_PPM),
                   float(rng.uniform(0, 360)))
    angle = float(rng.uniform(0, 360))
    paste_card(table, card, (cx * RENDER_PPM, cy * RENDER_PPM), angle)
    if rng.random() < (0.1 if fingers else 0.15) * hard:  # the edge of a hand over the card's middle
        c = (int((cx + rng.uniform(-20, 20)) * RENDER_PPM), int((cy + rng.uniform(-25, 25)) * RENDER_PPM))
        cv2.ellipse(table, c, (int(9 * RENDER_PPM), int(14 * RENDER_PPM)), float(rng.uniform(0, 180)), 0, 360,
                    HAND_BGR[int(rng.integers(0, len(HAND_BGR)))], -1, cv2.LINE_AA)
    if fingers and rng.random() < 0.3 * hard:  # fingers laying the card or the next one, often over a numeral
        _fingers(table, rng, (cx, cy), angle)
    light = Light.random(rng)
    light.glare *= hard
    table = light.apply(table)
    cam_ppm = float(rng.uniform(0.55, 1.3))
    small = cv2.resize(table, (int(w * cam_ppm / RENDER_PPM), int(h * cam_ppm / RENDER_PPM)), interpolation=cv2.INTER_AREA)
    small = degrade(small, rng, blur=float(rng.uniform(0, 1.1 * hard)), noise=float(rng.uniform(0, 7 * hard)),
                    jpeg=int(rng.integers(int(95 - 65 * hard), 96)))
    pose = Pose(cx + rng.normal(0, 1.2), cy + rng.normal(0, 1.2), angle + rng.normal(0, 2.5) + 180 * int(rng.integers(0, 2)))
    patch = card_patch(small, lambda mm: mm * cam_ppm, pose, CARD_MM)
    return Sample(patch, number, colour)
