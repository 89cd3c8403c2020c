"""The frames of a generated scene: the simulated table as an overhead camera films it.

Per frame: the table's still layer (surface, markers, props, every card lying there, lit),
rebuilt only when a card lands or leaves; the players' arms and hands, with the cards they
carry, drawn over it; then the camera: lens, perspective, shake and rolling shutter in one
remap, exposure and white balance, sensor noise; then the encoder (H.264 through ffmpeg,
as a Pi encodes, or MPEG-4 through OpenCV).

A hand's path comes from the simulated move under way: from its rest beyond the table edge
to the card's place in the player's zone, to the pile, held there from touch to let-go
(the truth's play frame), and back (or lingering over the centre first).

`TableFilm` is what any game's film shares (the table, the light, the arms drawn, the camera and
its effects); `Film` is the card game's, `board_film.BoardFilm` the board game's.
"""
from __future__ import annotations

import math
import subprocess
from dataclasses import dataclass, field

import cv2
import numpy as np

from ligretto_vision.geometry.seats import seat_edge
from ligretto_vision.proving.deck import render_face
from ligretto_vision.proving.draw import TableDraw
from ligretto_vision.proving.surfaces import prop, texture
from ligretto_vision.rules.round import pile_key
from ligretto_vision.sim.render import aruco_marker, paste_card, spread_per_row, spread_poses

FACE_DOWN = "back"
MARGIN_MM = 260.0  # table surface drawn beyond the markers' rectangle
CORNER_MM = 125.0  # a zone keeps this far from a corner (its marker)
GRID = 16  # px: the coarse grid that finds which part of the picture a hand changed
HAND_DRAWN_MM = 420.0  # a hand nearer its rest than this is back beyond the edge: not drawn
PALM_MM = 35.0  # the palm's middle lies this far back from the hand's point (where it holds a card)


# ---- where a player's cards lie ------------------------------------------------------------
@dataclass
class ZonePlaces:
    """Poses (x_mm, y_mm, angle) of a player's discard pile, row slots and stack, in a line
    across the seat's direction: discard on the player's left, stack on the right."""
    discard: tuple
    row: list
    stack: tuple
    rest: tuple  # where the hand rests, beyond the edge
    edge: tuple  # where the arm crosses the edge

    def slot(self, i: int) -> tuple:
        if i < len(self.row):
            return self.row[i]
        a, b = self.row[-2], self.row[-1]
        return (b[0] + (b[0] - a[0]) * (i - len(self.row) + 1), b[1] + (b[1] - a[1]) * (i - len(self.row) + 1), b[2])


@dataclass(frozen=True)
class FanStyle:
    """How a player fans out their stack for the count: each card `step_mm` to the right of the one
    before (the last on top, whole), the fan's middle `toward_middle` of the way from their stack's
    place to their line's middle (0: at the stack) and `inward_mm` further in than the line."""
    step_mm: float
    toward_middle: float
    inward_mm: float

    @classmethod
    def drawn(cls, rng: np.random.Generator) -> "FanStyle":
        return cls(float(rng.uniform(13.0, 28.0)), float(rng.uniform(0.0, 1.0)), float(rng.uniform(0.0, 40.0)))


def fan_poses(pl: ZonePlaces, n: int, style: FanStyle) -> list[tuple]:
    """Where a player's `n` stack cards lie fanned out at the count (see `FanStyle`), bottom first."""
    rx, ry = _right(pl)
    ox, oy = _outward(pl)
    mx, my = (pl.discard[0] + pl.stack[0]) / 2, (pl.discard[1] + pl.stack[1]) / 2
    t = style.toward_middle
    cx = pl.stack[0] + (mx - pl.stack[0]) * t - ox * style.inward_mm
    cy = pl.stack[1] + (my - pl.stack[1]) * t - oy * style.inward_mm
    return [(cx + rx * (i - (n - 1) / 2) * style.step_mm, cy + ry * (i - (n - 1) / 2) * style.step_mm, pl.stack[2])
            for i in range(n)]


def sleeve_reach_mm(hand_from_rest_mm: float) -> float:
    """How far back from the hand its arm's sleeve is drawn: past where the hand rests beyond the
    table's edge, and never shorter than an arm. A hand a metre in from a long table's end still
    hangs from a body at the edge; drawn 900 mm long, the arm floated over the centre, its sleeve
    ending 200 mm inside the edge, and no referee could tell whose it was."""
    return max(900.0, hand_from_rest_mm + 60.0)


