"""What a seat is (geometry/seats.py): a name's angle, an angle's name, and where players sit by default."""
import numpy as np
import pytest

from ligretto_vision.geometry.seats import default_seats, seat_angle, seat_direction, seat_name, seat_words
from ligretto_vision.geometry.zones import TableLayout
from ligretto_vision.sim.table import SimTable


def test_a_named_seat_is_its_edge_angle_counter_clockwise_from_south():
    assert [seat_angle(n) for n in ("south", "east", "north", "west")] == [0.0, 90.0, 180.0, 270.0]
    assert seat_angle(135) == 135.0 and seat_angle(-90) == 270.0 and seat_angle(400.0) == 40.0
    with pytest.raises(ValueError, match="'left' is not one of south, east, north, west or an angle"):
        seat_angle("left")


def test_east_is_the_right_hand_edge_of_the_image():
    layout = TableLayout((1300.0, 760.0), [(n, seat_angle(n)) for n in ("south", "east", "north", "west")])
    want = [(650.0, 760.0), (1300.0, 380.0), (650.0, 0.0), (0.0, 380.0)]
    assert [s.edge_point for s in layout.seats] == [pytest.approx(w) for w in want]
    assert seat_direction(90.0) == pytest.approx((1.0, 0.0))


def test_an_edge_angle_is_written_by_its_name_any_other_as_the_angle():
    assert [seat_name(a) for a in (0.0, 90.0, 180.0, 270.0, 72.0)] == ["south", "east", "north", "west", 72.0]
    assert all(seat_angle(seat_name(a)) == a for a in (0.0, 90.0, 270.0, 72.0, 315.5))
    assert seat_words("west") == "west" and seat_words(135) == "135°" and seat_words(22.5) == "22.5°"


def test_by_default_two_face_each_other_then_west_and_east_and_more_spread_evenly():
    assert default_seats(2) == [0.0, 180.0] and default_seats(4) == [0.0, 180.0, 270.0, 90.0]
    assert default_seats(5) == [0.0, 72.0, 144.0, 216.0, 288.0]


def test_the_simulated_table_seats_its_players_by_default_and_writes_them_as_a_scene_does():
    assert SimTable(3, seed=1).scene_players() == [{"id": "P1", "seat": "south"}, {"id": "P2", "seat": "north"},
                                                   {"id": "P3", "seat": "west"}]
    assert [p["seat"] for p in SimTable(5, seed=1).scene_players()] == ["south", 72.0, 144.0, 216.0, 288.0]


def test_a_seat_meets_the_edge_its_direction_points_to_with_the_normal_into_the_table():
    from ligretto_vision.geometry.seats import seat_edge
    (ex, ey), normal = seat_edge(270.0, (1300.0, 760.0))
    assert (ex, ey) == pytest.approx((0.0, 380.0)) and normal == (1.0, 0.0)
    (ex, ey), normal = seat_edge(45.0, (1300.0, 760.0))  # the long table: the diagonal meets the bottom edge
    assert ey == pytest.approx(760.0) and ex == pytest.approx(650.0 + 380.0) and normal == (0.0, -1.0)


