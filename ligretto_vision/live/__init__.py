"""What runs at a live table and what the panel reads from it.

- hub:         LiveHub, where a feed publishes events, pictures and status, and the panel reads
- sim_feed:    SimFeed, the simulated table played in real time
- camera_feed: PipelineFeed, the real referee on a camera, a video or a scene folder (open_pipeline_feed)
- board_feed:  BoardFeed, the board game's referee on a board scene; the board page reads its status
- overlay:     the camera picture with what the referee sees drawn on it (from its TableView)
- schematic:   the simulated table's top view; JPEG encoding
- clips:       dispute clips, the frames around every dispute
- pacing:      the feeds' clock
"""
from ligretto_vision.live.hub import Feed, LiveHub

__all__ = ["Feed", "LiveHub"]
