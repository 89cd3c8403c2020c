"""The referee's decisions, each a pure function tried alone: what a change means (`moves.meaning`),
who laid a card (`deliverers`), when a card first touched, the round's end when a stack goes, the
early look's gates and when to count."""
import numpy as np
import pytest

from ligretto_vision.config.referee import RefereeConfig
from ligretto_vision.detect.activity import ArmTrace
from ligretto_vision.geometry.zones import TableLayout
from ligretto_vision.recognise.patches import Pose
from ligretto_vision.recognise.reader import Reading
from ligretto_vision.referee import early
from ligretto_vision.referee.counting import count_wait, stopper_from_count
from ligretto_vision.referee.deliverers import (deliverers, first_touches, laid_elsewhere, laid_in_this_reach,
                                               one_card_at_a_time, rest_frame, turned_to)
from ligretto_vision.referee.moves import (gone_from_under, laid_across, looked_surely, meaning, new_card_read,
                                          own_top_moved, piles_gathered, same_place, taken_back, turned_card_taken,
                                          unsure_under_arm)
from ligretto_vision.referee.round_end import RoundEnd, stack_gone
from ligretto_vision.referee.visits import ArmVisits
from ligretto_vision.rules import Round, parse_card
from ligretto_vision.track.piles import TrackedCard, TrackedPile

CFG = RefereeConfig()
# four seats, one at each edge: P1 south, P2 west... (angles counter-clockwise from south)
LAYOUT = TableLayout((1300.0, 900.0), [("P1", 0.0), ("P2", 90.0), ("P3", 180.0), ("P4", 270.0)])
SOUTH, NORTH = 0, 2
SIDE = 1  # a seat whose cards lie turned a quarter from south's
HERE = Pose(650.0, 450.0, 0.0)  # a card lying as south's (and north's) cards lie


def arm(seat, first, last, peak, held=None, overshoot=0.0, let_go=-1):
    """An arm over the place from frame `first` to `last` (history from frame 0), covering `peak` of it."""
    cover = np.zeros(20, np.float32)
    cover[first:last + 1] = peak
    if held is not None:
        cover[:] = 0
        cover[first:first + held] = peak
    return ArmTrace(seat, first, last, peak, cover, np.arange(20), overshoot, let_go if let_go >= 0 else last)


def pile(*cards: tuple[str, Pose, str | None]) -> TrackedPile:
    return TrackedPile(1, [TrackedCard(c, p, o) for c, p, o in cards])


def means(p, reading, pose=HERE, hands=frozenset(), changed=0.0, stopped=False, ten_face_down=False, cfg=CFG):
    return meaning(p, reading, pose, set(hands), lambda at: changed, lambda: stopped, ten_face_down, cfg)


# ---- what a change means ---------------------------------------------------------------------
def test_a_new_card_read_surely_is_a_play_and_one_read_hardly_at_all_is_no_card():
    on = pile(("red-1", HERE, "P1"))
    sure = Reading(True, "red", 2, confidence=0.9)
    assert (means(on, sure).kind, means(on, sure).sure) == ("play", True)
    assert means(None, sure).kind == "play"  # a new pile
    guess = Reading(True, "red", 2, confidence=CFG.least_read - 0.05)
    move = means(on, guess)
    assert (move.kind, move.note) == ("unreadable", "read too unsurely")
    # the bar is the config's: lowered, the same reading is a card (written unsure, below judge_least)
    assert means(on, guess, cfg=RefereeConfig(least_read=0.1)).kind == "play"


def test_a_card_laid_crosswise_on_its_colour_is_the_changes_own_card_not_the_old_top_read_again():
    """Tuning table 8: a blue 5 laid crosswise on the blue 4, whose corner numerals still show beside
    it; the old top's rectangle outlines as well as the new one and reads the 4, surely. The
    change's own rectangle reading a card new to the pile is taken (a play), but never a card the
    pile holds or one of its colour below its top (a messy pile's lower card peeking out where a
    card was taken back: a pile's run goes up), nor one read unsurely."""
    on = pile(("blue-3", HERE, None), ("blue-4", Pose(650.0, 452.0, 90.0), "P2"))
    assert laid_across(Reading(True, "blue", 5, confidence=0.95), on)
    assert laid_across(Reading(True, "red", 2, confidence=0.95), on)  # another colour: judged by the rules
    assert not laid_across(Reading(True, "blue", 3, confidence=0.99), on)  # the card below the top
    assert not laid_across(Reading(True, "blue", 2, confidence=0.99), on)  # lower in the run: under the top
    assert not laid_across(Reading(True, "blue", 5, confidence=CFG.early_sure - 0.05), on)
    assert not laid_across(Reading(False), on)


