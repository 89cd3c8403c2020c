"""`[vision]`: one section per stage, each handed to the stage that uses it, so one stage can be
swept on the proving ground (or adjusted for one table) without touching the others."""
from ligretto_vision.config.base import Strict
from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.config.referee import RefereeConfig


class VisionConfig(Strict):
    detect: DetectConfig = DetectConfig()
    recognise: RecogniseConfig = RecogniseConfig()
    referee: RefereeConfig = RefereeConfig()
