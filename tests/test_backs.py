"""Reading the backs of a face-down spread (recognise/backs.py) on rendered count tables: each
card's back found and given to its player, a stranger's back to nobody, and the thresholds
handed in are the ones used."""
import numpy as np

from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.recognise.backs import backs_in_spread, find_backs
from ligretto_vision.referee.counting import count_backs
from ligretto_vision.sim.count_table import render_count


def test_every_back_of_a_two_player_spread_is_found_once_and_given_to_its_player():
    rc = render_count(2, 1)
    top, off = rc.top_view()
    found = backs_in_spread(top, off, rc.backs, rc.card_mm)
    assert count_backs(found) == rc.centre
    # each card once: no two found backs lie closer than two cards of a spread can
    xy = np.array([(b.pose.x, b.pose.y) for b in found])
    gaps = np.hypot(*(xy[:, None] - xy[None]).transpose(2, 0, 1)) + np.eye(len(xy)) * 1e9
    assert gaps.min() >= RecogniseConfig().spread_step_mm
    assert all(b.tiles >= 2 for b in found)


def test_a_stranger_back_is_nobodys():
    rc = render_count(4, 2, strangers=1)
    top, off = rc.top_view()
    got = count_backs(backs_in_spread(top, off, rc.backs, rc.card_mm))
    assert got["unknown"] == 1 and {p: got[p] for p in rc.centre} == rc.centre


def test_the_spread_is_read_with_the_thresholds_handed_in():
    rc = render_count(2, 1)
    top, off = rc.top_view()
    ys, xs = np.nonzero(off)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    view, spread = np.ascontiguousarray(top[y0:y1, x0:x1]), off[y0:y1, x0:x1]
    assert len(find_backs(view, (x0, y0), spread, rc.backs, rc.card_mm)) > 0
    # no tile ever correlates perfectly with a photographed back: at a bar of 1, nothing is a card
    assert find_backs(view, (x0, y0), spread, rc.backs, rc.card_mm, RecogniseConfig(tile_match=1.0)) == []
    assert find_backs(view, (x0, y0), np.zeros_like(spread), rc.backs, rc.card_mm) == []  # no spread


