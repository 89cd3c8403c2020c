"""The board game's rules (RULES.md §2), one behaviour per test on small hand-made boards, then
properties of many simulated rounds (sim/board_table.py)."""
import io
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from ligretto_vision.errors import LigrettoError
from ligretto_vision.events import read_log, write_events
from ligretto_vision.rules.board import (Board, BoardMatch, BoardOptions, BoardReason, BoardRound,
                                         Duty, Laid, Position, Standing, Token, apply_joker,
                                         apply_place, award, can_play, joker_places, judge_joker, judge_place,
                                         kind, legal_places, rank_round, reduce_aside)
from ligretto_vision.sim.board_table import BoardBotStyle, BoardSimTable, play_match, random_board

C = ("red", "green", "blue", "yellow")
# (col, row):   c0 c1 c2 c3 c4 c5
B = Board.of(["rgbyrg",   # r0
              "gbyrgb",   # r1
              "byrgby",   # r2
              "yrgbyr"], C)  # r3
# a corridor: row 1 is covered (cards and a joker), so cards go along row 0 or row 2
CORRIDOR = Board.of(["rgbyr",
                     "grybg",
                     "byrgb"], C)
ROW1 = (Laid("P3", ((0, 1), (1, 1)), ("green", "red"), True, None, 0),
        Laid("P3", ((2, 1), (3, 1)), ("yellow", "blue"), True, None, 0),
        Laid("P3", ((4, 1),), None, True, None, 0))


def rnd(tokens=None, cards=None, n=3, **opts):
    return BoardRound(B, [f"P{i + 1}" for i in range(n)], tokens or {"T1": (2, 1)}, BoardOptions(**opts), cards)


def reason(r, player, colours, cells):
    return r.judge(player, colours, cells).reason


def place(pos, player, colours, cells, frame=1, onto=None):
    v = judge_place(pos, player, colours, cells)
    return apply_place(pos, player, colours, cells, v, frame, onto)[0], v


# ---- the board ----------------------------------------------------------------------------
def test_board_grid_is_cols_by_rows_and_cells_are_col_row():
    assert (B.cols, B.rows) == (6, 4)
    assert B.colour((3, 0)) == "yellow" and B.colour((0, 3)) == "yellow" and B.colour((1, 0)) == "green"
    assert sorted(B.edge_neighbours((0, 0))) == [(0, 1), (1, 0)]
    assert len(B.card_places) == 2 * (5 * 4 + 6 * 3)  # every place, either half first


@pytest.mark.parametrize("rows,problem", [(["rgb", "rg"], "as many fields"), (["rgx"], "initial"), ([], "one row")])
def test_a_bad_board_is_named(rows, problem):
    with pytest.raises(LigrettoError, match=problem):
        Board.of(rows, C)


@pytest.mark.parametrize("cells,problem", [([(0, 0), (2, 0)], "share an edge"), ([(0, 0), (1, 1)], "share an edge"),
                                           ([(5, 3), (6, 3)], "not on the 6 x 4"), ([(0, 0)], "two fields")])
def test_a_card_lies_on_two_edge_neighbouring_fields_of_the_board(cells, problem):
    with pytest.raises(LigrettoError, match=problem):
        rnd().judge("P1", ("red", "green"), cells)


def test_options_refuse_unknown_keys_and_values():
    assert BoardOptions().swapped == "mistake" and BoardOptions().rounds == 6
    with pytest.raises(ValidationError):
        BoardOptions(swaped="mistake")
    with pytest.raises(ValidationError):
        BoardOptions(swapped="sometimes")


# ---- placement: each reason ------------------------------------------------------------------
def test_a_matching_card_next_to_a_token_is_legal_and_the_token_goes_to_the_farther_half():
    r = rnd()
    v = r.judge("P1", ("red", "green"), [(3, 1), (4, 1)])
    assert (v.legal, v.token, v.onto) == (True, "T1", (4, 1))
    assert r.judge("P1", ("green", "red"), [(4, 1), (3, 1)]).onto == (4, 1)  # far half written first
    assert r.judge("P1", ("red", "green"), [(2, 2), (3, 2)]).onto == (3, 2)  # bent away: still the far one
    out = r.place("P1", ("red", "green"), [(3, 1), (4, 1)], 10)
    assert [e.to_event().to_json() for e in out] == [
        {"type": "place", "frame": 10, "player": "P1", "card": "red+green", "cells": [[3, 1], [4, 1]],
         "legal": True, "reason": None},
        {"type": "token", "frame": 10, "token": "T1", "cell": [4, 1]}]
    assert r.position.token("T1").cell == (4, 1) and r.cards_left("P1") == 14


def test_colour_mismatch():
    assert reason(rnd(), "P1", ("blue", "yellow"), [(3, 1), (4, 1)]) == "colour-mismatch"


def test_swapped_colours_are_a_mistake_only_when_the_table_says_so():
    assert reason(rnd(), "P1", ("green", "red"), [(3, 1), (4, 1)]) == "swapped"
    v = rnd(swapped="allowed").judge("P1", ("green", "red"), [(3, 1), (4, 1)])
    assert (v.legal, v.onto) == (True, (4, 1))


def test_not_adjacent():
    assert reason(rnd(), "P1", ("yellow", "red"), [(4, 3), (5, 3)]) == "not-adjacent"


def test_corner_only_unless_it_shares_an_edge_with_another_token():
    assert reason(rnd(), "P1", ("yellow", "red"), [(3, 0), (4, 0)]) == "corner-only"
    v = rnd({"T1": (2, 1), "T2": (5, 0)}).judge("P1", ("yellow", "red"), [(3, 0), (4, 0)])
    assert (v.legal, v.token, v.onto) == (True, "T2", (3, 0))


