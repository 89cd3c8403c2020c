"""The simulated table as a live feed: bots play round after round in real time, drawn as a schematic."""
from __future__ import annotations

import functools
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ligretto_vision.events import Event
from ligretto_vision.live.clips import ClipRecorder, clip_name
from ligretto_vision.live.hub import LiveHub
from ligretto_vision.live.pacing import Pacer
from ligretto_vision.live.schematic import draw_table, encode_jpeg
from ligretto_vision.rules import RuleOptions
from ligretto_vision.sim import BotStyle, SimTable

PAUSE_BETWEEN_ROUNDS_S = 4.0  # the counted table stays on screen this long
MAX_ROUND_S = 1800.0  # a round nobody can finish is scored as it stands (as SimTable.run does)


@functools.lru_cache(maxsize=16)
def sim_table_mm(players: int) -> tuple[float, float]:
    """The size of the simulated table for `players` (what its picture is drawn to scale of)."""
    return tuple(SimTable(players).table_mm)


@dataclass
class SimFeed:
    """Bots play round after round in real time (seed+1 each round) and the hub gets every event and frame.

    `round_no`, when given, numbers the rounds on the video and in the hub's status (the panel gives
    its match's round, so header and video say the same); `next_seed`, when given, is asked for each
    round's deal (the panel counts deals in its database, so a restart does not deal the same again).
    """
    players: int = 4
    seed: int = 0
    fps: float = 15.0
    speed: float = 1.0  # >1 runs the table faster than real time (demos, tests)
    mistakes: float = 0.03  # bots sometimes play a wrong card, so the referee has something to call
    clips: Path | None = None
    # asked at each round's start, so the panel's set-up takes effect from the next round
    rules: Callable[[], RuleOptions] = RuleOptions
    edition: Callable[[], str] = lambda: "classic"
    names: Callable[[], dict[str, str]] = dict
    max_render_fps: float = 15.0
    rounds_played: int = 0
    round_no: Callable[[], int] | None = None
    next_seed: Callable[[], int] | None = None
    _label: int | None = None

    def run(self, hub: LiveHub, stop: threading.Event) -> None:
        run_id = time.strftime("%Y%m%d-%H%M%S")
        recorder = ClipRecorder(Path(self.clips), self.fps) if self.clips else None
        ids = [f"P{i + 1}" for i in range(self.players)]
        hub.set_status(source="simulated table", fps=self.fps, players=ids, speed=self.speed,
                       calibration={"state": "ok", "detail": "simulated table: its geometry is known exactly"})
        offset, seed = 0, self.seed
        clock = Pacer(self.max_render_fps, self.fps * self.speed)
        try:
            while not stop.is_set():
                if self.next_seed is not None:
                    seed = self.next_seed()
                table = SimTable(self.players, seed=seed, options=self.rules(), fps=self.fps,
                                 edition_name=self.edition(), style=BotStyle(mistakes=self.mistakes))
                self.rounds_played += 1
                self._label = None
                hub.set_status(round=self._round_label(hub), seed=seed, round_start_frame=offset)
                limit = int(MAX_ROUND_S * self.fps)
                while not table.over and not stop.is_set():
                    label = self._round_label(hub)  # before this step's events (a count) reach the panel
                    new = table.step() if table.frame < limit else table.run(max_s=0)[len(table.events):]
                    frame = offset + table.frame - 1
                    self._publish(hub, new, offset, run_id, recorder)
                    if clock.tick():
                        self._frame(hub, table, frame, recorder, label=label)
                offset += table.frame
                pause = int(PAUSE_BETWEEN_ROUNDS_S * self.fps)
                for i in range(pause):  # the counted table stays on screen, frames keep counting
                    if stop.is_set():
                        break
                    if clock.tick():
                        self._frame(hub, table, offset + i, recorder, counted=True, label=label)
                offset += pause
                seed += 1
        finally:
            if recorder:
                recorder.flush()

    def _publish(self, hub: LiveHub, events: list[Event], offset: int, run_id: str, recorder) -> None:
        if not events:
            return
        out = []
        for e in events:
            data = dict(e.data)  # every frame number moves on by the rounds before: one clock for the whole run
            if isinstance(data.get("touch"), int):
                data["touch"] += offset
            if e.type == "dispute":
                data["claims"] = [{**c, "touch": c["touch"] + offset} for c in data.get("claims", [])]
            ev = Event(e.type, e.frame + offset, data)
            if e.type == "dispute" and recorder:
                data["clip"] = clip_name(run_id, ev)
            out.append(ev)
            if recorder:
                recorder.on_event(ev)
        hub.publish(out)

    def _round_label(self, hub: LiveHub) -> int:
        """The number of the round under way (the panel's, else this feed's count); the status follows it."""
        no = self.round_no() if self.round_no is not None else self.rounds_played
        if no != self._label:
            self._label = no
            if hub.status.get("round") != no:
                hub.set_status(round=no)
        return no

    def _frame(self, hub: LiveHub, table: SimTable, frame: int, recorder, counted: bool = False,
               label: int | None = None) -> None:
        tallies = {p: (z.played, z.illegal) for p, z in table.round.zones.items()}
        secs = table.frame / self.fps
        no = self.rounds_played if label is None else label
        caption = (f"round {no} counted" if counted
                   else f"round {no}  {int(secs // 60)}:{int(secs % 60):02d}  frame {frame}")
        strays = {k: [str(pc.card) for pc in pile.strays] for k, pile in table.round.piles.items() if pile.strays}
        jpeg = encode_jpeg(draw_table(table.snapshot(), table.table_mm, tallies, caption, self.names(), strays))
        hub.publish_frame(jpeg)
        if recorder:
            recorder.add_frame(frame, jpeg)

    def to_picture(self, points_mm: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """The picture is a top view of the table drawn to scale."""
        tw, th = sim_table_mm(self.players)
        return [(x / tw, y / th) for x, y in points_mm]
