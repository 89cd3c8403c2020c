"""Card faces and backs of many print runs: the deck a player happens to own.

A `DeckPrint` is one print run: its family (where colour and numerals go), the font and how
it is set (bold, condensed, oblique, outlined, 6 and 9 underlined), the motif, the edition's
colours shifted a little. Fonts are the TrueType/OpenType files Debian's font packages
install (`make setup-fonts`); they are split by family name into fonts training may see and
fonts kept for measuring only, as the print families are.
"""
from __future__ import annotations

import functools
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ligretto_vision.sim.render import BALL_COLOURS

FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))
# where the numerals go and what fills the face
FAMILIES = ("classic", "lightning", "margin", "frame", "four-corner", "top-only", "gradient", "bands")
HELD_OUT_FAMILIES = ("four-corner", "bands")  # only in the measuring range: an unseen deck's figure
EDITION_PALETTES = {  # nominal printed sRGB
    "classic": {"red": (218, 34, 39), "green": (18, 124, 65), "blue": (24, 55, 134), "yellow": (250, 194, 22)},
    "dutch": {"pink": (227, 82, 160), "blue": (33, 80, 174), "turquoise": (22, 174, 169), "yellow": (245, 193, 36)},
    "starwars": {"red": (178, 30, 36), "green": (40, 140, 70), "blue": (30, 90, 170), "yellow": (235, 170, 30)},
}
BACK_COLOURS = [(30, 60, 150), (150, 25, 30), (25, 110, 50), (90, 40, 130), (20, 20, 25), (200, 110, 20)]  # RGB
PICTURES = ("droid", "helmet", "face", "ship")
_HAIRLINE = re.compile(r"(Thin|Hairline|ExtraLight|Light)", re.IGNORECASE)
_LATIN_NOTO = re.compile(r"^Noto(Sans|Serif|SansMono|SerifDisplay|SansDisplay)-")


def _font_family(path: Path) -> str:
    return path.stem.split("-")[0].replace("Condensed", "").replace("Narrow", "")


@functools.lru_cache(maxsize=1)
def fonts() -> tuple[Path, ...]:
    """Font files with Latin digits, sorted (the same list on every machine with the same packages)."""
    out = []
    for d in FONT_DIRS:
        for p in sorted(d.rglob("*")):
            if p.suffix.lower() not in (".ttf", ".otf") or "Math" in p.name or "Symbol" in p.name:
                continue
            if "noto" in str(p).lower() and not _LATIN_NOTO.match(p.name):
                continue
            if "Dingbat" in p.name or "D050000L" in p.name or _HAIRLINE.search(p.stem):
                continue  # no deck prints its numbers in a hairline
            out.append(p)
    return tuple(out)


USUAL_FONTS = ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf", "Roboto-Bold.ttf", "FreeSansBold.ttf")


def usual_fonts(measure: bool) -> list[Path]:
    """The plain bold faces most decks print their numbers in (any font of the range, if none is installed)."""
    pool = font_pool(measure)
    return [f for f in pool if f.name in USUAL_FONTS] or pool


def held_out_font(path: Path) -> bool:
    """A quarter of the font families never reach the training/tuning range."""
    return zlib.crc32(_font_family(path).encode()) % 4 == 0


def font_pool(measure: bool) -> list[Path]:
    fs = list(fonts())
    return fs if measure else [f for f in fs if not held_out_font(f)]


