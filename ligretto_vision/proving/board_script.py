"""A board round as the camera films it: the bots' moves, timed for the hands that make them, and
the truth the rules give for them (BOARD-SCENES.md).

The bots of `sim.board_table` play the round first (unfilmed): that gives the moves, in their
order, and each player's pace. The moves are then timed for the film, one piece at a time on the
board: each hand reaches in from its seat with its card (or picks up a joker lying beside its
seat), holds it a moment where it lands and lets go; after a legal card the same hand moves the
token onto the card's farther half, about half a second later; a card is taken back by a hand
that lifts it off again. The next piece comes to rest only once the last one (and its token) has,
so the order the rules judged the moves in is the order the camera sees. Before play, the four
tokens are set on the empty board one by one; after the round's end, cards laid after the stop
and wrong cards a player still meant to take back are taken back, and the ranks follow.

The truth is what a fresh `rules.board.BoardRound` says of the moves fed in at their filmed frames
(never re-implemented here): every `place`, `joker`, `takeback`, `round_end`, `rank`, and the
`token` events, each at the frame its token is set down. The replay must agree with the bots'
own round; where it does not, something here is wrong, and it says so.

What is filmed is kept as data (`BoardScript`): each piece's spans (lying still, or held by a hand,
moving from one pose to another), and each player's hand path; `board_film` draws frames of it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ligretto_vision.errors import LigrettoError
from ligretto_vision.events import Event
from ligretto_vision.geometry.seats import seat_edge
from ligretto_vision.proving.board_draw import BoardDraw
from ligretto_vision.rules.board import (BoardOptions, BoardReason, BoardRound, JokerEvent, PlaceEvent, RankEvent,
                                         RoundBlockedEvent, RoundEndEvent, TakebackEvent, TokenEvent)
from ligretto_vision.sim.board_table import BoardBotStyle, BoardSimTable

# how long the hands take (seconds, drawn in these ranges, divided by the players' speed)
CALM_S = 1.0  # the empty board alone in view before the first hand comes
REACH_S = (0.45, 0.7)  # from beyond the edge to where the piece lands
HOLD_S = (0.05, 0.1)  # from touching down to letting go (SCENES.md: 30-100 ms)
TO_TOKEN_S = (0.15, 0.22)  # from the card just laid to its token
GRIP_S = (0.08, 0.13)  # taking hold of a token, a joker or a card to take back
MOVE_TOKEN_S = (0.15, 0.25)  # carrying the token onto its new field
PICK_S = (0.3, 0.45)  # a joker from beside the seat to the board
RETREAT_S = (0.35, 0.55)  # back beyond the edge
THINK_S = (0.1, 1.8)  # between a player's moves: their bot's own pause (cards turned over), kept in this range
THINK_SHARE = 0.6  # of the bot's pause the film keeps
END_THINK_S = (0.3, 1.0)  # before a card is taken back after the round's end
CLEAR_S = 0.2  # a card taken back is off its fields this long after it left them
GAP_S = 0.1  # at least between one piece coming to rest and the next
END_S = 1.0  # the table still, every hand away, before the ranks
LATE_TAKEN_BACK = 0.7  # share of cards laid after the stop that their players take back again
CARD_JITTER_MM, CARD_JITTER_DEG = 2.0, 3.0  # a card lies on the grid this far off
JOKER_JITTER_MM, JOKER_JITTER_DEG = 1.5, 4.0
TOKEN_JITTER_MM = 1.0
REST_MM = 700.0  # a hand rests this far beyond its seat's edge (as the card game's, film.zone_places)
CARRY_TURN_DEG = 40.0  # a card in the hand is turned up to this much from how it will lie


Pose = tuple[float, float, float]  # x_mm, y_mm, angle (clockwise, degrees)


@dataclass
class Span:
    """A piece from frame `f0` to before `f1` (None: to the end): lying still at `pose0`, or
    (`held`) in a hand, moving from `pose0` to `pose1` as the hand does (eased in and out)."""
    f0: int
    f1: int | None
    pose0: Pose
    pose1: Pose
    held: bool

    def pose(self, f: int) -> Pose:
        if not self.held or self.f1 is None or self.f1 <= self.f0:
            return self.pose0
        u = min(1.0, max(0.0, (f - self.f0) / (self.f1 - self.f0)))
        u = u * u * (3 - 2 * u)  # as film.Arm eases the hand
        turn = (self.pose1[2] - self.pose0[2] + 180.0) % 360.0 - 180.0
        return (self.pose0[0] + (self.pose1[0] - self.pose0[0]) * u, self.pose0[1] + (self.pose1[1] - self.pose0[1]) * u,
                self.pose0[2] + turn * u)


@dataclass
class Piece:
    """A card (`look` "card:<left>+<right>", its colours as it lies turned by 0°), a joker or a token."""
    look: str
    owner: str | None
    spans: list[Span] = field(default_factory=list)

    @property
    def is_token(self) -> bool:
        return self.look == "token"

    def span(self, f: int) -> Span | None:
        for s in self.spans:
            if s.f0 <= f and (s.f1 is None or f < s.f1):
                return s
        return None

    def lift(self, f: int) -> Pose:
        """The piece lying now is picked up at frame `f`: its lying span ends there; where it lay."""
        last = self.spans[-1]
        if last.held or last.f1 is not None:
            raise LigrettoError(f"a {self.look} that is not lying cannot be picked up (frame {f})")
        last.f1 = f
        return last.pose0


@dataclass
class BoardScript:
    pieces: list[Piece]
    paths: dict[str, list[tuple[int, float, float]]]  # each player's hand: (frame, x_mm, y_mm), eased between
    rests: dict[str, tuple[float, float]]  # where each hand rests, beyond its seat's edge
    truth: list[Event]
    phases: list[dict]
    frames: int
    tokens: int  # set on the board before play


@dataclass
class _Move:
    """A move of the bots' round, as its events say: a card (`colours` on `cells`), a joker (`cell`),
    a takeback (`cells`) or the end nobody could play on; with what the bots' rules said of it."""
    kind: str
    player: str | None = None
    colours: tuple[str, str] | None = None
    cells: tuple | None = None
    cell: tuple | None = None
    legal: bool = True
    reason: str | None = None
    moved: list = field(default_factory=list)  # [(token, cell)]
    frame: int = 0  # in the bots' round


