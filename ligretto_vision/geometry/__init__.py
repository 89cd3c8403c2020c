"""Table geometry: where the table is in the image (calibration), what a seat is (seats) and who sits
where (zones); the board game's board seen from above, field by field (board_grid)."""
from ligretto_vision.geometry.calibration import (Calibration, CalibrationError, MarkerLayout, calibrate,
                                                  check_still, detect_markers)

__all__ = ["Calibration", "CalibrationError", "MarkerLayout", "calibrate", "check_still", "detect_markers"]