def test_a_look_that_read_the_top_unsurely_has_not_seen_the_pile():
    """A look at a pile a hand came over sees it only when it reads the top as it lies, surely; one
    through a hand's shadow or at a card half slid on (read unsurely, or as something else) leaves
    the pile due, so the next still moment looks again instead of waiting for another hand."""
    on = pile(("red-1", HERE, None), ("red-2", HERE, "P1"))
    assert looked_surely(Reading(True, "red", 2, confidence=CFG.early_sure), on)
    assert not looked_surely(Reading(True, "red", 2, confidence=CFG.early_sure - 0.05), on)  # unsure
    assert not looked_surely(Reading(True, "red", 3, confidence=0.99), on)  # another card: not the top seen
    assert not looked_surely(Reading(False), on)  # a back, or nothing read
    assert not looked_surely(Reading(True, "red", 2, confidence=0.99), TrackedPile(2, []))  # no top yet
    # the bar is the config's
    assert looked_surely(Reading(True, "red", 2, confidence=0.5), on, RefereeConfig(early_sure=0.4))


def test_a_face_read_between_the_two_levels_is_a_play_written_unsure_not_an_illegal_one():
    assert CFG.least_read < CFG.judge_least
    on = pile(("red-1", HERE, "P1"))
    between = (CFG.least_read + CFG.judge_least) / 2
    for read in (Reading(True, "red", 2, confidence=between), Reading(True, "blue", 7, confidence=between)):
        move = means(on, read)
        assert (move.kind, move.sure, move.reading.card) == ("play", False, read.card)  # a play, not nothing
        # the rules write it unsure: the wrong-colour blue-7 is not called illegal
        r = Round(["P1", "P2"], fps=30)
        r.play("P1", parse_card("red-1", ("red", "green", "blue", "yellow")), 1, 0)
        out = r.play("P2", parse_card(move.reading.card, ("red", "green", "blue", "yellow")), 1, 40, sure=move.sure)
        assert out[0].data.get("legal") is None and out[0].data["unsure"] is True
    # raised, judge_least makes a surer reading unsure too; at the floor nothing is unsure
    assert not means(on, Reading(True, "red", 2, confidence=0.9), cfg=RefereeConfig(judge_least=0.95)).sure
    assert means(on, Reading(True, "red", 2, confidence=between), cfg=RefereeConfig(judge_least=CFG.least_read)).sure


def test_the_card_below_showing_again_where_it_lay_is_a_takeback():
    below = Pose(650.0, 450.0, 3.0)
    on = pile(("red-1", below, "P1"), ("red-2", Pose(660.0, 440.0, 20.0), "P2"))
    assert means(on, Reading(True, "red", 1, confidence=0.9), Pose(652.0, 451.0, 5.0)).kind == "takeback"
    # the same card read far from where it lay is no takeback (another red 1 laid elsewhere)
    assert means(on, Reading(True, "red", 1, confidence=0.9), Pose(700.0, 451.0, 5.0)).kind == "play"


def test_the_same_top_card_where_it_was_or_touched_only_by_its_player_is_unchanged():
    on = pile(("red-1", HERE, "P1"))
    same = Reading(True, "red", 1, confidence=0.9)
    assert means(on, same, Pose(655.0, 452.0, 8.0)).kind == "unchanged"
    moved = Pose(690.0, 452.0, 30.0)
    assert means(on, same, moved, hands={"P1"}).kind == "unchanged"  # its own player straightened it
    assert means(on, same, moved, hands={"P2"}).kind == "play"  # another player laid a card alike


def test_a_top_placed_under_an_arm_read_again_elsewhere_is_where_it_lies_unless_turned_far_by_another_hand():
    on = pile(("red-1", HERE, "P1"))
    on.top.under_arm = True  # its place was a first guess
    same = Reading(True, "red", 1, confidence=0.9)
    assert means(on, same, Pose(690.0, 452.0, 30.0), hands={"P2"}).kind == "unchanged"
    turned = Pose(660.0, 452.0, 85.0)  # a quarter turned: no first guess is that far off
    assert means(on, same, turned, hands={"P1"}).kind == "unchanged"  # its own player straightened it
    assert means(on, same, turned, hands={"P1", "P2"}).kind == "play"  # P2 laid a copy on it
    assert means(on, same, turned, hands={"P2"}, cfg=RefereeConfig(copy_turn_deg=90.0)).kind == "unchanged"


def test_a_top_read_under_an_arm_is_doubted_once_another_players_hand_held_its_place():
    p = pile(("blue-8", HERE, "P1"))
    p.top.under_arm = True
    assert unsure_under_arm(p, {"P2"}) and unsure_under_arm(p, {"P1", "P2"})
    assert not unsure_under_arm(p, {"P1"}) and not unsure_under_arm(p, set())  # only its own player came by
    p.top.under_arm = False
    assert not unsure_under_arm(p, {"P2"})  # read whole when taken in: its look tells what changed


def test_a_second_copy_of_the_top_is_another_players_never_its_owners():
    on = pile(("red-3", HERE, "P2"), ("red-4", Pose(652.0, 451.0, 40.0), "P1"))
    assert own_top_moved("P1", "red-4", on)  # P1 has one red 4, lying there: moved, not laid again
    assert not own_top_moved("P3", "red-4", on)  # P3's own red 4 on it: a dispute
    assert not own_top_moved("P1", "red-5", on)
    assert not own_top_moved("P1", "red-4", None)


