"""One round of the card game: centre piles, what is known of each player's cards,
and the judgement of every move (RULES.md §1). No camera code lives here: the
simulated table, `check-log` and the vision referee all feed moves in and get
events out, so legality is decided in exactly one place.

Time is counted in video frames (`fps` converts the grace and dispute windows).
What a camera cannot know (a hand's order, a pile laid before the video began)
is `None` and simply not checked. A card the watcher read too unsurely to judge
(`sure=False`) lies on its pile all the same, but is never called illegal, nor is
a card laid on it that could be legal (`on_unsure_top`): a false "illegal" is the
worst a referee can call.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ligretto_vision.events import Event, amendment
from ligretto_vision.rules.cards import Card, check_player_count, parse_card
from ligretto_vision.rules.options import RuleOptions
from ligretto_vision.rules.reasons import Reason, UnsureOf

SOURCES = ("row", "stack", "discard")


class ImpossibleMove(ValueError):
    """A move that cannot have happened (taking back a card that is not there, ...)."""


@dataclass(frozen=True)
class Verdict:
    """Legal or not (and why); `legal` None: not judged, because what the card is, or what it lies
    on, was read too unsurely to say (`unsure_of`: the card, or the pile top)."""
    legal: bool | None
    reason: Reason | None = None
    unsure_of: UnsureOf | None = None

    @property
    def unsure(self) -> bool:
        return self.legal is None


@dataclass
class PileCard:
    card: Card
    owner: str | None  # None: laid before we started watching
    frame: int  # the frame it came to rest
    touch: int | None = None  # the frame it first touched the pile, where known
    sure: bool = True  # False: not judged when laid (read too unsurely, or what it lay on was not known): no firm top
    taken: int | None = None  # the frame it was taken back, once it was


@dataclass
class Pile:
    id: int | str
    cards: list[PileCard] = field(default_factory=list)  # the legal run, 1 at the bottom
    strays: list[PileCard] = field(default_factory=list)  # illegal cards lying on it until taken back
    unseen: bool = False  # something lay here that nobody read (the watcher missed it): its run is not known

    @property
    def top(self) -> PileCard | None:
        return self.cards[-1] if self.cards else None

    @property
    def closed(self) -> bool:
        return bool(self.cards) and self.cards[-1].card.number == 10

    @property
    def colour(self) -> str | None:
        return self.cards[0].card.colour if self.cards else None


@dataclass
class Zone:
    """What is known of one player's own cards. None = unknown to the watcher."""
    stack: int | None
    stack_top: Card | None = None
    row: list[Card] | None = None
    discard_top: Card | None = None
    played: int = 0  # cards this player laid legally that still lie in the centre
    illegal: int = 0
    # cards in the player's hand that were picked up from `source` before watching began and
    # lie in none of the places above; each may still be played (or refilled) from there
    held: list[tuple[Card, str]] = field(default_factory=list)

    def held_from(self, card: Card, source: str | None) -> tuple[Card, str] | None:
        """The held entry `card` is played from (any held copy when the source is not known)."""
        return next((h for h in self.held if h[0] == card and source in (None, h[1])), None)

    def held_from_stack(self) -> bool:
        """A stack card is still in hand: the stack is not done with until it is laid."""
        return any(src == "stack" for _, src in self.held)


def resolve_dispute(claims: list[tuple[str, int]]) -> str:
    """RULES.md §1 Disputes: the card that touched first wins; the same instant means both stay."""
    if len(claims) < 2:
        raise ValueError("a dispute needs at least two claims")
    first = min(t for _, t in claims)
    firsts = [p for p, t in claims if t == first]
    return firsts[0] if len(firsts) == 1 else "both"


def on_unsure_top(card: Card, top: Card) -> Verdict:
    """`card` laid on a pile whose top (`top`, as best read) was read too unsurely to know it: one
    that follows that reading is legal (the likeliest, and nobody is wrongly accused); anything else
    is not judged, since what it lies on is not known."""
    return Verdict(True) if card.follows(top) else Verdict(None, unsure_of=UnsureOf.PILE_TOP)


def pile_key(pile_id: int | str) -> str:
    return str(pile_id)


RECENT_S = 5.0  # how long a legal play is remembered in case a stop seen late makes it after-stop


