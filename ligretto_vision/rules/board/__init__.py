"""The rules of the Ligretto board game (RULES.md §2, rule text 003), free of any camera code,
beside the card game's: the simulated table and a board referee ask these, never re-implement them.

- board:    the grid of coloured fields, cells, cards' places and colour pairs
- options:  what a table agrees on (swapped colours a mistake or not, cards, jokers, rounds)
- reasons:  why a placement is illegal, the six codes of BOARD-SCENES.md, in precedence order
"""
from ligretto_vision.rules.board.board import Board, Cell, card_kinds, card_text, kind, parse_card
from ligretto_vision.rules.board.options import BoardOptions
from ligretto_vision.rules.board.reasons import PRECEDENCE, BoardReason

__all__ = ["Board", "Cell", "card_kinds", "card_text", "kind", "parse_card", "BoardOptions", "PRECEDENCE",
           "BoardReason"]
