"""Unsure is a verdict: a card read too unsurely to judge is written unsure (no `legal`), lies on its
pile all the same, and neither it nor a card laid on it is ever called illegal."""
import json

import pytest

from ligretto_vision.events import apply_amendment
from ligretto_vision.rules import Card, Doubts, Round, RuleOptions, full_set, on_unsure_top, parse_card

C = ("red", "green", "blue", "yellow")


def card(s):
    return parse_card(s, C)


def rnd(n=3, **opts):
    return Round([f"P{i + 1}" for i in range(n)], RuleOptions(**opts), fps=30)


# ---- the pure rule: a card on a top read unsurely ------------------------------------------------------
def test_a_card_that_follows_an_unsure_top_as_read_is_legal_and_nothing_else_is_judged():
    top = card("red-5")
    assert on_unsure_top(card("red-6"), top).legal is True
    for other in ("red-5", "red-7", "blue-6", "red-1"):
        v = on_unsure_top(card(other), top)
        assert v.unsure and v.legal is None and v.reason is None and v.unsure_of == "pile-top", other


@pytest.mark.parametrize("top", ["red-1", "green-5", "yellow-9", "blue-10"])
def test_no_card_on_an_unsure_top_is_ever_called_illegal(top):
    assert not [c for c in full_set(C) if on_unsure_top(c, card(top)).legal is False]


# ---- a play read unsurely ----------------------------------------------------------------------------------
def test_an_unsure_play_is_written_without_legal_and_lies_on_its_pile_as_its_top():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    out = r.play("P2", card("blue-7"), 1, 40, sure=False)  # would be wrong-colour, read surely
    line = json.loads(json.dumps(out[0].to_json()))
    assert "legal" not in line and "reason" not in line
    assert (line["unsure"], line["unsure_of"], line["card"]) == (True, "card", "blue-7")
    assert r.piles["1"].top.card == card("blue-7") and not r.piles["1"].top.sure
    assert not r.piles["1"].strays
    assert (r.zones["P2"].played, r.zones["P2"].illegal) == (1, 0)  # laid, not illegal


@pytest.mark.parametrize("pile,kw", [(1, {}), (None, {}), (1, {"two_cards": True}), (1, {"source": "row"})])
def test_a_card_read_unsurely_is_never_called_illegal(pile, kw):
    r = rnd()
    # pile 1's top is red-1, and P2's row holds only green-2: read surely, most cards would be illegal
    r.load_state({"frame": 0, "piles": {"1": ["red-1"]}, "players": {"P2": {"stack": 10, "row": ["green-2"]}}}, C)
    for c in full_set(C):
        out = r.play("P2", c, pile, 40, sure=False, **kw)
        assert out[0].data.get("legal") is None and out[0].data["unsure"] is True, c
        r.takeback("P2", c, out[0].data["pile"], 41, to=kw.get("source"))


def test_a_card_read_unsurely_after_the_stop_is_not_judged_either():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    r.declare_end("P3", 10)
    assert r.play("P2", card("red-2"), 1, 500, sure=False)[0].data["unsure"] is True
    assert r.play("P1", card("red-3"), 1, 510)[0].data["reason"] == "after-stop"  # read surely: judged


def test_a_ten_read_unsurely_closes_nothing_and_a_card_like_the_top_read_unsurely_disputes_nothing():
    r = rnd()
    for i in range(1, 10):
        r.play("P1", card(f"green-{i}"), 1, i * 40)
    out = r.play("P2", card("green-10"), 1, 400, sure=False)
    assert [e.type for e in out] == ["play"]
    r.play("P1", card("red-1"), 2, 500)
    out = r.play("P2", card("red-1"), 2, 502, touch=499, sure=False)  # alike, almost together
    assert [e.type for e in out] == ["play"] and out[0].data["unsure"] is True


def test_the_stacks_last_card_laid_unsurely_ends_the_round():
    r = rnd(stack_size=1)
    out = r.play("P1", card("blue-4"), None, 30, source="stack", sure=False)
    assert [e.type for e in out] == ["play", "round_end"]


def test_an_unsure_card_taken_back_leaves_the_top_it_lay_on():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    r.play("P2", card("red-2"), 1, 40, sure=False)
    r.takeback("P2", card("red-2"), 1, 60)
    assert r.piles["1"].top.card == card("red-1") and r.piles["1"].top.sure
    assert r.judge("P3", card("red-3"), 1, 70).reason == "wrong-number"  # judged again against a sure top
    assert (r.zones["P2"].played, r.zones["P2"].illegal) == (0, 0)


