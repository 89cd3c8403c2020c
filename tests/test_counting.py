"""End-of-round counting of Ligretto stacks, on a rendered table of 12 players and on sample scenes."""
import cv2
import numpy as np
import pytest

from conftest import sample_scenes
from ligretto_vision.detect.cloth import not_cloth
from ligretto_vision.geometry.calibration import MarkerLayout, calibrate
from ligretto_vision.geometry.zones import TableLayout
from ligretto_vision.track.zones import ZoneTracker
from ligretto_vision.recognise.fan import cards_in_fan, count_fan
from ligretto_vision.sim.render import CardStyle, TableScene, camera_view, paste_card, render_face, render_top

PALETTE = [(39, 34, 218), (65, 124, 18), (134, 55, 24), (22, 194, 250)]
CARD = (59.0, 91.0)
TABLE = (1800.0, 1400.0)


def fan_poses(seat, n, step=22.0, depth=62.0):
    nx, ny = seat.normal
    rx, ry = -ny, nx
    angle = float(np.degrees(np.arctan2(nx, -ny)))
    c = np.array(seat.edge_point) + depth * np.array([nx, ny])
    return [(c[0] + (i - (n - 1) / 2) * step * rx, c[1] + (i - (n - 1) / 2) * step * ry, angle) for i in range(n)]


@pytest.mark.parametrize("step", [22.0, 16.0])
def test_twelve_players_stacks_counted_exactly(step):
    """Fans of 0 to 10 cards at twelve seats, none learnt (each found round its zone's middle); a fan
    stepped 16 mm shows each numeral corner only just: counted by the step it repeats at."""
    rng = np.random.default_rng(12)
    # twelve seats, three to an edge, none at a corner where the markers lie
    angles = [0, 25, 65, 90, 115, 155, 180, 205, 245, 270, 295, 335]
    layout = TableLayout(TABLE, [(f"P{i + 1}", float(a)) for i, a in enumerate(angles)], CARD, 3)
    sizes = {s.player: int(rng.integers(0, 11)) for s in layout.seats}
    markers = {0: (60.0, 60.0), 1: (1740.0, 60.0), 2: (1740.0, 1340.0), 3: (60.0, 1340.0)}
    ts = TableScene(table_mm=TABLE, marker_centres_mm=markers, cloth_bgr=(70, 110, 150), cloth_kind="wood")
    for seat in layout.seats:
        for x, y, a in fan_poses(seat, sizes[seat.player], step):
            face = render_face(PALETTE[int(rng.integers(0, 4))], int(rng.integers(1, 11)), CARD, 2.0,
                               CardStyle(numeral_mm=15, corner_mm=(4, 3.5), outline=0.1), rng)
            ts.cards.append((face, (x, y, a)))
    top = render_top(ts, 2.0, rng)
    img, _ = camera_view(top, 2.0, TABLE, (1920, 1080), tilt=0.01, rng=rng)
    cal = calibrate(img, MarkerLayout("DICT_4X4_50", ts.marker_size_mm, markers))
    view = cal.crop(img, (0, 0), TABLE)
    off = not_cloth(view, exclude=[(x, y, 70) for x, y in markers.values()]).astype(bool)
    counted = {s.player: count_fan(img, cal.to_px, layout.default_line(s), off, CARD) for s in layout.seats}
    assert counted == sizes, (counted, sizes)


@pytest.mark.parametrize("scene", [p for p in sample_scenes() if p.name in ("s03-count-2p", "s04-round-3p")],
                         ids=lambda p: p.name)
def test_sample_count_phase_stacks(scene):
    import json
    from ligretto_vision.geometry.zones import layout_from_scene
    from ligretto_vision.referee.pipeline import marker_spots
    from ligretto_vision.scene import load_scene

    sc = load_scene(scene)
    truth = [e for e in (json.loads(l) for l in (scene / "truth.jsonl").read_text().splitlines() if l.strip()) if e["type"] == "count"]
    cap = cv2.VideoCapture(str(sc.video_path))
    ok, first = cap.read()
    cal = calibrate(first, MarkerLayout.from_scene(sc))
    cap.set(cv2.CAP_PROP_POS_FRAMES, truth[0]["frame"])
    ok, img = cap.read()
    layout = layout_from_scene(sc)
    zones = ZoneTracker(layout, sc.card_mm)  # where each line lay when the round began: the fans lie there
    zones.learn(not_cloth(cal.crop(first, (0, 0), sc.table_mm), exclude=marker_spots(sc)).astype(bool))
    off = not_cloth(cal.crop(img, (0, 0), sc.table_mm), exclude=marker_spots(sc)).astype(bool)
    for t in truth:
        assert count_fan(img, cal.to_px, zones.line_of(t["player"]), off, sc.card_mm) == t["stack"], t


def _count_rendered(players, seed, strangers=0, zone_from_row=None):
    """Count a rendered spread; `zone_from_row`: the picture rows from there down lie in a player's zone."""
    from ligretto_vision.recognise.backs import backs_in_spread
    from ligretto_vision.referee.counting import count_backs
    from ligretto_vision.sim.count_table import render_count

    rc = render_count(players, seed, strangers=strangers)
    top, off = rc.top_view()
    centre = None
    if zone_from_row is not None:
        centre = np.ones(off.shape, bool)
        centre[zone_from_row:, :] = False
    return rc, count_backs(backs_in_spread(top, off, rc.backs, rc.card_mm, centre))