def test_covers_card_a_joker_or_a_token():
    r = rnd({"T1": (2, 1), "T2": (5, 3)})
    r.place("P1", ("red", "green"), [(3, 1), (4, 1)], 1)
    assert reason(r, "P2", ("green", "blue"), [(4, 1), (5, 1)]) == "covers-card"
    r.joker("P2", (5, 2), 2)
    assert reason(r, "P3", ("blue", "yellow"), [(4, 2), (5, 2)]) == "covers-card"
    assert reason(rnd(), "P1", ("yellow", "red"), [(2, 1), (3, 1)]) == "covers-card"  # the token's own field


def test_after_stop_the_last_card_ends_the_round_and_later_cards_do_not_count():
    r = rnd(cards={"P1": 1})
    out = r.place("P1", ("red", "green"), [(3, 1), (4, 1)], 5)
    assert [e.type for e in out] == ["place", "token", "round_end"] and r.ender == "P1"
    assert reason(r, "P2", ("green", "blue"), [(4, 2), (4, 3)]) == "after-stop"
    r.place("P2", ("blue", "yellow"), [(4, 2), (4, 3)], 9)
    assert r.cards_left("P2") == 15 and not r.standings()[1].mistake


def test_precedence_after_stop_covers_adjacency_colours_swapped():
    r = rnd()
    r.place("P1", ("red", "green"), [(3, 1), (4, 1)], 1)  # token T1 now on (4, 1)
    wrong = ("red", "red")
    r.place("P3", wrong, [(0, 2), (0, 3)], 2)  # illegal, lying far from T1: it still covers
    far = [(0, 1), (0, 2)]
    assert all(abs(c[0] - 4) > 1 or abs(c[1] - 1) > 1 for c in far)  # no edge, no corner with T1's field
    assert reason(r, "P2", wrong, far) == "covers-card"  # also not-adjacent, and the wrong colours
    assert reason(r, "P2", wrong, [(0, 0), (1, 0)]) == "not-adjacent"  # also the wrong colours
    assert reason(r, "P2", wrong, [(5, 2), (5, 3)]) == "corner-only"  # also the wrong colours
    assert reason(r, "P2", ("yellow", "green"), [(4, 2), (4, 3)]) == "colour-mismatch"  # one right is not swapped
    assert reason(r, "P2", ("yellow", "blue"), [(4, 2), (4, 3)]) == "swapped"
    assert [e.to_event().to_json() for e in r.nobody_can_play(40)] == [{"type": "round_blocked", "frame": 40}]
    assert r.nobody_can_play(41) == []  # ended already
    assert reason(r, "P2", wrong, [(3, 1), (3, 2)]) == "after-stop"


def test_a_card_beside_two_tokens_is_for_the_lower_id_unless_the_token_moved_is_named():
    r = rnd({"T1": (2, 1), "T2": (5, 1)})
    assert r.judge("P1", ("red", "green"), [(3, 1), (4, 1)]).token == "T1"
    v = r.judge("P1", ("red", "green"), [(3, 1), (4, 1)], token="T2")
    assert (v.token, v.onto) == ("T2", (3, 1))


def test_a_token_named_that_the_play_is_not_for_is_an_error_not_ignored():
    r = rnd({"T1": (2, 1), "T2": (5, 3)})
    with pytest.raises(LigrettoError, match="no token 'T9'"):
        r.position.token("T9")
    with pytest.raises(LigrettoError, match="no token 'T9'"):
        r.judge("P1", ("red", "green"), [(3, 1), (4, 1)], token="T9")
    with pytest.raises(LigrettoError, match="not for token T2: it is legal for T1 only"):
        r.place("P1", ("red", "green"), [(3, 1), (4, 1)], 1, token="T2")
    with pytest.raises(LigrettoError, match="not for token T2: it is legal for T1 only"):
        r.joker("P1", (1, 1), 1, token="T2")
    assert r.position.lying == ()  # nothing was laid
    assert r.judge("P1", ("blue", "yellow"), [(3, 1), (4, 1)], token="T2").reason == "colour-mismatch"


def test_an_illegal_card_moves_no_token_but_covers_its_fields_until_taken_back():
    r = rnd()
    out = r.place("P2", ("blue", "yellow"), [(3, 1), (4, 1)], 1)
    assert [e.type for e in out] == ["place"] and r.position.token("T1").cell == (2, 1)
    assert reason(r, "P1", ("red", "green"), [(3, 1), (4, 1)]) == "covers-card"
    assert r.standings()[1].mistake
    assert r.takeback("P2", [(4, 1), (3, 1)], 30)[0].to_event().data == {"player": "P2", "cells": [[3, 1], [4, 1]]}
    assert r.judge("P1", ("red", "green"), [(3, 1), (4, 1)]).legal and not r.standings()[1].mistake
    with pytest.raises(LigrettoError, match="no card lying"):
        r.takeback("P2", [(3, 1), (4, 1)], 31)


