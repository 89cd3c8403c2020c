"""The recognition stages measured alone on generated pictures, per print family.

Each table drawn from a seed (`draw.draw_table`: deck print, edition, backs, surface, light,
camera) becomes one 1 px/mm top view: its surface with 10-25 faces and a few backs pasted at
random poses, some in small piles (only a pile's top card is whole), lit, then seen through
the table's camera (down to its scale and back, its noise, JPEG). Each stage is then asked
alone, so one stage's misses do not hide or cause another's:

1. finding: `detect.outlines.find_cards` against the whole cards' true poses (recall), and the
   outlines it gives that lie on a whole card (precision);
2. number: `CardReader.read` on each whole face cut at its true pose;
3. colour: `CardReader.colour_of` on the same patches;
4. back: `CardReader.owner_of_back` on each whole back cut at its true pose; one player's back
   (at tables of three or more) is not enrolled and must read as nobody's.

The enrollment is rendered from the table's own deck as the scene generator does (upright,
at the camera's scale, in the table's light). Rows are per print family, split by whether
the font is held out; held-out families and fonts are totalled apart from the seen ones.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, fields

import cv2
import numpy as np

from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.detect.outlines import find_cards
from ligretto_vision.proving.deck import FAMILIES, HELD_OUT_FAMILIES, render_face
from ligretto_vision.proving.draw import TableDraw, draw_table, seed_range
from ligretto_vision.proving.generate import enroll_crop
from ligretto_vision.proving.surfaces import texture
from ligretto_vision.recognise.numerals import DeckNumerals
from ligretto_vision.recognise.patches import Pose, card_patch
from ligretto_vision.recognise.reader import (CardReader, Enrollment, NumberModel, back_thumb, colour_feature, face_ink, shade_of,
                                              upright)
from ligretto_vision.sim.render import aruco_marker, degrade, paste_card

MATCH_MM = 10.0  # a found outline is a true card's when its centre is this near
MATCH_DEG = 10.0  # and its turn this near (modulo 180°)


@dataclass
class Pasted:
    pose: Pose  # table mm (= top-view px)
    colour: str | None = None  # faces
    number: int | None = None
    owner: str | None = None  # backs: the player, None for a back of nobody enrolled
    back: bool = False
    whole: bool = True  # no card lies over it


@dataclass
class LaidTable:
    draw: TableDraw
    top: np.ndarray  # BGR, 1 px/mm, the table's top-left at (0, 0)
    cards: list[Pasted]  # bottom first
    markers: list[tuple[float, float, float]]  # (x, y, radius) mm: not cards


@dataclass
class Tally:
    cards: int = 0  # true cards asked of the stage
    right: int = 0  # of them: found (finding), read right (the others)
    outlines: int = 0  # finding only: outlines found, and those on a whole card
    outlines_right: int = 0

    def __add__(self, o: Tally) -> Tally:
        return Tally(self.cards + o.cards, self.right + o.right, self.outlines + o.outlines,
                     self.outlines_right + o.outlines_right)


class Summed:
    """A dataclass of counts that add up field by field (rows of a stage's report)."""

    def __add__(self, o):
        return type(self)(*(getattr(self, f.name) + getattr(o, f.name) for f in fields(self)))


@dataclass
class FamilyCounts(Summed):
    tables: int = 0
    pasted: int = 0  # every card pasted, covered ones too
    covered: int = 0  # under another card: asked of no stage
    finding: Tally = field(default_factory=Tally)
    number: Tally = field(default_factory=Tally)
    colour: Tally = field(default_factory=Tally)
    back: Tally = field(default_factory=Tally)


@dataclass
class StageReport:
    rows: dict[tuple[str, bool], FamilyCounts] = field(default_factory=dict)  # (family, font held out) ->
    seeds: list[int] = field(default_factory=list)

    def row(self, family: str, font_held_out: bool) -> FamilyCounts:
        return self.rows.setdefault((family, font_held_out), FamilyCounts())


def table_enrollment(d: TableDraw, players: list[str] | None = None, numbers: bool = True,
                     recognise: RecogniseConfig = RecogniseConfig()) -> Enrollment:
    """The set-up crops of this table, as `generate._enroll` makes them: upright at the camera's
    scale, in the table's light, on its cloth; `players`: whose backs (default: `enrolled_players`);
    `numbers`: with the ten numbers of the first colour (False: a table that skipped that step)."""
    ppm, rng = d.cam_ppm, np.random.default_rng(d.seed + 5)
    g = np.array(d.light.gain(0.0), np.float32)

    def seen(bgra: np.ndarray) -> np.ndarray:
        return upright(enroll_crop(d, bgra, g, rng), d.card_mm)

    en = Enrollment()
    colours = list(d.deck.palette)
    inks = {c: face_ink(seen(render_face(d.deck, c, int(rng.integers(1, 11)), d.card_mm, ppm, d.seed)))
            for c in colours}
    en.faces = {c: shade_of(*ink) for c, ink in inks.items()}
    if numbers:
        ten = [seen(render_face(d.deck, colours[0], n, d.card_mm, ppm, d.seed)) for n in range(1, 11)]
        en.numerals = DeckNumerals.from_patches(ten, recognise, inks, en.colour_of_ten(ten))
    for i, back in enumerate(d.backs):
        p = f"P{i + 1}"
        if p in (enrolled_players(d) if players is None else players):
            patch = seen(back.render(d.card_mm, ppm))
            en.backs[p], en.back_thumbs[p], en.back_images[p] = colour_feature(patch), back_thumb(patch), patch
    return en


def enrolled_players(d: TableDraw) -> list[str]:
    """Every player but the last at tables of three or more: the last one's back is nobody's."""
    n = d.n_players
    return [f"P{i + 1}" for i in range(n - 1 if n >= 3 else n)]


def lay_table(d: TableDraw, camera: bool = True) -> LaidTable:
    """The table's top view with cards pasted in small piles; `camera`: seen through the
    table's camera (its scale, its noise, JPEG) rather than as rendered."""
    rng = np.random.default_rng(d.seed + 11)
    tw, th = d.table_mm
    top, markers = table_surface(d, rng)
    players = enrolled_players(d)
    items = [Pasted(Pose(0, 0, 0), str(rng.choice(list(d.deck.palette))), int(rng.integers(1, 11)))
             for _ in range(int(rng.integers(10, 26)))]
    items += [Pasted(Pose(0, 0, 0), owner=str(rng.choice(players)), back=True) for _ in range(int(rng.integers(2, 5)))]
    if len(players) < d.n_players:
        items.append(Pasted(Pose(0, 0, 0), owner=None, back=True))
    rng.shuffle(items)
    # piles of one to three cards, far enough apart not to touch, clear of the markers and edges
    centres: list[tuple[float, float]] = []
    cards: list[Pasted] = []
    gap = math.hypot(*d.card_mm) + 30
    i = 0
    for _ in range(400):
        if i >= len(items):
            break
        x, y = rng.uniform(75, tw - 75), rng.uniform(75, th - 75)
        if any(math.hypot(x - cx, y - cy) < gap for cx, cy in centres) or \
                any(math.hypot(x - mx, y - my) < r + 65 for mx, my, r in markers):
            continue
        centres.append((x, y))
        base = float(rng.uniform(0, 360))
        for it in items[i:i + int(rng.choice([1, 2, 3], p=[0.6, 0.3, 0.1]))]:
            dx, dy = np.clip(rng.normal(0, 6, 2), -10, 10)
            it.pose = Pose(float(x + dx), float(y + dy), float((base + rng.normal(0, 12)) % 360))
            cards.append(it)
            i += 1
    faces: dict = {}
    for c in cards:
        key = ("back", c.owner) if c.back else (c.colour, c.number)
        if key not in faces:
            back = d.backs[int(c.owner[1:]) - 1] if c.owner else d.backs[-1]  # nobody's: the last player's
            faces[key] = (back.render(d.card_mm, 1.0) if c.back
                          else render_face(d.deck, c.colour, c.number, d.card_mm, 1.0, d.seed))
        paste_card(top, faces[key], (c.pose.x, c.pose.y), c.pose.angle, shadow=0.3)
    for k, c in enumerate(cards):
        poly = c.pose.corners(d.card_mm).astype(np.float32)
        c.whole = all(cv2.intersectConvexConvex(poly, o.pose.corners(d.card_mm).astype(np.float32))[0] < 1
                      for o in cards[k + 1:])
    return LaidTable(d, seen_through_camera(d, top, rng, camera), cards, markers)


def table_surface(d: TableDraw, rng: np.random.Generator) -> tuple[np.ndarray, list[tuple[float, float, float]]]:
    """The bare table's top view at 1 px/mm, its markers on it, and where they lie ((x, y, radius) mm)."""
    tw, th = d.table_mm
    s = min(1.0, d.cam_ppm)  # the surface is drawn at the camera's scale: all it ever shows
    top = cv2.resize(texture(d.surface, (round(tw * s), round(th * s)), d.surface_rgb, rng, s), (tw, th))
    markers = []
    for mid, (mx, my) in d.markers.items():
        side, x0, y0 = int(d.marker_mm), int(mx - d.marker_mm / 2), int(my - d.marker_mm / 2)
        top[y0 - 8:y0 + side + 8, x0 - 8:x0 + side + 8] = 240
        top[y0:y0 + side, x0:x0 + side] = aruco_marker(int(mid), side)
        markers.append((mx, my, d.marker_mm * 0.75 + 12))
    return top, markers


def seen_through_camera(d: TableDraw, top: np.ndarray, rng: np.random.Generator, camera: bool = True) -> np.ndarray:
    """A top view in the table's light (its level and colour, its fall-off across the table, as
    `film.Film` lights it) and, with `camera`, seen through its camera (its scale, noise, JPEG)."""
    tw, th = d.table_mm
    s = min(1.0, d.cam_ppm)
    L = d.light
    xs, ys = np.linspace(-0.5, 0.5, tw, dtype=np.float32)[None], np.linspace(-0.5, 0.5, th, dtype=np.float32)[:, None]
    a = math.radians(L.gradient_dir)
    fall = (1 - L.gradient * (xs * math.cos(a) + ys * math.sin(a) + 0.5)) * (1 - L.vignette * (xs ** 2 + ys ** 2) * 2)
    top = cv2.multiply(top, cv2.merge([np.clip(fall, 0.2, 1.5) * g for g in L.gain(0.0)]), dtype=cv2.CV_8U)
    if camera:
        small = cv2.resize(top, (round(tw * s), round(th * s)), interpolation=cv2.INTER_AREA)
        small = degrade(small, rng, noise=min(d.noise, 5.0), jpeg=int(rng.integers(70, 91)))
        top = cv2.resize(small, (tw, th), interpolation=cv2.INTER_LINEAR)
    return top


@functools.lru_cache(maxsize=1)
def _model() -> NumberModel:
    return NumberModel()


def same_place(p: Pose, q: Pose) -> bool:
    turn = abs(p.angle - q.angle) % 180
    return math.hypot(p.x - q.x, p.y - q.y) <= MATCH_MM and min(turn, 180 - turn) <= MATCH_DEG


def measure_table(d: TableDraw, enrollment: Enrollment | None = None, camera: bool = True,
                  recognise: RecogniseConfig = RecogniseConfig(), numbers: bool = True) -> StageReport:
    """Every stage on the table drawn as `d`; `enrollment`: instead of the table's own; `recognise`: the
    reading stage's thresholds; `numbers`: whether the table's own enrollment has the ten numbers."""
    t = lay_table(d, camera)
    reader = CardReader(enrollment if enrollment is not None else table_enrollment(d, numbers=numbers,
                                                                                    recognise=recognise),
                        _model(), recognise)
    report = StageReport(seeds=[d.seed])
    row = report.row(d.family, d.font_held_out)
    row.tables, row.pasted = 1, len(t.cards)
    whole = [c for c in t.cards if c.whole]
    row.covered = len(t.cards) - len(whole)
    found = find_cards(t.top, d.card_mm, t.markers)
    taken: set[int] = set()
    for f in found:  # each outline on at most one whole card, each card claimed once
        k = next((k for k, c in enumerate(whole) if k not in taken and same_place(f.pose, c.pose)), None)
        if k is not None:
            taken.add(k)
    row.finding = Tally(len(whole), len(taken), len(found), len(taken))
    patch = {id(c): card_patch(t.top, lambda mm: mm, c.pose, d.card_mm) for c in whole}
    faces, backs = [c for c in whole if not c.back], [c for c in whole if c.back]
    readings = [r if not r.face_up or r.confidence >= recognise.sure_face else facing_again(reader, patch[id(c)], r)
                for c, r in zip(faces, reader.read([patch[id(c)] for c in faces]))]
    row.number = Tally(len(faces), sum(r.face_up and r.number == c.number for r, c in zip(readings, faces)))
    row.colour = Tally(len(faces), sum(reader.colour_of(patch[id(c)])[0] == c.colour for c in faces))
    row.back = Tally(len(backs), sum(reader.owner_of_back(patch[id(c)])[0] == c.owner for c in backs))
    return report


def facing_again(reader: CardReader, upright_patch: np.ndarray, reading):
    """A face read unsurely either way up, read again the right way up, as the referee does for
    the player who laid it (`Referee._read_facing`); kept if that reads surer."""
    again = reader.read([upright_patch], either_way=False)[0]
    return again if again.face_up and again.confidence > reading.confidence else reading


def merge(into: StageReport, more: StageReport) -> StageReport:
    into.seeds += more.seeds
    for k, r in more.rows.items():
        into.rows[k] = into.rows.get(k, FamilyCounts()) + r
    return into


def evaluate_stages(range_name: str = "measure", tables: int = 40, first: int | None = None,
                    camera: bool = True, recognise: RecogniseConfig = RecogniseConfig(),
                    numbers: bool = True) -> StageReport:
    """The stages on `tables` tables of a seed range ("measure" or "tune"), from seed `first`
    (default: the range's first seed); `camera`: False to measure on the pictures as rendered."""
    start = seed_range(range_name) if first is None else first
    report = StageReport()
    for seed in range(start, start + tables):
        merge(report, measure_table(draw_table(seed), camera=camera, recognise=recognise, numbers=numbers))
    return report


def _group(family: str, font_held_out: bool) -> str:
    return "held-out family" if family in HELD_OUT_FAMILIES else "held-out font" if font_held_out else "seen"


def format_report(report: StageReport) -> str:
    """One table per stage: a row per family (and font seen or held out), then the totals of
    seen, held-out-font and held-out-family tables apart."""
    keys = sorted(report.rows, key=lambda k: (FAMILIES.index(k[0]) if k[0] in FAMILIES else 99, k[1]))
    totals: dict[str, FamilyCounts] = {}
    for k in keys:
        totals[_group(*k)] = totals.get(_group(*k), FamilyCounts()) + report.rows[k]
    lines = [f"Recognition stages alone: {len(report.seeds)} tables"
             + (f", seeds {min(report.seeds)}-{max(report.seeds)}" if report.seeds else "")]

    def share(a: int, n: int) -> str:
        return f"{a / n:6.1%}" if n else "     –"

    for stage, title in (("finding", "card finding (whole cards found / outlines on a whole card)"),
                         ("number", "number reading at the true pose"), ("colour", "colour reading at the true pose"),
                         ("back", "back reading at the true pose (right player, or nobody's)")):
        lines += ["", f"{title}:", f"  {'family':<32} tables  cards  right  share"
                  + ("  outlines  right  precision" if stage == "finding" else "")]
        named = [(report.rows[k], k[0] + (" (held out)" if k[0] in HELD_OUT_FAMILIES else "")
                  + (", held-out font" if k[1] else "")) for k in keys]
        named += [(r, f"total {g}") for g, r in sorted(totals.items(), key=lambda x: x[0] != "seen")]
        for r, name in named:
            t: Tally = getattr(r, stage)
            line = f"  {name:<32} {r.tables:6d} {t.cards:6d} {t.right:6d} {share(t.right, t.cards)}"
            if stage == "finding":
                line += f" {t.outlines:9d} {t.outlines_right:6d}     {share(t.outlines_right, t.outlines)}"
            lines.append(line)
    return "\n".join(lines)
