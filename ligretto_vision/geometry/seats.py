"""What a seat is: where a player sits at the table (SCENES.md, `players[].seat`).

A seat is written as the name of the table edge the player sits at, or (more than four
players) as an angle in degrees around the table's centre: 0 = south, the image's bottom
edge, counter-clockwise seen from above, so in the image from the bottom edge towards the
right-hand one: east is 90, north 180, west 270. The scene, the zones, the simulated and the
generated tables and the panel all read a seat here.
"""
from __future__ import annotations

import math

SEAT_ANGLES = {"south": 0.0, "east": 90.0, "north": 180.0, "west": 270.0}
SEAT_NAMES = {angle: name for name, angle in SEAT_ANGLES.items()}
# where the first players sit down: two face each other, a third sits west, a fourth east
SEAT_ORDER = (0.0, 180.0, 270.0, 90.0)


def seat_angle(seat: str | float) -> float:
    """A seat as written (an edge's name or an angle) as its angle; ValueError on a name we do not know."""
    if isinstance(seat, str):
        if seat not in SEAT_ANGLES:
            raise ValueError(f"seat {seat!r} is not one of {', '.join(SEAT_ANGLES)} or an angle")
        return SEAT_ANGLES[seat]
    return float(seat) % 360


def seat_name(angle: float) -> str | float:
    """A seat as a scene writes it: the edge's name where the angle is an edge's, else the angle."""
    return SEAT_NAMES.get(angle, angle)


def seat_words(seat: str | float) -> str:
    """A seat as a person reads it: "west", or "135°"."""
    return f"{seat:g}°" if isinstance(seat, (int, float)) and not isinstance(seat, bool) else str(seat)


def default_seats(n_players: int) -> list[float]:
    """Where n players sit when nobody said: up to four at the edges (SEAT_ORDER), more spread evenly."""
    return list(SEAT_ORDER[:n_players]) if n_players <= 4 else [360.0 * i / n_players for i in range(n_players)]


def seat_direction(angle: float) -> tuple[float, float]:
    """Unit vector (image x right, y down) from the table's centre towards a seat at `angle`."""
    a = math.radians(angle)
    return math.sin(a), math.cos(a)


def seat_edge(angle: float, table_mm) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where the seat's direction from the table's centre meets the table's edge (mm), and the
    inward normal of the edge it meets."""
    cx, cy = table_mm[0] / 2, table_mm[1] / 2
    dx, dy = seat_direction(angle)
    t = min(cx / abs(dx) if abs(dx) > 1e-9 else math.inf, cy / abs(dy) if abs(dy) > 1e-9 else math.inf)
    ex, ey = cx + dx * t, cy + dy * t
    if abs(abs(dx) * t - cx) < 1e-6:
        return (ex, ey), (-1.0 if dx > 0 else 1.0, 0.0)
    return (ex, ey), (0.0, -1.0 if dy > 0 else 1.0)
