"""What a settled change on the board is: tokens that came or went, a card laid (which two fields,
its colours, whose border), a joker laid, a card taken back. Read from the top view alone, given
what the referee knew lay there; nothing here knows the rules."""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from ligretto_vision.config.board import BoardConfig
from ligretto_vision.geometry.board_grid import BoardGrid, Cell
from ligretto_vision.recognise.board_look import (BorderReader, Palette, border_strength, cell_lab, dark_lines,
                                                  token_seen, token_share, upright)


@dataclass(frozen=True)
class SeenCard:
    cells: tuple[Cell, Cell]
    colours: tuple[str, str]
    owner: str
    sure: float  # how sure the owner is (0 to 1)
    joker: bool = False


@dataclass
class Change:
    """What the fields of one settled change show now that they did not before."""
    tokens_came: list[Cell] = field(default_factory=list)
    tokens_went: list[Cell] = field(default_factory=list)
    laid: list[SeenCard] = field(default_factory=list)
    lifted: list[tuple[Cell, ...]] = field(default_factory=list)  # cards (as their cells) no longer there
    explained: set[Cell] = field(default_factory=set)  # fields whose look is now the board's as settled


@dataclass(frozen=True)
class BoardLook:
    """One frame's top view and what is derived from it once."""
    view: np.ndarray
    hsv: np.ndarray
    lines: np.ndarray

    @classmethod
    def of(cls, view: np.ndarray) -> "BoardLook":
        return cls(view, cv2.cvtColor(view, cv2.COLOR_BGR2HSV), dark_lines(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)))


def read_change(look: BoardLook, cells: set[Cell], grid: BoardGrid, *, tokens: set[Cell], covered: dict[Cell, tuple],
                empty: BoardLook, palette: Palette, borders: BorderReader, cfg: BoardConfig,
                owner_hint=None) -> Change:
    """`cells`: fields that differ from the board as last settled; `tokens`: the fields tokens stood
    on; `covered`: field -> the cells of the card or joker lying on it; `empty`: the empty board's
    look. `owner_hint(cells)`: the player whose arm laid it, or None."""
    out = Change()
    new_lines = np.maximum(0.0, look.lines - empty.lines)  # printed lines the empty board has not
    # (where two fields of different colour meet, the darker one's edge looks like a line too)
    for c in sorted(cells):
        token_now = token_seen(look.hsv, grid, c, cfg)
        if token_now and c not in tokens:
            out.tokens_came.append(c)
        elif not token_now and c in tokens:
            out.tokens_went.append(c)
    rest = set(cells)
    for c in sorted(cells):
        if c not in rest:
            continue
        if c in covered and _looks_empty(look, empty, grid, covered[c], cfg):
            out.lifted.append(covered[c])
            rest -= set(covered[c])
            out.explained |= set(covered[c])
            continue
        if c in covered:
            continue  # a card lies there; a token came or went on it
        centre, rim = token_share(look.hsv, grid, c, cfg)
        if rim >= cfg.joker_share and _bordered(new_lines, grid, (c,)) >= cfg.line_least:  # a token may stand on it
            who, sure = _owner(look, (c,), grid, borders, owner_hint)
            out.laid.append(SeenCard((c, c), ("joker", "joker"), who, sure, joker=True))
            rest.discard(c)
            out.explained.add(c)
            continue
        card = _card_at(look, new_lines, c, grid, covered, palette, borders, cfg, owner_hint,
                        {x for laid in out.laid for x in laid.cells})
        if card is not None:
            out.laid.append(card)
            rest -= set(card.cells)
            out.explained |= set(card.cells)
    # a card's other field need not have settled with it (a hand still near it a moment ago); the token
    # set down on it by then is seen now or never: the card, token and all, becomes the settled board
    for card in out.laid:
        out.tokens_came += [x for x in dict.fromkeys(card.cells) if not card.joker and x not in cells
                            and x not in tokens and token_seen(look.hsv, grid, x, cfg)]
    out.explained |= {c for c in cells if c in out.tokens_came or c in out.tokens_went}
    # a free field that looks as on the empty board again (a token that left it unseen): settled so
    out.explained |= {c for c in rest - out.explained if c not in covered and not token_seen(look.hsv, grid, c, cfg)
                      and _looks_empty(look, empty, grid, (c,), cfg)}
    out.explained |= {c for c in cells if c in covered}  # a token's coming or going on a card
    return out


def _looks_empty(look: BoardLook, empty: np.ndarray, grid: BoardGrid, cells, cfg: BoardConfig) -> bool:
    sl = grid.box(cells)
    diff = np.abs(look.view[sl].astype(np.int16) - empty.view[sl]).max(axis=2) > cfg.changed_level
    return float(diff.mean()) < cfg.changed_share


def _bordered(lines: np.ndarray, grid: BoardGrid, cells) -> float:
    return border_strength(upright(lines[grid.box(cells)], list(cells)), grid.px)


def _card_at(look: BoardLook, new_lines: np.ndarray, c: Cell, grid: BoardGrid, covered, palette: Palette,
             borders: BorderReader, cfg: BoardConfig, owner_hint, taken: set) -> SeenCard | None:
    """The card lying on `c` and the neighbour its printed border runs round, if one does (not a
    field another card read in this change has `taken`)."""
    pairs = []
    for d in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        o = (c[0] + d[0], c[1] + d[1])
        if grid.contains(o) and o not in covered and o not in taken:
            pair = (c, o) if (o[0], o[1]) > c else (o, c)
            pairs.append((_bordered(new_lines, grid, pair), pair))
    if not pairs:
        return None
    pairs.sort(reverse=True)
    strength, best = pairs[0]
    runner_up = pairs[1][0] if len(pairs) > 1 else 0.0
    # a faint print (dots) under a camera's blur: still the one pair a border runs round, by far
    if not (strength > cfg.line_least or (strength > cfg.line_least / 2 and strength > cfg.line_ratio * runner_up)):
        return None
    labs = [cell_lab(look.view, look.hsv, grid, x, cfg) for x in best]
    if any(v is None for v in labs):
        return None
    colours = tuple(palette.nearest(v)[0] for v in labs)
    who, sure = _owner(look, best, grid, borders, owner_hint)
    return SeenCard(best, colours, who, sure)


def _owner(look: BoardLook, cells, grid: BoardGrid, borders: BorderReader, owner_hint) -> tuple[str, float]:
    """Whose: the arm that laid it where one was seen, else the border printed on it."""
    hint = owner_hint(cells) if owner_hint else None
    if hint is not None:
        return hint, 1.0
    return borders.owner(upright(look.lines[grid.box(cells)], list(cells)))