def test_a_line_laid_further_in_round_an_oval_table_is_its_players_zone():
    """Five players round a 1500 x 900 table lay their lines some 170 mm in from the edge, turned
    with their seat (not along the edge): learned from the table when watching starts, each line
    lies in its player's zone, and a pile laid 150 mm further in stays in the centre."""
    import cv2
    from ligretto_vision.geometry.seats import seat_direction
    from ligretto_vision.geometry.zones import TableLayout

    w, h, card = 1500, 900, (59.0, 91.0)
    seats = [(f"P{i + 1}", 72.0 * i) for i in range(5)]
    layout = TableLayout((w, h), seats, card)
    off = np.zeros((h, w), np.uint8)
    lines = {}
    for p, a in seats:
        dx, dy = seat_direction(a)
        t = min((w / 2) / abs(dx) if abs(dx) > 1e-9 else 1e9, (h / 2) / abs(dy) if abs(dy) > 1e-9 else 1e9)
        cx, cy = w / 2 + dx * (t - 170), h / 2 + dy * (t - 170)
        lines[p] = (cx, cy, dx, dy)
        for k in range(-2, 3):  # five cards along the line, across the seat's direction
            x, y = cx - dy * 67 * k, cy + dx * 67 * k
            box = cv2.boxPoints(((x, y), (card[0], card[1]), -a))
            cv2.fillConvexPoly(off, box.astype(np.int32), 1)
    before = {p: layout.zone_of(cx, cy) for p, (cx, cy, _, _) in lines.items()}
    layout.learn_lines(off)
    for p, (cx, cy, dx, dy) in lines.items():
        assert layout.zone_of(cx, cy) == p
        assert layout.zone_of(cx - dx * 150, cy - dy * 150) is None  # a pile nearer the centre
        xs, ys = np.array([cx, cx - dx * 150]), np.array([cy, cy - dy * 150])
        seat = next(s for s in layout.seats if s.player == p)
        assert layout.in_zone(seat, xs, ys).tolist() == [True, False]
    assert None in before.values()  # the edge strips alone miss the lines laid further in


@pytest.mark.parametrize("n", [2, 5, 12])
def test_many_points_at_once_fall_in_the_zones_one_point_at_a_time_does(n):
    """`in_zone` (the stack places are learnt from many points at once) answers as `zone_of`,
    with and without lines learnt further in: every point of a grid over the table."""

    w, h = 1500, 900
    layout = TableLayout((w, h), [(f"P{i + 1}", 360.0 * i / n) for i in range(n)])
    ys, xs = np.mgrid[3:h:11, 3:w:11].reshape(2, -1).astype(float)
    for learnt in (False, True):
        if learnt:
            off = np.zeros((h, w), np.uint8)
            off[120:230, :] = off[:, 1330:1400] = 1  # something lying deeper in along two edges
            layout.learn_lines(off)
        one = [layout.zone_of(x, y) for x, y in zip(xs, ys)]
        for seat in layout.seats:
            assert layout.in_zone(seat, xs, ys).tolist() == [z == seat.player for z in one]
        assert any(z is None for z in one) and len({z for z in one} - {None}) == n


@pytest.mark.parametrize("empty", [[], [3], [2, 3]])
def test_a_players_stack_is_the_right_hand_end_of_their_line_even_beside_empty_row_places(empty):
    """South's line, seen from above: discard pile, three row places, stack (their right is the
    image's right). Row places left empty beside the stack do not end the line before it; the
    stack's place lies as the line's cards do."""
    import cv2

    from ligretto_vision.recognise.patches import Pose
    from ligretto_vision.track.zones import ZoneTracker

    card = (59.0, 91.0)
    layout = TableLayout((1300.0, 760.0), [("P1", 0.0), ("P2", 180.0)], card_mm=card)
    off = np.zeros((760, 1300), np.uint8)
    xs = [450.0 + 67.0 * i for i in range(5)]  # discard, row 1-3, stack: 8 mm apart
    for i, x in enumerate(xs):
        if i not in empty:
            cv2.fillConvexPoly(off, Pose(x, 685.0, 0.0).corners(card).astype(np.int32), 1)
    layout.learn_lines(off)
    zones = ZoneTracker(layout, card)
    zones.learn(off)
    stack = zones.zones["P1"].stack.pose
    assert abs(stack.x - xs[-1]) < 6 and abs(stack.y - 685.0) < 6
    assert abs((stack.angle + 90.0) % 180.0 - 90.0) < 3