# ---- jokers --------------------------------------------------------------------------------------
def test_a_joker_takes_its_token_and_only_its_owner_lays_next_and_at_once():
    r = rnd({"T1": (2, 1), "T2": (5, 3)})
    out = r.joker("P1", (1, 1), 3)
    assert [e.to_event().to_json() for e in out] == [{"type": "joker", "frame": 3, "player": "P1", "cell": [1, 1]},
                                                     {"type": "token", "frame": 3, "token": "T1", "cell": [1, 1]}]
    assert r.position.duty("P1") == Duty("joker", "P1", "T1")
    assert reason(r, "P2", ("green", "red"), [(0, 1), (0, 0)]) == "not-adjacent"  # another's joker
    assert reason(r, "P1", ("yellow", "blue"), [(4, 3), (4, 2)]) == "not-adjacent"  # the owner, elsewhere
    assert r.judge("P2", ("yellow", "blue"), [(4, 3), (4, 2)]).legal  # the other token stays open to others
    v = r.judge("P1", ("green", "red"), [(0, 1), (0, 0)])
    assert (v.legal, v.onto) == (True, (0, 0))
    r.place("P1", ("green", "red"), [(0, 1), (0, 0)], 4)
    assert r.position.duty("P1") is None and r.position.pending == ()
    assert r.judge("P2", ("green", "blue"), [(1, 0), (2, 0)]).legal  # T1 is everybody's again
    assert r.jokers_left("P1") == 1 and r.cards_left("P1") == 14


def test_a_card_beside_a_held_token_and_an_open_one_is_for_the_open_one():
    r = rnd({"T1": (2, 1), "T2": (2, 3)})
    r.joker("P1", (1, 1), 3)
    v = r.judge("P2", ("yellow", "red"), [(1, 2), (2, 2)])
    assert (v.legal, v.token, v.onto) == (True, "T2", (1, 2))


def test_jokers_are_judged_like_cards_and_a_second_joker_carries_the_duty_on():
    r = rnd({"T1": (2, 1)})
    assert r.joker("P2", (3, 0), 1)[0].reason == "corner-only" and r.position.token("T1").cell == (2, 1)
    assert r.takeback("P2", [(3, 0)], 2)[0].cells == ((3, 0),)
    assert judge_joker(r.position, "P2", (5, 3)).reason == "not-adjacent"
    assert judge_joker(r.position, "P2", (2, 1)).reason == "covers-card"
    r.joker("P1", (1, 1), 3)
    r.joker("P1", (0, 1), 4)  # both jokers, one after the other, side by side (003 "Note")
    assert r.position.token("T1").cell == (0, 1) and r.position.duty("P1") == Duty("joker", "P1", "T1")
    assert r.judge("P1", ("red", "green"), [(0, 0), (1, 0)]).legal
    with pytest.raises(LigrettoError, match="no joker left"):
        r.joker("P1", (0, 2), 5)


def test_a_joker_taken_back_takes_its_duty_with_it():
    r = rnd({"T1": (2, 1)})
    r.joker("P1", (1, 1), 3)
    r.takeback("P1", [(1, 1)], 4)
    assert r.position.duty("P1") is None and r.position.pending == ()
    assert r.judge("P2", ("green", "blue"), [(1, 0), (2, 0)]).legal  # T1, where it stands, is everybody's again
    assert r.jokers_left("P1") == 2


def test_joker_places_are_where_a_joker_lets_the_card_follow():
    pos = Position(Board.of(["rgyb"], C), (Token("T1", (0, 0)),))
    # yellow+blue fits nowhere beside T1's field (0, 0), but beyond a joker on (1, 0)
    assert not legal_places(pos, "P1", ("blue", "yellow"))
    assert joker_places(pos, "P1", ("blue", "yellow"), 1) == [(((1, 0),), (("yellow", "blue"), ((2, 0), (3, 0))))]
    assert can_play(pos, "P1", [("blue", "yellow")], jokers_left=1)
    assert not can_play(pos, "P1", [("blue", "yellow")], jokers_left=0)


def test_a_card_two_jokers_away_can_be_played_with_both():
    """003 "Note": both jokers, one after the other, side by side."""
    pos = Position(Board.of(["rgbyg"], C), (Token("T1", (0, 0)),))
    # beside T1: green+blue; beyond one joker: blue+yellow; beyond two: yellow+green
    assert joker_places(pos, "P1", ("green", "yellow"), 1) == []
    # the second joker beside the first, or back onto T1's set-up field, a dead end: the card then goes anywhere
    assert sorted(joker_places(pos, "P1", ("green", "yellow"), 2)) == [
        (((1, 0), (0, 0)), (("yellow", "green"), ((3, 0), (4, 0)))),
        (((1, 0), (2, 0)), (("yellow", "green"), ((3, 0), (4, 0))))]
    assert not can_play(pos, "P1", [("green", "yellow")], jokers_left=1)
    assert can_play(pos, "P1", [("green", "yellow")], jokers_left=2)


# ---- cul-de-sacs ------------------------------------------------------------------------------------
def test_a_token_left_in_a_cul_de_sac_is_carried_by_the_players_next_card_anywhere():
    pos = Position(CORRIDOR, (Token("T1", (0, 0)),), lying=ROW1)
    pos, _ = place(pos, "P1", ("green", "blue"), [(1, 0), (2, 0)])
    assert pos.owed == () and pos.token("T1").cell == (2, 0)
    pos, v = place(pos, "P2", ("yellow", "red"), [(3, 0), (4, 0)])
    assert v.legal and pos.token("T1").cell == (4, 0) and pos.is_blocked(pos.token("T1"))
    assert pos.duty("P2") == Duty("cul-de-sac", "P2", "T1")
    assert judge_place(pos, "P1", ("blue", "yellow"), [(0, 2), (1, 2)]).reason == "not-adjacent"
    assert judge_place(pos, "P2", ("red", "green"), [(0, 2), (1, 2)]).reason == "colour-mismatch"
    assert legal_places(pos, "P2", ("blue", "yellow")) == [(("blue", "yellow"), ((0, 2), (1, 2)))]
    v = judge_place(pos, "P2", ("blue", "yellow"), [(0, 2), (1, 2)])
    assert (v.legal, v.relocation, v.token) == (True, True, "T1")
    with pytest.raises(LigrettoError, match="onto the new card"):
        apply_place(pos, "P2", ("blue", "yellow"), [(0, 2), (1, 2)], v, 3, onto=(2, 2))
    after, moved = apply_place(pos, "P2", ("blue", "yellow"), [(0, 2), (1, 2)], v, 3, onto=(1, 2))
    assert moved == [("T1", (1, 2))] and after.owed == () and after.duty("P2") is None


