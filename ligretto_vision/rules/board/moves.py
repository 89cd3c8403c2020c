"""What a play leaves on the board (RULES.md §2): the new Position and the tokens that moved.

Pure functions of a Position and the play's Verdict (`legality.py`), and `follow_tokens` for a
referee that sees the tokens stand elsewhere than the plays it saw put them: an illegal card or joker
lies there and covers its fields but moves no token and creates no duty; a legal one moves its
token and settles the duties:
- a joker puts its token under its owner's duty (`pending`); the owner's next card next to that
  token, or a second joker there, discharges or carries it on;
- a token that the play leaves blocked (003 "Cul-de-sacs": the token just moved, or another one
  "by playing a card a player blocks") is owed by the player: their next card carries it
  (`owed`). A blocked token under a joker duty stops being one: nobody can lay next to it, so
  the cul-de-sac rule takes over. A token blocked before the play (at set-up, or by a card
  nobody owes) is not put on this player; one the play frees is owed no more.
"""
from __future__ import annotations

from dataclasses import replace

from ligretto_vision.errors import LigrettoError
from ligretto_vision.rules.board.board import Cell
from ligretto_vision.rules.board.legality import Verdict
from ligretto_vision.rules.board.position import Duty, Laid, Position, Token

Moved = list[tuple[str, Cell]]  # (token, the field it now stands on), in the order they moved


def apply_place(pos: Position, player: str, colours: tuple[str, str], cells, verdict: Verdict, frame: int,
                onto: Cell | None = None) -> tuple[Position, Moved]:
    """The card lies on `cells`. For a legal card its token moves onto the farther half, or for a
    cul-de-sac's card onto `onto` (either half; the first if not given)."""
    cells = pos.board.check_card_cells(cells)
    after = replace(pos, lying=pos.lying + (Laid(player, cells, tuple(colours), verdict.legal, verdict.reason, frame),))
    if not verdict.legal:
        return after, []
    to = verdict.onto
    if verdict.relocation:
        if onto is not None and tuple(onto) not in cells:
            raise LigrettoError(f"the blocked token goes onto the new card ({_cells(cells)}), not onto {list(onto)}")
        to = tuple(onto) if onto is not None else to
        owed = list(after.owed)
        owed.remove(Duty("cul-de-sac", player, verdict.token))
        after = replace(after, owed=tuple(owed))
    else:  # a card next to a joker discharges its owner's duty
        after = replace(after, pending=tuple(d for d in after.pending if d != Duty("joker", player, verdict.token)))
    return _settle(pos, _move(after, verdict.token, to), player, verdict.token), [(verdict.token, to)]


def apply_joker(pos: Position, player: str, cell, verdict: Verdict, frame: int) -> tuple[Position, Moved]:
    """The joker lies on `cell`; a legal one takes its token and puts it under the owner's duty."""
    c = pos.board.check_cell(cell)
    after = replace(pos, lying=pos.lying + (Laid(player, (c,), None, verdict.legal, verdict.reason, frame),))
    if not verdict.legal:
        return after, []
    pending = tuple(d for d in after.pending if d.token != verdict.token) + (Duty("joker", player, verdict.token),)
    after = _move(replace(after, pending=pending), verdict.token, c)
    return _settle(pos, after, player, verdict.token), [(verdict.token, c)]


def apply_takeback(pos: Position, player: str, cells) -> tuple[Position, Laid]:
    """The player's card (or joker) last laid on exactly these fields is lifted off again. Tokens
    standing on it stay where they stand; a token it had blocked is no longer owed, and a joker's
    duty goes with the joker (its token, where it stands, is everybody's again)."""
    want = {tuple(c) for c in cells}
    for i in range(len(pos.lying) - 1, -1, -1):
        laid = pos.lying[i]
        if laid.owner == player and set(laid.cells) == want:
            after = replace(pos, lying=pos.lying[:i] + pos.lying[i + 1:])
            on_it = {after.token_cells.get(c) for c in laid.cells} if laid.joker else set()
            pending = tuple(d for d in after.pending if not (d.player == player and d.token in on_it))
            return replace(after, owed=_still_owed(after), pending=pending), laid
    raise LigrettoError(f"{player} has no card lying on {_cells(want)} to take back")


def follow_tokens(pos: Position, cells) -> tuple[Position, Moved]:
    """The tokens stand on `cells` (as many fields as tokens), wherever the players put them: a
    token on one of them stays, each other one goes to the nearest field left (the closest pair
    first). A token that moved leaves its duties behind: the joker's or cul-de-sac's token is no
    longer where the duty was owed (a cul-de-sac token moved on is carried)."""
    want = {tuple(c) for c in cells}
    if len(want) != len(pos.tokens):
        raise LigrettoError(f"{len(pos.tokens)} tokens cannot stand on {len(want)} fields")
    for c in want:
        pos.board.check_cell(c)
    free = want - {t.cell for t in pos.tokens}
    away = [t for t in pos.tokens if t.cell not in want]
    pairs = sorted(((abs(t.cell[0] - c[0]) + abs(t.cell[1] - c[1]), t.id, c) for t in away for c in free))
    moved: Moved = []
    for _, token, c in pairs:
        if c in free and token not in {m[0] for m in moved}:
            moved.append((token, c))
            free.discard(c)
    after = pos
    for token, c in moved:
        after = _move(after, token, c)
    gone = {m[0] for m in moved}
    after = replace(after, owed=tuple(d for d in after.owed if d.token not in gone))
    # a joker's token that moved, or is now blocked (cards unseen lie round it), is no duty any more
    pending = tuple(d for d in after.pending if d.token not in gone and not after.is_blocked(after.token(d.token)))
    return replace(after, pending=pending, owed=_still_owed(after)), moved


def _move(pos: Position, token: str, to: Cell) -> Position:
    return replace(pos, tokens=tuple(Token(t.id, to) if t.id == token else t for t in pos.tokens))


def _settle(before: Position, after: Position, player: str, moved: str) -> Position:
    """Put on `player` each token their play left in a cul-de-sac (the moved one first). A token
    owed before that the play freed (a token leaving its set-up field opens that field) is owed
    no more: it has a next card again."""
    after = replace(after, owed=_still_owed(after))
    owed_tokens = {d.token for d in after.owed}
    order = sorted(after.tokens, key=lambda t: (t.id != moved, t.id))
    new = [t.id for t in order if t.id not in owed_tokens and after.is_blocked(t)
           and (t.id == moved or not before.is_blocked(before.token(t.id)))]
    if not new:
        return after
    pending = tuple(d for d in after.pending if d.token not in new)
    return replace(after, pending=pending, owed=after.owed + tuple(Duty("cul-de-sac", player, t) for t in new))


def _still_owed(pos: Position) -> tuple[Duty, ...]:
    """The cul-de-sacs still owed: a token no longer blocked has a next card again."""
    return tuple(d for d in pos.owed if pos.is_blocked(pos.token(d.token)))


def _cells(cells) -> list:
    return [list(c) for c in sorted(cells)]
