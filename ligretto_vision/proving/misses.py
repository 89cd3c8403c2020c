"""Where a suite's plays went wrong, for the one working on the referee: the figures say how much,
this says where to look. Each truth play no log play matched (as the scorer pairs them) is put
down to why: written late (or early) beyond the scorer's tolerance, one of a dispute's two cards,
another card read at its place, or never written; and each call of "illegal" the truth does not
back is listed with what the truth has there. It reads the logs a suite left beside its scenes
(`referee.jsonl`) and their truth: the proving ground's, never the referee's.

    ligretto-vision proving-ground --suite standard --range tune --misses
"""
from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ligretto_vision.proving.suite import events_in, match_plays, wrongly_called

LATE_MOST_S = 2.0  # a log play of the same card this near a missed one is that card, written late or early
SAME_PLACE_MM = 25.0  # ... and a play of another card this near, at about its frame, is that card misread


@dataclass(frozen=True)
class Miss:
    seed: int
    frame: int
    card: str
    player: str
    why: str  # "late", "early", "dispute", "misread", "unwritten", or "wrong call"
    seen: str = ""  # what the log has instead, if anything


def misses(seed: int, log: list[dict], truth: list[dict], fps: float) -> list[Miss]:
    """The truth plays no log play matched, each with why; then the wrong calls of "illegal"."""
    plays = [e for e in log if e.get("type") == "play"]
    truth_plays = [e for e in truth if e.get("type") == "play"]
    racers = {(c["player"], d["card"]) for d in truth if d.get("type") == "dispute" for c in d.get("claims", [])}
    pairs = match_plays(plays, truth_plays, 0.25 * fps)
    matched = {id(t) for _, t in pairs if t is not None}
    unmatched = [p for p, t in pairs if t is None]
    out = []
    for t in truth_plays:
        if id(t) in matched:
            continue
        same = [p for p in unmatched if p["card"] == t["card"] and abs(p["frame"] - t["frame"]) <= LATE_MOST_S * fps]
        there = [p for p in plays if p["card"] != t["card"] and abs(p["frame"] - t["frame"]) <= 0.25 * fps
                 and _near(p.get("at"), t.get("at"))]
        if same:
            p = min(same, key=lambda p: abs(p["frame"] - t["frame"]))
            why, seen = ("late" if p["frame"] > t["frame"] else "early"), _said(p)
        elif (t["player"], t["card"]) in racers:
            why, seen = "dispute", ""
        elif there:
            why, seen = "misread", _said(there[0])
        else:
            why, seen = "unwritten", ""
        out.append(Miss(seed, t["frame"], t["card"], t["player"], why, seen))
    for p, t in wrongly_called(pairs):
        out.append(Miss(seed, p["frame"], p["card"], p.get("player", "?"), "wrong call",
                        f"truth: {_said(t)}" if t is not None else "truth: no such play"))
    return out


def _near(a, b) -> bool:
    return bool(a) and bool(b) and math.hypot(a[0] - b[0], a[1] - b[1]) <= SAME_PLACE_MM


def _said(e: dict) -> str:
    verdict = "unsure" if e.get("unsure") else ("legal" if e.get("legal", True) else f"illegal ({e.get('reason')})")
    return f"{e['card']} by {e.get('player')} at frame {e['frame']}, {verdict}"


def explain(folders: list[Path]) -> str:
    """Every refereed scene's misses and wrong calls, counted by why and listed scene by scene."""
    found: list[Miss] = []
    for folder in folders:
        log = folder / "referee.jsonl"
        if not log.is_file():
            continue
        fps = float(json.loads((folder / "scene.json").read_text(encoding="utf-8")).get("fps") or 30)
        found += misses(int(folder.name), events_in(log), events_in(folder / "truth.jsonl"), fps)
    counts = Counter(m.why for m in found)
    lines = ["plays missed, by why: " + ", ".join(f"{why} {n}" for why, n in counts.most_common()), ""]
    lines += [f"- {m.seed} frame {m.frame}: {m.card} by {m.player}: {m.why}" + (f" ({m.seen})" if m.seen else "")
              for m in found]
    return "\n".join(lines)