def test_a_pile_gone_is_a_takeback_of_its_only_card_or_the_count_after_the_stop():
    bare = Reading(False)
    one = pile(("red-1", HERE, "P1"))
    assert means(one, bare, changed=0.9).kind == "takeback"
    assert means(one, bare, changed=0.9, stopped=True).kind == "count-begins"
    two = pile(("red-1", HERE, "P1"), ("red-2", HERE, "P2"))
    # two cards do not vanish as one takeback: a whole pile picked up (gathered for a count whose
    # stop went unseen, when a second follows soon: the referee's to tell)
    assert means(two, bare, changed=0.9).kind == "pile-gone"
    assert means(two, bare, changed=0.9, stopped=True).kind == "count-begins"
    assert means(one, bare, changed=0.2).kind == "unreadable"  # the top card's place hardly changed


def test_a_back_on_a_nine_closes_the_pile_as_its_ten_only_where_the_table_says_so():
    on = pile(("blue-9", HERE, "P1"))
    back = Reading(False, owner=None, confidence=0.7)
    move = means(on, back, ten_face_down=True)
    assert (move.kind, move.reading.card, move.sure) == ("play", "blue-10", True)  # nothing else may lie there
    assert means(on, back, ten_face_down=False).kind == "unreadable"


def test_another_players_back_lying_apart_on_a_pile_a_back_closed_is_their_copy_of_that_ten():
    """Tuning table 30: P1 closed the blue pile with a back, and P5 slapped theirs on it a moment
    later, turned their way: P5's copy of the blue 10 (the rules then say who came first), not a
    card laid face down anywhere. Their own back again, one lying where the ten lies (the same
    back looked at again), a back of nobody's, or tens laid face up: reported as before."""
    on = pile(("blue-9", HERE, "P1"), ("blue-10", HERE, "P1"))
    apart = Pose(655.0, 448.0, 75.0)  # turned to a side seat
    move = means(on, Reading(False, owner="P5", confidence=0.7), pose=apart, ten_face_down=True)
    assert (move.kind, move.reading.card, move.sure) == ("play", "blue-10", True)
    for reading, pose, face_down in ((Reading(False, owner="P1", confidence=0.7), apart, True),
                                     (Reading(False, owner="P5", confidence=0.7), HERE, True),
                                     (Reading(False, owner=None, confidence=0.5), apart, True),
                                     (Reading(False, owner="P5", confidence=0.7), apart, False)):
        assert means(on, reading, pose=pose, ten_face_down=face_down).kind == "unreadable"


def test_same_place_is_up_to_half_a_turn():
    assert same_place(Pose(0, 0, 2.0), Pose(5, 5, 178.0))
    assert not same_place(Pose(0, 0, 0.0), Pose(15, 0, 0.0))
    assert not same_place(Pose(0, 0, 0.0), Pose(0, 0, 20.0))


def test_a_takeback_is_its_owners_or_else_the_last_arms_player():
    arms = [arm(SOUTH, 2, 9, 0.8), arm(NORTH, 3, 12, 0.8)]
    frame, owner = taken_back(None, arms, 15, LAYOUT, 30.0)
    assert (frame, owner) == (12 - round(CFG.taken_after_s * 30), "P3")
    assert taken_back("P1", arms, 15, LAYOUT, 30.0)[1] == "P1"
    assert taken_back(None, [], 15, LAYOUT, 30.0) == (15 - 6, None)


# ---- who laid it ------------------------------------------------------------------------------
def test_the_arm_that_held_the_place_laid_the_card():
    south = arm(SOUTH, 2, 9, 0.9)
    assert deliverers([south, arm(SIDE, 12, 13, 0.15)], HERE, 0.0, LAYOUT) == [south]


def test_an_arm_reaching_far_beyond_the_place_was_passing_over():
    passing = arm(SIDE, 2, 9, 0.9, overshoot=120.0)
    south = arm(SOUTH, 3, 8, 0.3)
    assert deliverers([passing, south], HERE, 0.0, LAYOUT) == [south]
    # with the bar for passing over raised beyond its reach, it is the arm that held the place best
    assert deliverers([passing, south], HERE, 0.0, LAYOUT, RefereeConfig(pass_over_mm=200.0)) == [passing]


def test_an_arm_seen_laying_the_way_its_cards_lie_beats_one_that_barely_touched_though_it_reached_beyond():
    # a long arm passing over took most of the laying hand's pixels (tuning table 54): what is left
    # of the laying arm still shows over the place and lies as its cards do, but seems to reach on
    # beyond it; an arm from across the table that only grazed the place laid nothing
    over = arm(SIDE, 0, 12, 0.8, overshoot=700.0)
    south = arm(SOUTH, 4, 7, 0.25, overshoot=70.0)
    north = arm(NORTH, 2, 12, 0.05)
    assert deliverers([over, south, north], HERE, 0.0, LAYOUT) == [south]
    # with no arm seen there, the one whose cards lie this way and that did not pass over it
    assert deliverers([over, arm(SOUTH, 4, 7, 0.15, overshoot=70.0), north], HERE, 0.0, LAYOUT) == [north]