def zone_places(seat: float, table_mm, card_mm, row_len: int, depth_mm: float, pitch_mm: float,
                corner_mm: float = CORNER_MM) -> ZonePlaces:
    """A player's line of cards along the edge their seat's direction meets (as `TableLayout` finds
    it), `depth_mm` in from it, kept clear of the corners' markers."""
    w, h = table_mm
    (ex, ey), (nx, ny) = seat_edge(seat, table_mm)
    if nx:  # the edge's own seat angle, its length and where along it the seat's direction meets it
        edge_angle, length, along = (90.0 if nx < 0 else 270.0), h, ey
    else:
        edge_angle, length, along = (0.0 if ny < 0 else 180.0), w, ex
    rx, ry = -ny, nx  # the player's right, facing the centre
    n = row_len + 2
    half = (n - 1) / 2 * pitch_mm + card_mm[0] / 2
    lo, hi = corner_mm + half, length - corner_mm - half
    lateral = min(max(along, lo), hi) if lo <= hi else length / 2
    cx, cy = (lateral, ey + ny * depth_mm) if ny else (ex + nx * depth_mm, lateral)
    angle = (-edge_angle + 180.0) % 360.0 - 180.0
    poses = [(cx + rx * pitch_mm * (i - (n - 1) / 2), cy + ry * pitch_mm * (i - (n - 1) / 2), angle) for i in range(n)]
    return ZonePlaces(poses[0], poses[1:-1], poses[-1], (ex - nx * 700, ey - ny * 700), (ex, ey))


# ---- arms and hands --------------------------------------------------------------------------
@dataclass
class Arm:
    sleeve: tuple
    skin: tuple
    width_mm: float
    rest: tuple  # where the hand rests, beyond the edge
    keys: list = field(default_factory=list)  # [(frame, x, y)], the hand's path
    carry: list = field(default_factory=list)  # [(from_frame, to_frame, card, pose_from, pose_to)]

    def at(self, f: int) -> tuple[float, float] | None:
        k = self.keys
        if not k or f <= k[0][0]:
            return (k[0][1], k[0][2]) if k else None
        for (f0, x0, y0), (f1, x1, y1) in zip(k, k[1:]):
            if f0 <= f <= f1:
                u = 0.0 if f1 == f0 else (f - f0) / (f1 - f0)
                u = u * u * (3 - 2 * u)  # ease in and out
                return x0 + (x1 - x0) * u, y0 + (y1 - y0) * u
        return k[-1][1], k[-1][2]

    def go(self, f0: int, f1: int, x: float, y: float) -> None:
        """Move the hand to (x, y), arriving at frame f1, leaving from wherever it is at f0."""
        start = self.at(f0)
        self.keys = [kk for kk in self.keys if kk[0] < f0]
        if start is not None:
            self.keys.append((f0, *start))
        self.keys.append((max(f1, f0 + 1), x, y))

    def forget_before(self, f: int) -> None:
        while len(self.keys) > 2 and self.keys[1][0] < f - 2:
            self.keys.pop(0)
        self.carry = [c for c in self.carry if c[1] >= f]


