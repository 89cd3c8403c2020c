"""The count stage measured alone: a face-down centre spread on each generated table, counted
by its backs.

Each table drawn from a seed gets the spread the scene generator lays for the count
(`sim.render.spread_poses`: rows, each card over the right edge of the one before), of
3-14 backs per player, on its own surface in its light, seen through its camera (as
`stages.lay_table` shows its cards). The cloth is learnt from the same table bare, as the
referee learns it when watching begins. `recognise.backs.backs_in_spread` then counts the
spread with every player's back enrolled; a player is counted exactly when their number of
backs is theirs. Rows are per number of seats: more players mean more backs alike.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.detect.cloth import cloth_busy, cloth_field
from ligretto_vision.proving.draw import TableDraw, draw_table, seed_range
from ligretto_vision.proving.stages import Summed, seen_through_camera, table_enrollment, table_surface
from ligretto_vision.recognise.backs import backs_in_spread
from ligretto_vision.referee.counting import count_backs, off_cloth
from ligretto_vision.sim.render import paste_card, spread_per_row, spread_poses


@dataclass
class SpreadCount(Summed):
    players: int = 0  # players at the tables
    exact: int = 0  # of them counted exactly
    cards: int = 0  # backs laid
    given: int = 0  # backs given to some player
    miscount: int = 0  # |counted - laid| summed over the players
    unknown: int = 0  # backs reported as nobody's
    # where each back laid went: found as its owner's, as another player's of its print or of another
    # print, or not found at all; and finds given to a player where no other card lies (`where_backs_went`)
    right: int = 0
    to_same_print: int = 0
    to_other_print: int = 0
    missed: int = 0
    extra: int = 0


def where_backs_went(found: list, cards: list[tuple[str, tuple]], designs: dict[str, str],
                     near_mm: float = 15.0) -> dict[str, int]:
    """Each find given to a player matched to the laid card nearest its centre (within `near_mm`, each
    card once, finds on more tiles first): right, given to another player of the same print
    (`designs`: player -> back design) or of another print; finds matching no card are extra, cards
    no find matched are missed. Finds of nobody's back are counted as `unknown` elsewhere."""
    at = np.array([(x, y) for _, (x, y, _a) in cards], float).reshape(-1, 2)
    free = np.ones(len(cards), bool)
    out = dict(right=0, to_same_print=0, to_other_print=0, missed=0, extra=0)
    for b in sorted((b for b in found if b.owner is not None), key=lambda b: -b.tiles):
        dist = np.where(free, np.hypot(at[:, 0] - b.pose.x, at[:, 1] - b.pose.y), np.inf)
        i = int(np.argmin(dist)) if len(dist) else -1
        if i < 0 or dist[i] > near_mm:
            out["extra"] += 1
            continue
        free[i] = False
        owner = cards[i][0]
        key = "right" if owner == b.owner else "to_same_print" if designs[owner] == designs[b.owner] else "to_other_print"
        out[key] += 1
    out["missed"] = int(free.sum())
    return out


@dataclass
class SeatGroupReport:
    """A count stage's rows (`Summed` counts) per seat group of the proving ground, and its seeds."""
    seeds: list[int] = field(default_factory=list)
    rows: dict[str, Summed] = field(default_factory=dict)

    def add(self, d: TableDraw, row: Summed) -> None:
        self.seeds.append(d.seed)
        group = d.kinds()["seats"]
        self.rows[group] = self.rows[group] + row if group in self.rows else row

    def by_seats(self, zero: Summed) -> list[tuple[str, Summed]]:
        """Fewest seats first, then the total."""
        rows = sorted(self.rows.items(), key=lambda gr: int(gr[0].split("-")[0]))
        return rows + [("total", sum((r for _, r in rows), zero))]