def test_blocking_another_token_is_a_cul_de_sac_too_but_not_one_blocked_before():
    lying = ROW1 + (Laid("P3", ((1, 2), (2, 2)), ("yellow", "red"), True, None, 0),)
    tokens = (Token("T1", (0, 0)), Token("T2", (4, 0)), Token("T3", (0, 2)))
    pos = Position(CORRIDOR, tokens, lying=lying)
    assert pos.is_blocked(pos.token("T3")) and not pos.is_blocked(pos.token("T2"))
    pos, _ = place(pos, "P1", ("green", "blue"), [(1, 0), (2, 0)])
    # the moved token first; T3 was blocked already
    assert pos.owed == (Duty("cul-de-sac", "P1", "T1"), Duty("cul-de-sac", "P1", "T2"))


def test_the_rules_follow_the_tokens_where_they_are_seen_standing():
    r = rnd({"T1": (2, 1), "T2": (5, 3)})
    # the referee saw T1 carried two fields on (a card it missed): the one not on a seen field moves
    assert r.tokens_stand([(5, 3), (4, 1)]) == {"T1": (4, 1)}
    assert r.position.token("T1").cell == (4, 1) and r.position.token("T2").cell == (5, 3)
    assert r.judge("P1", ("blue", "yellow"), [(1, 1), (1, 2)]).reason == "not-adjacent"  # beside where it was
    assert r.judge("P1", ("blue", "yellow"), [(4, 2), (4, 3)]).legal  # beside where it stands
    assert r.tokens_stand([(5, 3), (4, 1)]) == {}  # as seen already: nothing moves
    with pytest.raises(LigrettoError, match="2 tokens cannot stand on 1 fields"):
        r.tokens_stand([(4, 1)])
    with pytest.raises(LigrettoError, match="board"):
        r.tokens_stand([(4, 1), (9, 9)])


def test_a_jokers_token_seen_on_it_keeps_its_duty_and_one_seen_carried_off_leaves_it():
    r = rnd({"T1": (2, 1), "T2": (5, 3)})
    r.joker("P1", (2, 2), 1)
    assert r.position.pending == (Duty("joker", "P1", "T1"),)
    assert r.tokens_stand([(2, 2), (5, 3)]) == {} and r.position.pending == (Duty("joker", "P1", "T1"),)
    assert r.tokens_stand([(1, 2), (5, 3)]) == {"T1": (1, 2)} and r.position.pending == ()


def test_a_blocked_token_seen_carried_on_is_owed_no_more():
    pos = Position(CORRIDOR, (Token("T1", (0, 0)),), lying=ROW1)
    pos, _ = place(pos, "P1", ("green", "blue"), [(1, 0), (2, 0)])
    pos, _ = place(pos, "P2", ("yellow", "red"), [(3, 0), (4, 0)])
    assert pos.duty("P2") == Duty("cul-de-sac", "P2", "T1")
    r = BoardRound(CORRIDOR, ["P1", "P2"], {"T1": (0, 0)})
    r.position = pos
    # P2's card that carried it was given to P1 (a wrong owner): the token stands on it all the same
    assert r.tokens_stand([(1, 2)]) == {"T1": (1, 2)}
    assert r.position.duty("P2") is None and r.position.owed == ()


def test_a_player_owing_a_cul_de_sac_may_lay_no_joker_and_choices_agree():
    """The cul-de-sac's card comes next and carries the blocked token (legality.judge_joker): a
    joker first would make that card owe the joker too."""
    pos = Position(CORRIDOR, (Token("T1", (0, 0)), Token("T2", (4, 2))), lying=ROW1)
    pos, _ = place(pos, "P1", ("green", "blue"), [(1, 0), (2, 0)])
    pos, _ = place(pos, "P2", ("yellow", "red"), [(3, 0), (4, 0)])
    assert pos.duty("P2") == Duty("cul-de-sac", "P2", "T1")
    assert judge_joker(pos, "P1", (3, 2)).legal  # beside T2: open to a player who owes nothing
    assert judge_joker(pos, "P2", (3, 2)).reason == "not-adjacent"
    assert joker_places(pos, "P2", ("green", "red"), 2) == []
    assert legal_places(pos, "P2", ("green", "red")) == [(("red", "green"), ((2, 2), (3, 2)))]


def test_a_pair_of_one_colour_takes_no_card_unless_the_set_has_such_cards():
    one = Board.of(["grr"], C)
    token = Token("T1", (0, 0))
    assert Position(one, (token,)).is_blocked(token)
    assert not Position(one, (token,), BoardOptions(one_colour_cards=True)).is_blocked(token)


