"""The rules of the Ligretto board game (RULES.md §2, rule text 003), free of any camera code,
beside the card game's: the simulated table and a board referee ask these, never re-implement them.

- board:    the grid of coloured fields, cells, cards' places and colour pairs
- options:  what a table agrees on (swapped colours a mistake or not, cards, jokers, rounds)
- reasons:  why a placement is illegal, the six codes of BOARD-SCENES.md
- position: what lies on the board, the tokens, the joker's and the cul-de-sac's duties
- legality: is a card or joker legal, which token is it for and where does the token go
- moves:    what a play leaves: the new position, the tokens moved, the duties settled
- choices:  what a player can do now (legal places, with a joker, can they play at all)
- ranking:  places, chips, cards put aside, the put-aside reduction, a match over rounds
- log:      the board game's events (place, joker, token, takeback, round_end, round_blocked, rank)
- round:    one round fed play by play, making those events
"""
from ligretto_vision.rules.board.board import Board, Cell, card_kinds, card_text, kind
from ligretto_vision.rules.board.choices import can_play, joker_places, legal_places
from ligretto_vision.rules.board.legality import Verdict, judge_joker, judge_place
from ligretto_vision.rules.board.log import (BoardEvent, JokerEvent, PlaceEvent, RankEvent, RoundBlockedEvent,
                                             RoundEndEvent, TakebackEvent, TokenEvent)
from ligretto_vision.rules.board.moves import apply_joker, apply_place, apply_takeback
from ligretto_vision.rules.board.options import BoardOptions
from ligretto_vision.rules.board.position import Duty, Laid, Position, Token
from ligretto_vision.rules.board.ranking import BoardMatch, Rank, Standing, award, rank_round, reduce_aside
from ligretto_vision.rules.board.reasons import BoardReason
from ligretto_vision.rules.board.round import BoardRound

__all__ = ["Board", "Cell", "card_kinds", "card_text", "kind", "can_play", "joker_places", "legal_places",
           "Verdict", "judge_joker", "judge_place", "BoardEvent", "JokerEvent", "PlaceEvent", "RankEvent",
           "RoundBlockedEvent", "RoundEndEvent", "TakebackEvent", "TokenEvent", "apply_joker", "apply_place",
           "apply_takeback", "BoardOptions", "Duty", "Laid", "Position", "Token", "BoardMatch", "Rank", "Standing",
           "award", "rank_round", "reduce_aside", "BoardReason", "BoardRound"]
