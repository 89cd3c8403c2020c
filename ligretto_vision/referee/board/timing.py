"""When something on the board came to rest or left: from how much of its fields moved in each
frame of the recent history. Pure functions, so each is tested on a hand-made series."""
from __future__ import annotations

import numpy as np


def let_go(frames: np.ndarray, moved: np.ndarray, changed: np.ndarray, still: float, held: int,
           changed_least: float) -> int | None:
    """The frame a hand let go of what it laid on these fields (BOARD-SCENES.md `place`: the first
    frame it lies still and the hand has let go): since the fields last looked as before
    (`changed` below `changed_least`), the hand brought it (they moved), held it still `held`
    frames (`moved` below `still`), then withdrew: the first frame it moved again. Per history
    entry `frames`, `moved` and `changed` are the share of the fields that moved since the frame
    before and that differ from the board as it was. None: no hold was seen in the history."""
    since = _last_unchanged(changed, changed_least)
    i, n, run = since + 1, len(frames), 0
    while i < n and changed[i] < changed_least:  # wait for it to come
        i += 1
    while i < n:
        run = run + 1 if moved[i] < still else 0
        i += 1
        if run >= held:
            break
    else:
        return None
    start = i - run
    while i < n and moved[i] < still:
        i += 1
    # nothing moved there since: the hand had gone before it showed, and it lay still from then
    return int(frames[i]) if i < n else int(frames[start])


def set_down(frames: np.ndarray, moved: np.ndarray, still: float, held: int) -> int:
    """The frame a token was set down (BOARD-SCENES.md `token`): going back from now over the field,
    past the stillness since the hand went and the hand's withdrawing, the first frame of the hold
    before it (the token lay still under the fingers); where the hand held no still, the first
    frame of the stillness since it went."""
    i = len(moved) - 1
    while i >= 0 and moved[i] < still:
        i -= 1
    since_gone = i + 1
    while i >= 0 and moved[i] >= still:
        i -= 1
    end = i
    while i >= 0 and moved[i] < still:
        i -= 1
    if end - i >= held:
        return int(frames[i + 1])
    return int(frames[min(since_gone, len(frames) - 1)])


def _last_unchanged(changed: np.ndarray, least: float) -> int:
    """The last history entry in which the fields looked as before (-1: none is kept)."""
    idx = np.nonzero(changed < least)[0]
    return int(idx[-1]) if len(idx) else -1


def quiet_for(moved: np.ndarray, quiet: float) -> int:
    """How many of the latest history entries in a row moved less than `quiet`."""
    n = 0
    for m in moved[::-1]:
        if m >= quiet:
            break
        n += 1
    return n