def test_a_joker_into_a_dead_end_or_blocked_is_a_cul_de_sac_not_a_joker_duty():
    lying = ROW1 + (Laid("P3", ((1, 0), (2, 0)), ("green", "blue"), True, None, 0),)
    pos = Position(CORRIDOR, (Token("T1", (3, 0)),), lying=lying)
    v = judge_joker(pos, "P1", (4, 0))
    after, moved = apply_joker(pos, "P1", (4, 0), v, 1)
    assert moved == [("T1", (4, 0))] and after.pending == () and after.duty("P1") == Duty("cul-de-sac", "P1", "T1")
    # so the card it lets follow lies anywhere matching: yellow+red fits no place beside T1 but (1, 2)+(2, 2)
    assert not legal_places(pos, "P1", ("yellow", "red"))
    assert joker_places(pos, "P1", ("yellow", "red"), 1) == [(((4, 0),), (("yellow", "red"), ((1, 2), (2, 2))))]
    assert can_play(pos, "P1", [("yellow", "red")], jokers_left=1)


# ---- ranking -------------------------------------------------------------------------------------------
def ranks(standings, ender):
    return {r.player: (r.place, r.chips, r.aside) for r in rank_round(standings, ender)}


# (chips, cards aside) per place: 003's table for 3 and 4 players, chips + cards = 2 (and the Spanish table) for 2
AWARDS = {2: [(2, 0), (0, 2)], 3: [(2, 0), (1, 1), (0, 2)], 4: [(2, 0), (1, 1), (0, 2), (0, 2)]}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_chips_and_cards_aside_per_place_sum_to_two(n):
    assert [award(p, n) for p in range(1, n + 1)] == AWARDS[n]
    assert all(sum(award(p, n)) == 2 for p in range(1, n + 1))


def test_the_rule_texts_example_ties_go_to_fewer_jokers_used():
    # 003: Rudi ends; Nina and Sara have 4 cards each, Nina one joker left, Sara none
    got = ranks([Standing("Rudi", 0, 2), Standing("Nina", 4, 1), Standing("Sara", 4, 0)], "Rudi")
    assert got == {"Rudi": (1, 2, 0), "Nina": (2, 1, 1), "Sara": (3, 0, 2)}


def test_still_tied_share_the_place_and_the_next_is_skipped():
    got = ranks([Standing("P1", 0, 0), Standing("P2", 3, 1), Standing("P3", 3, 1), Standing("P4", 5, 2)], "P1")
    assert got == {"P1": (1, 2, 0), "P2": (2, 1, 1), "P3": (2, 1, 1), "P4": (4, 0, 2)}
    got = ranks([Standing("P1", 0, 0), Standing("P2", 1, 1), Standing("P3", 3, 1), Standing("P4", 3, 1)], "P1")
    assert got["P3"] == got["P4"] == (3, 0, 2)


def test_mistakes_share_the_last_place_and_the_others_move_up():
    got = ranks([Standing("P1", 0, 2, mistake=True), Standing("P2", 6, 2), Standing("P3", 2, 2, mistake=True),
                 Standing("P4", 4, 0)], "P1")
    assert got == {"P4": (1, 2, 0), "P2": (2, 1, 1), "P1": (4, 0, 2), "P3": (4, 0, 2)}
    assert ranks([Standing("P1", 0, 2, mistake=True), Standing("P2", 3, 2, mistake=True)], "P1") == \
        {"P1": (2, 0, 2), "P2": (2, 0, 2)}


def test_when_nobody_can_play_the_most_cards_laid_wins():
    got = ranks([Standing("P1", 5, 2, laid=8), Standing("P2", 4, 2, laid=11), Standing("P3", 4, 1, laid=11)], None)
    assert got == {"P2": (1, 2, 0), "P3": (2, 1, 1), "P1": (3, 0, 2)}
    # with cards put aside, the most laid need not be the fewest left: first by laid, then by cards left
    got = ranks([Standing("P1", 2, 2, laid=13), Standing("P2", 1, 2, laid=10), Standing("P3", 3, 2, laid=12)], None)
    assert got == {"P1": (1, 2, 0), "P2": (2, 1, 1), "P3": (3, 0, 2)}


def test_bad_counts_are_named():
    with pytest.raises(LigrettoError, match="2 to 4"):
        rank_round([Standing(f"P{i}", 1, 2) for i in range(5)], None)
    with pytest.raises(LigrettoError, match="with 3 cards left"):
        rank_round([Standing("P1", 3, 2), Standing("P2", 1, 2)], "P1")
    with pytest.raises(LigrettoError, match="once"):
        rank_round([Standing("P1", 0, 2), Standing("P1", 1, 2)], "P1")


def test_when_everyone_has_cards_aside_all_take_off_as_many_as_the_fewest():
    assert reduce_aside({"P1": 3, "P2": 1, "P3": 2}) == {"P1": 2, "P2": 0, "P3": 1}
    assert reduce_aside({"P1": 0, "P2": 2}) == {"P1": 0, "P2": 2}


def test_a_match_adds_chips_carries_cards_aside_and_ends_after_its_rounds():
    m = BoardMatch(["P1", "P2"], BoardOptions(rounds=2))
    m.add_round(rank_round([Standing("P1", 0, 2), Standing("P2", 4, 2)], "P1"))
    assert (m.chips, m.aside, m.cards_for("P2")) == ({"P1": 2, "P2": 0}, {"P1": 0, "P2": 2}, 13)
    m.add_round(rank_round([Standing("P1", 2, 2), Standing("P2", 0, 1)], "P2"))
    assert m.aside == {"P1": 0, "P2": 0}  # both had cards aside: both took two off
    assert m.is_over() and m.chips == {"P1": 2, "P2": 2}
    with pytest.raises(LigrettoError, match="over"):
        m.add_round([])
    small = BoardMatch(["P1", "P2"], BoardOptions(cards=2))
    small.add_round(rank_round([Standing("P1", 0, 2), Standing("P2", 1, 2)], "P1"))
    assert small.cards_for("P2") == 1  # never the last card aside


