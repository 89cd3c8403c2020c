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