def board_script(d: BoardDraw) -> BoardScript:
    """The round of table `d`, played by its bots, timed for the film, with its truth."""
    rng = np.random.default_rng([d.seed, 29])
    ids = d.player_ids
    options = BoardOptions(cards=d.cards)
    style = BoardBotStyle(mistakes=d.mistakes, take_back=d.take_back)
    sim = BoardSimTable(d.n_players, int(rng.integers(2**31)), options, style, board=d.board,
                        cards={p: d.cards for p in ids}, fps=d.fps)
    set_up, moves = _moves(sim.run())
    ender = sim.round.ender
    # cards still to go back once the round is over: a wrong card its player meant to take back
    # (not the one that ended the round: its player called stop with it), most cards laid after the stop
    late = [m for m in moves if m.kind == "place" and m.reason == BoardReason.AFTER_STOP]
    end_takebacks = [_Move("takeback", b.id, cells=tuple(b.wrong[1])) for b in sim.bots.values()
                     if b.wrong is not None and b.id != ender]
    end_takebacks += [_Move("takeback", m.player, cells=m.cells) for m in late if rng.random() < LATE_TAKEN_BACK]

    tl = _Timeline(d, rng, options.jokers)
    rnd = BoardRound(d.board, ids, set_up, options, {p: d.cards for p in ids})
    truth = [Event("board", 0, {"fields": [list(r) for r in d.board.fields]})]
    for i, e in enumerate(rnd.start(0)):  # the players set the tokens down in turn
        truth.append(replace(e, frame=tl.set_token(ids[i % len(ids)], e.token, e.cell)).to_event())
    play_from = tl.start_play()
    play_to = None
    for m in moves:
        if m.kind == "blocked":
            events = rnd.nobody_can_play(tl.quiet_frame())
        elif m.kind == "takeback":
            f = tl.take_back(m.player, m.cells, tl.think(m))
            events = rnd.takeback(m.player, m.cells, f)
        else:
            if m.kind == "place":
                f, at = tl.lay_card(m.player, m.colours, m.cells, tl.think(m))
                verdict = rnd.judge(m.player, m.colours, m.cells)
                onto = m.moved[0][1] if verdict.relocation and m.moved else None  # the half the bot put the token on
                events = rnd.place(m.player, m.colours, m.cells, f, onto=onto)
            else:
                f, at = tl.lay_joker(m.player, m.cell, tl.think(m))
                events = rnd.joker(m.player, m.cell, f)
            moved = [(e.token, e.cell) for e in events if isinstance(e, TokenEvent)]
            token_frames = iter(tl.move_tokens(m.player, f, moved))
            events = [replace(e, frame=next(token_frames)) if isinstance(e, TokenEvent) else e for e in events]
            _agree(m, events, moved)
        for e in events:
            if isinstance(e, RoundEndEvent | RoundBlockedEvent):
                play_to = e.frame
            ev = e.to_event()
            if isinstance(e, PlaceEvent):
                ev.data["at"] = [round(at[0], 1), round(at[1], 1), round(at[2] % 360.0, 1)]
            truth.append(ev)
    if play_to is None:
        raise LigrettoError("the bots' round ended neither by a stop nor by nobody able to play")
    for m in end_takebacks:
        f = tl.take_back(m.player, m.cells, tl.frames(END_THINK_S))
        truth += [e.to_event() for e in rnd.takeback(m.player, m.cells, f)]
    last = tl.quiet_frame(END_S)
    truth += [e.to_event() for e in rnd.rank_events(last)]  # the count, after every card taken back
    truth.sort(key=lambda e: e.frame)  # stable: a card's place before its round_end
    phases = [{"name": "setup", "from": 0, "to": play_from - 1}, {"name": "play", "from": play_from, "to": play_to},
              {"name": "end", "from": play_to + 1, "to": last}]
    return BoardScript(tl.pieces, tl.paths, tl.rests, truth, phases, last + 1, len(set_up))


