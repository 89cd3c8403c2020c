"""The feeds' clock: which steps to draw (at most `draw_rate` a second) and, for a file or the simulated
table, holding the loop to `step_rate` steps a second (a camera paces itself; tests run flat out)."""
from __future__ import annotations

import time


class Pacer:
    def __init__(self, draw_rate: float, step_rate: float | None = None):
        self.step_s = None if step_rate is None else 1.0 / step_rate
        self.draw_s = 1.0 / draw_rate
        self.t0, self.n, self.last_draw = time.monotonic(), 0, -1e9

    def tick(self) -> bool:
        """One step done: wait for its time (when paced); whether to draw it."""
        if self.step_s is not None:
            self._wait()
        now = time.monotonic()
        if now - self.last_draw >= self.draw_s * 0.9:
            self.last_draw = now
            return True
        return False

    def _wait(self) -> None:
        self.n += 1
        now = time.monotonic()
        wait = self.t0 + self.n * self.step_s - now
        if wait > 0:
            time.sleep(wait)
        elif wait < -1.0:  # far behind (a slow machine): stop trying to catch up
            self.t0, self.n = now, 0
