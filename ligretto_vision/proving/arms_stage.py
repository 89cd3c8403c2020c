"""The arms stage measured alone: whose arm each hand over the table is, on generated films.

Each table is filmed as the scene generator films it (its bots' round up to the count; the camera's
lens, shake, light and noise, but not its encoder) and only the change watch runs on it
(`detect.activity.ActivityMonitor`, each change taken in as it settles). In every frame each hand
drawn over the table (its palm's middle at least `INSIDE_MM` inside the edge) is looked up in the
watch's seat map: of the arm pixels within `PALM_MM` of it, the seat most are given. The hand is
right when that is its player's seat, wrong when another's, unseen when no arm pixel lies there.
Who laid a card follows from these seats over the frames a hand lay over it, so this stage bounds
the referee's player_acc. Rows per seat count, grouped as the proving ground's report groups them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.detect.activity import ActivityMonitor
from ligretto_vision.geometry.calibration import CalibrationError, MarkerLayout, calibrate
from ligretto_vision.geometry.zones import layout_from_scene
from ligretto_vision.proving.draw import seed_range
from ligretto_vision.proving.generate import drawn, filming, scene_json
from ligretto_vision.scene import Scene

INSIDE_MM = 40.0  # a palm nearer the table's edge than this is half beyond it: not counted
PALM_MM = 28.0  # the arm pixels within this of a palm's middle are its hand's


@dataclass
class HandCounts:
    """Hands over the table, frame by frame: how many, how many had arm pixels at them, how many
    of those were given their own player's seat."""
    hands: int = 0
    seen: int = 0
    right: int = 0
    tables: set[int] = field(default_factory=set)

    def __add__(self, o: "HandCounts") -> "HandCounts":
        return HandCounts(self.hands + o.hands, self.seen + o.seen, self.right + o.right, self.tables | o.tables)


def hand_seat(seat_map: np.ndarray, at_mm: tuple[float, float], ppm: float) -> int | None:
    """The seat most arm pixels within `PALM_MM` of `at_mm` are given in `seat_map` (low-res, `ppm`
    px/mm from the table's corner); None: no arm pixel there."""
    h, w = seat_map.shape
    r = PALM_MM * ppm
    cx, cy = at_mm[0] * ppm - 0.5, at_mm[1] * ppm - 0.5
    x0, x1 = max(0, int(cx - r)), min(w, int(cx + r) + 2)
    y0, y1 = max(0, int(cy - r)), min(h, int(cy + r) + 2)
    if x0 >= x1 or y0 >= y1:
        return None
    ys, xs = np.mgrid[y0:y1, x0:x1]
    win = seat_map[y0:y1, x0:x1][(xs - cx) ** 2 + (ys - cy) ** 2 <= r * r]
    win = win[win >= 0]
    return int(np.bincount(win.astype(np.intp)).argmax()) if win.size else None


def measure_film(seed: int, length_s: float | None = 10.0, detect: DetectConfig = DetectConfig()) -> HandCounts:
    """The arms stage on the film of table `seed` (`length_s` of it)."""
    d = drawn(seed, length_s)
    fm = filming(d)
    scene = Scene(**scene_json(d, fm.phases), folder=Path("."))
    layout = layout_from_scene(scene)
    seat_of = {s.player: k for k, s in enumerate(layout.seats)}
    w, h = d.table_mm
    counts = HandCounts(tables={seed})
    play_to = next(p["to"] for p in fm.phases if p["name"] == "play")
    mon = None
    for f, picture in fm.frames():
        if mon is None:
            try:
                cal = calibrate(picture, MarkerLayout.from_scene(scene))
            except CalibrationError:
                continue  # a marker covered (a prop, glare): the watch starts once the table is seen
            mon = ActivityMonitor(cal, layout, scene.fps, tuple(scene.size), detect)
        for s in mon.update(f, picture):
            mon.accept(s)
        if f > play_to:
            break  # the count: hands gather the centre, and the cards are counted by their backs
        seat_map = mon.history.seats[-1]
        for player, (x, y) in fm.film.hands(f):
            if not (INSIDE_MM <= x <= w - INSIDE_MM and INSIDE_MM <= y <= h - INSIDE_MM):
                continue
            counts.hands += 1
            seat = hand_seat(seat_map, (x, y), mon.ppm)
            counts.seen += seat is not None
            counts.right += seat == seat_of[player]
    return counts


def evaluate_arms(range_name: str = "measure", tables: int = 20, first: int | None = None,
                  length_s: float | None = 10.0, detect: DetectConfig = DetectConfig()) -> dict[str, HandCounts]:
    """The arms stage on `tables` tables of a seed range, from seed `first` (default: the range's
    first), per seat count's row; `length_s` of each table's filmed window (None: all of it; a
    table filmed to its round's end keeps its last seconds, the count's among them, not counted)."""
    start = seed_range(range_name) if first is None else first
    rows: dict[str, HandCounts] = {}
    for seed in range(start, start + tables):
        g = drawn(seed).kinds()["seats"]
        rows[g] = rows.get(g, HandCounts()) + measure_film(seed, length_s, detect)
    return rows


def format_arms(rows: dict[str, HandCounts]) -> str:
    order = ["2", "3", "4", "5-6", "7-9", "10-12"]
    total = sum(rows.values(), HandCounts())
    lines = ["Arms stage alone: whose arm each hand over the table is, frame by frame",
             f"  {'seats':<8} tables  hands   seen  right  right/seen  right/hands"]

    def row(name: str, c: HandCounts) -> str:
        share = lambda a, n: f"{a / n:10.1%}" if n else "         –"  # noqa: E731
        return f"  {name:<8} {len(c.tables):6d} {c.hands:6d} {c.seen:6d} {c.right:6d}  {share(c.right, c.seen)}  " \
               f"{share(c.right, c.hands):>11}"

    lines += [row(g, rows[g]) for g in order if g in rows]
    lines.append(row("total", total))
    return "\n".join(lines)
