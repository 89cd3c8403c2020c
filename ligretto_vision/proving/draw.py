"""Every choice of one generated table, drawn from one seed.

Two seed ranges never mix: seeds below `MEASURE_FROM` are for training and tuning, seeds
from it on only for measuring. Only the measuring range draws the print families and font
families kept back (`deck.HELD_OUT_FAMILIES`, `deck.held_out_font`), so its figures say what
a deck nobody tuned on gets.

A table is drawn as a profile first: `clean` (deck, table, seats and players vary; the camera
is steady and the light even), `one-effect` (one camera or light effect on top), or `all`
(several at once, as at a real table). `kinds()` names what was drawn, for the report.
"""
from __future__ import annotations

import math
from pathlib import Path
from dataclasses import dataclass, field

import cv2
import numpy as np

from ligretto_vision.geometry.seats import default_seats
from ligretto_vision.proving.deck import (FAMILIES, HELD_OUT_FAMILIES, BackPrint, DeckPrint, draw_backs, draw_print,
                                          font_pool, held_out_font, usual_fonts)
from ligretto_vision.proving.surfaces import KINDS as SURFACES

MEASURE_FROM = 1_000_000  # seeds from here on: the measuring range
# the camera's and the light's effects (draw_light, draw_light_events, draw_camera): any table's, the board game's too
CAMERA_EFFECTS = ("vibration", "knock", "h264-4mbit", "rolling-shutter", "lamp-switch", "warm-dim-flicker", "glare")
EFFECTS = CAMERA_EFFECTS + ("fast-two-hands", "linger-props")  # the card game's pace and props besides
USUAL_SHARE = 0.5  # of tables whose print (or surface) is the usual one
SIZES = ((960, 540), (1280, 720), (1536, 864), (1920, 1080))
MARKER_MM, MARKER_INSET_MM = 60.0, 52.0  # the ArUco markers' side, their centres' distance from the table's edges


def seed_range(name: str) -> int:
    """The first seed of a range: "tune" (training and tuning) or "measure"."""
    return {"tune": 0, "measure": MEASURE_FROM}[name]


def measuring(seed: int) -> bool:
    return seed >= MEASURE_FROM


@dataclass
class Knock:
    frame: int
    dx: float
    dy: float
    turn_deg: float

    def moved(self, H: np.ndarray, size) -> np.ndarray:
        W, Hh = size
        c, s = math.cos(math.radians(self.turn_deg)), math.sin(math.radians(self.turn_deg))
        cx, cy = W / 2, Hh / 2
        A = np.array([[c, -s, cx - c * cx + s * cy + self.dx], [s, c, cy - s * cx - c * cy + self.dy], [0, 0, 1]])
        return A @ H


@dataclass
class LightPlan:
    kelvin: float = 5000.0
    wb_corrected: float = 0.8  # share of the colour cast the camera's white balance removes
    brightness: float = 1.0
    gradient: float = 0.0
    gradient_dir: float = 0.0
    vignette: float = 0.0
    flicker: float = 0.0  # amplitude of the mains beat
    flicker_hz: float = 10.0
    switch_s: float | None = None  # a lamp switched on or off at this time
    switch_to: float = 1.0  # the light's strength after it (the exposure follows within ~1.5 s)
    switch_kelvin: float = 5000.0
    glare: list = field(default_factory=list)  # [(x_mm, y_mm, strength)]

    @property
    def steady(self) -> bool:
        return self.flicker == 0 and self.switch_s is None

    def gain(self, t: float) -> tuple[float, float, float]:
        """BGR gain of the picture at time t: the light's colour, the share of it the camera's white
        balance corrects, its level; after a lamp switch, exposure and white balance catch up."""
        w = self.wb_corrected
        cast = np.array(_kelvin_bgr(self.kelvin))
        correct, level = cast ** -w, 1.0
        if self.switch_s is not None and t >= self.switch_s:
            adapt = math.exp(-(t - self.switch_s) / 0.5)  # converged within ~1.5 s
            new = np.array(_kelvin_bgr(self.switch_kelvin))
            correct = correct * adapt + new ** -w * (1 - adapt)
            cast, level = new, self.switch_to * adapt + (1 - adapt)
        g = cast * correct * self.brightness * level * (1 + self.flicker * math.sin(2 * math.pi * self.flicker_hz * t))
        return float(g[0]), float(g[1]), float(g[2])