def _tiles_seen(pose, tiles, card_mm=(59.0, 91.0), side=25.0):
    """The points (x, y mm) of whole tiles of a 2 x 3 grid (`tiles`: (column, row) pairs) of a
    card at `pose`, as the spread reader marks what a find showed."""
    w, h = card_mm
    u, v = np.meshgrid(np.arange(-side / 2, side / 2, 1.0), np.arange(-side / 2, side / 2, 1.0))
    local = np.concatenate([np.stack([u.ravel() + (i + 0.5) * w / 2 - w / 2, v.ravel() + (j + 0.5) * h / 3 - h / 2], 1)
                            for i, j in tiles])
    t = np.radians(pose.angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return local @ rot.T + (pose.x, pose.y)


def test_one_back_found_twice_along_its_edge_is_one_card_two_overlapping_backs_are_two():
    from ligretto_vision.recognise.backs import one_card
    from ligretto_vision.recognise.patches import Pose
    card = (59.0, 91.0)
    # the right edge's two upper tiles matched, and again 40 mm further along that straight edge
    # (s05's count: one green back counted twice): together they fit in one card
    a, b = Pose(450, 500, 182.0), Pose(450, 540, 185.0)
    assert one_card(_tiles_seen(a, [(1, 0), (1, 1)]), _tiles_seen(b, [(1, 0), (1, 1)]), a, b, card)
    # a second card 30 mm lower, showing its bottom row below the first (all six tiles shown)
    up, c = Pose(450, 500, 2.0), Pose(450, 530, 2.0)
    assert not one_card(_tiles_seen(up, [(i, j) for i in range(2) for j in range(3)]), _tiles_seen(c, [(0, 2), (1, 2)]),
                        up, c, card)
    # side by side in a row, 40 mm apart across, each showing one column: two cards, though their
    # tiles would fit in one (the column's edge matches only along it, not across)
    d = Pose(490, 500, 2.0)
    assert not one_card(_tiles_seen(up, [(0, 0), (0, 1)]), _tiles_seen(d, [(0, 0), (0, 1)]), up, d, card)
    # a back turned half round is alike, turned a quarter it is another card
    assert one_card(_tiles_seen(a, [(1, 0)]), _tiles_seen(a, [(1, 0)]), a, Pose(450, 500, 2.0), card)
    assert not one_card(_tiles_seen(a, [(1, 0)]), _tiles_seen(a, [(1, 0)]), a, Pose(450, 500, 92.0), card)


def test_a_two_tile_card_across_the_rows_is_looked_at_again_a_clear_one_is_kept():
    from ligretto_vision.recognise.backs import SpreadBack, _across_rows
    from ligretto_vision.recognise.patches import Pose
    main = 3.0  # the spread's edges lie 3 degrees off the picture's
    along = [SpreadBack("P1", Pose(100.0 + 45 * i, 100.0, main + 180.0 * (i % 2)), 3) for i in range(7)]
    weak = SpreadBack("P4", Pose(400.0, 100.0, main + 92.0), 2)  # s05's purple back, found turned a quarter
    strong = SpreadBack("P2", Pose(450.0, 100.0, main + 268.0), 4)  # one truly laid across shows more
    assert _across_rows(along + [weak, strong], main) == [1, 7]
    # no clear rows (as many across as along): nothing is doubted
    assert _across_rows(along[:2] + [weak, strong], main) == []


def test_two_tiles_shown_within_a_card_found_on_more_are_no_card_of_their_own():
    from ligretto_vision.recognise.backs import SpreadBack, shown_within_surer
    from ligretto_vision.recognise.patches import Pose
    card = (59.0, 91.0)
    sure = Pose(300, 300, 2.0)  # found on four tiles (its right column under the next card)
    a = SpreadBack("P1", sure, 4, _tiles_seen(sure, [(0, 0), (0, 1), (0, 2), (1, 0)]))
    # two tiles matched inside that card's outline (where it showed nothing: its print turned there)
    ghost_pose = Pose(320, 320, 90.0)
    ghost = SpreadBack("P2", ghost_pose, 2, _tiles_seen(sure, [(1, 1), (1, 2)]))
    # the next card of the row, over the first's right edge, its tiles showing beside it
    nxt_pose = Pose(349, 301, 178.0)
    nxt = SpreadBack("P2", nxt_pose, 2, _tiles_seen(nxt_pose, [(0, 0), (1, 0)]))
    # as sure as the first (two tiles each): neither unmakes the other
    twin = SpreadBack("P3", Pose(320, 320, 0.0), 2, _tiles_seen(sure, [(1, 1), (1, 2)]))
    assert shown_within_surer([a, ghost, nxt], card, 0.9) == [False, True, False]
    assert shown_within_surer([SpreadBack("P1", sure, 2, a.shown), twin], card, 0.9) == [False, False]
    # a surer card turned 30 degrees: tiles cut from its bottom row lie inside it, the same tiles
    # of an upright card at its place reach out of it (the turn is undone, not ignored)
    turned = SpreadBack("P1", Pose(300, 300, 30.0), 4, None)
    bottom = SpreadBack("P2", Pose(300, 330, 30.0), 2, _tiles_seen(turned.pose, [(0, 2), (1, 2)]))
    upright = SpreadBack("P2", Pose(300, 330, 0.0), 2, _tiles_seen(Pose(300, 300, 0.0), [(0, 2), (1, 2)]))
    assert shown_within_surer([turned, bottom, upright], card, 0.9) == [False, True, False]
    # three tiles inside a card found on four: a card of its own (only two-tile finds are doubted)
    three = SpreadBack("P2", ghost_pose, 3, _tiles_seen(sure, [(1, 0), (1, 1), (1, 2)]))
    assert shown_within_surer([a, three], card, 0.9) == [False, False]
    # the share handed in decides: half inside is a card at 0.9, not at 0.4
    half = SpreadBack("P2", ghost_pose, 2, np.concatenate([_tiles_seen(sure, [(1, 1)]), _tiles_seen(nxt_pose, [(1, 0)])]))
    assert shown_within_surer([a, half], card, 0.9) == [False, False]
    assert shown_within_surer([a, half], card, 0.4) == [False, True]


def _one_back_view(back, pose_px, k=0.5, size=(160, 200)):
    """A plain table at `k` px/mm with one back laid at `pose_px` (x, y px, turn), and the back at `k`."""
    import cv2
    from ligretto_vision.sim.render import paste_card
    small = cv2.resize(back, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    view = np.full((*size, 3), 90, np.uint8)
    paste_card(view, np.dstack([small, np.full(small.shape[:2], 255, np.uint8)]), pose_px[:2], pose_px[2], shadow=0.0)
    return view, small


def test_a_back_matched_one_tile_aside_shows_few_smaller_tiles_and_the_card_besides_print():
    from ligretto_vision.recognise.backs import SpreadBack, finer_tiles_shown, shown_as
    from ligretto_vision.recognise.patches import Pose
    rc = render_count(2, 1)
    back = rc.backs["P1"]
    k, cfg = 0.5, RecogniseConfig()
    view, small = _one_back_view(back, (80, 100, 3.0), k)
    origin = (0.0, 0.0)
    at = Pose(161.0, 201.0, 3.0)  # the card's own place in mm: (80 + 0.5) / k
    aside = Pose(161.0 + rc.card_mm[0] / 2, 201.0, 3.0)  # half a card to the right
    real, ghost = SpreadBack("P1", at, 2), SpreadBack("P1", aside, 2)
    assert finer_tiles_shown(view, real, small, origin, k, cfg) >= cfg.fine_sure
    assert finer_tiles_shown(view, ghost, small, origin, k, cfg) < cfg.fine_sure
    # where the ghost's tiles showed (on the real card's right half), the real card's own print lies
    ghost.shown = _tiles_seen(at, [(1, 0), (1, 1)], rc.card_mm, side=20.0)
    assert shown_as(view.min(axis=2), ghost, real, small, origin, k, rc.card_mm, 0.25) >= cfg.tile_match
    # the same places compared with a card a third of one further down: its print does not lie there
    lower = SpreadBack("P1", Pose(161.0, 201.0 + rc.card_mm[1] / 3, 3.0), 4)
    assert shown_as(view.min(axis=2), ghost, lower, small, origin, k, rc.card_mm, 0.25) < cfg.tile_match
    # a card that covers too little of those places is not compared at all
    far = SpreadBack("P1", Pose(161.0 + rc.card_mm[0], 201.0, 3.0), 4)
    assert shown_as(view.min(axis=2), ghost, far, small, origin, k, rc.card_mm, 0.25) == -1.0


def test_a_back_alike_in_colour_to_another_prints_player_is_told_by_its_print():
    """Colours repeat between boxes with another design: a blue face back found by the print of a
    blue helmet back (its owner told by colour among that print's players only) is the face's
    player's, for the face's print fits the places it showed better; where its colour is clearly the
    helmet's player's, or the print fits the helmet better, it stays theirs."""
    import cv2
    from ligretto_vision.proving.deck import BackPrint
    from ligretto_vision.recognise.backs import SpreadBack, _print_told, _rivals, _prints, _shade
    from ligretto_vision.recognise.patches import Pose
    from ligretto_vision.sim.render import paste_card

    card, k, cfg = (59.0, 91.0), 0.5, RecogniseConfig()
    upright = {p: BackPrint(design, rgb, 0).render(card, 1.0)
               for p, design, rgb in (("P1", "picture-face", (32, 58, 146)), ("P2", "picture-helmet", (34, 62, 154)),
                                      ("P3", "picture-droid", (150, 25, 30)))}
    backs = {p: cv2.resize(b[..., :3], None, fx=k, fy=k, interpolation=cv2.INTER_AREA) for p, b in upright.items()}
    table = np.full((200, 200, 3), (60, 110, 40), np.uint8)
    paste_card(table, upright["P1"], (100, 100), 0.0)  # P1's face back lies here
    whites = cv2.resize(table, None, fx=k, fy=k, interpolation=cv2.INTER_AREA).min(axis=2)
    u, v = np.meshgrid(np.arange(-25.0, 25.0, 2.0), np.arange(-40.0, 40.0, 2.0))
    shown = np.stack([u.ravel() + 100, v.ravel() + 100], 1)  # where its tiles showed, mm
    rivals = _rivals(backs, _prints(backs, cfg.same_print))
    assert set(rivals["P2"]) == {"P1", "P2", "P3"}  # three prints: every other player is of another print

    def told(owner, shade):
        return _print_told(whites, SpreadBack(owner, Pose(100.0, 100.0, 0.0), 3, shown), shade, rivals[owner], backs,
                           (0.0, 0.0), k, card, cfg)

    blue = (_shade(backs["P1"]) + _shade(backs["P2"])) / 2  # as near the one blue as the other
    assert told("P2", blue) == "P1"  # found by the helmet print, blue: the face's print fits
    assert told("P1", blue) == "P1"  # found right: the helmet's print fits no better
    assert told("P2", _shade(backs["P2"])) == "P2"  # the helmet's own blue: colour told it already
    assert told("P3", _shade(backs["P3"])) == "P3"  # red, clearly P3's colour
    assert _print_told(whites, SpreadBack("P2", Pose(100.0, 100.0, 0.0), 3, shown), blue, rivals["P2"], backs, (0.0, 0.0),
                       k, card, RecogniseConfig(rival_print_lead=2.0)) == "P2"  # the rule off: as found
