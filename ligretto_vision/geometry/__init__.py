"""Table geometry: where the table is in the image (calibration), what a seat is (seats) and who sits
where (zones)."""
from ligretto_vision.geometry.calibration import (Calibration, CalibrationError, MarkerLayout, calibrate,
                                                  check_still, detect_markers)

__all__ = ["Calibration", "CalibrationError", "MarkerLayout", "calibrate", "check_still", "detect_markers"]