def _kelvin_bgr(k: float) -> tuple[float, float, float]:
    """Relative BGR of a light of colour temperature k (1 at 5500 K), a smooth fit of the Planck locus."""
    t = (k - 5500.0) / 2800.0
    return (float(np.clip(1 + 0.55 * t, 0.35, 1.6)), 1.0, float(np.clip(1 - 0.3 * t, 0.6, 1.5)))


class FilmedTable:
    """What the film (film.TableFilm) asks of a drawn table besides its fields (seed, size,
    table_mm, fps, vibration_px, vibration_hz, knock, rolling_shutter_s, light, length_s): the
    camera's scale and shake, the scene's length. The card game's TableDraw and the board game's BoardDraw both are one."""

    @property
    def cam_ppm(self) -> float:
        """The camera's px per table mm: the table fills the picture with a margin."""
        return min(self.size[0] / (self.table_mm[0] + 60), self.size[1] / (self.table_mm[1] + 60))

    def shake(self, f: int) -> tuple[np.ndarray, np.ndarray]:
        """Per output row, the camera's shift in pixels at frame f (rows read out one after another)."""
        H = self.size[1]
        if self.vibration_px <= 0 and not (self.knock and 0 <= f - self.knock.frame < 0.4 * self.fps):
            return np.zeros(H, np.float32), np.zeros(H, np.float32)
        t = f / self.fps + np.arange(H, dtype=np.float32) / H * self.rolling_shutter_s
        a = self.vibration_px
        if self.knock and 0 <= f - self.knock.frame < 0.4 * self.fps:  # the knock rings a moment
            a += 6.0 * math.exp(-(f - self.knock.frame) / (0.1 * self.fps))
        hx, hy = self.vibration_hz
        dx = a * (np.sin(2 * np.pi * hx * t + self.seed % 7) * 0.7 + np.sin(2 * np.pi * hx * 2.3 * t) * 0.3)
        dy = a * (np.sin(2 * np.pi * hy * t + self.seed % 5) * 0.7 + np.sin(2 * np.pi * hy * 1.7 * t + 1) * 0.3)
        return dx.astype(np.float32), dy.astype(np.float32)

    def stretch_to(self, length_s: float) -> None:
        """The scene made `length_s` long instead of the `length_s` drawn: a knock or a lamp switch
        keeps its share of it."""
        if self.knock is not None:
            self.knock.frame = int(self.knock.frame * length_s / self.length_s)
        if self.light.switch_s is not None:
            self.light.switch_s *= length_s / self.length_s
        self.length_s = length_s


@dataclass
class TableDraw(FilmedTable):
    seed: int
    profile: str
    effects: tuple
    edition: str
    family: str
    deck: DeckPrint
    backs: list[BackPrint]
    surface: str
    surface_rgb: tuple
    table_mm: tuple
    card_mm: tuple
    marker_mm: float
    markers: dict
    props: list
    seats: list  # angles, or named edges for up to four players
    named_seats: bool
    zone_inset_mm: float  # from the edge to the player's line of cards
    zone_gap_mm: float  # between the cards of that line
    light: LightPlan
    size: tuple
    fps: float
    camera_h: np.ndarray
    lens_k1: float
    vibration_px: float
    vibration_hz: tuple
    knock: Knock | None
    rolling_shutter_s: float
    codec: str
    bitrate_mbit: float
    noise: float
    speed: float  # players' pace: 1 usual, 2-3 fast
    mistakes: float
    linger: float
    two_hands: bool
    ten: str
    grace_s: float
    length_s: float
    round_end: bool  # the scene runs to the round's end and the count
    font_held_out: bool
    usual_print: bool  # the classic print in a plain bold face

    @property
    def n_players(self) -> int:
        return len(self.seats)

    def kinds(self) -> dict[str, str]:
        """What was drawn, by the axes the report groups by."""
        n = self.n_players
        seats = "2" if n == 2 else "3" if n == 3 else "4" if n == 4 else "5-6" if n <= 6 else "7-9" if n <= 9 else "10-12"
        fam = self.family + (" (held out)" if self.family in HELD_OUT_FAMILIES else "")
        return {"profile": self.profile, "print": fam, "edition": self.edition, "seats": seats,
                "surface": self.surface, "effects": "+".join(self.effects) or "none",
                "ten": self.ten, "video": f"{self.size[1]}p{int(self.fps)} {self.codec}",
                "font": "usual" if self.usual_print else "held out" if self.font_held_out else "seen"}


