"""What a seat is (geometry/seats.py): a name's angle, an angle's name, and where players sit by default."""
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
