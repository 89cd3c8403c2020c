"""Matches and their rounds, per-player statistics and the CSV export."""
from __future__ import annotations

import csv
import io
import time

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response

from ligretto_vision.panel.keeper import player_stats
from ligretto_vision.panel.routes.deps import PanelDep, RowId, Who
from ligretto_vision.panel.store import Store
from ligretto_vision.panel.text import csv_cell

router = APIRouter()


@router.get("/api/matches", summary="Matches, newest first, with their rounds")
def matches(panel: PanelDep, limit: int = 20):
    return [_match_view(panel.store, m) for m in panel.store.matches(max(1, min(limit, 200)))]


@router.get("/api/matches/{match_id}", summary="One match with its rounds")
def match(match_id: RowId, panel: PanelDep):
    m = panel.store.match(match_id)
    if m is None:
        raise HTTPException(404, f"no match {match_id}")
    return _match_view(panel.store, m)


def _match_view(store: Store, m: dict) -> dict:
    rounds = store.rounds(m["id"])
    totals = {p: 0 for p in m["players"]}
    for r in rounds:
        for p, s in r["scores"].items():
            totals[p] = totals.get(p, 0) + s
    return {**m, "rounds": rounds, "totals": totals}


@router.post("/api/matches", summary="End the match under way and start a new one (PIN)")
def new_match(panel: PanelDep, who: Who):
    panel.keeper.new_match(panel.settings.goal())
    panel.store.set_setting("match_started", {"match": panel.keeper.match_row["id"]}, who)
    return panel.keeper.snapshot()["match"]


@router.get("/api/stats", summary="Per-player statistics: this match and all time")
def stats(panel: PanelDep):
    names = panel.settings.names()
    return {"names": names, "match": player_stats(panel.store.rounds(panel.keeper.match_row["id"])),
            "all_time": player_stats(panel.store.rounds())}


@router.get("/api/export.csv", summary="Every round of every match as CSV",
            description="UTF-8 with a byte order mark (spreadsheets then read every script right). `score` is "
                        "the score in force, as the scoreboard adds it up; `counted` the referee's, from "
                        "`centre` and `stack`; `corrected` says whether this player's score was changed by "
                        "hand. Text cells that start with = + - @ get a leading ' so no spreadsheet runs them.")
def export(panel: PanelDep):
    out = io.StringIO()
    out.write("\ufeff")
    w = csv.writer(out)
    w.writerow(["match", "round", "ended_at", "player", "name", "score", "counted", "centre", "stack",
                "corrected"])
    names = panel.settings.names()
    for r in panel.store.rounds():
        ended = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r["ended_at"]))
        for p, s in r["scores"].items():
            c = r["counts"].get(p, {})
            counted = c.get("score", s)
            w.writerow([r["match_id"], r["no"], ended, csv_cell(p), csv_cell(names.get(p, p)), s, counted,
                        c.get("centre", ""), c.get("stack", ""), "yes" if counted != s else "no"])
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": 'attachment; filename="ligretto-rounds.csv"'})