def draw_table(seed: int) -> TableDraw:
    """Every choice of the table generated from `seed` (the same seed gives the same table)."""
    rng = np.random.default_rng(seed)
    measure = measuring(seed)
    profile = str(rng.choice(["clean", "one-effect", "all"], p=[0.4, 0.35, 0.25]))
    effects: tuple = ()
    if profile == "one-effect":
        effects = (str(rng.choice(EFFECTS)),)
    elif profile == "all":
        effects = tuple(str(e) for e in rng.choice(EFFECTS, size=int(rng.integers(3, 6)), replace=False))
    edition = str(rng.choice(["classic", "dutch", "starwars"], p=[0.6, 0.25, 0.15]))
    # Each axis takes its usual value on about half the tables (the classic print in a plain
    # bold face; felt or wood), so that a kind's figure says what that kind alone does.
    usual_print = rng.random() < USUAL_SHARE
    families = [f for f in FAMILIES if measure or f not in HELD_OUT_FAMILIES]
    family = "classic" if usual_print else str(rng.choice(families))
    fonts = usual_fonts(measure) if usual_print else font_pool(measure)
    deck = draw_print(rng, edition, family, fonts)
    if usual_print:
        deck.condensed, deck.oblique = 1.0, 0.0
    n = int(rng.choice([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], p=[.12, .16, .18, .14, .12, .05, .05, .04, .04, .04, .06]))
    backs = draw_backs(rng, n, edition)
    card_mm = (59.0, 91.0) if rng.random() < 0.8 else (float(rng.uniform(56, 63)), float(rng.uniform(86, 96)))
    if n <= 4:
        table_mm = (float(rng.uniform(1150, 1500)), float(rng.uniform(720, 950)))
    elif n <= 6:
        table_mm = (float(rng.uniform(1450, 1750)), float(rng.uniform(880, 1100)))
    else:
        table_mm = (float(rng.uniform(1800, 2200)), float(rng.uniform(1100, 1400)))
    table_mm = (round(table_mm[0]), round(table_mm[1]))
    surface, surface_rgb = draw_surface(rng, list(deck.palette.values()))
    marker_mm = MARKER_MM
    markers = corner_markers(table_mm)
    named = n <= 4 and rng.random() < 0.7
    if named:
        seats = default_seats(n)
    else:
        seats = _perimeter_seats(n, table_mm, rng)
    zone_inset = float(rng.uniform(15, 70)) if n <= 6 else float(rng.uniform(10, 35))
    zone_gap = float(rng.uniform(4, 14)) if n <= 6 else float(rng.uniform(2, 6))
    props = []
    if "linger-props" in effects or rng.random() < 0.1:
        for kind in rng.choice(["mug", "phone"], size=int(rng.integers(1, 3))):
            corner = int(rng.integers(4))
            x = table_mm[0] * (0.2 if corner in (0, 3) else 0.8) + rng.uniform(-40, 40)
            y = table_mm[1] * (0.3 if corner < 2 else 0.7) + rng.uniform(-30, 30)
            props.append((str(kind), float(x), float(y), float(rng.uniform(0, 360))))
    light = draw_light(rng, profile, effects)
    length_s = float(rng.uniform(12, 20))
    round_end = rng.random() < 0.4 or n >= 10
    draw_light_events(rng, light, effects, table_mm, length_s)
    # camera and video
    size = SIZES[int(rng.choice(4, p=[0.25, 0.4, 0.15, 0.2]))]
    if n >= 7:
        size = SIZES[int(rng.choice([2, 3]))]
    fps = 60.0 if ("fast-two-hands" in effects and rng.random() < 0.5) or rng.random() < 0.05 else 30.0
    camera = draw_camera(rng, profile, effects, table_mm, size, fps, length_s)
    speed = float(rng.uniform(0.7, 1.2))  # the sample scenes' pace: about one play a second at four players
    two_hands = False
    if "fast-two-hands" in effects:
        speed, two_hands = float(rng.uniform(2.2, 3.2)), True
    linger = float(rng.uniform(0.4, 0.8)) if "linger-props" in effects else float(rng.uniform(0, 0.15))
    return TableDraw(
        seed=seed, profile=profile, effects=effects, edition=edition, family=family, deck=deck, backs=backs,
        surface=surface, surface_rgb=surface_rgb, table_mm=table_mm, card_mm=card_mm, marker_mm=marker_mm,
        markers=markers, props=props, seats=seats, named_seats=named, zone_inset_mm=zone_inset, zone_gap_mm=zone_gap, light=light,
        size=size, fps=fps, **camera, vibration_hz=draw_vibration_hz(rng), speed=speed,
        mistakes=float(rng.uniform(0.01, 0.05)), linger=linger, two_hands=two_hands,
        ten=str(rng.choice(["face-up", "face-down"], p=[0.8, 0.2])), grace_s=float(rng.choice([1.0, 1.0, 0.5, 2.0])),
        length_s=length_s, round_end=bool(round_end), font_held_out=held_out_font(Path(deck.font)) if deck.font else False,
        usual_print=usual_print)


