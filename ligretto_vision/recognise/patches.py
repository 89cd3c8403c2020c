"""Cutting a card out of an image, upright, at a fixed scale: the one place where a card
pose becomes pixels, shared by training (rendered images) and the live referee (camera frames).

A pose is (x_mm, y_mm, angle_deg): the card centre on the table and its turn, clockwise as
seen in the image, 0 = upright (SCENES.md `at`). The long side is the card's height.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

PATCH_PPM = 1.0  # canonical card patches: 1 px per mm (59 x 91 px for a classic card)
CORNER_MM = (26, 32)  # the numeral corner (width, height) read by the number model

ToPx = Callable[[np.ndarray], np.ndarray]  # (N,2) table mm -> (N,2) image px


@dataclass(frozen=True)
class Pose:
    x: float
    y: float
    angle: float  # degrees clockwise, 0 = upright

    def corners(self, card_mm) -> np.ndarray:
        """The card's four corners in mm (TL, TR, BR, BL of the upright card)."""
        w, h = card_mm
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
        return local @ _rot(self.angle).T + (self.x, self.y)

    def turn_to(self, other: "Pose") -> float:
        """Degrees between this card's axis and another's (0-90: a card turned half round lies alike)."""
        return abs((self.angle - other.angle + 90.0) % 180.0 - 90.0)

    def to_card(self, points_mm) -> np.ndarray:
        """(N, 2) table mm -> the same points across and along the card from its centre (the
        inverse of `corners`' turn): inside the card where |across| <= w/2 and |along| <= h/2."""
        return (np.asarray(points_mm, float) - (self.x, self.y)) @ _rot(self.angle)


def _rot(angle_deg: float) -> np.ndarray:
    a = np.radians(angle_deg)
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])  # clockwise in image coordinates (y down)


_grid_cache: dict = {}


def _card_grid(card_mm, ppm: float) -> np.ndarray:
    key = (tuple(card_mm), ppm)
    if key not in _grid_cache:
        w, h = int(round(card_mm[0] * ppm)), int(round(card_mm[1] * ppm))
        u = (np.arange(w) + 0.5) / ppm - card_mm[0] / 2
        v = (np.arange(h) + 0.5) / ppm - card_mm[1] / 2
        gu, gv = np.meshgrid(u, v)
        _grid_cache[key] = np.stack([gu.ravel(), gv.ravel()], 1)
    return _grid_cache[key]


def card_patch(image: np.ndarray, to_px: ToPx, pose: Pose, card_mm, ppm: float = PATCH_PPM) -> np.ndarray:
    """The card at `pose`, upright, `ppm` px per mm, cut from `image` through `to_px`."""
    grid = _card_grid(card_mm, ppm)
    mm = grid @ _rot(pose.angle).T + (pose.x, pose.y)
    px = to_px(mm).astype(np.float32)
    h, w = int(round(card_mm[1] * ppm)), int(round(card_mm[0] * ppm))
    return cv2.remap(image, px[:, 0].reshape(h, w), px[:, 1].reshape(h, w), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def numeral_corners(patch: np.ndarray, ppm: float = PATCH_PPM) -> np.ndarray:
    """Both numeral corners of an upright patch, the lower one turned upright: (2, H, W, 3)."""
    cw, ch = int(CORNER_MM[0] * ppm), int(CORNER_MM[1] * ppm)
    return np.stack([patch[:ch, :cw], patch[::-1, ::-1][:ch, :cw]])


def normalise(crops: np.ndarray) -> np.ndarray:
    """Crops (N,H,W,3) uint8 -> float32 (N,3,H,W), each crop centred on its own colour and scaled.

    Taking out each crop's own mean colour and contrast makes the model see shapes, not
    the light's colour or brightness."""
    x = crops.astype(np.float32)
    x -= x.mean(axis=(1, 2), keepdims=True)
    x /= x.std(axis=(1, 2, 3), keepdims=True) + 8.0
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))