@functools.lru_cache(maxsize=4096)
def _text_mask(font: str, text: str, px: int) -> np.ndarray:
    """0..255 mask of `text` set in `font`, cropped to the ink, about `px` tall."""
    from PIL import Image, ImageDraw, ImageFont  # the proving ground's own dependency

    try:
        f = ImageFont.truetype(font, max(8, int(px * 1.35)))
    except OSError:
        f = ImageFont.load_default()
    l, t, r, b = f.getbbox(text)
    img = Image.new("L", (r - l + 8, b - t + 8), 0)
    ImageDraw.Draw(img).text((4 - l, 4 - t), text, fill=255, font=f)
    a = np.asarray(img)
    ys, xs = np.nonzero(a > 40)
    if len(ys) == 0:
        return np.zeros((px, px // 2), np.uint8)
    a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    return cv2.resize(a, (max(1, round(a.shape[1] * px / a.shape[0])), px), interpolation=cv2.INTER_AREA)


@dataclass
class DeckPrint:
    family: str = "classic"
    font: str = ""
    bold: int = 0  # px of extra weight at 10 px/mm
    condensed: float = 1.0  # width scale of the numerals
    oblique: float = 0.0  # shear
    outline: float = 0.1  # dark outline, share of numeral height
    underline_69: bool = True
    centre_mm: float = 0.0  # numeral height in the middle (0: none)
    corner_mm: float = 14.0  # index height (0: none)
    corners: str = "two"  # "two" (top-left, bottom-right), "four", "top"
    motif: str = "balls"  # balls, bolts, bands, gradient, none
    palette: dict = field(default_factory=dict)  # colour name -> RGB as printed by this run
    white: tuple = (250, 248, 240)  # the print's white (RGB)

    def numeral_rgb(self, colour: str) -> tuple:
        return self.palette[colour] if self.family == "frame" else self.white


def draw_print(rng: np.random.Generator, edition: str, family: str, font_list: list[Path]) -> DeckPrint:
    """One print run of `family` with a font from `font_list`, its settings drawn from `rng`."""
    shift = rng.uniform(-18, 18, 3)
    palette = {c: tuple(int(np.clip(v + shift[i] + rng.uniform(-8, 8), 0, 255)) for i, v in enumerate(rgb))
               for c, rgb in EDITION_PALETTES[edition].items()}
    p = DeckPrint(family=family, font=str(font_list[int(rng.integers(len(font_list)))]) if font_list else "",
                  bold=int(rng.choice([0, 0, 1, 2])), condensed=float(rng.choice([1.0, 1.0, rng.uniform(0.6, 0.9)])),
                  oblique=float(rng.choice([0.0, 0.0, rng.uniform(0.12, 0.3)])),
                  outline=float(rng.choice([0.0, rng.uniform(0.05, 0.14)])), underline_69=bool(rng.random() < 0.75),
                  palette=palette, white=tuple(int(v) for v in rng.integers(232, 256, 3)))
    if family == "classic":
        p.corner_mm, p.motif = float(rng.uniform(12, 18)), "balls"
    elif family == "lightning":
        p.centre_mm, p.corner_mm, p.motif = float(rng.uniform(30, 42)), float(rng.uniform(6, 9)), "bolts"
    elif family == "margin":
        p.centre_mm, p.corner_mm, p.motif = float(rng.uniform(30, 40)), float(rng.choice([0.0, 6.0])), "none"
    elif family == "frame":
        p.centre_mm, p.corner_mm, p.motif, p.outline = float(rng.uniform(32, 44)), float(rng.uniform(6, 9)), "none", 0.0
    elif family == "four-corner":
        p.corner_mm, p.corners, p.motif = float(rng.uniform(10, 15)), "four", str(rng.choice(["none", "balls"]))
    elif family == "top-only":
        p.centre_mm, p.corner_mm, p.corners, p.motif = float(rng.uniform(26, 36)), float(rng.uniform(8, 11)), "top", "none"
    elif family == "gradient":
        p.centre_mm, p.corner_mm, p.motif, p.outline = float(rng.uniform(34, 44)), 0.0, "gradient", float(rng.uniform(0.06, 0.12))
    elif family == "bands":
        p.centre_mm, p.corner_mm, p.motif = float(rng.uniform(28, 38)), float(rng.uniform(7, 10)), "bands"
    return p


def _numeral(pr: DeckPrint, number: int, px: int, ppm: float) -> np.ndarray:
    m = _text_mask(pr.font, str(number), px)
    if pr.condensed != 1.0 or number == 10:
        m = cv2.resize(m, (max(1, int(m.shape[1] * pr.condensed * (0.85 if number == 10 else 1))), m.shape[0]))
    if pr.bold:
        k = max(1, int(pr.bold * ppm / 4))
        m = cv2.dilate(m, np.ones((k, k), np.uint8))
    if pr.oblique:
        sh = pr.oblique * m.shape[0]
        M = np.float32([[1, -pr.oblique, sh], [0, 1, 0]])
        m = cv2.warpAffine(m, M, (int(m.shape[1] + sh) + 1, m.shape[0]))
    if number in (6, 9) and pr.underline_69:
        gap, bar = max(1, px // 12), max(2, px // 10)
        ul = np.zeros((gap + bar, m.shape[1]), np.uint8)
        ul[gap:, int(m.shape[1] * 0.12):int(m.shape[1] * 0.88)] = 255
        m = np.vstack([m, ul])
    return m


def _stamp(img: np.ndarray, mask: np.ndarray, cx: float, cy: float, rgb, outline_px: int, angle: float = 0.0) -> None:
    """Paint `mask` centred at (cx, cy) (turned by `angle` degrees) in `rgb` with a dark outline."""
    pad = outline_px + 2
    m = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    if angle:
        m = cv2.rotate(m, cv2.ROTATE_180) if angle == 180 else m
    h, w = m.shape
    x0, y0 = int(round(cx - w / 2)), int(round(cy - h / 2))
    H, W = img.shape[:2]
    a0x, a0y, a1x, a1y = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
    if a1x <= a0x or a1y <= a0y:
        return
    m = m[a0y - y0:a1y - y0, a0x - x0:a1x - x0]
    roi = img[a0y:a1y, a0x:a1x].astype(np.float32)
    if outline_px > 0:
        o = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * outline_px + 1,) * 2)).astype(np.float32)[..., None] / 255
        roi = roi * (1 - o) + np.float32(35) * o
    a = m.astype(np.float32)[..., None] / 255
    roi = roi * (1 - a) + np.array(rgb[::-1], np.float32) * a
    img[a0y:a1y, a0x:a1x] = roi.astype(np.uint8)


