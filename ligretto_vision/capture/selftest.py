"""A quick check that this install's numpy, OpenCV (and picamera2) work together.

    python -m ligretto_vision.capture.selftest [--camera]

Run by deploy/install.sh after installing and by `make test-oldest` (numpy 1.x with
OpenCV 4.11, as on Raspberry Pi OS bookworm). Takes about a second; exit 1 on any failure.
--camera also requires picamera2 to import (it does not open the camera).
"""
from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np


def _video_roundtrip(folder: Path) -> str:
    from ligretto_vision.capture import open_source

    path = folder / "check.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10.0, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    source = open_source(str(path))
    frames = list(source.frames())
    source.close()
    assert [f.index for f in frames] == list(range(5)), [f.index for f in frames]
    assert frames[-1].t == 0.4 and frames[-1].image.shape == (48, 64, 3)
    return "mp4v video written and read back"


def _sim() -> str:
    from ligretto_vision.capture.sim_source import SimSource

    frames = list(itertools.islice(SimSource(players=2, size=(320, 180)).frames(), 3))
    assert [f.index for f in frames] == [0, 1, 2] and frames[0].image.shape == (180, 320, 3)
    return "simulated table renders"


def _aruco() -> str:
    from ligretto_vision.hardware.markers import marker_bits

    cell = 20
    sheet = np.full((cell * 8, cell * 8 * 4), 255, np.uint8)
    for mid in range(4):
        bits = np.kron(marker_bits(mid), np.ones((cell, cell), bool))
        sheet[cell:cell * 7, cell * (8 * mid + 1):cell * (8 * mid + 7)][bits] = 0
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    _, ids, _ = detector.detectMarkers(sheet)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3], ids
    return "ArUco markers 0-3 drawn and detected"


def _geometry() -> str:
    from ligretto_vision.hardware import camera_spec, plan_mount

    plan = plan_mount(camera_spec("module3"), (1300, 760))
    assert 1100 < plan.height_mm < 1200, plan.height_mm
    return f"mount calculator ({plan.height_mm:.0f} mm for Camera Module 3)"


def _picamera2() -> str:
    from ligretto_vision.capture.picamera_source import import_picamera2, pi_cameras

    import_picamera2()  # raises CameraUnavailable with the fix in its message
    cams = pi_cameras()
    return f"picamera2 imports; cameras attached: {len(cams)}" + (f" ({cams[0].get('Model')})" if cams else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ligretto_vision.capture.selftest")
    ap.add_argument("--camera", action="store_true", help="also require picamera2 (Raspberry Pi OS)")
    args = ap.parse_args(argv)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, opencv {cv2.__version__}")
    checks = [_sim, _aruco, _geometry] + ([_picamera2] if args.camera else [])
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for check in [lambda: _video_roundtrip(Path(tmp))] + checks:
            try:
                print(f"ok    {check()}")
            except Exception as exc:  # report every check, then fail
                failed += 1
                print(f"FAIL  {getattr(check, '__name__', 'check').lstrip('_')}: {type(exc).__name__}: {exc}")
    print("self-test passed" if not failed else f"self-test: {failed} check(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
