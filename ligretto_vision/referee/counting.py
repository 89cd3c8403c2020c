"""The end-of-round count: centre cards by their backs, Ligretto stacks by their faces.

When the whole piles are picked up after the stop the count begins: the spread of face-down
centre cards and each player's face-up fan are counted once they have lain untouched a moment
(`count_quiet_s`), from the mean of a few still frames with no arm on the table, and again
whenever they change. Reading the backs and the fans is recognition's (recognise/backs.py,
recognise/fan.py); here is when to count and what the counts say.
"""
from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

import cv2
import numpy as np

from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.config.referee import RefereeConfig
from ligretto_vision.detect.cloth import not_cloth
from ligretto_vision.detect.light import light_level
from ligretto_vision.events import Event
from ligretto_vision.geometry.calibration import Calibration
from ligretto_vision.geometry.zones import LinePlace, TableLayout
from ligretto_vision.recognise.backs import SpreadBack, backs_in_spread
from ligretto_vision.recognise.fan import count_fan
from ligretto_vision.recognise.reader import CardReader
from ligretto_vision.referee.spec import Decision, TableSpec
from ligretto_vision.rules import Round
from ligretto_vision.rules.scoring import round_score


def count_backs(found: list[SpreadBack]) -> Counter:
    return Counter(b.owner or "unknown" for b in found)


@dataclass(frozen=True)
class CountWait:
    asked: int  # when the present wait for a still table began
    due: int | None  # look again at this frame; None: count now


def count_wait(index: int, asked: int | None, still: int, wait: bool, fps: float,
               cfg: RefereeConfig = RefereeConfig()) -> CountWait:
    """Count now, or wait for the hands to leave and a few still frames (`still` so far), at most
    `count_wait_s`? `wait` False: count now whatever lies there."""
    if asked is None or index - asked > cfg.count_wait_s * fps + 1:
        asked = index
    wait = wait and index - asked < cfg.count_wait_s * fps
    if wait and still < cfg.count_frames:
        # none yet: an arm is on the table (a sleeve left on its edge does not hold it up for long);
        # a few: the arms have only just gone
        return CountWait(asked, index + (cfg.count_frames - still if still else int(cfg.count_retry_s * fps)))
    return CountWait(asked, None)


def player_count(player: str, backs: Counter, stack: int, laid: Counter, enrolled: bool, round_: Round,
                 options) -> dict:
    """One player's count: their centre cards (by backs; by the live tally when no backs are
    enrolled and every centre card's owner was seen laid), their stack and the round's score."""
    whole_round = laid[None] == 0  # every centre card's owner was seen laid: the live tally checks the count
    centre = backs[player] if enrolled or not whole_round else laid[player]
    data = {"player": player, "centre": centre, "stack": stack,
            "score": round_score(centre, stack, options, tens=min(centre, round_.tens_in_centre(player))),
            "seen_laid": laid[player] if whole_round else None}
    if whole_round and laid[player] != centre:  # the two counts disagree: said, never hidden
        data["tally_differs"] = f"counted {centre} backs, saw {laid[player]} cards of theirs laid"
        data["seen_cards"] = round_.centre_cards_of(player)  # the cards in question
    if backs["unknown"]:
        data["unknown_backs"] = backs["unknown"]  # backs in the spread nobody's enrollment matches
    return data


def off_cloth(top: np.ndarray, markers, cloth: np.ndarray | None, busy: float, detect: DetectConfig) -> np.ndarray:
    """What of the table (1 px/mm) is not the cloth as it looks now (mostly bare), nor as it
    looked when watching began (`cloth`): the one alone takes a brick cloth's mortar for cards,
    the other a place an arm lay over then. `markers`: (x, y, radius) mm, not cards."""
    light = light_level(top, detect)
    off = not_cloth(top, exclude=markers, light=light, cfg=detect, busy=busy).astype(bool)
    if cloth is not None:
        off &= not_cloth(top, exclude=markers, cloth=cloth, light=light, cfg=detect, busy=busy).astype(bool)
    return off


def fan_mask(off: np.ndarray, detect: DetectConfig) -> np.ndarray:
    """Where the fans may lie: what of the table is not the cloth (`off_cloth`), wider than the
    cloth's own thin lines (a brick cloth's mortar would join a fan to the whole zone)."""
    k = detect.find_thin_px
    return cv2.morphologyEx(off.astype(np.uint8), cv2.MORPH_OPEN, np.ones((k, k), np.uint8))


def stopper_from_count(counted: dict[str, tuple[int, int]]) -> str | None:
    """Who ended a round whose stop went unseen: the one player whose stack counted none (`counted`:
    player -> (centre, stack)); None when none or several did (a fan not found counts none too)."""
    empty = [p for p, (_, stack) in counted.items() if stack == 0]
    return empty[0] if len(empty) == 1 else None


