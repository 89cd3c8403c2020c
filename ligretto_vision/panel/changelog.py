"""The change log in words: "Anna changed the goal from 99 to 300 points".

Every change is stored as (who, what, before, after, note); `describe` turns one into a
sentence a person at the table reads at a glance, with players' names rather than ids.
"""
from __future__ import annotations

import re

from ligretto_vision.geometry.seats import seat_words

ROUND_SCORES = re.compile(r"^match (\d+) round (\d+) scores$")
RULE_WORDS = {
    "edition": "the edition", "ten": "a 10", "grace_s": "the grace after the stop (s)", "profi": "Profi",
    "handicap": "the handicap", "stack_penalty": "points off per stack card", "ten_points": "points for a 10",
    "illegal_penalty": "points off per illegal play", "stack_size": "the stack size",
}


def goal_words(goal: dict | None) -> str:
    if not isinstance(goal, dict):
        return "?"
    kind, value = goal.get("kind"), goal.get("value")
    return {"target": f"{value} points", "rounds": f"{value} rounds", "minutes": f"{value} minutes",
            "endless": "no end (endless)"}.get(kind, f"{kind} {value}")


def _word(v) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return "none" if v is None else str(v)


def _goal(before, after) -> str:
    if not isinstance(before, dict):
        return f"set the goal to {goal_words(after)}"
    if before == after:
        return f"kept the goal at {goal_words(after)}"
    if before.get("kind") == after.get("kind") and after.get("kind") != "endless":
        return f"changed the goal from {before.get('value')} to {goal_words(after)}"
    return f"changed the goal from {goal_words(before)} to {goal_words(after)}"


def _rules(before, after) -> str:
    def flat(r):
        if not isinstance(r, dict):
            return {}
        return {"edition": r.get("edition"), **(r.get("options") or {})}
    b, a = flat(before), flat(after)
    diffs = [f"{RULE_WORDS.get(k, k.replace('_', ' '))} from {_word(b.get(k))} to {_word(a[k])}"
             for k in a if k in b and b.get(k) != a[k]]
    if not b:
        return "set the rules"
    return "changed the rules: " + ", ".join(diffs) if diffs else "saved the rules unchanged"


def _players(before, after) -> str:
    old = {p["id"]: p for p in before or [] if isinstance(p, dict)}
    parts = []
    for p in after or []:
        o = old.get(p.get("id"), {})
        if o.get("name") not in (None, p.get("name")):
            parts.append(f"renamed {o['name']} to {p['name']}")
        if o.get("seat") not in (None, p.get("seat")):
            parts.append(f"moved {p['name']} from {seat_words(o['seat'])} to {seat_words(p['seat'])}")
    if not old:
        return "named the players " + ", ".join(f"{p.get('name')} ({seat_words(p.get('seat'))})" for p in after or [])
    return "changed the players: " + "; ".join(parts) if parts else "saved the players unchanged"


def _round(m: re.Match, before, after, names: dict[str, str]) -> str:
    b, a = before or {}, after or {}
    diffs = [f"{names.get(p, p)} from {b.get(p, '?')} to {s}" for p, s in a.items() if b.get(p) != s]
    return f"corrected round {m[2]} of match {m[1]}: " + (", ".join(diffs) if diffs else "no score changed")


def _calibration(after) -> str:
    a = after if isinstance(after, dict) else {}
    bits = []
    if a.get("table_mm"):
        w, h = a["table_mm"]
        bits.append(f"table {_word(w)} × {_word(h)} mm")
    if a.get("markers"):
        bits.append(f"{len(a['markers'])} markers")
    return "saved the calibration" + (f" ({', '.join(bits)})" if bits else "")


def _enrollment(after, names: dict[str, str]) -> str:
    card = (after or {}).get("card", "") if isinstance(after, dict) else ""
    kind, _, name = card.partition("/")
    if kind == "faces":
        return f"photographed the {name} face"
    if kind == "backs":
        return f"photographed {names.get(name, name)}'s card back"
    return "photographed a card"


def describe(change: dict, names: dict[str, str] | None = None) -> str:
    """One change as a sentence, starting with who made it."""
    names = names or {}
    what, before, after = change.get("what", ""), change.get("before"), change.get("after")
    m = ROUND_SCORES.match(what)
    if m:
        text = _round(m, before, after, names)
    elif what == "match_goal":
        text = _goal(before, after)
    elif what == "rules":
        text = _rules(before, after)
    elif what == "players":
        text = _players(before, after)
    elif what == "pin":
        text = "set a new PIN"
    elif what == "calibration":
        text = _calibration(after)
    elif what == "enrollment":
        text = _enrollment(after, names)
    elif what == "match_started":
        text = f"started a new match (match {(after or {}).get('match', '?')})"
    else:
        text = f"changed {what.replace('_', ' ')}"
    return f"{change.get('who') or 'someone'} {text}"
