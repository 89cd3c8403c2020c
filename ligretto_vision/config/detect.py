"""`[vision.detect]`: thresholds of change, light, arms and card outlines (ligretto_vision/detect/)."""
from ligretto_vision.config.base import Strict


class DetectConfig(Strict):
    pass