def test_a_card_turned_to_the_seat_beside_its_arms_is_that_seats():
    # twelve seats 30 degrees apart: neighbours' arms cross the edge close together
    twelve = TableLayout((1800.0, 1200.0), [(f"P{k + 1}", 30.0 * k) for k in range(12)])
    p1_card = Pose(900.0, 600.0, twelve.facing("P1"))
    p12 = arm(11, 2, 9, 0.9)
    assert twelve.seats[turned_to(p12, p1_card, twelve).seat].player == "P1"
    assert deliverers([p12], p1_card, 0.0, twelve)[-1].seat == 0
    # a card that lies the way the arm's own seat's cards lie stays theirs
    assert turned_to(p12, Pose(900.0, 600.0, twelve.facing("P12")), twelve) is p12
    # a seat already laying a card here (a dispute) is not given a second; nor a seat too far round
    assert turned_to(p12, p1_card, twelve, taken={0}) is p12
    assert turned_to(arm(3, 2, 9, 0.9), p1_card, twelve).seat == 3
    assert turned_to(p12, p1_card, twelve, cfg=RefereeConfig(turned_seat_deg=0.0)) is p12


def test_the_arm_whose_cards_lie_this_way_laid_it():
    side = arm(SIDE, 2, 9, 0.55)
    south = arm(SOUTH, 2, 9, 0.55, held=3)
    assert deliverers([side, south], HERE, 0.0, LAYOUT)[-1] is south


def test_two_arms_holding_the_place_alike_both_laid_a_card_the_last_to_let_go_on_top():
    south = arm(SOUTH, 2, 10, 0.8, let_go=9)
    north = arm(NORTH, 3, 12, 0.8, let_go=11)
    assert deliverers([south, north], HERE, 0.06, LAYOUT) == [south, north]


def test_two_arms_alike_over_one_card_lying_exactly_where_the_change_was_laid_one():
    """Tuning range, clean tables: of the other arms taken as a dispute's with nothing showing beside
    the top card (under 4 % of a card), every one laid nothing; the same card was played twice."""
    south = arm(SOUTH, 2, 10, 0.8, let_go=9)
    north = arm(NORTH, 3, 12, 0.8, let_go=11)
    assert deliverers([south, north], HERE, 0.0, LAYOUT) == [north]


def test_arms_met_over_the_pile_from_facing_edges_laid_two_cards_only_where_a_second_can_hide():
    """Two arms from facing edges over the place at once make one blob: one seems to reach far
    beyond. Each may have laid a card (a dispute), but a card lies turned to its player, so one
    that does not lie the way the top card lies would show beside it (tuning table 57's lone
    turquoise 3 was written twice, and the second call of illegal wrong); a facing player's may
    hide exactly under it (sample s02: two yellow 2s laid at one instant)."""
    askew = TableLayout((1300.0, 900.0), [("P1", 0.0), ("P2", 145.0), ("P3", 215.0)])  # P2 across P1, not in line
    south = arm(0, 2, 10, 0.8, let_go=9, overshoot=120.0)
    other = arm(1, 3, 12, 0.6, held=4, let_go=8)
    assert len(deliverers([south, other], HERE, 0.06, askew)) == 2
    assert len(deliverers([south, other], HERE, 0.0, askew)) == 1
    north = arm(NORTH, 3, 12, 0.6, held=4, let_go=11)
    assert len(deliverers([arm(SOUTH, 2, 10, 0.8, let_go=9, overshoot=120.0), north], HERE, 0.0, LAYOUT)) == 2


def test_a_second_card_under_the_top_one_came_almost_together_with_it():
    """Two cards at one place are a dispute only when they touched within the rules' "almost
    together" (`together`, frames): an arm that came there further apart from the top card's did
    not lay a card under it (tuning range: of 118 second cards inferred wrong, 25 came further apart)."""
    south = arm(SOUTH, 2, 10, 0.8, let_go=9)
    north = arm(NORTH, 9, 14, 0.8, let_go=13)  # arrives 7 frames after south
    assert deliverers([south, north], HERE, 0.06, LAYOUT, together=7) == [south, north]
    assert deliverers([south, north], HERE, 0.06, LAYOUT, together=6) == [north]


def test_a_second_card_under_the_top_one_touched_first():
    """The card under the top one is the one that touched first: an arm that came to the place
    after the top card's arm (beyond `touch_precision_frames`) laid no card under it, however close
    (tuning range: the phantom plays fell 212 -> 198, the second cards inferred right stayed)."""
    north = arm(NORTH, 2, 14, 0.8, let_go=13)
    later = arm(SOUTH, 6, 12, 0.8, let_go=9)  # arrives 4 frames after the top card's arm
    assert deliverers([later, north], HERE, 0.5, LAYOUT, together=7) == [north]
    earlier = arm(SOUTH, 0, 12, 0.8, let_go=9)  # arrives 2 frames before it
    assert deliverers([earlier, north], HERE, 0.5, LAYOUT, together=7) == [earlier, north]
    alike = arm(SOUTH, 3, 12, 0.8, let_go=9)  # one frame after: the same moment, as far as arms tell
    assert deliverers([alike, north], HERE, 0.5, LAYOUT, together=7) == [alike, north]


