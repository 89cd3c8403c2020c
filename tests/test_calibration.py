"""Calibration from the table markers, on rendered tables and on a sample scene."""
import cv2
import numpy as np
import pytest

from conftest import sample_scenes
from ligretto_vision.geometry.calibration import CalibrationError, MarkerLayout, calibrate, check_still, follow_bump
from ligretto_vision.scene import load_scene
from ligretto_vision.sim.render import TableScene, camera_view, render_top

PPM = 2.0


def layout_of(ts: TableScene) -> MarkerLayout:
    return MarkerLayout("DICT_4X4_50", ts.marker_size_mm, dict(ts.marker_centres_mm))


def shot(ts: TableScene, seed=0, tilt=0.03, top=None):
    rng = np.random.default_rng(seed)
    top = render_top(ts, PPM, rng) if top is None else top
    return camera_view(top, PPM, ts.table_mm, (1280, 720), tilt=tilt, rng=rng)


@pytest.mark.parametrize("seed,tilt", [(0, 0.0), (1, 0.03), (2, 0.06)])
def test_rendered_table_calibrates_within_two_mm(seed, tilt):
    ts = TableScene()
    img, H = shot(ts, seed, tilt)
    cal = calibrate(img, layout_of(ts))
    assert cal.error_mm <= 2.0
    # any table point maps back to where the camera put it
    pts = np.array([[650, 380], [200, 600], [1100, 150]], float)
    px = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), H).reshape(-1, 2)
    assert np.abs(cal.to_mm(px) - pts).max() < 3.0
    assert np.abs(cal.to_px(pts) - px).max() < 3.0


def test_a_crop_cut_again_is_the_same_and_a_shaken_picture_is_cut_anew():
    ts = TableScene()
    img, _ = shot(ts, 4, 0.03)
    cal = calibrate(img, layout_of(ts))
    region = ((100.0, 80.0), (300.0, 200.0))
    first = cal.crop(img, *region)
    assert np.array_equal(cal.crop(img, *region), first)  # the kept maps cut what fresh ones do
    # the same picture shifted 6 px right, with the mapping told so: the same table region
    moved = np.roll(img, 6, axis=1)
    again = cal.shaken((6.0, 0.0)).crop(moved, *region)
    assert np.abs(again.astype(int) - first).mean() < 1.0
    assert np.abs(cal.crop(moved, *region).astype(int) - first).mean() > 2.0  # unshaken: 6 px off


def test_barrel_distortion_is_fitted():
    ts = TableScene()
    img, _ = shot(ts, 3, 0.0)
    h, w = img.shape[:2]
    k = -0.12  # a wide lens: straight lines bow outwards
    c = np.array([w / 2, h / 2])
    r = np.hypot(w, h) / 2
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    d = (np.stack([xs, ys], -1) - c) / r  # where a pixel is seen; it shows what lies at src
    src = (c + r * d / (1 + k * (d ** 2).sum(-1, keepdims=True))).astype(np.float32)
    bent = cv2.remap(img, src[..., 0], src[..., 1], cv2.INTER_LINEAR)
    cal = calibrate(bent, layout_of(ts))
    assert cal.k1 != 0.0 and cal.error_mm <= 2.0


def test_a_moved_marker_is_named():
    ts = TableScene()
    moved = TableScene(marker_centres_mm={**ts.marker_centres_mm, 2: (1180.0, 640.0)})
    img, _ = shot(moved, 4, 0.02)
    with pytest.raises(CalibrationError, match="marker 2 .* moved"):
        calibrate(img, layout_of(ts))


BIG_TABLE = dict(table_mm=(1480.0, 1040.0),
                 marker_centres_mm={0: (52.0, 52.0), 1: (1428.0, 52.0), 2: (1428.0, 988.0), 3: (52.0, 988.0)})


def low_res_shot(ts: TableScene, seed: int):
    """A big table filmed small (markers ~21 px across) and compressed: corners found to a pixel or so."""
    rng = np.random.default_rng(seed)
    img, _ = camera_view(render_top(ts, PPM, rng), PPM, ts.table_mm, (768, 432), tilt=0.03, rng=rng)
    return cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 40])[1], cv2.IMREAD_COLOR)


def test_small_markers_are_not_taken_for_moved_ones():
    # three markers ~21 px across extrapolate to the fourth 24 mm off here (10 px): pixel noise, not a move
    ts = TableScene(**BIG_TABLE)
    assert calibrate(low_res_shot(ts, 4), layout_of(ts)).error_mm <= 1.0 / 0.35  # a pixel


