"""A rendered end-of-round count: the centre cards of up to twelve players spread face down,
seen through a simulated camera, with the truth of how many backs each player has there.

Three boxes of four backs: a box's backs share one print (balls, symbol) in four colours, and
the colours repeat between boxes, so a back is told only by print and colour together.
Used by the counting tests and by `ligretto-vision bench --count`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ligretto_vision.detect.cloth import not_cloth
from ligretto_vision.detect.light import light_level
from ligretto_vision.geometry.calibration import MarkerLayout, calibrate
from ligretto_vision.recognise.reader import upright
from ligretto_vision.sim.render import TableScene, camera_view, render_back, render_top, spread_poses
from ligretto_vision.sim.samples import CARD_MM

TABLE_MM = (1800.0, 1400.0)
BACK_COLOURS = [(134, 55, 24), (140, 40, 130), (65, 124, 18), (39, 34, 218)]  # BGR: blue, purple, green, red
STRANGER = ((30, 140, 230), 4)  # an orange back of a fourth box, enrolled by nobody
MARKERS = {0: (60.0, 60.0), 1: (1740.0, 60.0), 2: (1740.0, 1340.0), 3: (60.0, 1340.0)}


@dataclass
class RenderedCount:
    image: np.ndarray  # the camera's picture (1920 x 1080)
    markers: MarkerLayout
    backs: dict[str, np.ndarray]  # enrollment: each player's back, upright, 1 px/mm
    centre: dict[str, int]  # truth: backs of each player in the spread
    strangers: int  # backs of nobody enrolled in the spread
    card_mm: tuple[float, float] = CARD_MM
    table_mm: tuple[float, float] = TABLE_MM

    def top_view(self) -> tuple[np.ndarray, np.ndarray]:
        """The table from above at 1 px/mm through its own calibration, and what in it is not cloth,
        as the referee sees a count."""
        cal = calibrate(self.image, self.markers)
        top = cal.crop(self.image, (0, 0), self.table_mm)
        off = not_cloth(top, exclude=[(x, y, 70.0) for x, y in self.markers.centres_mm.values()], light=light_level(top))
        return top, off.astype(bool)


def _back(player_index: int) -> np.ndarray:
    colour, box = BACK_COLOURS[player_index % 4], player_index // 4 + 1
    return render_back(colour, CARD_MM, 2.0, symbol=box)


def render_count(players: int = 12, seed: int = 0, strangers: int = 0) -> RenderedCount:
    """`players` players' centre cards (3 to 15 each, drawn by `seed`) and `strangers` backs of
    nobody enrolled, spread face down in rows."""
    rng = np.random.default_rng(seed)
    names = [f"P{i + 1}" for i in range(players)]
    centre = {p: int(rng.integers(3, 16)) for p in names}
    laid = [i for i, p in enumerate(names) for _ in range(centre[p])] + [-1] * strangers
    rng.shuffle(laid)
    scene = TableScene(table_mm=TABLE_MM, marker_centres_mm=MARKERS, cloth_bgr=(70, 110, 150), cloth_kind="wood")
    poses = spread_poses(len(laid), (TABLE_MM[0] / 2, TABLE_MM[1] / 2), rng, CARD_MM, per_row=14)
    for who, pose in zip(laid, poses):
        back = render_back(STRANGER[0], CARD_MM, 2.0, symbol=STRANGER[1]) if who < 0 else _back(who)
        scene.cards.append((back, pose))
    top = render_top(scene, 2.0, rng)
    image, _ = camera_view(top, 2.0, TABLE_MM, (1920, 1080), tilt=0.01, rng=rng)
    backs = {p: upright(_back(i)[..., :3], CARD_MM)
             for i, p in enumerate(names)}
    return RenderedCount(image, MarkerLayout("DICT_4X4_50", scene.marker_size_mm, MARKERS), backs, centre, strangers)
