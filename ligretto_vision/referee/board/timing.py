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
    # as before: as little changed as in the history's stillest moment (a neighbour's card laid a
    # little over its edge, a token's shadow, may have changed the fields a little for good)
    base = float(changed.min()) if len(changed) else 0.0
    since = _last_unchanged(changed, base + changed_least / 2)
    i, n, run = since + 1, len(frames), 0
    # wait for it to come: the fields changed about as much as they are now (a shadow or an arm's
    # edge passing before changed them a little)
    came = max(base + changed_least, base + 0.5 * (float(changed[-1]) - base))
    while i < n and changed[i] < came:
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
    """The frame a hand let go of a token it set down on a field (BOARD-SCENES.md `token`; what
    lies on the field may change again soon after, a token on a card just laid): going back from
    now over the field, past the stillness since the hand went and its withdrawing (which may
    pause a frame), the frame after the last hold of `held` still frames; where no hold shows, the
    first frame of the stillness since the hand went."""
    i = len(moved) - 1
    while i >= 0 and moved[i] < still:
        i -= 1
    since_gone, run = i + 1, 0
    while i >= 0:
        run = run + 1 if moved[i] < still else 0
        if run >= held:  # frames i .. i + held - 1 held still, the next one moved
            return int(frames[i + held])
        i -= 1
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