class Count:
    """The count's progress through a round's end: begun, waiting for a still spread, taken."""

    def __init__(self, spec: TableSpec, layout: TableLayout, reader: CardReader, decisions: deque[Decision],
                 cfg: RefereeConfig = RefereeConfig(), recognise: RecogniseConfig = RecogniseConfig(),
                 detect: DetectConfig = DetectConfig()):
        self.spec, self.layout, self.reader, self.cfg, self.recognise = spec, layout, reader, cfg, recognise
        self.detect = detect
        self.decisions = decisions  # the referee's record: the count's notes go there
        self.counting = False  # the round is over and the cards are being spread for the count
        self.began: int | None = None  # the frame the count began (the piles were picked up)
        self.due: int | None = None
        self.asked: int | None = None  # when the present wait for a still table began
        self.counted: dict[str, tuple[int, int]] = {}
        self.still: deque[np.ndarray] = deque(maxlen=cfg.count_frames)  # since the arms left
        self._centre: np.ndarray | None = None  # 1 px/mm: the table outside every player's zone

    def begin(self, index: int) -> None:
        self.counting, self.began = True, index
        self.touched(index)

    def touched(self, index: int) -> None:
        """The spread changed: it is counted once it lies still, not move by move."""
        self.due = index + int(self.cfg.count_quiet_s * self.spec.fps)

    def watch(self, image: np.ndarray, arms_on_table: bool) -> None:
        """The still table, frame after frame since the last arm left: counted from their mean,
        where the sensor's noise and the compression's flicker have evened out."""
        if arms_on_table:
            self.still.clear()
        else:
            self.still.append(image)

    def is_due(self, index: int) -> bool:
        return self.due is not None and index >= self.due

    def take(self, index: int, image: np.ndarray, cal: Calibration, round_: Round, lines: dict[str, LinePlace],
             wait: bool = True, cloth: np.ndarray | None = None, busy: float = 0.0) -> list[Event]:
        """One `count` event per player whose count is new (again if it changes later), once the
        spread lies still (`wait` False: now, whatever lies there). `lines`: where each player's line
        lay (their fan lies there); `cloth`, `busy`: the bare cloth as learnt when watching began
        (`cloth_field`, `cloth_busy`)."""
        w = count_wait(index, self.asked, len(self.still), wait, self.spec.fps, self.cfg)
        self.asked, self.due = w.asked, w.due
        if w.due is not None:
            return []
        if self.still:
            image = np.mean(np.stack(self.still), axis=0, dtype=np.float32).round().astype(np.uint8)
        top = cal.crop(image, (0, 0), (self.layout.w, self.layout.h))
        off = off_cloth(top, self.spec.markers, cloth, busy, self.detect)
        enrolled = bool(self.reader.enrollment.back_images)
        backs = count_backs(self._centre_backs(top, off) if enrolled else [])
        laid = round_.centre_cards()
        fans = fan_mask(off, self.detect)
        events = []
        for seat in self.layout.seats:
            stack = count_fan(image, cal.to_px, lines[seat.player], fans, self.spec.card_mm, self.recognise)
            data = player_count(seat.player, backs, stack, laid, enrolled, round_, self.spec.options)
            if self.counted.get(seat.player) != (data["centre"], stack):
                self.counted[seat.player] = (data["centre"], stack)
                events.append(Event("count", index, data))
        if backs["unknown"]:
            self.decisions.append(Decision(index, "unknown-backs", note=f"{backs['unknown']} backs match no player"))
        if not enrolled:
            self.decisions.append(Decision(index, "no-backs-enrolled", note="centre cards cannot be counted by their backs"))
        return events

    def _centre_backs(self, top: np.ndarray, off: np.ndarray) -> list[SpreadBack]:
        """The backs of the face-down spread in the middle of the table."""
        if self._centre is None:
            step = 2  # zones are tens of centimetres wide: 2 mm is fine enough
            ys, xs = np.mgrid[0:top.shape[0]:step, 0:top.shape[1]:step]
            inside = np.zeros(xs.shape, bool)
            for seat in self.layout.seats:
                inside |= self.layout.in_zone(seat, xs.ravel() + 1.0, ys.ravel() + 1.0).reshape(xs.shape)
            self._centre = cv2.resize((~inside).astype(np.uint8), (top.shape[1], top.shape[0]),
                                      interpolation=cv2.INTER_NEAREST).astype(bool)
        return backs_in_spread(top, off, self.reader.enrollment.back_images, self.spec.card_mm, self._centre,
                               self.recognise)
