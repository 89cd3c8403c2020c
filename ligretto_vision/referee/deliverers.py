"""Who laid a card: of the arms that came to a place while its change settled, the ones that laid
a card there, the one whose card lies on top last; and the frame each card first touched."""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable, Iterable

from ligretto_vision.config.referee import RefereeConfig
from ligretto_vision.detect.activity import ArmTrace
from ligretto_vision.geometry.zones import TableLayout
from ligretto_vision.recognise.patches import Pose


def deliverers(arms: list[ArmTrace], pose: Pose, sticking_out: float, layout: TableLayout,
               cfg: RefereeConfig = RefereeConfig(), race: bool = True, *,
               together: float = math.inf) -> list[ArmTrace]:
    """The arms that laid a card at `pose`; the one whose card lies on top comes last.

    An arm that reached well beyond this place was on its way to another pile. Of the
    others, the one that held the place longest and fits the way the top card lies laid
    it. Another arm that held on to the place at the same time laid a card too (two
    players, one place: a dispute), when its card shows under the top one, or it held on
    about as long and something shows beside the top card (`under_least`); its hand let go before
    the top card's, unless its cards lie the way the top one does. More changed than
    `under_most` around the top card is no card under it: the top's arm alone laid it.
    `sticking_out`: how much changed outside the top card, as a share of a card. `race` False: the
    card is one nobody would race another for (it does not fit the pile): its player alone laid it,
    the arm that held the place longest; the others passed or took their pixels. `together`: the
    rules' "almost together" in frames (`Round.together_frames`; the default, no window, is for
    tests of the other clauses): a second card under the top one arrived no earlier than that before
    the top card's arm, and no later than `touch_precision_frames` after it (it touched first; tuning
    range: of 36 second cards inferred right, 33 arrived so; of 118 wrong, 50 did not). The rules
    also take two let-goes that close as a dispute; arrivals alone tell second cards here."""
    axis = set(layout.axis_players(pose.angle))

    def across(a: ArmTrace, b: ArmTrace) -> bool:  # from facing edges, over the table at once
        na, nb = layout.seats[a.seat].normal, layout.seats[b.seat].normal
        return na[0] * nb[0] + na[1] * nb[1] < -0.5 and b.first <= a.last and a.first <= b.last

    def passing(a: ArmTrace) -> bool:
        # reached well beyond this place, unless an arm from the far side was here at the same
        # time: two arms that meet over a pile are one blob, and the far arm's pixels are not its
        return a.overshoot >= cfg.pass_over_mm and not any(b.peak >= cfg.seen_peak and across(a, b) for b in arms)

    def fits_axis(a: ArmTrace) -> bool:  # lies the way this arm's cards lie
        return layout.seats[a.seat].player in axis

    near = _candidates(arms, passing, fits_axis, cfg)
    if not near:
        return []
    fits = [a for a in near if fits_axis(a)] or near
    # held it there longest (a brief pass is not a play); of two arms that both held on, the card
    # of the one that let go last lies on top
    longest = max(float(a.cover.sum()) for a in fits)
    if not race:
        return [turned_to(max(fits, key=lambda a: float(a.cover.sum())), pose, layout, cfg=cfg)]
    top = max((a for a in fits if float(a.cover.sum()) >= cfg.alike_share * longest),
              key=lambda a: (a.let_go, a.last, float(a.cover.sum())))
    held = float(top.cover.sum())
    if sticking_out > cfg.under_most:  # more changed than a card under the top one: the centre gathered, a lamp, a knock
        return [turned_to(top, pose, layout, cfg=cfg)]
    # Another arm laid a card here too (a dispute) only where something shows beside the top card,
    # unless its cards lie the way the top one does (a player's cards lie turned to them, so two
    # players' cards never lie exactly one on the other, but two facing players' may: sample s02;
    # tuning range, 38 of the 42 second cards inferred with less showing were none): when it held
    # on about as long, or its card shows under the top one, or it met the top arm over the pile
    # from the far side (then one arm's blob took the other's pixels: one seems to reach far
    # beyond, the other covers little). A card under the top one was let go before it, unless it
    # may lie exactly under it (tuning range: of 19 second cards let go no earlier, 15 were none).
    under = [a for a in arms if a is not top and a.seat != top.seat and not passing(a)
             and a.last >= top.first and a.first <= top.last
             and -together <= a.arrived() - top.arrived() <= cfg.touch_precision_frames
             and (fits_axis(a) or (sticking_out >= cfg.under_least and a.let_go < top.let_go))
             and ((a.peak >= cfg.dispute_peak and float(a.cover.sum()) >= cfg.alike_share * held
                   and sticking_out >= cfg.under_least)
                  or (sticking_out >= cfg.under_shows and float(a.cover.sum()) >= cfg.under_held
                      and a.peak >= cfg.touched_peak)
                  or (across(top, a) and (top.overshoot >= cfg.pass_over_mm and a.peak >= cfg.seen_peak
                                          or a.overshoot >= cfg.pass_over_mm and a.peak >= cfg.held_peak)))]
    under.sort(key=lambda a: (a.let_go, a.last))
    # two arms that met over the place from facing edges were one blob, so coverage cannot say
    # whose hand stayed longest; the card let go of last lies on top
    late = [a for a in under if across(top, a) and a.let_go > top.let_go and fits_axis(a)]
    if late:
        under.remove(late[-1])
        under = sorted([*under, top], key=lambda a: (a.let_go, a.last))
        top = late[-1]
    return [*under, turned_to(top, pose, layout, {a.seat for a in under}, cfg)]