def test_a_moved_marker_is_named_at_a_low_resolution_too():
    ts = TableScene(**BIG_TABLE)
    moved = TableScene(**{**BIG_TABLE, "marker_centres_mm": {**BIG_TABLE["marker_centres_mm"], 2: (1300.0, 900.0)}})
    with pytest.raises(CalibrationError, match="marker 2 .* moved"):
        calibrate(low_res_shot(moved, 4), layout_of(ts))


def test_a_covered_marker_is_tolerated_two_are_named():
    ts = TableScene()
    rng = np.random.default_rng(5)
    top = render_top(ts, PPM, rng)
    top[int(10 * PPM):int(95 * PPM), int(10 * PPM):int(95 * PPM)] = (30, 60, 200)  # a hand on marker 0
    img, _ = shot(ts, 5, 0.02, top=top)
    assert calibrate(img, layout_of(ts)).error_mm <= 2.0
    top[int(665 * PPM):int(750 * PPM), int(1205 * PPM):int(1290 * PPM)] = (30, 60, 200)  # and one on marker 2
    img, _ = shot(ts, 5, 0.02, top=top)
    with pytest.raises(CalibrationError, match="marker 0 .*marker 2"):
        calibrate(img, layout_of(ts))


def test_a_bumped_camera_is_noticed():
    ts = TableScene()
    rng = np.random.default_rng(6)
    top = render_top(ts, PPM, rng)
    a, _ = camera_view(top, PPM, ts.table_mm, tilt=0.02, rng=np.random.default_rng(1))
    b, _ = camera_view(top, PPM, ts.table_mm, tilt=0.02, rng=np.random.default_rng(2))
    cal = calibrate(a, layout_of(ts))
    assert check_still(cal, a, layout_of(ts)) is None
    shift = check_still(cal, b, layout_of(ts))
    assert shift.camera and "camera has moved" in shift.message


def test_a_bump_that_takes_markers_out_of_view_is_followed_from_those_in_view():
    """Knocked 40 px down and turned 0.8 degrees, two markers hidden (out of view, or under
    cards): too few to calibrate afresh, but the two in view give the camera's move."""
    ts = TableScene()
    top = render_top(ts, PPM, np.random.default_rng(6))
    a, _ = camera_view(top, PPM, ts.table_mm, tilt=0.02, rng=np.random.default_rng(1))
    cal = calibrate(a, layout_of(ts))
    M = cv2.getRotationMatrix2D((640, 360), 0.8, 1.0)
    M[:, 2] += (25, 40)
    b = cv2.warpAffine(a, M, (1280, 720), borderMode=cv2.BORDER_REPLICATE)
    for i in (2, 3):  # the lower markers: covered
        x0, y0 = (cv2.transform(cal.marker_px[i].reshape(-1, 1, 2), M).reshape(-1, 2).min(0) - 15).astype(int)
        x1, y1 = (cv2.transform(cal.marker_px[i].reshape(-1, 1, 2), M).reshape(-1, 2).max(0) + 15).astype(int)
        b[max(y0, 0):y1, max(x0, 0):x1] = 90
    with pytest.raises(CalibrationError):
        calibrate(b, layout_of(ts))
    moved = follow_bump(cal, b, layout_of(ts))
    pts = np.array([[200.0, 150.0], [640.0, 360.0], [1000.0, 600.0]])  # anywhere on the table, before the bump
    now = cv2.transform(pts.reshape(-1, 1, 2), M).reshape(-1, 2)
    assert np.abs(moved.to_mm(now) - cal.to_mm(pts)).max() < 2.0
    with pytest.raises(CalibrationError, match="fewer than two"):
        follow_bump(cal, np.full_like(a, 90), layout_of(ts))  # nothing in view


def test_one_marker_moved_is_named_and_not_taken_for_a_moved_camera():
    ts = TableScene()
    top = render_top(ts, PPM, np.random.default_rng(6))
    a, _ = camera_view(top, PPM, ts.table_mm, tilt=0.02, rng=np.random.default_rng(1))
    cal = calibrate(a, layout_of(ts))
    x0, y0 = cal.marker_px[0].min(0).astype(int) - 12
    x1, y1 = cal.marker_px[0].max(0).astype(int) + 12
    b = a.copy()
    b[y0:y1, x0:x1] = np.roll(a[y0:y1, x0:x1], (6, 6), axis=(0, 1))  # marker 0 pushed 6 px
    shift = check_still(cal, b, layout_of(ts))
    assert shift.markers == [0] and not shift.camera and "marker 0" in shift.message


@pytest.mark.parametrize("scene", sample_scenes(), ids=lambda p: p.name)
def test_sample_scene_calibrates_within_two_mm(scene):
    sc = load_scene(scene)
    cap = cv2.VideoCapture(str(sc.video_path))
    ok, img = cap.read()
    assert ok
    assert calibrate(img, MarkerLayout.from_scene(sc)).error_mm <= 2.0