def _motif(img: np.ndarray, pr: DeckPrint, rgb, rng: np.random.Generator, ppm: float) -> None:
    h, w = img.shape[:2]
    if pr.motif == "balls":
        cols = [(218, 34, 39), (18, 124, 65), (24, 55, 134), (250, 194, 22), (245, 245, 245)]
        for _ in range(int(rng.integers(12, 30))):
            c = cols[int(rng.integers(len(cols)))][::-1]
            x, y, r = rng.uniform(0.2, 0.8) * w, rng.uniform(0.25, 0.75) * h, rng.uniform(1.8, 4) * ppm
            cv2.circle(img, (int(x), int(y)), max(1, int(r)), c, -1, cv2.LINE_AA)
    elif pr.motif == "bolts":
        c = tuple(int(min(255, v * 1.25 + 30)) for v in rgb[::-1])
        for _ in range(int(rng.integers(2, 5))):
            x, y = rng.uniform(0.15, 0.85) * w, rng.uniform(0.2, 0.8) * h
            s = rng.uniform(5, 10) * ppm
            pts = np.array([[x, y - s], [x + s * 0.3, y - s * 0.1], [x - s * 0.05, y], [x + s * 0.25, y + s],
                            [x - s * 0.3, y + s * 0.05], [x + s * 0.05, y - s * 0.05]], np.int32)
            cv2.fillPoly(img, [pts], c, cv2.LINE_AA)
    elif pr.motif == "bands":
        c = tuple(int(v * 0.75) for v in rgb[::-1])
        for k in range(-3, 4):
            y = int(h / 2 + k * 12 * ppm)
            cv2.line(img, (0, y - int(w * 0.4)), (w, y + int(w * 0.4)), c, max(1, int(3 * ppm)), cv2.LINE_AA)
    elif pr.motif == "gradient":
        ramp = np.linspace(1.15, 0.7, h, dtype=np.float32)[:, None, None]
        img[:] = np.clip(img.astype(np.float32) * ramp, 0, 255).astype(np.uint8)


