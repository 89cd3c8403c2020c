"""The top card of a pile (recognise/top_card.py) on rendered tables: found from a rough first guess
and read, the card lying on top of two, bare cloth where a card went, a messy pile read again, and
which of two readings of a pile found at the start is its top."""
import numpy as np
import pytest

from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.detect.cloth import cloth_field
from ligretto_vision.detect.outlines import Found
from ligretto_vision.geometry.calibration import MarkerLayout, calibrate
from ligretto_vision.recognise.patches import Pose
from ligretto_vision.recognise.reader import CardReader, Enrollment, NumberModel, Reading, colour_feature
from ligretto_vision.recognise.top_card import TopCards, rather_on_top
from ligretto_vision.referee.early import guesses_on_top, turns_on_top
from ligretto_vision.sim.render import TableScene, camera_view, render_face, render_top

PALETTE = {"red": (39, 34, 218), "green": (65, 124, 18), "blue": (134, 55, 24), "yellow": (22, 194, 250)}
CARD = (59.0, 91.0)


@pytest.fixture(scope="module")
def top_cards():
    en = Enrollment()
    for name, bgr in PALETTE.items():
        en.faces[name] = colour_feature(render_face(bgr, 5, ppm=1.0)[..., :3])
    return TopCards(CardReader(en, NumberModel()), CARD)


def _table(cards, seed=1):
    """A rendered camera picture of a table with `cards` [(colour, number, (x, y, angle))], bottom first:
    (camera picture, calibration, whole table at 1 px/mm, its bare cloth's colours)."""
    rng = np.random.default_rng(seed)
    ts = TableScene()
    bare = render_top(ts, 2.0, np.random.default_rng(seed))
    for colour, number, pose in cards:
        ts.cards.append((render_face(PALETTE[colour], number, ppm=2.0, rng=rng), pose))
    img, _ = camera_view(render_top(ts, 2.0, np.random.default_rng(seed)), 2.0, ts.table_mm, tilt=0.02)
    bare_img, _ = camera_view(bare, 2.0, ts.table_mm, tilt=0.02)
    cal = calibrate(img, MarkerLayout("DICT_4X4_50", ts.marker_size_mm, dict(ts.marker_centres_mm)))
    return img, cal, cal.crop(img, (0, 0), ts.table_mm), cloth_field(cal.crop(bare_img, (0, 0), ts.table_mm))


def _look(top_cards, img, cal, top, cloth, guesses, origin=(450.0, 250.0), size=(400, 300)):
    view = np.ascontiguousarray(top[int(origin[1]):int(origin[1]) + size[1], int(origin[0]):int(origin[0]) + size[0]])
    crop = cloth[int(origin[1]):int(origin[1]) + size[1], int(origin[0]):int(origin[0]) + size[0]]
    return top_cards.on_change(img, cal.to_px, view, origin, guesses, lambda: (crop, 1.0, 0.0))


def test_a_card_is_found_from_a_rough_guess_and_read(top_cards):
    img, cal, top, cloth = _table([("blue", 7, (650.0, 400.0, 12.0))])
    found, reading = _look(top_cards, img, cal, top, cloth, [Pose(656.0, 395.0, 0.0)])
    assert reading.card == "blue-7" and reading.confidence >= top_cards.cfg.sure_face
    assert np.hypot(found.pose.x - 650.0, found.pose.y - 400.0) < 4
    assert abs((found.pose.angle - 12.0 + 90) % 180 - 90) < 4


def test_of_two_cards_the_one_on_top_is_read(top_cards):
    img, cal, top, cloth = _table([("red", 3, (630.0, 400.0, 0.0)), ("red", 4, (665.0, 410.0, 20.0))])
    # guesses at both: the one whose outline nothing covers is the top
    found, reading = _look(top_cards, img, cal, top, cloth, [Pose(630.0, 400.0, 0.0), Pose(665.0, 410.0, 20.0)])
    assert reading.card == "red-4"
    assert np.hypot(found.pose.x - 665.0, found.pose.y - 410.0) < 4