# ---- the plays after it ----------------------------------------------------------------------------------
def test_the_next_play_on_an_unsure_top_is_legal_if_it_follows_it_else_not_judged():
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    r.play("P2", card("red-2"), 1, 40, sure=False)
    assert r.play("P3", card("red-3"), 1, 80)[0].data["legal"] is True
    assert r.piles["1"].top.sure  # read surely: the pile's top is known again

    r.play("P1", card("blue-1"), 2, 100)
    r.play("P2", card("blue-2"), 2, 140, sure=False)
    out = r.play("P3", card("yellow-5"), 2, 180)  # surely read, but what it lies on is not known
    assert out[0].data["unsure"] is True and out[0].data["unsure_of"] == "pile-top" and "legal" not in out[0].data
    assert r.zones["P3"].illegal == 0
    # it was not judged, so it is no firm top either (it may yet go back, showing what lay beneath):
    # a card that follows it is legal, anything else is not judged; once one follows, all is known again
    assert r.play("P1", card("blue-6"), 2, 220)[0].data.get("unsure") is True
    assert r.play("P2", card("blue-7"), 2, 260)[0].data["legal"] is True
    assert r.play("P3", card("yellow-9"), 2, 300)[0].data["reason"] == "wrong-colour"


def test_a_pile_found_with_its_top_read_unsurely_judges_nothing_against_it():
    r = rnd()
    pid = r.add_seen_pile(card("yellow-4"), 0, sure=False)
    assert len(r.piles[str(pid)].cards) == 4 and [c.sure for c in r.piles[str(pid)].cards] == [True] * 3 + [False]
    assert r.judge("P1", card("yellow-5"), pid, 10).legal is True
    assert r.judge("P1", card("yellow-7"), pid, 10).unsure
    sure = r.add_seen_pile(card("yellow-4"), 0)
    assert r.judge("P1", card("yellow-7"), sure, 10).reason == "wrong-number"


def test_a_stop_seen_late_does_not_judge_an_unsure_play_after_all():
    r = rnd(stack_size=1)
    r.play("P1", card("red-1"), 1, 0)
    r.play("P2", card("red-2"), 1, 100, sure=False)
    out = r.declare_end("P3", 10)  # the stop, seen late: a sure play laid at 100 would now be after-stop
    assert [e.type for e in out] == ["round_end"]
    assert r.zones["P2"].illegal == 0 and r.piles["1"].top.card == Card("red", 2)


# ---- a card called invalid and left lying ---------------------------------------------------------------
@pytest.mark.parametrize("doubt, gap_s, expect", [(1.5, 2.0, None), (1.5, 1.0, False), (None, 5.0, False)])
def test_a_card_called_invalid_and_left_lying_puts_its_pile_in_doubt(doubt, gap_s, expect):
    """An invalid card goes back at once; one the referee called invalid that still lies on the pile
    long after says the pile is not what the verdicts made it: the next card that does not follow
    the pile's top is written unsure, not illegal, and the pile goes on from it. Soon after, or for a
    simulation that knows the table (no doubt), it is judged as ever."""
    r = Round(["P1", "P2", "P3"], RuleOptions(), fps=30, doubts=Doubts(doubt))
    r.play("P1", card("red-1"), 1, 0)
    r.play("P1", card("red-2"), 1, 30)
    assert r.play("P2", card("red-4"), 1, 60)[0].data["legal"] is False  # called invalid, left lying
    out = r.play("P3", card("red-5"), 1, 60 + int(gap_s * 30))[0].data
    assert out.get("legal") is expect and out.get("unsure", False) is (expect is None)
    if expect is None:  # the pile goes on from what lies on it: no cascade of "illegal"s after one misread
        assert r.play("P1", card("red-6"), 1, 300)[0].data["legal"] is True


# ---- a call of illegal is borne out by the card going back -------------------------------------------------
def _called(confirm=5.0):
    r = Round(["P1", "P2", "P3"], RuleOptions(), fps=30, doubts=Doubts(confirm_s=confirm))
    r.play("P1", card("red-1"), 1, 0)
    wrong = r.play("P2", card("red-4"), 1, 30)[0]
    assert wrong.data["legal"] is False
    return r, wrong


