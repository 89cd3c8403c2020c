"""The table panel: a FastAPI app serving the phone pages, the live video, the event stream
and a JSON API (documented at /docs).

Reading needs nothing; every change (scores, settings, calibration) needs the
table's PIN in the `X-Table-PIN` header, and says who made it (`X-Who`, percent-encoded
UTF-8 for names beyond Latin-1, or `who` in a correction), so the change log can tell who
changed what and when. /docs and /redoc are served from files the package brings (no CDN):
they work on a table with no internet.
"""
from __future__ import annotations

import asyncio
import csv
import dataclasses
import functools
import importlib.resources
import io
import json
import re
import socket
import threading
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import anyio
import cv2
import numpy as np
import segno
from fastapi import Depends, FastAPI, Header, HTTPException, Request
from fastapi import Path as PathParam
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import FileResponse, HTMLResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles

from ligretto_vision.config import Config
from ligretto_vision.live import Feed, LiveHub
from ligretto_vision.live.camera_feed import PipelineFeed
from ligretto_vision.live.clips import CLIP_NAME
from ligretto_vision.panel import enrollment, guard
from ligretto_vision.panel.changelog import describe
from ligretto_vision.panel.keeper import MatchKeeper, player_stats
from ligretto_vision.panel.pin import PinGuard, PinRefused, hash_pin
from ligretto_vision.panel.settings import CorrectionBody, GoalBody, PinBody, PlayersBody, RulesBody, TableSettings
from ligretto_vision.panel.store import MAX_ID, Store
from ligretto_vision.panel.text import clean_text, csv_cell, header_text
from ligretto_vision.rules import MatchGoal

STATIC = Path(__file__).parent / "static"
DOCS_STATIC = Path(str(importlib.resources.files("fastapi_offline") / "static"))  # Swagger UI and ReDoc, no CDN
CLIP_FILE = re.compile(r"^(\d{8}\.jpg|clip\.json)$")
MAX_VIDEO_FPS = 15.0
ZOOM_MARGIN_MM = 150.0  # a dispute replay shows this much table around the disputed cards
MAX_WHO = 40

RowId = Annotated[int, PathParam(ge=1, le=MAX_ID, description="a row id (1 to 2^63-1)")]


@dataclass
class Panel:
    """Everything the routes use, made once per app."""
    cfg: Config
    hub: LiveHub
    store: Store
    settings: TableSettings
    keeper: MatchKeeper
    clips: Path
    feed: Feed | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    pins: PinGuard = field(default_factory=PinGuard)
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        if self.feed is not None and getattr(self.feed, "round_no", False) is None:
            self.feed.round_no = self.keeper.round_no  # one round number: the header's is the video's
        jobs = [("keeper", self.keeper.run)] + ([("feed", self.feed.run)] if self.feed else [])
        for name, fn in jobs:
            args = (self.stop,) if name == "keeper" else (self.hub, self.stop)
            t = threading.Thread(target=fn, args=args, name=f"ligretto-{name}", daemon=True)
            t.start()
            self.threads.append(t)

    def shutdown(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=5)

    def view_of(self, spots: list[list[float]]) -> dict | None:
        """The part of the feed's picture around `spots` (table mm), as shares of the picture: where a
        dispute replay zooms. None when the feed cannot say (not calibrated yet, no feed)."""
        xs, ys = [float(s[0]) for s in spots], [float(s[1]) for s in spots]
        m = ZOOM_MARGIN_MM
        corners = [(min(xs) - m, min(ys) - m), (max(xs) + m, min(ys) - m), (max(xs) + m, max(ys) + m),
                   (min(xs) - m, max(ys) + m)]
        shares = self.feed.to_picture(corners) if self.feed is not None else None
        return zoom_box(shares) if shares is not None else None


def make_panel(cfg: Config, hub: LiveHub, store: Store, feed: Feed | None = None) -> Panel:
    settings = TableSettings(store, cfg, enrollment.table_of(feed))
    if isinstance(feed, PipelineFeed):  # the panel's set-up reaches the camera referee from its next round
        feed.rules, feed.seats = settings.rules, settings.seats
    keeper = MatchKeeper(hub, store, settings.player_ids, settings.goal(), rules=settings.rules, names=settings.names)
    panel = Panel(cfg, hub, store, settings, keeper, Path(cfg.data.clips), feed)
    keeper.locate = panel.view_of
    return panel