def test_bare_cloth_where_a_card_lay_reads_as_no_card(top_cards):
    img, cal, top, cloth = _table([("green", 5, (900.0, 400.0, 0.0))])
    found, reading = _look(top_cards, img, cal, top, cloth, [Pose(650.0, 400.0, 0.0)])
    assert reading == Reading(False)


def test_no_guess_no_card(top_cards):
    img, cal, top, cloth = _table([])
    assert _look(top_cards, img, cal, top, cloth, []) is None


def test_a_second_look_turns_around_a_place_until_the_numerals_read(top_cards):
    img, cal, top, cloth = _table([("yellow", 9, (650.0, 400.0, 90.0))])
    view = np.ascontiguousarray(top[250:550, 450:850])
    found, reading = top_cards.reread(img, cal.to_px, view, (450.0, 250.0), [Pose(652.0, 398.0, 0.0)])
    assert reading.card == "yellow-9"
    assert abs((found.pose.angle - 90.0 + 90) % 180 - 90) < 4


def test_the_top_of_a_pile_found_at_the_start():
    sure = RecogniseConfig().sure_face
    red5, red6 = Reading(True, "red", 5, confidence=0.9), Reading(True, "red", 6, confidence=0.8)
    assert rather_on_top(red6, red5, sure)  # a run goes up: the higher lies on top
    assert not rather_on_top(red5, red6, sure)
    blue = Reading(True, "blue", 2, confidence=0.95)
    assert not rather_on_top(blue, red5, sure)  # another colour, perhaps a neighbouring pile's
    assert rather_on_top(blue, Reading(True, "red", 5, confidence=0.4), sure)  # over an unsure first reading
    assert not rather_on_top(Reading(False, confidence=0.9), red5, sure)


def test_a_copy_of_the_top_slapped_on_it_at_another_turn_is_found(top_cards):
    """A dispute's loser: the same red 4 laid on the winner, turned 55 degrees (tuning table 58).
    A look near the old top finds the old top; looked for at every other turn, the copy stands out
    better all round and reads the same card. With no copy there, none is found."""
    winner, loser = (650.0, 400.0, -83.0), (647.0, 397.0, -28.0)
    img, cal, top, cloth = _table([("red", 3, (655.0, 405.0, 10.0)), ("red", 4, winner), ("red", 4, loser)])
    old = Pose(*winner)
    found = _look(top_cards, img, cal, top, cloth, [old])
    assert found[1].card == "red-4" and np.hypot(found[0].pose.x - 650.0, found[0].pose.y - 400.0) < 4
    assert abs((found[0].pose.angle + 83.0 + 90) % 180 - 90) < 8  # the old top, where it lay
    view = np.ascontiguousarray(top[250:550, 450:850])
    copy = top_cards.copy_on_top(img, cal.to_px, view, (450.0, 250.0), found, old)
    assert copy is not None and copy[1].card == "red-4"
    assert np.hypot(copy[0].pose.x - 647.0, copy[0].pose.y - 397.0) < 4
    assert abs((copy[0].pose.angle + 28.0 + 90) % 180 - 90) < 5

    img, cal, top, cloth = _table([("red", 3, (655.0, 405.0, 10.0)), ("red", 4, winner)])
    found = _look(top_cards, img, cal, top, cloth, [old])
    view = np.ascontiguousarray(top[250:550, 450:850])
    assert top_cards.copy_on_top(img, cal.to_px, view, (450.0, 250.0), found, old) is None


