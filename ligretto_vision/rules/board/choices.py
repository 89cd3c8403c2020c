"""What a player can do now: the places the rules accept for a card, with a joker or without.

The simulated table's bots ask these and never judge a place themselves; each candidate is
decided by `legality.judge_place` / `judge_joker`, so legality lives in one place.
"""
from __future__ import annotations

from ligretto_vision.rules.board.board import Cell, kind
from ligretto_vision.rules.board.legality import judge_joker, judge_place
from ligretto_vision.rules.board.moves import apply_joker
from ligretto_vision.rules.board.position import Duty, Position

Layout = tuple[tuple[str, str], tuple[Cell, Cell]]  # (colours, cells), first colour on first cell


def legal_places(pos: Position, player: str, card: tuple[str, str]) -> list[Layout]:
    """Every legal way to lay `card` (its two colours, either way round), the colours the right way
    round on their fields. Candidates are the free places next to the tokens the player may use,
    or the whole board when they owe a cul-de-sac."""
    duty = pos.duty(player)
    if duty is not None and duty.kind == "cul-de-sac":
        candidates = list(pos.board.card_places)
    else:
        near = [cells for t in pos.usable_tokens(player) for cells in pos.next_places(t)]
        candidates = near + [(m, n) for n, m in near]
    board, want, out, seen = pos.board, sorted(card), [], set()
    for cells in candidates:
        if frozenset(cells) in seen:  # one place, either half first (or beside two tokens): once
            continue
        seen.add(frozenset(cells))
        fields = (board.colour(cells[0]), board.colour(cells[1]))
        if sorted(fields) == want and judge_place(pos, player, fields, cells).legal:
            out.append((fields, cells))
    return out


def joker_places(pos: Position, player: str, card: tuple[str, str]) -> list[tuple[Cell, Layout]]:
    """Where a joker would let `card` be laid next to it at once: (joker's field, layout after it).
    Which jokers are legal is `judge_joker`'s to say (none while the player owes a cul-de-sac)."""
    out = []
    for t in pos.usable_tokens(player):
        for j in pos.board.edge_neighbours(t.cell):
            v = judge_joker(pos, player, j, t.id)
            if not v.legal or v.token != t.id:
                continue
            after, _ = apply_joker(pos, player, j, v, 0)
            if after.duty(player) == Duty("joker", t.id):  # not a joker into a dead end
                out += [(j, layout) for layout in legal_places(after, player, card)]
    return out


def can_play(pos: Position, player: str, cards: list[tuple[str, str]], jokers_left: int) -> bool:
    """Could `player` lay any of `cards` now, with a joker if one is left? Nobody able to is how a
    round ends early (RULES.md §2 "End and scoring")."""
    kinds = {kind(*c) for c in cards}
    return any(legal_places(pos, player, k) for k in kinds) or (
        jokers_left > 0 and any(joker_places(pos, player, k) for k in kinds))
