"""`open_source(spec)`: config [table].source strings to frame sources.

    auto          the Pi camera if picamera2 imports and a camera is attached, else USB
                  camera 0 if it opens and gives a frame, else the simulated table
    sim           the simulated table
    picamera[:N]  Pi camera N (default 0)
    usb:N         USB camera N (OpenCV)
    rtsp://...    a stream URL (any scheme OpenCV's FFmpeg reads)
    PATH          a scene folder (has scene.json) or a video file

Live sources (Pi camera, USB, URL) come wrapped in ResilientSource, so an unplugged
or stalled camera is reported through `on_status` and reconnected; files and scenes
are not wrapped, their end is the normal end.
"""
from __future__ import annotations

import glob
import sys
from functools import partial
from pathlib import Path

import cv2

from ligretto_vision.capture.frame import FrameSource
from ligretto_vision.capture.resilient import ResilientSource, StatusCallback
from ligretto_vision.errors import LigrettoError

FORMS = "'auto', 'sim', 'picamera', 'picamera:N', 'usb:N', a stream URL, a video file or a scene folder"


def open_source(spec: str, *, players: int = 4, seed: int = 0, edition: str = "classic",
                fps: float = 30.0, size: tuple[int, int] = (1280, 720), realtime: bool = True,
                on_status: StatusCallback | None = None, resilient: bool = True,
                stall_s: float = 5.0) -> FrameSource:
    """Open what `spec` names. Bad specs raise LigrettoError naming the spec and the accepted forms."""
    spec = spec.strip()
    live = partial(_live, on_status=on_status, resilient=resilient, stall_s=stall_s)
    if spec == "auto":
        choice, why = choose_auto()
        if on_status:
            on_status({"source": choice, "state": "chosen", "why": why})
        spec = choice
    if spec == "sim":
        from ligretto_vision.capture.sim_source import SimSource  # noqa: PLC0415

        return SimSource(players=players, seed=seed, edition=edition, fps=fps, size=size, realtime=realtime)
    if spec == "picamera" or spec.startswith("picamera:"):
        from ligretto_vision.capture.picamera_source import PiCameraSource  # noqa: PLC0415

        num = _number(spec, "picamera") if ":" in spec else 0
        return live(lambda: PiCameraSource(num, size=size, fps=fps), name=f"picamera:{num}")
    if spec.startswith("usb:"):
        from ligretto_vision.capture.video_source import VideoCaptureSource  # noqa: PLC0415

        num = _number(spec, "usb")
        return live(lambda: VideoCaptureSource(num, fps=fps, size=size), name=spec)
    if "://" in spec:
        from ligretto_vision.capture.video_source import VideoCaptureSource  # noqa: PLC0415

        return live(lambda: VideoCaptureSource(spec), name=spec)
    path = Path(spec).expanduser()
    if path.is_dir():
        from ligretto_vision.capture.scene_source import SceneSource  # noqa: PLC0415

        return SceneSource(path)
    if path.is_file():
        from ligretto_vision.capture.video_source import VideoCaptureSource  # noqa: PLC0415

        return VideoCaptureSource(path)
    raise LigrettoError(f"[table].source {spec!r}: no such file or folder, and not one of {FORMS}")


def open_from_config(table_config, **kw) -> FrameSource:
    """open_source for a config's [table] section (ligretto_vision.config.TableConfig)."""
    return open_source(table_config.source, players=table_config.players, seed=table_config.seed,
                       edition=table_config.edition, **kw)


def choose_auto() -> tuple[str, str]:
    """What "auto" means on this machine, and why: ("picamera"|"usb:0"|"sim", reason)."""
    from ligretto_vision.capture.picamera_source import pi_cameras  # noqa: PLC0415

    cams = pi_cameras()
    if cams:
        return "picamera", f"Pi camera found: {cams[0].get('Model', '?')}"
    if usb_camera_works(0):
        return "usb:0", "no Pi camera; USB camera 0 gives frames"
    return "sim", "no Pi camera and no USB camera: using the simulated table"


def usb_camera_works(index: int) -> bool:
    # on Linux no /dev/video* means no camera: skip OpenCV's probe and its warnings
    if sys.platform.startswith("linux") and not glob.glob("/dev/video*"):
        return False
    cap = cv2.VideoCapture(index)
    try:
        return bool(cap.isOpened() and cap.read()[0])
    finally:
        cap.release()


def _live(open_fn, *, name: str, on_status, resilient: bool, stall_s: float) -> FrameSource:
    if not resilient:
        return open_fn()
    return ResilientSource(open_fn, name=name, on_status=on_status, stall_s=stall_s)


def _number(spec: str, kind: str) -> int:
    text = spec.split(":", 1)[1]
    if not text.isdigit():
        raise LigrettoError(f"[table].source {spec!r}: {kind}: needs a camera number, e.g. '{kind}:0'")
    return int(text)