def test_a_card_looked_for_a_quarter_turn_on_is_found_lying_that_way_and_read(top_cards):
    """An outline cut the wrong way round (across two cards' blob) is looked for again a quarter
    turn on: the card's own rectangle, read as it lies."""
    img, cal, top, cloth = _table([("green", 2, (660.0, 395.0, 30.0)), ("red", 6, (650.0, 400.0, 2.0))])
    view = np.ascontiguousarray(top[250:550, 450:850])
    found, reading = top_cards.read_turned(img, cal.to_px, view, (450.0, 250.0), Pose(651.0, 398.0, 95.0), 90.0)
    assert reading.card == "red-6" and reading.confidence >= top_cards.cfg.sure_face
    assert np.hypot(found.pose.x - 650.0, found.pose.y - 400.0) < 4 and abs((found.pose.angle - 2.0 + 90) % 180 - 90) < 5
    assert -180.0 <= found.pose.angle <= 180.0  # turned on, not wound up past a whole turn


@pytest.mark.parametrize("tens_face_down", [False, True])
def test_a_back_read_on_a_pile_found_at_the_start(top_cards, tens_face_down):
    """A messy pile's outline cut across two cards may read as a back, even surely (a picture back's
    colours; tuning table 12: a green 7 read as P2's back at 0.79, the pile never known and the two
    cards laid on it next unwritten). Where tens lie face up no back tops a pile: the face read around
    it is the top. Where tens lie face down a back on a pile is a closed pile's ten: it stays."""
    img, cal, top, cloth = _table([("green", 7, (650.0, 400.0, 0.0))])
    cut = Found(Pose(650.0, 400.0, 40.0), 0.1)
    back = Reading(False, owner="P2", confidence=0.79)

    class BackAtTheCut(TopCards):
        def read(self, image, to_px, pose, either_way=True):
            return back if pose == cut.pose else super().read(image, to_px, pose, either_way)

    cards = BackAtTheCut(top_cards.reader, CARD, backs_on_piles=tens_face_down)
    found, reading = cards.pile_top(img, cal.to_px, top, cut)
    if tens_face_down:
        assert reading == back and found == cut
    else:
        assert reading.card == "green-7" and reading.confidence >= top_cards.cfg.sure_face
        assert np.hypot(found.pose.x - 650.0, found.pose.y - 400.0) < 4


def test_a_card_laid_neatly_on_its_colour_is_looked_for_at_every_turn_of_the_old_top(top_cards):
    """Tuning table 58: a blue 9 laid on the blue 8 turned 40 degrees from it. One colour on one
    colour, the change is little more than the 9's print, so it gives no rectangle, and the 8's
    corners still read at the 8's place and that turned a quarter. Looked for at every turn of
    the old top's place too, the 9 is found."""
    eight, nine = (650.0, 400.0, 138.0), (656.0, 401.0, 0.0)
    img, cal, top, cloth = _table([("blue", 7, (648.0, 398.0, 100.0)), ("blue", 8, eight), ("blue", 9, nine)])
    view = np.ascontiguousarray(top[250:550, 450:850])

    def best(guesses, own_rectangle=False):
        return top_cards.best_under_arm(img, cal.to_px, view, (450.0, 250.0), guesses, own_rectangle)

    assert best(guesses_on_top(None, Pose(*eight)), own_rectangle=True)[1].card == "blue-8"  # its corners, read again
    found, reading = best(turns_on_top(Pose(*eight)))
    assert reading.card == "blue-9"
    assert np.hypot(found.pose.x - nine[0], found.pose.y - nine[1]) < 4

    # the second look reads only the turns the first did not: the top's place and its quarter turn
    # are among both, found and read once, with the same outcome
    read = top_cards.reader.read
    patches = []
    looked: dict = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(top_cards.reader, "read", lambda ps, *a: patches.append(len(ps)) or read(ps, *a))
        top_cards.best_under_arm(img, cal.to_px, view, (450.0, 250.0), guesses_on_top(None, Pose(*eight)), looked=looked)
        again = top_cards.best_under_arm(img, cal.to_px, view, (450.0, 250.0), turns_on_top(Pose(*eight)), looked=looked)
    assert patches == [2, 4] and again[1] == reading and again[0].pose == found.pose
