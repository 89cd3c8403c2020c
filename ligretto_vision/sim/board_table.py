"""A simulated table of the Ligretto board game: bot players play whole rounds by the rules.

The board game's counterpart of `sim/table.py`: seeded, it makes the event log of
BOARD-SCENES.md (`place`, `joker`, `token`, `takeback`, `round_end` or `round_blocked`, `rank`)
for tests and, later, for rendered scenes. Every play goes through `rules.board.BoardRound`, and
every choice a bot has is asked of `rules.board.choices` (the places the rules accept), so the
bots never decide legality themselves.

Each bot holds a face-down pile of two-colour cards (15, fewer with cards put aside) and 2
jokers. It turns over its top card and lays it where the rules accept it, or puts it face up on
its discard pile; a used-up pile is the discard pile turned over (003 "Gameplay"). A card that
fits nowhere may get a joker (both, one after the other, where one is not enough: as few as
will do), now and then, and always once the bot has been round its cards without laying one.
A bot told to make mistakes lays a card wrongly at that rate, choosing one of the contract's
reasons, and notices (takes it back) at `take_back`; a card laid after the stop is one such
mistake. The round ends when a player's last card is laid, or when the rules say that nobody
can play any more: after every bot has been round its cards without a play.
Time runs in frames, each bot at its own pace, events in frame order.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from ligretto_vision.rules.board import (Board, BoardEvent, BoardMatch, BoardOptions, BoardReason, BoardRound, Cell,
                                         Position, Token, apply_place, can_play, card_kinds, joker_places, judge_joker,
                                         kind, legal_places)

COLOURS = ("red", "green", "blue", "yellow")
MISTAKES = tuple(r.value for r in BoardReason)  # every reason a bot may be wrong for
RANK_AFTER_S = 2.0  # the count a little after the round's end


@dataclass
class BoardBotStyle:
    reaction_s: tuple[float, float] = (0.4, 1.2)  # turning a card over, looking for its place
    reach_s: tuple[float, float] = (0.3, 0.6)  # laying it, moving the token
    mistakes: float = 0.0  # chance that a card is laid wrongly on purpose
    kinds: tuple[str, ...] = MISTAKES  # the reasons those mistakes are made for
    take_back: float = 0.5  # chance a bot notices its wrong card and takes it back
    joker_rate: float = 0.25  # chance of a joker for a card that fits nowhere but beside one


@dataclass
class BoardBot:
    id: str
    pile: list[tuple[str, str]]  # face down, top last
    discard: list[tuple[str, str]] = field(default_factory=list)  # face up, top last
    card: tuple[str, str] | None = None  # turned over, in hand
    ready_at: int = 0
    misses: int = 0  # cards put on the discard pile since the board last changed
    wrong: tuple[tuple[str, str], tuple[Cell, ...]] | None = None  # a wrong card it will take back
    jokers: list[Cell] = field(default_factory=list)  # jokers still to lay, one after the other, for its card

    def held(self) -> list[tuple[str, str]]:
        return self.pile + self.discard + ([self.card] if self.card else [])


def play_match(n_players: int = 2, seed: int = 0, options: BoardOptions | None = None,
               style: BoardBotStyle | None = None) -> tuple[BoardMatch, list[list[BoardEvent]]]:
    """A match of `options.rounds` rounds, a new board and deal each, the cards put aside carried
    over (RULES.md §2): the match and each round's log."""
    options = options or BoardOptions()
    rng = random.Random(seed)
    match = BoardMatch([f"P{i + 1}" for i in range(n_players)], options)
    logs = []
    while not match.is_over():
        table = BoardSimTable(n_players, rng.randrange(2**31), options, style,
                              cards={p: match.cards_for(p) for p in match.players})
        logs.append(table.run())
        match.add_round(table.round.ranks())
    return match, logs


def random_board(rng: random.Random, cols: int, rows: int, colours=COLOURS) -> Board:
    """A board of random field colours (the real one's sections are not modelled)."""
    return Board(tuple(tuple(rng.choice(colours) for _ in range(cols)) for _ in range(rows)), tuple(colours))


