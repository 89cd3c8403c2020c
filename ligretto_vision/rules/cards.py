"""Cards, editions and decks (RULES.md §1 "Material").

A card is written "<colour>-<number>" everywhere (SCENES.md). A player's set is
40 cards, four colours x 1..10, all with the player's own back; one box holds four
sets, so more than four players need several boxes (up to 12 players).
"""
from __future__ import annotations

from dataclasses import dataclass

NUMBERS = range(1, 11)
MIN_PLAYERS, MAX_PLAYERS = 2, 12
SETS_PER_BOX = 4


@dataclass(frozen=True, order=True)
class Card:
    colour: str
    number: int

    def __str__(self) -> str:
        return f"{self.colour}-{self.number}"

    def follows(self, below: "Card") -> bool:
        """True when this card may lie on `below` in a centre pile."""
        return self.colour == below.colour and self.number == below.number + 1


@dataclass(frozen=True)
class Edition:
    name: str
    colours: tuple[str, str, str, str]
    back_designs: tuple[str, str, str, str]  # one back per set in a box
    stop_call: str = "Ligretto Stop!"


EDITIONS: dict[str, Edition] = {
    "classic": Edition("classic", ("red", "green", "blue", "yellow"),
                       ("balls-red", "balls-green", "balls-blue", "balls-yellow")),
    "dutch": Edition("dutch", ("pink", "blue", "turquoise", "yellow"),
                     ("balls-red", "balls-green", "balls-blue", "balls-yellow")),
    "starwars": Edition("starwars", ("red", "green", "blue", "yellow"),
                        ("ezra", "sabine", "chopper", "inquisitor"),
                        stop_call="Ligretto-Rebellion!"),
}


def edition(name: str) -> Edition:
    try:
        return EDITIONS[name]
    except KeyError:
        raise ValueError(f"unknown edition {name!r} (known: {', '.join(EDITIONS)})") from None


def parse_card(text: object, colours: tuple[str, ...] | list[str]) -> Card:
    """Parse "blue-7"; raises ValueError naming what is wrong with it."""
    if not isinstance(text, str) or "-" not in text:
        raise ValueError(f"card {text!r} is not of the form <colour>-<number>")
    colour, _, num = text.strip().lower().rpartition("-")
    if colour not in colours:
        raise ValueError(f"card {text!r}: colour {colour!r} is not one of {', '.join(colours)}")
    if not num.isdigit() or int(num) not in NUMBERS:
        raise ValueError(f"card {text!r}: number must be 1 to 10")
    return Card(colour, int(num))


def full_set(colours: tuple[str, ...] | list[str]) -> list[Card]:
    """The 40 cards of one player's set."""
    return [Card(c, n) for c in colours for n in NUMBERS]


def back_identities(ed: Edition, n_players: int) -> list[str]:
    """One distinct back per player: box k (1-based) supplies four back designs.

    Designs repeat between boxes, so a back is told by design *and* box (the symbol
    and colour together, RULES.md §1); "box2/balls-red" is not "box1/balls-red".
    """
    check_player_count(n_players)
    return [f"box{i // SETS_PER_BOX + 1}/{ed.back_designs[i % SETS_PER_BOX]}" for i in range(n_players)]


def check_player_count(n: int) -> None:
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"Ligretto is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}")


def boxes_needed(n_players: int) -> int:
    check_player_count(n_players)
    return -(-n_players // SETS_PER_BOX)
