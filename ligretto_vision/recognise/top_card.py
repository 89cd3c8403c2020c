"""The top card of a pile: finding its outline where the table changed and reading it, and
looking again (every turn around each likely place) when it reads unsurely.

`TopCards` works on a 1 px/mm top view of part of the table (`view`, its top-left at `origin`
mm) for outlines and on the camera frame (through `to_px`, table mm -> pixels) for the
patches it reads; it keeps no state between calls.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.detect.cloth import not_cloth
from ligretto_vision.detect.outlines import Found, cover, refine
from ligretto_vision.recognise.patches import Pose, ToPx, card_patch
from ligretto_vision.recognise.reader import CardReader, Reading

# the cloth's colour where the view lies, in today's light, that light against the start's, and how busy
# the bare cloth is of itself
# (asked only when needed: working it out costs a crop of the whole-table picture)
ClothNow = Callable[[], tuple[np.ndarray, float, float]]


class TopCards:
    def __init__(self, reader: CardReader, card_mm, cfg: RecogniseConfig = RecogniseConfig(),
                 detect: DetectConfig = DetectConfig(), backs_on_piles: bool = False):
        """`backs_on_piles`: the table turns its tens face down, so a back may lie on a pile."""
        self.reader, self.card_mm, self.cfg, self.detect = reader, card_mm, cfg, detect
        self.backs_on_piles = backs_on_piles

    def read(self, image: np.ndarray, to_px: ToPx, pose: Pose, either_way: bool = True) -> Reading:
        """The card lying at `pose`, read (`either_way` False: `pose` is the right way up)."""
        return self.reader.read([card_patch(image, to_px, pose, self.card_mm)], either_way)[0]

    def read_facing(self, image: np.ndarray, to_px: ToPx, pose: Pose, facing: float) -> tuple[Pose, Reading]:
        """The card at `pose` read the right way up for a player it faces at `facing` degrees (a card
        in the centre lies turned towards the player who laid it): of its two ways up, the nearer."""
        turned = (pose.angle - facing + 180.0) % 360.0 - 180.0
        upright = Pose(pose.x, pose.y, pose.angle + (180.0 if abs(turned) > 90.0 else 0.0))
        return upright, self.read(image, to_px, upright, either_way=False)

    def read_turned(self, image: np.ndarray, to_px: ToPx, view: np.ndarray, origin, pose: Pose,
                    turn: float) -> tuple[Found, Reading]:
        """The card at `pose` looked for again `turn` degrees round (an outline cut the wrong way
        round, across two cards' blob), and read."""
        found = refine(view, origin, Pose(pose.x, pose.y, (pose.angle + turn + 180.0) % 360.0 - 180.0), self.card_mm,
                       search_deg=self.cfg.top_search_deg, cfg=self.detect)
        return found, self.read(image, to_px, found.pose)

    def on_change(self, image: np.ndarray, to_px: ToPx, view: np.ndarray, origin, guesses: list[Pose],
                  cloth_now: ClothNow) -> tuple[Found, Reading] | None:
        """The card lying on top where the table changed: of the rectangles found from each first
        guess (the change itself, the pile's known top, the card below it), the one whose outline
        stands out best all round, i.e. the one nothing covers. Bare cloth reads as `Reading(False)`."""
        if not guesses:
            return None
        found = max((refine(view, origin, g, self.card_mm, search_deg=self.cfg.top_search_deg, cfg=self.detect) for g in guesses),
                    key=lambda f: f.contrast)
        reading = self.read(image, to_px, found.pose)
        # a face read surely needs no second look, nor (where tens are turned face down) a back surely
        # someone's, whose or not; elsewhere a back on a pile is a card cut at a wrong turn
        unsure = reading.confidence < self.cfg.sure_face if reading.face_up else \
            reading.confidence <= 0 or not self.backs_on_piles
        if unsure and not self.is_card(view, origin, found.pose, cloth_now):
            # bare cloth: whatever lay there has gone (a face the cloth's colour still shows its numerals)
            return found, Reading(False)
        if unsure:
            found, reading = self.reread(image, to_px, view, origin, [found.pose, *guesses], whole_first=True)
        return found, reading

    def copy_on_top(self, image: np.ndarray, to_px: ToPx, view: np.ndarray, origin, found: tuple[Found, Reading],
                    at: Pose) -> tuple[Found, Reading] | None:
        """A second copy of the card `found` lying on it at another turn (a dispute's loser: one colour
        on one colour, its outline is lost in the old card's blob, and a look near the old card finds
        the old card). Looked for from `at` at every other turn: a rectangle that stands out better all
        round than the old one (nothing covers it) and reads the same card. None: no such copy."""
        step = 2 * self.cfg.top_search_deg  # each look turns up to top_search_deg either way
        if not step:
            return None
        turned = (Pose(at.x, at.y, at.angle + d) for d in range(step, 180, step))
        best = max((refine(view, origin, g, self.card_mm, search_deg=self.cfg.top_search_deg, cfg=self.detect)
                    for g in turned), key=lambda f: f.contrast)
        if best.contrast <= found[0].contrast:
            return None
        reading = self.read(image, to_px, best.pose)  # read once: a copy is read as surely as the card it copies
        return (best, reading) if reading.face_up and reading.card == found[1].card else None

    def is_card(self, view: np.ndarray, origin, pose: Pose, cloth_now: ClothNow) -> bool:
        """Does something other than the cloth (by colour or by a card's busy print) fill this rectangle?"""
        inside = cover(np.ones(view.shape[:2], bool), origin, pose, self.card_mm)
        if inside < 0.5:
            return True  # mostly outside the view: cannot tell, assume a card
        cloth, light, busy = cloth_now()
        off = not_cloth(view, cloth=cloth, light=light, cfg=self.detect, busy=busy).astype(bool)
        return cover(off, origin, pose, self.card_mm) > self.cfg.card_fill

    def like_cloth(self, image: np.ndarray, to_px: ToPx, view: np.ndarray, origin, place: Pose,
                   cloth_now: ClothNow) -> tuple[Found, Reading] | None:
        """A card the colour of the cloth around `place` (where only its print shows: a blue face on a
        blue felt), looked for at every turn: a face read surely whose rectangle does not stand out from
        the cloth. None: no such card (nothing read surely, or a card that stands out: not this)."""
        found, reading = self.reread(image, to_px, view, origin, [place], whole_first=True)
        if not reading.face_up or reading.shape_sure < self.cfg.sure_face or self.is_card(view, origin, found.pose, cloth_now):
            return None
        return found, reading

    def reread(self, image: np.ndarray, to_px: ToPx, view: np.ndarray, origin, places: list[Pose],
               whole_first: bool = False) -> tuple[Found, Reading]:
        """In a messy pile of one colour the top card's edges barely show: try every turn
        around each likely place and keep the one whose numerals read most surely.
        `whole_first` (a card just laid): where a rectangle's outline stands out all round and its
        numerals read at least `whole_read`, that is the card, not a rectangle across it that
        happens to read a little more surely (glare dims every reading). Not for piles found at
        the start: a card sticking out from under a messy pile's top may show its whole outline there.
        Of the rectangles read surely (a 6 or 9 either way up by its numeral alone), the one whose
        outline stands out best: one cut across a pile may read surely as some other number."""
        cfg = self.cfg
        best = None
        for place in places:
            for turn in range(0, 180, cfg.reread_turn_step):
                f = refine(view, origin, Pose(place.x, place.y, place.angle + turn), self.card_mm,
                           search_mm=cfg.reread_search_mm, search_deg=cfg.reread_search_deg, cfg=self.detect)
                r = self.read(image, to_px, f.pose)
                # where tens are turned face down, a back surely someone's is a card read as surely
                card = r.face_up or (self.backs_on_piles and r.confidence > 0)
                sure = r.shape_sure >= cfg.sure_face if r.face_up else card
                key = (card, whole_first and f.contrast > 0 and (r.confidence >= cfg.whole_read if r.face_up else card),
                       sure, f.contrast if sure else 0.0, r.shape_sure)
                if best is None or key > best[0]:
                    best = (key, f, r)
        return best[1], best[2]

    def pile_top(self, image: np.ndarray, to_px: ToPx, top: np.ndarray, found: Found) -> tuple[Found, Reading]:
        """A pile found when watching starts (`top`: the whole table at 1 px/mm), read: a messy
        pile's outline may put the first guess well off its top card, or on a card sticking out
        below it, so one read unsurely is looked at around it (the top card's numerals read most surely)."""
        reading = self.read(image, to_px, found.pose)
        if not reading.face_up or reading.confidence < self.cfg.sure_pile_top:
            x, y, a, d = found.pose.x, found.pose.y, found.pose.angle, self.cfg.pile_around_mm
            around = [Pose(x + dx, y + dy, a) for dx, dy in ((0, 0), (-d, 0), (d, 0), (0, -d), (0, d))]
            other, again = self.reread(image, to_px, top, (0, 0), around)
            # where tens lie face up no back tops a pile: a back read there is a rectangle cut across
            # a messy pile (a picture back's colours), however surely, and any face read around it is surer
            first = reading if reading.face_up or self.backs_on_piles else Reading(False)
            if rather_on_top(again, first, self.cfg.sure_face):
                return other, again
        return found, reading

    def best_under_arm(self, image: np.ndarray, to_px: ToPx, view: np.ndarray, origin,
                       guesses: list[Pose], own_rectangle: bool = False,
                       looked: dict | None = None) -> tuple[Found, Reading]:
        """A card partly under an arm, whose outline is no sure guide: of the rectangles found from
        the guesses, the one whose numerals read most surely. `own_rectangle` (a card laid neatly on
        one of its colour, its change small): the first guess barely moved is read as well (the
        change's own rectangle: refining it may slide onto the outline of the card just below, which
        may read surely, as the card it is). `looked`: what was found and read from each guess in
        this view already (filled in): a second look from some of the same guesses reads them once."""
        looked = {} if looked is None else looked
        new = [g for g in dict.fromkeys(guesses) if g not in looked]
        finds = [refine(view, origin, g, self.card_mm, search_deg=self.cfg.top_search_deg, cfg=self.detect) for g in new]
        looked.update(zip(new, zip(finds, self.reader.read([card_patch(image, to_px, f.pose, self.card_mm) for f in finds]))))
        finds, readings = [looked[g][0] for g in guesses], [looked[g][1] for g in guesses]
        if guesses and own_rectangle:
            finds.append(refine(view, origin, guesses[0], self.card_mm, search_mm=0.0, search_deg=0.0, cfg=self.detect))
            readings.append(self.read(image, to_px, finds[-1].pose))
        return max(zip(finds, readings), key=lambda fr: (fr[1].face_up, fr[1].confidence))


def rather_on_top(again: Reading, first: Reading, sure_face: float) -> bool:
    """Is the second reading of a pile found at the start rather its top card than the first?
    Two cards of one colour read surely: a pile's run goes up, so the higher lies on top.
    Otherwise the surer, but a card of another colour (perhaps a neighbouring pile's) only
    over an unsure first reading."""
    if not again.face_up:
        return False
    if first.face_up and first.colour == again.colour and min(first.confidence, again.confidence) >= sure_face:
        return again.number > first.number
    return (not first.face_up or again.confidence > first.confidence) and \
        (first.colour == again.colour or first.confidence < sure_face)
