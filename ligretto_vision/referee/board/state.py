"""The board as the referee sees it, for the panel: the fields, what lies on them (as the rules hold
it), the tokens, every illegal placement with why (also those taken back since), and the round's
ranks once it is over."""
from __future__ import annotations


def board_state(referee) -> dict:
    """A JSON-ready picture of `referee` (a BoardReferee) now; `ready` False until the empty board was read."""
    scene, rnd = referee.scene, referee.round
    out = {"ready": referee.board is not None, "cols": referee.grid.cols, "rows": referee.grid.rows,
           "players": [{"id": p.id, "seat": p.seat, "border": getattr(p, "border", None)} for p in scene.players],
           "palette": {c: list(rgb) for c, rgb in scene.palette.items()}, "fields": None, "lying": [],
           "tokens": [], "illegal": [], "ranks": [], "ended": False, "notes": list(referee.notes[-5:])}
    if referee.board is None:
        return out
    out["fields"] = [list(r) for r in referee.board.fields]
    if rnd is None:
        out["tokens"] = [{"id": t, "cell": list(c)} for c, t in sorted(referee.tokens.items(), key=lambda x: x[1])]
        return out
    pos = rnd.position
    out["lying"] = [{"owner": l.owner, "cells": [list(c) for c in l.cells], "colours": l.colours and list(l.colours),
                     "joker": l.joker, "legal": l.legal, "reason": l.reason and str(l.reason), "frame": l.frame}
                    for l in pos.lying]
    out["illegal"] = [{"owner": e.player, "cells": [list(c) for c in getattr(e, "cells", [getattr(e, "cell", None)])],
                       "colours": e.card.split("+") if hasattr(e, "card") else None, "joker": not hasattr(e, "card"),
                       "reason": e.reason, "frame": e.frame} for e in referee.illegal]
    out["tokens"] = [{"id": t.id, "cell": list(t.cell)} for t in pos.tokens]
    out["left"] = {p: {"cards": rnd.cards_left(p), "jokers": rnd.jokers_left(p)} for p in rnd.players}
    if pos.stopped:
        out["ended"] = True
        out["ranks"] = [{"player": r.player, "place": r.place, "cards_left": r.cards_left, "jokers_left": r.jokers_left,
                         "chips": r.chips, "aside": r.aside} for r in rnd.ranks()]
    return out
