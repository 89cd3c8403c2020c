"""One round of the board game: the Position as plays come in, and the events they make.

Like the card game's `rules.Round`, this is the one place a simulated table or a referee feeds
plays into; the decisions are the pure functions of `legality`, `moves` and `ranking`, and this
class only keeps the round's Position, the players' counts and the stop. Time is in frames.

What the rules count (RULES.md §2 "End and scoring"): a player's cards left are the cards dealt
less their cards lying on the board; a card laid after the stop does not count (it was not allowed
to be put down) and is no mistake either. A mistake is an illegal card or joker still lying on the
board when the round is ranked: the neighbour who collects the cards finds it (003); one taken
back before is not found. A player's last card laid calls stop, legal or not (a wrong last card
is found at the count and ranks its player last).
"""
from __future__ import annotations

from ligretto_vision.errors import LigrettoError
from ligretto_vision.rules.board.board import Board, Cell, card_text
from ligretto_vision.rules.board.legality import Verdict, judge_joker, judge_place
from ligretto_vision.rules.board.log import (BoardEvent, JokerEvent, PlaceEvent, RankEvent, RoundBlockedEvent,
                                             RoundEndEvent, TakebackEvent, TokenEvent)
from ligretto_vision.rules.board.moves import apply_joker, apply_place, apply_takeback, follow_tokens
from ligretto_vision.rules.board.options import BoardOptions
from ligretto_vision.rules.board.position import Position, Token
from ligretto_vision.rules.board.ranking import Rank, Standing, award, rank_round
from ligretto_vision.rules.board.reasons import BoardReason


class BoardRound:
    def __init__(self, board: Board, players: list[str], tokens: dict[str, Cell],
                 options: BoardOptions | None = None, cards: dict[str, int] | None = None):
        award(1, len(players))  # 2 to 4 players
        if len(set(players)) != len(players):
            raise LigrettoError("player ids must differ")
        cells = [board.check_cell(c) for c in tokens.values()]
        if not cells or len(set(cells)) != len(cells):
            raise LigrettoError("the tokens stand on different fields of the board")
        self.players = list(players)
        self.options = options or BoardOptions()
        self.dealt = {p: (cards or {}).get(p, self.options.cards) for p in players}
        if min(self.dealt.values()) < 1:
            raise LigrettoError("every player plays with at least one card")
        self.position = Position(board, tuple(Token(t, c) for t, c in zip(tokens, cells)), self.options)
        self.ender: str | None = None

    # ---- plays ------------------------------------------------------------------------------
    def start(self, frame: int) -> list[BoardEvent]:
        """The tokens as set up before the round (`token` events)."""
        return [TokenEvent(frame, t.id, t.cell) for t in self.position.tokens]

    def judge(self, player: str, colours: tuple[str, str], cells, token: str | None = None) -> Verdict:
        self._check_player(player)
        return judge_place(self.position, player, colours, cells, token)

    def place(self, player: str, colours: tuple[str, str], cells, frame: int, *, token: str | None = None,
              onto: Cell | None = None) -> list[BoardEvent]:
        """A card came to rest: its verdict, the token it moved, the stop if it was the last."""
        verdict = self.judge(player, colours, cells, token)
        self.position, moved = apply_place(self.position, player, colours, cells, verdict, frame, onto)
        out: list[BoardEvent] = [PlaceEvent(frame, player, card_text(colours), self.position.lying[-1].cells,
                                            verdict.legal, verdict.reason and str(verdict.reason))]
        out += [TokenEvent(frame, t, c) for t, c in moved]
        return out + self._maybe_stop(player, frame)

    def joker(self, player: str, cell, frame: int, *, token: str | None = None) -> list[BoardEvent]:
        self._check_player(player)
        if self.jokers_left(player) <= 0:
            raise LigrettoError(f"{player} has no joker left (dealt {self.options.jokers})")
        verdict = judge_joker(self.position, player, cell, token)
        self.position, moved = apply_joker(self.position, player, cell, verdict, frame)
        out: list[BoardEvent] = [JokerEvent(frame, player, self.position.lying[-1].cells[0], verdict.legal,
                                            verdict.reason and str(verdict.reason))]
        return out + [TokenEvent(frame, t, c) for t, c in moved]

    def takeback(self, player: str, cells, frame: int) -> list[BoardEvent]:
        self._check_player(player)
        self.position, laid = apply_takeback(self.position, player, cells)
        return [TakebackEvent(frame, player, laid.cells)]

    def tokens_stand(self, cells) -> dict[str, Cell]:
        """The tokens stand on `cells` now, as seen: the position follows (`moves.follow_tokens`);
        the tokens that moved, and where to."""
        self.position, moved = follow_tokens(self.position, cells)
        return dict(moved)

    def nobody_can_play(self, frame: int) -> list[BoardEvent]:
        """The round ends early (RULES.md §2): scored as it stands, the most cards laid first."""
        if self.position.stopped:
            return []
        self.position = self.position.with_stop()
        return [RoundBlockedEvent(frame)]

    def _maybe_stop(self, player: str, frame: int) -> list[BoardEvent]:
        if self.position.stopped or self.cards_left(player) > 0:
            return []
        self.ender = player
        self.position = self.position.with_stop()
        return [RoundEndEvent(frame, player)]

    def _check_player(self, player: str) -> None:
        if player not in self.dealt:
            raise LigrettoError(f"{player!r} does not play at this table (players: {', '.join(self.players)})")

    # ---- the count ------------------------------------------------------------------------------
    def _counted(self, player: str):
        return [l for l in self.position.lying if l.owner == player and l.reason is not BoardReason.AFTER_STOP]

    def cards_left(self, player: str) -> int:
        return self.dealt[player] - sum(not l.joker for l in self._counted(player))

    def jokers_left(self, player: str) -> int:
        return self.options.jokers - sum(l.joker for l in self._counted(player))

    def standings(self) -> list[Standing]:
        return [Standing(p, self.cards_left(p), self.jokers_left(p),
                         laid=sum(l.legal and not l.joker for l in self._counted(p)),
                         mistake=any(not l.legal for l in self._counted(p)))
                for p in self.players]

    def ranks(self) -> list[Rank]:
        """The round's ranks (once it has ended: a stop, or nobody could play)."""
        if not self.position.stopped:
            raise LigrettoError("the round is still being played: nobody called stop and players can still play")
        return rank_round(self.standings(), self.ender)

    def rank_events(self, frame: int) -> list[BoardEvent]:
        return [RankEvent.of(frame, r) for r in self.ranks()]