@dataclass(frozen=True)
class Doubts:
    """What a referee that only sees the table doubts (a simulation, which knows it, doubts nothing).

    `left_lying_s`: a card called invalid goes back at once (RULES); one still lying on a pile
    longer than this says the pile is not what the verdicts made it (a card misread or unseen), so
    the next card that does not follow the pile's top is not judged. None: never.
    `gathering`: after the stop the centre is gathered up for the count; a card that shows there
    and does not follow its pile is likelier uncovered or moved in the gathering than played, so it
    is not judged (one that follows its pile is a late play: after the stop).
    `confirm_s`: an illegal card goes back at once, so a call stands once its card is seen taken
    back; one still lying this long after was likelier misread (or the pile's top was) than laid
    wrongly, and the call is amended to unsure (`Round.unconfirmed`). None: every call stands.
    `taken_least_s`: a card seen gone sooner than this after it came to rest never lay there (a card
    in a passing hand, or the top of a dispute that was one card): that takeback confirms no call."""
    left_lying_s: float | None = None
    gathering: bool = False
    confirm_s: float | None = None
    taken_least_s: float = 0.0


class Round:
    def __init__(self, players: list[str], options: RuleOptions | None = None, fps: float = 30.0,
                 doubts: Doubts = Doubts()):
        check_player_count(len(players))
        if len(set(players)) != len(players):
            raise ValueError("player ids must differ")
        self.players = list(players)
        self.options = options or RuleOptions()
        self.fps = float(fps)
        self.doubts = doubts
        stack = self.options.stack_length(len(players))
        self.zones: dict[str, Zone] = {p: Zone(stack=stack) for p in players}
        self.piles: dict[str, Pile] = {}
        self.end: tuple[int, str] | None = None  # (frame, player) of "Ligretto Stop!"
        self._last_laid: dict[str, int] = {}  # player -> the frame their latest card laid came to rest
        self._next_pile = 1
        # plays judged legal before the stop was known: a stop seen late (a stack's last card gone
        # into the row) may still make some of them after-stop
        # (play event, card, pile, its pile_closed event if it was a 10)
        self._legal_plays: list[tuple[Event, PileCard, Pile, Event | None]] = []
        # plays called illegal whose card has not yet been seen going back (Doubts.confirm_s)
        self._calls: list[tuple[Event, PileCard, Pile]] = []

    # ---- set-up -----------------------------------------------------------------
    def load_state(self, state: dict, colours) -> None:
        """Take a `state` line (SCENES.md) as the table at its frame.

        A `null` in a row is an empty place (a gap waiting for a refill). `held` lists the cards
        the player has in hand at that frame: `{"card", "from"}` was picked up from that place
        (the stack size, row and discard top given leave it out) and may still be played or
        refilled from there; `{"card", "to"}` was taken back from a pile and is on its way to
        that place, so it is counted there at once. Bad input raises ValueError naming it.
        """
        frame = int(state.get("frame", 0))
        piles, players = state.get("piles"), state.get("players")
        if not isinstance(piles, dict):
            raise ValueError("state: 'piles' must be an object of pile id -> list of cards")
        if not isinstance(players, dict):
            raise ValueError("state: 'players' must be an object of player id -> their cards")
        new_piles: dict[str, Pile] = {}
        for pid, cards in piles.items():
            if not isinstance(cards, list):
                raise ValueError(f"state: pile {pid} must be a list of cards, not {cards!r}")
            pile = Pile(_pile_id(pid))
            for text in cards:
                pile.cards.append(PileCard(_state_card(text, colours, f"pile {pid}"), None, frame))
            new_piles[pile_key(pid)] = pile
        zones: dict[str, Zone] = {}
        for p, z in players.items():
            if p not in self.zones:
                raise ValueError(f"state names player {p!r}, who is not at this table "
                                 f"(players: {', '.join(self.players)})")
            zones[p] = _state_zone(p, z, colours, self.options)
        self.piles.update(new_piles)
        self.zones.update(zones)
        self._bump_next_pile()

    def add_seen_pile(self, top: Card, frame: int, sure: bool = True) -> int:
        """A pile found lying in the centre when watching began: the run up to its top card is
        assumed (only the top matters for what may follow); the owners are not known. `sure`
        False: its top was read too unsurely to judge the next card by."""
        pid = self.new_pile_id()
        self.piles[pile_key(pid)] = Pile(pid, [PileCard(Card(top.colour, n), None, frame, sure=sure or n < top.number)
                                               for n in range(1, top.number + 1)])
        return pid

    def add_unseen_pile(self) -> int:
        """A pile the watcher finds only when a card lands on it (it lay where the table was not bare,
        but no pile was known there): what it holds is not known, so the first card laid on it is
        not judged; the cards after that are judged by it."""
        pid = self.new_pile_id()
        self.piles[pile_key(pid)] = Pile(pid, unseen=True)
        return pid

    def doubt_top(self, pile_id: int | str) -> None:
        """The watcher saw the pile's top place change with no card seen laid there: its top is no
        longer known for sure, so only a card that follows it is judged (`on_unsure_top`)."""
        pile = self.piles.get(pile_key(pile_id))
        if pile is not None and pile.cards:
            pile.cards[-1].sure = False

    def _bump_next_pile(self) -> None:
        nums = [int(k) for k in self.piles if k.isdigit()]
        self._next_pile = max([self._next_pile - 1, *nums]) + 1

    def new_pile_id(self) -> int:
        pid = self._next_pile
        self._next_pile += 1
        return pid

    # ---- judging ------------------------------------------------------------------
    def after_stop(self, frame: int) -> bool:
        """Is a card laid at `frame` too late (after the stop and its grace)?"""
        return self.end is not None and frame > self.end[0] + self.options.grace_s * self.fps

    def stopped(self, frame: int) -> bool:
        """Has someone called "Ligretto Stop!" by `frame`? (Cards in hand may land for a grace,
        but the centre may be gathered at once.)"""
        return self.end is not None and frame >= self.end[0]

    def judge(self, player: str, card: Card, pile_id: int | str | None, frame: int, *,
              source: str | None = None, two_cards: bool = False, touch: int | None = None,
              sure: bool = True) -> Verdict:
        """May `player` lay `card` on pile `pile_id` (None or an id not known: a new pile)? `sure`
        False: the card was read too unsurely to say what it is, so it is not judged at all."""
        if not sure:
            return Verdict(None, unsure_of=UnsureOf.CARD)
        pile = self.piles.get(pile_key(pile_id)) if pile_id is not None else None
        if self.after_stop(frame):
            if self.doubts.gathering and not _fits(card, pile):
                return Verdict(None, unsure_of=UnsureOf.PILE_TOP)
            return Verdict(False, Reason.AFTER_STOP)
        if two_cards:
            return Verdict(False, Reason.TWO_CARDS)
        if source is not None and not self._source_holds(player, card, source):
            return Verdict(False, Reason.NOT_PLAYABLE)
        if pile is not None and pile.unseen and not pile.cards:
            return Verdict(None, unsure_of=UnsureOf.PILE_TOP)  # it lies on cards nobody read
        if pile is None or not pile.cards:
            if card.number != 1:
                return Verdict(False, Reason.WRONG_NUMBER)
            if self.options.max_piles is not None and self.open_pile_count() >= self.options.max_piles:
                return Verdict(False, Reason.TOO_MANY_PILES)
            return Verdict(True)
        top = pile.top
        if not top.sure:
            return on_unsure_top(card, top.card)
        if card.follows(top.card):
            return Verdict(True)
        if card == top.card and self._dispute_winner(pile, player, frame, touch) in ("both", player):
            return Verdict(True)  # the same instant, or this card touched first and lies below
        if self._left_lying(pile, frame):
            # an invalid card goes back at once (RULES); one still lying there long after says the
            # pile is not what the verdicts made it (a card misread or unseen): not judged by them
            return Verdict(None, unsure_of=UnsureOf.PILE_TOP)
        return Verdict(False, Reason.WRONG_COLOUR if card.colour != top.card.colour else Reason.WRONG_NUMBER)

    def _left_lying(self, pile: Pile, frame: int) -> bool:
        """A card called invalid lies on the pile's top, not taken back for longer than `doubts.left_lying_s`."""
        after = self.doubts.left_lying_s
        return after is not None and any(s.frame > pile.top.frame and frame - s.frame > after * self.fps
                                         for s in pile.strays)

    def _source_holds(self, player: str, card: Card, source: str) -> bool:
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r} (one of {', '.join(SOURCES)})")
        z = self.zones[player]
        if z.held_from(card, source):
            return True
        if source == "stack":
            return z.stack != 0 and (z.stack_top is None or z.stack_top == card)
        if source == "discard":
            return z.discard_top is None or z.discard_top == card
        return z.row is None or card in z.row

    def _dispute_claims(self, pile: Pile, player: str, frame: int, touch: int | None) -> list[tuple[str, int]] | None:
        """Claims of a dispute if `player`'s card of the top's value arrives almost together with it:
        the two touches ("reached the pile") or the two let-goes within the window. Either is seen
        with some error (a hand that holds on lets go late; an arm that hovered seems to touch early)."""
        top = pile.top
        if top is None or top.owner is None or top.owner == player:
            return None
        claims = [(top.owner, top.touch if top.touch is not None else top.frame),
                  (player, touch if touch is not None else frame)]
        apart = min(abs(claims[1][1] - claims[0][1]), abs(frame - top.frame))
        return claims if apart <= self.together_frames else None

    @property
    def together_frames(self) -> float:
        """The rules' "almost together" of a dispute (RULES.md, Disputes), in frames."""
        return self.options.dispute_window_s * self.fps

    def _dispute_winner(self, pile: Pile, player: str, frame: int, touch: int | None) -> str | None:
        claims = self._dispute_claims(pile, player, frame, touch)
        return resolve_dispute(claims) if claims else None

    def could_race(self, card: Card, pile_id: int | str | None) -> bool:
        """Could two players have slapped `card` down on this pile together (a dispute)? Each went
        for it because it fitted: a card that does not follow a top known surely was one player's
        mistake, not a race. A pile nobody read, or read unsurely, or with a card called invalid
        still lying on its top (the call may be the referee's mistake), may hide a fitting top."""
        pile = self.piles.get(pile_key(pile_id)) if pile_id is not None else None
        if pile is not None and ((pile.unseen and not pile.cards) or (pile.cards and (
                not pile.top.sure or any(s.frame > pile.top.frame for s in pile.strays)))):
            return True
        return _fits(card, pile)

    def fits(self, card: Card, pile_id: int | str | None) -> bool:
        """Would `card` follow this pile as it is known (a 1 where no pile, or none known, lies)?"""
        return _fits(card, self.piles.get(pile_key(pile_id)) if pile_id is not None else None)

    def can_play(self, card: Card) -> bool:
        """Could this card legally go anywhere in the centre right now?"""
        if card.number == 1:
            return self.options.max_piles is None or self.open_pile_count() < self.options.max_piles
        return any(p.cards and card.follows(p.top.card) for p in self.piles.values())

    def open_pile_count(self) -> int:
        return sum(1 for p in self.piles.values() if p.cards and not p.closed)

    # ---- moves ----------------------------------------------------------------------
    def play(self, player: str, card: Card, pile_id: int | str | None, frame: int, *,
             source: str | None = None, two_cards: bool = False, touch: int | None = None,
             at: list[float] | None = None, sure: bool = True) -> list[Event]:
        """A card came to rest in the centre. Returns the events it makes. A play not judged (`sure`
        False, or its pile's top read unsurely) is written with `unsure` instead of `legal`; its card
        lies on the pile as its top, counts as laid, and closes nothing and disputes nothing."""
        self._check_player(player)
        if pile_id is None:
            pile_id = self.new_pile_id()
        verdict = self.judge(player, card, pile_id, frame, source=source, two_cards=two_cards, touch=touch, sure=sure)
        key = pile_key(pile_id)
        pile = self.piles.get(key)
        if pile is None:
            pile = self.piles[key] = Pile(pile_id)
            self._bump_next_pile()
        claims = self._dispute_claims(pile, player, frame, touch) \
            if not verdict.unsure and pile.top and pile.top.card == card else None
        # a card not judged is no firm top either: what it lies on (or what it is) is not known, and
        # it may yet go back and show what lay beneath
        laid = PileCard(card, player, frame, touch, not verdict.unsure)
        zone = self.zones[player]
        events = [Event("play", frame, _play_data(player, card, pile_id, verdict,
                                                  {"from": source or None, "touch": touch, "at": at}))]
        closing = Event("pile_closed", frame, {"pile": pile_id, "face": self.options.ten}) \
            if verdict.legal and card.number == 10 else None
        if verdict.legal and claims and resolve_dispute(claims) == player:
            beaten = pile.cards.pop()  # the earlier-resting card touched later: it is the loser
            pile.strays.append(beaten)
            self.zones[beaten.owner].played -= 1
            self.zones[beaten.owner].illegal += 1
        if verdict.legal is not False:  # legal, or not judged: it lies on the pile as its top
            pile.cards.append(laid)
            zone.played += 1
            self._last_laid[player] = max(frame, self._last_laid.get(player, frame))
            if verdict.legal and self.end is None:
                keep = frame - RECENT_S * self.fps
                self._legal_plays = [r for r in self._legal_plays if r[0].frame >= keep] + [(events[0], laid, pile, closing)]
        else:
            pile.strays.append(laid)
            zone.illegal += 1
            self._expect_takeback(events[0], laid, pile)
        self._take_from(zone, card, source)
        if claims:
            events.append(Event("dispute", frame, {
                "pile": pile_id, "card": str(card),
                "claims": [{"player": p, "touch": t} for p, t in claims],
                "winner": resolve_dispute(claims)}))
        if closing is not None:
            events.append(closing)
        if verdict.legal is not False:  # an illegal last stack card goes back to the stack: no stop
            events += self._maybe_end(player, frame)
        return events

    def takeback(self, player: str, card: Card, pile_id: int | str, frame: int, *, to: str | None = None) -> list[Event]:
        """A card lying on a pile was picked up again and left the centre."""
        self._check_player(player)
        pile = self.piles.get(pile_key(pile_id))
        if pile is None:
            raise ImpossibleMove(f"takeback of {card} from pile {pile_id}, which does not exist")
        for group in (pile.strays, pile.cards):
            for i in range(len(group) - 1, -1, -1):
                if group[i].card == card and group[i].owner in (player, None):
                    taken = group.pop(i)
                    taken.taken = frame
                    zone = self.zones[player]
                    if group is pile.cards and taken.owner == player:
                        zone.played -= 1
                    self._give_back(zone, card, to)
                    data = {"player": player, "card": str(card), "pile": pile_id}
                    if to:
                        data["to"] = to
                    return [Event("takeback", frame, data)]
        raise ImpossibleMove(f"takeback of {card} by {player}: no such card of theirs lies on pile {pile_id}")

    def refill(self, player: str, card: Card, frame: int) -> list[Event]:
        """The top card of the Ligretto stack moved into a gap in the row."""
        self._check_player(player)
        zone = self.zones[player]
        if not zone.held_from(card, "stack"):
            if zone.stack == 0:
                raise ImpossibleMove(f"refill by {player} with {card}: their Ligretto stack is already empty")
            if zone.stack_top is not None and zone.stack_top != card:
                raise ImpossibleMove(f"refill by {player} with {card}: their stack top is {zone.stack_top}")
        self._take_from(zone, card, "stack")
        if zone.row is not None:
            zone.row.append(card)
        return [Event("refill", frame, {"player": player, "card": str(card)}), *self._maybe_end(player, frame)]

    def flip(self, player: str, top: Card, count: int, frame: int) -> list[Event]:
        self._check_player(player)
        if not 1 <= count <= 3:
            raise ImpossibleMove(f"flip of {count} cards: one to three are turned at a time")
        self.zones[player].discard_top = top
        return [Event("flip", frame, {"player": player, "top": str(top), "count": count})]

    def recycle(self, player: str, frame: int) -> list[Event]:
        self._check_player(player)
        self.zones[player].discard_top = None
        return [Event("recycle", frame, {"player": player})]

    def _take_from(self, zone: Zone, card: Card, source: str | None) -> None:
        held = zone.held_from(card, source)
        if held is not None:  # already gone from its place before watching began
            zone.held.remove(held)
            return
        if source == "stack":
            if zone.stack is not None:
                zone.stack -= 1
            zone.stack_top = None  # the next one is not known until it is seen
        elif source == "row" and zone.row is not None and card in zone.row:
            zone.row.remove(card)
        elif source == "discard":
            zone.discard_top = None

    @staticmethod
    def _give_back(zone: Zone, card: Card, to: str | None) -> None:
        if to == "stack":
            zone.stack = None if zone.stack is None else zone.stack + 1
            zone.stack_top = card
        elif to == "row" and zone.row is not None:
            zone.row.append(card)
        elif to == "discard":
            zone.discard_top = card

    def declare_end(self, player: str, frame: int) -> list[Event]:
        """The player's Ligretto stack was seen to be gone (when the stack size is not known)."""
        self._check_player(player)
        if self.end is not None:
            return []
        self.zones[player].stack = 0
        return self._stop(player, frame)

    def _maybe_end(self, player: str, frame: int) -> list[Event]:
        zone = self.zones[player]
        if self.end is None and zone.stack == 0 and not zone.held_from_stack():
            return self._stop(player, frame)
        return []

    def _stop(self, player: str, frame: int) -> list[Event]:
        """"Ligretto Stop!" at `frame`. A play already judged that landed after the grace window
        (judged before the stop was seen) becomes after-stop: its card leaves the pile's run, and
        an amendment follows the round's end for its play and for a `pile_closed` it made (the
        pile is open again); a card already taken back is amended all the same. The events
        themselves, sent or not, stay as they were."""
        self.end = (frame, player)
        amends = []
        for event, laid, pile, closing in self._legal_plays:
            if self.after_stop(event.frame) and not any(c is laid for c in pile.cards):
                # taken back already, before the stop was known: it was laid after the stop all the same
                amends.append(amendment(event, legal=False, reason=Reason.AFTER_STOP.value))
            elif self.after_stop(event.frame):
                pile.cards = [c for c in pile.cards if c is not laid]
                pile.strays.append(laid)
                self.zones[laid.owner].played -= 1
                self.zones[laid.owner].illegal += 1
                amends.append(amendment(event, legal=False, reason=Reason.AFTER_STOP.value))
                self._expect_takeback(event, laid, pile)
                if closing is not None:
                    amends.append(amendment(closing, why_withdrawn=Reason.AFTER_STOP.value))
        self._legal_plays = []
        return [Event("round_end", frame, {"player": player}), *amends]

    def _expect_takeback(self, event: Event, laid: PileCard, pile: Pile) -> None:
        if self.doubts.confirm_s is not None:
            self._calls.append((event, laid, pile))

    def unconfirmed(self, frame: int, ended: bool = False) -> list[Event]:
        """Calls of "illegal" not confirmed `doubts.confirm_s` after the card was laid (`ended`: the
        feed ended, so every call still waiting): its card still lies on its pile, or went so soon
        (`doubts.taken_least_s`) that it never lay there. Each is amended to unsure (legal and reason
        dropped) and no longer counts as illegal; a card still lying on which nothing was laid since
        is the pile's top, though no firm one."""
        if self.doubts.confirm_s is None:
            return []
        due = frame - self.doubts.confirm_s * self.fps
        amends = []
        for call in [c for c in self._calls if ended or c[0].frame < due]:
            self._calls.remove(call)
            event, laid, pile = call
            lying = any(c is laid for c in pile.strays)
            at_once = laid.taken is not None and laid.taken - laid.frame < self.doubts.taken_least_s * self.fps
            if not lying and not at_once:
                continue  # taken back: the call stands
            zone = self.zones[laid.owner]
            zone.illegal -= 1
            laid.sure = False
            if lying and (pile.top is None or pile.top.frame <= laid.frame):
                pile.strays = [c for c in pile.strays if c is not laid]
                pile.cards.append(laid)
                zone.played += 1
            amends.append(amendment(event, legal=None, reason=None, unsure=True,
                                    unsure_of=str(UnsureOf.LEFT_LYING if lying else UnsureOf.GONE_AT_ONCE)))
        return amends

    def _check_player(self, player: str) -> None:
        if player not in self.zones:
            raise ImpossibleMove(f"player {player!r} is not at this table (players: {', '.join(self.players)})")

    # ---- counting -------------------------------------------------------------------
    def last_laid(self, player: str) -> int | None:
        """The frame the latest card `player` laid in the centre (legal, or not judged) came to rest,
        taken back since or not (None: none): a pile gathered for the count looks like a takeback."""
        return self._last_laid.get(player)

    def centre_cards(self) -> Counter:
        """Cards in the centre by owner (None: laid before we watched)."""
        return Counter(pc.owner for p in self.piles.values() for pc in p.cards + p.strays)

    def centre_cards_of(self, player: str) -> list[str]:
        """The cards the player was seen to lay in the centre that lie there still (pile by pile)."""
        return [str(pc.card) for p in self.piles.values() for pc in p.cards + p.strays if pc.owner == player]

    def tens_in_centre(self, player: str) -> int:
        return sum(1 for p in self.piles.values() for pc in p.cards if pc.owner == player and pc.card.number == 10)


