"""`ligretto-vision serve`: the feed, the match keeper and the panel in one process."""
from __future__ import annotations

import logging

from ligretto_vision.config import Config
from ligretto_vision.errors import LigrettoError
from ligretto_vision.feeds import Feed, SimFeed
from ligretto_vision.live import LiveHub
from ligretto_vision.panel.app import Panel, create_app, make_panel
from ligretto_vision.panel.store import Store


def feed_for(cfg: Config, panel_settings, speed: float = 1.0) -> Feed:
    """The frame source of `[table].source`; for now only the simulated table exists."""
    source = cfg.table.source
    if source not in ("auto", "sim"):
        raise LigrettoError(f"[table.source] {source!r}: only the simulated table ('sim' or 'auto') can be served yet")
    return SimFeed(players=cfg.table.players, seed=cfg.table.seed, speed=speed, clips=cfg.data.clips,
                   rules=panel_settings.rules, edition=panel_settings.edition, names=panel_settings.names)


def build(cfg: Config, speed: float = 1.0) -> Panel:
    try:
        store = Store(cfg.data.database)
    except Exception as exc:  # sqlite3 errors: a folder we cannot write, a file that is no database
        raise LigrettoError(f"cannot open the database: {exc}", path=str(cfg.data.database)) from None
    panel = make_panel(cfg, LiveHub(), store)
    panel.feed = feed_for(cfg, panel.settings, speed)
    return panel


def serve(cfg: Config, port: int | None = None, speed: float = 1.0) -> int:
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    panel = build(cfg, speed)
    port = port or cfg.panel.port
    print(f"ligretto-vision: panel on http://{cfg.panel.host}:{port}/ (API docs at /docs), "
          f"database {cfg.data.database}", flush=True)
    uvicorn.run(create_app(panel), host=cfg.panel.host, port=port, log_level="warning",
                timeout_graceful_shutdown=2)
    return 0