def test_a_card_nobody_would_race_for_was_laid_by_one_arm_the_one_that_held_the_place_longest():
    """Tuning table 49: one red 6 laid on a green pile while two more arms came and went over it was
    written three times; two players race only for a card that fits. Of the arms, the one that held
    the place longest laid it, not the one that let go last (that one reached on beyond it)."""
    south = arm(SOUTH, 2, 10, 0.8, let_go=6)
    north = arm(NORTH, 3, 12, 0.8, held=6, let_go=11)
    assert deliverers([south, north], HERE, 0.06, LAYOUT) == [south, north]  # a race: both laid one
    assert deliverers([south, north], HERE, 0.06, LAYOUT, race=False) == [south]


def test_a_card_showing_under_the_top_one_is_the_other_arms():
    south = arm(SOUTH, 4, 10, 0.9)
    side = arm(SIDE, 4, 8, 0.3, held=2)
    assert deliverers([south, side], HERE, 0.0, LAYOUT) == [south]
    assert deliverers([south, side], HERE, 0.5, LAYOUT) == [side, south]


def test_a_card_under_the_top_one_was_let_go_before_it_unless_it_may_lie_exactly_under_it():
    """A card let go no earlier than the top one would lie on it; only a card lying the way the top
    one does (a facing player's) may hide exactly under it whatever the order."""
    south = arm(SOUTH, 4, 10, 0.9, let_go=9)
    assert deliverers([south, arm(SIDE, 4, 8, 0.3, held=2, let_go=6)], HERE, 0.5, LAYOUT)[0].seat == SIDE
    assert deliverers([south, arm(SIDE, 4, 10, 0.3, held=2, let_go=9)], HERE, 0.5, LAYOUT) == [south]
    assert deliverers([south, arm(SIDE, 4, 10, 0.3, held=2, let_go=10)], HERE, 0.5, LAYOUT) == [south]
    north = arm(NORTH, 4, 10, 0.9, held=5, let_go=9)
    assert len(deliverers([south, north], HERE, 0.5, LAYOUT)) == 2


def test_a_change_far_bigger_than_a_card_under_the_top_one_is_no_dispute():
    """Cards gathered from the centre, or a lamp: tens of cards' worth changed around the top card."""
    south = arm(SOUTH, 2, 10, 0.9)
    side = arm(SIDE, 4, 8, 0.9, held=8)
    assert deliverers([south, side], HERE, 55.0, LAYOUT) == [south]


def test_no_arm_no_deliverer():
    assert deliverers([], HERE, 0.0, LAYOUT) == []


def test_a_player_who_laid_a_card_elsewhere_just_then_laid_none_here_unless_no_other_arm_may_have():
    """One hand, one card at a time (RULES.md): the arm that covered the place best belongs to a
    player who laid a card elsewhere at about that time, so the other arm laid it; with no other
    arm, the one seen stays (a card is not lost for a doubt about its player)."""
    busy = arm(SOUTH, 2, 10, 0.9)
    other = arm(SIDE, 4, 9, 0.5)
    elsewhere = lambda a: a is busy  # noqa: E731
    assert deliverers(one_card_at_a_time([busy, other], elsewhere), HERE, 0.0, LAYOUT) == [other]
    assert deliverers(one_card_at_a_time([busy], elsewhere), HERE, 0.0, LAYOUT) == [busy]
    assert one_card_at_a_time([busy, other], lambda a: False) == [busy, other]


def test_laid_elsewhere_is_the_same_player_at_another_place_at_about_the_same_moment():
    far, near = Pose(HERE.x + 300.0, HERE.y, 0.0), Pose(HERE.x + 20.0, HERE.y, 0.0)  # another pile; this one
    one = int(CFG.one_card_s * 30)  # frames
    assert laid_elsewhere("P1", 100, HERE, [("P1", 100 + one, far)], 30.0)
    assert not laid_elsewhere("P1", 100, HERE, [("P1", 101 + one, far)], 30.0)  # one card, then the next
    assert not laid_elsewhere("P1", 100, HERE, [("P2", 100, far)], 30.0)  # another player
    assert not laid_elsewhere("P1", 100, HERE, [("P1", 100, near)], 30.0)  # here: two cards on one pile is a dispute's


def test_an_arm_that_laid_a_card_here_and_never_left_laid_no_second_one():
    """One hand, one card at a time: the arm covered the place from the card it laid at frame 6 on,
    every frame, so it lingered (or another arm's pixels were taken for it); an arm that left the
    place after its card and came back may have brought the next one."""
    lingering = arm(SOUTH, 4, 15, 0.7)
    assert laid_in_this_reach(lingering, [6])
    assert not laid_in_this_reach(lingering, [2])  # its card rested before this reach began
    back = arm(SOUTH, 4, 15, 0.7)
    back.cover[9:11] = 0  # went back for another card
    assert not laid_in_this_reach(back, [6])
    assert not laid_in_this_reach(lingering, [])


def test_first_touches_a_frame_apart_are_one_moment_and_the_top_card_touched_last():
    a = arm(SOUTH, 5, 12, 0.9)
    b = arm(NORTH, 6, 12, 0.9)
    assert first_touches([a, b]) == [5, 5]
    late = arm(NORTH, 9, 14, 0.9)
    assert first_touches([a, late]) == [5, 9]
    assert first_touches([late, a]) == [9, 9]  # the card on top cannot have touched first
    assert first_touches([a, late], RefereeConfig(touch_precision_frames=5)) == [5, 5]