def test_a_round_ranks_from_the_board():
    r = rnd(cards={"P1": 1})
    r.place("P2", ("blue", "yellow"), [(3, 1), (4, 1)], 1)  # a mistake, left lying
    with pytest.raises(LigrettoError, match="still being played"):
        r.ranks()
    r.place("P1", ("yellow", "red"), [(1, 2), (2, 2)], 2)
    got = {e.player: (e.place, e.cards_left, e.jokers_left, e.chips, e.aside) for e in r.rank_events(60)}
    assert got == {"P1": (1, 0, 2, 2, 0), "P3": (2, 15, 2, 1, 1), "P2": (3, 14, 2, 0, 2)}
    buf = io.StringIO()
    write_events([e.to_event() for e in r.rank_events(60)], buf)
    first = json.loads(buf.getvalue().splitlines()[0])
    assert set(first) == {"type", "frame", "player", "place", "cards_left", "jokers_left", "chips", "aside"}


def test_a_wrong_last_card_still_calls_stop_and_ranks_its_player_last():
    r = rnd(cards={"P2": 1}, n=2)
    out = r.place("P2", ("blue", "yellow"), [(3, 1), (4, 1)], 1)
    assert out[-1].type == "round_end" and r.ender == "P2"
    assert [(x.player, x.place) for x in r.ranks()] == [("P1", 1), ("P2", 2)]
    with pytest.raises(LigrettoError, match="not play at this table"):
        r.judge("P9", ("red", "green"), [(0, 0), (1, 0)])


# ---- many simulated rounds, checked from their logs ------------------------------------------------------
# The sim plays through the rules engine, so asking the engine again about its log proves nothing.
# These read each log as a referee's would be read, by its events and the board's colours alone
# (`walk`, `counted`), and check them against RULES.md §2 written out anew here.
SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROUNDS = st.tuples(st.sampled_from([2, 3, 4]), st.integers(0, 2**31 - 1), st.sampled_from([0.0, 0.15]),
                   st.booleans())


@lru_cache(maxsize=256)
def sim(n, seed, mistakes, small):
    """One simulated round; `small`: a board so small that nobody can play is likely."""
    board = random_board(random.Random(seed), 7, 5) if small else None
    table = BoardSimTable(n, seed=seed, style=BoardBotStyle(mistakes=mistakes), board=board)
    return table, table.run()


def edge(a, b):
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def corner(a, b):
    return abs(a[0] - b[0]) == 1 == abs(a[1] - b[1])


@dataclass
class Seen:
    """What a log has shown so far: where the tokens stand, what lies on each field (whose, legal
    or not, last laid last), which token a player's joker holds."""
    board: Board
    tokens: dict = field(default_factory=dict)
    under: dict = field(default_factory=dict)  # field -> [(player, legal), ...]
    holder: dict = field(default_factory=dict)  # token -> player

    def free(self, cell):
        return not self.under.get(cell) and cell not in self.tokens.values()

    def kinds_beside(self, cell, taken=()):
        """The cards (colour pairs) that two free fields beside `cell` would take."""
        b = self.board
        return {kind(b.colour(n), b.colour(m)) for n in b.edge_neighbours(cell) if self.free(n) and n not in taken
                for m in b.edge_neighbours(n) if self.free(m) and m not in taken and b.colour(n) != b.colour(m)}

    def blocked(self, cell):
        return not self.kinds_beside(cell)

    def open_to(self, player):
        """Fields of tokens the player may lay beside, as far as the log tells (never more): the one
        their own joker holds, else all but those another's joker holds; none in a cul-de-sac."""
        mine = [t for t, p in self.holder.items() if p == player and not self.blocked(self.tokens[t])]
        ids = mine or [t for t in self.tokens if t not in self.holder]
        return [self.tokens[t] for t in ids if not self.blocked(self.tokens[t])]

    def see(self, e, moved):
        if e.type == "token":
            self.tokens[e.token] = e.cell
        elif e.type in ("place", "joker"):
            was = {t for t in self.holder if self.blocked(self.tokens[t])}
            for c in e.cells if e.type == "place" else [e.cell]:
                self.under.setdefault(c, []).append((e.player, e.legal))
            if moved is None:
                return
            self.tokens[moved.token] = moved.cell
            if e.type == "joker":
                self.holder[moved.token] = e.player
            else:
                self.holder.pop(moved.token, None)
            for t in [t for t in self.holder if (t == moved.token or t not in was) and self.blocked(self.tokens[t])]:
                del self.holder[t]  # the play left it in a cul-de-sac: that rule takes over from the joker's
        elif e.type == "takeback":
            for c in e.cells:
                lying = self.under[c]
                lying.pop(max(i for i, (p, _) in enumerate(lying) if p == e.player))
            for t in [t for t, p in self.holder.items() if p == e.player and self.tokens[t] in e.cells]:
                del self.holder[t]  # a joker taken back


def walk(table, events):
    """Each event with what the log had shown before it (valid until the next) and the token event
    its card or joker made (the one after it in the same frame), or None."""
    seen = Seen(table.board)
    for i, e in enumerate(events):
        nxt = events[i + 1] if i + 1 < len(events) else None
        moved = nxt if e.type in ("place", "joker") and nxt and nxt.type == "token" and nxt.frame == e.frame else None
        yield e, seen, moved
        seen.see(e, moved)


