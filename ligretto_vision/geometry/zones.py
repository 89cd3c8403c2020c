"""Who sits where: seats on the table's edge, each player's own zone, and the centre.

A player's zone is the strip along their edge where their row, Ligretto stack and
discard pile lie; everything else is the centre. Players round an oval table lay their line
further in and turned with their seat: where the table shows a player's line when watching
starts (`learn_lines`), the zone also reaches in as deep as that line, within the player's
sector (the directions from the table's centre nearer their seat than any other's). An arm reaching in over the edge
belongs to the seat nearest (along the table's edge) to where it crosses it.
Seats are angles here (geometry/seats.py: what a seat is, and a name's angle).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ligretto_vision.geometry.seats import seat_direction, seat_edge


@dataclass(frozen=True)
class LinePlace:
    """Where a player's line of cards lies: its middle (x, y) mm, the way across it into the table
    (a unit vector), and how far it reaches to the player's left and right of its middle (mm, the
    left one negative). Their cards lie there at the start; their stack is fanned there at the count."""
    centre: tuple[float, float]
    across: tuple[float, float]
    span: tuple[float, float]

    @property
    def card_angle(self) -> float:
        """The angle (`Pose.angle`) of a card lying upright for this player in their line."""
        return float(np.degrees(np.arctan2(self.across[0], -self.across[1])))

    def local(self, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Points (mm) as (to the player's right of the middle, into the table from it)."""
        nx, ny = self.across
        dx, dy = xs - self.centre[0], ys - self.centre[1]
        return dx * -ny + dy * nx, dx * nx + dy * ny

    def at(self, right: float, inward: float) -> tuple[float, float]:
        """The inverse of `local` for one point."""
        nx, ny = self.across
        return self.centre[0] - ny * right + nx * inward, self.centre[1] + nx * right + ny * inward

    def turned(self, degrees: float, centre: tuple[float, float], half: float) -> "LinePlace":
        """A line `half` mm either side of `centre`, turned `degrees` from this one as angles run in
        its own (right, inward) frame (a mirror of the picture's: there they run the other way)."""
        t = np.radians(degrees)
        nx, ny = self.across
        return LinePlace(centre, (nx * np.cos(t) + ny * np.sin(t), ny * np.cos(t) - nx * np.sin(t)), (-half, half))


@dataclass(frozen=True)
class Seat:
    player: str
    angle: float  # seats.py: degrees counter-clockwise from south, seen from above
    edge_point: tuple[float, float]  # where the seat's direction meets the table edge, mm
    normal: tuple[float, float]  # unit vector from the edge into the table
    perimeter_pos: float  # edge_point's position along the table's perimeter, mm

    @property
    def inward(self) -> tuple[float, float]:
        """Unit vector from the seat towards the table's centre: the way the player faces (the
        edge's normal for a seat at an edge's middle)."""
        dx, dy = seat_direction(self.angle)
        return -dx, -dy

    def across_line(self, xs: np.ndarray, ys: np.ndarray, least_mm: float) -> tuple[float, float]:
        """Which way, into the table, lies across this player's line of cards (points xs, ys mm):
        along the edge's normal (a line laid along the edge) or the way the player faces (a line
        turned with the seat, round an oval table), whichever the points lie thinner across. A
        line shorter than `least_mm` (a card or two, as tall as long) says nothing: the edge's."""
        nx, ny = self.normal
        if not len(xs) or np.ptp(xs * -ny + ys * nx) < least_mm:
            return self.normal

        def spread(n: tuple[float, float]) -> float:
            return float(np.std(xs * n[0] + ys * n[1]))
        return min((self.normal, self.inward), key=spread)


