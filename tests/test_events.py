"""The event log's amendments: a correction is a new event; a log that still holds the target folds it in."""
import io
import json

import pytest

from ligretto_vision.errors import LigrettoError
from ligretto_vision.events import Event, amendment, check_event, fold_amendments, read_log, write_events


def play(frame, player, card_, pile, **more):
    return Event("play", frame, {"player": player, "card": card_, "pile": pile, "legal": True, **more})


def test_an_amendment_names_its_target_by_type_frame_and_required_keys():
    target = play(140, "P2", "red-3", 1, touch=138, at=[1.0, 2.0, 3.0])
    amend = amendment(target, legal=False, reason="after-stop")
    assert amend.type == "amend" and amend.frame == 140
    assert amend.data == {"of": {"type": "play", "frame": 140, "player": "P2", "card": "red-3", "pile": 1},
                          "legal": False, "reason": "after-stop"}


def test_folding_applies_an_amendment_to_its_held_target_in_place():
    first, target, later = play(100, "P1", "red-1", 1), play(140, "P2", "red-2", 1, touch=138), play(150, "P3", "blue-1", 2)
    sent = target.to_json()
    held = [first, target, later, amendment(target, legal=False, reason="after-stop")]
    out = fold_amendments(held)
    assert [e.to_json() for e in out] == [first.to_json(),
                                          {**sent, "legal": False, "reason": "after-stop"}, later.to_json()]
    # the keys keep their order (the amended line reads as the old in-place edit wrote it), the held event is not touched
    assert list(out[1].data) == ["player", "card", "pile", "legal", "touch", "reason"]
    assert target.to_json() == sent


def test_folding_leaves_out_a_withdrawn_target():
    closed = Event("pile_closed", 140, {"pile": 1, "face": "face-up"})
    ten = play(140, "P2", "red-10", 1)
    out = fold_amendments([ten, closed, amendment(closed, why_withdrawn="after-stop")])
    assert out == [ten]


def test_an_amendment_whose_target_was_sent_already_goes_out_itself():
    target = play(140, "P2", "red-2", 1)
    amend = amendment(target, legal=False, reason="after-stop")
    other = play(140, "P3", "red-2", 4)  # the same card and frame on another pile is another event
    assert fold_amendments([other, amend]) == [other, amend]
    assert fold_amendments([]) == []


def test_an_amendment_sent_after_later_events_keeps_the_log_in_frame_order():
    """A stop seen late amends a play written out already: the amend line comes at the frame last
    written, never before it, and still names its play by that play's own frame."""
    target = play(140, "P2", "red-2", 1)
    amend = amendment(target, legal=False, reason="after-stop")
    later = play(190, "P1", "blue-5", 2)
    out = fold_amendments([amend, later], sent_up_to=175)
    assert [(e.type, e.frame) for e in out] == [("amend", 175), ("play", 190)]
    assert out[0].data["of"]["frame"] == 140


def test_an_amend_line_is_read_checked_and_written_back():
    amend = amendment(play(140, "P2", "red-2", 1), legal=False, reason="after-stop")
    out = io.StringIO()
    write_events([amend], out)
    assert check_event(json.loads(out.getvalue())).data == amend.data
    with pytest.raises(ValueError, match="'of' must name an event"):
        check_event({"type": "amend", "frame": 3, "of": {"frame": 3}})
    with pytest.raises(ValueError, match="missing of"):
        check_event({"type": "amend", "frame": 3})


def test_a_log_with_an_amend_line_reads(tmp_path):
    target = play(140, "P2", "red-2", 1)
    path = tmp_path / "log.jsonl"
    with path.open("w") as f:
        write_events([target, amendment(target, legal=False, reason="after-stop")], f)
    events = read_log(path)
    assert [e.type for e in events] == ["play", "amend"]
    folded = fold_amendments(events)
    assert folded[0].data["legal"] is False and folded[0].data["_line"] == 1  # the play's own line is named
    path.write_text('{"type": "amend", "frame": 5, "of": "play"}\n')
    with pytest.raises(LigrettoError, match=r"log.jsonl:1: amend at frame 5"):
        read_log(path)


def _log(tmp_path, *objs):
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    return path


def test_a_board_log_reads_with_its_own_types_and_a_card_log_still_refuses_them(tmp_path):
    """BOARD-SCENES.md's types, its takeback lifting cells; the card game's takeback still needs card and pile."""
    board = [{"type": "token", "frame": 0, "token": "T1", "cell": [2, 1]},
             {"type": "place", "frame": 5, "player": "P1", "card": "red+green", "cells": [[3, 1], [4, 1]],
              "legal": True, "reason": None},
             {"type": "joker", "frame": 9, "player": "P2", "cell": [5, 1]},
             {"type": "takeback", "frame": 20, "player": "P2", "cells": [[5, 1]]},
             {"type": "round_blocked", "frame": 30},
             {"type": "rank", "frame": 90, "player": "P1", "place": 1, "cards_left": 14, "jokers_left": 2,
              "chips": 2, "aside": 0}]
    assert [e.type for e in read_log(_log(tmp_path, *board), game="board")] == [o["type"] for o in board]
    with pytest.raises(LigrettoError, match="unknown event type 'place'"):
        read_log(_log(tmp_path, board[1]))
    with pytest.raises(LigrettoError, match="missing card, pile"):
        read_log(_log(tmp_path, board[3]))
    with pytest.raises(LigrettoError, match="missing cells"):
        read_log(_log(tmp_path, {"type": "takeback", "frame": 3, "player": "P1", "card": "red-3", "pile": 1}),
                 game="board")
    with pytest.raises(LigrettoError, match="unknown event type 'play'"):
        read_log(_log(tmp_path, {"type": "play", "frame": 3, "player": "P1", "card": "red-3", "pile": 1}),
                 game="board")
    with pytest.raises(LigrettoError, match="no event log for a game 'chess'"):
        read_log(_log(tmp_path, board[0]), game="chess")
