"""`ligretto-vision serve`: the feed, the match keeper and the panel in one process."""
from __future__ import annotations

import logging

from ligretto_vision.capture import choose_auto
from ligretto_vision.config import Config
from ligretto_vision.errors import LigrettoError
from ligretto_vision.live import Feed, LiveHub
from ligretto_vision.live.board_feed import BoardFeed
from ligretto_vision.live.camera_feed import open_pipeline_feed
from ligretto_vision.live.sim_feed import SimFeed
from ligretto_vision.panel.app import create_app
from ligretto_vision.panel.context import Panel, make_panel
from ligretto_vision.panel.routes.pages import served_url
from ligretto_vision.panel.store import Store


log = logging.getLogger(__name__)


def source_for(cfg: Config) -> str:
    """What `[table].source` means here: "sim", or a camera, URL, video file or scene folder to referee.

    "auto" is the Pi camera, else USB camera 0, else the simulated table; a camera found with no
    `[table].table_folder` to describe the real table also falls back to the simulated table (and says so).
    """
    source = cfg.table.source.strip()
    if source != "auto":
        return source
    choice, why = choose_auto()
    if choice != "sim" and cfg.table.table_folder is None:
        log.warning("%s, but [table].table_folder is not set (the referee must know the table): "
                    "serving the simulated table", why)
        return "sim"
    log.info("source auto: %s", why)
    return choice


def feed_for(cfg: Config, panel_settings, speed: float = 1.0, source: str | None = None) -> Feed:
    """The feed for `[table].source`: the simulated table, or the real referee on frames."""
    source = source or source_for(cfg)
    if source == "sim":
        store = panel_settings.store

        def next_seed() -> int:  # deals are counted in the database: a restart deals afresh
            return cfg.table.seed + store.count_up("sim_deals") - 1
        return SimFeed(players=cfg.table.players, seed=cfg.table.seed, speed=speed, clips=cfg.data.clips,
                       rules=panel_settings.rules, edition=panel_settings.edition,
                       names=panel_settings.video_names, next_seed=next_seed)
    if _is_board_scene(source):
        return BoardFeed(source, speed=speed, vision=cfg.vision)
    return open_pipeline_feed(source, cfg.table.table_folder, speed=speed, clips=cfg.data.clips, vision=cfg.vision)


def _is_board_scene(source: str) -> bool:
    """A scene folder of the board game (`"game": "board"`): its own referee and panel page."""
    from pathlib import Path

    from ligretto_vision.scene import load_scene

    folder = Path(source).expanduser()
    return (folder / "scene.json").is_file() and load_scene(folder).is_board_game


def build(cfg: Config, speed: float = 1.0) -> Panel:
    try:
        store = Store(cfg.data.database)
    except Exception as exc:  # sqlite3 errors: a folder we cannot write, a file that is no database
        raise LigrettoError(f"cannot open the database: {exc}", path=str(cfg.data.database)) from None
    source = source_for(cfg)
    feed = None
    if source != "sim":  # the real table says who plays: the panel and the match follow it
        feed = feed_for(cfg, None, speed, source)
        cfg = cfg.model_copy(update={"table": cfg.table.model_copy(update={"players": len(feed.table.players)})})
    panel = make_panel(cfg, LiveHub(), store, feed)
    if feed is not None and list(panel.keeper.match.players) != list(panel.settings.player_ids):
        log.info("the open match has players %s, the table %s: starting a new match",
                 panel.keeper.match.players, panel.settings.player_ids)
        panel.keeper.players = list(panel.settings.player_ids)
        panel.keeper.new_match()
    panel.feed = feed or feed_for(cfg, panel.settings, speed, source)
    return panel


def serve(cfg: Config, port: int | None = None, speed: float = 1.0) -> int:
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    panel = build(cfg, speed)
    port = port or cfg.panel.port
    print(announce(cfg, port), flush=True)
    uvicorn.run(create_app(panel), host=cfg.panel.host, port=port, log_level="warning",
                timeout_graceful_shutdown=2)
    return 0


def announce(cfg: Config, port: int) -> str:
    """What `serve` prints: the address a phone opens (as the Set-up QR code shows it), never 0.0.0.0."""
    url, note = served_url(cfg.panel.host, port)
    return (f"ligretto-vision: panel on {url} (open it on a phone; API docs at {url}docs){note}, "
            f"database {cfg.data.database}")