@dataclass
class Count:
    cards_left: int
    jokers_left: int
    laid: int  # cards lying legally
    mistake: bool  # an illegal card or joker left lying


def counted(table, events) -> dict:
    """Each player's count at the end, from the log and the cards the sim dealt."""
    lying = []  # (player, fields, joker, legal, counts): counts is False for a card after the stop
    for e in events:
        if e.type in ("place", "joker"):
            cells = frozenset(e.cells if e.type == "place" else [e.cell])
            lying.append((e.player, cells, e.type == "joker", e.legal, e.reason != "after-stop"))
        elif e.type == "takeback":
            del lying[max(i for i, l in enumerate(lying) if l[:2] == (e.player, frozenset(e.cells)))]
    out = {}
    for p in table.bots:
        mine = [l for l in lying if l[0] == p and l[4]]
        out[p] = Count(len(table.dealt[p]) - sum(not l[2] for l in mine), 2 - sum(l[2] for l in mine),
                       sum(l[3] and not l[2] for l in mine), any(not l[3] for l in mine))
    return out


@SETTINGS
@given(ROUNDS)
def test_every_simulated_round_ends_once_and_its_log_is_in_frame_order(args):
    table, events = sim(*args)
    types = Counter(e.type for e in events)
    assert not table.timed_out and types["rank"] == args[0] and events[-1].type == "rank"
    assert types["round_end"] + types["round_blocked"] == 1
    assert [e.frame for e in events] == sorted(e.frame for e in events)


@SETTINGS
@given(ROUNDS)
def test_no_two_legal_cards_or_jokers_ever_cover_one_field(args):
    table, events = sim(*args)
    covered = Counter(c for e in events if e.type == "place" and e.legal for c in e.cells)
    covered.update(e.cell for e in events if e.type == "joker")
    assert covered and max(covered.values()) == 1


@SETTINGS
@given(ROUNDS)
def test_every_legal_card_and_joker_fits_the_board_and_moves_its_token_as_the_rules_say(args):
    table, events = sim(*args)
    for e, seen, moved in walk(table, events):
        if e.type == "joker" and e.legal:  # on a free field beside the token it takes
            assert moved is not None and moved.cell == e.cell and seen.free(e.cell)
            assert edge(e.cell, seen.tokens[moved.token])
        if e.type != "place" or not e.legal:
            continue
        assert all(seen.free(c) for c in e.cells)  # covers no card, joker or token
        assert tuple(table.board.colour(c) for c in e.cells) == tuple(e.card.split("+"))  # the right way round
        assert moved is not None and moved.cell in e.cells
        old = seen.tokens[moved.token]
        near = [c for c in e.cells if edge(c, old)]
        if not near:  # a cul-de-sac's card, anywhere: the token it carries could go nowhere
            assert seen.blocked(old)
        else:  # beside a token open to the player, the token onto the farther half
            assert old in seen.open_to(e.player)
            assert len(near) == 1 and moved.cell != near[0] and not edge(moved.cell, old)


@SETTINGS
@given(ROUNDS)
def test_each_illegal_card_is_wrong_for_the_reason_its_place_event_gives(args):
    table, events = sim(*args)
    for e, seen, _ in walk(table, events):
        if e.type != "place" or e.legal or e.reason == "after-stop":
            continue
        fields, colours = tuple(table.board.colour(c) for c in e.cells), tuple(e.card.split("+"))
        assert (e.reason == "covers-card") == (not all(seen.free(c) for c in e.cells))  # first checked
        if e.reason in ("not-adjacent", "corner-only"):
            assert not any(edge(c, t) for t in seen.open_to(e.player) for c in e.cells)
        if e.reason == "corner-only":
            assert any(corner(c, t) for t in seen.tokens.values() for c in e.cells)
        if e.reason == "colour-mismatch":
            assert sorted(fields) != sorted(colours)
        if e.reason == "swapped":
            assert fields == colours[::-1] != colours


@SETTINGS
@given(ROUNDS)
def test_tokens_stand_apart_on_a_legal_card_or_joker_or_where_they_were_set_up(args):
    table, events = sim(*args)
    starts = {e.token: e.cell for e in events if e.type == "token" and e.frame == 0}
    for _, seen, _ in walk(table, events):
        for t, cell in seen.tokens.items():
            assert any(legal for _, legal in seen.under.get(cell, [])) or cell == starts[t]
        assert len(set(seen.tokens.values())) == len(seen.tokens)


@SETTINGS
@given(ROUNDS)
def test_after_a_joker_only_its_owner_moves_that_token_on_unless_it_is_blocked(args):
    table, events = sim(*args)
    for e, seen, moved in walk(table, events):
        if e.type == "place" and moved is not None and moved.token in seen.holder:
            assert e.player == seen.holder[moved.token] or seen.blocked(seen.tokens[moved.token])


