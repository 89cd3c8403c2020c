"""Why a play is illegal, or why it was not judged: one code per reason, with the words a player reads.

The codes are what a log's `reason` holds. SCENES.md names four of them; the others are the
rules' own, given where the watcher knows more (where a card came from, a house limit).
The panel shows `text` where there is room (the alert) and `said` in the list of last plays.
"""
from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    WRONG_COLOUR = "wrong-colour"
    WRONG_NUMBER = "wrong-number"
    AFTER_STOP = "after-stop"
    TWO_CARDS = "two-cards"
    NOT_PLAYABLE = "not-playable"  # the card is not the stack top, in the row or the discard top
    NOT_OWN_CARD = "not-own-card"  # its back belongs to another player
    TOO_MANY_PILES = "too-many-piles"  # house rule: a limit on centre piles

    @property
    def text(self) -> str:
        """Why, said so a player understands it."""
        return _TEXT[self]

    @property
    def said(self) -> str:
        """The same, short enough for the list of last plays."""
        return _SAID[self]

    @property
    def in_scenes(self) -> bool:
        """One of the reasons the log format (SCENES.md) names."""
        return self in SCENE_REASONS


SCENE_REASONS = frozenset({Reason.WRONG_COLOUR, Reason.WRONG_NUMBER, Reason.AFTER_STOP, Reason.TWO_CARDS})

_TEXT = {
    Reason.WRONG_COLOUR: "the card's colour is not the pile's colour",
    Reason.WRONG_NUMBER: "the card is not one higher than the pile's top card",
    Reason.AFTER_STOP: "it was laid after \u201cLigretto Stop!\u201d and its grace time",
    Reason.TWO_CARDS: "two cards were laid at once",
    Reason.NOT_PLAYABLE: "it was not the stack top, a row card or the discard top",
    Reason.NOT_OWN_CARD: "it is another player's card",
    Reason.TOO_MANY_PILES: "the house limit of centre piles is reached",
}
_SAID = {
    Reason.WRONG_COLOUR: "wrong colour",
    Reason.WRONG_NUMBER: "not one higher",
    Reason.AFTER_STOP: "after the stop",
    Reason.TWO_CARDS: "two cards at once",
    Reason.NOT_PLAYABLE: "not a card they may play",
    Reason.NOT_OWN_CARD: "another player's card",
    Reason.TOO_MANY_PILES: "too many piles",
}


class UnsureOf(StrEnum):
    """Why a play was written unsure (a log's `unsure_of`): the referee would rather say "check
    this card" than call a legal play illegal."""
    CARD = "card"  # the card itself was read too unsurely
    PILE_TOP = "pile-top"  # the card under it was
    LEFT_LYING = "left-lying"  # called illegal, but nobody took it back
    GONE_AT_ONCE = "gone-at-once"  # called illegal, but gone before it could have lain there

    def text(self, pile: object = None, confidence: object = None) -> str:
        """Why, said so a player understands it (`pile`, `confidence`: the play's, if known)."""
        if self is UnsureOf.LEFT_LYING:
            return "it was called illegal, but nobody took it back: perhaps it was misread, check it"
        if self is UnsureOf.GONE_AT_ONCE:
            return "it was called illegal, but it was gone at once: perhaps it never lay there, check it"
        if self is UnsureOf.PILE_TOP:
            return f"the card under it (pile {pile}'s top) was read too unsurely to judge it by"
        sure = f" ({round(100 * confidence)} % sure)" if isinstance(confidence, (int, float)) else ""
        return f"it was read too unsurely to judge{sure}"


def reason_of(code: str | None) -> Reason | None:
    """The reason a log's code names, or None for a code the rules do not know."""
    try:
        return Reason(code)
    except ValueError:
        return None


def reason_text(code: str | None) -> str:
    """A reason code in a sentence's words; an unknown code as it is written."""
    reason = reason_of(code)
    return reason.text if reason else str(code)


def reason_words(code: str | None) -> str:
    """A reason code in a few words ("wrong-number" -> "not one higher"); an unknown code made readable."""
    if not code:
        return "not allowed"
    reason = reason_of(code)
    return reason.said if reason else str(code).replace("-", " ").replace("_", " ")


def unsure_text(code: str | None, pile: object = None, confidence: object = None) -> str:
    """Why a play was not judged, in a sentence's words; no code, or one the rules do not know,
    as the card's own (read too unsurely)."""
    try:
        why = UnsureOf(code or UnsureOf.CARD)
    except ValueError:
        why = UnsureOf.CARD
    return why.text(pile, confidence)
