"""The table's memory: match history, settings, disputes and every change, in SQLite.

WAL journal, synchronous=FULL and a commit after every change, so a restart or a
power cut mid-match loses nothing the panel has already shown. One connection
shared by the panel's threads behind a lock (sqlite3's own objects are not
thread-safe to share without one).
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, started_at REAL NOT NULL, ended_at REAL,
    goal TEXT NOT NULL, goal_value INTEGER NOT NULL, players TEXT NOT NULL, winners TEXT);
CREATE TABLE IF NOT EXISTS rounds (
    id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL REFERENCES matches(id), no INTEGER NOT NULL,
    ended_at REAL NOT NULL, scores TEXT NOT NULL, counts TEXT NOT NULL, stats TEXT NOT NULL,
    corrected INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS disputes (
    id INTEGER PRIMARY KEY, match_id INTEGER, round_no INTEGER, at REAL NOT NULL, frame INTEGER,
    pile TEXT, card TEXT, claims TEXT NOT NULL, winner TEXT, clip TEXT, view TEXT);
-- view: where on the picture the replay zooms ({x, y, w, h}, shares of the picture), or NULL
-- who changed what and when: round corrections, settings, the PIN (older tables also logged calibrations)
CREATE TABLE IF NOT EXISTS changes (
    id INTEGER PRIMARY KEY, at REAL NOT NULL, who TEXT NOT NULL, what TEXT NOT NULL,
    before TEXT, after TEXT, note TEXT);
"""


MAX_ID = 2**63 - 1  # SQLite's INTEGER


def _fits(row_id: int) -> bool:
    """A row id SQLite can look up (a bigger one is no row, not an OverflowError)."""
    return isinstance(row_id, int) and -MAX_ID - 1 <= row_id <= MAX_ID


