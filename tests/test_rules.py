"""Every rule of RULES.md §1, one behaviour per test."""
import pytest
from pydantic import ValidationError

from ligretto_vision.events import apply_amendment
from ligretto_vision.rules import (Card, ImpossibleMove, Match, MatchGoal, Round, RuleOptions, back_identities,
                                   edition, full_set, parse_card, resolve_dispute, round_score)
from ligretto_vision.rules.cards import boxes_needed
from ligretto_vision.rules.scoring import handicap_stack_sizes, may_reshuffle, profi_row_store

C = ("red", "green", "blue", "yellow")


def card(s):
    return parse_card(s, C)


def rnd(n=3, **opts):
    return Round([f"P{i + 1}" for i in range(n)], RuleOptions(**opts), fps=30)


# ---- material ---------------------------------------------------------------
def test_editions_have_their_colours():
    assert edition("dutch").colours == ("pink", "blue", "turquoise", "yellow")
    assert edition("classic").colours == C
    assert edition("starwars").stop_call == "Ligretto-Rebellion!"
    with pytest.raises(ValueError, match="unknown edition"):
        edition("poker")


def test_a_set_is_forty_distinct_cards():
    s = full_set(C)
    assert len(s) == 40 == len(set(s))


def test_each_of_twelve_players_has_a_distinct_back_and_boxes_repeat_designs():
    backs = back_identities(edition("classic"), 12)
    assert len(set(backs)) == 12
    assert boxes_needed(12) == 3 and boxes_needed(4) == 1 and boxes_needed(5) == 2
    designs = [b.split("/")[1] for b in backs]
    assert designs.count("balls-red") == 3  # the same symbol and colour in every box


@pytest.mark.parametrize("n", [1, 13])
def test_player_count_outside_two_to_twelve_is_refused(n):
    with pytest.raises(ValueError, match="2 to 12"):
        back_identities(edition("classic"), n)


@pytest.mark.parametrize("text,problem", [("purple-3", "colour"), ("red-11", "1 to 10"), ("red", "form"),
                                          (7, "form"), ("red-x", "1 to 10")])
