"""One generated scene folder, exactly as ../shared/SCENES.md describes: scene.json, video,
enroll/ (backs, faces, the ten numbers), truth.jsonl, and draw.json (what was drawn, for the
report; the referee never reads it, nor the truth).

The round is played by the simulated table's bots from the deal (`sim.SimTable`; every move
judged by `rules.Round`). A first, unfilmed run finds where the round ends; the filmed window
is then chosen inside it: mid-round, or up to the round's end and the count. The table as it
lies at the window's first frame is the truth's `state` line.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

from ligretto_vision.events import Event, write_events
from ligretto_vision.proving.deck import render_face
from ligretto_vision.proving.draw import TableDraw, draw_table
from ligretto_vision.proving.film import Film, VideoOut
from ligretto_vision.rules import RuleOptions
from ligretto_vision.sim import BotStyle, SimTable
from ligretto_vision.geometry.seats import seat_name

GENERATOR_VERSION = 12  # bump when generated scenes change: a suite's kept scenes are then made again
COUNT_GATHER_S, COUNT_SPREAD_S = 1.6, 0.6  # before the count's frame: hands gather, the spread lies
TAIL_S = 2.5  # the video goes on this long after the count
ROUND_MOST_S = 900  # a round nobody finished by then is blocked and counted
MIN_PLAY_S = 2.0  # a round-end window plays at least this long before hands gather for the count


@dataclass
class Generated:
    folder: Path
    frames: int
    seconds: float  # wall time it took


def _table(d: TableDraw) -> SimTable:
    s = 1.0 / d.speed
    style = BotStyle(reaction_s=(0.30 * s, 0.90 * s), reach_s=(0.25 * s, 0.55 * s), flip_s=(0.45 * s, 0.80 * s),
                     mistakes=d.mistakes)
    t = SimTable(d.n_players, seed=d.seed, options=RuleOptions(ten=d.ten, grace_s=d.grace_s), fps=d.fps,
                 edition_name=d.edition, style=style, table_mm=d.table_mm)
    for p, a in zip(t.players.values(), d.seats):
        p.seat = a
    return t


def _window(d: TableDraw) -> tuple[int, int, int | None]:
    """(first frame, frame count, count frame or None) of the filmed window in the round. The first
    frame has no card astray (`_strays`: the truth's state line cannot hold a takeback under way)."""
    t = _table(d)
    calm = []  # the frames with no card astray
    while not t.over and t.frame < ROUND_MOST_S * d.fps:
        if not _strays(t):
            calm.append(t.frame)
        t.step()
    events = t.run(max_s=ROUND_MOST_S)  # blocks and counts the round if nobody finished
    end = next((e.frame for e in events if e.type in ("round_end", "round_blocked")), t.frame)
    count = next((e.frame for e in events if e.type == "count"), None)
    n = int(d.length_s * d.fps)
    if d.round_end and count is not None:
        last = count + int(TAIL_S * d.fps)
        # at a crowded table a card is astray most of the time: the first calm frame after the
        # window's start may lie past the count (tuning table 27 filmed no play at all); then the
        # last calm one before it, so at least MIN_PLAY_S is played before hands gather
        latest = count - int((COUNT_GATHER_S + MIN_PLAY_S) * d.fps)
        start = calm_start(calm, max(0, last - n), latest)
        return start, max(min(n, last), last - start), count
    lo, hi = int(4 * d.fps), max(int(4 * d.fps) + 1, end - n - int(d.fps))
    start = int(np.random.default_rng(d.seed + 3).integers(lo, hi)) if hi > lo else 0
    return calm_start(calm, start), min(n, max(1, end - start)), None


def calm_start(calm: list[int], start: int, latest: int | None = None) -> int:
    """The first of the `calm` frames (ascending) at or after `start`; when that lies past `latest`
    (or there is none), the last calm frame before it (the first frame when none is)."""
    after = next((f for f in calm if f >= start), None)
    if after is not None and (latest is None or after <= latest):
        return after
    before = [f for f in calm if f < start and (latest is None or f <= latest)]
    return before[-1] if before else (calm[0] if calm else 0)


def _state(t: SimTable) -> Event:
    piles = {str(p.id): [str(pc.card) for pc in p.cards] for p in t.round.piles.values()}
    players = {}
    for p in t.players.values():
        held = []
        if p.held is not None and p.held.kind in ("play", "refill"):
            held.append({"card": str(p.held.card), "from": p.held.source or "stack"})
        players[p.id] = {"stack": len(p.stack), "stack_top": str(p.stack[-1]) if p.stack else None,
                         "row": [str(c) if c else None for c in p.row],
                         "discard_top": str(p.discard[-1]) if p.discard else None, "held": held}
    return Event("state", 0, {"piles": piles, "players": players})


def _strays(t: SimTable) -> bool:
    return any(p.strays for p in t.round.piles.values()) or any(
        p.held is not None and p.held.kind == "takeback" for p in t.players.values())


def _shifted(e: Event, start: int) -> Event:
    """An event of the simulated table with its frames counted from the video's first frame."""
    data = dict(e.data)
    if data.get("touch") is not None:
        data["touch"] -= start
    if "claims" in data:
        data["claims"] = [{**c, "touch": c["touch"] - start} for c in data["claims"]]
    return Event(e.type, e.frame - start, data)


def scene_json(d: TableDraw, phases: list) -> dict:
    return {
        "format": "ligretto-scene/1", "video": "video.mp4", "fps": d.fps, "size": list(d.size), "edition": d.edition,
        "colours": list(d.deck.palette), "palette": {c: list(v) for c, v in d.deck.palette.items()},
        "card_mm": [round(v, 1) for v in d.card_mm], "table_mm": list(d.table_mm),
        "markers": {"dict": "DICT_4X4_50", "size_mm": d.marker_mm, "centres_mm": {k: list(v) for k, v in d.markers.items()}},
        "players": [{"id": f"P{i + 1}", "seat": seat_name(a) if d.named_seats else a} for i, a in enumerate(d.seats)],
        "rules": {"ten": d.ten, "grace_s": d.grace_s}, "phases": phases,
    }


def enroll_crop(d: TableDraw, bgra: np.ndarray, gain, rng: np.random.Generator) -> np.ndarray:
    """A card as the set-up step captures it: on the table's cloth, in light `gain` (BGR), a little
    blurred and noisy; upright at the scale `bgra` was rendered at."""
    a = bgra[..., 3:4].astype(np.float32) / 255
    img = (bgra[..., :3] * a + np.array(d.surface_rgb[::-1], np.float32) * (1 - a)) * np.asarray(gain, np.float32)
    img = cv2.GaussianBlur(img, (0, 0), 0.6) + rng.normal(0, max(1.0, d.noise * 0.5), img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _enroll(folder: Path, d: TableDraw, film: Film) -> None:
    """The set-up step's crops, as this camera sees them: upright, at its scale, in its light."""
    ppm = d.cam_ppm
    g = np.array(d.light.gain(0.0)) * film.field_mean
    rng = np.random.default_rng(d.seed + 5)

    def seen(bgra: np.ndarray) -> np.ndarray:
        return enroll_crop(d, bgra, g, rng)

    for sub in ("backs", "faces", "numbers"):
        (folder / "enroll" / sub).mkdir(parents=True, exist_ok=True)
    for i, back in enumerate(d.backs):
        cv2.imwrite(str(folder / "enroll" / "backs" / f"P{i + 1}.png"), seen(back.render(d.card_mm, ppm)))
    colours = list(d.deck.palette)
    for c in colours:
        cv2.imwrite(str(folder / "enroll" / "faces" / f"{c}.png"),
                    seen(render_face(d.deck, c, int(rng.integers(1, 11)), d.card_mm, ppm, d.seed)))
    for n in range(1, 11):
        cv2.imwrite(str(folder / "enroll" / "numbers" / f"{n}.png"), seen(render_face(d.deck, colours[0], n, d.card_mm, ppm, d.seed)))


@dataclass
class Filming:
    """A table's round as the camera films it: its simulated table, its film, the filmed window
    (`n` frames from the round's frame `start`), the truth so far and the scene's phases."""
    table: SimTable
    film: Film
    start: int
    n: int
    truth: list[Event]
    phases: list

    def frames(self) -> Iterator[tuple[int, np.ndarray]]:
        """Each frame of the window with its picture (the truth grows as the round is played)."""
        for f in range(self.n):
            events = self.table.step()
            self.film.note(events)
            self.truth += [_shifted(e, self.start) for e in events if e.type != "round_blocked"]
            yield f, self.film.frame(f)


def filming(d: TableDraw) -> Filming:
    """Table `d`'s round played on, unfilmed, to its window's first frame (never in the middle of a
    takeback), its count planned where the window holds it."""
    start, n, count = _window(d)
    t = _table(d)
    film = Film(d, t)
    while t.frame < start:
        film.note(t.step())
    start = t.frame
    truth: list[Event] = [_state(t)] if start > 0 else []
    phases = [{"name": "play", "from": 0, "to": n - 1}]
    if count is not None and count - start < n:
        c = count - start
        gather, spread = c - int(COUNT_GATHER_S * d.fps), c - int(COUNT_SPREAD_S * d.fps)
        film.plan_count(gather, spread, c)
        phases = [{"name": "play", "from": 0, "to": gather - 1}, {"name": "count", "from": gather, "to": n - 1}]
    return Filming(t, film, start, n, truth, phases)


def drawn(seed: int, length_s: float | None = None) -> TableDraw:
    """The table of `seed`; `length_s` replaces the drawn length (a knock or a lamp switch keeps
    its share of it)."""
    d = draw_table(seed)
    if length_s is not None:
        d.stretch_to(length_s)
    return d


def generate(seed: int, out: str | Path, length_s: float | None = None) -> Generated:
    """Write the scene of `seed` into folder `out` (made if missing); `length_s`: see `drawn`."""
    t0 = time.monotonic()
    d = drawn(seed, length_s)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    fm = filming(d)
    video = VideoOut(folder / "video.mp4", d.size, d.fps, d.codec, d.bitrate_mbit)
    try:
        for _, picture in fm.frames():
            video.write(picture)
    finally:
        video.close()
    _enroll(folder, d, fm.film)
    (folder / "scene.json").write_text(json.dumps(scene_json(d, fm.phases), indent=1), encoding="utf-8")
    with (folder / "truth.jsonl").open("w", encoding="utf-8") as fh:
        write_events(fm.truth, fh)
    (folder / "draw.json").write_text(json.dumps({"seed": seed, "generator": GENERATOR_VERSION, "kinds": d.kinds(), "frames": fm.n}, indent=1), encoding="utf-8")
    return Generated(folder, fm.n, time.monotonic() - t0)
