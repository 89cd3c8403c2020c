"""Round scores and match totals (RULES.md §1 "Scoring", 000 §3.4–3.6)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ligretto_vision.rules.cards import Card
from ligretto_vision.rules.options import RuleOptions

SETUP_RESHUFFLE_SUM = 30  # 000 §1.2.3


def round_score(centre: int, stack: int, options: RuleOptions | None = None, *,
                tens: int = 0, illegal: int = 0) -> int:
    """+1 per own card in the centre, minus `stack_penalty` per card left in the Ligretto stack.

    House rules: a 10 in the centre scores `ten_points` instead of 1; `illegal_penalty`
    per illegal play. With default options this is exactly centre - 2 * stack.
    """
    o = options or RuleOptions()
    if min(centre, stack, tens, illegal) < 0 or tens > centre:
        raise ValueError("counts cannot be negative, and the tens are among the centre cards")
    return centre + tens * (o.ten_points - 1) - o.stack_penalty * stack - o.illegal_penalty * illegal


def may_reshuffle(visible: list[Card]) -> bool:
    """Set-up check: the four visible cards (stack top + row) summing to 30 or more may be reshuffled."""
    return sum(c.number for c in visible) >= SETUP_RESHUFFLE_SUM


def profi_row_store(card: Card, onto: Card | None) -> str | None:
    """Profi variant: may `card` be stored on the row card `onto`? None if yes, else the reason."""
    if onto is None:
        return None  # an empty place in the row takes any card
    if card.number != onto.number - 1:
        return "row-not-one-lower"
    if card.colour == onto.colour:
        return "row-same-colour"
    return None


def handicap_stack_sizes(sizes: dict[str, int], ender: str | None) -> dict[str, int]:
    """000 §3.6: whoever ended the round lays one more stack card next time; once every
    player lays at least 11, everyone lays one fewer."""
    new = dict(sizes)
    if ender is not None:
        new[ender] += 1
    if all(n >= 11 for n in new.values()):
        new = {p: n - 1 for p, n in new.items()}
    return new


@dataclass
class MatchGoal:
    """How long a match lasts (000 §3.4): a number of rounds, a target score, a time, or endless."""
    kind: Literal["rounds", "target", "minutes", "endless"] = "target"
    value: int = 99

    def __post_init__(self):
        if self.kind not in ("rounds", "target", "minutes", "endless"):
            raise ValueError(f"unknown match goal {self.kind!r}")
        if self.kind != "endless" and self.value <= 0:
            raise ValueError("a match goal needs a positive number")


@dataclass
class Match:
    players: list[str]
    goal: MatchGoal = field(default_factory=MatchGoal)
    rounds: list[dict[str, int]] = field(default_factory=list)
    joined: dict[str, int] = field(default_factory=dict)  # late joiners' starting scores

    def totals(self) -> dict[str, int]:
        tot = {p: self.joined.get(p, 0) for p in self.players}
        for r in self.rounds:
            for p, s in r.items():
                tot[p] += s
        return tot

    def add_round(self, scores: dict[str, int]) -> None:
        unknown = set(scores) - set(self.players)
        if unknown:
            raise ValueError(f"scores for players not in the match: {', '.join(sorted(unknown))}")
        self.rounds.append({p: scores.get(p, 0) for p in self.players})

    def add_player(self, player: str) -> int:
        """000 §3.5: a late joiner starts with the average of the others' scores (rounded)."""
        if player in self.players:
            raise ValueError(f"{player} already plays")
        tot = self.totals()
        start = round(sum(tot.values()) / len(tot)) if tot else 0
        self.players.append(player)
        self.joined[player] = start
        return start

    def is_over(self, minutes_played: float = 0.0) -> bool:
        g = self.goal
        if g.kind == "rounds":
            return len(self.rounds) >= g.value
        if g.kind == "target":
            return any(s >= g.value for s in self.totals().values())
        if g.kind == "minutes":
            return minutes_played >= g.value
        return False

    def leaders(self) -> list[str]:
        tot = self.totals()
        best = max(tot.values())
        return [p for p, s in tot.items() if s == best]
