"""What the cards lie on: cloths of any colour, wood, checks, flowers and photo-like textures
(brick, gravel, grass), and the props that stand on a real table (a mug, a phone).

Each texture is drawn at the top view's scale from the `rng` given, so a scene's table is the
same every time its seed is drawn."""
from __future__ import annotations

import cv2
import numpy as np

KINDS = ("felt", "wood", "checks", "flowers", "brick", "gravel", "grass")


def _noise(h: int, w: int, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Smooth noise of unit spread with features about `sigma` px across (broad noise is made
    small and enlarged: a blur that wide over the whole table would take seconds)."""
    k = max(1.0, sigma / 3)
    sh, sw = max(2, int(h / k)), max(2, int(w / k))
    n = cv2.GaussianBlur(rng.normal(0, 1, (sh, sw)).astype(np.float32), (0, 0), sigma / k)
    if k > 1:
        n = cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)
    return n / (n.std() + 1e-6)


TILE_MM = 640  # fine-grained textures are drawn on a tile this big and repeated (tens of thousands of strokes)


def texture(kind: str, size: tuple[int, int], rgb, rng: np.random.Generator, ppm: float) -> np.ndarray:
    """A BGR top view `size` (w, h) of the table surface; `rgb` is its main colour."""
    w, h = size
    tile = int(TILE_MM * ppm)
    if kind in ("gravel", "grass") and (w > tile or h > tile):
        t = texture(kind, (min(w, tile), min(h, tile)), rgb, rng, ppm)
        big = np.tile(t, (-(-h // t.shape[0]), -(-w // t.shape[1]), 1))[:h, :w].astype(np.float32)
        shade = 1 + 0.05 * _noise(h, w, rng, 60 * ppm)
        return np.clip(big * shade[..., None], 0, 255).astype(np.uint8)
    base = np.empty((h, w, 3), np.float32)
    base[:] = np.array(rgb[::-1], np.float32)
    if kind == "felt":
        base *= 1 + 0.06 * _noise(h, w, rng, 4 * ppm)[..., None] + 0.03 * _noise(h, w, rng, 0.7)[..., None]
    elif kind == "wood":
        freq = rng.uniform(0.02, 0.06) / ppm
        ys = np.arange(h, dtype=np.float32)[:, None] + 25 * ppm * _noise(h, w, rng, 30 * ppm)
        grain = np.sin(ys * freq * 2 * np.pi) * 0.5 + 0.25 * _noise(h, w, rng, 1.0)
        base *= 1 + 0.14 * grain[..., None]
        for y in np.arange(0, h, rng.uniform(90, 160) * ppm):  # plank joints
            cv2.line(base, (0, int(y)), (w, int(y)), tuple(float(v) * 0.55 for v in base[0, 0]), max(1, int(ppm)))
    elif kind == "checks":
        other = np.array(rng.choice([[245, 245, 245], [30, 30, 30], rng.integers(0, 256, 3)]), np.float32)
        sq = rng.uniform(12, 30) * ppm
        a = ((np.arange(w) // sq) % 2).astype(np.float32)[None, :]
        b = ((np.arange(h) // sq) % 2).astype(np.float32)[:, None]
        mix = (a + b) / 2  # gingham: where bands cross the colour is full
        base = base * (1 - mix[..., None]) + other[::-1] * mix[..., None]
        base *= 1 + 0.04 * _noise(h, w, rng, 1.0)[..., None]
    elif kind == "flowers":
        base *= 1 + 0.04 * _noise(h, w, rng, 2 * ppm)[..., None]
        for _ in range(int(w * h / (ppm * ppm) / 2500)):
            c = tuple(int(v) for v in rng.integers(40, 256, 3))
            x, y, r = int(rng.uniform(0, w)), int(rng.uniform(0, h)), max(2, int(rng.uniform(5, 14) * ppm))
            for k in range(5):
                a = k * 2 * np.pi / 5
                cv2.circle(base, (int(x + r * np.cos(a)), int(y + r * np.sin(a))), max(1, int(r * 0.6)), c, -1, cv2.LINE_AA)
            cv2.circle(base, (x, y), max(1, int(r * 0.4)), (30, 200, 240), -1, cv2.LINE_AA)
    elif kind == "brick":
        mortar = np.array([190, 195, 200], np.float32)
        base[:] = mortar
        bh, bw = rng.uniform(50, 70) * ppm, rng.uniform(180, 230) * ppm
        for r, y in enumerate(np.arange(0, h, bh)):
            off = (r % 2) * bw / 2
            for x in np.arange(-off, w, bw):
                shade = np.array(rgb[::-1], np.float32) * rng.uniform(0.75, 1.2)
                cv2.rectangle(base, (int(x + 2 * ppm), int(y + 2 * ppm)), (int(x + bw - 2 * ppm), int(y + bh - 2 * ppm)),
                              tuple(float(v) for v in shade), -1)
        base *= 1 + 0.12 * _noise(h, w, rng, 1.0)[..., None]
    elif kind == "gravel":
        base *= 0.8
        for _ in range(int(w * h / (ppm * ppm) / 60)):
            g = rng.uniform(0.5, 1.4)
            c = tuple(float(v) * g for v in rgb[::-1])
            cv2.ellipse(base, (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
                        (max(1, int(rng.uniform(3, 9) * ppm)), max(1, int(rng.uniform(2, 6) * ppm))),
                        float(rng.uniform(0, 180)), 0, 360, c, -1, cv2.LINE_AA)
    elif kind == "grass":
        base *= 0.7
        for _ in range(int(w * h / (ppm * ppm) / 25)):
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            a, L = rng.uniform(0, np.pi), rng.uniform(6, 20) * ppm
            c = tuple(float(v) * rng.uniform(0.6, 1.4) for v in rgb[::-1])
            cv2.line(base, (int(x), int(y)), (int(x + L * np.cos(a)), int(y + L * np.sin(a))), c, max(1, int(ppm)), cv2.LINE_AA)
    shade = 1 + 0.05 * _noise(h, w, rng, 60 * ppm)  # uneven cloth, folds
    return np.clip(base * shade[..., None], 0, 255).astype(np.uint8)


def prop(kind: str, rng: np.random.Generator, ppm: float) -> np.ndarray:
    """A BGRA picture of a prop seen from above: a mug (a ring with a handle) or a phone."""
    if kind == "mug":
        r = int(45 * ppm)
        s = 2 * r + int(40 * ppm)
        img = np.zeros((s, s, 4), np.uint8)
        c = tuple(int(v) for v in rng.integers(30, 240, 3)) + (255,)
        cv2.ellipse(img, (r + int(20 * ppm), s // 2), (int(22 * ppm), int(10 * ppm)), 0, 0, 360, c, max(2, int(6 * ppm)))
        cv2.ellipse(img, (r + int(20 * ppm) + int(r * 0.9), s // 2), (int(18 * ppm), int(12 * ppm)), 0, -90, 90, c, max(2, int(6 * ppm)))
        cv2.circle(img, (r + int(20 * ppm), s // 2), r, c, -1, cv2.LINE_AA)
        cv2.circle(img, (r + int(20 * ppm), s // 2), int(r * 0.82), (40, 60, 90, 255), -1, cv2.LINE_AA)  # coffee
        return img
    w, h = int(75 * ppm), int(155 * ppm)
    img = np.zeros((h, w, 4), np.uint8)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (25, 25, 28, 255), -1)
    cv2.rectangle(img, (int(4 * ppm), int(10 * ppm)), (w - int(4 * ppm), h - int(10 * ppm)),
                  tuple(int(v) for v in rng.integers(20, 120, 3)) + (255,), -1)
    return img
