"""What a board-game table agrees on (RULES.md §2): scene.json's `rules` for a board scene.

A pydantic dataclass like the card game's RuleOptions, so unknown keys are refused, not ignored.
"""
from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class BoardOptions:
    # 003 (English, last note): "those playing decide whether it counts as a mistake or to turn a
    # blind eye". "mistake" as the sample scenes say; "allowed": a swapped card is legal
    swapped: Literal["mistake", "allowed"] = "mistake"
    cards: int = Field(15, ge=1, le=15)  # per player (003 "Game preparation")
    jokers: int = Field(2, ge=0, le=2)
    rounds: int = Field(6, ge=1, le=99)  # "we recommend playing six rounds"
    one_colour_cards: bool = False  # a set whose cards may show one colour twice (board.card_kinds)
