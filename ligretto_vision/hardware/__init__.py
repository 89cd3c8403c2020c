"""Hardware for a real table: camera figures, mounting geometry, the printable marker sheet.

(Table calibration from camera images is ligretto_vision/geometry/, not here.)
"""
from ligretto_vision.hardware.cameras import CAMERAS, CameraSpec, SensorMode, camera_spec
from ligretto_vision.hardware.mounting import MountPlan, plan_mount

__all__ = ["CAMERAS", "CameraSpec", "MountPlan", "SensorMode", "camera_spec", "plan_mount"]