def test_a_stack_place_learnt_mostly_bare_is_not_watched():
    """The right-hand end of South's line is only a scrap (a corner of something, a misread line):
    the place learnt there is mostly bare, so no stack is watched there (it could only ever be
    seen "gone" and end the round falsely)."""
    import cv2

    from ligretto_vision.recognise.patches import Pose
    from ligretto_vision.track.zones import ZoneTracker

    card = (59.0, 91.0)
    layout = TableLayout((1300.0, 760.0), [("P1", 0.0), ("P2", 180.0)], card_mm=card)
    off = np.zeros((760, 1300), np.uint8)
    for x in (450.0, 517.0, 584.0, 651.0):
        cv2.fillConvexPoly(off, Pose(x, 685.0, 0.0).corners(card).astype(np.int32), 1)
    off[650:720, 740:752] = 1  # a scrap 12 mm wide where the stack would lie
    layout.learn_lines(off)
    zones = ZoneTracker(layout, card)
    zones.learn(off)
    assert zones.zones["P1"].stack is None
    off[640:730, 689:748] = 1  # a card there: that is the stack
    zones.learn(off)
    assert zones.zones["P1"].stack is not None and abs(zones.zones["P1"].stack.pose.x - 718) < 6


def test_a_stack_is_seen_gone_only_when_its_place_lies_in_the_view_cut_round_the_change():
    """A change just beside South's stack (a card laid on the row place next to it) is looked at
    in a view that takes in only the stack's edge: that strip of bare cloth says nothing. A change
    over the stack's place that leaves it bare is the stack gone."""
    import cv2

    from ligretto_vision.recognise.patches import Pose
    from ligretto_vision.track.zones import ZoneTracker

    card = (59.0, 91.0)
    layout = TableLayout((1300.0, 760.0), [("P1", 0.0), ("P2", 180.0)], card_mm=card)
    off = np.zeros((760, 1300), np.uint8)
    for x in (450.0, 517.0, 584.0, 651.0, 718.0):
        cv2.fillConvexPoly(off, Pose(x, 685.0, 0.0).corners(card).astype(np.int32), 1)
    layout.learn_lines(off)
    zones = ZoneTracker(layout, card)
    zones.learn(off)
    cloth = np.array([40.0, 110.0, 60.0], np.float32)
    bare = np.zeros((120, 100, 3), np.uint8) + cloth.astype(np.uint8)
    beside = zones.check_stacks(bare, (690.0 - 100.0 + 8.0, 630.0), np.ones((120, 100), bool), cloth)
    assert beside == []
    over = zones.check_stacks(bare, (668.0, 630.0), np.ones((120, 100), bool), cloth)
    assert over == ["P1"]


def _south_line(off, xs, y=685.0, card=(59.0, 91.0)):
    import cv2

    from ligretto_vision.recognise.patches import Pose
    for x in xs:
        cv2.fillConvexPoly(off, Pose(x, y, 0.0).corners(card).astype(np.int32), 1)


def _learnt(off, card=(59.0, 91.0)):
    from ligretto_vision.track.zones import ZoneTracker
    layout = TableLayout((1300.0, 760.0), [("P1", 0.0), ("P2", 180.0)], card_mm=card)
    layout.learn_lines(off)
    zones = ZoneTracker(layout, card)
    zones.learn(off)
    return zones


def test_a_scrap_apart_beyond_the_line_is_not_its_stack_and_does_not_hide_it():
    """What is left of a marker, or a centre pile's corner, lies a little beyond South's line: it is
    less than half a card and apart from the line, so the line's own right-hand card is the stack."""
    off = np.zeros((760, 1300), np.uint8)
    xs = [450.0 + 67.0 * i for i in range(5)]
    _south_line(off, xs)
    off[650:700, 790:810] = 1  # 20 x 50 mm, some 40 mm beyond the stack
    stack = _learnt(off).zones["P1"].stack
    assert stack is not None and abs(stack.pose.x - xs[-1]) < 6