def test_a_call_of_illegal_whose_card_stays_on_the_pile_is_amended_to_unsure():
    """An invalid card goes back at once (RULES). One the referee called invalid that nobody takes
    back was likelier misread than laid wrongly: once `confirm_s` has passed, the call is amended to
    unsure (legal and reason dropped), the card counts as laid and lies as the pile's top, no firm one."""
    r, wrong = _called()
    assert r.unconfirmed(30 + 150) == []  # not yet: the card may still go back
    out = r.unconfirmed(30 + 151)
    assert len(out) == 1 and out[0].type == "amend"
    now = apply_amendment(out[0], wrong).data
    assert "legal" not in now and "reason" not in now and now["unsure"] is True and now["unsure_of"] == "left-lying"
    assert (r.zones["P2"].illegal, r.zones["P2"].played) == (0, 1)
    assert r.piles["1"].top.card == card("red-4") and not r.piles["1"].top.sure
    assert r.unconfirmed(400) == []  # amended once
    # the pile goes on from it: what follows it is legal, anything else not judged
    assert r.play("P3", card("red-5"), 1, 410)[0].data["legal"] is True


def test_a_call_of_illegal_whose_card_is_taken_back_stands():
    r, wrong = _called()
    r.takeback("P2", card("red-4"), 1, 90)
    assert r.unconfirmed(1000) == [] and r.zones["P2"].illegal == 1
    assert r.piles["1"].top.card == card("red-1")


def test_a_card_gone_at_once_never_lay_there_so_its_going_confirms_no_call():
    """A card that leaves within `taken_least_s` of coming to rest was never laid (a card in a passing
    hand; one card taken for two in a dispute): the call of illegal is amended to unsure when due."""
    r = Round(["P1", "P2", "P3"], RuleOptions(), fps=30, doubts=Doubts(confirm_s=5.0, taken_least_s=0.4))
    r.play("P1", card("red-1"), 1, 0)
    quick = r.play("P2", card("red-4"), 1, 30)[0]
    slow = r.play("P3", card("red-7"), 1, 40)[0]
    r.takeback("P2", card("red-4"), 1, 35)  # gone a sixth of a second after it came to rest
    r.takeback("P3", card("red-7"), 1, 40 + 30)  # a second after: a call borne out
    out = r.unconfirmed(400)
    assert len(out) == 1 and apply_amendment(out[0], quick).data["unsure_of"] == "gone-at-once"
    assert (r.zones["P2"].illegal, r.zones["P3"].illegal) == (0, 1)
    assert r.piles["1"].top.card == card("red-1")  # it is gone: the pile's top is what lay before
    assert slow.data["legal"] is False


def test_a_call_still_waiting_when_the_feed_ends_is_amended_to_unsure():
    r, wrong = _called()
    assert r.unconfirmed(60) == []  # not due yet
    out = r.unconfirmed(60, ended=True)  # the recording ended two seconds after the card landed
    assert len(out) == 1 and apply_amendment(out[0], wrong).data["unsure_of"] == "left-lying"
    r2, _ = _called()
    r2.takeback("P2", card("red-4"), 1, 59)
    assert r2.unconfirmed(60, ended=True) == []  # seen going back: it stands


def test_a_call_amended_after_a_card_was_laid_over_it_leaves_that_card_the_top():
    r, wrong = _called()
    r.play("P3", card("red-2"), 1, 60)  # laid on the pile (judged against its red 1) before the amendment
    out = r.unconfirmed(400)
    assert apply_amendment(out[0], wrong).data["unsure"] is True and r.zones["P2"].illegal == 0
    assert r.piles["1"].top.card == card("red-2")


def test_a_simulation_that_knows_the_table_never_doubts_its_calls():
    r = Round(["P1", "P2"], RuleOptions(), fps=30)
    r.play("P1", card("red-1"), 1, 0)
    r.play("P2", card("red-4"), 1, 30)
    assert r.unconfirmed(10_000) == [] and r.zones["P2"].illegal == 1


