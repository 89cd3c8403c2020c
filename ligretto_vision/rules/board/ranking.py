"""The end of a round and of a match: places, score chips, cards put aside (RULES.md §2 "End and
scoring", rule text 003 "Ending rounds and scoring", "End of game", and its last notes).

- The player who laid their last card ("Ligretto stop") takes first place. The others rank by
  fewest cards left; a tie goes to whoever used fewer jokers; still tied, they share the place
  and the next place is skipped (1, 2, 2, 4).
- A player with a mistake (found when the cards are collected) takes last place; several share
  it, and "last" is the table's last place (the place count), not the first free place after
  the others: two players who both erred in a game of two are both second, neither first.
  The others move up: if the player who called stop had made a mistake, the best clean
  player is first.
- If nobody can play, the round ends; "the player who was able to put down the most cards wins
  the round. Scoring is conducted just like for a normal round": first place goes to the most
  cards laid (ties as above: fewer jokers used, then shared), the others rank by cards left.
- Chips and cards put aside per place, from 003's table: 4 players 2/1/0/0 chips and 0/1/2/2
  cards aside; 3 players 2/1/0 and 0/1/2. For 2 players the English and German tables give no
  column; "chips + cards is always two" with the winner's 2 chips and the last place's 0 chips
  (as in every column) gives 2/0 chips and 0/2 aside, and the Spanish table's third column
  (003, "Número de jugadores ... 1 2") says the same.
- When every player has cards aside, all remove as many as the player with fewest ("one of the
  players must always play with all 15 cards").
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ligretto_vision.errors import LigrettoError
from ligretto_vision.rules.board.options import BoardOptions

CHIPS = {2: (2, 0), 3: (2, 1, 0), 4: (2, 1, 0, 0)}  # chips per place; aside is 2 - chips
PER_PLACE = 2  # chips + cards put aside, for every place


@dataclass(frozen=True)
class Standing:
    """One player at the end of a round, as the count finds them."""
    player: str
    cards_left: int
    jokers_left: int
    laid: int = 0  # cards lying legally on the board: decides a round nobody finished
    mistake: bool = False


@dataclass(frozen=True)
class Rank:
    player: str
    place: int
    cards_left: int
    jokers_left: int
    chips: int
    aside: int


def award(place: int, n_players: int) -> tuple[int, int]:
    """(score chips, cards put aside) for a place at a table of `n_players`."""
    if n_players not in CHIPS:
        raise LigrettoError(f"the board game is played by 2 to 4 players, not {n_players}")
    if not 1 <= place <= n_players:
        raise LigrettoError(f"place {place} does not exist with {n_players} players")
    chips = CHIPS[n_players][place - 1]
    return chips, PER_PLACE - chips


def rank_round(standings: list[Standing], ender: str | None) -> list[Rank]:
    """The round's ranks, in place order. `ender`: who called "Ligretto stop"; None when the round
    ended because nobody could play."""
    n = len(standings)
    award(1, n)  # refuses a player count the game does not have
    by_player = {s.player: s for s in standings}
    if len(by_player) != n:
        raise LigrettoError("each player stands once in a round's count")
    if ender is not None:
        if ender not in by_player:
            raise LigrettoError(f"{ender} called stop but is not at this table")
        if by_player[ender].cards_left:
            raise LigrettoError(f"{ender} called stop with {by_player[ender].cards_left} cards left")
    clean = [s for s in standings if not s.mistake]
    groups: list[list[Standing]] = []
    if ender is not None and not by_player[ender].mistake:
        groups.append([by_player[ender]])
    elif ender is None and clean:
        groups.append(_best(clean, lambda s: (-s.laid, -s.jokers_left)))
    first = {s.player for g in groups for s in g}
    rest = [s for s in clean if s.player not in first]
    while rest:
        groups.append(_best(rest, lambda s: (s.cards_left, -s.jokers_left)))
        rest = [s for s in rest if s not in groups[-1]]
    ranks, place = [], 1
    for group in groups:
        ranks += [_rank(s, place, n) for s in sorted(group, key=lambda s: s.player)]
        place += len(group)  # a shared place skips the next
    ranks += [_rank(s, n, n) for s in sorted(standings, key=lambda s: s.player) if s.mistake]
    return ranks


def _best(players: list[Standing], key) -> list[Standing]:
    best = min(map(key, players))
    return [s for s in players if key(s) == best]


def _rank(s: Standing, place: int, n: int) -> Rank:
    return Rank(s.player, place, s.cards_left, s.jokers_left, *award(place, n))


def reduce_aside(aside: dict[str, int]) -> dict[str, int]:
    """When every player has cards aside, all take off as many as the player with fewest."""
    least = min(aside.values(), default=0)
    return {p: n - least for p, n in aside.items()} if least > 0 else dict(aside)


@dataclass
class BoardMatch:
    """A match over an agreed number of rounds (six suggested); the most chips wins. Cards put
    aside carry over: a player plays the next round with that many fewer cards, at least one (003
    says nothing of running out; a player cannot put aside the last card they play with)."""
    players: list[str]
    options: BoardOptions = field(default_factory=BoardOptions)  # its rounds, the cards dealt
    chips: dict[str, int] = field(default_factory=dict)
    aside: dict[str, int] = field(default_factory=dict)
    played: int = 0

    def __post_init__(self):
        award(1, len(self.players))
        self.chips = {p: self.chips.get(p, 0) for p in self.players}
        self.aside = {p: self.aside.get(p, 0) for p in self.players}

    def add_round(self, ranks: list[Rank]) -> None:
        if self.is_over():
            raise LigrettoError(f"the match of {self.options.rounds} rounds is over")
        if sorted(r.player for r in ranks) != sorted(self.players):
            raise LigrettoError("a round's ranks name every player of the match once")
        for r in ranks:
            self.chips[r.player] += r.chips
            self.aside[r.player] = min(self.aside[r.player] + r.aside, self.options.cards - 1)
        self.aside = reduce_aside(self.aside)
        self.played += 1

    def cards_for(self, player: str) -> int:
        """How many cards the player plays the next round with."""
        return self.options.cards - self.aside[player]

    def is_over(self) -> bool:
        return self.played >= self.options.rounds