def lay_spread(d: TableDraw, camera: bool = True) -> tuple[np.ndarray, np.ndarray, Counter, list, list]:
    """(the table with the spread, the same table bare, each player's backs laid, the markers, each
    card laid as (owner, (x, y, angle)) in table mm)."""
    rng = np.random.default_rng(d.seed + 17)
    bare, markers = table_surface(d, rng)
    top = bare.copy()
    laid = Counter({f"P{i + 1}": int(rng.integers(3, 15)) for i in range(d.n_players)})
    owners = [p for p, n in laid.items() for _ in range(n)]
    rng.shuffle(owners)
    w, h = d.table_mm
    backs = {p: d.backs[int(p[1:]) - 1].render(d.card_mm, 1.0) for p in laid}
    poses = spread_poses(len(owners), (w / 2, h / 2), rng, d.card_mm, per_row=spread_per_row(w, d.card_mm))
    for owner, (x, y, a) in zip(owners, poses):
        paste_card(top, backs[owner], (x, y), a, shadow=0.3)
    seed = int(rng.integers(1 << 31))  # the camera's noise, alike for both pictures
    return (seen_through_camera(d, top, np.random.default_rng(seed), camera),
            seen_through_camera(d, bare, np.random.default_rng(seed), camera), laid, markers,
            list(zip(owners, poses)))


def count_table(d: TableDraw, camera: bool = True, recognise: RecogniseConfig = RecogniseConfig(),
                detect: DetectConfig = DetectConfig()) -> SpreadCount:
    """The table's spread counted with every player's back enrolled (as the referee's count does,
    the whole table taken for the centre: no fans lie in the zones here)."""
    top, bare, laid, markers, cards = lay_spread(d, camera)
    enrollment = table_enrollment(d, players=list(laid), numbers=False, recognise=recognise)
    off = off_cloth(top, markers, cloth_field(bare, detect), cloth_busy(bare, detect), detect)
    found = backs_in_spread(top, off, enrollment.back_images, d.card_mm, None, recognise)
    got = count_backs(found)
    went = where_backs_went(found, cards, {f"P{i + 1}": b.design for i, b in enumerate(d.backs)})
    return SpreadCount(players=len(laid), exact=sum(got[p] == n for p, n in laid.items()), cards=sum(laid.values()),
                       given=sum(got[p] for p in laid), miscount=sum(abs(got[p] - n) for p, n in laid.items()),
                       unknown=got["unknown"], **went)


def evaluate_spreads(range_name: str = "measure", tables: int = 40, first: int | None = None,
                     recognise: RecogniseConfig = RecogniseConfig(), detect: DetectConfig = DetectConfig()) -> SeatGroupReport:
    """The count stage on `tables` tables of a seed range, from seed `first` (default: its first)."""
    start = seed_range(range_name) if first is None else first
    report = SeatGroupReport()
    for seed in range(start, start + tables):
        d = draw_table(seed)
        report.add(d, count_table(d, recognise=recognise, detect=detect))
    return report


def format_spreads(report: SeatGroupReport) -> str:
    """Per seat group (fewest seats first) and in total: players counted exactly, backs laid and
    given to players, how far the counts were off, backs reported as nobody's; then where the backs
    went (`where_backs_went`)."""
    seeds = f", seeds {report.seeds[0]}-{report.seeds[-1]}" if report.seeds else ""
    lines = [f"The count stage alone: {len(report.seeds)} tables{seeds}", "",
             "seats   players  exact   share   backs  given  |count-laid|  unknown"]
    rows = report.by_seats(SpreadCount())
    for g, r in rows:
        lines.append(f"{g:7s} {r.players:7d} {r.exact:6d} {100 * r.exact / max(1, r.players):6.1f}%  {r.cards:6d} "
                     f"{r.given:6d} {r.miscount:12d} {r.unknown:8d}")
    lines += ["", "Where the backs went: seats, backs, right, to another of their print, to another print, "
              "missed; finds on no card",
              "seats     backs  right  same-print  other-print  missed   extra"]
    for g, r in rows:
        lines.append(f"{g:7s} {r.cards:7d} {r.right:6d} {r.to_same_print:11d} {r.to_other_print:12d} {r.missed:7d} "
                     f"{r.extra:7d}")
    return "\n".join(lines)