def corner_markers(table_mm, inset_mm: float = MARKER_INSET_MM) -> dict[str, tuple[float, float]]:
    """The four ArUco markers' centres (SCENES.md `markers`), ids 0-3 clockwise from the top-left
    corner, each `inset_mm` in from both edges there."""
    w, h = table_mm
    return {"0": (inset_mm, inset_mm), "1": (w - inset_mm, inset_mm), "2": (w - inset_mm, h - inset_mm),
            "3": (inset_mm, h - inset_mm)}


def draw_surface(rng: np.random.Generator, palette) -> tuple[str, tuple]:
    """What the table is covered with (surfaces.KINDS) and its main colour (RGB): on about half the
    tables the usual felt or wood; now and then a cloth the colour of one of `palette` (RGB)."""
    usual_surface = rng.random() < USUAL_SHARE
    surface = str(rng.choice(["felt", "wood"])) if usual_surface else str(rng.choice(SURFACES))
    if usual_surface and surface == "felt":
        surface_rgb = [(40, 110, 60), (35, 70, 120), (95, 95, 100), (120, 40, 45)][int(rng.integers(4))]
        surface_rgb = tuple(int(v * rng.uniform(0.8, 1.2)) for v in surface_rgb)
    elif not usual_surface and rng.random() < 0.3:  # a cloth the colour of the cards
        surface_rgb = tuple(int(np.clip(v * rng.uniform(0.85, 1.1), 0, 255)) for v in palette[int(rng.integers(4))])
    elif surface == "wood":
        surface_rgb = tuple(int(v) for v in rng.uniform([110, 65, 30], [200, 140, 90]))
    elif surface == "grass":
        surface_rgb = (int(rng.uniform(40, 90)), int(rng.uniform(110, 170)), int(rng.uniform(30, 70)))
    elif surface == "gravel":
        surface_rgb = tuple(int(v) for v in [rng.uniform(110, 170)] * 3)
    else:
        surface_rgb = tuple(int(v) for v in rng.integers(20, 235, 3))
    return surface, surface_rgb


def draw_light(rng: np.random.Generator, profile: str, effects: tuple) -> LightPlan:
    """The room's light: even for a clean table, any colour and level otherwise, a warm dim
    flickering lamp for that effect."""
    light = LightPlan(kelvin=float(rng.uniform(4000, 6500)), wb_corrected=float(rng.uniform(0.6, 0.95)),
                      brightness=float(rng.uniform(0.85, 1.1)), gradient=float(rng.uniform(0, 0.2)),
                      gradient_dir=float(rng.uniform(0, 360)), vignette=float(rng.uniform(0, 0.25)))
    if profile != "clean":
        light.kelvin = float(rng.uniform(2700, 6500))
        light.brightness = float(rng.uniform(0.55, 1.2))
        light.gradient = float(rng.uniform(0, 0.4))
    if "warm-dim-flicker" in effects:
        light.kelvin, light.brightness = float(rng.uniform(2700, 3300)), float(rng.uniform(0.35, 0.55))
        light.wb_corrected, light.flicker, light.flicker_hz = float(rng.uniform(0.3, 0.6)), float(rng.uniform(0.04, 0.12)), float(rng.choice([10.0, 20.0]))
    return light


def draw_light_events(rng: np.random.Generator, light: LightPlan, effects: tuple, table_mm, length_s: float) -> None:
    """What happens to `light` during a scene `length_s` long: a lamp switched, a lamp's glare."""
    if "lamp-switch" in effects:
        light.switch_s = float(rng.uniform(0.3, 0.7) * length_s)
        light.switch_to = float(rng.choice([rng.uniform(0.35, 0.6), rng.uniform(1.4, 2.0)]))
        light.switch_kelvin = float(rng.uniform(2700, 6500))
    if "glare" in effects:
        light.glare = [(float(rng.uniform(0.3, 0.7) * table_mm[0]), float(rng.uniform(0.3, 0.7) * table_mm[1]),
                        float(rng.uniform(0.3, 0.8)))]


