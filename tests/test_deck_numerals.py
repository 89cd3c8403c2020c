"""Reading numbers the way a deck prints them (recognise/numerals.py), learned from the set-up's
ten cards of one colour, and cards found on a patterned cloth (detect/cloth.py). All on cards
and cloths this project renders (proving/deck.py, proving/surfaces.py)."""
import cv2
import numpy as np
import pytest

from ligretto_vision.detect.cloth import cloth_field, not_cloth, pattern_colours
from ligretto_vision.detect.outlines import find_cards
from ligretto_vision.proving.deck import draw_print, render_face, usual_fonts
from ligretto_vision.proving.surfaces import texture
from ligretto_vision.recognise.numerals import DeckNumerals
from ligretto_vision.recognise.patches import Pose, card_patch
from ligretto_vision.recognise.reader import CardReader, Enrollment, NumberModel, face_colour, upright
from ligretto_vision.recognise.top_card import TopCards
from ligretto_vision.sim.render import paste_card

CARD = (59.0, 91.0)


def deck(family: str, edition: str = "dutch", seed: int = 1):
    return draw_print(np.random.default_rng(seed), edition, family, usual_fonts(measure=False))


def face(pr, colour: str, number: int, seed: int = 3) -> np.ndarray:
    bgra = render_face(pr, colour, number, CARD, 1.0, seed)
    a = bgra[..., 3:4].astype(np.float32) / 255  # on a grey cloth, as a set-up photo shows it
    return (bgra[..., :3] * a + 90 * (1 - a)).astype(np.uint8)


@pytest.mark.parametrize("family", ["margin", "frame", "gradient", "top-only", "lightning"])
def test_a_deck_is_read_in_every_colour_from_one_colours_ten(family):
    """Numbers large in the middle, small in the corners or both, white on colour or colour on white:
    the ten cards of the first colour teach the other colours' numbers, either way up."""
    pr = deck(family)
    colours = list(pr.palette)
    numerals = DeckNumerals.from_patches([upright(face(pr, colours[0], n), CARD) for n in range(1, 11)])
    for colour in colours[1:]:
        for n in range(1, 11):
            patch = upright(face(pr, colour, n), CARD)
            for seen in (patch, patch[::-1, ::-1]):
                got = numerals.read(seen)
                assert got.number == n, (family, colour, n, got.scores.round(2))
                assert got.best > 0.35


def test_a_card_a_little_off_its_pose_still_reads():
    """The patch is cut where the outline was found: a few mm and degrees off."""
    pr = deck("frame")
    colours = list(pr.palette)
    numerals = DeckNumerals.from_patches([upright(face(pr, colours[0], n), CARD) for n in range(1, 11)])
    table = np.full((200, 200, 3), 90, np.uint8)
    paste_card(table, render_face(pr, colours[2], 7, CARD, 1.0, 3), (100, 100), 0.0, shadow=0.0)
    patch = card_patch(table, lambda mm: mm, Pose(102.0, 98.5, 6.0), CARD)
    assert numerals.read(patch).number == 7


def test_a_deck_whose_six_is_its_nine_upside_down_reads_them_as_twins():
    """A deck with one numeral in the middle and no corner index (whose upright index would tell which
    way up the card lies), without the 6/9 underline: a card turned half round cannot tell 6 from 9.
    Either way up it is surely a 6-or-9 (a rectangle cut across a pile is surely neither), and which
    of the two is left to the way up (the reader holds its confidence down: the next test)."""
    pr = deck("gradient")
    pr.underline_69 = False
    colours = list(pr.palette)
    numerals = DeckNumerals.from_patches([upright(face(pr, colours[0], n), CARD) for n in range(1, 11)])
    assert numerals.twins == {6, 9}
    got = numerals.read(upright(face(pr, colours[1], 6), CARD))
    assert got.number in (6, 9)
    assert got.confidence > 0.9
    # once the player who laid it is known the card is cut the right way up: then 6 is no 9
    for n, other in ((6, 9), (9, 6)):
        patch = upright(face(pr, colours[1], n), CARD)
        assert (numerals.read(patch, either_way=False).number, numerals.read(patch[::-1, ::-1], either_way=False).number) == (n, other)
        assert numerals.read(patch, either_way=False).confidence > 0.9
    pr.underline_69 = True
    numerals = DeckNumerals.from_patches([upright(face(pr, colours[0], n), CARD) for n in range(1, 11)])
    assert numerals.read(upright(face(pr, colours[1], 6), CARD)[::-1, ::-1]).number == 6


