"""How often the referee's "a second card lies under the top one" (a dispute) is right.

An analysis, not part of the referee: it replays generated proving-ground scenes, records every
call of `referee.deliverers.deliverers` (the arms near a settled card, which of them laid it, and
which were taken to have laid a second card under it), and labels each other arm with the
scene's truth (generator output, which the referee never reads): was there a truth dispute at
that place and time between that arm's player and the top card's player?

    .venv/bin/python docs/analysis/dispute_second_cards.py build/proving/tune/*

Prints, over distinct (scene, frame, place, arm) calls: second cards inferred right and wrong,
and truth disputes whose second card was not inferred. The labelling is approximate (a truth
play within 40 mm and -10..40 frames of the call), so the figures are a lead, not a score.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import ligretto_vision.referee.referee as referee_module
from ligretto_vision.events import read_log
from ligretto_vision.referee.replay import replay

PLACE_MM, BEFORE, AFTER = 40, 10, 40


def record_calls(scene: str, out_log: str) -> list[dict]:
    """Replay `scene`, returning every deliverers() call as plain data."""
    calls: list[dict] = []
    frame = {"i": 0}
    original, on_frame = referee_module.deliverers, referee_module.Referee.on_frame

    def counting(self, index, image):
        frame["i"] = index
        return on_frame(self, index, image)

    def recording(arms, pose, sticking_out, layout, cfg, race=True):
        chosen = original(arms, pose, sticking_out, layout, cfg, race)
        if race and arms:
            calls.append({"i": frame["i"], "x": pose.x, "y": pose.y,
                          "chosen": [layout.seats[a.seat].player for a in chosen],
                          "arms": [layout.seats[a.seat].player for a in arms]})
        return chosen

    referee_module.deliverers, referee_module.Referee.on_frame = recording, counting
    try:
        replay(scene, out_log)
    finally:
        referee_module.deliverers, referee_module.Referee.on_frame = original, on_frame
    return calls


def label(scene: str, calls: list[dict]) -> tuple[int, int, int]:
    events = read_log(Path(scene) / "truth.jsonl")  # validated; a missing file is named
    plays = [e.to_json() for e in events if e.type == "play"]
    disputes = [e.to_json() for e in events if e.type == "dispute"]
    right = wrong = missed = 0
    seen = set()
    for c in calls:
        if not c["chosen"]:
            continue
        top = c["chosen"][-1]
        here = [p for p in plays if abs(p["at"][0] - c["x"]) < PLACE_MM and abs(p["at"][1] - c["y"]) < PLACE_MM
                and -BEFORE <= c["i"] - p["frame"] <= AFTER]
        claims = {cl["player"] for d in disputes for cl in d["claims"]
                  if any(p["frame"] == d["frame"] and p["card"] == d["card"] for p in here)}
        for other in c["arms"]:
            key = (c["i"], round(c["x"]), round(c["y"]), other)
            if other == top or key in seen:
                continue
            seen.add(key)
            truly, inferred = other in claims and top in claims, other in c["chosen"][:-1]
            right += truly and inferred
            wrong += inferred and not truly
            missed += truly and not inferred
    return right, wrong, missed


def main(scenes: list[str]) -> None:
    totals = [0, 0, 0]
    with tempfile.TemporaryDirectory() as logs:  # the replays' own event logs are not needed
        for scene in scenes:
            calls = record_calls(scene, str(Path(logs) / f"{Path(scene).name}.jsonl"))
            for k, n in enumerate(label(scene, calls)):
                totals[k] += n
    print(f"{len(scenes)} scenes: second cards inferred right {totals[0]}, wrong {totals[1]}; "
          f"truth second cards not inferred {totals[2]}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: dispute_second_cards.py SCENE_DIR...")
    main(sys.argv[1:])
