"""Photo-like pictures of cards and tables, rendered from the simulated table.

Used three ways: the training images of the number model (varied fonts, print
styles, light, blur, noise, perspective, compression), the rendered scenes the
tests run the vision code on, and the picture of the built-in simulated table.
Every random choice comes from the `rng` passed in, so renders are reproducible.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

GLYPHS = Path(__file__).resolve().parents[2] / "models" / "glyphs.npz"  # digit shapes from TTF fonts
HERSHEY = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX]
# the colours cards are printed in, BGR: the classic four, and the Dutch edition's pink and turquoise
CARD_BGR = {"red": (39, 34, 218), "green": (65, 124, 18), "blue": (134, 55, 24), "yellow": (22, 194, 250),
            "pink": (180, 110, 250), "turquoise": (190, 190, 40)}
BALL_COLOURS = [CARD_BGR[c] for c in ("red", "green", "blue", "yellow")] + [(245, 245, 245)]  # BGR

_glyph_cache: dict | None = None


def glyph_atlas() -> dict[str, list[np.ndarray]]:
    """digit -> list of 0..255 masks, one per font (empty when the atlas is not there)."""
    global _glyph_cache
    if _glyph_cache is None:
        _glyph_cache = {}
        if GLYPHS.exists():
            data = np.load(GLYPHS)
            for key in data.files:  # "d7_f3"
                _glyph_cache.setdefault(key.split("_")[0][1:], []).append(data[key])
    return _glyph_cache


@dataclass
class CardStyle:
    """One print run: fonts, numeral size and place, outline, motif, colour shift."""
    font: int = 0  # index into the glyph atlas + Hershey fonts
    numeral_mm: float = 15.0  # height of the corner numeral
    corner_mm: tuple[float, float] = (4.0, 3.5)  # numeral offset from the corner
    outline: float = 0.12  # outline thickness relative to numeral height (0: none)
    underline_69: bool = True
    balls: int = 22
    border: float = 0.0  # darker edge line, mm
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # print-run colour shift per channel
    numeral_colour: tuple[int, int, int] = (250, 250, 250)

    @classmethod
    def random(cls, rng: np.random.Generator) -> "CardStyle":
        return cls(font=int(rng.integers(0, 64)), numeral_mm=float(rng.uniform(11, 18)),
                   corner_mm=(float(rng.uniform(2.5, 6.5)), float(rng.uniform(2.5, 6.0))),
                   outline=float(rng.choice([0.0, rng.uniform(0.06, 0.18)])), underline_69=bool(rng.random() < 0.8),
                   balls=int(rng.integers(0, 35)), border=float(rng.choice([0.0, rng.uniform(0.3, 1.2)])),
                   tint=tuple(float(x) for x in rng.uniform(0.85, 1.15, 3)),
                   numeral_colour=tuple(int(x) for x in rng.integers(225, 256, 3)))


def _numeral_mask(text: str, height_px: int, font: int) -> np.ndarray:
    """A 0..255 mask of `text` (one or two digits) about `height_px` tall."""
    atlas = glyph_atlas()
    n_ttf = min((len(v) for v in atlas.values()), default=0)
    choice = font % (n_ttf + len(HERSHEY))
    if choice < n_ttf:
        parts = [atlas[d][choice] for d in text]
        scale = height_px / parts[0].shape[0]
        parts = [cv2.resize(p, (max(1, int(p.shape[1] * scale)), height_px), interpolation=cv2.INTER_AREA) for p in parts]
        gap = np.zeros((height_px, max(1, height_px // 14)), np.uint8)
        return np.hstack([x for p in parts for x in (p, gap)][:-1])
    face = HERSHEY[choice - n_ttf]
    thick = max(2, height_px // 6)
    scale = cv2.getFontScaleFromHeight(face, height_px, thick)
    (w, h), base = cv2.getTextSize(text, face, scale, thick)
    mask = np.zeros((h + thick * 2, w + thick * 2), np.uint8)
    cv2.putText(mask, text, (thick, h + thick), face, scale, 255, thick, cv2.LINE_AA)
    ys, xs = np.nonzero(mask)
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _stamp(img: np.ndarray, mask: np.ndarray, x: int, y: int, colour, outline_px: int) -> None:
    """Paint `mask` at (x, y) in `colour`, with a dark outline of `outline_px`."""
    h, w = mask.shape
    pad = outline_px + 1
    canvas = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    canvas[pad:pad + h, pad:pad + w] = mask
    x0, y0 = x - pad, y - pad
    H, W = img.shape[:2]
    cx0, cy0 = max(0, -x0), max(0, -y0)  # clip the stamp to the card
    cx1, cy1 = min(canvas.shape[1], W - x0), min(canvas.shape[0], H - y0)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    canvas = canvas[cy0:cy1, cx0:cx1]
    x0, y0 = x0 + cx0, y0 + cy0
    roi = img[y0:y0 + canvas.shape[0], x0:x0 + canvas.shape[1]].astype(np.float32)
    if outline_px > 0:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * outline_px + 1, 2 * outline_px + 1))
        out = cv2.dilate(canvas, k).astype(np.float32)[..., None] / 255
        roi = roi * (1 - out) + np.array([30, 30, 30], np.float32) * out
    a = canvas.astype(np.float32)[..., None] / 255
    roi = roi * (1 - a) + np.array(colour, np.float32) * a
    img[y0:y0 + canvas.shape[0], x0:x0 + canvas.shape[1]] = roi.astype(np.uint8)


def _balls(img: np.ndarray, rng: np.random.Generator, n: int, ppm: float, area: tuple[float, float, float, float]) -> None:
    x0, y0, x1, y1 = area
    for _ in range(n):
        r = rng.uniform(1.8, 4.2) * ppm
        cx, cy = rng.uniform(x0, x1) * ppm, rng.uniform(y0, y1) * ppm
        col = BALL_COLOURS[int(rng.integers(0, len(BALL_COLOURS)))]
        c = (int(cx * 16), int(cy * 16))
        cv2.circle(img, c, int(r * 16), tuple(int(v * 0.7) for v in col), -1, cv2.LINE_AA, 4)
        cv2.circle(img, c, int(r * 0.85 * 16), col, -1, cv2.LINE_AA, 4)
        hl = (int((cx - r * 0.3) * 16), int((cy - r * 0.3) * 16))
        cv2.circle(img, hl, int(r * 0.3 * 16), tuple(min(255, v + 90) for v in col), -1, cv2.LINE_AA, 4)


def _blank(colour_bgr, card_mm, ppm: float, style: CardStyle) -> np.ndarray:
    w, h = int(round(card_mm[0] * ppm)), int(round(card_mm[1] * ppm))
    base = np.clip(np.array(colour_bgr, np.float32) * np.array(style.tint, np.float32), 0, 255)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = base.astype(np.uint8)
    if style.border > 0:
        bw = max(1, int(style.border * ppm))
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), tuple(int(v * 0.55) for v in base), bw)
    return img


def render_face(colour_bgr, number: int, card_mm=(59.0, 91.0), ppm: float = 2.0, style: CardStyle | None = None,
                rng: np.random.Generator | None = None) -> np.ndarray:
    """An upright card face (numeral top-left and, turned, bottom-right), BGR, `ppm` px per mm."""
    style = style or CardStyle()
    rng = rng or np.random.default_rng(number)
    img = _blank(colour_bgr, card_mm, ppm, style)
    w_mm, h_mm = card_mm
    _balls(img, rng, style.balls, ppm, (w_mm * 0.2, h_mm * 0.25, w_mm * 0.8, h_mm * 0.75))
    hpx = max(6, int(style.numeral_mm * ppm))
    text = str(number)
    mask = _numeral_mask(text, hpx, style.font)
    if text in ("6", "9") and style.underline_69:
        ul = np.zeros((max(2, hpx // 9) + max(2, hpx // 10), mask.shape[1]), np.uint8)
        ul[-max(2, hpx // 9):, int(mask.shape[1] * 0.1):int(mask.shape[1] * 0.9)] = 255
        mask = np.vstack([mask, ul])
    if mask.shape[1] > w_mm * ppm * 0.45:  # a wide "10" is squeezed to fit the corner
        mask = cv2.resize(mask, (int(w_mm * ppm * 0.45), mask.shape[0]), interpolation=cv2.INTER_AREA)
    ol = int(round(style.outline * hpx))
    x, y = int(style.corner_mm[0] * ppm), int(style.corner_mm[1] * ppm)
    _stamp(img, mask, x, y, style.numeral_colour, ol)
    rot = img[::-1, ::-1].copy()
    _stamp(rot, mask, x, y, style.numeral_colour, ol)
    return _round_corners(rot[::-1, ::-1].copy(), ppm)


def render_back(colour_bgr, card_mm=(59.0, 91.0), ppm: float = 2.0, symbol: int = 0,
                rng: np.random.Generator | None = None, style: CardStyle | None = None) -> np.ndarray:
    """A card back: the player's colour, balls, the "Ligretto" lettering and a small symbol."""
    style = style or CardStyle(balls=26)
    rng = rng or np.random.default_rng(symbol)
    img = _blank(colour_bgr, card_mm, ppm, style)
    w_mm, h_mm = card_mm
    _balls(img, rng, style.balls, ppm, (w_mm * 0.08, h_mm * 0.06, w_mm * 0.92, h_mm * 0.94))
    text = np.zeros((int(24 * ppm), int(w_mm * ppm)), np.uint8)
    scale = cv2.getFontScaleFromHeight(cv2.FONT_HERSHEY_DUPLEX, int(8 * ppm), max(1, int(ppm)))
    cv2.putText(text, "Ligretto", (int(5 * ppm), int(16 * ppm)), cv2.FONT_HERSHEY_DUPLEX, scale, 255,
                max(1, int(1.3 * ppm)), cv2.LINE_AA)
    rot = cv2.warpAffine(text, cv2.getRotationMatrix2D((text.shape[1] / 2, text.shape[0] / 2), 12, 1.0),
                         (text.shape[1], text.shape[0]))
    _stamp(img, rot, 0, int(img.shape[0] / 2 - rot.shape[0] / 2), (250, 250, 250), max(1, int(0.6 * ppm)))
    # the symbol that tells boxes apart: a small shape in a corner
    c = (int(w_mm * 0.8 * ppm), int(h_mm * 0.1 * ppm))
    r = int(3.5 * ppm)
    shape = symbol % 4
    if shape == 1:
        cv2.circle(img, c, r, (250, 250, 250), -1, cv2.LINE_AA)
    elif shape == 2:
        cv2.rectangle(img, (c[0] - r, c[1] - r), (c[0] + r, c[1] + r), (250, 250, 250), -1)
    elif shape == 3:
        pts = np.array([[c[0], c[1] - r], [c[0] + r, c[1] + r], [c[0] - r, c[1] + r]], np.int32)
        cv2.fillPoly(img, [pts], (250, 250, 250), cv2.LINE_AA)
    return _round_corners(img, ppm)