def turned_to(arm: ArmTrace, pose: Pose, layout: TableLayout, taken: set[int] = frozenset(),
              cfg: RefereeConfig = RefereeConfig()) -> ArmTrace:
    """The arm that laid the top card at `pose`, given to the seat the card is turned to. Where
    neighbours' arms cross the edge close together, an arm may be given to the seat beside its own;
    the card lies turned towards its player, so a card that does not lie the way this seat's cards
    lie, and does lie the way those of the seat nearest it do (within `turned_seat_deg`, and no
    other as near), is that seat's. Not a seat already laying a card here (`taken`: a dispute)."""
    axis = set(layout.axis_players(pose.angle))
    if layout.seats[arm.seat].player in axis:
        return arm
    here = layout.seats[arm.seat].angle
    gaps = sorted((abs((s.angle - here + 180.0) % 360.0 - 180.0), k) for k, s in enumerate(layout.seats)
                  if s.player in axis and k not in taken)
    if not gaps or gaps[0][0] > cfg.turned_seat_deg or (len(gaps) > 1 and gaps[1][0] - gaps[0][0] < 1.0):
        return arm
    return replace(arm, seat=gaps[0][1])


def one_card_at_a_time(arms: list[ArmTrace], laid_elsewhere: Callable[[ArmTrace], bool]) -> list[ArmTrace]:
    """The arms that may have laid a card here: a player plays with one hand, one card at a time
    (RULES.md, Play), so an arm whose player laid a card elsewhere at about the time a card here came
    to rest (`laid_elsewhere`) only passed here, or its pixels were another arm's; all of them
    when that leaves none."""
    free = [a for a in arms if not laid_elsewhere(a)]
    return free or arms


def laid_elsewhere(player: str, rest: float, pose: Pose, plays: Iterable[tuple[str | None, int, Pose]], fps: float,
                   cfg: RefereeConfig = RefereeConfig()) -> bool:
    """Did `player` lay a card more than `elsewhere_mm` from `pose` within `one_card_s` of `rest`
    (the frame a card of theirs here would have come to rest)? `plays`: (player, rest frame, pose)
    of the plays written lately."""
    return any(who == player and abs(frame - rest) <= cfg.one_card_s * fps
               and math.hypot(at.x - pose.x, at.y - pose.y) > cfg.elsewhere_mm for who, frame, at in plays)


def laid_in_this_reach(arm: ArmTrace, rests: Iterable[int]) -> bool:
    """Did this arm lay a card here already in this reach? One hand, one card at a time: a card its
    player laid here came to rest (`rests`: frames) while the arm was here, and the arm covered the
    place in every frame from then on: it never went back for another card, so it laid no second
    one; it lingered."""
    return any(arm.first <= r <= arm.last and r >= arm.frames[0] and bool((arm.covered(r, arm.last) > 0).all())
               for r in rests)


def _candidates(arms: list[ArmTrace], passing, fits_axis, cfg: RefereeConfig) -> list[ArmTrace]:
    """The arms that may have laid the top card, the first group of these that has any: those that
    covered the place well and were not passing over; those seen there at all and not passing; any
    a little there and not passing (a passing arm's blob took a weaker one's pixels); failing those,
    one seen there that fits the way the card lies, though it seems to reach beyond (what is left of
    a laying arm whose pixels a passing arm took: tuning table 54); then an arm that fits the way
    the card lies (a passing arm that met the laying hand took most of its pixels: fast players);
    then whatever was seen; then every arm."""
    seen = [a for a in arms if a.peak >= cfg.seen_peak]
    fitting = [a for a in arms if fits_axis(a)]
    return [a for a in seen if a.peak >= cfg.held_peak and not passing(a)] or \
        [a for a in seen if not passing(a)] or [a for a in arms if a.peak >= cfg.touched_peak and not passing(a)] or \
        [a for a in seen if fits_axis(a)] or \
        [a for a in fitting if not passing(a)] or [a for a in fitting if a.peak >= cfg.touched_peak] or \
        seen or arms


def first_touches(arms: list[ArmTrace], cfg: RefereeConfig = RefereeConfig()) -> list[int]:
    """The frame each deliverer's card first touched the place (in `arms`' order, top card last):
    arrivals seen to within `touch_precision_frames` are one moment; the card on top touched last
    (or at the same time): it cannot have been first."""
    touches = [a.arrived() for a in arms]
    if touches and max(touches) - min(touches) <= cfg.touch_precision_frames:
        touches = [min(touches)] * len(touches)
    if touches:
        touches[-1] = max(touches)
    return touches



def rest_frame(left: int, touch: int, fps: float, still: Callable[[int, int], bool],
               cfg: RefereeConfig = RefereeConfig()) -> int:
    """The frame a card came to rest (the hand let go), from the last frame its arm covered the
    place (`left`) and the frame it first touched: just before the arm left, unless the hand stayed
    over the card it laid, still (`still(first, last)`: nothing moved there), for `lingered_s`;
    then it let go `let_go_s` after the touch. (A hand that hovered before it laid its card moved.)"""
    rest = left - int(round(cfg.rest_after_s * fps))
    let_go = touch + int(round(cfg.let_go_s * fps))
    if rest - touch > cfg.lingered_s * fps and still(let_go + 1, rest - int(round(cfg.let_go_s * fps))):
        return let_go
    return rest
