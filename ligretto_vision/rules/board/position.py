"""What lies on the board at one moment, and what follows from it alone (RULES.md §2).

A `Position` is frozen: a play makes a new one (`moves.py`), so the bots of the simulated
table can try a joker and look at what it would leave without changing the round.

Two duties a player can owe, each from the rule text 003 (English part):
- a joker's owner must lay the next card next to it, at once, and nobody else may
  ("Joker": "Only the player who used the joker is allowed to put a card next to it.
  That card needs to be played immediately after playing the joker") -> `pending`;
- whoever left a token in a cul-de-sac (their own or another one blocked by their play) lays
  their next card on any free matching place and puts the token on it ("Cul-de-sacs") -> `owed`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

from ligretto_vision.errors import LigrettoError
from ligretto_vision.rules.board.board import Board, Cell, card_kinds, kind
from ligretto_vision.rules.board.options import BoardOptions
from ligretto_vision.rules.board.reasons import BoardReason


@dataclass(frozen=True)
class Token:
    id: str
    cell: Cell


@dataclass(frozen=True)
class Laid:
    """A card (two cells, its colours in the same order) or a joker (one cell, no colours) lying on
    the board, legal or not: an illegal card covers its fields as long as it lies there."""
    owner: str
    cells: tuple[Cell, ...]
    colours: tuple[str, str] | None  # None: a joker
    legal: bool
    reason: BoardReason | None
    frame: int

    @property
    def joker(self) -> bool:
        return self.colours is None


@dataclass(frozen=True)
class Duty:
    """What `player`'s next card must do: lie next to `token` (a joker's owner, `Position.pending`)
    or carry the blocked `token` anywhere (a cul-de-sac, `Position.owed`)."""
    kind: Literal["joker", "cul-de-sac"]
    player: str
    token: str


@dataclass(frozen=True)
class Position:
    board: Board
    tokens: tuple[Token, ...]
    options: BoardOptions = field(default_factory=BoardOptions)
    lying: tuple[Laid, ...] = ()
    pending: tuple[Duty, ...] = ()  # joker duties: the joker's owner lays next at its token
    owed: tuple[Duty, ...] = ()  # cul-de-sac duties, in the order the tokens were blocked
    stopped: bool = False  # "Ligretto stop" was called, or nobody could play

    # ---- what lies where ----------------------------------------------------------------
    @cached_property
    def covered(self) -> frozenset[Cell]:
        return frozenset(c for laid in self.lying for c in laid.cells)

    @cached_property
    def token_cells(self) -> dict[Cell, str]:
        return {t.cell: t.id for t in self.tokens}

    @cached_property
    def kinds(self) -> frozenset[tuple[str, str]]:
        return card_kinds(self.board.colours, self.options.one_colour_cards)

    def token(self, token_id: str) -> Token:
        for t in self.tokens:
            if t.id == token_id:
                return t
        raise LigrettoError(f"no token {token_id!r} on the board (tokens: {', '.join(t.id for t in self.tokens)})")

    def free(self, cell: Cell) -> bool:
        """Nothing lies on the field and no token stands on it (a token's field is taken even
        before a card is laid under it: cards are laid next to a token, never under one)."""
        return cell not in self.covered and cell not in self.token_cells

    # ---- duties ---------------------------------------------------------------------------
    def duty(self, player: str) -> Duty | None:
        """The joker's duty first (it is "at once"), then the oldest cul-de-sac the player owes."""
        return next((d for d in self.pending + self.owed if d.player == player), None)

    def usable_tokens(self, player: str) -> list[Token]:
        """The tokens `player` may lay next to: after their own joker only that one; otherwise every
        token but those held by another player's joker (RULES.md §2 "Joker") and those in a
        cul-de-sac, which wait for the card that carries them (not even a joker moves them on)."""
        d = self.duty(player)
        if d is not None and d.kind == "joker":
            return [self.token(d.token)]
        held = {d.token for d in self.pending if d.player != player} | {d.token for d in self.owed}
        return [t for t in self.tokens if t.id not in held]

    # ---- cul-de-sacs ------------------------------------------------------------------------
    def next_places(self, token: Token) -> list[tuple[Cell, Cell]]:
        """The free places a card could take next to `token` (its near half first), whatever
        anybody holds: a card of some kind shows those two colours."""
        return list(self._next_places(token))

    def is_blocked(self, token: Token) -> bool:
        """A cul-de-sac: no card of any kind can be laid next to the token (RULES.md §2)."""
        return next(self._next_places(token), None) is None

    def _next_places(self, token: Token):
        b = self.board
        return ((n, m) for n in b.edge_neighbours(token.cell) if self.free(n)
                for m in b.edge_neighbours(n) if self.free(m)
                and kind(b.colour(n), b.colour(m)) in self.kinds)

    def with_stop(self) -> "Position":
        return replace(self, stopped=True)