SPREAD_STEP = (0.83, 0.86)  # a spread's cards lie this share of a card apart, along a row and row to row


def spread_per_row(table_w_mm: float, card_mm) -> int:
    """How many cards a row of the count's spread holds on a table this wide: 8 to 16, over about
    half the table."""
    return max(8, min(16, int(table_w_mm * 0.55 / (card_mm[0] * SPREAD_STEP[0]))))


def spread_poses(n: int, centre_mm: tuple[float, float], rng: np.random.Generator, card_mm=(59.0, 91.0),
                 per_row: int = 12) -> list[tuple[float, float, float]]:
    """Where `n` cards lie when the centre cards are spread face down for the count: rows laid
    left to right, each card over the right edge of the one before, each row over the foot of the
    row above, every card a little askew and either way up (whoever laid it)."""
    w, h = card_mm
    dx, dy = w * SPREAD_STEP[0], h * SPREAD_STEP[1]
    rows = (n + per_row - 1) // per_row
    x0 = centre_mm[0] - (min(n, per_row) - 1) * dx / 2
    y0 = centre_mm[1] - (rows - 1) * dy / 2
    out = []
    for i in range(n):
        r, c = divmod(i, per_row)
        out.append((x0 + c * dx + rng.uniform(-2.5, 2.5), y0 + r * dy + rng.uniform(-2.5, 2.5),
                    float(rng.uniform(-5, 5) + rng.choice([0.0, 180.0]))))
    return out