def test_unknown_cards_are_named(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_card(text, C)


# ---- set-up -------------------------------------------------------------------
@pytest.mark.parametrize("n,row", [(2, 5), (3, 4), (4, 3), (8, 3), (12, 3)])
def test_row_size_by_player_count(n, row):
    assert RuleOptions().row_length(n) == row
    assert RuleOptions().stack_length(n) == 10


def test_two_player_option_twenty_card_stack_and_six_card_row():
    o = RuleOptions(two_player_big=True)
    assert (o.stack_length(2), o.row_length(2)) == (20, 6)
    assert (o.stack_length(3), o.row_length(3)) == (10, 4)  # only for two players


def test_house_stack_and_row_sizes():
    o = RuleOptions(stack_size=12, row_size=4)
    assert (o.stack_length(4), o.row_length(4)) == (12, 4)


def test_unknown_rule_option_is_refused():
    with pytest.raises(ValidationError):
        RuleOptions(tenn="face-up")


def test_setup_reshuffle_from_thirty():
    assert may_reshuffle([card("red-10"), card("blue-9"), card("green-8"), card("red-3")])
    assert not may_reshuffle([card("red-10"), card("blue-9"), card("green-8"), card("red-2")])


# ---- legality -------------------------------------------------------------------
def test_a_one_always_starts_a_new_pile_and_other_cards_cannot():
    r = rnd()
    assert r.judge("P1", card("blue-1"), None, 0).legal
    v = r.judge("P1", card("blue-2"), None, 0)
    assert (v.legal, v.reason) == (False, "wrong-number")


def test_next_number_of_same_colour_only():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    assert r.judge("P2", card("red-2"), 1, 5).legal
    assert r.judge("P2", card("blue-2"), 1, 5).reason == "wrong-colour"
    assert r.judge("P2", card("red-3"), 1, 5).reason == "wrong-number"
    assert r.judge("P2", card("red-1"), 1, 5).reason == "wrong-number"  # a 1 starts its own pile


def test_wrong_colour_wins_over_wrong_number_as_the_truth_logs_do():
    r = rnd()
    r.play("P1", card("yellow-1"), 1, 0)
    assert r.judge("P2", card("blue-9"), 1, 5).reason == "wrong-colour"


def test_several_piles_of_one_colour():
    r = rnd()
    r.play("P1", card("red-1"), None, 0)
    ev = r.play("P2", card("red-1"), None, 1)
    assert ev[0].data["legal"] and len(r.piles) == 2


def test_a_ten_closes_its_pile_and_nothing_more_goes_on_it():
    r = rnd(ten="face-down")
    for i in range(1, 10):
        r.play("P1", card(f"green-{i}"), 1, i * 40)
    out = r.play("P2", card("green-10"), 1, 400)
    assert [e.type for e in out] == ["play", "pile_closed"]
    assert out[1].data["face"] == "face-down"
    assert r.piles["1"].closed
    assert not r.judge("P3", card("green-10"), 1, 800).legal


def test_illegal_card_lies_on_the_pile_until_taken_back_and_does_not_change_it():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    out = r.play("P2", card("blue-2"), 1, 40, source="row")
    assert out[0].data["legal"] is False and out[0].data["reason"] == "wrong-colour"
    assert r.judge("P3", card("red-2"), 1, 50).legal  # judged against the last legal card
    r.takeback("P2", card("blue-2"), 1, 90, to="row")
    assert not r.piles["1"].strays


def test_takeback_of_a_card_not_there_cannot_have_happened():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    with pytest.raises(ImpossibleMove, match="no such card"):
        r.takeback("P2", card("red-5"), 1, 10)
    with pytest.raises(ImpossibleMove, match="does not exist"):
        r.takeback("P2", card("red-1"), 9, 10)


def test_two_cards_in_one_hand_are_illegal():
    r = rnd()
    assert r.judge("P1", card("red-1"), None, 0, two_cards=True).reason == "two-cards"


def test_source_must_hold_the_card_where_it_is_known():
    r = rnd()
    r.zones["P1"].row = [card("red-1"), card("blue-5")]
    r.zones["P1"].stack_top = card("green-4")
    assert r.judge("P1", card("red-1"), None, 0, source="row").legal
    assert r.judge("P1", card("yellow-1"), None, 0, source="row").reason == "not-playable"
    assert r.judge("P1", card("red-1"), None, 0, source="stack").reason == "not-playable"


def test_limit_on_centre_piles_house_rule():
    r = rnd(max_piles=2)
    r.play("P1", card("red-1"), None, 0)
    r.play("P1", card("blue-1"), None, 10)
    assert r.judge("P2", card("green-1"), None, 20).reason == "too-many-piles"


# ---- disputes (RULES.md §1, 000 §2.5) ------------------------------------------------
def test_dispute_first_touch_wins():
    assert resolve_dispute([("P1", 10), ("P2", 12)]) == "P1"
    assert resolve_dispute([("P1", 14), ("P2", 12), ("P3", 13)]) == "P2"


def test_dispute_same_instant_both_stay():
    assert resolve_dispute([("P1", 10), ("P2", 10)]) == "both"


def test_dispute_in_play_loser_takes_back():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    r.play("P3", card("red-2"), 1, 100, touch=96)
    out = r.play("P1", card("red-2"), 1, 104, touch=99)
    assert out[0].data["legal"] is False and out[0].data["reason"] == "wrong-number"
    assert out[1].type == "dispute" and out[1].data["winner"] == "P3"
    assert [c["touch"] for c in out[1].data["claims"]] == [96, 99]


def test_dispute_same_frame_both_stay_and_pile_goes_on():
    r = rnd()
    r.play("P1", card("yellow-1"), 1, 0)
    r.play("P3", card("yellow-2"), 1, 100, touch=90)
    out = r.play("P2", card("yellow-2"), 1, 102, touch=90)
    assert out[0].data["legal"] and out[1].data["winner"] == "both"
    assert r.judge("P1", card("yellow-3"), 1, 120).legal


def test_later_rest_but_earlier_touch_wins_and_the_other_card_is_the_loser():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    r.play("P3", card("red-2"), 1, 100, touch=98)
    out = r.play("P2", card("red-2"), 1, 101, touch=95)
    assert out[0].data["legal"] and out[1].data["winner"] == "P2"
    assert [pc.owner for pc in r.piles["1"].strays] == ["P3"]


def test_players_race_only_for_a_card_that_fits_the_pile_as_known():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    assert r.could_race(card("red-2"), 1) and r.could_race(card("blue-1"), None)
    assert not r.could_race(card("green-2"), 1) and not r.could_race(card("red-3"), 1)
    assert not r.could_race(card("blue-2"), None)
    r.doubt_top(1)  # the top read unsurely may be one the card follows
    assert r.could_race(card("green-2"), 1)


def test_a_card_fits_a_pile_as_known_whatever_the_doubts():
    """`fits`: the card follows the pile's top as known (the referee takes a card read at a turn its
    usual looks missed only when it does), unlike `could_race`, which gives a doubted top the benefit."""
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    assert r.fits(card("red-2"), 1) and r.fits(card("blue-1"), None)
    assert not r.fits(card("red-3"), 1) and not r.fits(card("green-2"), 1) and not r.fits(card("blue-2"), None)
    r.doubt_top(1)
    assert not r.fits(card("green-2"), 1) and r.could_race(card("green-2"), 1)
    unseen = r.add_unseen_pile()
    assert not r.fits(card("red-1"), unseen)  # nobody read it: no card is known to follow it


def test_a_pile_with_a_card_called_invalid_lying_on_it_may_hide_a_fitting_top():
    """Tuning table 44: a pile's 4 misread as its 1 at the start; its 5 called invalid lay there, and
    the race for the 6 that followed was still a race."""
    r = rnd()
    r.play("P1", card("blue-1"), 1, 0)
    assert not r.could_race(card("blue-6"), 1)
    r.play("P2", card("blue-5"), 1, 10)  # called invalid, not (yet) taken back
    assert r.could_race(card("blue-6"), 1)
    r.takeback("P2", card("blue-5"), 1, 40)
    assert not r.could_race(card("blue-6"), 1)


def test_a_players_last_card_laid_in_the_centre():
    r = rnd()
    assert r.last_laid("P1") is None
    r.play("P1", card("red-1"), 1, 10)
    r.play("P2", card("red-2"), 1, 20)
    r.play("P1", card("blue-1"), None, 30)
    r.play("P1", card("green-5"), None, 40)  # called invalid: it does not lie in the centre
    assert r.last_laid("P1") == 30 and r.last_laid("P2") == 20
    r.takeback("P1", card("blue-1"), 2, 50)  # a pile picked up for the count looks like this
    assert r.last_laid("P1") == 30


def test_almost_together_is_counted_between_the_touches_or_the_let_goes():
    """Tuning table 3: a 10 touched 13 frames after the first (window 15 at 30 fps), but its hand
    held on, so it came to rest 16 frames after: still a race, which the first touch won. (A touch
    seen early, an arm that hovered, with let-goes together: a race as well, tuning table 9.)"""
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    r.play("P3", card("red-2"), 1, 50, touch=48)
    out = r.play("P2", card("red-2"), 1, 66, touch=61)
    assert [e.type for e in out] == ["play", "dispute"] and out[1].data["winner"] == "P3"
    late = r.play("P1", card("red-2"), 1, 70, touch=64)  # touched 16 frames, let go 20 after the first: no race
    assert [e.type for e in late] == ["play"] and late[0].data["reason"] == "wrong-number"
    r.play("P3", card("blue-1"), 2, 100, touch=70)  # an arm that hovered: its touch seen early
    hovered = r.play("P2", card("blue-1"), 2, 104, touch=101)
    assert [e.type for e in hovered] == ["play", "dispute"] and hovered[1].data["winner"] == "P3"


def test_same_card_long_after_is_no_dispute_just_wrong():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    r.play("P3", card("red-2"), 1, 100)
    out = r.play("P2", card("red-2"), 1, 200)
    assert [e.type for e in out] == ["play"] and out[0].data["reason"] == "wrong-number"


# ---- round end ---------------------------------------------------------------------
def test_round_ends_when_a_stack_empties_by_play_or_refill():
    r = rnd(stack_size=2)
    r.play("P1", card("red-1"), None, 0, source="stack")
    out = r.refill("P1", card("blue-7"), 30)
    assert [e.type for e in out] == ["refill", "round_end"] and r.end == (30, "P1")


def test_grace_window_after_stop():
    r = rnd(stack_size=1, grace_s=1.0)  # 30 frames
    r.play("P1", card("red-1"), None, 100, source="stack")
    assert r.judge("P2", card("red-2"), 1, 130).legal
    assert r.judge("P2", card("red-2"), 1, 131).reason == "after-stop"
    assert rnd(stack_size=1, grace_s=0).judge("P2", card("red-1"), None, 5).legal  # before any stop
    # the round is stopped from the stop on (the centre may be gathered at once), cards in hand
    # are late only after the grace
    assert not r.stopped(99) and r.stopped(100) and not r.after_stop(130) and r.after_stop(131)


def test_a_stop_seen_late_amends_plays_judged_before_it_to_after_stop():
    # the last stack card went into the row at frame 100, seen only later: a play at 140 was
    # judged legal meanwhile, and is after-stop once the stop is known; one at 125 stays legal
    r = rnd(grace_s=1.0)  # 30 frames
    r.play("P1", card("red-1"), 1, 90)
    inside = r.play("P3", card("red-2"), 1, 125)[0]
    late = r.play("P2", card("red-3"), 1, 140)[0]
    sent = late.to_json()
    out = r.declare_end("P1", 100)
    assert [e.type for e in out] == ["round_end", "amend"] and "after_stop" not in out[0].data
    amend = out[1]
    assert amend.frame == 140 and amend.data == {
        "of": {"type": "play", "frame": 140, "player": "P2", "card": "red-3", "pile": 1},
        "legal": False, "reason": "after-stop"}
    assert late.to_json() == sent and late.data["legal"] and inside.data["legal"]  # what was sent stays as sent
    assert apply_amendment(amend, late).to_json() == {**sent, "legal": False, "reason": "after-stop"}
    assert str(r.piles["1"].top.card) == "red-2" and r.zones["P2"].played == 0 and r.zones["P2"].illegal == 1


def test_a_card_laid_after_a_stop_seen_late_and_taken_back_meanwhile_is_amended_all_the_same():
    # the stop is seen only after a second look at the stack's place: the card laid 1.4 s after
    # it was judged legal and taken back before the stop was known; it was after-stop all the same
    r = rnd(grace_s=1.0)
    r.play("P1", card("red-1"), 1, 90)
    late = r.play("P2", card("red-2"), 1, 142)[0]
    r.takeback("P2", card("red-2"), 1, 160)
    out = r.declare_end("P1", 100)
    assert [e.type for e in out] == ["round_end", "amend"]
    assert apply_amendment(out[1], late).to_json()["reason"] == "after-stop"
    assert str(r.piles["1"].top.card) == "red-1"  # what the takeback left stays


def test_a_ten_after_a_stop_seen_late_does_not_close_its_pile():
    r = rnd(grace_s=1.0)
    for n in range(1, 10):
        r.play("P1", card(f"red-{n}"), 1, 10 * n)
    closing = r.play("P2", card("red-10"), 1, 140)
    assert [e.type for e in closing] == ["play", "pile_closed"] and r.piles["1"].closed
    out = r.declare_end("P1", 100)
    assert [e.type for e in out] == ["round_end", "amend", "amend"]
    assert out[2].data == {"of": {"type": "pile_closed", "frame": 140, "pile": 1}, "withdrawn": "after-stop"}
    assert "withdrawn" not in closing[1].data and apply_amendment(out[2], closing[1]) is None
    assert not r.piles["1"].closed and str(r.piles["1"].top.card) == "red-9"


def test_a_stop_in_time_amends_nothing():
    r = rnd(grace_s=1.0)
    r.play("P1", card("red-1"), 1, 90)
    r.play("P2", card("red-2"), 1, 130)  # inside the grace window
    assert [e.type for e in r.declare_end("P1", 100)] == ["round_end"]


def test_refill_from_an_empty_stack_cannot_happen():
    r = rnd(stack_size=1)
    r.refill("P1", card("red-5"), 0)
    with pytest.raises(ImpossibleMove, match="already empty"):
        r.refill("P1", card("red-6"), 10)


def test_blocked_round_nothing_can_be_played():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    assert r.can_play(card("red-2")) and r.can_play(card("blue-1"))
    assert not r.can_play(card("red-3")) and not r.can_play(card("green-2"))


# ---- scoring and match ----------------------------------------------------------------
def test_round_score_centre_minus_two_per_stack_card():
    assert round_score(18, 0) == 18 and round_score(16, 4) == 8 and round_score(0, 10) == -20


def test_house_rules_in_scoring():
    o = RuleOptions(stack_penalty=3, ten_points=2, illegal_penalty=1)
    assert round_score(10, 2, o, tens=2, illegal=3) == 10 + 2 - 6 - 3


def test_score_inputs_checked():
    with pytest.raises(ValueError):
        round_score(3, -1)
    with pytest.raises(ValueError):
        round_score(1, 0, tens=2)


def test_match_to_a_target_score():
    m = Match(["A", "B"], MatchGoal("target", 99))
    m.add_round({"A": 50, "B": 20})
    assert not m.is_over()
    m.add_round({"A": 49, "B": 30})
    assert m.is_over() and m.leaders() == ["A"] and m.totals() == {"A": 99, "B": 50}


def test_match_over_a_number_of_rounds_or_time_or_endless():
    m = Match(["A", "B"], MatchGoal("rounds", 2))
    m.add_round({"A": 1, "B": 2})
    assert not m.is_over()
    m.add_round({"A": 1, "B": 2})
    assert m.is_over() and m.leaders() == ["B"]
    assert Match(["A", "B"], MatchGoal("minutes", 30)).is_over(minutes_played=31)
    assert not Match(["A", "B"], MatchGoal("endless", 0)).is_over(minutes_played=1e6)


def test_late_joiner_starts_with_the_average():
    m = Match(["A", "B", "C"])
    m.add_round({"A": 10, "B": 20, "C": 31})
    assert m.add_player("D") == 20
    assert m.totals()["D"] == 20
    with pytest.raises(ValueError, match="not in the match"):
        m.add_round({"Z": 1})


def test_handicap_stack_grows_for_the_ender_then_all_shrink():
    s = handicap_stack_sizes({"A": 10, "B": 10}, "A")
    assert s == {"A": 11, "B": 10}
    assert handicap_stack_sizes({"A": 11, "B": 10}, "B") == {"A": 10, "B": 10}


def test_profi_row_storage():
    assert profi_row_store(card("blue-9"), card("yellow-10")) is None
    assert profi_row_store(card("yellow-9"), card("yellow-10")) == "row-same-colour"
    assert profi_row_store(card("blue-8"), card("yellow-10")) == "row-not-one-lower"
    assert profi_row_store(card("blue-8"), None) is None


def test_one_or_three_card_hand_counting_is_an_option():
    assert RuleOptions().hand_count == 3 and RuleOptions(hand_count=1).hand_count == 1
    with pytest.raises(ValidationError):
        RuleOptions(hand_count=2)


def test_card_follows():
    assert Card("red", 3).follows(Card("red", 2)) and not Card("red", 3).follows(Card("blue", 2))


# ---- a round watched from the middle (a `state` line) ----------------------------------------
def state(**p1):
    players = {"P1": {"stack": 0, "stack_top": None, "row": ["red-5", None, "blue-7"], "discard_top": "green-2",
                      "held": [{"card": "yellow-9", "from": "stack"}]}}
    players["P1"].update(p1)
    return {"frame": 0, "piles": {"1": ["red-1", "red-2"]}, "players": players}


def test_a_row_gap_in_the_state_is_an_empty_place():
    r = rnd()
    r.load_state(state(), C)
    assert r.zones["P1"].row == [card("red-5"), card("blue-7")]


def test_a_held_last_stack_card_ends_the_round_when_it_is_laid_not_before():
    r = rnd()
    r.load_state(state(), C)
    assert r.play("P1", card("red-3"), 1, 10, source="row")[0].data["reason"] == "not-playable"
    assert r.end is None  # the stack shows none, but its last card is still in hand
    out = r.refill("P1", card("yellow-9"), 20)
    assert [e.type for e in out] == ["refill", "round_end"] and r.zones["P1"].stack == 0
    assert card("yellow-9") in r.zones["P1"].row and r.zones["P1"].held == []


def test_a_card_held_on_its_way_back_lies_where_it_goes():
    r = rnd()
    r.load_state(state(stack=2, stack_top="blue-1", held=[{"card": "red-3", "to": "stack"}]), C)
    z = r.zones["P1"]
    assert (z.stack, z.stack_top) == (3, card("red-3"))
    assert r.play("P1", card("red-3"), 1, 10, source="stack")[0].data["legal"]


@pytest.mark.parametrize("held,problem", [
    ([{"card": "yellow-9"}], "each must be"),
    ([{"card": "yellow-9", "from": "hand"}], "is not one of"),
    ([{"card": "blue-7", "from": "row"}], "also lies"),
])
def test_bad_held_cards_are_named(held, problem):
    with pytest.raises(ValueError, match=problem):
        rnd().load_state(state(held=held), C)
