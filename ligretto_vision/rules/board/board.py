"""The board of the Ligretto board game: a grid of coloured fields (RULES.md §2, BOARD-SCENES.md "The table").

Fields are cells `(col, row)`: columns to the right, rows down, (0, 0) at the top-left, as in
scene.json's `board`. A card covers two edge-neighbouring fields and is written
"<colour>+<colour>", its first colour on its first cell (BOARD-SCENES.md `place`). The
board's sections are not modelled: only the colour of every field matters to the rules.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import combinations_with_replacement

from ligretto_vision.errors import LigrettoError

Cell = tuple[int, int]  # (col, row)


def edge_touch(a: Cell, b: Cell) -> bool:
    """The two fields share an edge."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def corner_touch(a: Cell, b: Cell) -> bool:
    """The two fields meet at a corner only (diagonal neighbours)."""
    return abs(a[0] - b[0]) == 1 == abs(a[1] - b[1])


@dataclass(frozen=True)
class Board:
    """`fields[row][col]` is that field's colour; every colour is one of `colours`."""
    fields: tuple[tuple[str, ...], ...]
    colours: tuple[str, ...]

    def __post_init__(self):
        if not self.fields or not self.fields[0]:
            raise LigrettoError("a board needs at least one row of fields")
        if any(len(r) != len(self.fields[0]) for r in self.fields):
            raise LigrettoError("every row of the board must have as many fields as the first")
        odd = sorted({c for r in self.fields for c in r} - set(self.colours))
        if odd:
            raise LigrettoError(f"board fields of unknown colour {', '.join(odd)} (colours: {', '.join(self.colours)})")

    @classmethod
    def of(cls, rows: list[list[str]] | list[str], colours: tuple[str, ...] | list[str]) -> "Board":
        """A board from rows of colour names (a row may be one string of initials, "rgby", for tests)."""
        by_initial = {c[0]: c for c in colours}
        grid = []
        for r in rows:
            if isinstance(r, str):
                try:
                    r = [by_initial[ch] for ch in r]
                except KeyError as exc:
                    raise LigrettoError(f"board row {r!r}: {exc.args[0]!r} is no colour's initial") from None
            grid.append(tuple(r))
        return cls(tuple(grid), tuple(colours))

    @property
    def cols(self) -> int:
        return len(self.fields[0])

    @property
    def rows(self) -> int:
        return len(self.fields)

    def on_board(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.cols and 0 <= cell[1] < self.rows

    def colour(self, cell: Cell) -> str:
        return self.fields[cell[1]][cell[0]]

    def edge_neighbours(self, cell: Cell) -> list[Cell]:
        c, r = cell
        return [n for n in ((c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1)) if self.on_board(n)]

    @cached_property
    def cells(self) -> tuple[Cell, ...]:
        return tuple((c, r) for r in range(self.rows) for c in range(self.cols))

    @cached_property
    def card_places(self) -> tuple[tuple[Cell, Cell], ...]:
        """Every place a card can lie, each in both orders (which half is the first)."""
        return tuple((a, b) for a in self.cells for b in self.edge_neighbours(a))

    def check_card_cells(self, cells) -> tuple[Cell, Cell]:
        """`cells` as two edge-neighbouring fields of this board; LigrettoError names what is wrong."""
        got = tuple(tuple(c) for c in cells)
        if len(got) != 2 or any(len(c) != 2 for c in got):
            raise LigrettoError(f"a card lies on two fields [[col,row],[col,row]], not {cells!r}")
        self.check_cell(got[0]), self.check_cell(got[1])
        if not edge_touch(*got):
            raise LigrettoError(f"a card's two fields share an edge; {list(got[0])} and {list(got[1])} do not")
        return got  # type: ignore[return-value]

    def check_cell(self, cell) -> Cell:
        got = tuple(cell)
        if len(got) != 2 or not all(isinstance(v, int) for v in got) or not self.on_board(got):
            raise LigrettoError(f"field {list(got)} is not on the {self.cols} x {self.rows} board")
        return got  # type: ignore[return-value]


def card_kinds(colours: tuple[str, ...] | list[str], one_colour: bool = False) -> frozenset[tuple[str, str]]:
    """The colour pairs a card can show, each as `kind(a, b)`. Every card in 003's examples shows two
    different colours ("the blue/yellow card"), so by default a pair of free fields of one colour
    takes no card; `one_colour` (BoardOptions.one_colour_cards) for a set that has such cards."""
    return frozenset(kind(*p) for p in combinations_with_replacement(colours, 2) if one_colour or p[0] != p[1])


def kind(a: str, b: str) -> tuple[str, str]:
    """A card whichever way round it lies: its two colours in name order."""
    return (a, b) if a <= b else (b, a)


def card_text(colours: tuple[str, str]) -> str:
    """A card as the log writes it: "red+blue", its first colour on its first cell."""
    return f"{colours[0]}+{colours[1]}"

