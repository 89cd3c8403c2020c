"""A simulated Ligretto table: bot players play whole rounds by the rules.

It is the built-in table when no camera is attached, the ground truth for rendered
training images, and a generator of event logs in the SCENES.md format. Every
move goes through `rules.Round`, so the bots never decide legality themselves:
they ask the rules, like the vision referee does.

Time runs in frames. A bot's move takes human time: a reaction, a reach, the card
touching the pile and coming to rest a few frames later. Two bots going for the
same pile can collide; the one that touched later loses the dispute and takes
its card back, exactly as at a real table.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from ligretto_vision.events import Event
from ligretto_vision.geometry.seats import default_seats, seat_direction, seat_name
from ligretto_vision.rules import Card, Round, RuleOptions, edition, full_set
from ligretto_vision.rules.round import pile_key
from ligretto_vision.rules.scoring import round_score

SETTLE_FRAMES = 2  # a card rests ~30-100 ms after it first touches (SCENES.md)


@dataclass
class BotStyle:
    reaction_s: tuple[float, float] = (0.30, 0.90)  # looking, deciding
    reach_s: tuple[float, float] = (0.25, 0.55)  # hand to the pile until the card touches
    flip_s: tuple[float, float] = (0.45, 0.80)  # turning hand cards over
    mistakes: float = 0.0  # chance that a play is deliberately wrong (for tests and training data)


@dataclass
class SimPlayer:
    id: str
    seat: float  # an angle (geometry/seats.py)
    stack: list[Card]  # top is last
    row: list[Card | None]
    hand: list[Card]  # face down, top is last
    discard: list[Card] = field(default_factory=list)  # top is last
    held: "Move | None" = None  # the move under way
    ready_at: int = 0  # the frame the bot next looks at the table


@dataclass
class Move:
    kind: str  # "play", "refill", "flip", "recycle", "takeback"
    done_at: int
    card: Card | None = None
    source: str | None = None
    pile: int | str | None = None
    touch: int | None = None
    slot: int | None = None  # row position for refills and returns
    at: list[float] | None = None
    deliberate: bool = False  # a mistake made on purpose: laid even though it does not fit


@dataclass
class PileView:
    id: int | str
    at: tuple[float, float]
    cards: list[tuple[str, str | None]]  # (card, owner) as they lie, bottom first (a stray under a card laid after it)


@dataclass
class TableState:
    """The whole table at one frame: everything a renderer or the panel needs."""
    frame: int
    piles: list[PileView]
    players: dict[str, dict]
    ended: bool


class SimTable:
    def __init__(self, n_players: int = 4, seed: int = 0, options: RuleOptions | None = None,
                 fps: float = 30.0, edition_name: str = "classic", style: BotStyle | None = None,
                 table_mm: tuple[float, float] | None = None):
        self.rng = random.Random(seed)
        self.options = options or RuleOptions()
        self.fps = fps
        self.edition = edition(edition_name)
        self.style = style or BotStyle()
        ids = [f"P{i + 1}" for i in range(n_players)]
        self.round = Round(ids, self.options, fps)
        self.table_mm = table_mm or ((1300.0, 760.0) if n_players <= 4 else (1800.0, 1400.0))
        self.frame = 0
        self.events: list[Event] = []
        self.blocked = False
        self._blocked_at = 0
        self.counted = False
        self.pile_at: dict[str, tuple[float, float]] = {}
        self.players: dict[str, SimPlayer] = {}
        seats = default_seats(n_players)
        for i, pid in enumerate(ids):
            deck = full_set(self.edition.colours)
            self.rng.shuffle(deck)
            n_stack, n_row = self.options.stack_length(n_players), self.options.row_length(n_players)
            if n_players == 2 and self.options.two_player_big:
                deck = deck + full_set(self.edition.colours)  # two sets mixed (000 §1.3)
                self.rng.shuffle(deck)
            self.players[pid] = SimPlayer(pid, seats[i], stack=deck[:n_stack], row=deck[n_stack:n_stack + n_row],
                                          hand=deck[n_stack + n_row:])
            self.players[pid].ready_at = self._secs(self.style.reaction_s)
            z = self.round.zones[pid]
            z.stack_top, z.row = self.players[pid].stack[-1], list(self.players[pid].row)

    # ---- running -----------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.counted

    def run(self, max_s: float = 1800.0) -> list[Event]:
        limit = int(max_s * self.fps)
        while not self.over and self.frame < limit:
            self.step()
        if not self.over:  # nobody could finish in time: score it as it stands (001)
            self._block()
            self._count()
        return self.events

    def step(self) -> list[Event]:
        """Advance one frame; returns the events of that frame."""
        start = len(self.events)
        f = self.frame
        for p in self.players.values():
            if p.held and p.held.done_at <= f:
                self._finish(p, p.held)
        if not self.round.end and not self.blocked:
            for p in self.rng.sample(list(self.players.values()), len(self.players)):
                if p.held is None and f >= p.ready_at:
                    self._decide(p)
            if f % int(self.fps) == 0 and self._is_blocked():
                self._block()
        if (self.round.end or self.blocked) and not self.counted and all(p.held is None for p in self.players.values()):
            if f >= self._end_frame() + int(2 * self.fps):
                self._count()
        self.frame += 1
        return self.events[start:]

    def _end_frame(self) -> int:
        return self.round.end[0] if self.round.end else self._blocked_at

    # ---- bot decisions --------------------------------------------------------------------
    def _decide(self, p: SimPlayer) -> None:
        f = self.frame
        options = self._playable(p)
        mistake = self.style.mistakes and self.rng.random() < self.style.mistakes
        if mistake and options:
            card, source, slot = self.rng.choice(options)
            target = self._wrong_pile(p, card)
            if target is not None:
                self._start_play(p, card, source, slot, target, deliberate=True)
                return
        legal = [(c, s, i, t) for c, s, i in options if (t := self._target(p, c)) is not None]
        if legal:
            c, s, i, t = legal[0]
            self._start_play(p, c, s, i, t)
        elif None in p.row and p.stack:  # the stack's top is in the hand from now on
            p.held = Move("refill", f + self._secs(self.style.reach_s), card=p.stack.pop(), slot=p.row.index(None))
        elif p.hand:
            p.held = Move("flip", f + self._secs(self.style.flip_s))
        elif p.discard:
            p.held = Move("recycle", f + self._secs(self.style.flip_s))
        else:
            p.ready_at = f + self._secs(self.style.reaction_s)

    def _playable(self, p: SimPlayer) -> list[tuple[Card, str, int | None]]:
        """The cards a player may put into the centre, stack top first (it ends the round)."""
        out: list[tuple[Card, str, int | None]] = []
        if p.stack:
            out.append((p.stack[-1], "stack", None))
        out += [(c, "row", i) for i, c in enumerate(p.row) if c is not None]
        if p.discard:
            out.append((p.discard[-1], "discard", None))
        return out

    def _target(self, p: SimPlayer, card: Card) -> int | str | None:
        """A pile the rules accept this card on (None: none); a 1 opens a new pile."""
        if card.number == 1:
            return "new" if self.round.judge(p.id, card, None, self.frame).legal else None
        fits = [pile.id for pile in self.round.piles.values()
                if pile.cards and self.round.judge(p.id, card, pile.id, self.frame).legal]
        return self.rng.choice(fits) if fits else None

    def _wrong_pile(self, p: SimPlayer, card: Card) -> int | str | None:
        wrong = [pile.id for pile in self.round.piles.values()
                 if pile.cards and not self.round.judge(p.id, card, pile.id, self.frame).legal]
        return self.rng.choice(wrong) if wrong else None

    def _start_play(self, p: SimPlayer, card: Card, source: str, slot: int | None, target,
                    deliberate: bool = False) -> None:
        if target == "new":
            target = self.round.new_pile_id()
            self.pile_at[pile_key(target)] = self._free_spot(p)
        touch = self.frame + self._secs(self.style.reach_s)
        self._remove_from_zone(p, source, slot)
        # where the card will rest is known when the hand sets off (a renderer draws it on its way there)
        sx, sy = self.pile_at.get(pile_key(target), self._free_spot(p))
        at = [round(sx + self.rng.uniform(-6, 6), 1), round(sy + self.rng.uniform(-6, 6), 1),
              round(_signed(-p.seat + self.rng.uniform(-12, 12)), 1)]  # turned towards its player
        p.held = Move("play", touch + SETTLE_FRAMES, card=card, source=source, pile=target, touch=touch, slot=slot,
                      at=at, deliberate=deliberate)

    def _still_fits(self, p: SimPlayer, m: Move) -> bool:
        """At touch-down: does the card still fit, or is it racing a card of the same value (a dispute)?"""
        pile = self.round.piles.get(pile_key(m.pile))
        if self.round.judge(p.id, m.card, m.pile, self.frame, touch=m.touch).legal:
            return True
        top = pile.top if pile is not None else None
        return (top is not None and top.card == m.card and top.owner != p.id
                and self.frame - top.frame <= self.round.together_frames)

    def _remove_from_zone(self, p: SimPlayer, source: str, slot: int | None) -> None:
        if source == "stack":
            p.stack.pop()
        elif source == "row":
            p.row[slot] = None
        else:
            p.discard.pop()

    # ---- moves finishing ---------------------------------------------------------------------
    def _finish(self, p: SimPlayer, m: Move) -> None:
        f = self.frame
        p.held = None
        p.ready_at = f + self._secs(self.style.reaction_s)
        if m.kind == "play":
            if not m.deliberate and not self._still_fits(p, m):
                self._return(p, m.card, m.source, m.slot)  # the pile changed under its hand: the bot keeps its card
                return
            out = self.round.play(p.id, m.card, m.pile, f, source=m.source, touch=m.touch, at=m.at)
            self._emit(out)
            if not out[0].data["legal"]:  # an illegal card goes back where it came from
                back = Move("takeback", f + self._secs((1.0, 2.0)), card=m.card, source=m.source, pile=m.pile, slot=m.slot)
                p.held = back
            else:
                self._sync_top(p, m.source)
        elif m.kind == "takeback":
            self._emit(self.round.takeback(p.id, m.card, m.pile, f, to=m.source))
            self._return(p, m.card, m.source, m.slot)
        elif m.kind == "refill":
            card = m.card
            p.row[m.slot] = card
            self._emit(self.round.refill(p.id, card, f))
            self._sync_top(p, "stack")
        elif m.kind == "flip":
            n = min(self.options.hand_count, len(p.hand))
            for _ in range(n):
                p.discard.append(p.hand.pop())
            self._emit(self.round.flip(p.id, p.discard[-1], n, f))
        elif m.kind == "recycle":
            p.hand = p.discard[::-1]
            p.discard = []
            self.rng.shuffle(p.hand)  # "kurz durchgemischt" (001)
            self._emit(self.round.recycle(p.id, f))

    def _return(self, p: SimPlayer, card: Card, source: str, slot: int | None) -> None:
        if source == "stack":
            p.stack.append(card)
        elif source == "discard":
            p.discard.append(card)
        elif p.row[slot] is None:
            p.row[slot] = card
        else:
            p.row.append(card)  # its place was refilled meanwhile: it lies beside the row
        z = self.round.zones[p.id]
        z.stack_top = p.stack[-1] if p.stack else None
        z.row = [c for c in p.row if c is not None]
        z.discard_top = p.discard[-1] if p.discard else None

    def _sync_top(self, p: SimPlayer, source: str) -> None:
        """The player's newly shown card is seen by everyone, the rules included."""
        z = self.round.zones[p.id]
        if source == "stack":
            z.stack_top = p.stack[-1] if p.stack else None
        elif source == "discard":
            z.discard_top = p.discard[-1] if p.discard else None

    def _emit(self, events: list[Event]) -> None:
        self.events += events

    # ---- end of round ---------------------------------------------------------------------
    def _is_blocked(self) -> bool:
        """Nobody can play: every reachable card fits nowhere and no row gap can be refilled."""
        for p in self.players.values():
            if p.held is not None or (None in p.row and p.stack):
                return False
            reachable = [c for c in (p.row + p.hand + p.discard + p.stack[-1:]) if c is not None]
            if any(self.round.can_play(c) for c in reachable):
                return False
        return True

    def _block(self) -> None:
        if not self.blocked and not self.round.end:
            self.blocked = True
            self._blocked_at = self.frame
            self._emit([Event("round_blocked", self.frame, {})])

    def _count(self) -> None:
        self.counted = True
        centre = self.round.centre_cards()
        for p in self.players.values():
            stack = len(p.stack)
            score = round_score(centre[p.id], stack, self.options, tens=self.round.tens_in_centre(p.id),
                                illegal=self.round.zones[p.id].illegal)
            self._emit([Event("count", self.frame, {"player": p.id, "centre": centre[p.id], "stack": stack,
                                                    "score": score})])

    # ---- geometry ------------------------------------------------------------------------------
    def _free_spot(self, p: SimPlayer) -> tuple[float, float]:
        """Where a new pile goes: a free place in the centre, leaning towards the player's side."""
        w, h = self.table_mm
        cx, cy = w / 2, h / 2
        taken = list(self.pile_at.values())
        best, best_d = None, 1e18
        dx, dy = seat_direction(p.seat)
        pref = (cx + dx * w * 0.12, cy + dy * h * 0.12)
        for gx in range(-6, 7):
            for gy in range(-3, 4):
                x, y = cx + gx * 120.0, cy + gy * 120.0
                if abs(x - cx) > w * 0.32 or abs(y - cy) > h * 0.26:
                    continue
                if any(abs(x - tx) < 100 and abs(y - ty) < 100 for tx, ty in taken):
                    continue
                d = (x - pref[0]) ** 2 + (y - pref[1]) ** 2 + self.rng.uniform(0, 2000)
                if d < best_d:
                    best, best_d = (x, y), d
        return best or (cx + self.rng.uniform(-w * 0.3, w * 0.3), cy + self.rng.uniform(-h * 0.25, h * 0.25))

    def _secs(self, span: tuple[float, float]) -> int:
        return max(1, int(round(self.rng.uniform(*span) * self.fps)))

    # ---- the whole table at this moment ----------------------------------------------------------
    def snapshot(self) -> TableState:
        piles = [PileView(pile.id, self.pile_at.get(k, (0.0, 0.0)),
                          [(str(pc.card), pc.owner) for pc in sorted(pile.cards + pile.strays, key=lambda pc: pc.frame)])
                 for k, pile in self.round.piles.items()]
        players = {p.id: {"seat": p.seat, "stack": [str(c) for c in p.stack], "row": [str(c) if c else None for c in p.row],
                          "hand": len(p.hand), "discard": [str(c) for c in p.discard],
                          "held": None if p.held is None else {"kind": p.held.kind, "card": str(p.held.card) if p.held.card else None}}
                   for p in self.players.values()}
        return TableState(self.frame, piles, players, self.over)

    def all_cards_of(self, pid: str) -> list[Card]:
        """Every card of a player's set wherever it lies now (for conservation checks)."""
        p = self.players[pid]
        cards = p.stack + [c for c in p.row if c] + p.hand + p.discard
        if p.held and p.held.kind in ("play", "refill"):
            cards.append(p.held.card)
        cards += [pc.card for pile in self.round.piles.values() for pc in pile.cards + pile.strays if pc.owner == pid]
        return cards

    def scene_players(self) -> list[dict]:
        return [{"id": p.id, "seat": seat_name(p.seat)} for p in self.players.values()]


def _signed(deg: float) -> float:
    return (deg + 180.0) % 360.0 - 180.0