@SETTINGS
@given(ROUNDS)
def test_ranks_follow_from_the_counts_the_log_shows(args):
    table, events = sim(*args)
    n, count = args[0], counted(table, events)
    ranks = {e.player: e for e in events if e.type == "rank"}
    ender = next((e.player for e in events if e.type == "round_end"), None)
    assert set(ranks) == set(table.bots)
    for p, e in ranks.items():
        assert (e.cards_left, e.jokers_left) == (count[p].cards_left, count[p].jokers_left)
        assert (e.chips, e.aside) == AWARDS[n][e.place - 1]
    clean = [p for p in ranks if not count[p].mistake]
    assert all(ranks[p].place == n for p in ranks if p not in clean)  # mistakes share the last place
    if ender is not None:  # the stop caller first, unless they erred
        first = [ender] if ender in clean else []
    else:  # nobody could play: the most cards laid, then fewer jokers used
        best = max(((count[p].laid, count[p].jokers_left) for p in clean), default=None)
        first = [p for p in clean if (count[p].laid, count[p].jokers_left) == best]
    assert all(ranks[p].place == 1 for p in first)
    rest = [p for p in clean if p not in first]
    behind = {p: (count[p].cards_left, -count[p].jokers_left) for p in rest}  # fewest left, then fewer jokers used
    for p in rest:  # a shared place skips the next
        assert ranks[p].place == 1 + len(first) + sum(behind[q] < behind[p] for q in rest)


@SETTINGS
@given(ROUNDS)
def test_no_card_is_created_or_lost(args):
    table, _ = sim(*args)
    for p in table.bots:
        assert table.all_cards_of(p) == table.dealt[p]


def test_bots_told_to_make_mistakes_make_every_kind_and_take_some_back():
    seen, takebacks = Counter(), 0
    for seed in range(12):
        _, events = sim(2 + seed % 3, seed, 0.15, False)
        illegal = {(e.player, frozenset(e.cells)) for e in events if e.type == "place" and not e.legal}
        seen.update(e.reason for e in events if e.type == "place" and not e.legal)
        for e in events:
            if e.type == "takeback":
                takebacks += 1
                assert (e.player, frozenset(e.cells)) in illegal
    assert set(seen) == {str(r) for r in BoardReason} and takebacks > 0


def test_a_round_nobody_can_play_ends_with_no_card_held_that_fits_beside_a_token_or_beyond_a_joker():
    ends = [(t, ev) for t, ev in (sim(4, seed, 0.0, True) for seed in range(12))
            if any(e.type == "round_blocked" for e in ev)]
    assert ends
    for table, events in ends:
        seen = next(seen for e, seen, _ in walk(table, events) if e.type == "round_blocked")
        count = counted(table, events)
        for bot in table.bots.values():
            for card in {kind(*c) for c in bot.held()}:
                for t in seen.open_to(bot.id):
                    assert card not in seen.kinds_beside(t)
                    if count[bot.id].jokers_left:
                        assert not any(card in seen.kinds_beside(j, taken=[j]) for j in table.board.edge_neighbours(t)
                                       if seen.free(j))


def test_cul_de_sacs_and_jokers_one_after_the_other_happen_in_simulated_rounds():
    relocations = jokers = second_jokers = 0
    for seed in range(8):
        table, events = sim(4, seed, 0.0, False)
        for e, seen, moved in walk(table, events):
            if e.type == "joker":
                jokers += 1
                second_jokers += seen.holder.get(moved.token) == e.player
            elif e.type == "place" and e.legal and not any(edge(c, seen.tokens[moved.token]) for c in e.cells):
                relocations += 1
    assert relocations > 0 and jokers > 0 and second_jokers > 0


def test_simulated_logs_are_read_back_by_the_projects_log_reader(tmp_path):
    """Written with the card game's writer, read (and every line checked) with game="board"."""
    ends = Counter()
    for seed in range(6):
        _, events = sim(2 + seed % 3, seed, 0.15, seed % 2 == 1)
        path = tmp_path / f"{seed}.jsonl"
        with path.open("w") as f:
            write_events([e.to_event() for e in events], f)
        back = read_log(path, game="board")
        assert [e.to_json() for e in back] == [{**e.to_event().to_json(), "_line": i + 1} for i, e in enumerate(events)]
        ends.update(e.type for e in back if e.type in ("round_end", "round_blocked"))
    assert set(ends) == {"round_end", "round_blocked"} and sum(ends.values()) == 6


def test_same_seed_same_round_other_seed_other_round():
    def log(seed):
        return [e.to_event().to_json() for e in BoardSimTable(3, seed=seed).run()]
    assert log(5) == log(5) != log(6)


def test_cards_put_aside_are_cards_not_dealt():
    table = BoardSimTable(3, seed=2, cards={"P2": 12})
    assert len(table.dealt["P2"]) == 12 and len(table.dealt["P1"]) == 15
    table.run()
    assert table.all_cards_of("P2") == table.dealt["P2"]


def test_a_simulated_match_carries_cards_aside_and_someone_always_plays_all_fifteen():
    match, logs = play_match(3, seed=4, style=BoardBotStyle(mistakes=0.1))
    assert match.played == len(logs) == 6
    before = None  # cards aside after the last round's count, before any reduction
    for log in logs:
        ranks = {e.player: e for e in log if e.type == "rank"}
        # what each player was dealt, from the log: cards left + cards still lying that count
        lying = Counter(e.player for e in log if e.type == "place" and e.reason != "after-stop")
        lying.subtract(e.player for e in log if e.type == "takeback" and len(e.cells) == 2)
        aside = {p: 15 - ranks[p].cards_left - lying[p] for p in match.players}
        assert min(aside.values()) == 0  # "one of the players must always play with all 15 cards"
        if before is not None:  # all removed as many as the player with fewest
            assert {before[p] - aside[p] for p in match.players} == {min(before.values())}
        before = {p: aside[p] + ranks[p].aside for p in match.players}
    assert match.chips == {p: sum(e.chips for log in logs for e in log if e.type == "rank" and e.player == p)
                           for p in match.players}
