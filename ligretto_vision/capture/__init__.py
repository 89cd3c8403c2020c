"""Frame sources: where images come from (Pi camera, USB camera, video file, scene folder, simulated table).

Every source yields `Frame`s; nothing downstream knows which source it is.
`open_source(spec)` turns a config [table].source string into one; the concrete
sources live in their own modules and are imported only when used (picamera2 exists
only on a Pi).
"""
from ligretto_vision.capture.factory import choose_auto, open_from_config, open_source
from ligretto_vision.capture.frame import Frame, FrameSource, SourceLost
from ligretto_vision.capture.resilient import Backoff, ResilientSource

__all__ = ["Backoff", "Frame", "FrameSource", "ResilientSource", "SourceLost", "choose_auto",
           "open_from_config", "open_source"]
