"""The game rules, free of any camera code: everything else asks these, never re-implements them.

- cards:   cards, editions, decks, back identities
- options: the rule options a table agrees on (variants, house rules)
- reasons: why a play is illegal, each reason's code and words
- round:   one round: piles, players' cards, legality of each move (or none, read unsurely), disputes, round end
- scoring: round scores, match totals, late joiners, handicap, Profi row storage
- board:   the board game (RULES.md §2), a subpackage of its own: board, placement, jokers, cul-de-sacs, ranking
"""
from ligretto_vision.rules.cards import Card, Edition, EDITIONS, edition, parse_card, full_set, back_identities
from ligretto_vision.rules.options import RuleOptions
from ligretto_vision.rules.reasons import Reason
from ligretto_vision.rules.round import Doubts, Round, Pile, Zone, Verdict, ImpossibleMove, on_unsure_top, resolve_dispute
from ligretto_vision.rules.scoring import Match, MatchGoal, round_score

__all__ = ["Card", "Edition", "EDITIONS", "edition", "parse_card", "full_set", "back_identities",
           "RuleOptions", "Reason", "Doubts", "Round", "Pile", "Zone", "Verdict", "ImpossibleMove", "on_unsure_top",
           "resolve_dispute", "Match", "MatchGoal", "round_score"]