def zoom_box(shares: list[tuple[float, float]]) -> dict | None:
    """The box around `shares` (points as shares of the picture) within the picture, or None when a
    zoom would show about the whole picture anyway (or nothing of it)."""
    x0, x1 = max(0.0, min(x for x, _ in shares)), min(1.0, max(x for x, _ in shares))
    y0, y1 = max(0.0, min(y for _, y in shares)), min(1.0, max(y for _, y in shares))
    if x1 - x0 < 0.02 or y1 - y0 < 0.02 or (x1 - x0) * (y1 - y0) > 0.6:
        return None
    return {"x": round(x0, 4), "y": round(y0, 4), "w": round(x1 - x0, 4), "h": round(y1 - y0, 4)}


def who_from(header: str | None) -> str:
    """The `X-Who` header as the name that was meant (422 when it cannot be a name)."""
    try:
        who = clean_text(header_text(header), "X-Who (who makes the change)")
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    if len(who) > MAX_WHO:
        raise HTTPException(422, f"X-Who: a name of at most {MAX_WHO} characters")
    return who


def client_of(request: Request) -> str:
    """Who asks, for the PIN's lockout: the phone's address."""
    return request.client.host if request.client else ""


def create_app(panel: Panel) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI):
        panel.start()
        yield
        panel.shutdown()

    app = FastAPI(title="Ligretto table panel", version="1", lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Live referee panel of one Ligretto table. Reading needs nothing; changes need the "
                              "table's PIN in the `X-Table-PIN` header (five wrong PINs from one address lock "
                              "that address out for 30 s) and may say who makes them in `X-Who` "
                              "(percent-encoded UTF-8, as `encodeURIComponent` writes it, for names beyond "
                              "Latin-1).")
    app.state.panel = panel
    guard.install(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount("/static-docs", StaticFiles(directory=DOCS_STATIC), name="static-docs")
    hub, keeper, store, settings = panel.hub, panel.keeper, panel.store, panel.settings

    def need_pin(request: Request, x_table_pin: str | None = Header(None, description="the table's PIN"),
                 x_who: str | None = Header(None, max_length=400, description="who makes the change "
                                            "(percent-encoded UTF-8 for names beyond Latin-1)")) -> str:
        who = who_from(x_who)  # a bad name is refused before the PIN is tried (no try is used up)
        panel.pins.check(x_table_pin, store.setting("pin"), client_of(request))
        return who or "someone at the table"

    # ---- the API's documentation, served from the package's own files -----------------------------
    @app.get("/docs", include_in_schema=False)
    def docs():
        return get_swagger_ui_html(openapi_url=app.openapi_url, title=f"{app.title} – API",
                                   oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
                                   swagger_js_url="/static-docs/swagger-ui-bundle.js",
                                   swagger_css_url="/static-docs/swagger-ui.css",
                                   swagger_favicon_url="/static/favicon.svg")

    @app.get(app.swagger_ui_oauth2_redirect_url, include_in_schema=False)
    def docs_redirect():
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    def redoc():
        return get_redoc_html(openapi_url=app.openapi_url, title=f"{app.title} – API",
                              redoc_js_url="/static-docs/redoc.standalone.js", redoc_favicon_url="/static/favicon.svg",
                              with_google_fonts=False)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon():
        return Response(icon_png(32), media_type="image/png", headers={"Cache-Control": "max-age=86400"})

    @app.get("/apple-touch-icon.png", include_in_schema=False)
    def touch_icon():
        return Response(icon_png(180), media_type="image/png", headers={"Cache-Control": "max-age=86400"})

    # ---- pages and pictures ------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index():
        return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))

    @app.get("/video.mjpg", summary="Live annotated video (MJPEG)")
    async def video():
        async def frames():
            last, min_gap = 0, 1.0 / MAX_VIDEO_FPS
            # Each picture is followed at once by the next part's boundary and headers: Chrome shows a part
            # only when the next one has begun, so this way the newest picture shows without waiting for
            # the one after it (and a single picture, or an ended feed's last one, shows at all).
            part = b"--frame\r\nContent-Type: image/jpeg\r\n\r\n"
            yield part
            while not panel.stop.is_set():
                fid, jpeg = await anyio.to_thread.run_sync(hub.wait_frame, last, 1.0)
                if fid == last or jpeg is None:
                    continue
                last = fid
                yield jpeg + b"\r\n" + part
                await asyncio.sleep(min_gap)
        return StreamingResponse(frames(), media_type="multipart/x-mixed-replace; boundary=frame",
                                 headers={"Cache-Control": "no-store"})

    @app.get("/api/frame.jpg", summary="The latest annotated frame as one picture")
    def frame():
        _, jpeg = hub.wait_frame(-1, 0)
        if jpeg is None:
            raise HTTPException(503, "no picture yet: the feed has not sent a frame")
        return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/qr.svg", summary="QR code that opens this panel on a phone")
    def qr(request: Request):
        buf = io.BytesIO()
        segno.make(panel_url(request), error="m").save(buf, kind="svg", scale=6, border=2, light="white")
        return Response(buf.getvalue(), media_type="image/svg+xml")

    @app.get("/api/url", summary="The address phones should open")
    def url(request: Request):
        return {"url": panel_url(request)}

    # ---- live ------------------------------------------------------------------------------------------------
    @app.get("/api/events", summary="Server-sent events: every referee event as it happens, and the panel state")
    async def events(request: Request, since: int | None = None,
                     last_event_id: str | None = Header(None)):
        lei = (last_event_id or "").strip()
        start = since if since is not None else int(lei) if lei.isdecimal() and len(lei) <= 18 else None

        async def stream():
            pos = keeper.processed if start is None else max(0, min(start, keeper.processed))
            version, quiet = -1, 0.0
            yield "retry: 1000\n\n"
            while not panel.stop.is_set() and not await request.is_disconnected():
                upto = keeper.processed
                if upto > pos:
                    for i, ev in enumerate(hub.events_since(pos)[:upto - pos]):
                        data = {k: v for k, v in ev.to_json().items() if not k.startswith("_")}
                        yield f"id: {pos + i + 1}\nevent: hub\ndata: {json.dumps(data, default=str)}\n\n"
                    pos = upto
                if keeper.version != version:
                    snap = keeper.snapshot()
                    version = snap["version"]
                    yield f"event: state\ndata: {json.dumps(snap, default=str)}\n\n"
                    quiet = 0.0
                quiet += 0.1
                if quiet > 15:  # an event, not a comment: the page sees it and knows the connection lives
                    yield "event: ping\ndata: {}\n\n"
                    quiet = 0.0
                await asyncio.sleep(0.1)
        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    @app.get("/api/state", summary="Round, live tallies, last illegal play and the match scoreboard")
    def state():
        return keeper.snapshot()

    @app.get("/api/status", summary="The feed's state: source, calibration, frame rate")
    def status():
        return dict(hub.status)

    # ---- history ---------------------------------------------------------------------------------------------
    @app.get("/api/matches", summary="Matches, newest first, with their rounds")
    def matches(limit: int = 20):
        return [_match_view(m) for m in store.matches(max(1, min(limit, 200)))]

    @app.get("/api/matches/{match_id}", summary="One match with its rounds")
    def match(match_id: RowId):
        m = store.match(match_id)
        if m is None:
            raise HTTPException(404, f"no match {match_id}")
        return _match_view(m)

    def _match_view(m: dict) -> dict:
        rounds = store.rounds(m["id"])
        totals = {p: 0 for p in m["players"]}
        for r in rounds:
            for p, s in r["scores"].items():
                totals[p] = totals.get(p, 0) + s
        return {**m, "rounds": rounds, "totals": totals}

    @app.post("/api/matches", summary="End the match under way and start a new one (PIN)")
    def new_match(who: str = Depends(need_pin)):
        keeper.new_match(settings.goal())
        store.set_setting("match_started", {"match": keeper.match_row["id"]}, who)
        return keeper.snapshot()["match"]

    @app.put("/api/rounds/{round_id}", summary="Correct a round's scores by hand (PIN); the change is logged")
    def correct(round_id: RowId, body: CorrectionBody, _: str = Depends(need_pin)):
        try:
            return keeper.correct_round(round_id, body.scores, body.who.strip(), body.note)
        except KeyError:
            raise HTTPException(404, f"no round {round_id}") from None
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None

    @app.get("/api/changes", summary="Who changed what and when")
    def changes(limit: int = 100):
        names = settings.names()
        return [{**c, "text": describe(c, names)} for c in store.changes(max(1, min(limit, 1000)))]

    @app.get("/api/stats", summary="Per-player statistics: this match and all time")
    def stats():
        names = settings.names()
        return {"names": names, "match": player_stats(store.rounds(keeper.match_row["id"])),
                "all_time": player_stats(store.rounds())}

    @app.get("/api/export.csv", summary="Every round of every match as CSV",
             description="UTF-8 with a byte order mark (spreadsheets then read every script right). `score` is "
                         "the score in force, as the scoreboard adds it up; `counted` the referee's, from "
                         "`centre` and `stack`; `corrected` says whether this player's score was changed by "
                         "hand. Text cells that start with = + - @ get a leading ' so no spreadsheet runs them.")
    def export():
        out = io.StringIO()
        out.write("\ufeff")
        w = csv.writer(out)
        w.writerow(["match", "round", "ended_at", "player", "name", "score", "counted", "centre", "stack",
                    "corrected"])
        names = settings.names()
        for r in store.rounds():
            ended = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r["ended_at"]))
            for p, s in r["scores"].items():
                c = r["counts"].get(p, {})
                counted = c.get("score", s)
                w.writerow([r["match_id"], r["no"], ended, csv_cell(p), csv_cell(names.get(p, p)), s, counted,
                            c.get("centre", ""), c.get("stack", ""), "yes" if counted != s else "no"])
        return Response(out.getvalue(), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="ligretto-rounds.csv"'})

    # ---- disputes ------------------------------------------------------------------------------------------
    @app.get("/api/disputes", summary="Disputes, newest first")
    def disputes(limit: int = 50):
        return [_dispute_view(d, frames=False) for d in store.disputes(max(1, min(limit, 500)))]

    @app.get("/api/disputes/{dispute_id}", summary="One dispute with its replay frames")
    def dispute(dispute_id: RowId):
        d = store.dispute(dispute_id)
        if d is None:
            raise HTTPException(404, f"no dispute {dispute_id}")
        return _dispute_view(d, frames=True)

    def _dispute_view(d: dict, frames: bool) -> dict:
        clip = d.get("clip")
        meta = panel.clips / clip / "clip.json" if clip and CLIP_NAME.match(clip) else None
        if meta is None:
            d["replay"] = "none"
        elif not meta.exists():
            d["replay"] = "saving"
        else:
            d["replay"] = "ready"
            if frames:
                m = json.loads(meta.read_text(encoding="utf-8"))
                d["fps"] = m["fps"]
                d["frames"] = [{"frame": f["frame"], "url": f"/clips/{clip}/{f['file']}"} for f in m["frames"]]
        return d

    @app.get("/clips/{name}/{file}", include_in_schema=False)
    def clip_file(name: str, file: str):
        if not CLIP_NAME.match(name) or not CLIP_FILE.match(file):
            raise HTTPException(400, "not a clip file name")
        path = panel.clips / name / file
        if not path.is_file():
            raise HTTPException(404, f"no clip file {name}/{file}")
        return FileResponse(path)

    # ---- set-up --------------------------------------------------------------------------------------------
    @app.get("/api/settings", summary="Rules, players and seats, match goal, whether a PIN is set")
    def get_settings():
        return settings.public()

    @app.post("/api/pin", summary="Choose the table's PIN (first start), or change it with the current one")
    def set_pin(body: PinBody, request: Request, x_who: str | None = Header(None, max_length=400)):
        who = who_from(x_who)
        if settings.has_pin():
            if not body.current:
                raise PinRefused(401, "this table already has a PIN: give the current one to change it")
            panel.pins.check(body.current, store.setting("pin"), client_of(request))
        store.set_setting("pin", hash_pin(body.pin), who or "someone at the table", log_values=False)
        return {"has_pin": True}

    @app.put("/api/settings/rules", summary="Rule options and edition (PIN); used from the next round")
    def put_rules(body: RulesBody, who: str = Depends(need_pin)):
        store.set_setting("rules", {"edition": body.edition, "options": dataclasses.asdict(body.options)}, who,
                          before=settings.public()["rules"])
        return settings.public()["rules"]

    @app.put("/api/settings/players", summary="Players' names and seats (PIN)")
    def put_players(body: PlayersBody, who: str = Depends(need_pin)):
        ids = [p.id for p in body.players]
        if sorted(ids) != sorted(settings.player_ids):
            raise HTTPException(422, f"name every player of this table once: {', '.join(settings.player_ids)}")
        store.set_setting("players", [p.model_dump() for p in body.players], who, before=settings.players())
        keeper.touch()
        return settings.players()

    @app.put("/api/settings/match", summary="How long a match lasts (PIN); counts for the match under way")
    def put_goal(body: GoalBody, who: str = Depends(need_pin)):
        goal = MatchGoal(body.goal, body.value)
        store.set_setting("match_goal", dataclasses.asdict(goal), who, before=dataclasses.asdict(settings.goal()))
        keeper.set_goal(goal)
        return dataclasses.asdict(goal)

    # ---- enrollment: one face per colour, one back per player (a real table only) --------------------
    @app.get("/api/enrollment", summary="Which colours and players of the table in use have an enrollment picture")
    def get_enrollment():
        return enrollment.status(enrollment.table_of(panel.feed))

    @app.get("/api/enrollment/{kind}/{name}.png", summary="A stored enrollment crop")
    def enrollment_picture(kind: str, name: str):
        path = enrollment.check_target(enrollment.table_of(panel.feed), kind, name)
        if not path.is_file():
            raise HTTPException(404, f"{name} has no enrolled {kind[:-1]} yet")
        return FileResponse(path, media_type="image/png", headers={"Cache-Control": "no-cache"})

    @app.post("/api/enrollment/{kind}/{name}", summary="Enrol a colour's face or a player's back from a photo (PIN)",
              description="The request body is the photo of one card (PNG or JPEG, within the request size "
                          "limit): it is cut to the card, turned upright and stored in the table folder's enroll/.",
              openapi_extra={"requestBody": {"required": True, "content": {
                  "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
                  "image/png": {"schema": {"type": "string", "format": "binary"}}}}})
    async def post_enrollment(kind: str, name: str, request: Request, who: str = Depends(need_pin)):
        table = enrollment.table_of(panel.feed)
        enrollment.check_target(table, kind, name)
        data = await request.body()

        def work() -> dict:  # OpenCV and SQLite off the event loop
            out = enrollment.enrol(table, kind, name, data)
            store.set_setting("enrollment", {"card": f"{kind}/{name}", "size": out["size"],
                                             "outline_found": out["outline_found"]}, who)
            reloaded = panel.feed.use_enrollment()
            out["referee"] = "uses it from the next round" if reloaded else "uses it from its next start"
            return out
        return await anyio.to_thread.run_sync(work)

    return app


def is_loopback(host: str) -> bool:
    return host in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")


def _url(scheme: str, host: str, port: int | None) -> str:
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}{f':{port}' if port else ''}/"


