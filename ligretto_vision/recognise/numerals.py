"""Reading numbers the way this deck prints them, learned from the set-up step "lay out 1 to 10".

A deck may print its numbers large in the middle, small in two or four corners, in any font,
white on colour or colour on white. The ten enrolled cards (`enroll/numbers/1.png … 10.png`, one
colour) show where and how. Each card is turned into a map of its print's edges, which are
the same for every colour of the deck, so one colour's ten cards teach all four. What the ten share (frame, motif, where the numerals sit) is taken
out; what is left is what sets each number apart, and a card is read by which of the ten
its own map matches best, either way up, allowing a few millimetres and degrees of misplacement.
Each number keeps its best fit over those placements, so a deck whose 6 is its 9 upside down
reads a 6 or a 9 unsurely rather than guessing which way up the card lies; once the player who
laid it is known (a card in the centre lies turned towards its player), it is read that way up.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.recognise.patches import PATCH_PPM

CARD_EDGE_PX = 3  # a card's outline at 1 px/mm (with its rounded corners): not its print


def print_map(patch: np.ndarray) -> np.ndarray:
    """(H, W) float32: where the print has edges (colour gradient strength, lightly smoothed).
    A numeral's edges are the same in every colour of a deck and whichever way its fill and
    outline contrast with the ground; light and the card's colour change their strength only."""
    p = cv2.GaussianBlur(patch, (3, 3), 0).astype(np.float32)
    gx = cv2.Sobel(p, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(p, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.GaussianBlur(np.sqrt((gx * gx + gy * gy).sum(axis=2)), (0, 0), 1.0)


def _unit(a: np.ndarray) -> np.ndarray:
    a = a - a.mean()
    return a / (float(np.linalg.norm(a)) + 1e-6)


def _without(a: np.ndarray, common: np.ndarray) -> np.ndarray:
    """`a` (a unit map) with its share of the deck's common print taken out, as a unit map."""
    return _unit(a - common * float((a * common).sum()))


def _apart_from_common(seen: np.ndarray, r: float, shapes: np.ndarray) -> np.ndarray:
    """`shapes @ _without(_unit(seen), common)` for a flat crop `seen` whose correlation with the
    unit map `common` is `r` (matchTemplate's TM_CCOEFF_NORMED), worked out without its three
    passes over the crop: `shapes`' rows have no mean and nothing of `common`, so only `seen`'s
    length apart from its mean and from `common` is needed (the same to ~1e-5)."""
    spread = float(seen @ seen) - float(seen.sum()) ** 2 / seen.size  # |seen - mean|^2
    apart = np.sqrt(max(spread * (1.0 - r * r), 0.0)) if np.isfinite(r) else 0.0
    if not apart > 1e-6:  # a plain crop: nothing of any number (as _unit makes it all zeros)
        return np.zeros(len(shapes), np.float32)
    return (shapes @ seen) / np.float32(apart)


@dataclass(frozen=True)
class NumberScores:
    scores: np.ndarray  # (10,) how well the card matches each enrolled number, -1..1
    number: int  # the best one
    confidence: float  # 0..1: how clearly it leads the second

    @property
    def best(self) -> float:
        return float(self.scores[self.number - 1])


def recoloured(patch: np.ndarray, ink: np.ndarray, white: np.ndarray, to: np.ndarray) -> np.ndarray:
    """A card printed in colour `ink` (BGR) as it would look printed in `to`. Each pixel is taken as
    a mix of the ink, the print's `white` and its darkest print (a numeral's outline, blurred into
    its neighbours), and its share of the ink is changed to `to`; whatever else it shows stays."""
    px = patch.reshape(-1, 3).astype(np.float32)
    dark = np.median(px[px.max(1) <= np.percentile(px.max(1), 2)], axis=0)
    mix = np.stack([ink - dark, white - dark], 1)  # (3, 2)
    share = np.clip(np.linalg.lstsq(mix, (px - dark).T, rcond=None)[0][0], 0, 1)
    out = px + share[:, None] * (np.asarray(to, np.float32) - ink)
    return np.clip(out, 0, 255).astype(np.uint8).reshape(patch.shape)


def _templates(patches: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(common, shapes) of ten upright cards: see `DeckNumerals`."""
    # the card's own outline (its edge against whatever it lies on) is left out: CARD_EDGE_PX
    inner = [_unit(print_map(p)[CARD_EDGE_PX:-CARD_EDGE_PX, CARD_EDGE_PX:-CARD_EDGE_PX]) for p in patches]
    common = _unit(np.mean(inner, axis=0))
    return common.astype(np.float32), np.stack([_without(t, common).ravel() for t in inner]).astype(np.float32)


@dataclass(frozen=True)
class DeckNumerals:
    common: np.ndarray  # (h, w) unit map: what all ten enrolled cards share
    shapes: np.ndarray  # (10, h*w): what sets each number apart, unit vectors
    margin_px: int  # how far a card may lie off its pose, each way
    lead_full: float  # a lead over the second best this big is full confidence
    turns: tuple[float, ...]  # how far (degrees) a card may lie turned off its pose: each tried
    cards: tuple[np.ndarray, ...] = ()  # the ten enrolled cards as given (1 … 10)
    # colour -> (common, shapes) of the ten as printed in each other colour: a numeral's outline shows
    # against a light colour and hardly against a dark one, so one colour's edges are not another's
    in_colour: dict = field(default_factory=dict)
    twins: frozenset[int] = frozenset()  # numbers that, turned half round, read as another (6 and 9 unmarked)
    twin_sure: float = 1.0  # such a number read either way up is read at most this surely

    @classmethod
    def from_patches(cls, patches: list[np.ndarray], cfg: RecogniseConfig = RecogniseConfig(),
                     inks: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
                     own: str | None = None) -> "DeckNumerals":
        """The ten upright enrolled cards (1 … 10, canonical patches, `reader.upright`) of colour `own`;
        `inks`: each colour's print and white as enrolled (`reader.face_ink`), to learn the ten in
        every colour."""
        if len(patches) != 10:
            raise ValueError(f"deck enrollment needs the ten numbers 1 to 10, got {len(patches)}")
        m = max(1, int(round(cfg.numeral_shift_mm * PATCH_PPM)))
        common, shapes = _templates(patches)
        in_colour = {}
        if inks and own in inks:
            ink, white = inks[own]
            in_colour = {c: _templates([recoloured(p, ink, white, to) for p in patches])
                         for c, (to, _) in inks.items() if c != own}
        step, most = cfg.numeral_turn_step_deg, cfg.numeral_turn_deg
        turns = (0.0, *[t for k in range(1, int(most / step) + 1) for t in (k * step, -k * step)])
        deck = cls(common, shapes, m, cfg.numeral_lead_full, turns, tuple(patches), in_colour)
        twins = set()
        for n, card in enumerate(patches, 1):
            turned = deck.read(card[::-1, ::-1], either_way=False)
            if turned.number != n and turned.best >= cfg.numeral_twin:
                twins |= {n, turned.number}
        return replace(deck, twins=frozenset(twins), twin_sure=cfg.numeral_twin_sure)

    def read(self, patch: np.ndarray, either_way: bool = True, colour: str | None = None) -> NumberScores:
        """The card's number as this deck prints it, from a canonical upright patch, either way up
        (`either_way` False: the patch is cut the right way up, as when the player it faces is known);
        `colour`: the card's colour as read, to match the ten as printed in it."""
        # as enrolled and as printed in its colour: each number keeps the better fit (a light colour's
        # faint numerals may match the enrolled colour's edges best)
        sets = [(self.common, self.shapes)]
        if colour in self.in_colour:
            sets.append(self.in_colour[colour])
        best = None
        # a card cut a little off its pose is looked for within margin_px each way (beyond the cut: nothing)
        pad = max(0, self.margin_px - CARD_EDGE_PX)
        h, w = patch.shape[0] + 2 * pad, patch.shape[1] + 2 * pad
        for q in (patch, patch[::-1, ::-1]) if either_way else (patch,):
            edges = cv2.copyMakeBorder(print_map(q), pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
            for turn in self.turns:
                seen_map = edges if turn == 0 else cv2.warpAffine(
                    edges, cv2.getRotationMatrix2D((w / 2, h / 2), turn, 1.0), (w, h), borderMode=cv2.BORDER_REPLICATE)
                for common, shapes in sets:
                    fit = cv2.matchTemplate(seen_map, common, cv2.TM_CCOEFF_NORMED)
                    _, r, _, (x, y) = cv2.minMaxLoc(fit)
                    ch, cw = common.shape
                    s = _apart_from_common(seen_map[y:y + ch, x:x + cw].ravel(), r, shapes)
                    best = s if best is None else np.maximum(best, s)
        order = np.argsort(best)
        number = int(order[-1]) + 1
        # read either way up, a 6 and its turned twin match alike: how surely it is that numeral (and
        # not another) is its lead over the other numbers; which way up is for the card's player to say
        rivals = [int(k) for k in order[:-1] if not (either_way and number in self.twins and k + 1 in self.twins)]
        lead = float(best[order[-1]] - best[rivals[-1]])
        return NumberScores(best, number, float(np.clip(lead / self.lead_full, 0.0, 1.0)))


def numbers_folder_complete(folder: Path) -> bool:
    return all((folder / f"{n}.png").exists() for n in range(1, 11))
