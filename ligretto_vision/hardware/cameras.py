"""Figures of the cameras worth buying, from Raspberry Pi's published specifications.

Field of view is what each module's data sheet states (HFOV x VFOV, degrees); for the HQ
camera it follows from the sensor's image area (6.287 x 4.712 mm) and the lens's focal
length (pinhole model, no distortion). Sensor modes are the ones libcamera offers;
`full_view` says whether a mode sees the whole sensor area (a cropped mode narrows the
field of view, so it is never the one to use over a table).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ligretto_vision.errors import LigrettoError


@dataclass(frozen=True)
class SensorMode:
    size: tuple[int, int]
    max_fps: float
    full_view: bool


@dataclass(frozen=True)
class CameraSpec:
    key: str
    title: str
    sensor: str
    hfov_deg: float
    vfov_deg: float
    modes: tuple[SensorMode, ...]
    main_sizes: tuple[tuple[int, int], ...]  # main stream sizes to choose from (sensor aspect)
    note: str = ""


IMX708_MODES = (SensorMode((1536, 864), 120.06, False),  # 2x2 binned centre crop
                SensorMode((2304, 1296), 56.03, True),  # 2x2 binned, whole sensor
                SensorMode((4608, 2592), 14.35, True))
IMX477_MODES = (SensorMode((1332, 990), 120.05, False),
                SensorMode((2028, 1080), 50.03, False),  # binned, top and bottom cut off
                SensorMode((2028, 1520), 40.01, True),
                SensorMode((4056, 3040), 10.00, True))
IMX219_MODES = (SensorMode((640, 480), 206.65, False),
                SensorMode((1640, 1232), 41.85, True),
                SensorMode((1920, 1080), 47.57, False),
                SensorMode((3280, 2464), 21.19, True))
WIDE_16_9 = ((1280, 720), (1536, 864), (1920, 1080), (2304, 1296))
WIDE_4_3 = ((960, 720), (1280, 960), (1440, 1080), (2028, 1520))
HQ_SENSOR_MM = (6.287, 4.712)


def _lens_fov(focal_mm: float) -> tuple[float, float]:
    return tuple(round(math.degrees(2 * math.atan(s / (2 * focal_mm))), 1) for s in HQ_SENSOR_MM)


CAMERAS: dict[str, CameraSpec] = {c.key: c for c in (
    CameraSpec("module3", "Raspberry Pi Camera Module 3 (standard lens, autofocus)", "Sony IMX708",
               66.0, 41.0, IMX708_MODES, WIDE_16_9),
    CameraSpec("module3-wide", "Raspberry Pi Camera Module 3 Wide (autofocus)", "Sony IMX708",
               102.0, 67.0, IMX708_MODES, WIDE_16_9,
               "wide lens: strong barrel distortion, so px/mm falls towards the image edges; "
               "the table calibration corrects the mapping, but cards at the edge are smaller than the centre figure"),
    CameraSpec("hq-6mm", "Raspberry Pi HQ Camera with the 6 mm CS-mount wide-angle lens", "Sony IMX477",
               *_lens_fov(6.0), IMX477_MODES, WIDE_4_3,
               "focus and aperture are set by hand on the lens: focus on the table at the final height and lock the screws"),
    CameraSpec("hq-16mm", "Raspberry Pi HQ Camera with the 16 mm C-mount telephoto lens", "Sony IMX477",
               *_lens_fov(16.0), IMX477_MODES, WIDE_4_3,
               "telephoto: needs a ceiling mount; pick the 6 mm lens for a table"),
    CameraSpec("module2", "Raspberry Pi Camera Module 2 (fixed focus)", "Sony IMX219",
               62.2, 48.8, IMX219_MODES, WIDE_4_3,
               "older module; fixed focus from about 1 m, so mount it at least that high"),
)}


def camera_spec(key: str) -> CameraSpec:
    try:
        return CAMERAS[key]
    except KeyError:
        raise LigrettoError(f"unknown camera {key!r}: one of {', '.join(CAMERAS)}") from None
