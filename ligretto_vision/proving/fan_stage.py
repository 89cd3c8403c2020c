"""The count's other half measured alone: each player's face-up fan of stack cards.

Each table drawn from a seed gets, at every seat, the line the scene generator lays when a
round starts (discard pile, row, stack: `film.zone_places`), from which the referee learns
where each player's line lies (`track.zones.ZoneTracker`), and then, on the bare table, the
fans the generator lays for the count (`film.fan_poses`) of 0-10 cards, in a style drawn per
player (step, place along the line, how far in). Seen through the table's camera, each fan is
found round its player's line and counted (`recognise.fan.count_fan`); a player is counted
exactly when the count is the number of cards fanned. Rows are per number of seats: more
players mean shorter zones and neighbours' fans closer.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.detect.cloth import cloth_busy, cloth_field
from ligretto_vision.geometry.seats import seat_angle
from ligretto_vision.geometry.zones import TableLayout
from ligretto_vision.proving.deck import render_face
from ligretto_vision.proving.draw import TableDraw, draw_table, seed_range
from ligretto_vision.proving.film import FanStyle, fan_poses, zone_places
from ligretto_vision.proving.spread_stage import SeatGroupReport
from ligretto_vision.proving.stages import Summed, seen_through_camera, table_surface
from ligretto_vision.recognise.fan import count_fan
from ligretto_vision.referee.counting import fan_mask, off_cloth
from ligretto_vision.rules.options import RuleOptions
from ligretto_vision.sim.render import paste_card
from ligretto_vision.track.zones import ZoneTracker


@dataclass
class FanCount(Summed):
    players: int = 0
    exact: int = 0  # counted exactly
    cards: int = 0  # cards fanned
    miscount: int = 0  # |counted - fanned| summed over the players


@dataclass
class LaidFans:
    start: np.ndarray  # the table as watching begins: every player's line laid out
    fans: np.ndarray  # the table at the count: every player's fan
    bare: np.ndarray
    fanned: dict[str, int]  # player -> cards in their fan
    markers: list
    layout: TableLayout


def lay_fans(d: TableDraw, camera: bool = True) -> LaidFans:
    rng = np.random.default_rng(d.seed + 23)
    bare, markers = table_surface(d, rng)
    start, fans = bare.copy(), bare.copy()
    row_len = RuleOptions().row_length(d.n_players)
    seats = [(f"P{i + 1}", seat_angle(s)) for i, s in enumerate(d.seats)]
    colours = list(d.deck.palette)

    def face() -> np.ndarray:
        return render_face(d.deck, str(rng.choice(colours)), int(rng.integers(1, 11)), d.card_mm, 1.0, d.seed)

    fanned = {}
    for p, a in seats:
        pl = zone_places(a, d.table_mm, d.card_mm, row_len, d.card_mm[1] * 0.5 + d.zone_inset_mm,
                         d.card_mm[0] + d.zone_gap_mm)
        for pose in [pl.discard, pl.stack] + [pl.slot(i) for i in range(row_len)]:
            paste_card(start, face(), pose[:2], pose[2], shadow=0.3)
        fanned[p] = int(rng.integers(0, 11))
        for x, y, angle in fan_poses(pl, fanned[p], FanStyle.drawn(rng)):
            paste_card(fans, face(), (x, y), angle, shadow=0.3)
    seed = int(rng.integers(1 << 31))  # the camera's noise, alike for the three pictures
    seen = [seen_through_camera(d, img, np.random.default_rng(seed), camera) for img in (start, fans, bare)]
    return LaidFans(*seen, fanned, markers, TableLayout(d.table_mm, seats, d.card_mm, row_len))


def count_fans(d: TableDraw, camera: bool = True, recognise: RecogniseConfig = RecogniseConfig(),
               detect: DetectConfig = DetectConfig()) -> dict[str, tuple[int, int]]:
    """Player -> (cards fanned, cards counted), as the referee's count finds and counts them."""
    t = lay_fans(d, camera)
    cloth, busy = cloth_field(t.bare, detect), cloth_busy(t.bare, detect)
    zones = ZoneTracker(t.layout, d.card_mm, detect=detect)
    start = off_cloth(t.start, t.markers, cloth, busy, detect)
    t.layout.learn_lines(start)
    zones.learn(start)
    off = fan_mask(off_cloth(t.fans, t.markers, cloth, busy, detect), detect)
    return {p: (n, count_fan(t.fans, lambda mm: np.asarray(mm), zones.line_of(p), off, d.card_mm, recognise))
            for p, n in t.fanned.items()}


def evaluate_fans(range_name: str = "measure", tables: int = 40, first: int | None = None,
                  recognise: RecogniseConfig = RecogniseConfig(), detect: DetectConfig = DetectConfig()) -> SeatGroupReport:
    start = seed_range(range_name) if first is None else first
    report = SeatGroupReport()
    for seed in range(start, start + tables):
        d = draw_table(seed)
        got = count_fans(d, recognise=recognise, detect=detect)
        row = FanCount(len(got), sum(a == b for a, b in got.values()), sum(a for a, _ in got.values()),
                       sum(abs(a - b) for a, b in got.values()))
        report.add(d, row)
    return report


def format_fans(report: SeatGroupReport) -> str:
    seeds = f", seeds {report.seeds[0]}-{report.seeds[-1]}" if report.seeds else ""
    lines = [f"The fans alone: {len(report.seeds)} tables{seeds}", "",
             "seats   players  exact   share   cards  |count-fanned|"]
    for g, r in report.by_seats(FanCount()):
        lines.append(f"{g:7s} {r.players:7d} {r.exact:6d} {100 * r.exact / max(1, r.players):6.1f}%  {r.cards:6d} "
                     f"{r.miscount:14d}")
    return "\n".join(lines)
