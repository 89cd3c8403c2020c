"""The match keeper: reads the hub's events as they come, keeps the live round's tallies,
and writes every finished round, dispute and match into the store.

A round ends with its `count` events (one per player, same frame); its scores come
from the referee's `score` where the event has one, else from `rules.scoring.round_score`,
and the match is `rules.scoring.Match`: nothing here scores on its own.

A play the referee read too unsurely to judge (`unsure`) counts as laid, never as illegal;
the panel asks the table to check that card, beside the feed's picture of where it lies.
"""
from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import OrderedDict, deque
from dataclasses import asdict, dataclass, field
from statistics import mean
from typing import Callable

from ligretto_vision.events import Event, apply_amendment
from ligretto_vision.live import LiveHub
from ligretto_vision.panel.store import Store
from ligretto_vision.rules import Match, MatchGoal, RuleOptions
from ligretto_vision.rules.reasons import Reason, reason_text, reason_words, unsure_text
from ligretto_vision.rules.scoring import round_score

log = logging.getLogger("ligretto_vision.panel")
KEEP_PICTURES = 8  # pictures of plays to check kept in memory, the newest

@dataclass
class Tally:
    laid: int = 0  # own cards lying in the centre this round (legal plays less cards taken back)
    illegal: int = 0
    disputes: int = 0
    disputes_won: int = 0
    open_to_land: list[float] = field(default_factory=list)  # seconds from a pile's first card to this player's card on it


@dataclass
class LiveRound:
    start_frame: int | None = None
    end_frame: int | None = None  # round_end (or round_blocked)
    ended_by: str | None = None
    tallies: dict[str, Tally] = field(default_factory=dict)
    plays: deque = field(default_factory=lambda: deque(maxlen=8))
    pile_top: dict[str, str] = field(default_factory=dict)
    pile_open: dict[str, int] = field(default_factory=dict)
    laid_legal: dict[tuple, bool] = field(default_factory=dict)  # (player, card, pile) -> its play was legal
    laid_at: dict[tuple, list] = field(default_factory=dict)  # (player, card, pile) -> where it lies, table mm


class CheckPictures:
    """The pictures beside "check this card": the feed's picture as each play to check was taken in,
    and the part of it where the card lies (None: the whole picture). Only the newest few are kept."""

    def __init__(self, keep: int = KEEP_PICTURES):
        self.keep = keep
        self._kept: OrderedDict[int, tuple[bytes, dict | None]] = OrderedDict()
        self._nos = itertools.count(int(time.time() * 1000))  # unique across restarts: a browser may cache them
        self._lock = threading.Lock()

    def add(self, jpeg: bytes, view: dict | None) -> int:
        with self._lock:
            no = next(self._nos)
            self._kept[no] = (jpeg, view)
            while len(self._kept) > self.keep:
                self._kept.popitem(last=False)
            return no

    def get(self, no: int) -> tuple[bytes, dict | None] | None:
        with self._lock:
            return self._kept.get(no)