def test_a_late_play_made_after_stop_by_a_stop_seen_late_needs_its_card_taken_back_too():
    """A stop seen late makes a play judged legal after-stop; that call, too, stands only if the card
    goes back (a stop seen wrongly would otherwise call every later card illegal)."""
    r = Round(["P1", "P2", "P3"], RuleOptions(), fps=30, doubts=Doubts(confirm_s=2.0))
    r.play("P1", card("red-1"), 1, 0)
    late = r.play("P2", card("red-2"), 1, 100)[0]
    out = r.declare_end("P3", 10)
    assert [e.type for e in out] == ["round_end", "amend"]
    back = r.unconfirmed(100 + 61)
    assert len(back) == 1 and apply_amendment(back[0], apply_amendment(out[1], late)).data.get("unsure") is True


# ---- a pile nobody read ----------------------------------------------------------------------------------
@pytest.mark.parametrize("first", ["red-7", "red-1", "blue-10"])
def test_the_first_card_on_a_pile_nobody_read_is_not_judged_and_the_next_is_judged_by_it(first):
    """A card landing on cards the watcher missed (a pile not found at the start, a card it could not
    read): what it lies on is not known, so it is written unsure, never 'wrong number' as if it began
    a pile; it then lies there as the pile's top and the next card is judged against it."""
    r = rnd()
    pid = r.add_unseen_pile()
    out = r.play("P1", card(first), pid, 10)[0].data
    assert out.get("unsure") is True and "legal" not in out and out["unsure_of"] == "pile-top"
    assert r.zones["P1"].illegal == 0 and r.piles[str(pid)].top.card == card(first)
    top = card(first)
    # it may yet be taken back, showing what lay beneath: a card that does not follow it is not judged
    assert r.play("P3", card("green-3"), pid, 40)[0].data.get("unsure") is True
    r.takeback("P3", card("green-3"), pid, 50)
    if top.number < 10:  # one that follows it is legal, and firm: the pile is known again from there
        assert r.play("P2", Card(top.colour, top.number + 1), pid, 60)[0].data["legal"] is True
        assert r.play("P3", card("green-3"), pid, 70)[0].data["legal"] is False
    # the same card where no pile is known begins one, and is judged so
    assert r.play("P1", card("red-7"), None, 100)[0].data["reason"] == "wrong-number"


def test_a_pile_whose_top_is_doubted_judges_only_what_follows_it():
    """The watcher saw a pile's top place change with no card seen laid there: its top is no longer
    known for sure. A card that follows it is legal and firm again; any other is not judged."""
    r = rnd()
    r.play("P1", card("red-1"), 1, 0)
    r.play("P2", card("red-2"), 1, 30)
    r.doubt_top(1)
    out = r.play("P3", card("red-4"), 1, 60)[0].data  # a red 3 was missed under it
    assert out.get("unsure") is True and "legal" not in out and r.zones["P3"].illegal == 0
    assert r.play("P1", card("red-5"), 1, 90)[0].data["legal"] is True
    assert r.play("P2", card("red-7"), 1, 120)[0].data["reason"] == "wrong-number"
    r.doubt_top(99)  # a pile the rules do not know: nothing to doubt, nothing breaks


# ---- after the stop: the gathering ------------------------------------------------------------------
@pytest.mark.parametrize("gathering", [True, False])
def test_after_the_stop_only_a_card_that_follows_its_pile_is_called_a_late_play(gathering):
    """After the stop the centre is gathered for the count. A card that follows its pile is a late
    play: illegal, after the stop. One that does not (a card uncovered when a pile was lifted, or
    a pile pushed aside) is written unsure, not 'after the stop', by a referee that only sees the
    table; a simulation that knows the table (no doubts) calls every play after the stop."""
    r = Round(["P1", "P2", "P3"], RuleOptions(stack_size=1), fps=30, doubts=Doubts(gathering=gathering))
    r.play("P1", card("red-1"), 1, 0)
    r.refill("P2", card("green-4"), 10)  # P2's stack is empty: Ligretto stop
    assert r.end is not None
    late = r.play("P3", card("red-2"), 1, 100)[0].data
    assert late["legal"] is False and late["reason"] == "after-stop"
    for i, (c, pile) in enumerate((("blue-6", 1), ("yellow-3", None), ("red-1", 1))):
        out = r.play("P1", card(c), pile, 130 + 30 * i)[0].data
        if gathering:
            assert out.get("unsure") is True and "legal" not in out, c
        else:
            assert out["reason"] == "after-stop", c
    # a 1 laid on bare cloth after the stop is a late play either way
    assert r.play("P3", card("green-1"), None, 300)[0].data["reason"] == "after-stop"