def _moves(events) -> tuple[dict, list[_Move]]:
    """The bots' round as its set-up tokens and its moves, in order."""
    set_up, moves = {}, []
    for e in events:
        if isinstance(e, PlaceEvent):
            moves.append(_Move("place", e.player, tuple(e.card.split("+")), e.cells, legal=e.legal, reason=e.reason,
                               frame=e.frame))
        elif isinstance(e, JokerEvent):
            moves.append(_Move("joker", e.player, cell=e.cell, legal=e.legal, reason=e.reason, frame=e.frame))
        elif isinstance(e, TakebackEvent):
            moves.append(_Move("takeback", e.player, cells=e.cells, frame=e.frame))
        elif isinstance(e, RoundBlockedEvent):
            moves.append(_Move("blocked", frame=e.frame))
        elif isinstance(e, TokenEvent):
            if moves:
                moves[-1].moved.append((e.token, e.cell))
            else:
                set_up[e.token] = e.cell
        elif not isinstance(e, RoundEndEvent | RankEvent):
            raise LigrettoError(f"the bots' round made a {e.type} event the film has no move for")
    return set_up, moves


def _agree(m: _Move, events, moved) -> None:
    """The rules, fed the move again, must say what they said in the bots' round."""
    first = events[0]
    if (first.legal, first.reason, moved) != (m.legal, m.reason, m.moved):
        raise LigrettoError(f"the film's replay of {m.player}'s {m.kind} (frame {first.frame}) disagrees with the "
                            f"bots' round: {first.legal, first.reason, moved} against {m.legal, m.reason, m.moved}")