def test_a_card_rests_as_its_arm_leaves_unless_the_hand_stayed_still_over_it():
    """A hand that leaves at once let go just before; one that stays still over its card (players
    do) let go shortly after the card touched, not when it finally left (the play's frame is the
    let-go: a late one loses the play to the scorer and a dispute's order). A hand that moved over
    the place all the while hovered before it laid its card: then it let go as it left."""
    still, moving = (lambda a, b: True), (lambda a, b: False)
    assert rest_frame(106, 100, 30.0, still) == 105  # left 0.2 s after the touch: at once
    assert rest_frame(108, 100, 30.0, still) == 104  # 0.27 s, still: let go 0.13 s after the touch
    assert rest_frame(140, 100, 30.0, still) == 104  # stayed 1.3 s, still: the same
    assert rest_frame(140, 100, 30.0, moving) == 139  # moved all the while: it hovered first
    assert rest_frame(112, 100, 60.0, still) == 110  # 0.2 s at 60 fps: at once
    assert rest_frame(140, 100, 60.0, still) == 108  # 0.67 s: stayed
    assert rest_frame(140, 100, 30.0, still, RefereeConfig(lingered_s=2.0)) == 139
    asked = []
    rest_frame(140, 100, 30.0, lambda a, b: asked.append((a, b)) or True)
    assert asked == [(105, 135)]  # still from just after the let-go to just before it left


# ---- the round's end ----------------------------------------------------------------------------
def test_a_stack_gone_right_after_its_players_play_ends_the_round_with_that_play():
    took = arm(SOUTH, 100, 110, 0.6)
    gone = stack_gone("P1", 120, [took], 0, last_play=105, fps=30.0)
    assert gone.ended_by == 105
    assert gone.when == 110 - 1


def test_a_stack_gone_with_no_play_since_waits_for_its_last_card():
    took = arm(SOUTH, 100, 110, 0.6)
    gone = stack_gone("P1", 120, [took], 0, last_play=90, fps=30.0)  # laid before that arm came
    assert gone.ended_by is None and gone.decide_by == 120 + int(CFG.last_card_s * 30)
    assert stack_gone("P1", 200, [took], 0, last_play=105, fps=30.0).ended_by is None  # too long ago


def test_a_stack_gone_is_looked_at_again_and_ends_with_its_players_next_legal_play_or_in_the_row():
    end = RoundEnd(30.0)
    gone = end.stack_seen_gone("P1", 120, [arm(SOUTH, 100, 110, 0.6)], 0)
    confirm = int(CFG.stack_confirm_s * 30)
    assert gone.ended_by is None and end.due(121) is None  # not yet: its last card may follow
    end.played("P2", 125)  # another player's play
    end.played("P1", 130)  # its last card, landed in the centre
    assert end.due(120 + confirm - 1) is None  # the place is looked at again only a moment later
    assert end.due(120 + confirm).frame == 130  # then, if still bare, the round ended with that play
    end.played("P1", 150)  # a later play is not the last card
    assert end.due(10**6).frame == 130
    end.settle()
    assert end.due(10**6) is None  # told once
    end.stack_seen_gone("P2", 200, [arm(SIDE, 180, 190, 0.6)], 0)
    assert end.due(200 + confirm).frame == 190 - 1  # nothing followed: the last card went into the row
    assert end.due() is not None  # the feed ended: looked at now


def test_cards_laid_after_a_stack_gone_and_its_last_cards_time_show_the_round_went_on():
    end = RoundEnd(30.0)
    gone = end.stack_seen_gone("P1", 120, [arm(SOUTH, 100, 110, 0.6)], 0)
    end.played("P1", gone.decide_by + 10)  # too late to be its last card
    assert end.gone.ended_by is None and end.went_on() is None  # one card may be a slow hand after the stop
    end.played("P3", gone.decide_by + 20)
    assert end.went_on().later == CFG.went_on_plays  # the place was not the stack's
    end.settle()
    end.stack_seen_gone("P2", 300, [arm(SIDE, 280, 290, 0.6)], 0)
    end.played("P3", 305)  # within the last card's time: the round may still have ended
    end.played("P4", 310)
    assert end.went_on() is None


def test_piles_losing_their_tops_together_are_being_gathered_for_the_count():
    # the stop went unseen; then hands sweep up the centre: pile after pile loses its top, no card called
    fps = 30.0
    assert piles_gathered(115, "takeback", None, 100, fps)  # half a second after another
    assert not piles_gathered(100, "takeback", None, None, fps)  # the first: a card taken back in play, perhaps
    assert not piles_gathered(140, "takeback", None, 100, fps)  # over a second apart: play goes on
    # whole piles picked up: a player takes back one card, so a second within the longer time
    assert piles_gathered(200, "pile-gone", 100, 100, fps)
    assert not piles_gathered(200, "takeback", 100, 100, fps)