@pytest.mark.parametrize("seed", [0, 2])
def test_twelve_players_centre_backs_counted_exactly(seed):
    # three boxes: a box's four backs share a print, colours repeat between boxes
    rc, got = _count_rendered(12, seed)
    assert {p: got[p] for p in rc.centre} == rc.centre
    assert got["unknown"] == 0


def test_a_back_nobody_enrolled_is_counted_as_unknown_never_given_to_a_player():
    rc, got = _count_rendered(12, 3, strangers=2)
    assert got["unknown"] == rc.strangers == 2
    assert {p: got[p] for p in rc.centre} == rc.centre


def test_a_spread_of_two_players_backs():
    rc, got = _count_rendered(2, 3)
    assert {p: got[p] for p in rc.centre} == rc.centre and not got["unknown"]


def test_a_big_spread_reaching_into_a_players_zone_is_counted_whole():
    rc, got = _count_rendered(12, 0, zone_from_row=900)  # the spread's bottom rows lie in the south zone
    assert {p: got[p] for p in rc.centre} == rc.centre and not got["unknown"]


@pytest.mark.parametrize("n,step", [(1, 0.0), (2, 22.0), (5, 16.0), (7, 13.0), (10, 24.0)])
def test_a_fan_of_one_colour_is_counted_though_no_edge_shows_between_its_cards(n, step):
    """Cards of one colour, pasted without a shadow: no edge between them, only each card's print
    repeating a step on (its numeral corner, its outline's end)."""
    ppm = 4.0
    length = CARD[0] + (n - 1) * step
    strip = np.full((int(CARD[1] * ppm), int((length + 10) * ppm), 3), (60, 110, 60), np.uint8)
    rng = np.random.default_rng(n)
    for i in range(n):
        face = render_face(PALETTE[2], int(rng.integers(1, 11)), CARD, ppm, rng=rng)
        x = (5 + CARD[0] / 2 + i * step) * ppm
        paste_card(strip, face, (x, CARD[1] * ppm / 2), 0.0, shadow=0.0)
    assert cards_in_fan(strip, length, CARD[0]) == n


def test_a_line_place_turns_points_both_ways_and_lies_upright_for_its_player():
    from ligretto_vision.geometry.zones import LinePlace
    from ligretto_vision.recognise.patches import Pose

    south = LinePlace((700.0, 800.0), (0.0, -1.0), (-150.0, 150.0))  # into the table: up the picture
    assert south.at(10.0, 20.0) == (710.0, 780.0) and south.card_angle == 0.0
    north = LinePlace((700.0, 60.0), (0.0, 1.0), (-150.0, 150.0))
    assert north.at(10.0, 20.0) == (690.0, 80.0) and abs(north.card_angle) == 180.0
    xs, ys = np.array([3.0, 650.0]), np.array([4.0, 900.0])
    for line in (south, north, LinePlace((5.0, 7.0), (0.6, 0.8), (0.0, 0.0))):
        right, inward = line.local(xs, ys)
        assert np.allclose([line.at(r, i) for r, i in zip(right, inward)], np.stack([xs, ys], axis=1))
        # a card upright for the player: its right-hand edge lies to the player's right
        corners = Pose(*line.centre, line.card_angle).corners(CARD)
        assert np.allclose(line.local(*corners[1])[0] - line.local(*corners[0])[0], CARD[0])
    turned = south.turned(10.0, (700.0, 800.0), 50.0)
    assert turned.span == (-50.0, 50.0) and abs(np.hypot(*turned.across) - 1) < 1e-9
    assert abs(np.degrees(np.arccos(np.dot(turned.across, south.across))) - 10.0) < 1e-6


def test_where_a_line_lay_is_learnt_and_its_fan_found_there_also_laid_turned():
    """A south player's line of five cards, learnt as the referee learns it when watching starts;
    at the count their fan of seven lies on it, turned 8 degrees (a seat at an angle)."""
    from ligretto_vision.geometry.zones import LinePlace
    from ligretto_vision.recognise.fan import fan_place
    from ligretto_vision.recognise.patches import Pose

    table = (1500.0, 900.0)
    layout = TableLayout(table, [("P1", 0.0), ("P2", 180.0)], CARD, 3)
    start = np.zeros((900, 1500), np.uint8)
    for x in (540.0, 607.0, 674.0, 741.0, 808.0):  # discard, three row cards, stack
        cv2.fillConvexPoly(start, Pose(x, 820.0, 0.0).corners(CARD).astype(np.int32), 1)
    zones = ZoneTracker(layout, CARD)
    zones.learn(start.astype(bool))
    line = zones.line_of("P1")
    assert isinstance(line, LinePlace) and zones.zones["P1"].line is line
    assert line.across == (0.0, -1.0) and abs(line.centre[1] - 820.0) <= 2
    # from the discard's left edge (510 mm; the zone's strip ends at 523) to the stack's right one (838)
    assert abs(line.centre[0] - 680.0) <= 3 and abs(line.span[1] - 157.0) <= 4
    fan = np.zeros((900, 1500), np.uint8)
    length = CARD[0] + 6 * 22.0
    cv2.fillConvexPoly(fan, Pose(660.0, 815.0, 8.0).corners((length, CARD[1])).astype(np.int32), 1)
    place = fan_place(fan, line, CARD)
    assert place is not None and abs(place.length - length) <= 6 and abs(place.pose.angle - 8.0) <= 2
    assert np.hypot(place.pose.x - 660.0, place.pose.y - 815.0) <= 4
    assert fan_place(fan, zones.line_of("P2"), CARD) is None  # nothing lies round the other player's line
