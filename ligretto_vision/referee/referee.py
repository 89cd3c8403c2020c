"""The referee: frames in, events out.

Per frame it only feeds the activity monitor (detect/activity.py). When a change in the centre
has settled, it looks closely: finds the top card where the table changed and reads it
(recognise/top_card.py), decides what the change means (`moves.meaning`), asks who laid a card
(`deliverers.deliverers`: the arm that reached in over their edge, checked against the way the
card lies) and hands the move to the rules (`rules.Round`), which judge it and produce the
events. A card on a pile that another arm still touches cannot settle; it is read where it lies
and decided early when it reads surely and fits the pile (early.py). Changes in a player's own
zone are accepted quietly, except that they may end the round (round_end.py); after the round,
the count (counting.py).

The same object serves a live camera and a recorded scene: `Pipeline` feeds it.
"""
from __future__ import annotations

from collections import deque
from typing import Callable, Iterable

import numpy as np

from ligretto_vision.config.vision import VisionConfig
from ligretto_vision.detect.activity import ActivityMonitor, ArmTrace, Settled
from ligretto_vision.detect.changes import box_of
from ligretto_vision.detect.cloth import not_cloth
from ligretto_vision.detect.outlines import Found, cover, find_cards, guess_from_mask
from ligretto_vision.events import Event
from ligretto_vision.geometry.calibration import Calibration
from ligretto_vision.geometry.zones import TableLayout
from ligretto_vision.recognise.patches import Pose
from ligretto_vision.recognise.reader import CardReader, Reading
from ligretto_vision.recognise.top_card import TopCards
from ligretto_vision.referee import early
from ligretto_vision.referee.counting import Count, stopper_from_count
from ligretto_vision.referee.deliverers import (deliverers, first_touches, laid_elsewhere, laid_in_this_reach,
                                                 one_card_at_a_time, rest_frame)
from ligretto_vision.referee.moves import (Move, gone_from_under, laid_across, looked_surely, meaning, new_card_read,
                                           own_top_moved, piles_gathered, same_place, taken_back, turned_card_taken,
                                           unsure_under_arm)
from ligretto_vision.referee.pictures import TablePictures, sticking_out
from ligretto_vision.referee.round_end import RoundEnd
from ligretto_vision.referee.spec import Decision, TableSpec
from ligretto_vision.referee.visits import ArmVisits
from ligretto_vision.rules import Round, parse_card
from ligretto_vision.rules.reasons import Reason
from ligretto_vision.rules.round import pile_key
from ligretto_vision.track.piles import PileTracker, TrackedCard, TrackedPile
from ligretto_vision.track.zones import ZoneTracker

__all__ = ["Decision", "Referee", "TableSpec"]