# ---- the early look ------------------------------------------------------------------------------
def test_the_early_look_takes_only_a_new_card_read_surely_by_one_arm_alone():
    on = pile(("red-1", HERE, "P1"))
    assert new_card_read(Reading(True, "red", 2, confidence=0.9), on)
    assert not new_card_read(Reading(True, "red", 2, confidence=0.7), on)
    assert not new_card_read(Reading(True, "red", 1, confidence=0.9), on)  # already there
    south = arm(SOUTH, 2, 9, 0.9)
    side = arm(SIDE, 2, 9, 0.3)
    assert early.one_arm_alone([south], [south])
    assert not early.one_arm_alone([south], [south, side])
    assert early.one_arm_alone([south], [south, arm(SIDE, 2, 9, 0.3, overshoot=80.0)])  # it passed by
    # looked at early at all only when one player's arm came to the pile
    assert early.one_arm_came([south, arm(SIDE, 2, 9, 0.3, overshoot=80.0)])
    assert not early.one_arm_came([south, side])  # two came: perhaps a dispute
    assert not early.one_arm_came([arm(SOUTH, 2, 9, 0.9, overshoot=80.0)])  # it only passed over, on to another pile


def test_a_disputes_loser_taken_back_is_the_same_card_seen_at_another_place():
    # P1's red-2 won; P2's red-2, called, lies on it: taking it back shows the same card, elsewhere
    winner_at, loser_at = Pose(650.0, 450.0, 30.0), Pose(655.0, 452.0, -40.0)
    on = TrackedPile(1, [TrackedCard("red-1", HERE, "P3"), TrackedCard("red-2", winner_at, "P1", seen=False),
                         TrackedCard("red-2", loser_at, "P2", legal=False)])
    two = Reading(True, "red", 2, confidence=0.9)
    assert early.twin_taken_back(two, winner_at, on, {"P2"})
    assert not early.twin_taken_back(two, winner_at, on, set())  # no hand came: the outlines of one card
    assert not early.twin_taken_back(two, winner_at, on, {"P1"})  # the winner's hand does not take it back
    assert not early.twin_taken_back(two, loser_at, on, {"P2"})  # still where the called card lay
    assert not early.twin_taken_back(Reading(True, "red", 2, confidence=0.6), winner_at, on, {"P2"})  # unsure
    assert not early.twin_taken_back(Reading(True, "red", 3, confidence=0.9), winner_at, on, {"P2"})  # another card
    legal_top = TrackedPile(1, [on.cards[1], TrackedCard("red-2", loser_at, "P2")])  # both stand: none taken back
    assert not early.twin_taken_back(two, winner_at, legal_top, {"P2"})


def test_early_looks_are_few_unless_more_of_the_card_shows():
    looks = early.EarlyLooks(30.0)
    piles = {"1": pile(("red-1", HERE, "P1"))}
    shown = np.ones((5, 5), bool)
    chosen = [looks.choose(i, piles, lambda pid: False, lambda p: ((0, 0, 5, 5), shown)) for i in range(0, 60, 3)]
    assert sum(c is not None for c in chosen) == CFG.early_looks
    assert looks.choose(0, piles, lambda pid: True, lambda p: ((0, 0, 5, 5), shown)) is None  # a closed pile


# ---- the count ------------------------------------------------------------------------------------
def test_the_count_waits_for_still_frames_but_not_for_ever():
    w = count_wait(100, None, 0, True, 30.0)
    assert w.due == 100 + int(CFG.count_retry_s * 30)  # an arm is on the table: look again soon
    assert count_wait(100, None, 2, True, 30.0).due == 100 + CFG.count_frames - 2
    assert count_wait(100, None, CFG.count_frames, True, 30.0).due is None
    late = 100 + int(CFG.count_wait_s * 30)
    assert count_wait(late, 100, 0, True, 30.0).due is None  # waited long enough
    assert count_wait(100, None, 0, False, 30.0).due is None  # the feed ended


@pytest.mark.parametrize("field", sorted(RefereeConfig.model_fields))
def test_every_referee_threshold_is_described_and_bounded(field):
    info = RefereeConfig.model_fields[field]
    assert info.description, field


def test_a_players_card_face_down_anywhere_but_on_a_nine_is_reported_not_guessed():
    back = Reading(False, owner="P2", confidence=0.8)
    for on, face_down in ((pile(("blue-7", HERE, "P1")), True), (pile(("blue-9", HERE, "P1")), False), (None, True)):
        move = means(on, back, ten_face_down=face_down)
        assert move.kind == "unreadable" and move.reading.card is None
        assert "P2" in move.note and "face down" in move.note
    # a back surely someone's, whose unclear (boxes alike): reported the same, and never a pile gone
    someones = Reading(False, owner=None, confidence=0.5)
    move = means(pile(("blue-7", HERE, "P1"), ("blue-6", HERE, "P1")), someones, ten_face_down=True, changed=0.9)
    assert move.kind == "unreadable" and "face down" in move.note


def test_a_round_whose_stop_went_unseen_ended_with_the_one_stack_counted_empty():
    assert stopper_from_count({"P1": (20, 3), "P2": (18, 0), "P3": (9, 5)}) == "P2"
    assert stopper_from_count({"P1": (20, 0), "P2": (18, 0)}) is None  # a fan not found counts none too
    assert stopper_from_count({"P1": (20, 3), "P2": (18, 1)}) is None


