"""The table panel: a FastAPI app serving the phone pages, the live video, the event stream
and a JSON API (documented at /docs).

Reading needs nothing; every change (scores, settings, enrollment) needs the table's PIN
in the `X-Table-PIN` header, and says who made it (`X-Who`, percent-encoded UTF-8 for names
beyond Latin-1, or `who` in a correction), so the change log can tell who changed what and
when. /docs and /redoc are served from files the package brings (no CDN): they work on a
table with no internet. The routes live in routes/, one file per resource; this only
assembles them around a `Panel` (context.py).
"""
from __future__ import annotations

import importlib.resources
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from ligretto_vision.panel import guard
from ligretto_vision.panel.context import Panel
from ligretto_vision.panel.routes import ROUTERS
from ligretto_vision.panel.routes.pages import STATIC

DOCS_STATIC = Path(str(importlib.resources.files("fastapi_offline") / "static"))  # Swagger UI and ReDoc, no CDN


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
    for router in ROUTERS:
        app.include_router(router)
    return app