def _fits(card: Card, pile: Pile | None) -> bool:
    """Would `card` follow this pile as it is known (a 1 where no pile, or none known, lies)?"""
    if pile is None or not pile.cards:
        return card.number == 1 and not (pile is not None and pile.unseen)
    return card.follows(pile.top.card)


def _play_data(player: str, card: Card, pile_id: int | str, verdict: Verdict, seen: dict) -> dict:
    """A play event's keys: its verdict (`legal`, `reason`) or `unsure`, then what was seen of it."""
    data = {"player": player, "card": str(card), "pile": pile_id}
    if verdict.unsure:
        data |= {"unsure": True, "unsure_of": str(verdict.unsure_of)}
    else:
        data["legal"] = verdict.legal
    if verdict.legal is False:
        data["reason"] = verdict.reason.value  # events hold plain JSON values
    return data | {k: v for k, v in seen.items() if v is not None}


def _state_card(text: object, colours, where: str) -> Card:
    try:
        return parse_card(text, colours)
    except ValueError as exc:
        raise ValueError(f"state: {where}: {exc}") from None


def _state_zone(player: str, z: object, colours, options: RuleOptions) -> Zone:
    """One player's entry of a `state` line."""
    if not isinstance(z, dict):
        raise ValueError(f"state: player {player} must be an object, not {z!r}")
    stack = z.get("stack")
    if isinstance(stack, bool) or not isinstance(stack, int) or stack < 0:
        raise ValueError(f"state: {player} 'stack' must be a whole number >= 0, not {stack!r}")
    top, disc, row = z.get("stack_top"), z.get("discard_top"), z.get("row")
    if row is not None and not isinstance(row, list):
        raise ValueError(f"state: {player} 'row' must be a list of cards (null: an empty place), not {row!r}")
    zone = Zone(
        stack=stack,
        stack_top=_state_card(top, colours, f"{player} stack_top") if top is not None else None,
        # a null is an empty place in the row: nothing lies there to be played
        row=None if row is None else [_state_card(c, colours, f"{player} row") for c in row if c is not None],
        discard_top=_state_card(disc, colours, f"{player} discard_top") if disc is not None else None,
    )
    held = z.get("held", [])
    if not isinstance(held, list):
        raise ValueError(f"state: {player} 'held' must be a list, not {held!r}")
    # with one set of cards each, a card in hand lies in none of the player's visible places
    visible = [c for c in (zone.stack_top, zone.discard_top, *(zone.row or [])) if c is not None]
    one_set = not options.two_player_big  # two players with two sets each may hold a card twice
    for h in held:
        if not isinstance(h, dict) or "card" not in h or ("from" in h) == ("to" in h):
            raise ValueError(f"state: {player} held {h!r}: each must be {{\"card\", \"from\"}} or {{\"card\", \"to\"}}")
        card = _state_card(h["card"], colours, f"{player} held")
        place = h.get("from", h.get("to"))
        if place not in SOURCES:
            raise ValueError(f"state: {player} held {card}: place {place!r} is not one of {', '.join(SOURCES)}")
        if one_set and card in visible:
            raise ValueError(f"state: {player} holds {card}, which also lies in their row, stack top or discard top")
        if "from" in h:
            zone.held.append((card, place))
        else:  # on its way back: it lies there for every later move
            Round._give_back(zone, card, place)
    return zone


def _pile_id(text: str) -> int | str:
    return int(text) if str(text).isdigit() else text