def panel_url(request: Request) -> str:
    """The address other phones at the table can open: this request's, unless that is loopback."""
    host = request.url.hostname or "localhost"
    if is_loopback(host):
        host = lan_address() or host
    return _url(request.url.scheme, host, request.url.port)


def served_url(host: str, port: int) -> tuple[str, str]:
    """The address `serve` tells, for the host it listens on (never 0.0.0.0), and a note when phones
    cannot open it. Listening on every address, it is the one the Set-up QR code shows."""
    if host in ("0.0.0.0", "::", ""):
        return _url("http", lan_address() or "localhost", port), ""
    if is_loopback(host):
        return _url("http", host, port), (' (only this computer can open it: [panel].host = "0.0.0.0" '
                                          "lets phones in)")
    return _url("http", host, port), ""


def lan_address() -> str | None:
    """This machine's address on the local network (no traffic is sent): the address its default
    route leaves from, else one its own name resolves to, else `<name>.local`."""
    try:  # connecting a UDP socket only picks the route: nothing is sent (192.0.2.1 is a documentation address)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            addr = s.getsockname()[0]
        if addr and not is_loopback(addr) and addr != "0.0.0.0":
            return addr
    except OSError:
        pass
    name = socket.gethostname()
    try:
        addrs = socket.gethostbyname_ex(name)[2]
    except OSError:
        addrs = []
    lan = [a for a in addrs if not a.startswith("127.")]
    return lan[0] if lan else (f"{name}.local" if name and name != "localhost" else None)