def test_a_card_called_illegal_has_gone_from_under_the_next_only_when_what_lay_there_shows_again():
    """A dispute's loser pulled out from under the next card (tuning table 49): its corners that lay
    out changed and show the cloth again. A ten laid face down over them changed them too, but they
    do not show what lay there (tuning table 30); a card hardly out from under the others is not
    watched at all."""
    assert gone_from_under(900.0, 1.0, 0.05, CFG)
    assert not gone_from_under(900.0, 1.0, 0.9, CFG)  # covered by another card
    assert not gone_from_under(900.0, 0.1, 0.95, CFG)  # nothing moved: it still lies there
    assert not gone_from_under(CFG.stray_out_least_mm2 / 2, 1.0, 0.0, CFG)  # too little of it showed to tell


def test_a_card_found_only_at_every_turn_of_the_old_top_is_taken_when_sure_and_fitting():
    """Tuning table 58: a blue 9 laid neatly on the blue 8 is found only when the 8's place is read at
    every turn. Of many rectangles tried, one cut across a messy pile reads some card now and then
    (table 1: a yellow 10 on a yellow pile; table 3: a yellow 9 read as the pile's 10 at 0.87): such a
    card is taken only when it is new to the pile, read at least `turned_sure` and fits the pile."""
    on = pile(("blue-7", HERE, None), ("blue-8", Pose(650.0, 452.0, 138.0), "P2"))
    fits = {"blue-9"}.__contains__
    assert turned_card_taken(Reading(True, "blue", 9, confidence=CFG.turned_sure), on, fits)
    assert not turned_card_taken(Reading(True, "blue", 9, confidence=CFG.turned_sure - 0.03), on, fits)
    assert not turned_card_taken(Reading(True, "yellow", 10, confidence=0.99), on, fits)  # does not follow
    assert not turned_card_taken(Reading(True, "blue", 8, confidence=0.99), on, lambda card: True)  # the old top
    assert not turned_card_taken(Reading(False, owner="P2", confidence=0.99), on, lambda card: True)
    # the bar is the config's
    assert turned_card_taken(Reading(True, "blue", 9, confidence=0.85), on, fits, RefereeConfig(turned_sure=0.8))


def test_a_pile_is_looked_at_for_a_neat_card_only_after_a_hand_came_over_it_or_the_camera_moved():
    # a 20x20 low-res table; the pile's top covers a 4x4 window at (5, 5)
    top = pile(("red-3", HERE, "P1"))
    window, share = ((5, 5, 4, 4), np.ones((4, 4), bool)), CFG.visit_moved_share
    visits, nobody, still = ArmVisits(), np.full((20, 20), -1), np.zeros((20, 20), np.uint8)

    def note(index, seats=nobody, motion=still):
        visits.note(index, seats, motion, [top], lambda pose: window, share)

    note(1)
    assert not visits.due(top.id)  # nothing came: a small change there is no card
    shaken = still.copy()
    shaken[5, 5] = 1  # a shaking camera moves a pixel along the card's edge
    note(2, motion=shaken)
    assert not visits.due(top.id)
    beside = nobody.copy()
    beside[15:, 15:] = 2  # an arm elsewhere on the table
    note(3, seats=beside)
    assert not visits.due(top.id)
    over = nobody.copy()
    over[6, 6] = 0  # a hand over the top's place
    note(4, seats=over)
    assert visits.due(top.id)
    visits.looked(top.id, 6)
    assert not visits.due(top.id)  # looked at once the arm went: not again until another comes
    moving = still.copy()
    moving[5:9, 5:7] = 1  # half the place moves: a hand the seat map lost
    note(7, motion=moving)
    assert visits.due(top.id)
    visits.looked(top.id, 8)
    visits.camera_moved(9)
    assert visits.due(top.id)  # the mapping changed: what read as the old top may read otherwise


def test_a_pile_whose_top_read_unsurely_is_looked_at_again_for_a_moment_after_the_hand():
    """A look that has not seen the pile (its top read unsurely) leaves it due, but only up to
    `again_frames` after an arm last came over it: glare that never lets the top read surely must
    not have it looked at every turn for ever."""
    top = pile(("red-3", HERE, "P1"))
    visits, over = ArmVisits(), np.full((20, 20), -1)
    over[6, 6] = 0
    visits.note(10, over, np.zeros((20, 20), np.uint8), [top], lambda pose: ((5, 5, 4, 4), np.ones((4, 4), bool)), 0.1)
    visits.looked(top.id, 12, seen=False, again_frames=30)
    assert visits.due(top.id)  # read unsurely just after the hand: looked at again
    visits.looked(top.id, 40, seen=False, again_frames=30)
    assert visits.due(top.id)
    visits.looked(top.id, 41, seen=False, again_frames=30)
    assert not visits.due(top.id)  # a second past the hand: no more looks until another comes
    visits.note(50, over, np.zeros((20, 20), np.uint8), [top], lambda pose: ((5, 5, 4, 4), np.ones((4, 4), bool)), 0.1)
    visits.looked(top.id, 52, seen=True, again_frames=30)
    assert not visits.due(top.id)  # read surely: seen at once
