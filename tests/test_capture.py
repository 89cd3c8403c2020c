"""Frame sources: every kind on this machine, the Pi camera through a stand-in, and reconnecting."""
from __future__ import annotations

import itertools
import json
import os
import shutil
import sys
import threading
import types
from pathlib import Path

import cv2
import numpy as np
import pytest

from ligretto_vision.capture import Backoff, Frame, ResilientSource, SourceLost, open_source
from ligretto_vision.capture.frame import frame_number
from ligretto_vision.capture.lossy import LONGEST_BURST, losing_frames
from ligretto_vision.capture import factory
from ligretto_vision.capture.picamera_source import CameraUnavailable, PiCameraSource, pick_sensor_mode
from ligretto_vision.capture.scene_source import SceneSource
from ligretto_vision.capture.sim_source import SimSource
from ligretto_vision.errors import LigrettoError

# as conftest.py finds them, repeated so `make test-oldest` can run these tests with --noconftest
SHARED = Path(os.environ.get("LIGRETTO_SHARED", Path(__file__).resolve().parents[2] / "shared"))
SAMPLE = SHARED / "scenes" / "s03-count-2p"


def write_video(path, n=12, fps=10.0, size=(64, 48)):
    """A small mp4v video whose frame i is grey level 20*i, so order can be checked after decoding."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    assert writer.isOpened()
    for i in range(n):
        writer.write(np.full((size[1], size[0], 3), 20 * i, np.uint8))
    writer.release()
    return path


# ---- video file, scene folder, simulated table ----------------------------------------------------

def test_video_file_frames_are_numbered_and_timed_by_the_file(tmp_path):
    source = open_source(str(write_video(tmp_path / "v.mp4")))
    assert (source.fps, source.size, source.frame_count) == (10.0, (64, 48), 12)
    frames = list(source.frames())
    source.close()
    assert [f.index for f in frames] == list(range(12))
    assert [f.t for f in frames] == pytest.approx([i / 10 for i in range(12)])
    levels = [float(f.image.mean()) for f in frames]
    assert levels == pytest.approx([20 * i for i in range(12)], abs=6)  # mp4v is lossy, order is not
    assert all(f.image.dtype == np.uint8 and f.image.shape == (48, 64, 3) for f in frames)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(LigrettoError, match="no such file or folder.*'usb:N'"):
        open_source(str(tmp_path / "nope.mp4"))


def test_a_file_opencv_cannot_read_is_named(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video")
    with pytest.raises(LigrettoError, match="bad.mp4: OpenCV cannot open"):
        open_source(str(bad))


def test_sample_scene_frames_equal_the_video_frame_numbers():
    if not (SAMPLE / "scene.json").exists():
        pytest.skip(f"sample scene {SAMPLE} not present (set LIGRETTO_SHARED to the shared/ folder)")
    source = open_source(str(SAMPLE))
    assert isinstance(source, SceneSource)
    assert (source.fps, source.size, source.frame_count) == (30.0, (1280, 720), 943)
    frames = list(itertools.islice(source.frames(), 6))
    source.close()
    direct = cv2.VideoCapture(str(SAMPLE / "video.mp4"))
    for f in frames:
        ok, image = direct.read()
        assert ok and np.array_equal(image, f.image)  # frame n of the source is frame n of the video
    direct.release()
    assert [f.index for f in frames] == list(range(6))
    assert [f.t for f in frames] == pytest.approx([i / 30 for i in range(6)])


def _scene_folder(tmp_path, size=(64, 48), fps=10):
    folder = tmp_path / "scene"
    folder.mkdir()
    write_video(folder / "video.mp4", n=5, fps=fps)
    scene = {"format": "ligretto-scene/1", "video": "video.mp4", "fps": fps, "size": list(size),
             "colours": ["red", "green", "blue", "yellow"], "card_mm": [59, 91], "table_mm": [1300, 760],
             "markers": {"dict": "DICT_4X4_50", "size_mm": 60, "centres_mm": {"0": [52, 52]}},
             "players": [{"id": "P1", "seat": "south"}, {"id": "P2", "seat": "north"}]}
    (folder / "scene.json").write_text(json.dumps(scene))
    return folder


def test_scene_folder_times_are_index_over_scene_fps(tmp_path):
    folder = _scene_folder(tmp_path, fps=10)
    frames = list(open_source(str(folder)).frames())
    assert [(f.index, f.t) for f in frames] == [(i, pytest.approx(i / 10)) for i in range(5)]


def test_scene_whose_video_size_disagrees_is_refused(tmp_path):
    folder = _scene_folder(tmp_path, size=(1280, 720))
    with pytest.raises(LigrettoError, match="video is 64x48 but scene.json says size 1280x720"):
        open_source(str(folder))


def test_scene_folder_without_its_video_is_refused(tmp_path):
    folder = _scene_folder(tmp_path)
    (folder / "video.mp4").unlink()
    with pytest.raises(LigrettoError, match="names video 'video.mp4', which is not in the folder"):
        open_source(str(folder))


def test_sim_source_renders_the_simulated_table_frame_by_frame():
    source = open_source("sim", players=2, seed=3, size=(320, 180), realtime=False)
    frames = list(itertools.islice(source.frames(), 40))
    assert [f.index for f in frames] == list(range(40))
    assert frames[39].t == pytest.approx(39 / 30)
    assert frames[0].image.shape == (180, 320, 3) and frames[0].image.dtype == np.uint8


def test_sim_source_takes_another_renderer():
    seen = []

    def renderer(state, table_mm, size):
        seen.append((state.frame, table_mm))
        return np.zeros((size[1], size[0], 3), np.uint8)

    frames = list(itertools.islice(SimSource(players=3, size=(32, 16), renderer=renderer).frames(), 3))
    assert len(seen) == 3 and seen[0][1] == (1300.0, 760.0) and frames[2].image.shape == (16, 32, 3)


def test_sim_round_ends_and_the_source_stops():
    source = SimSource(players=2, seed=1, size=(32, 16), tail_s=0.1)
    last = None
    for last in source.frames():
        pass
    assert source.table.over and last.index == source.table.frame - 1


# ---- the factory ----------------------------------------------------------------------------------

def test_auto_picks_picamera_then_usb_then_sim(monkeypatch):
    monkeypatch.setattr("ligretto_vision.capture.picamera_source.pi_cameras", lambda: [{"Model": "imx708"}])
    assert factory.choose_auto()[0] == "picamera"
    monkeypatch.setattr("ligretto_vision.capture.picamera_source.pi_cameras", lambda: [])
    monkeypatch.setattr(factory, "usb_camera_works", lambda i: True)
    assert factory.choose_auto()[0] == "usb:0"
    monkeypatch.setattr(factory, "usb_camera_works", lambda i: False)
    assert factory.choose_auto() == ("sim", "no Pi camera and no USB camera: using the simulated table")


def test_auto_on_this_machine_reports_its_choice():
    status = []
    source = open_source("auto", on_status=status.append, realtime=False)
    try:
        assert status[0]["state"] == "chosen" and status[0]["source"] == source.name
        if source.name != "sim":
            pytest.skip(f"this machine has a camera ({status[0]['why']})")
        print(f"auto chose the simulated table: {status[0]['why']}")
    finally:
        source.close()


@pytest.mark.parametrize("spec", ["usb:x", "picamera:one"])
def test_bad_camera_numbers_are_named(spec):
    with pytest.raises(LigrettoError, match="needs a camera number"):
        open_source(spec)


def test_a_usb_camera_that_is_not_there_fails_at_start():
    if factory.usb_camera_works(7):
        pytest.skip("this machine has a USB camera 7")
    with pytest.raises(LigrettoError, match="cannot open camera or stream 'usb:7'"):
        open_source("usb:7")


# ---- the Pi camera --------------------------------------------------------------------------------

def test_without_picamera2_asking_for_the_pi_camera_names_the_apt_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails as where it is not installed
    with pytest.raises(CameraUnavailable) as info:
        open_source("picamera")
    message = str(info.value)
    assert "python3-picamera2" in message and "--system-site-packages" in message


def test_picamera2_broken_by_numpy_2_says_so(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *a, **kw):
        if name == "picamera2":
            raise ImportError("numpy.core.multiarray failed to import")
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(CameraUnavailable, match="numpy<2"):
        PiCameraSource()


IMX708_MODES = [  # as picamera2 lists them for a Camera Module 3
    {"size": (1536, 864), "fps": 120.13, "crop_limits": (768, 432, 3072, 1728)},
    {"size": (2304, 1296), "fps": 56.03, "crop_limits": (0, 0, 4608, 2592)},
    {"size": (4608, 2592), "fps": 14.35, "crop_limits": (0, 0, 4608, 2592)},
]


def test_sensor_mode_keeps_the_whole_field_of_view():
    assert pick_sensor_mode(IMX708_MODES, (1280, 720), 30)["size"] == (2304, 1296)
    assert pick_sensor_mode(IMX708_MODES, (1280, 720), 100)["size"] == (2304, 1296)  # never the crop
    assert pick_sensor_mode(IMX708_MODES, (3000, 2000), 10)["size"] == (4608, 2592)
    assert pick_sensor_mode([], (1280, 720), 30) is None


class FakeRequest:
    def __init__(self, cam, n):
        self.cam, self.n = cam, n

    def get_metadata(self):
        return {"SensorTimestamp": 1_000_000_000_000 + self.n * 33_333_333}

    def make_array(self, name):
        w, h = self.cam.config[name]["size"]
        return np.full((h, w, 3), self.n, np.uint8)

    def release(self):
        self.cam.released += 1


class FakeJob:
    def __init__(self, result):
        self.result = result

    def get_result(self, timeout=None):
        if self.result is None:
            import concurrent.futures

            raise concurrent.futures.TimeoutError()
        return self.result


def fake_picamera2(frames_before_stall=3):
    class Picamera2:
        instances = []
        camera_controls = {"AfMode": (0, 2, 0)}

        @staticmethod
        def global_camera_info():
            return [{"Model": "imx708_wide", "Id": "/base/i2c@88000/imx708@1a"}]

        def __init__(self, num=0):
            self.num, self.released, self.n, self.focused, self.closed = num, 0, 0, False, False
            self.sensor_modes = IMX708_MODES
            Picamera2.instances.append(self)

        def create_video_configuration(self, main, controls, raw=None):
            return {"main": dict(main), "controls": controls, "raw": raw}

        def align_configuration(self, config):
            pass

        def configure(self, config):
            self.config = config

        def start(self):
            pass

        def autofocus_cycle(self):
            self.focused = True

        def capture_request(self, wait=None):
            assert wait is False  # asynchronous, so a stall can time out
            self.n += 1
            return FakeJob(FakeRequest(self, self.n) if self.n <= frames_before_stall else None)

        def stop(self):
            pass

        def close(self):
            self.closed = True

    return types.SimpleNamespace(Picamera2=Picamera2)


def test_pi_camera_frames_carry_sensor_time_and_main(monkeypatch):
    module = fake_picamera2(frames_before_stall=3)
    monkeypatch.setitem(sys.modules, "picamera2", module)
    source = PiCameraSource(0, size=(640, 360), fps=30, timeout_s=0.1)
    cam = module.Picamera2.instances[0]
    assert cam.config["raw"] == {"size": (2304, 1296)}  # whole sensor, not the 1536x864 crop
    assert cam.config["main"]["format"] == "RGB888"  # B,G,R in memory: OpenCV's order, no conversion
    assert set(cam.config) == {"main", "controls", "raw"}  # no lores stream: nothing reads one
    assert cam.config["controls"]["FrameDurationLimits"] == (33333, 33333) and cam.focused
    frames = []
    with pytest.raises(SourceLost, match="no frame for 0.1 s"):
        for f in source.frames():
            frames.append(f)
    assert [f.index for f in frames] == [0, 1, 2] and cam.released == 3
    assert frames[1].t == pytest.approx(1000 + 2 * 0.033333333)  # SensorTimestamp ns -> s
    assert frames[0].image.shape == (360, 640, 3)
    source.close()
    assert cam.closed


def test_no_pi_camera_attached_is_named(monkeypatch):
    module = fake_picamera2()
    module.Picamera2.global_camera_info = staticmethod(lambda: [])
    monkeypatch.setitem(sys.modules, "picamera2", module)
    with pytest.raises(CameraUnavailable, match="no Pi camera 0 found"):
        PiCameraSource(0)


def test_picamera_spec_goes_through_the_resilient_wrapper(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2(frames_before_stall=2))
    status = []
    source = open_source("picamera", size=(320, 180), on_status=status.append)
    assert isinstance(source, ResilientSource) and source.name == "picamera:0"
    assert status[-1]["state"] == "ok"
    first = next(iter(source.frames()))
    assert first.image.shape == (180, 320, 3)
    source.close()


# ---- unplugging and stalling ----------------------------------------------------------------------

class FlakyCamera:
    """A camera that fails on purpose: delivers `n` frames, then is 'unplugged' (or hangs)."""

    def __init__(self, n, t0=100.0, how="unplug"):
        self.n, self.t0, self.how = n, t0, how
        self.fps, self.size, self.name, self.closed = 10.0, (8, 6), "flaky", False
        self.hang = threading.Event()

    def frames(self):
        for i in range(self.n):
            yield Frame(index=i, t=self.t0 + i / 10, image=np.zeros((6, 8, 3), np.uint8))
        if self.how == "unplug":
            raise SourceLost("flaky: device disappeared")
        if self.how == "error":
            raise OSError("read failed")
        if self.how == "hang":
            self.hang.wait(5)  # says nothing: only the watchdog notices

    def close(self):
        self.closed = True
        self.hang.set()


def _opener(plan):
    """open_fn for ResilientSource: each call takes the next item; an exception is raised (camera absent)."""
    plan = list(plan)
    opened = []

    def open_fn():
        item = plan.pop(0)
        if isinstance(item, Exception):
            raise item
        opened.append(item)
        return item

    return open_fn, opened


def test_unplugged_camera_is_reported_and_resumed_with_continuous_numbering():
    open_fn, opened = _opener([FlakyCamera(4, t0=100.0), OSError("no such device"), LigrettoError("still gone"),
                               FlakyCamera(3, t0=200.0, how="end")])
    status, sleeps = [], []
    source = ResilientSource(open_fn, on_status=status.append, sleep=sleeps.append, stall_s=2)
    frames = list(source.frames())
    numbers = [f.index for f in frames]
    assert numbers[:4] == [0, 1, 2, 3] and numbers[4:] == list(range(numbers[4], numbers[4] + 3))
    assert 4 <= numbers[4] <= 5  # numbering goes on after the reconnect (the sleeps took no time)
    assert [f.t for f in frames][3:5] == [pytest.approx(100.3), pytest.approx(200.0)]  # the camera's own clock
    states = [s["state"] for s in status]
    assert states == ["ok", "lost", "reconnecting", "reconnecting", "reconnecting", "ok", "ended"]
    assert status[1]["error"] == "flaky: device disappeared" and status[1]["frames"] == 4
    assert status[3]["error"] == "OSError: no such device" and status[4]["error"] == "LigrettoError: still gone"
    assert sleeps == [0.5, 1.0, 2.0]  # backoff doubles
    assert opened[0].closed


def test_a_stalled_camera_is_noticed_by_the_watchdog_and_replaced():
    hung = FlakyCamera(2, how="hang")
    open_fn, _ = _opener([hung, FlakyCamera(2, how="end")])
    status = []
    source = ResilientSource(open_fn, on_status=status.append, sleep=lambda s: None, stall_s=0.2)
    frames = list(source.frames())
    numbers = [f.index for f in frames]
    # numbered by time: the next frame came the stall's 0.2 s (two frames at 10 a second) or more later
    assert numbers[:2] == [0, 1] and numbers[2] >= 3 and numbers[3] == numbers[2] + 1
    lost = [s for s in status if s["state"] == "lost"]
    assert len(lost) == 1 and "stalled" in lost[0]["error"] and hung.closed


def test_frames_a_camera_dropped_leave_their_numbers_out():
    """A live frame's number is its capture time over the frame rate, so every time the referee
    reports stays true when a camera (or a busy machine) loses frames."""
    class Dropping(FlakyCamera):
        def frames(self):
            for i in (0, 1, 2, 5, 6, 10):  # frames 3-4 and 7-9 never came
                yield Frame(index=i, t=self.t0 + i / 10 + 0.004 * (-1) ** i, image=np.zeros((6, 8, 3), np.uint8))

    open_fn, _ = _opener([Dropping(0)])
    assert [f.index for f in ResilientSource(open_fn, sleep=lambda s: None).frames()] == [0, 1, 2, 5, 6, 10]


def test_a_frame_number_never_goes_back_even_if_its_timestamp_does():
    assert frame_number(100.21, (100.0, 0), 10.0, last=1) == 2  # to the nearest frame
    assert frame_number(100.05, (100.0, 0), 10.0, last=2) == 3  # a timestamp that jittered back
    assert frame_number(101.0, (100.0, 7), 30.0, last=7) == 37


def test_frames_lost_on_the_way_go_in_bursts_and_the_rest_keep_their_numbers():
    image = np.zeros((6, 8, 3), np.uint8)
    kept = [f.index for f in losing_frames((Frame(i, i / 30, image) for i in range(3000)), 0.1, seed=1)]
    gaps = np.diff(kept) - 1
    assert kept[0] == 0 and 0.07 <= 1 - len(kept) / 3000 <= 0.13
    assert gaps.max() == LONGEST_BURST and set(gaps.tolist()) == set(range(LONGEST_BURST + 1))
    assert kept == [f.index for f in losing_frames((Frame(i, i / 30, image) for i in range(3000)), 0.1, seed=1)]
    with pytest.raises(LigrettoError, match="share of frames lost must be at least 0 and below 1, not 1"):
        losing_frames([], 1.0)


def test_other_read_errors_count_as_lost():
    open_fn, _ = _opener([FlakyCamera(1, how="error"), FlakyCamera(1, how="end")])
    status = []
    frames = list(ResilientSource(open_fn, on_status=status.append, sleep=lambda s: None).frames())
    assert len(frames) == 2 and any(s.get("error") == "OSError: read failed" for s in status)


def test_it_gives_up_after_max_attempts_and_says_so():
    open_fn, _ = _opener([FlakyCamera(1)] + [OSError("gone")] * 3)
    status = []
    source = ResilientSource(open_fn, on_status=status.append, sleep=lambda s: None, max_attempts=3)
    with pytest.raises(SourceLost, match="gave up after 3 reconnect attempts"):
        list(source.frames())
    assert status[-1]["state"] == "gave-up"


def test_a_wrong_setting_fails_at_start_not_in_a_retry_loop():
    def open_fn():
        raise LigrettoError("cannot open camera or stream 'usb:3'")

    with pytest.raises(LigrettoError, match="usb:3"):
        ResilientSource(open_fn)


def test_backoff_is_capped():
    assert [Backoff().delay(a) for a in (1, 2, 3, 4, 5, 6, 7)] == [0.5, 1, 2, 4, 8, 10, 10]


def test_a_slow_consumer_is_not_a_stall():
    import time

    open_fn, _ = _opener([FlakyCamera(3, how="end")])
    status = []
    source = ResilientSource(open_fn, on_status=status.append, stall_s=0.1)
    for _ in source.frames():
        time.sleep(0.15)  # longer than stall_s between frames, on the consumer's side
    assert [s["state"] for s in status] == ["ok", "ended"]


def test_sample_scene_copied_folder_works_by_path(tmp_path):
    """A scene folder given by path (as [table].source would) opens as a SceneSource."""
    if not (SAMPLE / "scene.json").exists():
        pytest.skip(f"sample scene {SAMPLE} not present")
    folder = tmp_path / "copy"
    folder.mkdir()
    shutil.copy(SAMPLE / "scene.json", folder)
    (folder / "video.mp4").symlink_to(SAMPLE / "video.mp4")
    source = open_source(str(folder))
    assert next(iter(source.frames())).index == 0
    source.close()