def test_deck_enrollment_needs_all_ten():
    pr = deck("margin")
    with pytest.raises(ValueError, match="ten numbers"):
        DeckNumerals.from_patches([upright(face(pr, "pink", n), CARD) for n in range(1, 10)])


def _enroll_folder(tmp_path, pr):
    """A table's enroll/ folder as the set-up writes it: one face per colour, the ten numbers of one."""
    import cv2
    folder = tmp_path / "enroll"
    for sub in ("faces", "backs", "numbers"):
        (folder / sub).mkdir(parents=True)
    colours = list(pr.palette)
    for c in colours:
        cv2.imwrite(str(folder / "faces" / f"{c}.png"), face(pr, c, 4))
    for n in range(1, 11):
        cv2.imwrite(str(folder / "numbers" / f"{n}.png"), face(pr, colours[0], n))
    return folder


def _twin_deck_tops(tmp_path):
    """A gradient deck printed without the 6/9 mark, enrolled as the set-up does: (print, colours, TopCards)."""
    pr = deck("gradient")
    pr.underline_69 = False
    colours = list(pr.palette)
    return pr, colours, TopCards(CardReader(Enrollment.from_folder(_enroll_folder(tmp_path, pr), CARD, colours, []),
                                            NumberModel()), CARD)


def test_a_card_on_the_table_is_read_the_right_way_up_for_the_player_it_faces(tmp_path):
    """A card's outline tells its turn only up to half a turn; on a deck whose 6 is its 9 turned, that
    reads unsurely. A card in the centre lies turned towards the player who laid it: read that way up,
    it is a sure 6 for the player it faces and would be a 9 for the one across the table."""
    pr, colours, tops = _twin_deck_tops(tmp_path)
    table = np.full((200, 200, 3), 90, np.uint8)
    paste_card(table, render_face(pr, colours[2], 6, CARD, 1.0, 3), (100, 100), 183.0, shadow=0.0)
    found = Pose(100.0, 100.0, 3.0)  # as the outline gives it
    assert tops.read(table, lambda mm: mm, found).confidence < 0.7
    pose, got = tops.read_facing(table, lambda mm: mm, found, facing=175.0)
    assert (got.number, got.colour) == (6, colours[2]) and got.confidence > 0.7 and pose.angle == pytest.approx(183.0)
    assert tops.read_facing(table, lambda mm: mm, found, facing=-5.0)[1].number == 9


def test_the_reader_uses_the_enrolled_numbers_and_the_general_model_without_them(tmp_path):
    """A print the general model never learnt (numerals only in the middle) reads right through the
    deck's own ten; a table folder with the ten loads them; one with a number missing says which."""
    pr = deck("gradient")
    colours = list(pr.palette)
    folder = _enroll_folder(tmp_path, pr)
    en = Enrollment.from_folder(folder, CARD, colours, [])
    assert en.numerals is not None
    reader = CardReader(en, NumberModel())
    patches = [upright(face(pr, colours[3], n), CARD) for n in range(1, 11)]
    readings = reader.read(patches)
    assert [r.number for r in readings] == list(range(1, 11))
    assert all(r.colour == colours[3] and r.confidence > 0.7 for r in readings)
    (folder / "numbers" / "7.png").unlink()
    with pytest.raises(Exception, match="7.png"):
        Enrollment.from_folder(folder, CARD, colours, [])
    for n in range(1, 11):
        (folder / "numbers" / f"{n}.png").unlink(missing_ok=True)
    assert Enrollment.from_folder(folder, CARD, colours, []).numerals is None  # the general model alone


def checks(size=(600, 400), seed=0) -> np.ndarray:
    return texture("checks", size, (40, 80, 170), np.random.default_rng(seed), 1.0)


def test_a_checked_cloth_is_known_by_its_colours_and_a_plain_one_is_not():
    assert pattern_colours(checks()) is not None
    felt = texture("felt", (600, 400), (40, 110, 60), np.random.default_rng(0), 1.0)
    assert pattern_colours(felt) is None
    assert cloth_field(felt).shape == (400, 600, 3)


