"""Rule options a table agrees on: the official variants and the house rules tables really play.

A pydantic dataclass, so the same definition validates the `[rules]` table of the
config file and scene.json's `rules`, and unknown keys are refused, not ignored.
"""
from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from ligretto_vision.rules.cards import check_player_count


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class RuleOptions:
    ten: Literal["face-up", "face-down"] = "face-up"  # a 10 closes its pile, some tables turn it over
    grace_s: float = Field(1.0, ge=0, le=10)  # after the stop call a card already in hand may still land
    stack_size: int = Field(10, ge=1, le=30)  # Ligretto stack; house rule e.g. 12
    row_size: int | None = Field(None, ge=1, le=8)  # None: 5 / 4 / 3 by player count
    two_player_big: bool = False  # two players mix two sets each: 20-card stack, 6-card row (000 §1.3)
    hand_count: Literal[1, 3] = 3  # hand cards turned over three at a time, or one (000 §2.4.3)
    profi: bool = False  # the row becomes storage (001, 002, 004)
    stack_penalty: int = Field(2, ge=0, le=10)  # minus points per card left in the stack; house rule 3
    ten_points: int = Field(1, ge=0, le=5)  # a 10 in the centre scores this much; house rule 2
    illegal_penalty: int = Field(0, ge=0, le=5)  # house rule: a point off per illegal play
    max_piles: int | None = Field(None, ge=1, le=60)  # house rule: a limit on centre piles
    handicap: bool = False  # whoever ended the last round lays one more stack card (000 §3.6)
    dispute_window_s: float = Field(0.5, gt=0, le=2)  # "almost together" for two cards of one value

    def row_length(self, n_players: int) -> int:
        check_player_count(n_players)
        if self.row_size is not None:
            return self.row_size
        if n_players == 2:
            return 6 if self.two_player_big else 5
        return 4 if n_players == 3 else 3

    def stack_length(self, n_players: int) -> int:
        check_player_count(n_players)
        return 20 if (n_players == 2 and self.two_player_big) else self.stack_size
