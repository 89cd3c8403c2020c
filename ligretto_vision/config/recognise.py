"""`[vision.recognise]`: thresholds of reading numbers, colours and backs (ligretto_vision/recognise/)."""
from ligretto_vision.config.base import Strict


class RecogniseConfig(Strict):
    pass