def test_cards_on_white_and_blue_checks_are_found_even_white_faced_ones():
    """White faces in a coloured frame on white-and-blue checks: the face matches half the cloth's
    cells, the frame and numeral do not."""
    pr = deck("frame", edition="classic")
    top = checks()
    laid = [(150, 200, 5.0, "red", 3), (300, 200, -8.0, "blue", 5), (450, 200, 90.0, "yellow", 9)]
    for x, y, a, c, n in laid:
        paste_card(top, render_face(pr, c, n, CARD, 1.0, 2), (x, y), a)
    off = not_cloth(top)
    assert off[200, 300] == 1 and off[30, 30] == 0  # a card's middle, bare checks
    found = find_cards(top, CARD)
    for x, y, a, _, _ in laid:
        assert any(np.hypot(f.pose.x - x, f.pose.y - y) < 8 for f in found), (x, y, found)
    assert len(found) == len(laid)


def _seen(number: int, best: float, confidence: float):
    from ligretto_vision.recognise.numerals import NumberScores
    scores = np.full(10, best - 0.3, np.float32)
    scores[number - 1] = best
    return NumberScores(scores, number, confidence)


def _model_says(number: int, p: float) -> np.ndarray:
    out = np.full(11, (1 - p) / 10, np.float32)
    out[number] = p
    return out


def test_deck_and_model_agreeing_is_surer_and_a_weak_match_is_less_sure():
    from ligretto_vision.recognise.reader import deck_and_model
    number, sure = deck_and_model(_seen(4, 0.8, 0.6), _model_says(4, 0.7), model_knows_deck=False)
    assert number == 4 and sure > 0.85  # two readings of different kinds agree
    number, sure = deck_and_model(_seen(4, 0.8, 0.9), _model_says(7, 0.99), model_knows_deck=True)
    assert (number, sure) == (4, 0.9)  # a good match of the deck's own print is trusted
    number, sure = deck_and_model(_seen(4, 0.38, 1.0), _model_says(0, 0.9), model_knows_deck=False)
    assert number == 4 and sure < 0.33  # a weak match (a card cut off its pose) is no sure reading


def test_a_weak_match_gives_way_only_to_a_model_that_reads_this_deck():
    from ligretto_vision.recognise.reader import deck_and_model
    assert deck_and_model(_seen(10, 0.38, 1.0), _model_says(5, 0.94), model_knows_deck=True) == (5, pytest.approx(0.94))
    assert deck_and_model(_seen(10, 0.38, 1.0), _model_says(5, 0.94), model_knows_deck=False)[0] == 10


@pytest.mark.parametrize("seed", [151, 188])
def test_the_ten_are_learned_in_every_colour_so_dark_cards_read_as_well_as_light_ones(seed):
    """Tuning-range tables whose ten were enrolled in pink, in a print with dark-outlined numerals:
    the outline shows against pink and hardly against blue, so pink's edges are not blue's. Learned
    in every enrolled colour, every whole face on the table reads right at its true pose (before:
    12 of 19 on each, blue and turquoise 1s, 2s and 3s read surely as 7s and 1s)."""
    from ligretto_vision.proving.stages import draw_table, measure_table
    (row,) = measure_table(draw_table(seed)).rows.values()
    assert row.number.cards >= 15 and row.number.right == row.number.cards


def test_a_deck_whose_six_is_its_nine_turned_is_known_at_enrollment_and_read_surely_only_the_right_way_up():
    """The set-up finds which numbers, turned half round, read as another (6 and 9 printed without a
    mark). Read either way up such a card is never sure, however much better one way fits; read the
    right way up for its player it is."""
    pr = deck("gradient")
    colours = list(pr.palette)
    marked = DeckNumerals.from_patches([upright(face(pr, colours[0], n), CARD) for n in range(1, 11)])
    assert marked.twins == frozenset()
    pr.underline_69 = False
    ten = [upright(face(pr, colours[0], n), CARD) for n in range(1, 11)]
    en = Enrollment(faces={c: face_colour(upright(face(pr, c, 4), CARD)) for c in colours},
                    numerals=DeckNumerals.from_patches(ten))
    assert en.numerals.twins == {6, 9}
    reader = CardReader(en, NumberModel())
    for n in (6, 9):
        card = upright(face(pr, colours[0], n), CARD)
        assert reader.read([card])[0].confidence <= 0.5
        right_way = reader.read([card], either_way=False)[0]
        assert right_way.number == n and right_way.confidence > 0.7