class BoardSimTable:
    """One round at a simulated table: `run()` plays it to its ranks and returns its events."""

    def __init__(self, n_players: int = 2, seed: int = 0, options: BoardOptions | None = None,
                 style: BoardBotStyle | None = None, board: Board | None = None,
                 cards: dict[str, int] | None = None, fps: float = 30.0):
        self.rng = random.Random(seed)
        self.options = options or BoardOptions()
        self.style = style or BoardBotStyle()
        self.fps = fps
        ids = [f"P{i + 1}" for i in range(n_players)]
        # the sample scenes' boards: 12 x 8 for two players, 12 x 12 for more
        self.board = board or random_board(self.rng, 12, 8 if n_players == 2 else 12)
        kinds = sorted(card_kinds(self.board.colours, self.options.one_colour_cards))
        counts = {p: (cards or {}).get(p, self.options.cards) for p in ids}
        self.bots = {p: BoardBot(p, [self._oriented(self.rng.choice(kinds)) for _ in range(counts[p])]) for p in ids}
        self.dealt = {p: sorted(kind(*c) for c in b.pile) for p, b in self.bots.items()}
        self.round = BoardRound(self.board, ids, self._set_up_tokens(), self.options, counts)
        self.frame = 0
        self.events: list[BoardEvent] = self.round.start(0)
        for b in self.bots.values():
            b.ready_at = self._secs(self.style.reaction_s)
        self.over = False
        self.timed_out = False

    # ---- running --------------------------------------------------------------------------
    def run(self, max_s: float = 1200.0) -> list[BoardEvent]:
        limit = int(max_s * self.fps)
        while not self.over:
            bot = min(self.bots.values(), key=lambda b: (b.ready_at, self.rng.random()))
            self.frame = bot.ready_at
            if self.frame > limit:  # a safety net the rules make unneeded: scored as it stands
                self.timed_out = True
                self.events += self.round.nobody_can_play(self.frame)
                self._end()
            else:
                self._act(bot)
        return self.events

    def _act(self, bot: BoardBot) -> None:
        bot.ready_at = self.frame + self._secs(self.style.reaction_s)
        if bot.wrong is not None:
            self._take_back(bot)
            return
        if bot.jokers:  # the next joker of a row, if it is still legal (another card may have covered its field)
            cell = bot.jokers.pop(0)
            if judge_joker(self.round.position, bot.id, cell).legal:
                self._lay_joker(bot, cell)
                return
            bot.jokers = []
        if bot.card is None:
            if not bot.pile:  # the discard pile turned over: its first card is on top again
                bot.pile, bot.discard = bot.discard[::-1], []
            bot.card = bot.pile.pop()
        if self.style.mistakes and self.rng.random() < self.style.mistakes and self._mistake(bot):
            return
        places = legal_places(self.round.position, bot.id, bot.card)
        if places:
            self._lay(bot, *self.rng.choice(places))
        elif not self._joker(bot):
            bot.discard.append(bot.card)
            bot.card = None
            bot.misses += 1
            self._check_nobody_can_play()

    def _lay(self, bot: BoardBot, colours, cells) -> None:
        pos = self.round.position
        onto = None
        v = self.round.judge(bot.id, colours, cells)
        if v.relocation:  # the player chooses the half: one the token can go on from, if either
            fine = [c for c in cells if not apply_place(pos, bot.id, colours, cells, v, self.frame, c)[0].duty(bot.id)]
            onto = self.rng.choice(fine or list(cells))
        bot.card = None
        self._emit(self.round.place(bot.id, colours, cells, self.frame, onto=onto))

    def _joker(self, bot: BoardBot) -> bool:
        if self.round.jokers_left(bot.id) <= 0:
            return False
        eager = bot.misses >= len(bot.held())  # been round its cards: the joker is the way on
        if not (eager or self.rng.random() < self.style.joker_rate):
            return False
        options = joker_places(self.round.position, bot.id, bot.card, self.round.jokers_left(bot.id))
        if not options:
            return False
        fewest = min(len(cells) for cells, _ in options)  # "use their jokers as sparingly as possible" (003)
        first, *bot.jokers = self.rng.choice([cells for cells, _ in options if len(cells) == fewest])
        self._lay_joker(bot, first)
        return True

    def _lay_joker(self, bot: BoardBot, cell: Cell) -> None:
        self._emit(self.round.joker(bot.id, cell, self.frame))
        bot.ready_at = self.frame + self._secs(self.style.reach_s)  # the next joker or the card follows at once

    def _mistake(self, bot: BoardBot) -> bool:
        """Lay the card wrongly for one of the style's reasons, if the board offers such a place."""
        kinds = [k for k in self.style.kinds if k != BoardReason.AFTER_STOP
                 and not (k == BoardReason.SWAPPED and self.options.swapped != "mistake")]
        if not kinds:
            return False
        why = self.rng.choice(kinds)
        places = list(self.board.card_places)
        self.rng.shuffle(places)
        a, b = bot.card
        for cells in places:
            for colours in ((a, b), (b, a)):
                if self.round.judge(bot.id, colours, cells).reason == why:
                    bot.card = None
                    out = self.round.place(bot.id, colours, cells, self.frame)
                    self._emit(out)
                    if self.rng.random() < self.style.take_back:
                        bot.wrong = (colours, out[0].cells)
                    return True
        return False

    def _take_back(self, bot: BoardBot) -> None:
        colours, cells = bot.wrong
        bot.wrong = None
        self._emit(self.round.takeback(bot.id, cells, self.frame))
        bot.discard.append(colours)

    def _check_nobody_can_play(self) -> None:
        """Once every bot has been round its cards without a play, the rules say whether anybody
        still can; the count starts anew if so (so this is asked once a round of cards)."""
        if any(b.misses < len(b.held()) for b in self.bots.values()):
            return
        pos = self.round.position
        if any(can_play(pos, b.id, b.held(), self.round.jokers_left(b.id)) for b in self.bots.values()):
            for b in self.bots.values():
                b.misses = 0
            return
        self.events += self.round.nobody_can_play(self.frame)
        self._end()

    def _emit(self, events: list[BoardEvent]) -> None:
        self.events += events
        for b in self.bots.values():
            b.misses = 0  # the board changed: a card that fitted nowhere may fit now
        if self.round.ender is not None and not self.over:
            self._late_cards()
            self._end()

    # ---- end of round -------------------------------------------------------------------------
    def _late_cards(self) -> None:
        """After the stop, a bot making mistakes may still put down the card it holds."""
        if BoardReason.AFTER_STOP not in self.style.kinds:
            return
        pos = self.round.position
        for b in self.bots.values():
            if b.id == self.round.ender or not b.held() or self.rng.random() >= self.style.mistakes:
                continue
            if b.card is None:  # the one it was turning over
                b.card = (b.pile or b.discard).pop()
            near = [cells for t in pos.tokens for cells in pos.next_places(t)] or list(self.board.card_places)
            cells = self.rng.choice(near)
            frame = self.frame + self._secs(self.style.reach_s)
            self.events += self.round.place(b.id, b.card, cells, frame)
            b.card = None
            self.frame = max(self.frame, frame)

    def _end(self) -> None:
        self.over = True
        self.events += self.round.rank_events(self.frame + int(RANK_AFTER_S * self.fps))

    # ---- set-up ----------------------------------------------------------------------------------
    def _set_up_tokens(self) -> dict[str, Cell]:
        """Four tokens on fields of the players' choice: apart, none in a cul-de-sac already (fewer
        where a small board has no room for four)."""
        cells: list[Cell] = []
        for cell in self.rng.sample(self.board.cells, len(self.board.cells)):
            if any(abs(cell[0] - c[0]) + abs(cell[1] - c[1]) < 3 for c in cells):
                continue
            trial = Position(self.board, (Token("new", cell),) + tuple(Token(str(c), c) for c in cells), self.options)
            if not trial.is_blocked(trial.tokens[0]):
                cells.append(cell)
            if len(cells) == 4:
                break
        return {f"T{i + 1}": c for i, c in enumerate(cells)}

    def _oriented(self, kind: tuple[str, str]) -> tuple[str, str]:
        return kind if self.rng.random() < 0.5 else (kind[1], kind[0])

    def _secs(self, span: tuple[float, float]) -> int:
        return max(1, int(round(self.rng.uniform(*span) * self.fps)))

    def all_cards_of(self, pid: str) -> list[tuple[str, str]]:
        """Every card of a player wherever it is now, as unordered colour pairs (conservation)."""
        lying = [l.colours for l in self.round.position.lying if l.owner == pid and not l.joker]
        return sorted(kind(*c) for c in self.bots[pid].held() + lying)