def _j(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


class Store:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
            self._migrate()

    def _migrate(self) -> None:
        """Columns added since the first release, added to an older database in place."""
        have = {r["name"] for r in self._db.execute("PRAGMA table_info(disputes)").fetchall()}
        if "view" not in have:
            self._db.execute("ALTER TABLE disputes ADD COLUMN view TEXT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _run(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        # isolation_level=None: every statement outside an explicit transaction commits at once
        with self._lock:
            return self._db.execute(sql, args)

    @contextmanager
    def _tx(self):
        """Several statements committed together, or not at all."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _rows(self, sql: str, args: tuple = ()) -> list[dict]:
        with self._lock:
            return [dict(r) for r in self._db.execute(sql, args).fetchall()]

    # ---- settings ------------------------------------------------------------------------------
    def setting(self, key: str, default: Any = None) -> Any:
        rows = self._rows("SELECT value FROM settings WHERE key = ?", (key,))
        return json.loads(rows[0]["value"]) if rows else default

    def set_setting(self, key: str, value: Any, who: str, *, log_values: bool = True, before: Any = None) -> None:
        """Store a setting and log the change; `before` is what was in force (default: the stored value)."""
        before = self.setting(key) if before is None else before
        with self._tx() as db:
            db.execute("INSERT INTO settings(key, value) VALUES(?, ?) "
                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, _j(value)))
            db.execute("INSERT INTO changes(at, who, what, before, after) VALUES(?, ?, ?, ?, ?)",
                       (time.time(), who, key, _j(before) if log_values else None, _j(value) if log_values else None))

    def count_up(self, key: str) -> int:
        """Add one to a counter kept among the settings (not a change anybody made: not logged); the new value."""
        with self._tx() as db:
            row = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
            n = (json.loads(row["value"]) if row else 0) + 1
            db.execute("INSERT INTO settings(key, value) VALUES(?, ?) "
                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, _j(n)))
        return n

    # ---- matches and rounds ----------------------------------------------------------------------
    def open_match(self) -> dict | None:
        rows = self._rows("SELECT * FROM matches WHERE ended_at IS NULL ORDER BY id DESC LIMIT 1")
        return _match(rows[0]) if rows else None

    def new_match(self, players: list[str], goal: str, value: int) -> dict:
        cur = self._run("INSERT INTO matches(started_at, goal, goal_value, players) VALUES(?, ?, ?, ?)",
                        (time.time(), goal, value, _j(players)))
        return self.match(cur.lastrowid)

    def end_match(self, match_id: int, winners: list[str]) -> None:
        self._run("UPDATE matches SET ended_at = ?, winners = ? WHERE id = ?", (time.time(), _j(winners), match_id))

    def set_match_goal(self, match_id: int, goal: str, value: int) -> None:
        self._run("UPDATE matches SET goal = ?, goal_value = ? WHERE id = ?", (goal, value, match_id))

    def set_winners(self, match_id: int, winners: list[str]) -> None:
        self._run("UPDATE matches SET winners = ? WHERE id = ?", (_j(winners), match_id))

    def match(self, match_id: int) -> dict | None:
        if not _fits(match_id):
            return None
        rows = self._rows("SELECT * FROM matches WHERE id = ?", (match_id,))
        return _match(rows[0]) if rows else None

    def matches(self, limit: int = 50) -> list[dict]:
        return [_match(r) for r in self._rows("SELECT * FROM matches ORDER BY id DESC LIMIT ?", (limit,))]

    def add_round(self, match_id: int, scores: dict, counts: dict, stats: dict) -> dict:
        with self._lock:
            no = self._db.execute("SELECT COUNT(*) FROM rounds WHERE match_id = ?", (match_id,)).fetchone()[0] + 1
            cur = self._db.execute(
                "INSERT INTO rounds(match_id, no, ended_at, scores, counts, stats) VALUES(?, ?, ?, ?, ?, ?)",
                (match_id, no, time.time(), _j(scores), _j(counts), _j(stats)))
            return self.round(cur.lastrowid)

    def round(self, round_id: int) -> dict | None:
        if not _fits(round_id):
            return None
        rows = self._rows("SELECT * FROM rounds WHERE id = ?", (round_id,))
        return _round(rows[0]) if rows else None

    def rounds(self, match_id: int | None = None) -> list[dict]:
        if match_id is None:
            return [_round(r) for r in self._rows("SELECT * FROM rounds ORDER BY id")]
        return [_round(r) for r in self._rows("SELECT * FROM rounds WHERE match_id = ? ORDER BY no", (match_id,))]

    def correct_round(self, round_id: int, scores: dict[str, int], who: str, note: str = "") -> dict:
        """Replace a round's scores by hand; the old and new scores are kept in `changes`, and the
        scores as counted stay in the round's counts (`counts[player]["score"]`, from the first correction)."""
        old = self.round(round_id)
        counts = {p: dict(old["counts"].get(p) or {}) for p in set(old["counts"]) | set(old["scores"])}
        for p, c in counts.items():
            c.setdefault("score", old["scores"].get(p, 0))
        with self._tx() as db:
            db.execute("UPDATE rounds SET scores = ?, counts = ?, corrected = 1 WHERE id = ?",
                       (_j(scores), _j(counts), round_id))
            db.execute("INSERT INTO changes(at, who, what, before, after, note) VALUES(?, ?, ?, ?, ?, ?)",
                       (time.time(), who, f"match {old['match_id']} round {old['no']} scores",
                        _j(old["scores"]), _j(scores), note))
        return self.round(round_id)

    # ---- disputes and changes ------------------------------------------------------------------------
    def add_dispute(self, match_id: int, round_no: int, frame: int, pile: str, card: str, claims: list,
                    winner: str, clip: str | None, view: dict | None = None) -> int:
        return self._run("INSERT INTO disputes(match_id, round_no, at, frame, pile, card, claims, winner, clip, view) "
                         "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (match_id, round_no, time.time(), frame, pile, card, _j(claims), winner, clip,
                          _j(view) if view else None)).lastrowid

    def disputes(self, limit: int = 100) -> list[dict]:
        return [_dispute(r) for r in self._rows("SELECT * FROM disputes ORDER BY id DESC LIMIT ?", (limit,))]

    def dispute(self, dispute_id: int) -> dict | None:
        if not _fits(dispute_id):
            return None
        rows = self._rows("SELECT * FROM disputes WHERE id = ?", (dispute_id,))
        return _dispute(rows[0]) if rows else None

    def changes(self, limit: int = 100) -> list[dict]:
        out = self._rows("SELECT * FROM changes ORDER BY id DESC LIMIT ?", (limit,))
        for r in out:
            r["before"] = json.loads(r["before"]) if r["before"] else None
            r["after"] = json.loads(r["after"]) if r["after"] else None
        return out


def _match(r: dict) -> dict:
    return {**r, "players": json.loads(r["players"]), "winners": json.loads(r["winners"]) if r["winners"] else None}


def _round(r: dict) -> dict:
    return {**r, "scores": json.loads(r["scores"]), "counts": json.loads(r["counts"]), "stats": json.loads(r["stats"]),
            "corrected": bool(r["corrected"])}


def _dispute(r: dict) -> dict:
    return {**r, "claims": json.loads(r["claims"]), "view": json.loads(r["view"]) if r.get("view") else None}