def test_a_twin_laid_across_a_card_of_its_colour_is_read_where_its_outline_is(tmp_path):
    """An unmarked 6 laid crossed over a 4 of its colour (a gradient deck: one colour, one blob).
    Either way up the 6 reads at most half surely, and a rectangle cut across both cards may match
    some other number surely (tune 3 read such 6s and 9s as sure 10s). Looked at again from the card
    below, the sure readings compete by their outline: the 6's own rectangle wins, read as its
    numeral (6 or 9, for the player to say), never as a sure other number."""
    pr, colours, tops = _twin_deck_tops(tmp_path)
    table = np.full((260, 260, 3), 90, np.uint8)
    paste_card(table, render_face(pr, colours[1], 4, CARD, 1.0, 3), (130, 130), 10.0, shadow=0.0)
    paste_card(table, render_face(pr, colours[1], 6, CARD, 1.0, 4), (134, 126), 60.0, shadow=0.0)
    view, px = np.ascontiguousarray(table), lambda mm: mm
    found, got = tops.reread(table, px, view, (0, 0), [Pose(130.0, 130.0, 10.0)], whole_first=True)
    assert got.number in (6, 9) and got.colour == colours[1]
    assert got.confidence <= 0.5 < got.shape_sure
    assert np.hypot(found.pose.x - 134, found.pose.y - 126) < 4 and abs((found.pose.angle - 60 + 90) % 180 - 90) < 5


def test_a_card_the_colour_of_the_cloth_is_found_by_its_print(tmp_path):
    """A blue face on a blue felt shows only by its numerals: too little of a change for a card of its
    own, and no outline a cloth-colour mask would find. Looked for at every turn around its print, it
    is found and read; a red card there is not this (it stands out from the cloth: a card of its own)."""
    from ligretto_vision.detect.cloth import cloth_field

    pr = deck("lightning")
    colours = list(pr.palette)
    blue = colours[1]
    tops = TopCards(CardReader(Enrollment.from_folder(_enroll_folder(tmp_path, pr), CARD, colours, []), NumberModel()), CARD)
    bare = texture("felt", (300, 300), pr.palette[blue], np.random.default_rng(2), 1.0)
    cloth = cloth_field(bare)
    for colour, expect in ((blue, f"{blue}-7"), (colours[0], None)):
        table = bare.copy()
        paste_card(table, render_face(pr, colour, 7, CARD, 1.0, 3), (150, 150), 23.0, shadow=0.0)
        got = tops.like_cloth(table, lambda mm: mm, table, (0, 0), Pose(146.0, 155.0, 0.0), lambda: (cloth, 1.0, 0.0))
        assert (got[1].card if got else None) == expect
        if got:
            # its outline barely shows: its place is known to the numerals' few mm
            assert np.hypot(got[0].pose.x - 150, got[0].pose.y - 150) < 8 and abs((got[0].pose.angle - 23 + 90) % 180 - 90) < 5


def test_a_match_scored_from_its_correlation_is_the_crop_apart_from_the_common_print():
    from ligretto_vision.recognise.numerals import _apart_from_common, _templates, _unit, _without

    rng = np.random.default_rng(3)
    cards = [cv2.GaussianBlur((rng.random((91, 59, 3)) * 255).astype(np.uint8), (0, 0), 2) for _ in range(10)]
    common, shapes = _templates(cards)
    seen = np.ascontiguousarray(cv2.GaussianBlur(rng.random((95, 63)).astype(np.float32), (0, 0), 1.5))
    fit = cv2.matchTemplate(seen, common, cv2.TM_CCOEFF_NORMED)
    _, r, _, (x, y) = cv2.minMaxLoc(fit)
    crop = seen[y:y + common.shape[0], x:x + common.shape[1]]
    slow = shapes @ _without(_unit(crop), common).ravel()  # three passes over the crop
    assert np.allclose(_apart_from_common(crop.ravel(), r, shapes), slow, atol=1e-4)
    assert np.abs(slow).max() > 0.01  # the scores compared are not all nought
    # a plain crop (a patch's padded border) matches no number, as the three passes make it
    assert not _apart_from_common(np.full(crop.size, 7.0, np.float32), 0.0, shapes).any()