def _round_corners(img: np.ndarray, ppm: float) -> np.ndarray:
    """Rounded corners: the cut-away part becomes transparent (alpha channel)."""
    h, w = img.shape[:2]
    r = max(2, int(3.5 * ppm))
    alpha = np.full((h, w), 255, np.uint8)
    for cx, cy in ((r, r), (w - r - 1, r), (r, h - r - 1), (w - r - 1, h - r - 1)):
        x0, y0 = (0 if cx == r else w - r - 1), (0 if cy == r else h - r - 1)
        alpha[y0:y0 + r + 1, x0:x0 + r + 1] = 0
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return np.dstack([img, alpha])


# ---- tables ------------------------------------------------------------------------------
@dataclass
class Light:
    """Light on the table: colour (white balance), brightness, a gradient and a glare spot."""
    gain: tuple[float, float, float] = (1.0, 1.0, 1.0)  # BGR
    brightness: float = 1.0
    gradient: float = 0.0  # fall-off across the table (0: even)
    gradient_dir: float = 0.0  # degrees
    glare: float = 0.0  # 0..1 strength of a specular spot
    glare_at: tuple[float, float] = (0.5, 0.5)  # relative table position

    @classmethod
    def random(cls, rng: np.random.Generator) -> "Light":
        warm = rng.uniform(-0.25, 0.25)
        return cls(gain=(1 - warm, 1.0, 1 + warm * 0.8), brightness=float(rng.uniform(0.45, 1.25)),
                   gradient=float(rng.uniform(0, 0.45)), gradient_dir=float(rng.uniform(0, 360)),
                   glare=float(rng.choice([0.0, rng.uniform(0.2, 0.8)])),
                   glare_at=(float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8))))

    def apply(self, img: np.ndarray) -> np.ndarray:
        h, w = img.shape[:2]
        xs = (np.arange(w, dtype=np.float32) / w - 0.5)[None, :]
        ys = (np.arange(h, dtype=np.float32) / h - 0.5)[:, None]
        d = math.radians(self.gradient_dir)
        f = self.brightness * (1 - self.gradient * (xs * math.cos(d) + ys * math.sin(d) + 0.5))
        out = img.astype(np.float32) * f[..., None] * np.array(self.gain, np.float32)
        if self.glare > 0:
            sx = np.exp(-((xs + 0.5 - self.glare_at[0]) ** 2) / (2 * 0.08 ** 2))
            sy = np.exp(-(((ys + 0.5 - self.glare_at[1]) * h / w) ** 2) / (2 * 0.08 ** 2))
            out += (self.glare * 255 * (sy * sx))[..., None]
        return np.clip(out, 0, 255).astype(np.uint8)