def test_a_brick_cloths_mortar_does_not_carry_the_line_across_the_table():
    """Thin lines of the cloth off its colour (a brick cloth's mortar, 5 mm wide) run all along the
    table: the line is the cards, and its right-hand card is the stack."""
    off = np.zeros((760, 1300), np.uint8)
    off[::60, :] = 1
    off[:, ::120] = 1
    for k in range(1, 5):
        off[k::60, :] = 1
        off[:, k::120] = 1
    xs = [450.0 + 67.0 * i for i in range(5)]
    _south_line(off, xs)
    stack = _learnt(off).zones["P1"].stack
    assert stack is not None and abs(stack.pose.x - xs[-1]) < 6


def test_one_card_alone_is_no_line_and_no_stack_is_watched():
    """In dim light only South's discard pile stands out from the cloth: one card is no line, and
    taking it for the stack would end the round when that pile is taken back into the hand."""
    off = np.zeros((760, 1300), np.uint8)
    _south_line(off, [450.0])
    assert _learnt(off).zones["P1"].stack is None


def test_a_stack_at_the_tables_edge_is_looked_at_by_what_of_it_lies_on_the_table():
    """North's stack sticks out over the table's edge (a hand drew the line outwards): its place is
    judged by the part on the table, so its going is seen."""
    import cv2

    from ligretto_vision.recognise.patches import Pose
    from ligretto_vision.track.zones import Spot, ZoneTracker

    card = (59.0, 91.0)
    layout = TableLayout((1300.0, 760.0), [("P1", 0.0), ("P2", 180.0)], card_mm=card)
    zones = ZoneTracker(layout, card)
    zones.zones["P2"].stack = Spot(Pose(650.0, 25.0, 0.0))  # 20 mm of it beyond the edge
    cloth = np.array([40.0, 110.0, 60.0], np.float32)
    view = np.zeros((150, 200, 3), np.uint8) + cloth.astype(np.uint8)  # the table from y = 0
    assert zones.check_stacks(view, (550.0, 0.0), np.ones((150, 200), bool), cloth) == ["P2"]
    zones.zones["P2"].stack = Spot(Pose(650.0, 25.0, 0.0))
    cv2.fillConvexPoly(view, (Pose(100.0, 25.0, 0.0).corners(card)).astype(np.int32), (200, 200, 200))
    assert zones.check_stacks(view, (550.0, 0.0), np.ones((150, 200), bool), cloth) == []  # still there


def test_an_arm_reaching_in_slantwise_from_a_corner_is_the_player_it_points_to():
    """Five round a 1500 x 900 table (as s05): the player at 72 degrees (right edge, low) reaches
    across to a pile on the far left, their sleeve crossing the bottom edge nearer the bottom
    player's seat. The arm points back to its player; a hand alone at the edge says only where
    it crosses."""
    import cv2

    from ligretto_vision.config.detect import DetectConfig
    from ligretto_vision.detect.arms import SeatMapper

    cfg = DetectConfig()
    layout = TableLayout((1500.0, 900.0), [(f"P{i + 1}", 72.0 * i) for i in range(5)])
    ppm = cfg.low_ppm
    shape = (int(900 * ppm), int(1500 * ppm))
    mapper = SeatMapper(layout, shape, cfg)
    low = np.full((*shape, 3), 90, np.uint8)

    def seat_of(a, b):
        arm = np.zeros(shape, np.uint8)
        cv2.line(arm, (int(a[0] * ppm), int(a[1] * ppm)), (int(b[0] * ppm), int(b[1] * ppm)), 1, int(90 * ppm))
        _, labels = cv2.connectedComponents(arm)
        out = mapper.seat_part(labels, 1, (0, 0, shape[1], shape[0]), low)
        return {layout.seats[s].player for s in np.unique(out[labels == 1])}

    assert layout.seat_at_edge(1150.0, 900.0).player == "P1"  # where it crosses alone says the bottom seat
    assert seat_of((330.0, 585.0), (1200.0, 919.0)) == {"P2"}  # the arm points to the right-hand seat
    assert seat_of((1150.0, 860.0), (1150.0, 930.0)) == {"P1"}  # a hand at the edge: where it crosses
