"""What a player can do now: the places the rules accept for a card, with a joker or without.

The simulated table's bots ask these and never judge a place themselves; each candidate is
decided by `legality.judge_place` / `judge_joker`, so legality lives in one place.
"""
from __future__ import annotations

from ligretto_vision.rules.board.board import Cell, kind
from ligretto_vision.rules.board.legality import judge_joker, judge_place
from ligretto_vision.rules.board.moves import apply_joker
from ligretto_vision.rules.board.position import Position

Layout = tuple[tuple[str, str], tuple[Cell, Cell]]  # (colours, cells), first colour on first cell
JokerPath = tuple[tuple[Cell, ...], Layout]  # the jokers' fields in the order laid, then the card


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


def joker_places(pos: Position, player: str, card: tuple[str, str], jokers_left: int) -> list[JokerPath]:
    """Where up to `jokers_left` jokers, laid one after the other (003 "Note": "players are allowed
    to use both jokers one after the other and right next to each other"), let `card` be laid at
    once: (the jokers' fields in the order laid, the card's layout after them); [] where no
    jokers do. Which joker is legal is `judge_joker`'s to say; one that leaves its token
    in a dead end counts too: the card then lies anywhere matching (the cul-de-sac rule)."""
    return list(_joker_paths(pos, player, card, jokers_left))


def _joker_paths(pos: Position, player: str, card: tuple[str, str], jokers_left: int, laid: tuple[Cell, ...] = ()):
    if jokers_left <= 0:
        return
    afters = []
    for t in pos.usable_tokens(player):
        for j in pos.board.edge_neighbours(t.cell):
            v = judge_joker(pos, player, j, t.id)
            if v.legal and v.token == t.id:
                after, _ = apply_joker(pos, player, j, v, 0)
                afters.append((laid + (j,), after))
                yield from ((laid + (j,), layout) for layout in legal_places(after, player, card))
    for path, after in afters:  # a further joker beyond each
        yield from _joker_paths(after, player, card, jokers_left - 1, path)


def can_play(pos: Position, player: str, cards: list[tuple[str, str]], jokers_left: int) -> bool:
    """Could `player` lay any of `cards` now, with the jokers they have left? Nobody able to is how
    a round ends early (RULES.md §2 "End and scoring")."""
    kinds = {kind(*c) for c in cards}
    return any(legal_places(pos, player, k) for k in kinds) or any(
        next(_joker_paths(pos, player, k, jokers_left), None) is not None for k in kinds)
