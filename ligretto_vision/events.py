"""The event log (SCENES.md): what the referee writes, the panel shows and the scorer reads.

Events stay close to their JSON form: a type, a frame and the keys that type has.
Reading validates every line and names file, line and problem on the first bad one; a log of
the board game (BOARD-SCENES.md) is read with `game="board"`, which knows its own types.

An event once sent is never changed. Where the rules change their mind about one (a stop
seen late makes a play judged legal after-stop, and a 10's `pile_closed` is withdrawn),
they send an `amend`, a type of our own (SCENES.md allows it; the scorer ignores it):

    {"type": "amend", "frame": 140, "of": {"type": "play", "frame": 140, "player": "P2",
     "card": "red-3", "pile": 1}, "legal": false, "reason": "after-stop"}
    {"type": "amend", "frame": 140, "of": {"type": "pile_closed", "frame": 140, "pile": 1},
     "withdrawn": "after-stop"}

A play called illegal whose card is never seen going back is amended to unsure (`legal` and
`reason` null: dropped):

    {"type": "amend", "frame": 140, "of": {...}, "legal": null, "reason": null, "unsure": true,
     "unsure_of": "left-lying"}

`of` names the amended event by its type, frame and the keys its type requires; every other
key is a new value for it (null: the key is dropped), except `withdrawn`: the event is taken
back (why). The amendment's
frame is its target's, so a log that holds events before writing them (`fold_amendments`)
folds it into its target and writes only the amended event; where the target went out
already (a live panel), the amendment goes out itself and the reader applies it
(`apply_amendment`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterable

from ligretto_vision.errors import LigrettoError

# keys each event type must carry besides `type` and `frame`: the card game's (SCENES.md)
REQUIRED: dict[str, tuple[str, ...]] = {
    "state": ("piles", "players"),
    "play": ("player", "card", "pile"),
    "takeback": ("player", "card", "pile"),
    "dispute": ("pile", "card", "claims", "winner"),
    "pile_closed": ("pile",),
    "round_end": ("player",),
    "count": ("player", "centre", "stack"),
    "refill": ("player", "card"),
    "flip": ("player", "top", "count"),
    "recycle": ("player",),
    "round_blocked": (),  # ours: nobody could play any more, the round is scored as it stands (001)
    "amend": ("of",),  # ours: a correction of an event sent before (above)
}
# the board game's (BOARD-SCENES.md "Events"): its own types, a takeback lifting cells off the board
# rather than a card off a pile, and the types both games share
BOARD_REQUIRED: dict[str, tuple[str, ...]] = {
    "board": ("fields",),  # the truth's first line: the empty board's fields, rows of colour names (the sample scenes')
    "place": ("player", "card", "cells", "legal", "reason"),
    "joker": ("player", "cell"),
    "token": ("token", "cell"),
    "takeback": ("player", "cells"),
    "rank": ("player", "place", "cards_left", "jokers_left", "chips", "aside"),
    **{t: REQUIRED[t] for t in ("round_end", "round_blocked", "amend")},
}
GAMES = {"cards": REQUIRED, "board": BOARD_REQUIRED}  # by scene.json's `game` (Scene.is_board_game)


@dataclass
class Event:
    type: str
    frame: int
    data: dict = field(default_factory=dict)

    def get(self, key: str, default=None):
        return self.data.get(key, default)

    def to_json(self) -> dict:
        return {"type": self.type, "frame": self.frame, **self.data}

    @classmethod
    def from_json(cls, obj: dict) -> "Event":
        data = {k: v for k, v in obj.items() if k not in ("type", "frame")}
        return cls(obj["type"], obj["frame"], data)


def check_event(obj: object, game: str = "cards") -> Event:
    """Validate one decoded line of a log of `game` ("cards" or "board"); ValueError names the problem
    (LigrettoError: a game there is no log of)."""
    required = _required(game)
    if not isinstance(obj, dict):
        raise ValueError("an event must be a JSON object")
    typ = obj.get("type")
    if typ not in required:
        raise ValueError(f"unknown event type {typ!r} in a {game} log (known: {', '.join(required)})")
    frame = obj.get("frame")
    if isinstance(frame, bool) or not isinstance(frame, int) or frame < 0:
        raise ValueError(f"{typ}: 'frame' must be a whole number >= 0, not {frame!r}")
    missing = [k for k in required[typ] if k not in obj]
    if missing:
        raise ValueError(f"{typ} at frame {frame}: missing {', '.join(missing)}")
    if typ == "amend" and not (isinstance(obj["of"], dict) and obj["of"].get("type") in required
                               and isinstance(obj["of"].get("frame"), int)):
        raise ValueError(f"amend at frame {frame}: 'of' must name an event by its type and frame, not {obj['of']!r}")
    return Event.from_json(obj)


def _required(game: str) -> dict[str, tuple[str, ...]]:
    if game not in GAMES:
        raise LigrettoError(f"no event log for a game {game!r} (games: {', '.join(GAMES)})")
    return GAMES[game]


def read_log(path: str | Path, game: str = "cards") -> list[Event]:
    """The events of a log of `game` ("cards", or "board" for BOARD-SCENES.md's), every line checked."""
    _required(game)
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LigrettoError("no such event log", path=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LigrettoError(f"cannot read event log: {exc}", path=str(path)) from None
    events: list[Event] = []
    last = -1
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            ev = check_event(json.loads(line), game)
        except json.JSONDecodeError as exc:
            raise LigrettoError(f"not valid JSON ({exc.msg} at column {exc.colno})", path=str(path), line=no) from None
        except ValueError as exc:
            raise LigrettoError(str(exc), path=str(path), line=no) from None
        if ev.frame < last:
            raise LigrettoError(f"frame {ev.frame} comes after frame {last}: the log must be in frame order",
                                path=str(path), line=no)
        last = ev.frame
        ev.data["_line"] = no  # kept so later checks can name the line; never written back
        events.append(ev)
    return events


def write_events(events: Iterable[Event], out: IO[str]) -> None:
    for ev in events:
        out.write(json.dumps({k: v for k, v in ev.to_json().items() if not k.startswith("_")}) + "\n")


# ---- amendments --------------------------------------------------------------------------------------
AMEND_KEYS = ("of", "withdrawn")  # an amendment's own keys; every other one is a new value


def amendment(target: Event, why_withdrawn: str | None = None, **values) -> Event:
    """An `amend` of `target`: new `values` for it, or (`why_withdrawn`) taking it back."""
    of = {"type": target.type, "frame": target.frame, **{k: target.data[k] for k in REQUIRED[target.type]}}
    data = {"of": of, **values} | ({"withdrawn": why_withdrawn} if why_withdrawn else {})
    return Event("amend", target.frame, data)


def amends(amend: Event, event: Event) -> bool:
    """Is `event` the one `amend` names?"""
    of = amend.data["of"]
    return event.type == of.get("type") and event.frame == of.get("frame") and all(
        event.data.get(k) == v for k, v in of.items() if k not in ("type", "frame"))


def apply_amendment(amend: Event, event: Event) -> Event | None:
    """`event` as `amend` leaves it: a new event with the new values (a null one drops its key), or
    None where it is withdrawn."""
    if amend.data.get("withdrawn"):
        return None
    values = {k: v for k, v in amend.data.items() if k not in AMEND_KEYS and not k.startswith("_")}
    data = {k: v for k, v in {**event.data, **values}.items() if v is not None or k not in values}
    return Event(event.type, event.frame, data)


def fold_amendments(held: list[Event], sent_up_to: int = 0) -> list[Event]:
    """Events not yet sent, with every amendment whose target is among them applied to it (a
    withdrawn target left out); an amendment whose target was sent already stays, in its place,
    but not before `sent_up_to` (the frame last sent), so a log stays in frame order."""
    if not any(e.type == "amend" for e in held):
        return list(held)
    out: list[Event | None] = list(held)
    for k, amend in enumerate(held):
        if amend.type != "amend":
            continue
        i = next((i for i, e in enumerate(out) if e is not None and e.type != "amend" and amends(amend, e)), None)
        if i is not None:
            out[i], out[k] = apply_amendment(amend, out[i]), None
    return [Event(e.type, max(e.frame, sent_up_to), e.data) if e.type == "amend" else e
            for e in out if e is not None]