class Referee:
    def __init__(self, spec: TableSpec, cal: Calibration, layout: TableLayout, reader: CardReader,
                 image_size: tuple[int, int], round_: Round | None = None, vision: VisionConfig = VisionConfig()):
        """`round_`: the round the moves go to (its owner's; a new one if None)."""
        self.spec, self.cal, self.layout = spec, cal, layout
        self.steady_cal = cal  # the mapping found from the markers; `cal` follows the camera's shake
        self.cfg = cfg = vision.referee
        self.detect = vision.detect  # for the outline and cloth look at a change (the monitor has it too)
        self.round = round_ if round_ is not None else Round(spec.players, spec.options, spec.fps)
        self.monitor = ActivityMonitor(cal, layout, spec.fps, image_size, cfg=vision.detect)
        self.pictures = TablePictures(cal, layout, self.monitor, spec.card_mm, cfg.accept_margin_mm)
        self.top_cards = TopCards(reader, spec.card_mm, vision.recognise, vision.detect,
                                  backs_on_piles=spec.options.ten == "face-down")
        self.piles = PileTracker(cfg.pile_near * spec.card_mm[1])
        self.zones = ZoneTracker(layout, spec.card_mm, cfg, vision.detect)
        self.decisions: deque[Decision] = deque(maxlen=500)  # the latest, for overlays and review
        self.count = Count(spec, layout, reader, self.decisions, cfg, vision.recognise, vision.detect)
        self.pile_gone: int | None = None  # the frame a whole pile was last seen picked up, no stop seen
        self.top_lost: int | None = None  # ... or any pile lost its top card, not called illegal
        self.early = early.EarlyLooks(spec.fps, cfg)
        self.round_end = RoundEnd(spec.fps, cfg)
        self.visits = ArmVisits()  # which piles an arm came over since each was last looked at

    def recalibrate(self, cal: Calibration, image: np.ndarray) -> None:
        """The camera moved: a new mapping to the table. Piles and the reference pictures are in table mm
        and stay (taking the table as it now lies would take in an arm that happens to be over it)."""
        self.cal = self.pictures.cal = self.steady_cal = cal
        self.monitor.recalibrate(cal, image)
        self.visits.camera_moved(self.monitor.frame)
        self._follow_shake()
        self.count.still.clear()  # a count is not taken from frames of two camera places

    def _follow_shake(self) -> None:
        """Crops and readings of this frame follow the picture's shake the monitor found."""
        if self.monitor.shake_px != self.cal.shake_px:
            self.cal = self.pictures.cal = self.steady_cal.shaken(self.monitor.shake_px)

    def table_as_accepted(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the table as last accepted: the monitor's low-res top view and the 1 px/mm one."""
        return self.monitor.ref.copy(), self.pictures.ref_full.copy()

    # ---- the frame loop ---------------------------------------------------------------
    def on_frame(self, index: int, image: np.ndarray) -> list[Event]:
        events: list[Event] = []
        if self.pictures.ref_full is None:
            top = self.pictures.first_look(image)
            self._initial_piles(index, image, top)
            self.pictures.start(top)
            self._keep_looks()
        settled = self.monitor.update(index, image)
        self._follow_shake()
        self.visits.note(index, self.monitor.seat_hist[-1], self.monitor.motion_hist[-1], self.piles.piles.values(),
                         self.pictures.low_region, self.cfg.visit_moved_share)
        for s in settled:
            events += self._explain(s, index, image)
        if settled:
            events += self._strays_taken(settled)
        if not self.count.counting:
            events += self._early_looks(index, image)
        else:
            self.count.watch(image, self.monitor.arms_on_table())
            if self.count.is_due(index):
                events += self._take_count(index, image)
        return events + self._stack_looked_again(index, image) + self.round.unconfirmed(index)

    def finish(self, index: int, image: np.ndarray) -> list[Event]:
        """The feed has ended (a recording's last frame): a count that was waiting for a still
        table is taken from what lies there now, a stack seen gone ends the round, and a call of
        "illegal" whose card was not yet seen going back is amended to unsure."""
        events = self._take_count(index, image, wait=False) if self.count.counting and self.count.due is not None else []
        return events + self._stack_looked_again(None, image) + self.round.unconfirmed(index, ended=True)

    def _take_count(self, index: int, image: np.ndarray, wait: bool = True) -> list[Event]:
        """The count, once the spread lies still; a round whose stop went unseen (its piles were
        seen gathered) ends with the one player whose stack counts none, at their last card laid."""
        lines = {s.player: self.zones.line_of(s.player) for s in self.layout.seats}
        events = self.count.take(index, image, self.cal, self.round, lines, wait=wait, cloth=self.pictures.cloth,
                                 busy=self.pictures.busy)
        if not events or self.round.end is not None:
            return events
        player = stopper_from_count(self.count.counted)
        if player is None:
            self.decisions.append(Decision(index, "stop-unknown", note="no one stack, or several, counted empty"))
            return events
        last = self.round.last_laid(player)
        return self.round.declare_end(player, last if last is not None else self.count.began) + events

    # ---- what happened where the table changed ----------------------------------------------
    def _explain(self, s: Settled, index: int, image: np.ndarray) -> list[Event]:
        if s.uncovered:
            return self._uncovered(s, index, image)
        zone, cards = self.layout.zone_of(*s.centre_mm), s.area_mm2() / (self.spec.card_mm[0] * self.spec.card_mm[1])
        if cards < self.cfg.min_card_share:
            # too small to be a card of its own; on a pile it may be one laid neatly on a card of its
            # colour (only its numerals changed): looked at as an early look is
            pile = self.piles.near_pile(*s.centre_mm) if zone is None else None
            if pile is None and zone is None and s.arms and not self.count.counting and cards >= self.cfg.cloth_card_least:
                laid = self._card_like_cloth(s, index, image)
                if laid is not None:
                    return laid
            # looked at once no arm lies over the card (then every arm that laid one there has gone),
            # and only if an arm came over it since its last such look: no card is laid where no hand came
            due = pile is not None and not self._closed(pile.id) and self.visits.due(pile.id)
            region = self._with_top(s, pile) if due else None
            events = []
            if region is not None and not (self.monitor.seat_hist[-1][region.mask] >= 0).any():
                events, reading = self._early_look(index, image, pile, region, alone=False)
                self.visits.looked(pile.id, index, seen=bool(events) or looked_surely(reading, pile, self.cfg),
                                   again_frames=int(self.cfg.look_again_s * self.spec.fps))
            return events + self._accept(s, image)
        if zone is not None:
            if self.count.counting:
                self.count.touched(index)
            return self._zone_change(s, index, image)  # a player's own row, stack or discard pile
        origin, after = self.pictures.crop_around(s, image, self.cfg.margin_mm)
        if self.count.counting:  # the spread is counted once it lies still, not move by move
            self.count.touched(index)
            return self._accept(s, image, origin, after)
        changed = self.pictures.changed(s, origin, after)
        guess = guess_from_mask(changed, origin, self.spec.card_mm, self.detect)
        pile = self.piles.near_pile(*((guess.x, guess.y) if guess is not None else s.centre_mm))
        # an unseen card: where the top lay, turned to its player
        guesses = ([guess] if guess is not None else []) + ([c.pose for c in pile.cards[-2:]] if pile is not None else [])
        cloth = self._cloth_now(origin, after.shape)
        top = self.top_cards.on_change(image, self.cal.to_px, after, origin, guesses, cloth)
        if top is not None and pile is not None and guess is not None and top[1].card == pile.top.card:
            top = self._laid_on_top(top, pile, guess, changed, origin, image, after, cloth)
        if top is not None and pile is not None and top[1].card == pile.top.card \
                and same_place(top[0].pose, pile.top.pose, self.cfg):
            # found where the top lay: perhaps another player's copy of it slapped on it, turned
            copy = self.top_cards.copy_on_top(image, self.cal.to_px, after, origin, top, pile.top.pose)
            top = copy if copy is not None and not same_place(copy[0].pose, pile.top.pose, self.cfg) else top
        events = self._judge_change(s, index, image, top, pile, changed, origin, after) if top is not None else []
        self._accept(s, image, origin, after)
        self._arms_stacks(s, index, image)
        return events

    def _lying_to_its_player(self, image: np.ndarray, after: np.ndarray, origin, top: tuple[Found, Reading],
                             who: list[ArmTrace]) -> tuple[Found, Reading]:
        """A card lies turned to the player who laid it (`who`, top card last). One found a quarter
        turn off the way that player's cards lie had its outline cut the wrong way round (across two
        cards' blob): looked for again a quarter turn on, and taken if its outline stands out better
        there and it reads surely (tuning table 12: a wrong arm's way is no reason to read across
        the card below)."""
        found = top[0]
        player = self.layout.seats[who[-1].seat].player if who else None
        if player is None or player in self.layout.axis_players(found.pose.angle) \
                or player not in self.layout.axis_players(found.pose.angle + 90.0):
            return top
        again = self.top_cards.read_turned(image, self.cal.to_px, after, origin, found.pose, 90.0)
        return again if again[1].face_up and again[1].confidence >= self.cfg.judge_least \
            and again[0].contrast > found.contrast else top

    def _card_like_cloth(self, s: Settled, index: int, image: np.ndarray) -> list[Event] | None:
        """A small change an arm made away from every pile: perhaps a card the colour of the cloth,
        which shows only by its print (a blue face on a blue felt). Looked at every turn around it: a
        face read surely whose rectangle does not stand out from the cloth is that card, laid (one
        that stood out would have changed more). None: no such card."""
        origin, after = self.pictures.crop_around(s, image, max(self.spec.card_mm))
        top = self.top_cards.like_cloth(image, self.cal.to_px, after, origin, Pose(*s.centre_mm, 0.0),
                                        self._cloth_now(origin, after.shape))
        if top is None or top[1].shape_sure < self.cfg.cloth_card_sure:
            return None
        changed = self.pictures.changed(s, origin, after)
        events = self._judge_change(s, index, image, top, None, changed, origin, after)
        self._accept(s, image, origin, after)
        return events

    def _cloth_here(self, origin, shape) -> tuple[np.ndarray, float, float]:
        """The cloth where a crop lies, in today's light; that light against the start's; how busy it is."""
        return self.pictures.cloth_now(origin, shape), self.pictures.light(), self.pictures.busy

    def _cloth_now(self, origin, shape):
        """`_cloth_here`, asked only when needed (cutting the cloth to a crop costs)."""
        return lambda: self._cloth_here(origin, shape)

    def _laid_on_top(self, top: tuple[Found, Reading], pile: TrackedPile, guess: Pose, changed: np.ndarray, origin,
                     image: np.ndarray, after: np.ndarray, cloth) -> tuple[Found, Reading]:
        """The pile's known top read again where the table changed: perhaps a card of its colour laid on
        it, whose outline the old one's shares (one colour, one blob). Much of the change outside the old
        card: the change alone is looked at (a card laid across it, off its middle; or the same card
        again, lying elsewhere than the old one: a second player's copy slapped on it, a dispute). The
        change mostly over it: the change's own rectangle and the old top's place are read, and a card
        new to the pile read surely there is the card laid (crosswise on it, the old one's corner
        numerals still show beside it)."""
        if sticking_out(changed, origin, top[0].pose, self.spec.card_mm) >= self.cfg.unexplained:
            again = self.top_cards.on_change(image, self.cal.to_px, after, origin, [guess], cloth)
            if again is None or not again[1].face_up:
                return top
            return again if again[1].card != pile.top.card or not same_place(again[0].pose, top[0].pose, self.cfg) \
                else top
        again = self.top_cards.best_under_arm(image, self.cal.to_px, after, origin, [guess])
        again = self._turned_on_top(image, after, origin, pile, again)
        return again if laid_across(again[1], pile, self.cfg) else top

    def _turned_on_top(self, image: np.ndarray, after: np.ndarray, origin, pile: TrackedPile,
                       read: tuple[Found, Reading], looked: dict | None = None) -> tuple[Found, Reading]:
        """A card laid neatly on one of its colour: where the usual look (`read`) found no card new to
        the pile, the old top's place is read at every turn (`early.turns_on_top`; `looked`: see
        `TopCards.best_under_arm`). A card new to the pile read surely there (`turned_sure`) is taken
        only when it fits the pile: a rectangle cut at some turn across a messy pile of one colour may
        read surely as a card nobody laid."""
        if new_card_read(read[1], pile, self.cfg):
            return read
        again = self.top_cards.best_under_arm(image, self.cal.to_px, after, origin, early.turns_on_top(pile.top.pose),
                                              looked=looked)
        taken = turned_card_taken(again[1], pile, lambda card: self.round.fits(parse_card(card, self.spec.colours), pile.id),
                                  self.cfg)
        return again if taken else read

    def _early_looks(self, index: int, image: np.ndarray) -> list[Event]:
        """A look at a pile an arm still touches whose top has lain still a moment (early.py)."""
        if not (self.monitor.seat_hist[-1] >= 0).any():
            self.early.forget()  # no arm on the table: every change settles the usual way
            return []
        chosen = self.early.choose(index, self.piles.piles,
                                   self._closed,
                                   lambda p: self.pictures.still_under_arm(p.top.pose, self.cfg.early_still_s))
        if chosen is None:
            return []
        pile, box, still = chosen
        part = self.monitor.settled_part(box, still)
        return self._early_look(index, image, pile, part)[0] if early.one_arm_came(part.arms, self.cfg) else []

    def _with_top(self, s: Settled, pile: TrackedPile) -> Settled:
        """A small change `s` with the place of the pile's top card: looked at, and its arms'
        history taken, over the whole card (the piece alone may have been under another arm)."""
        (x, y, w, h), top = self.pictures.low_region(pile.top.pose)
        region = s.mask.copy()
        region[y:y + h, x:x + w] |= top
        x, y, w, h = box_of(region)
        return self.monitor.settled_part((x, y, w, h), region[y:y + h, x:x + w])

    def _seen_arms(self, s: Settled) -> list[ArmTrace]:
        """The arms seen over a change (not merely grazing it)."""
        return [a for a in s.arms if a.peak >= self.cfg.seen_peak]

    def _players(self, arms: Iterable[ArmTrace]) -> set[str]:
        return {self.layout.seats[a.seat].player for a in arms}

    def _closed(self, pile_id: str) -> bool:
        return getattr(self.round.piles.get(pile_key(pile_id)), "closed", False)

    def _who(self, s: Settled, pose: Pose, changed: np.ndarray, origin, race: bool = True) -> list[ArmTrace]:
        """The arms that laid the card at `pose` (`changed` around it, from `origin`: how much changed
        outside it tells a second card under it; `race` False: one card nobody would race for, so
        one arm); failing any that came over it, of those that came near it."""
        out = sticking_out(changed, origin, pose, self.spec.card_mm)
        elsewhere, here = self._laid_elsewhere(pose, s.history_start), self._laid_here(pose, s.history_start)
        busy = lambda a: elsewhere(a) or here(a)  # noqa: E731 (its one card went elsewhere, or here before)
        together = self.round.together_frames
        return deliverers(one_card_at_a_time(s.arms, busy), pose, out, self.layout, self.cfg, race,
                          together=together) or \
            deliverers(one_card_at_a_time(self.monitor.arms_near(s, self.cfg.hand_reach_mm), busy), pose, out,
                       self.layout, self.cfg, race, together=together)

    def _laid_elsewhere(self, pose: Pose, since: int) -> Callable[[ArmTrace], bool]:
        """Did this arm's player lay a card elsewhere when a card it laid at `pose` came to rest?
        (`since`: the first frame of the arms' history; a play that rested a window before it
        cannot be that near.)"""
        fps = self.spec.fps
        plays = [(d.player, d.frame, d.pose) for d in self.decisions
                 if d.kind == "play" and d.pose is not None and d.frame >= since - self.cfg.one_card_s * fps]
        return lambda a: laid_elsewhere(self.layout.seats[a.seat].player, a.last - self.cfg.rest_after_s * fps,
                                        pose, plays, fps, self.cfg)

    def _laid_here(self, pose: Pose, since: int) -> Callable[[ArmTrace], bool]:
        """Did this arm lay a card at `pose`'s pile already, in the reach it is still in?"""
        pile = self.piles.near_pile(pose.x, pose.y)
        if pile is None:
            return lambda a: False
        rests: dict[str, list[int]] = {}
        for d in self.decisions:
            if d.kind == "play" and d.pose is not None and d.frame >= since and self.piles.near_pile(d.pose.x, d.pose.y) is pile:
                rests.setdefault(d.player, []).append(d.frame)
        return lambda a: laid_in_this_reach(a, rests.get(self.layout.seats[a.seat].player, []))

    def _early_look(self, index: int, image: np.ndarray, pile: TrackedPile, s: Settled,
                    alone: bool = True) -> tuple[list[Event], Reading]:
        """The still part `s` of a pile's top, read now: a play when it is a new card that fits
        the pile, read surely, laid by one arm alone (`alone` False: by the arms that laid it, all
        gone from it, a dispute included; then it lies there for good, and the rules judge it
        whether it fits or not). Returns the events and the card read on top."""
        origin, after = self.pictures.crop_around(s, image, self.cfg.margin_mm)
        changed = self.pictures.changed(s, origin, after)
        guesses = early.guesses_on_top(guess_from_mask(changed, origin, self.spec.card_mm, self.detect), pile.top.pose)
        looked: dict = {}  # the top's place and its quarter turn are among the turns looked at next
        top = self.top_cards.best_under_arm(image, self.cal.to_px, after, origin, guesses, own_rectangle=not alone,
                                            looked=looked)
        if not alone:  # a card laid neatly on one of its colour: its change was small
            top = self._turned_on_top(image, after, origin, pile, top, looked)
        found, reading = top
        seen = self._seen_arms(s)
        if not alone and early.twin_taken_back(reading, found.pose, pile, self._players(seen), self.cfg):
            self.decisions.append(Decision(index, "early-look", found.pose, reading, note="the called twin taken back"))
            return self._takeback(s, pile, seen), reading
        who = None
        if reading.face_up and reading.numeral_sure is not None and reading.numeral_sure >= self.cfg.early_sure:
            # a numeral with a turned twin (a 6 and a 9; a deck's italic 7 and 1) read surely: which it
            # is, the way up it lies for the player who laid it says
            who = self._who(s, found.pose, changed, origin)
            found, reading = top = self._read_facing(image, top, who)
        if not new_card_read(reading, pile, self.cfg) or self.piles.near_pile(found.pose.x, found.pose.y) is not pile:
            return [], reading
        who = who if who is not None else self._who(s, found.pose, changed, origin)
        if not who or (alone and not early.one_arm_alone(who, s.arms, self.cfg)):
            return [], reading
        player = self.layout.seats[who[0].seat].player
        if alone and not self.round.judge(player, parse_card(reading.card, self.spec.colours), pile.id, index).legal:
            return [], reading  # only the card that fits is taken this early: anything else waits to be seen whole
        self.decisions.append(Decision(index, "early-look", found.pose, reading, note="an arm still touches it"))
        events = self._judge_change(s, index, image, top, pile, changed, origin, after)
        pile.top.under_arm = True  # the card just added: its place is a first guess
        return events, reading

    def _zone_change(self, s: Settled, index: int, image: np.ndarray) -> list[Event]:
        origin, after = self.pictures.crop_around(s, image, self.cfg.accept_margin_mm)
        self._stacks_gone(s, index, after, origin, self.pictures.region_mask(s, origin, after.shape))
        return self._accept(s, image, origin, after)

    def _stacks_gone(self, s: Settled, index: int, view: np.ndarray, origin, region: np.ndarray,
                     players: set[str] | None = None) -> None:
        """Stacks (of `players`, or any) inside the changed `region` of `view` seen gone: looked at
        again a moment later (`_stack_looked_again`)."""
        if self.round.end is not None or self.round_end.gone is not None:
            return
        for player in self.zones.check_stacks(view, origin, region, *self._cloth_here(origin, view.shape), players):
            gone = self.round_end.stack_seen_gone(player, index, s.arms, s.history_start)
            self.decisions.append(Decision(gone.when, "stack-gone", player=player, note=f"seen at {index}"))
            return

    def _arms_stacks(self, s: Settled, index: int, image: np.ndarray) -> None:
        """The stacks of the players whose arms made a change in the centre, looked at whole: a stack
        at the table's edge taken to its last card leaves a change joined to the edge, which never
        settles as one of its own (it looks like an arm)."""
        players = self._players(s.arms)
        for pose in self.zones.stacks_of(players):
            origin, view = self._view_of(pose, image)
            self._stacks_gone(s, index, view, origin, np.ones(view.shape[:2], bool), players)

    def _view_of(self, pose: Pose, image: np.ndarray) -> tuple[tuple[float, float], np.ndarray]:
        """The table around a card's place, from above at 1 px/mm: (origin mm, picture)."""
        return self.pictures.crop_box((pose.x, pose.y, pose.x, pose.y), image, max(self.spec.card_mm))

    def _stack_looked_again(self, index: int | None, image: np.ndarray) -> list[Event]:
        """A stack seen gone, its place looked at again (`index` None: the feed has ended). Still
        bare: the round ended (with the last card laid, or with the stack's going). A card there
        again: it was a row card's place, filled from the stack; the place is no longer watched.
        While something unsettled lies over it (an arm), it waits, at most as long again."""
        went_on = self.round_end.went_on()
        if went_on is not None and self.round.end is None:
            self.round_end.settle()
            self.zones.forget(went_on.player)
            self.decisions.append(Decision(index if index is not None else went_on.confirm_by, "stack-back",
                                           player=went_on.player, note=f"the round went on: {went_on.later} cards laid since"))
            return []
        g = self.round_end.due(index)
        if g is None or self.round.end is not None:
            return []
        pose = self.zones.place_of(g.player)
        origin, view = self._view_of(pose, image)
        empty = self.zones.empty(pose, view, origin, np.ones(view.shape[:2], bool),
                                 *self._cloth_here(origin, view.shape))
        box, mask = self.pictures.low_region(pose)
        x, y, w, h = box
        moving = (self.monitor.fg[y:y + h, x:x + w][mask] > 0).mean() > self.cfg.stack_empty if mask.any() else False
        if not empty and moving and index is not None and index < g.confirm_by + self.cfg.stack_confirm_s * self.spec.fps:
            return []
        self.round_end.settle()
        if empty is False and not moving:
            self.zones.forget(g.player)
            self.decisions.append(Decision(index if index is not None else g.confirm_by, "stack-back", pose, player=g.player,
                                           note="a row card's place, filled again"))
            return []
        return self.round.declare_end(g.player, g.frame)

    def _judge_change(self, s: Settled, index, image, top: tuple[Found, Reading], pile, changed, origin,
                      after: np.ndarray) -> list[Event]:
        found, reading = top
        who = None  # the arms that laid it: asked once (turning the card half round leaves its place as it was)
        if reading.face_up:
            who = self._who(s, found.pose, changed, origin)
            turned = self._lying_to_its_player(image, after, origin, top, who)
            if turned is not top:
                found, reading = top = turned
                who = self._who(s, found.pose, changed, origin)
        if reading.face_up and reading.confidence < self.cfg.judge_least and self.top_cards.reader.enrollment.numerals:
            found, reading = top = self._read_facing(image, top, who)
        pose = found.pose
        arms = self._seen_arms(s)
        hands = self._players(a for a in arms if a.peak >= self.cfg.held_peak)
        move = meaning(pile, reading, pose, hands,
                       lambda at: cover(changed, origin, at, self.spec.card_mm),
                       # a stack seen gone and not yet looked at again: the piles may be gathered already
                       lambda: self.round.stopped(index) or self.round_end.gone is not None,
                       self.spec.options.ten == "face-down", self.cfg)
        # a top lost, not called illegal (by a hand: a pile's top "gone" with no arm there is the light)
        if move.kind == "pile-gone" or (move.kind == "takeback" and pile.top.legal and arms):
            gathering = piles_gathered(index, move.kind, self.pile_gone, self.top_lost, self.spec.fps, self.cfg)
            if move.kind == "pile-gone":
                self.pile_gone = index
            self.top_lost = index
            if gathering:
                move = Move("count-begins", move.reading, "piles are being collected (the stop unseen)")
        if move.kind == "takeback":
            return self._takeback(s, pile, arms)
        events: list[Event] = []
        if move.kind == "count-begins":
            if self.round.end is None and self.round_end.gone is not None:  # the stack was the last card's
                g, _ = self.round_end.gone, self.round_end.settle()
                events += self.round.declare_end(g.player, g.frame)
            self.monitor.count_mode()
            self.piles.remove_pile(pile)
            self.count.begin(index)
        elif move.kind == "unchanged" and pile.top.under_arm:
            if unsure_under_arm(pile, hands):
                self.round.doubt_top(pile.id)
            pile.top.pose, pile.top.under_arm = pose, False
        if move.kind == "unreadable" and not move.reading.face_up and move.reading.confidence > 0:
            # a card laid face down where it may not lie: reported, not judged, but a card its player
            # laid all the same (perhaps their stack's last: a ten on a 9 that was missed)
            who = who or self._who(s, pose, changed, origin, race=False)
            for arm in who[-1:]:
                self.round_end.played(self.layout.seats[arm.seat].player,
                                      self._rest(s, arm, first_touches([arm], self.cfg)[0]))
        if move.kind != "play":
            self.decisions.append(Decision(index, move.kind, None if move.kind == "count-begins" else pose,
                                           None if move.kind == "count-begins" else move.reading, note=move.note))
            return events
        # two players race only for a card that fits (a pile nobody read may be one it fits)
        race = self.round.could_race(parse_card(move.reading.card, self.spec.colours), pile.id if pile else None) \
            or (pile is None and self._unread_pile_at(pose))
        if who is None or (len(who) > 1 and not race):
            who = self._who(s, pose, changed, origin, race)
        for arm, touch in zip(who, first_touches(who, self.cfg)):
            player = self.layout.seats[arm.seat].player
            if own_top_moved(player, move.reading.card, pile):
                continue
            events += self._play(player, move.reading, pose, pile, self._rest(s, arm, touch),
                                 touch, seen=arm is who[-1], sure=move.sure)
            pile = self.piles.near_pile(pose.x, pose.y)
        return events

    def _rest(self, s: Settled, arm: ArmTrace, touch: int) -> int:
        """The frame the card `arm` laid at change `s` (first touching at `touch`) came to rest."""
        def stayed_still(a: int, b: int) -> bool:  # the hand there (not gone and back) and still
            held = arm.covered(a, b)
            return held.size > 0 and float((held > 0).mean()) >= self.cfg.stayed_share and \
                self.monitor.history.still_over(s.mask, a, b, self.cfg.still_share, arm.seat)
        return rest_frame(arm.last, touch, self.spec.fps, stayed_still, self.cfg)

    def _read_facing(self, image, top: tuple[Found, Reading], who: list[ArmTrace]) -> tuple[Found, Reading]:
        """A face read unsurely either way up (a deck whose 6 is its 9 turned), read again the right
        way up for the player who laid it (`who`, top card last), where the card lies along that
        player's axis; kept if that reads surer."""
        found, reading = top
        player = self.layout.seats[who[-1].seat].player if who else None
        if player is None or player not in self.layout.axis_players(found.pose.angle):
            return top
        pose, again = self.top_cards.read_facing(image, self.cal.to_px, found.pose, self.layout.facing(player))
        return (Found(pose, found.contrast), again) if again.face_up and again.confidence > reading.confidence else top

    def _play(self, player: str, reading: Reading, pose: Pose, pile, rest: int, touch: int,
              seen: bool = True, sure: bool = True) -> list[Event]:
        """`sure` False: read too unsurely to judge; the rules write it unsure."""
        card = parse_card(reading.card, self.spec.colours)
        pile_id = self._pile_as_seen(player, card, pose, pile, rest, touch)
        events = self.round.play(player, card, pile_id, rest, touch=touch,
                                 at=[round(pose.x, 1), round(pose.y, 1), round(pose.angle, 1)], sure=sure)
        play = events[0]
        play.data["confidence"] = round(reading.confidence, 3)
        laid = play.data.get("legal") is not False  # legal, or not judged: it lies there
        if laid:
            self.round_end.played(player, rest)  # perhaps the last card of a stack seen gone
        if not seen:  # it lies under the card on top: assume it lies there, turned towards its player
            pose = Pose(pose.x, pose.y, self.layout.facing(player))
        self.piles.add(play.data["pile"], TrackedCard(str(card), pose, player, laid, seen,
                                                      before=None if laid else self.pictures.look(pose)))
        self.decisions.append(Decision(rest, "play", pose, reading, player, "not judged" if play.data.get("unsure") else ""))
        return events

    def _pile_as_seen(self, player: str, card, pose: Pose, pile: TrackedPile | None, rest: int, touch: int):
        """The rules' pile for a card laid at `pose` (None: a new one), in doubt where the table says a
        card was missed: no pile known there, but the place was not bare (a pile nobody read); or the
        card does not follow the pile's top, whose place changed since it was taken in with no card
        seen laid there (a card laid unseen)."""
        if pile is None:
            return self.round.add_unseen_pile() if self._unread_pile_at(pose) else None
        if pile.top.look is not None and self.round.judge(player, card, pile.id, rest, touch=touch).reason \
                in (Reason.WRONG_NUMBER, Reason.WRONG_COLOUR) \
                and self.pictures.changed_since(pile.top.pose, pile.top.look) > self.cfg.top_changed_share:
            self.round.doubt_top(pile.id)
        return pile.id

    def _unread_pile_at(self, pose: Pose) -> bool:
        """Where no pile is known, was the place not bare before this card (a pile nobody read)?"""
        return self.pictures.lay_before(pose) > self.cfg.unseen_pile_share

    def _takeback(self, s: Settled, pile: TrackedPile, arms: list[ArmTrace]) -> list[Event]:
        taken = pile.top
        frame, owner = taken_back(taken.owner, arms, s.frame, self.layout, self.spec.fps, self.cfg)
        self.piles.remove_top(pile)
        return self._taken(taken, pile, frame, owner)

    def _strays_taken(self, settled: list[Settled]) -> list[Event]:
        """A card called illegal taken back, covered since by another (a dispute's loser; a wrong card
        not yet taken back when the next landed) or still on top: the part of it out from under the
        cards over it (and its twin beneath, a dispute's winner) changed where a change settled and
        shows again what lay there before it came (`moves.gone_from_under`), its player's arm there.
        (A top card taken back goes as the card below shows again, `moves.meaning`; but a dispute's
        loser lifted off its twin changes only where it stuck out, in pieces each too small to be a
        card.)"""
        events: list[Event] = []
        reach = max(self.spec.card_mm)
        for pile in list(self.piles.piles.values()):
            for i, card in enumerate(pile.cards):
                if card.before is None or card.look is None:  # only a card called illegal keeps `before`
                    continue
                if card is pile.top and not any(c.card == card.card for c in pile.cards[:-1]):
                    continue  # a top without its twin beneath goes as the card below shows again
                x, y = card.pose.x, card.pose.y
                near = [s for s in settled if s.bbox_mm[0] - reach <= x <= s.bbox_mm[2] + reach
                        and s.bbox_mm[1] - reach <= y <= s.bbox_mm[3] + reach]
                if not near:
                    continue
                # what lies over it, and its twin beneath (a dispute's winner, perhaps laid with it)
                over = [c.pose for j, c in enumerate(pile.cards) if j > i or (j < i and c.card == card.card)]
                out, since, before = self.pictures.uncovered_change(card.pose, (card.look, card.before), over,
                                                                    self.cfg.stray_edge_mm)
                if not gone_from_under(out, since, before, self.cfg):
                    continue
                arms = [a for s in near for a in self._seen_arms(s) if self.layout.seats[a.seat].player == card.owner]
                if arms:
                    if card is pile.top:
                        self.piles.remove_top(pile)
                    else:
                        pile.cards.remove(card)
                    frame, owner = taken_back(card.owner, arms, near[0].frame, self.layout, self.spec.fps, self.cfg)
                    events += self._taken(card, pile, frame, owner, "from under the pile's top")
                    break
        return events

    def _taken(self, taken: TrackedCard, pile: TrackedPile, frame: int, owner: str | None, note: str = "") -> list[Event]:
        """The card `taken` has left `pile` at `frame`, taken back by `owner` (None: not known)."""
        self.decisions.append(Decision(frame, "takeback", taken.pose, None, owner, note))
        if owner is None:
            return []
        try:
            return self.round.takeback(owner, parse_card(taken.card, self.spec.colours), pile.id, frame)
        except ValueError as exc:  # the rules do not know that card there: report, do not crash
            self.decisions.append(Decision(frame, "takeback-unknown", taken.pose, None, owner, str(exc)))
            return []

    def _initial_piles(self, index: int, image: np.ndarray, top: np.ndarray) -> None:
        """Piles already in the centre when watching starts (a scene that begins mid-round)."""
        off = self._off_cloth(top)
        self.layout.learn_lines(off)  # how deep each player's line lies
        self._piles_seen(index, image, top)
        self.zones.learn(off)

    def _off_cloth(self, top: np.ndarray) -> np.ndarray:
        return not_cloth(top, exclude=self.spec.markers, cloth=self.pictures.cloth, cfg=self.detect, busy=self.pictures.busy)

    def _uncovered(self, s: Settled, index: int, image: np.ndarray) -> list[Event]:
        """A part of the table an arm lay over when watching began, bare now: the piles there are
        seen for the first time, as those seen at the start (no one laid them while we watched)."""
        top = self.cal.crop(image, (0, 0), (self.layout.w, self.layout.h))
        # only cards whose middle lies on the change itself: an arm's long box also holds cards
        # other arms lay since, and where the part uncovered is bare cloth alone (arms that came
        # since still join it) no card lay under it
        self._piles_seen(index, image, top, s.bbox_mm, on=lambda p: s.near(p.x, p.y, 1.0 / s.ppm))
        if self.round.end is None and self.round_end.gone is None:
            # the zones under it: their stack's place was learnt with the arm lying along the line
            ys, xs = np.nonzero(s.mask)
            step = max(1, len(xs) // 200)
            players = {self.layout.zone_of((x + 0.5) / s.ppm, (y + 0.5) / s.ppm)
                       for x, y in zip(xs[::step], ys[::step])} - {None}
            self.zones.learn(self._off_cloth(top), players)
        return self._accept(s, image)

    def _piles_seen(self, index: int, image: np.ndarray, top: np.ndarray,
                    box: tuple[float, float, float, float] | None = None,
                    on: Callable[[Pose], bool] = lambda pose: True) -> None:
        """Centre piles lying on the whole-table view `top` (inside `box` = x0, y0, x1, y1 mm, if
        given, where `on` their place) that nobody was seen laying: each is added with its top card
        as read."""
        for found in find_cards(top, self.spec.card_mm, self.spec.markers, cloth=self.pictures.cloth, cfg=self.detect,
                                busy=self.pictures.busy, within=box):
            if self.layout.zone_of(found.pose.x, found.pose.y) is not None or not on(found.pose):
                continue
            found, reading = self.top_cards.pile_top(image, self.cal.to_px, top, found)
            if not reading.face_up or reading.card is None:
                continue
            if any(same_place(found.pose, p.top.pose, self.cfg) for p in self.piles.piles.values()):
                continue  # two outlines of one messy pile, both read at its top card
            pid = self.round.add_seen_pile(parse_card(reading.card, self.spec.colours), index,
                                           sure=reading.confidence >= self.cfg.judge_least)
            self.piles.add(pid, TrackedCard(reading.card, found.pose, None))
            self.decisions.append(Decision(index, "initial-pile", found.pose, reading))

    def _accept(self, s: Settled, image, origin=None, after=None) -> list[Event]:
        self.monitor.accept(s)
        self.pictures.accept(s, image, origin, after)
        self._keep_looks()
        return []

    def _keep_looks(self) -> None:
        """Each new pile top's place as just taken in, to see later whether it changed unseen."""
        for pile in self.piles.piles.values():
            if pile.top.look is None and not pile.top.under_arm:
                pile.top.look = self.pictures.look(pile.top.pose)