class TableLayout:
    def __init__(self, table_mm: tuple[float, float], seats: list[tuple[str, float]], card_mm=(59.0, 91.0),
                 row_length: int = 3):
        self.w, self.h = float(table_mm[0]), float(table_mm[1])
        self.card_mm = card_mm
        self.seats = [self._seat(p, a) for p, a in seats]
        self.zone_depth = 1.5 * card_mm[1]
        self.zone_half = (row_length + 2) * (card_mm[0] + 8) / 2 + card_mm[0]
        self.line_reach: dict[str, float] = {}  # player -> how far from the centre their learned line begins

    def learn_lines(self, off_cloth: np.ndarray, least_cards: float = 0.5, line_cards: float = 1.25) -> None:
        """How deep each player's zone reaches in, from what lies on the table when watching starts
        (`off_cloth`: 1 px/mm mask of the whole table where it is not the cloth). In a player's
        sector their line is the outermost thing (cards may touch the edge); the zone reaches in
        from its outer side as deep as a zone is (`zone_depth`), along the seat's direction."""
        ys, xs = np.nonzero(off_cloth[::4, ::4])
        xs, ys = xs * 4.0 + 2.0, ys * 4.0 + 2.0
        a = np.degrees(np.arctan2(xs - self.w / 2, ys - self.h / 2)) % 360.0
        nearest = np.argmin([np.abs((a - s.angle + 180.0) % 360.0 - 180.0) for s in self.seats], axis=0) \
            if len(xs) else np.zeros(0, int)
        for k, s in enumerate(self.seats):
            mine = nearest == k
            if mine.sum() < 20:
                continue  # nothing lies in this sector: the strip along the edge alone
            dx, dy = seat_direction(s.angle)
            d = np.sort((xs[mine] - self.w / 2) * dx + (ys[mine] - self.h / 2) * dy)[::-1]
            # the outer side of the line: where half a card's worth lies further out (a speck, a
            # fingertip or a corner of the cloth's edge does not count)
            outer = float(d[min(len(d) - 1, int(least_cards * self.card_mm[0] * self.card_mm[1] / 16))])
            self.line_reach[s.player] = outer - line_cards * self.card_mm[1]

    def _reach(self, s: Seat, x: float, y: float) -> float:
        dx, dy = seat_direction(s.angle)
        return (x - self.w / 2) * dx + (y - self.h / 2) * dy

    def sector_of(self, x: float, y: float) -> Seat:
        """The seat whose direction from the table's centre is nearest this point's."""
        a = np.degrees(np.arctan2(x - self.w / 2, y - self.h / 2)) % 360.0
        return min(self.seats, key=lambda s: abs((a - s.angle + 180.0) % 360.0 - 180.0))

    def _in_line(self, s: Seat, x: float, y: float) -> bool:
        reach = self.line_reach.get(s.player)
        return reach is not None and self.sector_of(x, y) is s and self._reach(s, x, y) >= reach

    def _seat(self, player: str, angle: float) -> Seat:
        (ex, ey), normal = seat_edge(angle, (self.w, self.h))
        return Seat(player, angle, (ex, ey), normal, self.perimeter_pos(ex, ey))

    def perimeter_pos(self, x: float, y: float) -> float:
        """Position along the edge, clockwise from the top-left corner (for points on or near it)."""
        x, y = min(max(x, 0.0), self.w), min(max(y, 0.0), self.h)
        d = {"top": y, "right": self.w - x, "bottom": self.h - y, "left": x}
        side = min(d, key=d.get)
        if side == "top":
            return x
        if side == "right":
            return self.w + y
        if side == "bottom":
            return self.w + self.h + (self.w - x)
        return 2 * self.w + self.h + (self.h - y)

    def seat_at_edge(self, x: float, y: float) -> Seat:
        """The seat whose edge point is nearest, along the perimeter, to where an arm crosses the edge."""
        per = 2 * (self.w + self.h)
        p = self.perimeter_pos(x, y)
        return min(self.seats, key=lambda s: min(abs(s.perimeter_pos - p), per - abs(s.perimeter_pos - p)))

    def zone_of(self, x: float, y: float) -> str | None:
        """The player whose zone holds this point, or None for the centre. Where the zones of
        neighbours overlap (many players), the nearer seat has it."""
        best, best_lat = None, None
        for s in self.seats:
            rx, ry = x - s.edge_point[0], y - s.edge_point[1]
            depth = rx * s.normal[0] + ry * s.normal[1]
            lateral = abs(-rx * s.normal[1] + ry * s.normal[0])
            if depth < self.zone_depth and lateral < self.zone_half and (best_lat is None or lateral < best_lat):
                best, best_lat = s.player, lateral
        if best is None and self.line_reach:
            sector = self.sector_of(x, y)
            return sector.player if self._in_line(sector, x, y) else None
        return best

    def in_zone(self, seat: Seat, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """For many points at once: which lie in this seat's zone (and nearer it than any other seat's)."""
        def lateral_depth(s: Seat):
            rx, ry = xs - s.edge_point[0], ys - s.edge_point[1]
            return np.abs(-rx * s.normal[1] + ry * s.normal[0]), rx * s.normal[0] + ry * s.normal[1]

        def inside(s: Seat):
            lat, dep = lateral_depth(s)
            return (dep < self.zone_depth) & (lat < self.zone_half), lat

        mine, lat = inside(seat)
        strips = mine.copy()
        for other in self.seats:
            if other is not seat:
                theirs, olat = inside(other)
                mine &= ~(theirs & (olat < lat))
                strips |= theirs
        reach = self.line_reach.get(seat.player)
        if reach is None:
            return mine
        dx, dy = seat_direction(seat.angle)
        a = np.degrees(np.arctan2(xs - self.w / 2, ys - self.h / 2)) % 360.0
        gap = lambda s: np.abs((a - s.angle + 180.0) % 360.0 - 180.0)  # noqa: E731
        # nearer this seat's direction than any other's (its own gap worked out once: many points)
        nearest = gap(seat) <= np.min([gap(o) for o in self.seats if o is not seat], axis=0) \
            if len(self.seats) > 1 else np.ones(xs.shape, bool)
        line = nearest & ((xs - self.w / 2) * dx + (ys - self.h / 2) * dy >= reach) & ~strips
        return mine | line

    def default_line(self, seat: Seat) -> LinePlace:
        """Where a player's line lies when it was not seen: along the middle of their zone's strip."""
        d = self.zone_depth / 2
        return LinePlace((seat.edge_point[0] + d * seat.normal[0], seat.edge_point[1] + d * seat.normal[1]),
                         seat.normal, (-self.zone_half, self.zone_half))

    def facing(self, player: str) -> float:
        """The angle (SCENES.md `at`: clockwise in the image) at which a card laid by this player lies."""
        a = next(s.angle for s in self.seats if s.player == player)
        return (-a + 180.0) % 360.0 - 180.0  # turned towards the seat: west (270) lies at +90

    def axis_players(self, card_angle: float, tol: float = 25.0) -> list[str]:
        """Players whose cards lie along this card's axis (a card's turn is known only up to 180°)."""
        out = []
        for s in self.seats:
            d = abs((card_angle + s.angle + 90.0) % 180.0 - 90.0)  # the seat's facing is -angle
            if d <= tol:
                out.append(s.player)
        return out


def layout_from_scene(scene, row_length: int | None = None) -> TableLayout:
    opts = scene.rule_options()
    n = len(scene.players)
    return TableLayout(scene.table_mm, [(p.id, p.angle) for p in scene.players], scene.card_mm,
                       row_length if row_length is not None else opts.row_length(n))
