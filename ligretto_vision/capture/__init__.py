"""Frame sources: where images come from (Pi camera, USB camera, video file, scene folder, simulated table).

Every source yields `Frame`s; nothing downstream knows which source it is.
"""
from ligretto_vision.capture.frame import Frame, FrameSource, SourceLost

__all__ = ["Frame", "FrameSource", "SourceLost"]