def draw_camera(rng: np.random.Generator, profile: str, effects: tuple, table_mm, size, fps: float,
                length_s: float) -> dict:
    """The camera and the video of a scene `length_s` long, as a drawn table's fields: its homography,
    lens, vibration, a knock, rolling shutter, the codec and bit rate, sensor noise."""
    tilt = float(rng.uniform(0, 0.02 if profile == "clean" else 0.05))
    roll = float(rng.uniform(-3, 3) if profile != "clean" else rng.uniform(-1, 1))
    camera_h = _camera(table_mm, size, tilt, roll, rng)
    lens_k1 = float(rng.choice([0.0, rng.uniform(-0.12, 0.05)])) if profile != "clean" else 0.0
    vibration = float(rng.uniform(0.3, 3.0)) if "vibration" in effects else 0.0
    knock = None
    if "knock" in effects:
        kf = int(rng.uniform(0.35, 0.65) * length_s * fps)
        knock = Knock(kf, float(rng.uniform(8, 40) * rng.choice([-1, 1])), float(rng.uniform(5, 30) * rng.choice([-1, 1])),
                      float(rng.uniform(-1.5, 1.5)))
    rolling = 0.025 if "rolling-shutter" in effects else float(rng.choice([0.0, 0.0, 0.015]))
    h264 = profile != "clean" or rng.random() < 0.5
    bitrate = 4.0 if "h264-4mbit" in effects else float(rng.uniform(4, 8))
    if "h264-4mbit" in effects:
        h264 = True
    noise = float(rng.uniform(0, 3)) if profile == "clean" else float(rng.uniform(1, 8))
    if "warm-dim-flicker" in effects:
        noise = float(rng.uniform(6, 12))
    return dict(camera_h=camera_h, lens_k1=lens_k1, vibration_px=vibration, knock=knock, rolling_shutter_s=rolling,
                codec="h264" if h264 else "mp4v", bitrate_mbit=bitrate, noise=noise)


def draw_vibration_hz(rng: np.random.Generator) -> tuple[float, float]:
    """The camera's two shake frequencies (used where it vibrates)."""
    return float(rng.uniform(4, 14)), float(rng.uniform(4, 14))


def _perimeter_seats(n: int, table_mm, rng: np.random.Generator, corner_mm: float = 300.0) -> list[float]:
    """Seats at any angle, spread along the table's edges as people sit (by length of edge, none at
    a corner), as angles around the centre (SCENES.md: 0 = south, counter-clockwise)."""
    w, h = table_mm
    edges = [(w, lambda u: (u, h)), (h, lambda u: (w, h - u)), (w, lambda u: (w - u, 0.0)), (h, lambda u: (0.0, u))]  # S, E, N, W
    usable = [max(1.0, L - 2 * corner_mm) for L, _ in edges]
    total = sum(usable)
    off = rng.uniform(0, total)
    out = []
    for i in range(n):
        p = (off + total * i / n + rng.uniform(-0.08, 0.08) * total / n) % total
        for (L, at), u in zip(edges, usable):
            if p < u:
                x, y = at(corner_mm + p if L > 2 * corner_mm else L / 2)
                break
            p -= u
        out.append(round(math.degrees(math.atan2(x - w / 2, y - h / 2)) % 360.0, 1))
    return sorted(out)


def _camera(table_mm, size, tilt: float, roll_deg: float, rng: np.random.Generator) -> np.ndarray:
    """Table mm -> image px: the table filling the picture with a margin, turned by `roll_deg`,
    its corners moved by up to `tilt` of the picture (a camera a few degrees off vertical)."""
    W, H = size
    tw, th = table_mm
    s = min((W * 0.97) / (tw + 40), (H * 0.97) / (th + 40))
    c, sn = math.cos(math.radians(roll_deg)), math.sin(math.radians(roll_deg))
    corners = []
    for x, y in ((0, 0), (tw, 0), (tw, th), (0, th)):
        u, v = (x - tw / 2) * s, (y - th / 2) * s
        corners.append((W / 2 + c * u - sn * v, H / 2 + sn * u + c * v))
    dst = np.float32(corners) + rng.uniform(-tilt, tilt, (4, 2)).astype(np.float32) * np.float32([W, H])
    # keep the whole table in view after the roll and tilt
    lo, hi = dst.min(0), dst.max(0)
    k = min(1.0, (W * 0.98) / (hi[0] - lo[0]), (H * 0.98) / (hi[1] - lo[1]))
    dst = (dst - (lo + hi) / 2) * k + np.float32([W / 2, H / 2])
    return cv2.getPerspectiveTransform(np.float32([[0, 0], [tw, 0], [tw, th], [0, th]]), dst.astype(np.float32))
