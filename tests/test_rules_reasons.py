"""The reasons of an illegal play: one code each, as logs write them, with a player's words."""
import json

from ligretto_vision.rules import Reason, Round, RuleOptions, parse_card
from ligretto_vision.rules.reasons import SCENE_REASONS, UnsureOf, reason_text, reason_words, unsure_text


def test_the_codes_are_those_logs_hold_and_scenes_md_names_four():
    assert [r.value for r in Reason] == ["wrong-colour", "wrong-number", "after-stop", "two-cards",
                                         "not-playable", "not-own-card", "too-many-piles"]
    assert {r.value for r in SCENE_REASONS} == {"wrong-colour", "wrong-number", "after-stop", "two-cards"}
    assert Reason.AFTER_STOP.in_scenes and not Reason.TOO_MANY_PILES.in_scenes


def test_every_reason_has_a_sentence_and_a_few_words():
    for r in Reason:
        assert r.text and r.said and len(r.said) < len(r.text)
    assert Reason.WRONG_NUMBER.said == "not one higher"
    assert Reason.AFTER_STOP.text == "it was laid after \u201cLigretto Stop!\u201d and its grace time"
    assert reason_words("two-cards") == "two cards at once" and reason_text("wrong-colour") == Reason.WRONG_COLOUR.text


def test_an_unknown_code_is_still_shown_readably():
    assert reason_words("fell_off-table") == "fell off table" and reason_words(None) == "not allowed"
    assert reason_text("illegal") == "illegal"


def test_a_judged_play_writes_the_plain_code():
    r = Round(["P1", "P2"], RuleOptions(), fps=30)
    out = r.play("P1", parse_card("red-2", ("red", "green", "blue", "yellow")), None, 5)
    assert out[0].data["reason"] == "wrong-number" and type(out[0].data["reason"]) is str
    assert json.dumps(out[0].to_json()).endswith('"legal": false, "reason": "wrong-number"}')


def test_every_unsure_code_says_why_in_words_and_logs_write_the_plain_code():
    assert [u.value for u in UnsureOf] == ["card", "pile-top", "left-lying", "gone-at-once"]
    assert len({u.text(3, 0.6) for u in UnsureOf}) == len(UnsureOf)
    assert UnsureOf.CARD.text(confidence=0.6).endswith("(60 % sure)") and "pile 3's top" in UnsureOf.PILE_TOP.text(3)
    assert unsure_text("gone-at-once") == UnsureOf.GONE_AT_ONCE.text() and unsure_text(None) == unsure_text("new-code")
    r = Round(["P1", "P2"], RuleOptions(), fps=30)
    out = r.play("P1", parse_card("red-1", ("red", "green", "blue", "yellow")), None, 5, sure=False)
    assert out[0].data["unsure_of"] == "card" and type(out[0].data["unsure_of"]) is str