@functools.lru_cache(maxsize=4)
def icon_png(size: int) -> bytes:
    """The panel's icon (two cards on the felt), as a PNG of `size` px: favicon and phone home screen."""
    k = 4  # drawn large, then shrunk: smooth edges
    n = size * k
    img = np.zeros((n, n, 4), np.uint8)
    r = n // 6
    felt = (38, 96, 52, 255)
    cv2.rectangle(img, (r, 0), (n - r, n), felt, -1)
    cv2.rectangle(img, (0, r), (n, n - r), felt, -1)
    for cx, cy in ((r, r), (n - r, r), (r, n - r), (n - r, n - r)):
        cv2.circle(img, (cx, cy), r, felt, -1)

    def card(angle: float, colour, centre):
        box = cv2.boxPoints(((centre[0], centre[1]), (n * 0.42, n * 0.62), angle)).astype(np.int32)
        cv2.fillConvexPoly(img, box, (255, 255, 255, 255))
        inner = cv2.boxPoints(((centre[0], centre[1]), (n * 0.36, n * 0.56), angle)).astype(np.int32)
        cv2.fillConvexPoly(img, inner, colour)
    card(-14, (50, 50, 215, 255), (n * 0.40, n * 0.52))
    card(12, (200, 110, 30, 255), (n * 0.60, n * 0.48))
    small = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".png", small)
    return buf.tobytes()
