"""`ligretto-vision check-log`: replay an event log through the rules engine and report
every place where the log and the rules disagree (legality, reasons, pile closings,
disputes, round end, counts and scores).

It is how the rules engine is held to the truth of the sample scenes, and how a
referee's own log can be audited. Observations the rules cannot make themselves
(where a card came from, its first-touch frame, two cards in one hand) are taken
from the log; judgements (legal, reason, winner, closing, round end) are recomputed.
A log's amendments (`amend`) are read as corrections of the events they name: each event
is checked as amended, a withdrawn one not at all. A play the log writes `unsure` (its card read
too unsurely to judge) is an observation too: the rules take it unsure, and must not judge it,
nor judge a card laid on it that could be legal.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ligretto_vision.errors import LigrettoError
from ligretto_vision.events import Event, fold_amendments, read_log
from ligretto_vision.rules import ImpossibleMove, Reason, Round, parse_card, round_score
from ligretto_vision.rules.reasons import UnsureOf
from ligretto_vision.scene import load_scene

DERIVED = ("pile_closed", "dispute", "round_end", "amend")  # events the rules produce themselves


@dataclass
class CheckReport:
    log: str
    checked: int = 0
    problems: list[str] = field(default_factory=list)
    scores: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_log(scene_dir: str | Path, log_path: str | Path | None = None) -> CheckReport:
    scene = load_scene(scene_dir)
    if scene.is_board_game:
        raise LigrettoError("check-log covers the card game; this scene is the board game", path=str(scene_dir))
    log_path = Path(log_path) if log_path else Path(scene_dir) / "truth.jsonl"
    return check_events(read_log(log_path), Round(scene.player_ids, scene.rule_options(), scene.fps),
                        scene.colours, str(log_path))


def check_events(events: list[Event], rnd: Round, colours, log_path: str) -> CheckReport:
    """Replay `events` (amended as their amendments say) through a fresh `rnd` and collect every
    disagreement. An amendment of an event the log does not have is checked as it stands."""
    report = CheckReport(log_path)
    events = fold_amendments(events)
    touches = _touch_frames(events)
    pending: list[Event] = []  # what the rules derived and the log has yet to show

    def where(ev: Event) -> str:
        return f"{log_path}:{ev.data.get('_line', '?')}"

    def card_of(ev: Event, key: str = "card"):
        try:
            return parse_card(ev.data[key], colours)
        except ValueError as exc:
            raise LigrettoError(str(exc), path=str(log_path), line=ev.data.get("_line")) from None

    def flush(before_frame: int | None) -> None:
        for ev in [e for e in pending if before_frame is None or e.frame < before_frame]:
            report.problems.append(f"{log_path}: frame {ev.frame}: the rules expect {_describe(ev)}, the log has none")
            pending.remove(ev)

    for ev in events:
        flush(ev.frame)
        d = ev.data
        if ev.type != "state":
            report.checked += 1
        try:
            if ev.type == "state":
                rnd.load_state({**d, "frame": ev.frame}, colours)
            elif ev.type == "play":
                pending += _check_play(ev, card_of(ev), rnd, touches, report, where(ev))
            elif ev.type == "takeback":
                rnd.takeback(d["player"], card_of(ev), d["pile"], ev.frame, to=d.get("to"))
            elif ev.type == "refill":
                pending += rnd.refill(d["player"], card_of(ev), ev.frame)[1:]
            elif ev.type == "flip":
                rnd.flip(d["player"], card_of(ev, "top"), int(d["count"]), ev.frame)
            elif ev.type == "recycle":
                rnd.recycle(d["player"], ev.frame)
            elif ev.type in DERIVED:
                _match_derived(ev, pending, report, where(ev))
            elif ev.type == "count":
                _check_count(ev, rnd, report, where(ev))
        except ImpossibleMove as exc:
            report.problems.append(f"{where(ev)}: {ev.type} cannot have happened: {exc}")
        except ValueError as exc:  # a line the rules cannot take at all (a bad state line, an unknown source)
            raise LigrettoError(str(exc), path=str(log_path), line=d.get("_line")) from None
    flush(None)
    _check_centre_total(events, rnd, report, str(log_path))
    return report


def _check_play(ev: Event, card, rnd: Round, touches: dict, report: CheckReport, where: str) -> list[Event]:
    """Lay a log's play through the rules and report a verdict they do not agree with (a play written
    unsure is taken so: what card it is, the log knows best); returns the events the rules derived."""
    d = ev.data
    if d.get("unsure") is True and "legal" in d:
        report.problems.append(f"{where}: play of {card} by {d['player']}: written both judged (legal) and unsure; "
                               f"an unsure play leaves legal out")
    out = rnd.play(d["player"], card, d["pile"], ev.frame, source=d.get("from"),
                   two_cards=d.get("reason") == Reason.TWO_CARDS,
                   touch=touches.get((d["player"], str(card), str(d["pile"]), ev.frame)),
                   sure=not (d.get("unsure") is True and d.get("unsure_of", UnsureOf.CARD) == UnsureOf.CARD))
    said, ours = _said(d), _said(out[0].data)
    if said != ours:
        report.problems.append(f"{where}: play of {card} by {d['player']} on pile {d['pile']}: "
                               f"log says {_verdict(*said)}, the rules say {_verdict(*ours)}")
    return out[1:]


def _touch_frames(events: list[Event]) -> dict[tuple, int]:
    """First-touch frames from dispute lines, keyed to the plays they belong to."""
    plays = [e for e in events if e.type == "play"]
    out: dict[tuple, int] = {}
    for d in (e for e in events if e.type == "dispute"):
        for claim in d.data["claims"]:
            cands = [p for p in plays if p.data["player"] == claim["player"] and p.data["card"] == d.data["card"]
                     and str(p.data["pile"]) == str(d.data["pile"]) and p.frame <= d.frame]
            if cands:
                p = max(cands, key=lambda e: e.frame)
                out[(p.data["player"], p.data["card"], str(p.data["pile"]), p.frame)] = int(claim["touch"])
    return out


def _match_derived(ev: Event, pending: list[Event], report: CheckReport, where: str) -> None:
    key = ("pile", "player")
    for mine in pending:
        if mine.type == ev.type and mine.frame == ev.frame and all(
                str(mine.data.get(k)) == str(ev.data.get(k)) for k in key if k in ev.data and k in mine.data):
            pending.remove(mine)
            if ev.type == "dispute" and mine.data["winner"] != ev.data["winner"]:
                report.problems.append(f"{where}: dispute over {ev.data['card']}: log says winner "
                                       f"{ev.data['winner']}, the rules say {mine.data['winner']}")
            return
    report.problems.append(f"{where}: log has {_describe(ev)}, the rules do not")


def _check_count(ev: Event, rnd: Round, report: CheckReport, where: str) -> None:
    p, centre, stack = ev.data["player"], int(ev.data["centre"]), int(ev.data["stack"])
    zone = rnd.zones.get(p)
    if zone is None:
        report.problems.append(f"{where}: count for {p!r}, who is not at this table")
        return
    if zone.stack is not None and zone.stack != stack:
        report.problems.append(f"{where}: count says {p} has {stack} stack cards left, the moves leave {zone.stack}")
    known = rnd.centre_cards()[p]
    if centre < known:
        report.problems.append(f"{where}: count says {p} has {centre} cards in the centre, "
                               f"but {known} of theirs were laid there in this log")
    report.scores[p] = round_score(centre, stack, rnd.options, tens=rnd.tens_in_centre(p))


def _check_centre_total(events: list[Event], rnd: Round, report: CheckReport, log: str) -> None:
    counts = [e for e in events if e.type == "count"]
    if not counts:
        return
    total = sum(int(e.data["centre"]) for e in counts)
    lying = sum(rnd.centre_cards().values())
    if total != lying:
        report.problems.append(f"{log}: counts add up to {total} centre cards, but {lying} lie in the centre")


def _describe(ev: Event) -> str:
    data = ev.data.get("of", ev.data) if ev.type == "amend" else ev.data
    bits = ", ".join(f"{k} {data[k]}" for k in ("type", "pile", "player", "card", "winner") if k in data)
    return f"{ev.type} at frame {ev.frame} ({bits})"


def _said(play: dict) -> tuple[bool | None, str | None]:
    """A play line's verdict: (legal, reason), or (None, None) for one written unsure (not judged).
    A play with neither counts as legal (SCENES.md)."""
    if play.get("unsure") is True:
        return None, None
    legal = bool(play.get("legal", True))
    return legal, None if legal else play.get("reason")


def _verdict(legal: bool | None, reason: str | None) -> str:
    return "not judged (unsure)" if legal is None else "legal" if legal else f"illegal ({reason})"
