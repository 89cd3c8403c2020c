"""Card recognition: cutting cards out upright (patches) and reading them (reader)."""
from ligretto_vision.recognise.patches import Pose, card_patch
from ligretto_vision.recognise.reader import CardReader, Enrollment, NumberModel, Reading

__all__ = ["Pose", "card_patch", "CardReader", "Enrollment", "NumberModel", "Reading"]