def cloth(size_px: tuple[int, int], colour_bgr, rng: np.random.Generator, kind: str = "felt") -> np.ndarray:
    """A table cloth or wood texture of the given colour."""
    w, h = size_px
    base = np.empty((h, w, 3), np.float32)
    base[:] = colour_bgr
    noise = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 6 if kind == "felt" else 2)
    noise /= noise.std() + 1e-6
    if kind == "wood":
        stripes = np.sin(np.linspace(0, rng.uniform(20, 60), h))[:, None] * 0.6 + noise * 0.4
        base *= 1 + 0.12 * stripes[..., None]
    else:
        base *= 1 + 0.06 * noise[..., None]
    return np.clip(base, 0, 255).astype(np.uint8)


def paste_card(table: np.ndarray, card_rgba: np.ndarray, centre_px: tuple[float, float], angle_deg: float,
               scale: float = 1.0, shadow: float = 0.35) -> None:
    """Paste a card (BGRA) onto a table image, turned clockwise by `angle_deg` about its centre.

    Only the card's bounding box is touched, so pasting costs the card's size, not the table's."""
    h, w = card_rgba.shape[:2]
    H, W = table.shape[:2]
    half = 0.5 * scale * np.hypot(w, h) + 6
    x0, y0 = max(0, int(centre_px[0] - half)), max(0, int(centre_px[1] - half))
    x1, y1 = min(W, int(centre_px[0] + half) + 1), min(H, int(centre_px[1] + half) + 1)
    if x1 <= x0 or y1 <= y0:
        return
    M = cv2.getRotationMatrix2D((w / 2, h / 2), -angle_deg, scale)
    M[0, 2] += centre_px[0] - w / 2 - x0
    M[1, 2] += centre_px[1] - h / 2 - y0
    warped = cv2.warpAffine(card_rgba, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    roi = table[y0:y1, x0:x1].astype(np.float32)
    a = warped[..., 3:4].astype(np.float32) / 255
    if shadow > 0:
        sh = cv2.GaussianBlur(np.roll(a[..., 0], (3, 3), (0, 1)), (0, 0), 2.5)[..., None] * shadow
        roi *= 1 - sh
    table[y0:y1, x0:x1] = (roi * (1 - a) + warped[..., :3].astype(np.float32) * a).astype(np.uint8)


def aruco_marker(marker_id: int, size_px: int, dict_name: str = "DICT_4X4_50") -> np.ndarray:
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dict_name))
    inner = cv2.aruco.generateImageMarker(d, marker_id, size_px)
    return cv2.cvtColor(inner, cv2.COLOR_GRAY2BGR)