# ---- the film -----------------------------------------------------------------------------------
class TableFilm:
    """Renders frame after frame of an overhead camera over a table: the surface, markers and props,
    the light, the pieces lying still (`_still`, a game's own), the pieces carried and the arms that
    carry them (`_hands_now`, `arms`), then the camera. The card game's `Film` is one, the board
    game's `board_film.BoardFilm` another."""

    def __init__(self, draw):
        self.d = draw
        rng = np.random.default_rng(draw.seed + 7)
        self.rng = rng
        W, H = draw.size
        self.cam_ppm = draw.cam_ppm
        self.ppm = min(2.2, max(1.0, self.cam_ppm * 1.4))  # top view: a little sharper than the camera
        # the top view covers the table beyond the markers too: the camera sees past them
        tw, th = int((draw.table_mm[0] + 2 * MARGIN_MM) * self.ppm), int((draw.table_mm[1] + 2 * MARGIN_MM) * self.ppm)
        surface = texture(draw.surface, (tw, th), draw.surface_rgb, rng, self.ppm)
        self._marker_layer(surface)
        for kind, x, y, a in draw.props:
            paste_card(surface, prop(kind, rng, self.ppm), self._px((x, y)), a, shadow=0.5)
        # a steady light is folded into the still table once; a changing one is applied per frame
        self.g0 = np.array(draw.light.gain(0.0)) if draw.light.steady else np.ones(3)
        field = self._light_field(th, tw)
        self.light_field = cv2.merge([field * float(g) for g in self.g0])
        self.field_mean = float(field.mean())  # the light's spatial fall-off, on average
        self.hand_light = self.g0 * self.field_mean
        self.glare = self._glare(th, tw)
        self.base = surface
        self.faces: dict[tuple, np.ndarray] = {}  # pictures of the pieces, by `_image_key`
        self.arms: dict[str, list[Arm]] = self._arms(rng)  # drawn here: the seed's draws keep their order
        self._static_key = None
        self._static = None
        self._still_cam = None  # the still table through the camera (steady camera)
        self._work = None  # the still table with this frame's hands drawn on it
        self._dirty = None
        self.H = None
        self._maps(draw.camera_h)
        # sensor noise, offset by 128 so that one saturating addWeighted adds it
        self.noise_bank = [np.clip(rng.normal(128, draw.noise, (H, W, 3)), 0, 255).astype(np.uint8) for _ in range(4)] if draw.noise > 0 else []

    # ---- what a game's film gives -------------------------------------------------------------
    def _arms(self, rng: np.random.Generator) -> dict[str, list[Arm]]:
        """Each player's arms (one, or two for a fast player), their looks drawn from `rng`."""
        raise NotImplementedError

    def _image_key(self, piece: str, owner: str | None) -> tuple:
        """What a piece's picture depends on (the cache's key)."""
        raise NotImplementedError

    def card_img(self, piece: str, owner: str | None) -> np.ndarray:
        """A piece (a card, a token ...) seen from above, BGRA at the top view's scale."""
        raise NotImplementedError

    def _still(self, f: int) -> np.ndarray:
        """The table with every piece lying still on it in frame `f` (not those in a hand), lit
        (`_lit_table`); kept while nothing changes."""
        raise NotImplementedError

    def _hands_now(self, f: int) -> list:
        """The pieces held in frame `f`, each (piece, owner, pose); the arms' paths planned up to it."""
        raise NotImplementedError

    # ---- still layer -------------------------------------------------------------------------
    def _px(self, xy) -> tuple[float, float]:
        """Table mm -> top-view px."""
        return (xy[0] + MARGIN_MM) * self.ppm, (xy[1] + MARGIN_MM) * self.ppm

    def _marker_layer(self, img: np.ndarray) -> None:
        p = self.ppm
        for mid, (mx, my) in self.d.markers.items():
            side, pad = int(self.d.marker_mm * p), int(8 * p)
            cx, cy = self._px((mx, my))
            x0, y0 = int(cx - side / 2), int(cy - side / 2)
            img[max(0, y0 - pad):y0 + side + pad, max(0, x0 - pad):x0 + side + pad] = 240
            img[y0:y0 + side, x0:x0 + side] = aruco_marker(int(mid), side)

    def _light_field(self, h: int, w: int) -> np.ndarray:
        L = self.d.light
        xs = (np.arange(w, dtype=np.float32) / w - 0.5)[None, :]
        ys = (np.arange(h, dtype=np.float32) / h - 0.5)[:, None]
        a = math.radians(L.gradient_dir)
        f = 1 - L.gradient * (xs * math.cos(a) + ys * math.sin(a) + 0.5)
        f = f * (1 - L.vignette * (xs ** 2 + ys ** 2) * 2)
        return np.clip(f, 0.2, 1.5).astype(np.float32)

    def _glare(self, h: int, w: int) -> np.ndarray | None:
        """A lamp's reflection (BGR to add), strongest on glossy cards: one field for the scene."""
        if not self.d.light.glare:
            return None
        g = np.zeros((h, w), np.float32)
        for gx, gy, strength in self.d.light.glare:
            cv2.circle(g, tuple(int(v) for v in self._px((gx, gy))), int(90 * self.ppm), strength * 140, -1)
        return cv2.GaussianBlur(g, (0, 0), 40 * self.ppm)

    def _paste(self, img, card: str, owner, pose, lit: bool = False) -> None:
        """Paste a piece at `pose` (mm); `lit`: in this scene's light (a piece over the lit still table)."""
        bgra = self.card_img(card, owner)
        if lit:
            key = (*self._image_key(card, owner), "lit")
            if key not in self.faces:
                lit_img = bgra.copy()
                lit_img[..., :3] = np.clip(bgra[..., :3] * self.hand_light, 0, 255).astype(np.uint8)
                self.faces[key] = lit_img
            bgra = self.faces[key]
        c = self._px(pose)
        paste_card(img, bgra, c, pose[2], shadow=0.3)
        r = 0.5 * float(np.hypot(*bgra.shape[:2])) + 6
        self._mark([(c[0] - r, c[1] - r), (c[0] + r, c[1] + r)])

    def _lit_table(self, img: np.ndarray) -> np.ndarray:
        """The table with its pieces laid on it (drawn over `base`) in this scene's light: a lamp's
        glare, brighter on glossy pieces than on the cloth, and the light's fall-off."""
        if self.glare is not None:
            on_card = cv2.threshold(cv2.cvtColor(cv2.absdiff(img, self.base), cv2.COLOR_BGR2GRAY), 10, 0.65, cv2.THRESH_BINARY)[1]
            g = self.glare * (0.35 + on_card.astype(np.float32))
            img = cv2.add(img, cv2.merge([g] * 3), dtype=cv2.CV_8U)
        return cv2.multiply(img, self.light_field, dtype=cv2.CV_8U)

    # ---- the camera ---------------------------------------------------------------------------
    def _maps(self, Hmm: np.ndarray) -> None:
        """Output pixel -> top-view pixel, through the lens (one radial term) and the homography."""
        W, H = self.d.size
        self.H = Hmm
        ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
        k1 = self.d.lens_k1
        if k1:
            f = max(W, H)
            u, v = (xs - W / 2) / f, (ys - H / 2) / f
            r2 = u * u + v * v
            xs, ys = (u * (1 + k1 * r2)) * f + W / 2, (v * (1 + k1 * r2)) * f + H / 2
        inv = np.linalg.inv(Hmm)
        pts = np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size, np.float32)])
        mm = inv @ pts
        self.map_x = ((mm[0] / mm[2] + MARGIN_MM) * self.ppm).reshape(H, W).astype(np.float32)
        self.map_y = ((mm[1] / mm[2] + MARGIN_MM) * self.ppm).reshape(H, W).astype(np.float32)
        self.fixed_maps = cv2.convertMaps(self.map_x, self.map_y, cv2.CV_16SC2)  # faster to remap with
        self._grid = (self.map_x[::GRID, ::GRID], self.map_y[::GRID, ::GRID])
        self.px_per_top = self.cam_ppm / self.ppm

    def frame(self, f: int) -> np.ndarray:
        """The video frame `f` (0-based, after the scene's start)."""
        d = self.d
        if d.knock and f == d.knock.frame:
            self._maps(d.knock.moved(d.camera_h, d.size))
            self._still_cam = None
        carried = self._hands_now(f)
        still = self._still(f)
        dx, dy = d.shake(f)
        shaking = bool(dx.any() or dy.any())
        if self._still_cam is None or self._work is None:
            self._work = still.copy()
            self._still_cam = cv2.remap(still, *self.fixed_maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        self._dirty = None
        for card, owner, pose in carried:
            self._paste(self._work, card, owner, pose, lit=True)
        self._draw_arms(self._work, f)
        if shaking:
            s = 1.0 / self.px_per_top
            m1, m2 = cv2.convertMaps(self.map_x - (dx * s)[:, None], self.map_y - (dy * s)[:, None], cv2.CV_16SC2)
            out = cv2.remap(self._work, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        else:  # only the part the hands changed is mapped again
            out = self._still_cam.copy()
            roi = self._camera_roi()
            if roi is not None:
                y0, y1, x0, x1 = roi
                out[y0:y1, x0:x1] = cv2.remap(self._work, self.fixed_maps[0][y0:y1, x0:x1], self.fixed_maps[1][y0:y1, x0:x1],
                                              cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if self._dirty is not None:  # the work picture back to the still table
            x0, y0, x1, y1 = self._dirty
            self._work[y0:y1, x0:x1] = still[y0:y1, x0:x1]
        if not d.light.steady:
            g = np.array(d.light.gain(f / d.fps)) / self.g0
            out = cv2.multiply(out, (float(g[0]), float(g[1]), float(g[2]), 0.0))
        if self.noise_bank:
            out = cv2.addWeighted(out, 1.0, self.noise_bank[f % len(self.noise_bank)], 1.0, -128.0)
        return out

    def _mark(self, pts) -> None:
        """Grow the box (top-view px) of what was drawn over the still table this frame."""
        pts = np.asarray(pts, np.float32).reshape(-1, 2)
        h, w = self.base.shape[:2]
        x0, y0 = np.clip(pts.min(0).astype(int) - 3, 0, [w, h])
        x1, y1 = np.clip(pts.max(0).astype(int) + 4, 0, [w, h])
        if self._dirty is None:
            self._dirty = (x0, y0, x1, y1)
        else:
            a = self._dirty
            self._dirty = (min(a[0], x0), min(a[1], y0), max(a[2], x1), max(a[3], y1))

    def _camera_roi(self) -> tuple[int, int, int, int] | None:
        """The output rows and columns whose source lies in the drawn box (from a coarse grid of the maps)."""
        if self._dirty is None:
            return None
        x0, y0, x1, y1 = self._dirty
        gx, gy = self._grid
        inside = (gx >= x0) & (gx <= x1) & (gy >= y0) & (gy <= y1)
        if not inside.any():
            return None
        rows, cols = np.nonzero(inside)
        H, W = self.d.size[1], self.d.size[0]
        st = GRID
        return (max(0, (rows.min() - 1) * st), min(H, (rows.max() + 2) * st), max(0, (cols.min() - 1) * st), min(W, (cols.max() + 2) * st))

    # ---- hands --------------------------------------------------------------------------------
    def hands(self, f: int) -> list[tuple[str, tuple[float, float]]]:
        """Whose hand is where (table mm, the palm's middle) in frame `f`, of the hands drawn in it
        (as `_draw_arms` draws them; rolling shutter's skew left out): the arms stage's truth."""
        out = []
        for pid, arms in self.arms.items():
            for arm in arms:
                pos = arm.at(f)
                if pos is None:
                    continue
                dx, dy = pos[0] - arm.rest[0], pos[1] - arm.rest[1]
                ln = math.hypot(dx, dy)
                if ln >= HAND_DRAWN_MM:
                    out.append((pid, (pos[0] - dx / ln * PALM_MM, pos[1] - dy / ln * PALM_MM)))
        return out

    def _draw_arms(self, img: np.ndarray, f: int) -> None:
        rs = self.d.rolling_shutter_s * self.d.fps  # frames of readout: a moving hand is skewed row by row
        th = self.d.table_mm[1]
        for arm in (a for arms in self.arms.values() for a in arms):
            pos = arm.at(f)
            if pos is None:
                continue
            dx, dy = pos[0] - arm.rest[0], pos[1] - arm.rest[1]
            ln = math.hypot(dx, dy)
            if ln < HAND_DRAWN_MM:  # the hand is back beyond the edge, out of view
                continue
            prev = arm.at(f - 1) or pos
            vx, vy = pos[0] - prev[0], pos[1] - prev[1]
            ux, uy = dx / ln, dy / ln
            nx, ny = -uy, ux

            def pt(along: float, side: float = 0.0) -> tuple[int, int]:
                x, y = pos[0] + ux * along + nx * side, pos[1] + uy * along + ny * side
                k = rs * (y / th - 0.5)  # rows read later see the hand further on
                return tuple(int(v) for v in self._px((x + vx * k, y + vy * k)))

            hw = arm.width_mm / 2
            # the sleeve from far outside to the forearm, skin from there to the fingers' roots
            far = -sleeve_reach_mm(ln)
            sleeve = [pt(far, hw * 1.25), pt(-230, hw * 0.85), pt(-230, -hw * 0.85), pt(far, -hw * 1.25)]
            sleeve_c, skin = _lit(arm.sleeve, self.hand_light), _lit(arm.skin, self.hand_light)
            cv2.fillPoly(img, [np.int32(sleeve)], sleeve_c, cv2.LINE_AA)
            fore = [pt(-240, hw * 0.7), pt(-60, hw * 0.55), pt(-60, -hw * 0.55), pt(-240, -hw * 0.7)]
            cv2.fillPoly(img, [np.int32(fore)], skin, cv2.LINE_AA)
            c = pt(-PALM_MM)
            cv2.ellipse(img, c, (int(50 * self.ppm), int(hw * 0.95 * self.ppm)), math.degrees(math.atan2(uy, ux)),
                        0, 360, skin, -1, cv2.LINE_AA)
            for k in (-1.5, -0.5, 0.5, 1.5):  # fingers over the card's near edge
                cv2.line(img, pt(-10, k * hw * 0.36), pt(22 - abs(k) * 6, k * hw * 0.4), tuple(int(v * 0.92) for v in skin),
                         max(2, int(hw * 0.22 * self.ppm)), cv2.LINE_AA)
            self._mark(sleeve + [pt(-35, hw), pt(-35, -hw), pt(30, hw), pt(30, -hw), pt(-90, hw), pt(-90, -hw)])


class Film(TableFilm):
    """Renders frame after frame from a `SimTable` stepped by the caller."""

    def __init__(self, draw: TableDraw, table):
        self.table = table
        n = len(table.players)
        row_len = table.options.row_length(n)
        self.places = {p.id: zone_places(p.seat, draw.table_mm, draw.card_mm, row_len, draw.card_mm[1] * 0.5 + draw.zone_inset_mm,
                                         draw.card_mm[0] + draw.zone_gap_mm) for p in table.players.values()}
        fan_rng = np.random.default_rng(draw.seed + 41)  # its own: every other draw stays as it was
        self.fan_styles = {pid: FanStyle.drawn(fan_rng) for pid in self.places}
        super().__init__(draw)
        self.active: dict[str, Arm] = {}
        self.seen_moves: dict[str, object] = {}
        self.pose_of: dict[str, dict] = {}  # pile -> {(card, owner): (x, y, angle)} where each card came to rest
        self.count_plan: tuple[int, int, int] | None = None  # (gather, spread, count) frames of the video
        self.count_from: int | None = None  # the centre's piles are gone from here on
        self.spread_from: int | None = None

    def _arms(self, rng: np.random.Generator) -> dict[str, list[Arm]]:
        arms = {}
        for pid, pl in self.places.items():
            rx, ry = _right(pl)
            rests = [pl.rest] + ([(pl.rest[0] + rx * 260, pl.rest[1] + ry * 260)] if self.d.two_hands else [])
            arms[pid] = arms_of(rng, rests)  # a fast player uses both hands
        return arms

    def _image_key(self, card: str, owner: str | None) -> tuple:
        return card, owner if card == FACE_DOWN else None

    def card_img(self, card: str, owner: str | None) -> np.ndarray:
        key = self._image_key(card, owner)
        if key not in self.faces:
            if card == FACE_DOWN:
                idx = int(owner[1:]) - 1 if owner else 0
                self.faces[key] = self.d.backs[idx].render(self.d.card_mm, self.ppm)
            else:
                colour, _, num = card.rpartition("-")
                self.faces[key] = render_face(self.d.deck, colour, int(num), self.d.card_mm, self.ppm, self.d.seed)
        return self.faces[key]

    def _still(self, f: int) -> np.ndarray:
        """The table with every card lying still on it (not those in a hand), lit."""
        state = self.table.snapshot()
        counting = self.spread_from is not None and f >= self.spread_from
        gathering = self.count_from is not None and f >= self.count_from
        key = (tuple((pv.id, tuple(pv.cards)) for pv in state.piles), counting, gathering,
               tuple((pid, len(p["stack"]), p["stack"][-1:] and p["stack"][-1], tuple(p["row"]), tuple(p["discard"][-2:]))
                     for pid, p in state.players.items()))
        if key == self._static_key:
            return self._static
        img = self.base.copy()
        if not gathering:
            for pv in state.piles:
                at = self.table.pile_at.get(pile_key(pv.id))
                poses = self.pose_of.get(pile_key(pv.id), {})
                for i, (card, owner) in enumerate(pv.cards[-4:]):
                    pose = poses.get((card, owner), (at[0], at[1], 0.0) if at else None)
                    if pose is None:
                        continue
                    shown = FACE_DOWN if (card.endswith("-10") and self.d.ten == "face-down") else card
                    self._paste(img, shown, owner, pose)
        if counting:
            for (owner, pose) in self.spread:
                self._paste(img, FACE_DOWN, owner, pose)
        for pid, p in state.players.items():
            pl = self.places[pid]
            if counting:  # each player's stack fanned out so every card shows
                for card, pose in zip(p["stack"], fan_poses(pl, len(p["stack"]), self.fan_styles[pid])):
                    self._paste(img, card, pid, pose)
                continue
            if p["discard"]:
                self._paste(img, p["discard"][-1], pid, pl.discard)
            for i, card in enumerate(p["row"]):
                if card:
                    self._paste(img, card, pid, pl.slot(i))
            if p["stack"]:
                if len(p["stack"]) > 1:
                    self._paste(img, FACE_DOWN, pid, (pl.stack[0] + 1.5, pl.stack[1] + 1.5, pl.stack[2]))
                self._paste(img, p["stack"][-1], pid, pl.stack)
        img = self._lit_table(img)
        self._static_key, self._static = key, img
        self._still_cam = None
        return img

    # ---- hands --------------------------------------------------------------------------------
    def _hands_now(self, f: int) -> list:
        """Plan each player's hand from their move under way; the cards held now, with their poses."""
        carried = []
        if self.count_plan and f == self.count_plan[0]:
            self._gather(f)
        for p in self.table.players.values():
            arms, pl = self.arms[p.id], self.places[p.id]
            m = p.held
            if m is not None and self.seen_moves.get(p.id) is not m:
                self.seen_moves[p.id] = m
                if m.kind != "takeback" or p.id not in self.active:  # the hand that laid a card takes it back
                    busy = self.active.get(p.id)
                    self.active[p.id] = next((a for a in arms if a is not busy), arms[0])
                self._plan(self.active[p.id], pl, p, m, f)
            elif m is None and self.seen_moves.get(p.id) is not None:
                self.seen_moves[p.id] = None
                self._retreat(self.active[p.id], f)
            for arm in arms:
                for f0, f1, card, src, dst in arm.carry:
                    if f0 <= f <= f1:
                        u = (f - f0) / max(1, f1 - f0)
                        u = u * u * (3 - 2 * u)
                        pose = tuple(src[i] + (dst[i] - src[i]) * u for i in range(2)) + (_lerp_angle(src[2], dst[2], u),)
                        carried.append((card, p.id, pose))
                arm.forget_before(f)
        return carried

    def _plan(self, arm: Arm, pl: ZonePlaces, p, m, f: int) -> None:
        """The hand's path for a move that began this frame."""
        sf0 = self.table.frame - 1  # the move was decided in the frame just stepped
        end = m.done_at - sf0 + f
        if m.kind == "play":
            touch = m.touch - sf0 + f
            src = _source_pose(pl, m.source, m.slot)
            pick = f + max(2, int((touch - f) * 0.4))
            arm.go(f, pick, src[0], src[1])
            dst = tuple(m.at)
            arm.go(pick, touch, dst[0], dst[1])
            arm.keys.append((end, dst[0], dst[1]))
            shown = FACE_DOWN if m.card.number == 10 and self.d.ten == "face-down" else str(m.card)
            arm.carry.append((f, pick - 1, str(m.card), src, src))  # still in its place until picked up
            arm.carry.append((pick, touch, shown, src, dst))
            arm.carry.append((touch + 1, end - 1, shown, dst, dst))  # touching down, still held
        elif m.kind == "takeback":
            pose = self.pose_of.get(pile_key(m.pile), {}).get((str(m.card), p.id))
            tgt = pose or (*self.table.pile_at.get(pile_key(m.pile), pl.rest), 0.0)
            back = _source_pose(pl, m.source, m.slot)
            # the hand that laid the card draws back first, then returns for it
            away = (tgt[0] + (pl.edge[0] - tgt[0]) * 0.8, tgt[1] + (pl.edge[1] - tgt[1]) * 0.8)
            arm.go(f, f + max(3, int((end - f) * 0.3)), *away)
            arm.keys.append((f + max(4, int((end - f) * 0.6)), *away))
            arm.keys.append((end, tgt[0], tgt[1]))
            arm.keys.append((end + max(3, int(0.4 * self.d.fps)), back[0], back[1]))
            arm.carry.append((end, end + max(3, int(0.4 * self.d.fps)), str(m.card), tgt, back))
        elif m.kind == "refill":
            src, dst = pl.stack, pl.slot(m.slot)
            mid = f + max(2, (end - f) // 2)
            arm.go(f, mid, src[0], src[1])
            arm.go(mid, end, dst[0], dst[1])
            arm.carry.append((mid, end - 1, str(m.card), src, dst))
        else:  # flip or recycle: the hand works at the discard pile
            arm.go(f, f + max(2, (end - f) // 2), pl.discard[0], pl.discard[1])
            arm.keys.append((end, pl.discard[0], pl.discard[1]))

    def _retreat(self, arm: Arm, f: int) -> None:
        stay = 0
        if self.rng.random() < self.d.linger:  # a hand that stays over the centre a while
            stay = int(self.rng.uniform(0.4, 1.5) * self.d.fps)
        here = arm.at(f)
        arm.keys = [k for k in arm.keys if k[0] <= f]
        arm.keys.append((f + stay, *here))
        arm.keys.append((f + stay + max(4, int(self.rng.uniform(0.3, 0.55) * self.d.fps)), *arm.rest))

    def note(self, events) -> None:
        """Where each card played came to rest (the simulated table's play events)."""
        for e in events:
            if e.type == "play" and e.get("at"):
                self.pose_of.setdefault(pile_key(e.data["pile"]), {})[(e.data["card"], e.data["player"])] = tuple(e.data["at"])

    # ---- the count ----------------------------------------------------------------------------
    def plan_count(self, gather: int, spread: int, count: int) -> None:
        """Hands gather the centre from `gather`, the spread of backs lies from `spread`, and every
        hand has left the table by `count` (the truth's count frame)."""
        self.count_plan = (gather, spread, count)

    def _gather(self, f: int) -> None:
        """At the count plan's first frame: the centre's cards (as they lie now) become the spread,
        and every other player's hand reaches into the centre to gather it."""
        gather, spread, count = self.count_plan
        self.count_from, self.spread_from = gather + int(0.3 * self.d.fps), spread
        owners = [pc.owner for pile in self.table.round.piles.values() for pc in pile.cards + pile.strays if pc.owner]
        w, h = self.d.table_mm
        rng = np.random.default_rng(self.d.seed + 11)
        poses = spread_poses(len(owners), (w / 2, h / 2), rng, self.d.card_mm, per_row=spread_per_row(w, self.d.card_mm))
        order = list(rng.permutation(len(owners)))
        self.spread = [(owners[i], pose) for i, pose in zip(order, poses)]
        for i, arms in enumerate(self.arms.values()):
            if i % 2:
                continue
            arm = arms[0]
            x, y = w / 2 + rng.uniform(-w * 0.15, w * 0.15), h / 2 + rng.uniform(-h * 0.12, h * 0.12)
            arm.go(f, f + int(0.3 * self.d.fps), x, y)
            arm.keys.append((spread + int(0.1 * self.d.fps), x, y))
            arm.keys.append((count - 2, *arm.rest))


def arms_of(rng: np.random.Generator, rests) -> list[Arm]:
    """One player's arms, resting at `rests`: a sleeve colour, a skin tone and a width drawn from `rng`."""
    sleeve, skin, width = tuple(int(v) for v in rng.integers(10, 245, 3)), _skin(rng), float(rng.uniform(70, 95))
    return [Arm(sleeve, skin, width, r, keys=[(0, *r)]) for r in rests]


def _lit(bgr, gain) -> tuple:
    return tuple(int(min(255, v * g)) for v, g in zip(bgr, gain))


def _skin(rng: np.random.Generator) -> tuple:
    tone = rng.uniform(0, 1)
    dark, light = np.array([45, 65, 100]), np.array([170, 195, 235])  # BGR
    return tuple(int(v) for v in dark + (light - dark) * tone)


def _right(pl: ZonePlaces) -> tuple[float, float]:
    (x0, y0, _), (x1, y1, _) = pl.discard, pl.stack
    n = math.hypot(x1 - x0, y1 - y0) or 1.0
    return (x1 - x0) / n, (y1 - y0) / n


def _outward(pl: ZonePlaces) -> tuple[float, float]:
    """Unit vector from the edge towards the seat (out of the table)."""
    n = math.hypot(pl.rest[0] - pl.edge[0], pl.rest[1] - pl.edge[1]) or 1.0
    return (pl.rest[0] - pl.edge[0]) / n, (pl.rest[1] - pl.edge[1]) / n


def _source_pose(pl: ZonePlaces, source: str | None, slot: int | None) -> tuple:
    if source == "row" and slot is not None:
        return pl.slot(slot)
    return pl.stack if source == "stack" else pl.discard


def _lerp_angle(a: float, b: float, u: float) -> float:
    d = (b - a + 180.0) % 360.0 - 180.0
    return a + d * u


# ---- the encoder ------------------------------------------------------------------------------------
class VideoOut:
    """H.264 through the ffmpeg that imageio-ffmpeg ships (the Pi encoder's settings: I and P
    frames only, an intra period of 60, a bit rate), or MPEG-4 part 2 through OpenCV."""

    def __init__(self, path, size, fps: float, codec: str, bitrate_mbit: float):
        self.path, self.codec = str(path), codec
        if codec == "h264":
            import imageio_ffmpeg  # the proving ground's own dependency

            W, H = size
            cmd = [imageio_ffmpeg.get_ffmpeg_exe(), "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "bgr24",
                   "-s", f"{W}x{H}", "-r", f"{fps:g}", "-i", "-", "-c:v", "libx264", "-preset", "veryfast",
                   "-b:v", f"{bitrate_mbit:g}M", "-maxrate", f"{bitrate_mbit * 1.2:g}M", "-bufsize", f"{bitrate_mbit:g}M",
                   "-g", "60", "-bf", "0", "-threads", "1", "-pix_fmt", "yuv420p", self.path]
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
        else:
            self.writer = cv2.VideoWriter(self.path, cv2.VideoWriter_fourcc(*"mp4v"), fps, tuple(size))
            if not self.writer.isOpened():
                raise RuntimeError(f"OpenCV cannot write {self.path}")

    def write(self, img: np.ndarray) -> None:
        if self.codec == "h264":
            self.proc.stdin.write(np.ascontiguousarray(img).tobytes())
        else:
            self.writer.write(img)

    def close(self) -> None:
        if self.codec == "h264":
            self.proc.stdin.close()
            if self.proc.wait() != 0:
                raise RuntimeError(f"ffmpeg failed writing {self.path}")
        else:
            self.writer.release()
