"""How high to hang the camera over a table, and what it then sees.

Model: the camera looks straight down at the table's centre, the image's long side along
the table's long side; a pinhole with the data-sheet field of view. The height is the
lowest at which the table plus a margin on every side (hands reaching in, markers wholly
inside) fits both ways:

    height = max((W + 2m) / (2 tan(HFOV/2)), (H + 2m) / (2 tan(VFOV/2)))

and at that height the view is 2 h tan(FOV/2) each way, so px/mm = main-stream pixels /
view millimetres (the ISP scales the whole sensor mode to the main stream).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ligretto_vision.errors import LigrettoError
from ligretto_vision.hardware.cameras import CameraSpec, SensorMode

CARD_MM = (59.0, 91.0)
# the sample scenes show a 1300 x 760 mm table at 1280 x 720 px, about 0.9 px/mm;
# the recogniser is measured at that scale, so aim for at least as much
TARGET_PX_PER_MM = 0.9
HIGH_MOUNT_MM = 2000.0


@dataclass
class MountPlan:
    camera: CameraSpec
    table_mm: tuple[float, float]
    margin_mm: float
    turned: bool  # the table was given portrait: the camera is turned 90° to it
    height_mm: float  # lens above the table top
    view_mm: tuple[float, float]  # what the image covers on the table (long, short side)
    sensor_mode: SensorMode
    main_size: tuple[int, int]
    px_per_mm: tuple[float, float]  # along the image's x and y
    card_px: tuple[float, float]  # an upright card (59 x 91 mm) in main-stream pixels
    fps: float
    warnings: list[str] = field(default_factory=list)


def plan_mount(camera: CameraSpec, table_mm: tuple[float, float], *, margin_mm: float = 50.0,
               fps: float = 30.0, main_size: tuple[int, int] | None = None,
               target_px_per_mm: float = TARGET_PX_PER_MM, card_mm: tuple[float, float] = CARD_MM) -> MountPlan:
    w, h = table_mm
    if w <= 0 or h <= 0 or margin_mm < 0:
        raise LigrettoError(f"table {w:g}x{h:g} mm with margin {margin_mm:g} mm: sizes must be positive")
    turned = h > w
    long_mm, short_mm = max(w, h) + 2 * margin_mm, min(w, h) + 2 * margin_mm
    th, tv = math.tan(math.radians(camera.hfov_deg / 2)), math.tan(math.radians(camera.vfov_deg / 2))
    height = max(long_mm / (2 * th), short_mm / (2 * tv))
    view = (2 * height * th, 2 * height * tv)
    mode = _sensor_mode(camera, fps)
    warnings = []
    if main_size is None:
        main_size = _main_size(camera, mode, view, target_px_per_mm)
    ppmm = (main_size[0] / view[0], main_size[1] / view[1])
    if min(ppmm) < target_px_per_mm:
        warnings.append(f"{min(ppmm):.2f} px/mm is below the {target_px_per_mm} px/mm the recogniser is measured at: "
                        f"cards will be small; use a narrower lens or a smaller table area")
    if mode.max_fps < fps:
        warnings.append(f"no full-view sensor mode reaches {fps:g} fps; this one gives {mode.max_fps:g}")
    if height > HIGH_MOUNT_MM:
        warnings.append(f"{height / 1000:.2f} m above the table needs a ceiling mount")
    if camera.note:
        warnings.append(camera.note)
    return MountPlan(camera, (w, h), margin_mm, turned, height, view, mode, main_size, ppmm,
                     (card_mm[0] * ppmm[0], card_mm[1] * ppmm[1]), fps, warnings)


def _sensor_mode(camera: CameraSpec, fps: float) -> SensorMode:
    """The smallest full-view mode that keeps up with fps (else the fastest full-view one)."""
    full = [m for m in camera.modes if m.full_view]
    fast = [m for m in full if m.max_fps >= fps]
    return min(fast, key=lambda m: m.size[0] * m.size[1]) if fast else max(full, key=lambda m: m.max_fps)


def _main_size(camera: CameraSpec, mode: SensorMode, view: tuple[float, float], target: float) -> tuple[int, int]:
    """The smallest main stream (no larger than the sensor mode) that reaches the target px/mm."""
    sizes = [s for s in camera.main_sizes if s[0] <= mode.size[0] and s[1] <= mode.size[1]] or [camera.main_sizes[0]]
    for s in sizes:
        if s[0] / view[0] >= target and s[1] / view[1] >= target:
            return s
    return sizes[-1]


def parse_size(text: str, what: str) -> tuple[float, float]:
    """'1300x760' -> (1300.0, 760.0); bad input names the option and the form wanted."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        a, b = (float(p) for p in parts)
    except ValueError:
        raise LigrettoError(f"{what} {text!r}: write it as WIDTHxHEIGHT, e.g. 1300x760") from None
    if a <= 0 or b <= 0:
        raise LigrettoError(f"{what} {text!r}: both sides must be positive")
    return a, b


def describe(plan: MountPlan) -> str:
    """The plan as the `geometry` command prints it."""
    c, p = plan.camera, plan
    lines = [
        f"camera        {c.title} ({c.sensor})",
        f"table         {p.table_mm[0]:g} x {p.table_mm[1]:g} mm, margin {p.margin_mm:g} mm each side"
        + (" (portrait: turn the camera 90°)" if p.turned else ""),
        f"mount height  {p.height_mm:.0f} mm from the table top to the lens, centred, looking straight down",
        f"field of view {c.hfov_deg:g}° x {c.vfov_deg:g}° -> covers {p.view_mm[0]:.0f} x {p.view_mm[1]:.0f} mm of table",
        f"sensor mode   {p.sensor_mode.size[0]}x{p.sensor_mode.size[1]} (whole sensor, up to {p.sensor_mode.max_fps:g} fps), "
        f"run at {p.fps:g} fps",
        f"main stream   {p.main_size[0]}x{p.main_size[1]}",
        f"pixels/mm     {p.px_per_mm[0]:.3f} across, {p.px_per_mm[1]:.3f} down",
        f"a card        {CARD_MM[0]:g} x {CARD_MM[1]:g} mm -> {p.card_px[0]:.0f} x {p.card_px[1]:.0f} px",
    ]
    lines += [f"note          {w}" for w in p.warnings]
    return "\n".join(lines)
