"""`[vision.referee]`: thresholds of the referee's decisions (ligretto_vision/referee/)."""
from ligretto_vision.config.base import Strict


class RefereeConfig(Strict):
    pass
