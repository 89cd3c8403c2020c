"""Whose arm laid a card: the arm over its fields in the frames before it came to rest, traced to
the board's edge it reached in from. Pure functions of the history's masks of what differs from the
settled board (half-size view), so each is tested on hand-made masks."""
from __future__ import annotations

import math
from collections import Counter

import cv2
import numpy as np

SIDES = {"top": (0.0, -1.0), "bottom": (0.0, 1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}
LEAST_TOUCH = 3  # pixels of the board's edge an arm covers at least (a shadow's speck is none)


def facing(players, side: str) -> list[str]:
    """The players (scene players with `id` and `angle`) seated at that edge of the board."""
    sx, sy = SIDES[side]
    return [p.id for p in players if math.sin(math.radians(p.angle)) * sx + math.cos(math.radians(p.angle)) * sy > 0.7]


def edges_touched(mask: np.ndarray, points) -> dict[str, int]:
    """How much of each edge of the board the blobs of `mask` over `points` ((row, col)) cover."""
    # a blob broken by a codec's blocks or a pale sleeve is one arm: gaps of a pixel are closed
    n, lab = cv2.connectedComponents(cv2.dilate(mask.astype(np.uint8), np.ones((3, 3), np.uint8)))
    ids = {int(lab[y, x]) for y, x in points} - {0}
    if not ids:
        return {side: 0 for side in SIDES}
    arm = np.isin(lab, list(ids))
    return {"top": int(arm[0].sum()), "bottom": int(arm[-1].sum()), "left": int(arm[:, 0].sum()),
            "right": int(arm[:, -1].sum())}


def arm_side(masks: list[np.ndarray], points, seated: dict[str, list[str]]) -> str | None:
    """The seated edge the arm over `points` reached in from, frame by frame (`masks`, oldest first):
    each frame in which it crosses one seated edge only votes for it (where two arms meet over the
    board, one blob crosses two, and that frame says nothing); without such a frame, the edge the
    arms of the latest frames cross most. An edge nobody sits at (the board's side an arm runs
    along) is not where it came from."""
    votes = Counter()
    for m in masks:
        touched = {s: t for s, t in edges_touched(m, points).items() if seated[s] and t >= LEAST_TOUCH}
        if len(touched) == 1:
            votes[next(iter(touched))] += 1
    if votes:
        return votes.most_common(1)[0][0]
    if not masks:
        return None
    touched = edges_touched(np.logical_or.reduce(masks[-5:]), points)
    side = max((s for s in touched if seated[s]), key=touched.get, default=None)
    return side if side is not None and touched[side] >= LEAST_TOUCH else None
