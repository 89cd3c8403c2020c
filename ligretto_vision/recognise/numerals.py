"""Reading numbers the way this deck prints them, learned from the set-up step "lay out 1 to 10".

A deck may print its numbers large in the middle, small in two or four corners, in any font,
white on colour or colour on white. The ten enrolled cards (`enroll/numbers/1.png … 10.png`, one
colour) show where and how. Each card is turned into an ink map, how far each pixel lies from
the card's own ground colour, which is the same for every colour of the deck, so one colour's
ten cards teach all four. What the ten share (frame, motif, where the numerals sit) is taken
out; what is left is what sets each number apart, and a card is read by which of the ten
its own ink map matches best, either way up, allowing a few millimetres of misplacement.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.recognise.patches import PATCH_PPM


def ink_map(patch: np.ndarray) -> np.ndarray:
    """(H, W) float32: each pixel's distance from the card's ground (its median colour), lightly
    smoothed. Light and the card's colour change its scale, not its shape."""
    p = cv2.GaussianBlur(patch, (3, 3), 0).astype(np.float32)
    ground = np.median(p.reshape(-1, 3), axis=0)
    return np.sqrt(((p - ground) ** 2).sum(axis=2))


def _unit(a: np.ndarray) -> np.ndarray:
    a = a - a.mean()
    return a / (float(np.linalg.norm(a)) + 1e-6)


def _without(a: np.ndarray, common: np.ndarray) -> np.ndarray:
    """`a` (a unit map) with its share of the deck's common print taken out, as a unit map."""
    return _unit(a - common * float((a * common).sum()))


@dataclass(frozen=True)
class NumberScores:
    scores: np.ndarray  # (10,) how well the card matches each enrolled number, -1..1
    number: int  # the best one
    confidence: float  # 0..1: how clearly it leads the second

    @property
    def best(self) -> float:
        return float(self.scores[self.number - 1])


@dataclass(frozen=True)
class DeckNumerals:
    common: np.ndarray  # (h, w) unit map: what all ten enrolled cards share
    shapes: np.ndarray  # (10, h*w): what sets each number apart, unit vectors
    margin_px: int  # how far a card may lie off its pose, each way
    lead_full: float  # a lead over the second best this big is full confidence

    @classmethod
    def from_patches(cls, patches: list[np.ndarray], cfg: RecogniseConfig = RecogniseConfig()) -> "DeckNumerals":
        """The ten upright enrolled cards (1 … 10, canonical patches, `reader.upright`)."""
        if len(patches) != 10:
            raise ValueError(f"deck enrollment needs the ten numbers 1 to 10, got {len(patches)}")
        m = max(1, int(round(cfg.numeral_shift_mm * PATCH_PPM)))
        inner = [_unit(ink_map(p)[m:-m, m:-m]) for p in patches]
        common = _unit(np.mean(inner, axis=0))
        shapes = np.stack([_without(t, common).ravel() for t in inner])
        return cls(common.astype(np.float32), shapes.astype(np.float32), m, cfg.numeral_lead_full)

    def read(self, patch: np.ndarray) -> NumberScores:
        """The card's number as this deck prints it, from a canonical upright patch (either way up)."""
        best = None
        for q in (patch, patch[::-1, ::-1]):
            ink = ink_map(q)
            fit = cv2.matchTemplate(ink, self.common, cv2.TM_CCOEFF_NORMED)
            _, _, _, (x, y) = cv2.minMaxLoc(fit)
            h, w = self.common.shape
            seen = _without(_unit(ink[y:y + h, x:x + w]), self.common)
            s = self.shapes @ seen.ravel()
            if best is None or s.max() > best.max():
                best = s
        order = np.argsort(best)
        lead = float(best[order[-1]] - best[order[-2]])
        return NumberScores(best, int(order[-1]) + 1, float(np.clip(lead / self.lead_full, 0.0, 1.0)))


def numbers_folder_complete(folder: Path) -> bool:
    return all((folder / f"{n}.png").exists() for n in range(1, 11))