class _Timeline:
    """Times the moves for the hands, one piece coming to rest on the board at a time, and keeps
    the pieces' spans and the hands' paths as it goes."""

    def __init__(self, d: BoardDraw, rng: np.random.Generator, jokers: int):
        self.d, self.rng = d, rng
        self.pieces: list[Piece] = []
        self.rests, self.paths, self.free = {}, {}, {}
        self.jokers: dict[str, list[Piece]] = {}
        self.pause_from: dict[str, int] = {}  # the bots' frame of each player's last move
        for pid, seat in zip(d.player_ids, d.seats):
            (ex, ey), (nx, ny) = seat_edge(seat, d.table_mm)
            self.rests[pid] = (ex - nx * REST_MM, ey - ny * REST_MM)
            self.paths[pid] = [(0, *self.rests[pid])]
            self.free[pid] = int(CALM_S * d.fps)  # the hand is (back) at its rest from this frame on
            self.jokers[pid] = [self._add(Piece("joker", pid, [Span(0, None, pose, pose, False)]))
                                for pose in self._joker_spots(seat, jokers)]
        self.tokens: dict[str, Piece] = {}
        self.cards: dict[tuple[str, frozenset], Piece] = {}  # lying on the board: (owner, cells) ->
        self.lock = 0  # the frame the last piece came to rest on the board

    # ---- time ---------------------------------------------------------------------------------
    def frames(self, span: tuple[float, float]) -> int:
        return max(1, int(round(self.rng.uniform(*span) * self.d.fps / self.d.speed)))

    def think(self, m: _Move) -> int:
        """The pause before this move: the bot's own since its last, in the film's range."""
        pause = (m.frame - self.pause_from.get(m.player, m.frame)) / self.d.fps * THINK_SHARE
        self.pause_from[m.player] = m.frame
        return max(1, int(round(min(max(pause, THINK_S[0]), THINK_S[1]) * self.d.fps / self.d.speed)))

    def _let_go(self, pid: str, work: int, think: int) -> int:
        """The frame a piece of `pid` comes to rest at: `work` frames of the hand's after it is back
        and has paused `think`, and after the last piece on the board has come to rest."""
        return max(self.free[pid] + think + work, self.lock + max(1, int(round(GAP_S * self.d.fps))))

    def start_play(self) -> int:
        """Play begins once every hand of the set-up is away: the frame it does."""
        f = max(max(self.free.values()), self.lock) + 1
        for pid in self.free:
            self.free[pid] = f
        self.lock = f
        return f

    def quiet_frame(self, after_s: float = 0.0) -> int:
        """A frame `after_s` after every hand is away and every piece lies still."""
        f = max(max(self.free.values()), self.lock) + int(round(after_s * self.d.fps))
        self.lock = f
        return f

    # ---- moves ---------------------------------------------------------------------------------
    def set_token(self, pid: str, token: str, cell) -> int:
        """A token brought in and set down on `cell` at set-up: the frame it is let go."""
        reach, hold = self.frames(REACH_S), self.frames(HOLD_S)
        let_go = self._let_go(pid, reach + hold, self.frames(THINK_S))
        dst = self._token_pose(cell)
        rest = (*self.rests[pid], 0.0)
        self._hand(pid, (let_go - hold - reach, rest), (let_go - hold, dst), (let_go, dst))
        self.tokens[token] = self._add(Piece("token", None, [Span(let_go - hold - reach, let_go - hold, rest, dst, True),
                                                             Span(let_go - hold, let_go, dst, dst, True),
                                                             Span(let_go, None, dst, dst, False)]))
        self.lock = let_go
        self._retreat(pid, let_go)
        return let_go

    def lay_card(self, pid: str, colours, cells, think: int) -> tuple[int, Pose]:
        """A card brought in from beyond the edge and laid on `cells` (`colours` in their order): the
        frame the hand lets go, and where it lies."""
        reach, hold = self.frames(REACH_S), self.frames(HOLD_S)
        let_go = self._let_go(pid, reach + hold, think)
        look, dst = self._card_pose(colours, cells)
        touch, start = let_go - hold, let_go - hold - reach
        carried = (*self.rests[pid], dst[2] + self.rng.uniform(-CARRY_TURN_DEG, CARRY_TURN_DEG))
        self._hand(pid, (start, carried), (touch, dst), (let_go, dst))
        self.cards[(pid, frozenset(map(tuple, cells)))] = self._add(
            Piece(look, pid, [Span(start, touch, carried, dst, True), Span(touch, let_go, dst, dst, True),
                              Span(let_go, None, dst, dst, False)]))
        self.lock = let_go
        return let_go, dst

    def lay_joker(self, pid: str, cell, think: int) -> tuple[int, Pose]:
        """One of the player's jokers picked up from beside the seat and laid on `cell`."""
        if not self.jokers[pid]:
            raise LigrettoError(f"{pid} lays a third joker")
        joker = self.jokers[pid].pop(0)
        reach, grip, pick, hold = self.frames(REACH_S), self.frames(GRIP_S), self.frames(PICK_S), self.frames(HOLD_S)
        let_go = self._let_go(pid, reach + grip + pick + hold, think)
        touch = let_go - hold
        lift = touch - pick
        spot = joker.spans[-1].pose0
        c = self.d.cell_centre(cell)
        j = JOKER_JITTER_MM
        dst = (c[0] + self.rng.uniform(-j, j), c[1] + self.rng.uniform(-j, j),
               float(self.rng.uniform(-JOKER_JITTER_DEG, JOKER_JITTER_DEG)))
        self._hand(pid, (lift - grip - reach, (*self.rests[pid], 0.0)), (lift - grip, spot), (lift, spot), (touch, dst), (let_go, dst))
        joker.lift(lift)
        joker.spans += [Span(lift, touch, spot, dst, True), Span(touch, let_go, dst, dst, True), Span(let_go, None, dst, dst, False)]
        self.cards[(pid, frozenset([tuple(cell)]))] = joker
        self.lock = let_go
        return let_go, dst

    def move_tokens(self, pid: str, let_go: int, moved) -> list[int]:
        """After the piece let go at `let_go`, the same hand moves each token the rules moved onto its
        new field; the frames each is set down (let go) at. Then the hand goes back."""
        f, out = let_go, []
        for token, cell in moved:
            piece = self.tokens[token]
            reach, grip, carry, hold = self.frames(TO_TOKEN_S), self.frames(GRIP_S), self.frames(MOVE_TOKEN_S), self.frames(HOLD_S)
            lift = f + reach + grip
            down = lift + carry
            release = down + hold
            src = piece.lift(lift)
            dst = self._token_pose(cell)
            self._hand(pid, (lift - grip, src), (lift, src), (down, dst), (release, dst))
            piece.spans += [Span(lift, down, src, dst, True), Span(down, release, dst, dst, True),
                            Span(release, None, dst, dst, False)]
            out.append(release)
            f = release
        self.lock = f
        self._retreat(pid, f)
        return out

    def take_back(self, pid: str, cells, think: int) -> int:
        """The player's card on `cells` lifted off and carried away: the first frame it has left its place."""
        card = self.cards.pop((pid, frozenset(map(tuple, cells))))
        reach, grip, away = self.frames(REACH_S), self.frames(GRIP_S), self.frames(REACH_S)
        lift = self._let_go(pid, reach + grip, think)
        pose = card.lift(lift)
        gone = (*self.rests[pid], pose[2] + self.rng.uniform(-CARRY_TURN_DEG, CARRY_TURN_DEG))
        self._hand(pid, (lift - grip - reach, (*self.rests[pid], 0.0)), (lift - grip, pose), (lift, pose), (lift + away, gone))
        card.spans.append(Span(lift, lift + away, pose, gone, True))  # then out of view: in the player's hand
        self.free[pid] = lift + away
        self.lock = lift + 1 + int(round(CLEAR_S * self.d.fps))
        return lift + 1  # at `lift` it is held where it lay; it moves from the next frame

    # ---- hands and places ------------------------------------------------------------------------
    def _hand(self, pid: str, *keys) -> None:
        path = self.paths[pid]
        for f, pose in keys:
            if f < path[-1][0]:
                raise LigrettoError(f"{pid}'s hand planned back in time (frame {f} after {path[-1][0]})")
            path.append((f, pose[0], pose[1]))

    def _retreat(self, pid: str, f: int) -> None:
        back = f + self.frames(RETREAT_S)
        self._hand(pid, (back, (*self.rests[pid], 0.0)))
        self.free[pid] = back

    def _add(self, piece: Piece) -> Piece:
        self.pieces.append(piece)
        return piece

    def _card_pose(self, colours, cells) -> tuple[str, Pose]:
        """How a card lies on `cells`, `colours[0]` on the first: its picture (left and right halves
        at 0°) and its pose, a little off the grid. Either end of a card may point either way, so
        half the cards are drawn the other way round and turned half a turn further."""
        (a, b), d = cells, self.d
        ca, cb = d.cell_centre(a), d.cell_centre(b)
        step = (b[0] - a[0], b[1] - a[1])
        angle = {(1, 0): 0.0, (0, 1): 90.0, (-1, 0): 180.0, (0, -1): 270.0}[step]
        left, right = colours
        if self.rng.random() < 0.5:
            left, right, angle = right, left, angle + 180.0
        j = CARD_JITTER_MM
        pose = ((ca[0] + cb[0]) / 2 + self.rng.uniform(-j, j), (ca[1] + cb[1]) / 2 + self.rng.uniform(-j, j),
                (angle + self.rng.uniform(-CARD_JITTER_DEG, CARD_JITTER_DEG)) % 360.0)
        return f"card:{left}+{right}", pose

    def _token_pose(self, cell) -> Pose:
        c, j = self.d.cell_centre(cell), TOKEN_JITTER_MM
        return c[0] + self.rng.uniform(-j, j), c[1] + self.rng.uniform(-j, j), 0.0

    def _joker_spots(self, seat: float, jokers: int) -> list[Pose]:
        """Where a player's jokers lie before they are used: halfway between their edge and the
        board, side by side to the player's right of the board's middle."""
        d = self.d
        (ex, ey), (nx, ny) = seat_edge(seat, d.table_mm)
        rx, ry = -ny, nx  # the player's right, facing the board
        bw, bh = d.board_mm
        cx, cy = d.origin_mm[0] + bw / 2, d.origin_mm[1] + bh / 2
        if ny:  # south or north: from the middle of the gap between edge and board, along the edge
            gap, half = abs(ey - cy) - bh / 2, bw / 2
            x0, y0 = cx, ey + ny * gap / 2
        else:
            gap, half = abs(ex - cx) - bw / 2, bh / 2
            x0, y0 = ex + nx * gap / 2, cy
        along = half * self.rng.uniform(0.3, 0.6)
        out = []
        for _ in range(jokers):
            out.append((x0 + rx * along, y0 + ry * along, float(self.rng.uniform(-12, 12))))
            along += d.field_mm * self.rng.uniform(1.15, 1.4)
        return out
