"""Card recognition, all of it: what a card found by detect/ is.

- patches:  cutting a card out upright at 1 px/mm
- reader:   its number (models/numbers.onnx), colour and back against the enrollment
- top_card: the top card of a pile, and reading it again
- backs:    the backs in the count's spread, card by card and whose
- fan:      the numerals along a player's fan of stack cards
- board_look: the board game's fields, card halves, printed borders (whose), token and joker white

Every threshold is a field of `config.recognise.RecogniseConfig`, handed in.
"""
from ligretto_vision.recognise.patches import Pose, card_patch
from ligretto_vision.recognise.reader import CardReader, Enrollment, NumberModel, Reading

__all__ = ["Pose", "card_patch", "CardReader", "Enrollment", "NumberModel", "Reading"]