class MatchKeeper:
    def __init__(self, hub: LiveHub, store: Store, players: list[str], goal: MatchGoal,
                 rules: Callable[[], RuleOptions] = RuleOptions, names: Callable[[], dict[str, str]] = dict,
                 locate: Callable[[list[list[float]]], dict | None] | None = None):
        self.hub, self.store, self.players, self.rules, self.names = hub, store, list(players), rules, names
        self.locate = locate  # table mm -> the part of the picture a dispute replay zooms on
        self._lock = threading.RLock()
        self.processed = 0  # hub events handled so far (the SSE stream sends no further than this)
        self.version = 0  # bumped on every change the panel should redraw
        self.alert: dict | None = None
        self.check: dict | None = None  # the latest play not judged (read unsurely): "check this card"
        self.pictures = CheckPictures()
        self._snap: dict | None = None
        self.live = LiveRound()
        self._reset_tallies()
        row = store.open_match() or store.new_match(self.players, goal.kind, goal.value)
        self._load_match(row)

    # ---- the match --------------------------------------------------------------------------------
    def _load_match(self, row: dict) -> None:
        self.match_row = row
        self.match = Match(list(row["players"]), MatchGoal(row["goal"], row["goal_value"]))
        for r in self.store.rounds(row["id"]):
            self.match.add_round(r["scores"])

    def round_no(self) -> int:
        """The number of the round under way in the match: the header's, the video's and the status's."""
        with self._lock:
            return len(self.match.rounds) + 1

    def _reset_tallies(self) -> None:
        self.live = LiveRound(tallies={p: Tally() for p in self.players})

    def new_match(self, goal: MatchGoal | None = None) -> None:
        with self._lock:
            m = self.match_row
            self.store.end_match(m["id"], self.match.leaders() if self.match.rounds else [])
            g = goal or self.match.goal
            self._load_match(self.store.new_match(self.players, g.kind, g.value))
            self.version += 1

    def set_goal(self, goal: MatchGoal) -> None:
        """A new goal counts for the match under way too ("let's play to 50 instead")."""
        with self._lock:
            self.store.set_match_goal(self.match_row["id"], goal.kind, goal.value)
            self.match_row = self.store.match(self.match_row["id"])
            self.match.goal = goal
            self.version += 1

    def correct_round(self, round_id: int, scores: dict[str, int], who: str, note: str) -> dict:
        with self._lock:
            old = self.store.round(round_id)
            if old is None:
                raise KeyError(f"no round {round_id}")
            unknown = set(scores) - set(old["scores"])
            if unknown:
                raise ValueError(f"round {round_id} has no player {', '.join(sorted(unknown))}")
            new = self.store.correct_round(round_id, {**old["scores"], **scores}, who, note)
            row = self.store.match(old["match_id"])
            if row["ended_at"] is None:
                self._load_match(row)
            else:  # a finished match: its winners may change
                m = Match(list(row["players"]))
                for r in self.store.rounds(row["id"]):
                    m.add_round(r["scores"])
                self.store.set_winners(row["id"], m.leaders())
            self.version += 1
            return new

    # ---- reading the hub ------------------------------------------------------------------------------
    def run(self, stop: threading.Event, poll_s: float = 0.05) -> None:
        while not stop.is_set():
            self.poll()
            stop.wait(poll_s)

    def poll(self) -> None:
        with self._lock:  # read and take in under one lock: no event is taken in twice
            events = self.hub.events_since(self.processed)
            if not events:
                return
            i = 0
            while i < len(events):
                ev = events[i]
                if ev.type == "count":  # a round's counts arrive together, one frame
                    j = i
                    while j < len(events) and events[j].type == "count" and events[j].frame == ev.frame:
                        j += 1
                    self._guarded(self._finish_round, events[i:j])
                    i = j
                else:
                    self._guarded(self._on_event, ev)
                    i += 1
            self.processed += len(events)
            self.version += 1

    def _guarded(self, fn, arg) -> None:
        try:
            fn(arg)
        except Exception:  # one odd event must never stop the referee's panel
            log.exception("could not take in %r", arg)

    def _tally(self, player: str) -> Tally:
        return self.live.tallies.setdefault(player, Tally())

    def _on_event(self, ev: Event) -> None:
        live = self.live
        if live.start_frame is None:
            live.start_frame = ev.frame
        pile = str(ev.get("pile"))
        if ev.type == "play":
            t = self._tally(ev.get("player"))
            unsure = ev.get("unsure") is True
            legal = unsure or bool(ev.get("legal", True))  # a play not judged counts as laid, not illegal
            play = {"frame": ev.frame, "player": ev.get("player"), "card": ev.get("card"), "pile": ev.get("pile"),
                    "legal": None if unsure else legal, "reason": ev.get("reason"), "at": time.time()}
            if unsure:
                play.update(unsure=True, confidence=ev.get("confidence"),
                            why=unsure_text(ev.get("unsure_of"), ev.get("pile"), ev.get("confidence")),
                            picture=self._keep_picture(ev))
                self.check = play
            elif not legal:
                play["said"] = reason_words(ev.get("reason"))
            live.laid_legal[(ev.get("player"), ev.get("card"), pile)] = legal
            if isinstance(ev.get("at"), (list, tuple)) and len(ev.get("at")) >= 2:
                live.laid_at[(ev.get("player"), ev.get("card"), pile)] = list(ev.get("at"))[:2]
            self._count(ev.get("player"), legal, 1)
            if legal:
                if pile in live.pile_open:
                    t.open_to_land.append((ev.frame - live.pile_open[pile]) / self._fps())
                else:
                    live.pile_open[pile] = ev.frame
                live.pile_top[pile] = ev.get("card")
            else:
                play["why"] = self._why(ev, live.pile_top.get(pile))
                self.alert = play
            live.plays.appendleft(play)
        elif ev.type == "takeback":
            if live.laid_legal.pop((ev.get("player"), ev.get("card"), pile), False):
                self._count(ev.get("player"), True, -1)  # the loser of a dispute takes a legal-looking card back
        elif ev.type == "dispute":
            claims = ev.get("claims") or []
            for c in claims:
                self._tally(c.get("player")).disputes += 1
            winner = ev.get("winner")
            if winner in self.live.tallies:
                self._tally(winner).disputes_won += 1
            self.store.add_dispute(self.match_row["id"], len(self.match.rounds) + 1, ev.frame, pile, ev.get("card"),
                                   claims, winner, ev.get("clip"), self._view(claims, ev.get("card"), pile))
        elif ev.type in ("round_end", "round_blocked"):
            live.end_frame, live.ended_by = ev.frame, ev.get("player")
        elif ev.type == "amend":
            self._amend(ev)

    def _amend(self, amend: Event) -> None:
        """A play shown already, as the rules corrected it (a stop seen late made it after-stop, a card
        called illegal stayed on its pile: unsure): its count and its line in the last plays follow
        the new values. The panel shows no other event."""
        of, live = amend.get("of") or {}, self.live
        key = (of.get("player"), of.get("card"), str(of.get("pile")))
        if of.get("type") != "play" or key not in live.laid_legal:
            return  # not a play, or one of an earlier round, or taken back meanwhile
        was = live.laid_legal.pop(key)
        self._count(key[0], was, -1)
        now = apply_amendment(amend, Event("play", of.get("frame"), {"pile": of.get("pile"), "legal": was}))
        if now is None:
            return  # withdrawn
        unsure = now.get("unsure") is True
        legal = live.laid_legal[key] = unsure or bool(now.get("legal", True))
        self._count(key[0], legal, 1)
        for play in live.plays:
            if (play["player"], play["card"], str(play["pile"]), play["frame"]) == (*key, now.frame):
                play.update(legal=None if unsure else legal, reason=now.get("reason"))
                if unsure:  # a call of illegal not borne out: "check this card", no longer an alert
                    # the card still lies there (nobody took it back): the feed's picture shows it
                    play.update(unsure=True, said=None,
                                why=unsure_text(now.get("unsure_of"), now.get("pile"), now.get("confidence")),
                                picture=self._keep_picture(Event("play", now.frame, {"at": live.laid_at.get(key)})))
                    self.check = play
                    if self.alert is play:
                        self.alert = None
                elif not legal:
                    play.update(why=self._why(now, None), said=reason_words(now.get("reason")))

    def _count(self, player: str, legal: bool, n: int) -> None:
        """Count `n` more (or fewer) of the player's cards laid legally, or illegally."""
        t = self._tally(player)
        if legal:
            t.laid += n
        else:
            t.illegal += n

    def _view(self, claims: list, card, pile: str) -> dict | None:
        """Where the disputed cards lie on the picture, for the replay to zoom on (None: the whole picture)."""
        spots = [self.live.laid_at.get((c.get("player"), card, pile)) for c in claims if isinstance(c, dict)]
        return self._locate([s for s in spots if s])

    def _locate(self, spots: list[list[float]]) -> dict | None:
        """The part of the feed's picture around `spots` (table mm), or None: the whole picture."""
        if not spots or self.locate is None:
            return None
        try:
            return self.locate(spots)
        except Exception:  # a zoom is a nicety: the whole picture shows instead
            log.debug("no zoom on %s", spots, exc_info=True)
            return None

    def _keep_picture(self, ev: Event) -> str | None:
        """The feed's picture as it is now (the card has just come to rest) and the part of it where the
        card lies, kept for "check this card": its address, or None when the feed has sent no picture."""
        _, jpeg = self.hub.wait_frame(-1, 0)
        if jpeg is None:
            return None
        at = ev.get("at")
        view = self._locate([list(at)[:2]] if isinstance(at, (list, tuple)) and len(at) >= 2 else [])
        return f"/api/checks/{self.pictures.add(jpeg, view)}.jpg"

    def _why(self, ev: Event, top: str | None) -> str:
        reason = ev.get("reason") or "illegal"
        text = reason_text(reason)
        if reason == Reason.WRONG_COLOUR and top:
            text += f" (pile {ev.get('pile')} is {top.rpartition('-')[0]}, its top is {top})"
        elif reason == Reason.WRONG_NUMBER and top:
            colour, _, num = top.rpartition("-")
            text += f" (pile {ev.get('pile')} needs {colour}-{int(num) + 1})" if num.isdigit() and int(num) < 10 \
                else f" (pile {ev.get('pile')} is closed)"
        return text

    def _fps(self) -> float:
        return float(self.hub.status.get("fps") or 30.0)

    def _finish_round(self, counts: list[Event]) -> None:
        live, options = self.live, self.rules()
        fps = self._fps()
        last = live.end_frame if live.end_frame is not None else counts[0].frame
        minutes = max(0.0, (last - (live.start_frame if live.start_frame is not None else last)) / fps / 60)
        scores, got = {}, {}
        for c in counts:
            p = c.get("player")
            if p not in self.match.players:
                log.warning("count for %r, who is not in the match: ignored", p)
                continue
            illegal = self._tally(p).illegal
            score = c.get("score")
            scores[p] = int(score) if isinstance(score, int) else round_score(int(c.get("centre")), int(c.get("stack")),
                                                                               options, illegal=illegal)
            got[p] = {"centre": c.get("centre"), "stack": c.get("stack")}
        stats = {"minutes": round(minutes, 3), "ended_by": live.ended_by,
                 "players": {p: asdict(t) for p, t in live.tallies.items()}}
        self.store.add_round(self.match_row["id"], {p: scores.get(p, 0) for p in self.match.players}, got, stats)
        self.match.add_round(scores)
        self._reset_tallies()
        self.alert = self.check = None
        played_min = (time.time() - self.match_row["started_at"]) / 60
        if self.match.is_over(played_min):
            self.new_match()

    # ---- what the panel shows -------------------------------------------------------------------------
    def touch(self) -> None:
        """Something the panel shows changed outside the event stream (names, ...)."""
        with self._lock:
            self.version += 1

    def snapshot(self) -> dict:
        with self._lock:
            if self._snap is not None and self._snap["version"] == self.version:
                return self._snap  # every open phone asks after each change: build it once
            self._snap = self._build_snapshot()
            return self._snap

    def _build_snapshot(self) -> dict:
        with self._lock:
            names = self.names()
            rounds = self.store.rounds(self.match_row["id"])
            totals = self.match.totals()
            return {
                "version": self.version,
                "players": [{"id": p, "name": names.get(p, p)} for p in self.match.players],
                "round": {
                    "no": len(self.match.rounds) + 1,
                    "ended": self.live.end_frame is not None,
                    "tallies": {p: {"laid": t.laid, "illegal": t.illegal, "disputes": t.disputes,
                                    "disputes_won": t.disputes_won} for p, t in self.live.tallies.items()},
                    "plays": list(self.live.plays),
                },
                "alert": self.alert,
                "check": self.check,
                "match": {
                    "id": self.match_row["id"], "started_at": self.match_row["started_at"],
                    "goal": self.match.goal.kind, "value": self.match.goal.value,
                    "rounds": [{"id": r["id"], "no": r["no"], "scores": r["scores"], "corrected": r["corrected"]}
                               for r in rounds],
                    "totals": totals, "leaders": self.match.leaders(), "trend": trends(self.match),
                },
                "source": {k: self.hub.status.get(k) for k in ("source", "fps", "speed", "round")},
            }