def _round_alpha(img: np.ndarray, ppm: float) -> np.ndarray:
    h, w = img.shape[:2]
    r = max(2, int(3.5 * ppm))
    a = np.zeros((h, w), np.uint8)
    cv2.rectangle(a, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(a, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(a, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return np.dstack([img, a])


def render_face(pr: DeckPrint, colour: str, number: int, card_mm, ppm: float, seed: int = 0) -> np.ndarray:
    """An upright face (numeral corner top-left), BGRA at `ppm` px per mm."""
    rng = np.random.default_rng(seed * 131 + number)
    w, h = int(round(card_mm[0] * ppm)), int(round(card_mm[1] * ppm))
    rgb = pr.palette[colour]
    img = np.empty((h, w, 3), np.uint8)
    if pr.family == "frame":
        img[:] = pr.white[::-1]
        t = max(2, int(3.2 * ppm))
        cv2.rectangle(img, (t // 2 + int(ppm), t // 2 + int(ppm)), (w - t // 2 - 1 - int(ppm), h - t // 2 - 1 - int(ppm)), rgb[::-1], t)
    elif pr.family == "margin":
        img[:] = pr.white[::-1]
        m = int(4.5 * ppm)
        img[m:h - m, m:w - m] = rgb[::-1]
    else:
        img[:] = rgb[::-1]
    _motif(img, pr, rgb, rng, ppm)
    ol = lambda px: int(round(pr.outline * px))  # noqa: E731
    col = pr.numeral_rgb(colour)
    if pr.centre_mm:
        px = int(pr.centre_mm * ppm * (0.8 if number == 10 else 1.0))
        m = _numeral(pr, number, px, ppm)
        if m.shape[1] > w * 0.78:
            m = cv2.resize(m, (int(w * 0.78), m.shape[0]))
        _stamp(img, m, w / 2, h / 2, col, ol(px))
    if pr.corner_mm:
        px = max(5, int(pr.corner_mm * ppm))
        m = _numeral(pr, number, px, ppm)
        if m.shape[1] > w * 0.42:
            m = cv2.resize(m, (int(w * 0.42), m.shape[0]))
        inset = (5.5 if pr.family in ("margin", "frame") else 3.0) * ppm
        cx, cy = inset + m.shape[1] / 2, inset + m.shape[0] / 2
        places = [(cx, cy, 0), (w - cx, h - cy, 180)]
        if pr.corners == "four":
            places += [(w - cx, cy, 0), (cx, h - cy, 180)]
        elif pr.corners == "top":
            places = [(cx, cy, 0), (w - cx, cy, 0)]
        for x, y, a in places:
            _stamp(img, m, x, y, col, ol(px), a)
    return _round_alpha(img, ppm)


@dataclass
class BackPrint:
    """One player's back: its box's design and the set's colour."""
    design: str  # "lettering-balls", "lettering-bolts", "lettering-stars", "picture-<name>"
    rgb: tuple
    box: int

    def render(self, card_mm, ppm: float) -> np.ndarray:
        w, h = int(round(card_mm[0] * ppm)), int(round(card_mm[1] * ppm))
        img = np.empty((h, w, 3), np.uint8)
        img[:] = self.rgb[::-1]
        rng = np.random.default_rng(zlib.crc32(self.design.encode()) + self.box)
        light = tuple(int(min(255, v + 110)) for v in self.rgb[::-1])
        if self.design.startswith("picture"):
            _picture(img, self.design.split("-", 1)[1], rng, ppm)
        else:
            if self.design == "lettering-balls":
                for _ in range(16):
                    c = BALL_COLOURS[int(rng.integers(len(BALL_COLOURS)))]
                    cv2.circle(img, (int(rng.uniform(0.1, 0.9) * w), int(rng.uniform(0.08, 0.92) * h)),
                               max(1, int(rng.uniform(2, 4.5) * ppm)), c, -1, cv2.LINE_AA)
            elif self.design == "lettering-stars":
                for _ in range(5):
                    _star(img, (rng.uniform(0.15, 0.85) * w, rng.uniform(0.1, 0.9) * h), rng.uniform(3.5, 6) * ppm,
                          rng.uniform(0, 72), light)
            else:
                for k in range(3):
                    x, y, s = w * (0.25 + 0.25 * k), h * (0.2 + 0.3 * k), 7 * ppm
                    pts = np.array([[x, y - s], [x + s * 0.3, y], [x - s * 0.05, y], [x + s * 0.2, y + s],
                                    [x - s * 0.3, y], [x + s * 0.05, y]], np.int32)
                    cv2.fillPoly(img, [pts], light, cv2.LINE_AA)
            text = _text_mask(str(fonts()[0]) if fonts() else "", "Ligretto", max(6, int(9 * ppm)))
            text = cv2.rotate(text, cv2.ROTATE_90_COUNTERCLOCKWISE) if self.box % 2 else text
            if text.shape[1] > w * 0.9:
                text = cv2.resize(text, (int(w * 0.9), max(1, int(text.shape[0] * w * 0.9 / text.shape[1]))))
            if text.shape[0] > h * 0.9:
                text = cv2.resize(text, (max(1, int(text.shape[1] * h * 0.9 / text.shape[0])), int(h * 0.9)))
            _stamp(img, text, w / 2, h / 2, (250, 250, 245), max(1, int(0.5 * ppm)))
            # the box's mark: one small white shape per box
            c, r = (int(w * 0.82), int(h * 0.08)), max(2, int(3 * ppm))
            [lambda: cv2.circle(img, c, r, (250, 250, 250), -1), lambda: cv2.rectangle(img, (c[0] - r, c[1] - r), (c[0] + r, c[1] + r), (250, 250, 250), -1),
             lambda: cv2.fillPoly(img, [np.array([[c[0], c[1] - r], [c[0] + r, c[1] + r], [c[0] - r, c[1] + r]], np.int32)], (250, 250, 250))][self.box % 3]()
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), tuple(int(v * 0.6) for v in self.rgb[::-1]), max(1, int(ppm)))
        return _round_alpha(img, ppm)


def _star(img: np.ndarray, centre, r: float, turn_deg: float, colour) -> None:
    """A five-pointed star of outer radius `r` px."""
    a = np.radians(turn_deg + np.arange(10) * 36.0)
    rad = np.where(np.arange(10) % 2, r * 0.4, r)
    pts = np.stack([centre[0] + rad * np.sin(a), centre[1] - rad * np.cos(a)], 1)
    cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)


def _picture(img: np.ndarray, name: str, rng: np.random.Generator, ppm: float) -> None:
    """A simple picture back (a droid, a helmet, a face, a ship) over a starfield."""
    h, w = img.shape[:2]
    for _ in range(25):
        cv2.circle(img, (int(rng.uniform(0, w)), int(rng.uniform(0, h))), max(1, int(0.4 * ppm)), (230, 230, 230), -1)
    cx, cy, s = w / 2, h / 2, w * 0.34
    pal = [tuple(int(v) for v in rng.integers(40, 255, 3)) for _ in range(3)]
    if name == "droid":
        cv2.ellipse(img, (int(cx), int(cy - s * 0.2)), (int(s), int(s)), 0, 180, 360, pal[0], -1, cv2.LINE_AA)
        cv2.rectangle(img, (int(cx - s), int(cy - s * 0.2)), (int(cx + s), int(cy + s * 1.2)), pal[1], -1)
        cv2.circle(img, (int(cx), int(cy - s * 0.55)), int(s * 0.25), (20, 20, 20), -1, cv2.LINE_AA)
    elif name == "helmet":
        cv2.ellipse(img, (int(cx), int(cy)), (int(s), int(s * 1.3)), 0, 0, 360, (235, 235, 235), -1, cv2.LINE_AA)
        cv2.ellipse(img, (int(cx - s * 0.4), int(cy - s * 0.1)), (int(s * 0.35), int(s * 0.2)), 20, 0, 360, (15, 15, 15), -1)
        cv2.ellipse(img, (int(cx + s * 0.4), int(cy - s * 0.1)), (int(s * 0.35), int(s * 0.2)), -20, 0, 360, (15, 15, 15), -1)
    elif name == "face":
        cv2.circle(img, (int(cx), int(cy)), int(s), pal[2], -1, cv2.LINE_AA)
        for dx in (-0.35, 0.35):
            cv2.circle(img, (int(cx + dx * s), int(cy - s * 0.2)), int(s * 0.14), (20, 20, 20), -1)
        cv2.ellipse(img, (int(cx), int(cy + s * 0.3)), (int(s * 0.4), int(s * 0.2)), 0, 0, 180, (20, 20, 20), max(1, int(ppm)))
    else:
        pts = np.array([[cx, cy - s * 1.4], [cx + s, cy + s], [cx, cy + s * 0.5], [cx - s, cy + s]], np.int32)
        cv2.fillPoly(img, [pts], pal[0], cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), int(s * 0.25), pal[1], -1, cv2.LINE_AA)


def draw_backs(rng: np.random.Generator, n_players: int, edition: str) -> list[BackPrint]:
    """One back per player: boxes of four sets; colours repeat between boxes, the design does not
    (each box has its own back design, rules 001: a third box's is neither of the first two's)."""
    designs = ["lettering-balls", "lettering-bolts"]
    rng.shuffle(designs)
    designs.append("lettering-stars")  # drawn after the shuffle: the first two boxes are as before
    colours = [BACK_COLOURS[i] for i in rng.permutation(len(BACK_COLOURS))]
    pics = list(PICTURES)
    rng.shuffle(pics)
    out = []
    for i in range(n_players):
        box, k = divmod(i, 4)
        if edition == "starwars":
            design = f"picture-{pics[k]}"
        else:
            design = designs[box]
        jitter = rng.uniform(-10, 10, 3)
        rgb = colours[(k + 2 * box) % len(colours)]  # a colour may repeat in the next box, with another design
        out.append(BackPrint(design, tuple(int(np.clip(c + j, 0, 255)) for c, j in zip(rgb, jitter)), box))
    return out
