"""The panel's parts, made once per app: the live hub, the store, the set-up, the match keeper and the
feed; what every route reads (routes/deps.panel_of)."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from ligretto_vision.config import Config
from ligretto_vision.live import Feed, LiveHub
from ligretto_vision.live.camera_feed import PipelineFeed
from ligretto_vision.panel import enrollment
from ligretto_vision.panel.keeper import MatchKeeper
from ligretto_vision.panel.pin import PinGuard
from ligretto_vision.panel.settings import TableSettings
from ligretto_vision.panel.store import Store

ZOOM_MARGIN_MM = 150.0  # a dispute replay shows this much table around the disputed cards


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
        if self.feed is not None and self.feed.round_no is None:
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
