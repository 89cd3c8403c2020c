"""The names detect/ had here before it was split by concern, for the modules that still import
them from here: outlines (`outlines.py`), the cloth (`cloth.py`), light (`light.py`) and what
changed at one place (`changes.py`). New code imports from those modules."""
from ligretto_vision.detect.changes import change_mask
from ligretto_vision.detect.cloth import cloth_field, not_cloth
from ligretto_vision.detect.light import light_level
from ligretto_vision.detect.outlines import Found, cover, find_cards, guess_from_mask, refine

__all__ = ["Found", "change_mask", "cloth_field", "cover", "find_cards", "guess_from_mask", "light_level",
           "not_cloth", "refine"]
