"""Is this placement legal, and which token is it for (RULES.md §2 "Play", rule text 003).

The checks, in this order; the first that applies is the reason:

1. `after-stop`: "Ligretto stop" was called, or nobody could play (003: "The other players are
   no longer allowed to put down cards").
2. `covers-card`: either field already lies under a card or a joker (legal or not: an illegal
   card covers as long as it lies there), or a token stands on it. A token's own field is taken
   even at set-up, before any card is under it: cards are laid *next to* a token (003 "Playing
   cards"; the "9 different options" of its example count only cards beside the token's field).
3. `not-adjacent` / `corner-only`: the card must share an edge with the field of a token the
   player may use (003 English "touch at least one of the edges of a space with a Ligretto
   token"; BOARD-SCENES.md defines not-adjacent by the token's *field*, so the German "an die
   Karte mit dem Ligretto-Stein" is read as that field, as the "9 options" also require). A
   card sharing no such edge is `corner-only` when one of its halves meets such a field
   diagonally ("only touch ... with one of its corners"), and `not-adjacent` otherwise: the two
   never apply together, corner-only is the named case of not being adjacent. A card that shares
   an edge with one token and a corner with another is legal (for the first).
   A token held by another player's joker is not one this player may use, so a card laid only
   beside it is `not-adjacent` (the closest of the contract's reasons: it lies next to no token
   open to this player). A joker's owner may use only that token until their next card is laid.
4. `colour-mismatch`: the card's two colours are not the two fields' colours.
5. `swapped`: the right colours the wrong way round (its first colour on the second field's
   colour); a mistake only with BoardOptions.swapped == "mistake", otherwise legal (003, last
   note: the table decides).

A player who owes a cul-de-sac lays their next card on *any* free matching place (003
"Cul-de-sacs"), so step 3 does not apply to that card; the blocked token goes onto it.

A joker (`judge_joker`) is judged by steps 1-3, and a player who owes a cul-de-sac may lay none:
003 gives the card that follows a joker no freedom ("Only the player who used the joker is
allowed to put a card next to it. That card needs to be played immediately after playing the
joker") and gives the cul-de-sac's next card all of it ("puts their next card on any free space
... immediately puts the blocked Ligretto token on one of the two new spaces"); one card cannot
do both, and the joker, a bridge to a token's far fields, is of no use to a card that may go
anywhere. Such a joker is `not-adjacent`, as one beside a token another player's joker holds:
no token is open to that player's joker until the blocked one is carried.
"""
from __future__ import annotations

from dataclasses import dataclass

from ligretto_vision.errors import LigrettoError
from ligretto_vision.rules.board.board import Cell, corner_touch, edge_touch
from ligretto_vision.rules.board.position import Position, Token
from ligretto_vision.rules.board.reasons import BoardReason


@dataclass(frozen=True)
class Verdict:
    """Legal or not (`reason`); for a legal play, the token it is for and the field it moves onto
    (`relocation`: the blocked token of a cul-de-sac put on this card, `onto` its first half unless
    the player puts it on the other)."""
    legal: bool
    reason: BoardReason | None = None
    token: str | None = None
    onto: Cell | None = None
    relocation: bool = False


def _illegal(reason: BoardReason) -> Verdict:
    return Verdict(False, reason)


def judge_place(pos: Position, player: str, colours: tuple[str, str], cells, token: str | None = None) -> Verdict:
    """A card of `player` laid with `colours[0]` on `cells[0]` and `colours[1]` on `cells[1]`.

    `token`: the token the player moved with it, where known (the referee saw it); it decides
    between tokens the card is legal for (unnamed: the lowest id). A legal card that is not for the
    named token, or a token id not on the board, raises LigrettoError: what was seen and what the
    rules allow disagree, and that is not for the rules to guess. Cells that are no card's place
    raise LigrettoError too.
    """
    a, b = pos.board.check_card_cells(cells)
    if token is not None:
        pos.token(token)  # an id not on the board
    if pos.stopped:
        return _illegal(BoardReason.AFTER_STOP)
    if not (pos.free(a) and pos.free(b)):
        return _illegal(BoardReason.COVERS_CARD)
    duty = pos.duty(player)
    relocation = duty is not None and duty.kind == "cul-de-sac"
    if relocation:
        near = [pos.token(duty.token)]
    else:
        near = _next_to(pos.usable_tokens(player), (a, b))
        if isinstance(near, BoardReason):
            return _illegal(near)
    fields = (pos.board.colour(a), pos.board.colour(b))
    if sorted(colours) != sorted(fields):
        return _illegal(BoardReason.COLOUR_MISMATCH)
    if tuple(colours) != fields and pos.options.swapped == "mistake":
        return _illegal(BoardReason.SWAPPED)
    chosen = _chosen(near, token)
    if relocation:
        return Verdict(True, token=chosen.id, onto=a, relocation=True)
    # the token goes onto the half farther from where it stood: the half that does not touch it
    return Verdict(True, token=chosen.id, onto=b if edge_touch(a, chosen.cell) else a)


def judge_joker(pos: Position, player: str, cell, token: str | None = None) -> Verdict:
    """A joker laid on `cell`: next to a token the player may use, on a free field of any colour
    (RULES.md §2 "Joker"); the token moves onto it. Judged like a card's placement (steps 1-3);
    never legal while the player owes a cul-de-sac (above). `token` as for `judge_place`."""
    c = pos.board.check_cell(cell)
    if token is not None:
        pos.token(token)  # an id not on the board
    if pos.stopped:
        return _illegal(BoardReason.AFTER_STOP)
    if not pos.free(c):
        return _illegal(BoardReason.COVERS_CARD)
    duty = pos.duty(player)
    if duty is not None and duty.kind == "cul-de-sac":
        return _illegal(BoardReason.NOT_ADJACENT)
    near = _next_to(pos.usable_tokens(player), (c,))
    if isinstance(near, BoardReason):
        return _illegal(near)
    return Verdict(True, token=_chosen(near, token).id, onto=c)


def _chosen(near: list[Token], token: str | None) -> Token:
    """The token a legal play moves: the one named, which must be among those it is legal for."""
    if token is None:
        return near[0]
    for t in near:
        if t.id == token:
            return t
    raise LigrettoError(f"the play is not for token {token}: it is legal for {', '.join(t.id for t in near)} only")


def _next_to(tokens: list[Token], cells: tuple[Cell, ...]) -> list[Token] | BoardReason:
    """The tokens sharing an edge with one of `cells` (by id), or why there is none."""
    near = sorted((t for t in tokens if any(edge_touch(c, t.cell) for c in cells)), key=lambda t: t.id)
    if near:
        return near
    if any(corner_touch(c, t.cell) for t in tokens for c in cells):
        return BoardReason.CORNER_ONLY
    return BoardReason.NOT_ADJACENT