def camera_view(top: np.ndarray, top_ppm: float, table_mm, out_size=(1280, 720), tilt: float = 0.0,
                rng: np.random.Generator | None = None, margin_mm: float = 20.0) -> tuple[np.ndarray, np.ndarray]:
    """Project a top view (at `top_ppm` px/mm) into a camera image; returns (image, H mm->px).

    `tilt` moves the four table corners by up to that share of the image, as a camera a few degrees
    off vertical or a bumped mount would."""
    rng = rng or np.random.default_rng(0)
    W, H = out_size
    tw, th = table_mm
    s = min((W - 2 * margin_mm) / tw, (H - 2 * margin_mm) / th) * 0.98
    ox, oy = (W - tw * s) / 2, (H - th * s) / 2
    dst = np.array([[ox, oy], [ox + tw * s, oy], [ox + tw * s, oy + th * s], [ox, oy + th * s]], np.float32)
    dst += rng.uniform(-tilt, tilt, (4, 2)).astype(np.float32) * np.array([W, H], np.float32)
    src_mm = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
    Hmm = cv2.getPerspectiveTransform(src_mm, dst)
    Htop = Hmm @ np.diag([1 / top_ppm, 1 / top_ppm, 1.0])
    img = cv2.warpPerspective(top, Htop, (W, H), flags=cv2.INTER_AREA if s < top_ppm else cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return img, Hmm


def degrade(img: np.ndarray, rng: np.random.Generator, blur: float = 0.0, noise: float = 0.0, jpeg: int = 95) -> np.ndarray:
    """Camera and codec faults: focus/motion blur, sensor noise, compression."""
    if blur > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    if noise > 0:
        img = np.clip(img.astype(np.float32) + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
    if jpeg < 95:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg)])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


@dataclass
class TableScene:
    """What to draw: the table, its markers and the cards on it (each a BGRA picture and a pose)."""
    table_mm: tuple[float, float] = (1300.0, 760.0)
    marker_size_mm: float = 60.0
    marker_centres_mm: dict[int, tuple[float, float]] = field(default_factory=lambda: {
        0: (52.0, 52.0), 1: (1248.0, 52.0), 2: (1248.0, 708.0), 3: (52.0, 708.0)})
    cloth_bgr: tuple[int, int, int] = (60, 110, 40)
    cloth_kind: str = "felt"
    cards: list = field(default_factory=list)  # [(bgra, (x_mm, y_mm, angle_deg)), ...] bottom first


def render_top(scene: TableScene, ppm: float, rng: np.random.Generator, light: Light | None = None) -> np.ndarray:
    """The table seen from straight above at `ppm` px/mm."""
    w, h = int(scene.table_mm[0] * ppm), int(scene.table_mm[1] * ppm)
    top = cloth((w, h), scene.cloth_bgr, rng, scene.cloth_kind)
    for mid, (mx, my) in scene.marker_centres_mm.items():
        side = int(scene.marker_size_mm * ppm)
        pad = int(8 * ppm)
        m = aruco_marker(mid, side)
        x0, y0 = int(mx * ppm - side / 2), int(my * ppm - side / 2)
        top[y0 - pad:y0 + side + pad, x0 - pad:x0 + side + pad] = 245
        top[y0:y0 + side, x0:x0 + side] = m
    for bgra, (x, y, a) in scene.cards:
        scale = ppm / (bgra.shape[1] / 59.0) if bgra.shape[1] else 1.0
        paste_card(top, bgra, (x * ppm, y * ppm), a, scale=scale)
    return light.apply(top) if light is not None else top
