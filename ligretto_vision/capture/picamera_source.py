"""The Raspberry Pi camera through picamera2, used the way its own examples do.

- One stream, `main` (BGR for OpenCV: picamera2's "RGB888" is stored B,G,R per pixel). No
  `lores` stream: change detection makes its own colour top view of the table from `main`
  (detect/activity.py), which a grey camera-shaped lores picture could not replace.
- One copy of the main image out of the camera buffer and no colour conversion; the
  buffer goes back to the camera at once.
- Frame.t is the request's SensorTimestamp (ns, end of exposure, the kernel's
  monotonic clock) in seconds.
- A full-field-of-view sensor mode by default: left alone, libcamera may pick a
  cropped high-fps mode (the Camera Module 3's 1536x864 is a centre crop).
- picamera2 is imported only here and only when a Pi camera is asked for; on Raspberry
  Pi OS it comes from apt, never pip.
"""
from __future__ import annotations

import concurrent.futures
from typing import Any, Iterator

from ligretto_vision.capture.frame import Frame, SourceLost
from ligretto_vision.errors import LigrettoError

APT_HINT = ("on Raspberry Pi OS install it with `sudo apt install python3-picamera2` and make the venv "
            "with `python3 -m venv --system-site-packages` so it can see it (deploy/install.sh does both)")


class CameraUnavailable(LigrettoError):
    """The Pi camera was asked for but cannot be used here (no picamera2, or no camera)."""


def import_picamera2() -> Any:
    """The picamera2 module, or CameraUnavailable naming the apt package and the venv flag."""
    try:
        import picamera2  # noqa: PLC0415  (deliberately lazy: absent everywhere but a Pi)
    except ImportError as exc:
        why = str(exc)
        if "numpy" in why or "multiarray" in why:  # apt's picamera2 against a pip numpy 2
            raise CameraUnavailable(
                f"picamera2 is installed but fails to import ({why}): pip replaced apt's numpy; reinstall with "
                f"deploy/constraints-bookworm.txt (numpy<2); python3-picamera2 comes from apt and the venv needs "
                f"--system-site-packages") from None
        raise CameraUnavailable(f"the Pi camera needs picamera2, which is not importable here ({why}): {APT_HINT}") from None
    return picamera2


def pi_cameras() -> list[dict]:
    """The attached Pi cameras (picamera2's global_camera_info); [] if picamera2 is absent."""
    try:
        picamera2 = import_picamera2()
        return list(picamera2.Picamera2.global_camera_info())
    except Exception:
        return []


def pick_sensor_mode(modes: list[dict], main_size: tuple[int, int], fps: float) -> dict | None:
    """The smallest sensor mode that sees the whole field of view, fills main_size and keeps up with fps.

    `modes` are picamera2's `sensor_modes` dicts (size, fps, crop_limits=(x, y, w, h)).
    Falls back to the fastest full-view mode, then to None (let libcamera choose).
    """
    if not modes:
        return None
    full_area = max(m["crop_limits"][2] * m["crop_limits"][3] for m in modes)
    full = [m for m in modes if m["crop_limits"][2] * m["crop_limits"][3] >= full_area * 0.99]
    fitting = [m for m in full if m["fps"] >= fps and m["size"][0] >= main_size[0] and m["size"][1] >= main_size[1]]
    if fitting:
        return min(fitting, key=lambda m: m["size"][0] * m["size"][1])
    return max(full, key=lambda m: m["fps"]) if full else None


class PiCameraSource:
    def __init__(self, camera_num: int = 0, *, size: tuple[int, int] = (1280, 720),
                 fps: float = 30.0, full_view: bool = True,
                 timeout_s: float = 5.0):
        picamera2 = import_picamera2()
        if not pi_cameras()[camera_num:camera_num + 1]:
            raise CameraUnavailable(f"no Pi camera {camera_num} found (is the ribbon cable in, the right way round? "
                                    f"`rpicam-hello --list-cameras` lists what the system sees)")
        self.name = f"picamera:{camera_num}"
        self.fps, self.size = float(fps), (int(size[0]), int(size[1]))
        self.timeout_s = timeout_s
        self._cam = picamera2.Picamera2(camera_num)
        try:
            frame_us = int(round(1_000_000 / self.fps))
            extra = {}
            mode = pick_sensor_mode(self._cam.sensor_modes, self.size, self.fps) if full_view else None
            if mode is not None:
                extra["raw"] = {"size": tuple(mode["size"])}
            self.sensor_mode = mode and {"size": tuple(mode["size"]), "fps": mode["fps"]}
            config = self._cam.create_video_configuration(
                main={"size": self.size, "format": "RGB888"},
                controls={"FrameDurationLimits": (frame_us, frame_us)}, **extra)
            self._cam.align_configuration(config)  # strides without padding: no second copy
            self._cam.configure(config)
            self.size = tuple(config["main"]["size"])
            self._cam.start()
            if "AfMode" in self._cam.camera_controls:  # Camera Module 3: focus once on the table, then hold
                self._cam.autofocus_cycle()
        except Exception:
            self._cam.close()
            raise

    def frames(self) -> Iterator[Frame]:
        index = 0
        while True:
            job = self._cam.capture_request(wait=False)
            try:
                request = job.get_result(timeout=self.timeout_s)
            except concurrent.futures.TimeoutError:
                raise SourceLost(f"{self.name}: no frame for {self.timeout_s:g} s") from None
            except Exception as exc:
                raise SourceLost(f"{self.name}: {type(exc).__name__}: {exc}") from None
            try:
                t_ns = request.get_metadata().get("SensorTimestamp")
                # make_array copies once out of the camera buffer (a second copy only if rows
                # were padded, which align_configuration avoids)
                image = request.make_array("main")
            finally:
                request.release()
            if t_ns is None:
                raise SourceLost(f"{self.name}: frame without SensorTimestamp")
            yield Frame(index=index, t=t_ns / 1e9, image=image)
            index += 1

    def close(self) -> None:
        try:
            self._cam.stop()
        finally:
            self._cam.close()