def ranks(totals: dict[str, int]) -> dict[str, int]:
    """1 for the leader; equal totals share a place."""
    return {p: 1 + sum(1 for s in totals.values() if s > t) for p, t in totals.items()}


def trends(match: Match) -> dict[str, str]:
    """Did the last round move each player up or down the table? ("up", "down", "same")."""
    if not match.rounds:
        return {p: "same" for p in match.players}
    now = ranks(match.totals())
    before = ranks(Match(match.players, match.goal, match.rounds[:-1], dict(match.joined)).totals())
    return {p: "up" if now[p] < before[p] else "down" if now[p] > before[p] else "same" for p in match.players}


def player_stats(rounds: list[dict]) -> dict[str, dict]:
    """Per player over stored rounds: cards per minute, seconds from a pile's opening to their card
    landing on it, illegal plays, disputes won, round scores."""
    out: dict[str, dict] = {}
    for r in rounds:
        minutes = r["stats"].get("minutes") or 0
        for p, t in r["stats"].get("players", {}).items():
            s = out.setdefault(p, {"rounds": 0, "laid": 0, "minutes": 0.0, "illegal": 0, "disputes": 0,
                                   "disputes_won": 0, "open_to_land": [], "points": 0})
            s["rounds"] += 1
            s["laid"] += t.get("laid", 0)
            s["minutes"] += minutes
            s["illegal"] += t.get("illegal", 0)
            s["disputes"] += t.get("disputes", 0)
            s["disputes_won"] += t.get("disputes_won", 0)
            s["open_to_land"] += t.get("open_to_land", [])
            s["points"] += r["scores"].get(p, 0)
    for s in out.values():
        s["cards_per_minute"] = round(s["laid"] / s["minutes"], 2) if s["minutes"] else None
        lands = s.pop("open_to_land")
        s["open_to_land_s"] = round(mean(lands), 2) if lands else None
        s["minutes"] = round(s["minutes"], 2)
    return out
