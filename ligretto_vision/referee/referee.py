"""The referee: frames in, events out.

Per frame it only feeds the activity monitor (detect/activity.py). When a change in
the centre has settled, it looks closely: finds the top card where the table
changed, reads it, decides what happened at that pile (a card laid, a card taken
back, two cards laid almost together), asks who did it (the arm that reached in
over their edge, checked against the way the card lies) and hands the move to the
rules (`rules.Round`), which judge it and produce the events. A card on a pile that
another arm still touches cannot settle; it is read where it lies and decided early when
it reads surely and fits the pile (`_early_looks`). Changes in a player's own zone are
accepted quietly, except that they may end the round.

The same object serves a live camera and a recorded scene: `Pipeline` feeds it.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from ligretto_vision.detect.activity import LOW_PPM, ActivityMonitor, ArmTrace, Settled
from ligretto_vision.detect.cards import (Found, change_mask, cloth_field, cover, find_cards, guess_from_mask,
                                         light_level, not_cloth, refine)
from ligretto_vision.events import Event
from ligretto_vision.geometry.calibration import Calibration
from ligretto_vision.geometry.zones import TableLayout
from ligretto_vision.recognise.patches import Pose, card_patch
from ligretto_vision.recognise.reader import CardReader, Reading
from ligretto_vision.rules import Round, RuleOptions, parse_card
from ligretto_vision.rules.round import pile_key
from ligretto_vision.track.piles import PileTracker, TrackedCard
from ligretto_vision.track.zones import ZoneTracker
from ligretto_vision.referee.counting import backs_in_spread, count_backs, count_fan
from ligretto_vision.rules.scoring import round_score

MARGIN_MM = 30.0  # around a change, the region looked at closely
SURE_PILE_TOP = 0.9  # a pile found at the start read less surely than this is looked at more widely
SURE_FACE = 0.6  # a face read at least this surely needs no second look (and is a card, whatever its colour)
LEAST_READ = 0.33  # a face read less surely than this is not judged at all (a wrong verdict costs more)
WHOLE_READ = 0.5  # a card just laid whose whole outline shows, read this surely, is read so (glare dims readings)
MIN_CARD_SHARE = 0.3  # a change smaller than this share of a card is noise (a shadow, a flicker)
REST_AFTER_S = 0.03  # the hand lets go this long before it has left the card's region
TAKEN_AFTER_S = 0.2  # a card taken back leaves its place this long before the arm has left the region
SAME_PLACE_MM = 12.0  # a card this close to the previous top (and turned alike) is that same card
LAST_CARD_S = 1.5  # after a stack empties, its last card lands in the centre (or the row) within this
TOUCH_PRECISION_FRAMES = 1  # how exactly an arm's arrival gives the frame its card first touched
UNDER_SHOWS = 0.1  # changed outside the top card, as a share of a card: a second card lies under it
UNDER_HELD = 0.5  # frames (as full coverage) another arm held the place for the card under the top one to be its
PASS_OVER_MM = 45.0  # an arm reaching this far beyond a place was passing over it
EARLY_STILL_S = 0.2  # a card on a pile still this long is read without waiting for an arm touching it to go
EARLY_SURE = 0.8  # ... and decided only when read at least this surely (else the arm is waited for)
EARLY_EVERY_S = 0.1  # how often such a pile is looked at again while the arm stays ...
EARLY_LOOKS = 3  # ... this many times, and after that only when ...
EARLY_MORE = 1.25  # ... this much more of it shows than the last time
COUNT_WAIT_S = 3.0  # the longest the count waits for the hands to leave the table
COUNT_FRAMES = 5  # the count is taken from the mean of this many still frames
COUNT_QUIET_S = 1.0  # the count is taken once the spread has lain untouched this long


@dataclass
class TableSpec:
    """What the referee must know about the table (from scene.json or the set-up pages)."""
    players: list[str]
    colours: list[str]
    card_mm: tuple[float, float]
    options: RuleOptions
    fps: float
    markers: list[tuple[float, float, float]] = field(default_factory=list)  # (x, y, radius) mm: not cards


@dataclass
class Decision:
    """Why the referee decided what it did, for overlays and review."""
    frame: int
    kind: str
    pose: Pose | None = None
    reading: Reading | None = None
    player: str | None = None
    note: str = ""


class Referee:
    def __init__(self, spec: TableSpec, cal: Calibration, layout: TableLayout, reader: CardReader,
                 image_size: tuple[int, int]):
        self.spec, self.cal, self.layout, self.reader = spec, cal, layout, reader
        self.round = Round(spec.players, spec.options, spec.fps)
        self.monitor = ActivityMonitor(cal, layout, spec.fps, image_size)
        self.piles = PileTracker(spec.card_mm)
        self.card_area = spec.card_mm[0] * spec.card_mm[1]
        self.ref_full: np.ndarray | None = None  # 1 px/mm top view of the table as last accepted
        self.decisions: deque[Decision] = deque(maxlen=500)  # the latest, for overlays and review
        self.zones = ZoneTracker(layout, spec.card_mm)
        self.cloth: np.ndarray | None = None
        self.stack_gone: tuple[str, int, int] | None = None  # (player, frame it went, decide by frame)
        self.last_play: dict[str, int] = {}  # player -> rest frame of their last legal play
        self.counting = False  # the round is over and the cards are being spread for the count
        self.centre_mask: np.ndarray | None = None  # 1 px/mm: the table outside every player's zone
        self.count_due: int | None = None
        self.count_asked: int | None = None  # when the present wait for a still table began
        self.counted: dict[str, tuple[int, int]] = {}
        self.still_frames: deque[np.ndarray] = deque(maxlen=COUNT_FRAMES)  # while counting: since the arms left
        # pile id -> when its top was last looked at early, how much of it showed, how many looks
        self.early_looked: dict[str, tuple[int, int, int]] = {}
        self._regions: dict[Pose, tuple] = {}  # a card's place -> its low-res window and mask (piles' tops)

    def recalibrate(self, cal: Calibration, image: np.ndarray) -> None:
        """The camera moved: a new mapping from pixels to the table. Piles, and the reference
        pictures of the table, are in table millimetres and stay (taking the table as it now
        lies would take in an arm that happens to be over it)."""
        self.cal = cal
        self.monitor.recalibrate(cal, image)
        self.still_frames.clear()  # a count is not taken from frames of two camera places

    # ---- the frame loop ---------------------------------------------------------------
    def on_frame(self, index: int, image: np.ndarray) -> list[Event]:
        events: list[Event] = []
        if self.ref_full is None:
            top = self.cal.crop(image, (0, 0), (self.layout.w, self.layout.h))
            self._initial_piles(index, image, top)
            self.ref_full = top
        for s in self.monitor.update(index, image):
            events += self._explain(s, index, image)
        if not self.counting:
            events += self._early_looks(index, image)
        else:
            # the still table, frame after frame since the last arm left: counted from their mean,
            # where the sensor's noise and the compression's flicker have evened out
            if self.monitor.arms_on_table():
                self.still_frames.clear()
            else:
                self.still_frames.append(image)
            if self.count_due is not None and index >= self.count_due:
                events += self._count(index, image)
        if self.stack_gone and index >= self.stack_gone[2]:
            events += self._stack_went_to_row()
        return events

    def finish(self, index: int, image: np.ndarray) -> list[Event]:
        """The feed has ended (a recording's last frame): a count that was waiting for a still
        table is taken from what lies there now, and a stack seen gone ends the round."""
        events = self._count(index, image, wait=False) if self.counting and self.count_due is not None else []
        return events + (self._stack_went_to_row() if self.stack_gone else [])

    def _stack_went_to_row(self) -> list[Event]:
        """No centre card followed the stack's last one: it went into the row, the round ends."""
        player, when, _ = self.stack_gone
        self.stack_gone = None
        return self.round.declare_end(player, when)

    # ---- what happened where the table changed ----------------------------------------------
    def _explain(self, s: Settled, index: int, image: np.ndarray) -> list[Event]:
        if s.area_mm2() < MIN_CARD_SHARE * self.card_area:
            return self._accept(s, image)
        cx, cy = s.centre_mm
        if self.layout.zone_of(cx, cy) is not None:
            if self.counting:
                self.count_due = index + int(COUNT_QUIET_S * self.spec.fps)
            return self._zone_change(s, index, image)  # a player's own row, stack or discard pile
        origin, after = self._crop_around(s, image, MARGIN_MM)
        if self.counting:  # the spread is counted once it lies still, not move by move
            self.count_due = index + int(COUNT_QUIET_S * self.spec.fps)
            return self._accept(s, image, origin, after)
        changed = self._changed(s, origin, after)
        guess = guess_from_mask(changed, origin, self.spec.card_mm)
        near = (guess.x, guess.y) if guess is not None else s.centre_mm
        pile = self.piles.near_pile(*near)
        top = self._top_card(image, after, origin, guess, pile)
        events = self._judge_change(s, index, top, pile, changed, origin) if top is not None else []
        self._accept(s, image, origin, after)
        return events

    def _early_looks(self, index: int, image: np.ndarray) -> list[Event]:
        """A card laid on a pile that an arm still touches (one passing by to another pile, or
        lying over part of it) does not settle until that arm goes: once it has lain still a
        moment, read it there and then, and decide it when it reads surely and only its own
        player's arm came to this pile (a dispute waits for every arm to go)."""
        if not (self.monitor.seat_hist[-1] >= 0).any():
            self.early_looked.clear()  # no arm on the table: every change settles the usual way
            return []
        candidates = []
        for pid, pile in self.piles.piles.items():
            last, seen, looks = self.early_looked.get(pid, (-10**6, 0, 0))
            rules_pile = self.round.piles.get(pile_key(pid))
            if index - last < EARLY_EVERY_S * self.spec.fps or (rules_pile is not None and rules_pile.closed):
                continue  # looked at just now, or closed
            box, region = self._low_region(pile.top.pose)
            still = self.monitor.still_under_arm(box, region, EARLY_STILL_S)
            if still is None:
                self.early_looked.pop(pid, None)
                continue
            n = int(still.sum())
            if looks < EARLY_LOOKS or n >= EARLY_MORE * seen:
                candidates.append((n, pid, pile, box, still, looks))
        if not candidates:
            return []
        # one look a frame at most (each costs a card search), the pile showing most first
        n, pid, pile, box, still, looks = max(candidates, key=lambda c: c[0])
        self.early_looked[pid] = (index, n, looks + 1)
        return self._early_look(index, image, pile, self.monitor.settled_part(box, still))

    def _early_look(self, index: int, image: np.ndarray, pile, s: Settled) -> list[Event]:
        """The still part `s` of a pile's top, read now: a play when it is a new card that fits
        the pile, read surely, laid by one arm alone."""
        origin, after = self._crop_around(s, image, MARGIN_MM)
        changed = self._changed(s, origin, after)
        # part of the card is under the arm, so its outline is no sure guide: of the rectangles found
        # from the change, the pile's top and that turned a quarter (a card from a side seat), the
        # one whose numerals read most surely
        t = pile.top.pose
        guesses = [g for g in (guess_from_mask(changed, origin, self.spec.card_mm),) if g is not None]
        guesses += [t, Pose(t.x, t.y, t.angle + 90.0)]
        finds = [refine(after, origin, g, self.spec.card_mm, search_deg=16) for g in guesses]
        readings = self.reader.read([card_patch(image, self.cal.to_px, f.pose, self.spec.card_mm) for f in finds])
        top = found, reading = max(zip(finds, readings), key=lambda fr: (fr[1].face_up, fr[1].confidence))
        if not reading.face_up or reading.card is None or reading.confidence < EARLY_SURE \
                or reading.card in {c.card for c in pile.cards} \
                or self.piles.near_pile(found.pose.x, found.pose.y) is not pile:
            return []  # nothing new read surely on this pile (a card taken back is the usual way's)
        deliverers = self._deliverers(s.arms, found.pose, self._sticking_out(changed, origin, found.pose))
        if len(deliverers) != 1 or any(a.seat != deliverers[0].seat and a.overshoot < PASS_OVER_MM for a in s.arms):
            return []  # another arm came to this pile, if only a little: perhaps a dispute
        player = self.layout.seats[deliverers[0].seat].player
        if not self.round.judge(player, parse_card(reading.card, self.spec.colours), pile.id, index).legal:
            return []  # only the card that fits is taken this early: anything else waits to be seen whole
        self.decisions.append(Decision(index, "early-look", found.pose, reading, note="an arm still touches it"))
        events = self._judge_change(s, index, top, pile, changed, origin)
        pile.top.under_arm = True  # the card just added: its place is a first guess
        return events

    def _low_region(self, pose: Pose) -> tuple[tuple[int, int, int, int], np.ndarray]:
        """The monitor's low-res pixels a card at `pose` covers: its window (x, y, w, h) and mask."""
        if pose not in self._regions:
            if len(self._regions) > 200:
                self._regions.clear()  # tops of piles long gone
            px = (pose.corners(self.spec.card_mm) * LOW_PPM).astype(np.int32)
            h, w = self.monitor.fg.shape
            x0, y0 = np.clip(px.min(0), 0, (w - 1, h - 1))
            x1, y1 = np.clip(px.max(0) + 1, 1, (w, h))
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(mask, px - (x0, y0), 1)
            self._regions[pose] = ((int(x0), int(y0), int(x1 - x0), int(y1 - y0)), mask.astype(bool))
        return self._regions[pose]

    def _top_card(self, image, after, origin, guess: Pose | None, pile) -> tuple[Found, Reading] | None:
        """The card lying on top where the table changed: of the rectangles found from each first
        guess (the change itself, the pile's known top, the card below it), the one whose outline
        stands out best all round, i.e. the one nothing covers."""
        guesses = [guess] if guess is not None else []
        if pile is not None:
            guesses += [c.pose for c in pile.cards[-2:]]  # an unseen card: where the top lay, turned to its player
        if not guesses:
            return None
        # a card laid over a pile may lie up to ~25 degrees off the one below (two seats' jitter)
        found = max((refine(after, origin, g, self.spec.card_mm, search_deg=16) for g in guesses),
                    key=lambda f: f.contrast)
        reading = self.reader.read([card_patch(image, self.cal.to_px, found.pose, self.spec.card_mm)])[0]
        if not self._is_card(after, origin, found.pose) and (not reading.face_up or reading.confidence < SURE_FACE):
            # bare cloth: whatever lay there has gone (a face the cloth's colour still shows its numerals)
            return found, Reading(False)
        if not reading.face_up or reading.confidence < SURE_FACE:
            found, reading = self._reread(after, origin, image, [found.pose, *guesses], whole_first=True)
        return found, reading

    def _is_card(self, view, origin, pose: Pose) -> bool:
        """Does something other than the cloth (by colour or by a card's busy print) fill this rectangle?"""
        inside = cover(np.ones(view.shape[:2], bool), origin, pose, self.spec.card_mm)
        if inside < 0.5:
            return True  # mostly outside the view: cannot tell, assume a card
        off = not_cloth(view, cloth=self._cloth_now(origin, view.shape), light=self._light()).astype(bool)
        return cover(off, origin, pose, self.spec.card_mm) > 0.5

    def _light(self) -> float:
        """The light now against when watching began (1: the same, less: dimmer), as `light_level`
        scales: in dim light a card differs less from the cloth."""
        return float(np.clip(1.0 / self.monitor.gain.mean(), 0.3, 1.0))

    def _zone_change(self, s: Settled, index: int, image: np.ndarray) -> list[Event]:
        origin, after = self._crop_around(s, image, 8.0)
        if self.round.end is None and self.stack_gone is None:
            for player in self.zones.check_stacks(after, origin, self._region_mask(s, origin, after.shape),
                                                  self._cloth_now(origin, after.shape), index, self._light()):
                arm = max(s.arms, key=lambda a: a.last) if s.arms else None
                when = (arm.last if arm else index) - int(round(REST_AFTER_S * self.spec.fps))
                self.decisions.append(Decision(when, "stack-gone", player=player))
                laid = self.last_play.get(player)
                if laid is not None and index - laid <= LAST_CARD_S * self.spec.fps \
                        and (arm is None or laid >= arm.first or arm.first == s.history_start):
                    # the arm that took the last card has already laid it in the centre (a card
                    # laid before that arm reached the stack was another one: the last went to the row;
                    # an arm there since before the history began cannot tell)
                    self._accept(s, image, origin, after)
                    return self.round.declare_end(player, laid)
                self.stack_gone = (player, when, index + int(LAST_CARD_S * self.spec.fps))
        return self._accept(s, image, origin, after)

    def _judge_change(self, s: Settled, index, top: tuple[Found, Reading], pile, changed, origin) -> list[Event]:
        found, reading = top
        pose = found.pose
        arms = [a for a in s.arms if a.peak >= 0.2]
        if pile is not None and pile.below is not None and reading.card == pile.below.card \
                and (_close(pose, pile.below.pose) or not pile.below.seen):
            return self._takeback(s, pile, arms)
        if pile is not None and reading.card == pile.top.card and (
                _close(pose, pile.top.pose) or pile.top.under_arm
                or {self.layout.seats[a.seat].player for a in arms if a.peak >= 0.5} <= {pile.top.owner}):
            # the same card, where it was (or only its own player's hand came by, or it was read
            # while an arm lay over part of it and now shows whole): nothing was laid
            if pile.top.under_arm:
                pile.top.pose, pile.top.under_arm = pose, False
            self.decisions.append(Decision(index, "unchanged", pose, reading, note="the top card is where it was"))
            return []
        gone = (pile is not None and reading.card is None and not reading.face_up and reading.owner is None
                and cover(changed, origin, pile.top.pose, self.spec.card_mm) > 0.5)
        if gone and self.round.after_stop(index):
            self._start_count(index, pile)  # a whole pile picked up after the stop: the count begins
            return []
        if gone and len(pile.cards) == 1:
            return self._takeback(s, pile, arms)  # the pile's only card has gone
        if reading.face_up and reading.confidence < LEAST_READ:
            # a numeral this unsure is a guess (a shadow, a hand, a card in a player's dark corner)
            self.decisions.append(Decision(index, "unreadable", pose, reading, note="read too unsurely"))
            return []
        if not reading.face_up and reading.confidence > 0 and pile is not None \
                and self.spec.options.ten == "face-down" and pile.top.card.endswith("-9"):
            # a 10 turned face down closes the pile (a table option): it can only be that pile's 10
            reading = Reading(True, pile.top.card.rsplit("-", 1)[0], 10, confidence=reading.confidence)
        if not reading.face_up or reading.card is None:
            self.decisions.append(Decision(index, "unreadable", pose, reading))
            return []
        deliverers = self._deliverers(s.arms, pose, self._sticking_out(changed, origin, pose))
        events: list[Event] = []
        top_arm = deliverers[-1] if deliverers else None
        touches = {id(a): a.arrived(s.history_start) for a in deliverers}
        if touches and max(touches.values()) - min(touches.values()) <= TOUCH_PRECISION_FRAMES:
            # a first touch is seen to within a frame: one frame apart, no frame separates them
            touches = dict.fromkeys(touches, min(touches.values()))
        for arm in deliverers:
            player = self.layout.seats[arm.seat].player
            rest = arm.last - int(round(REST_AFTER_S * self.spec.fps))
            # the card on top touched last (or at the same time): it cannot have been first
            touch = max(touches.values()) if arm is top_arm else touches[id(arm)]
            events += self._play(player, reading, pose, pile, rest, touch, seen=arm is top_arm)
            pile = self.piles.near_pile(pose.x, pose.y)
        return events

    def _sticking_out(self, changed: np.ndarray, origin, pose: Pose) -> float:
        """How much changed outside the top card, as a share of a card: a second card lies under
        it, sticking out."""
        around = np.zeros(changed.shape, np.uint8)
        cv2.fillConvexPoly(around, (pose.corners((self.spec.card_mm[0] + 10, self.spec.card_mm[1] + 10))
                                    - origin).astype(np.int32), 1)
        return float((changed & ~around.astype(bool)).sum()) / self.card_area

    def _deliverers(self, arms: list[ArmTrace], pose: Pose, sticking_out: float = 0.0) -> list[ArmTrace]:
        """The arms that laid a card here; the one whose card lies on top comes last.

        An arm that reached well beyond this place was on its way to another pile. Of the
        others, the one that held the place longest and fits the way the top card lies laid
        it. Another arm that held on to the place at the same time laid a card too (two
        players, one place: a dispute), when its card shows under the top one or it held on
        about as long."""
        def across(a: ArmTrace, b: ArmTrace) -> bool:  # from facing edges, over the table at once
            na, nb = self.layout.seats[a.seat].normal, self.layout.seats[b.seat].normal
            return na[0] * nb[0] + na[1] * nb[1] < -0.5 and b.first <= a.last and a.first <= b.last

        def passing(a: ArmTrace) -> bool:
            # reached well beyond this place, unless an arm from the far side was here at the same
            # time: two arms that meet over a pile are one blob, and the far arm's pixels are not its
            return a.overshoot >= PASS_OVER_MM and not any(b.peak >= 0.2 and across(a, b) for b in arms)

        # the top card's arm covered the place well, unless every arm that did was passing over
        # (then a weaker one that was not laid it: the passing arm's blob took its pixels)
        axis = set(self.layout.axis_players(pose.angle))

        def fits_axis(a: ArmTrace) -> bool:  # lies the way this arm's cards lie
            return self.layout.seats[a.seat].player in axis

        seen = [a for a in arms if a.peak >= 0.2]
        # failing those, an arm that fits the way the card lies: a passing arm that met the laying
        # hand took most of its pixels (fast players), leaving it only a little of the place
        fitting = [a for a in arms if fits_axis(a)]
        near = [a for a in seen if a.peak >= 0.5 and not passing(a)] or \
            [a for a in seen if not passing(a)] or [a for a in arms if a.peak >= 0.1 and not passing(a)] or \
            [a for a in fitting if not passing(a)] or [a for a in fitting if a.peak >= 0.1] or \
            seen or arms
        if not near:
            return []
        fits = [a for a in near if fits_axis(a)] or near
        # held it there longest (a brief pass is not a play); of two arms that both held on, the card
        # of the one that let go last lies on top
        longest = max(float(a.cover.sum()) for a in fits)
        top = max((a for a in fits if float(a.cover.sum()) >= 0.6 * longest),
                  key=lambda a: (a.let_go, a.last, float(a.cover.sum())))
        held = float(top.cover.sum())
        # Another arm laid a card here too (a dispute) when it held on about as long, or its card
        # shows under the top one, or it met the top arm over the pile from the far side (then one
        # arm's blob took the other's pixels: one seems to reach far beyond, the other covers little).
        under = [a for a in arms if a is not top and a.seat != top.seat and not passing(a)
                 and a.last >= top.first and a.first <= top.last
                 and ((a.peak >= 0.6 and float(a.cover.sum()) >= 0.6 * held)
                      or (sticking_out >= UNDER_SHOWS and float(a.cover.sum()) >= UNDER_HELD and a.peak >= 0.1)
                      or (across(top, a) and (top.overshoot >= PASS_OVER_MM and a.peak >= 0.2
                                              or a.overshoot >= PASS_OVER_MM and a.peak >= 0.5)))]
        under.sort(key=lambda a: (a.let_go, a.last))
        # two arms that met over the place from facing edges were one blob, so coverage cannot say
        # whose hand stayed longest; the card let go of last lies on top
        late = [a for a in under if across(top, a) and a.let_go > top.let_go
                and self.layout.seats[a.seat].player in axis]
        if late:
            under.remove(late[-1])
            under = sorted([*under, top], key=lambda a: (a.let_go, a.last))
            top = late[-1]
        return [*under, top]

    def _start_count(self, index: int, pile) -> None:
        self.counting = True
        self.monitor.piecewise = True
        self.decisions.append(Decision(index, "count-begins", note="piles are being collected"))
        while pile.cards:
            self.piles.remove_top(pile)
        self.count_due = index + int(COUNT_QUIET_S * self.spec.fps)

    def _count(self, index: int, image: np.ndarray, wait: bool = True) -> list[Event]:
        """The spread has lain still: one `count` per player (again if it changes later).
        `wait`: for the hands to leave and a few still frames, at most COUNT_WAIT_S."""
        if self.count_asked is None or index - self.count_asked > COUNT_WAIT_S * self.spec.fps + 1:
            self.count_asked = index
        wait = wait and index - self.count_asked < COUNT_WAIT_S * self.spec.fps
        if wait and len(self.still_frames) < COUNT_FRAMES:
            # none yet: an arm is on the table (a sleeve left on its edge does not hold it up for long);
            # a few: the arms have only just gone
            self.count_due = index + (COUNT_FRAMES - len(self.still_frames) if self.still_frames
                                      else int(0.2 * self.spec.fps))
            return []
        self.count_due = None
        if self.still_frames:
            image = np.mean(np.stack(self.still_frames), axis=0, dtype=np.float32).round().astype(np.uint8)
        top = self.cal.crop(image, (0, 0), (self.layout.w, self.layout.h))
        off = not_cloth(top, exclude=self.spec.markers, light=light_level(top)).astype(bool)
        enrolled = bool(self.reader.enrollment.back_images)
        backs = count_backs(self._centre_backs(top, off) if enrolled else [])
        laid = self.round.centre_cards()
        whole_round = laid[None] == 0  # every centre card's owner was seen laid: the live tally checks the count
        events = []
        for seat in self.layout.seats:
            p = seat.player
            stack = len(count_fan(image, self.cal, self.layout, seat, self.reader, off, self.spec.card_mm))
            centre = backs[p] if enrolled or not whole_round else laid[p]  # no backs to count: the tally
            data = {"player": p, "centre": centre, "stack": stack,
                    "score": round_score(centre, stack, self.spec.options,
                                         tens=min(centre, self.round.tens_in_centre(p))),
                    "seen_laid": laid[p] if whole_round else None}
            if whole_round and laid[p] != centre:  # the two counts disagree: said, never hidden
                data["tally_differs"] = f"counted {centre} backs, saw {laid[p]} cards of theirs laid"
                data["seen_cards"] = self.round.centre_cards_of(p)  # the cards in question
            if backs["unknown"]:
                data["unknown_backs"] = backs["unknown"]  # backs in the spread nobody's enrollment matches
            if self.counted.get(p) != (centre, stack):
                self.counted[p] = (centre, stack)
                events.append(Event("count", index, data))
        if backs["unknown"]:
            self.decisions.append(Decision(index, "unknown-backs", note=f"{backs['unknown']} backs match no player"))
        if not enrolled:
            self.decisions.append(Decision(index, "no-backs-enrolled", note="centre cards cannot be counted by their backs"))
        return events

    def _centre_backs(self, top: np.ndarray, off: np.ndarray):
        """The backs of the face-down spread in the middle of the table."""
        if self.centre_mask is None:
            step = 2  # zones are tens of centimetres wide: 2 mm is fine enough
            ys, xs = np.mgrid[0:top.shape[0]:step, 0:top.shape[1]:step]
            inside = np.zeros(xs.shape, bool)
            for seat in self.layout.seats:
                inside |= self.layout.in_zone(seat, xs.ravel() + 1.0, ys.ravel() + 1.0).reshape(xs.shape)
            self.centre_mask = cv2.resize((~inside).astype(np.uint8), (top.shape[1], top.shape[0]),
                                          interpolation=cv2.INTER_NEAREST).astype(bool)
        return backs_in_spread(top, off, self.reader.enrollment.back_images, self.spec.card_mm, self.centre_mask)

    def _play(self, player: str, reading: Reading, pose: Pose, pile, rest: int, touch: int,
              seen: bool = True) -> list[Event]:
        card = parse_card(reading.card, self.spec.colours)
        pile_id = pile.id if pile is not None else None
        events = self.round.play(player, card, pile_id, rest, touch=touch,
                                 at=[round(pose.x, 1), round(pose.y, 1), round(pose.angle, 1)])
        play = events[0]
        play.data["confidence"] = round(reading.confidence, 3)
        if play.data["legal"]:
            self.last_play[player] = rest
        if self.stack_gone and self.stack_gone[0] == player and play.data["legal"]:
            self.stack_gone = None  # the stack's last card, laid in the centre: the round ends with it
            events += self.round.declare_end(player, rest)
        if not seen:  # it lies under the card on top: assume it lies there, turned towards its player
            pose = Pose(pose.x, pose.y, self.layout.facing(player))
        self.piles.add(play.data["pile"], TrackedCard(str(card), pose, player, play.data["legal"], seen))
        self.decisions.append(Decision(rest, "play", pose, reading, player))
        return events

    def _takeback(self, s: Settled, pile, arms: list[ArmTrace]) -> list[Event]:
        taken = pile.top
        owner = taken.owner
        arm = max(arms, key=lambda a: a.last) if arms else None
        frame = (arm.last if arm else s.frame) - int(round(TAKEN_AFTER_S * self.spec.fps))
        if owner is None and arm is not None:
            owner = self.layout.seats[arm.seat].player
        self.piles.remove_top(pile)
        self.decisions.append(Decision(frame, "takeback", taken.pose, None, owner))
        if owner is None:
            return []
        try:
            return self.round.takeback(owner, parse_card(taken.card, self.spec.colours), pile.id, frame)
        except ValueError as exc:  # the rules do not know that card there: report, do not crash
            self.decisions.append(Decision(frame, "takeback-unknown", taken.pose, None, owner, str(exc)))
            return []

    # ---- the table before the first move -----------------------------------------------------
    def _initial_piles(self, index: int, image: np.ndarray, top: np.ndarray) -> None:
        """Piles already in the centre when watching starts (a scene that begins mid-round)."""
        self.cloth = cloth_field(top)
        for found in find_cards(top, self.spec.card_mm, self.spec.markers, cloth=self.cloth):
            if self.layout.zone_of(found.pose.x, found.pose.y) is not None:
                continue
            reading = self.reader.read([card_patch(image, self.cal.to_px, found.pose, self.spec.card_mm)])[0]
            if not reading.face_up or reading.confidence < SURE_PILE_TOP:
                # a messy pile's outline may put the first guess well off its top card, or on a card
                # sticking out below it: look around it; the top card's numerals read most surely
                x, y, a = found.pose.x, found.pose.y, found.pose.angle
                around = [Pose(x + dx, y + dy, a) for dx, dy in ((0, 0), (-18, 0), (18, 0), (0, -18), (0, 18))]
                other, again = self._reread(top, (0, 0), image, around)
                if _rather_on_top(again, reading):
                    found, reading = other, again
            if not reading.face_up or reading.card is None:
                continue
            pid = self.round.add_seen_pile(parse_card(reading.card, self.spec.colours), index)
            self.piles.add(pid, TrackedCard(reading.card, found.pose, None))
            self.decisions.append(Decision(index, "initial-pile", found.pose, reading))
        self.zones.learn(not_cloth(top, exclude=self.spec.markers, cloth=self.cloth))

    def _reread(self, view: np.ndarray, origin, image: np.ndarray, places: list[Pose],
                whole_first: bool = False) -> tuple[Found, Reading]:
        """In a messy pile of one colour the top card's edges barely show: try every turn
        around each likely place and keep the one whose numerals read most surely.
        `whole_first` (a card just laid): where a rectangle's outline stands out all round and its
        numerals read at least WHOLE_READ, that is the card, not a rectangle across it that
        happens to read a little more surely (glare dims every reading). Not for piles found at the start: a card sticking out from under
        a messy pile's top may show its whole outline there."""
        best = None
        for place in places:
            for turn in range(0, 180, 30):
                f = refine(view, origin, Pose(place.x, place.y, place.angle + turn), self.spec.card_mm,
                           search_mm=10, search_deg=15)
                r = self.reader.read([card_patch(image, self.cal.to_px, f.pose, self.spec.card_mm)])[0]
                key = (r.face_up, whole_first and f.contrast > 0 and r.confidence >= WHOLE_READ, r.confidence)
                if best is None or key > best[0]:
                    best = (key, f, r)
        return best[1], best[2]

    # ---- bookkeeping ---------------------------------------------------------------------------
    def _crop_around(self, s: Settled, image: np.ndarray, margin: float):
        """The table around a change, seen from above at 1 px/mm: (origin mm, picture)."""
        x0, y0, x1, y1 = s.bbox_mm
        origin = (max(0.0, x0 - margin), max(0.0, y0 - margin))
        size = (min(self.layout.w, x1 + margin) - origin[0], min(self.layout.h, y1 + margin) - origin[1])
        return origin, self.cal.crop(image, origin, size)

    def _changed(self, s: Settled, origin, after: np.ndarray) -> np.ndarray:
        """Where the close look at a change differs from the table as last accepted (1 px/mm)."""
        return change_mask(after, self._ref_crop(origin, after.shape)) & self._region_mask(s, origin, after.shape)

    def _ref_crop(self, origin, shape) -> np.ndarray:
        return self._table_crop(self.ref_full, origin, shape)

    def _cloth_now(self, origin, shape) -> np.ndarray:
        """The cloth's colour where a crop lies, in today's light."""
        return self._table_crop(self.cloth, origin, shape) / self.monitor.gain

    @staticmethod
    def _table_crop(full: np.ndarray, origin, shape) -> np.ndarray:
        """The part of a whole-table picture (1 px/mm) that a crop at `origin` of `shape` shows."""
        x0, y0 = int(round(origin[0])), int(round(origin[1]))
        out = full[y0:y0 + shape[0], x0:x0 + shape[1]]
        if out.shape[:2] != shape[:2]:
            out = cv2.resize(out, (shape[1], shape[0]))
        return out

    def _region_mask(self, s: Settled, origin, shape) -> np.ndarray:
        """The monitor's low-res change mask, at 1 px/mm in the crop, grown a little."""
        m = cv2.resize(s.mask.astype(np.uint8), None, fx=1 / LOW_PPM, fy=1 / LOW_PPM, interpolation=cv2.INTER_NEAREST)
        m = cv2.dilate(m, np.ones((9, 9), np.uint8))
        x0, y0 = int(round(origin[0])), int(round(origin[1]))
        out = np.zeros(shape[:2], bool)
        sub = m[y0:y0 + shape[0], x0:x0 + shape[1]].astype(bool)
        out[:sub.shape[0], :sub.shape[1]] = sub
        return out

    def _accept(self, s: Settled, image, origin=None, after=None) -> list[Event]:
        self.monitor.accept(s)
        if origin is None:
            origin, after = self._crop_around(s, image, 8.0)
        x0, y0 = int(round(origin[0])), int(round(origin[1]))
        h = min(after.shape[0], self.ref_full.shape[0] - y0)
        w = min(after.shape[1], self.ref_full.shape[1] - x0)
        # only where this change lies: an arm or another card moving nearby is not taken in
        where = self._region_mask(s, origin, after.shape)[:h, :w]
        self.ref_full[y0:y0 + h, x0:x0 + w][where] = after[:h, :w][where]
        return []


def _rather_on_top(again: Reading, first: Reading) -> bool:
    """Is the second reading of a pile found at the start rather its top card than the first?
    Two cards of one colour read surely: a pile's run goes up, so the higher lies on top.
    Otherwise the surer, but a card of another colour (perhaps a neighbouring pile's) only
    over an unsure first reading."""
    if not again.face_up:
        return False
    if first.face_up and first.colour == again.colour and min(first.confidence, again.confidence) >= SURE_FACE:
        return again.number > first.number
    return (not first.face_up or again.confidence > first.confidence) and \
        (first.colour == again.colour or first.confidence < SURE_FACE)


def _close(a: Pose, b: Pose) -> bool:
    turn = abs((a.angle - b.angle + 90.0) % 180.0 - 90.0)
    return float(np.hypot(a.x - b.x, a.y - b.y)) < SAME_PLACE_MM and turn < 12.0
