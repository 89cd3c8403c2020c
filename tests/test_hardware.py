"""The mounting calculator against hand calculations, and the printable marker sheet."""
from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from ligretto_vision.cli import main
from ligretto_vision.errors import LigrettoError
from ligretto_vision.hardware import CAMERAS, camera_spec, plan_mount
from ligretto_vision.hardware.markers import marker_sheet_svg


def test_module3_wide_over_a_1300x760_table_matches_a_hand_calculation():
    # By hand: the table plus 50 mm each side is 1400 x 860 mm.
    #   tan(102°/2) = tan 51° = 1.23490, tan(67°/2) = tan 33.5° = 0.66189
    #   across: 1400 / (2 * 1.23490) = 566.8 mm;  down: 860 / (2 * 0.66189) = 649.6 mm
    #   -> the short side decides: 649.6 mm; the view is 2 * 649.6 * 1.23490 = 1604.4 mm across, 860 down.
    # The smallest 16:9 main stream with >= 0.9 px/mm both ways: 1280 gives 1280/1604.4 = 0.80 (too few),
    #   1536x864 gives 1536/1604.4 = 0.957 and 864/860 = 1.005 px/mm.
    #   A 59 x 91 mm card: 59 * 0.957 = 56.5 px by 91 * 1.005 = 91.4 px.
    plan = plan_mount(camera_spec("module3-wide"), (1300, 760))
    assert plan.height_mm == pytest.approx(649.6, abs=0.2)
    assert plan.view_mm == pytest.approx((1604.4, 860.0), abs=0.3)
    assert plan.main_size == (1536, 864)
    assert plan.px_per_mm == pytest.approx((0.957, 1.005), abs=0.001)
    assert plan.card_px == pytest.approx((56.5, 91.4), abs=0.1)
    assert plan.sensor_mode.size == (2304, 1296) and plan.sensor_mode.full_view  # not the 1536x864 crop


def test_module3_standard_lens_hand_calculation():
    # tan 33° = 0.64941, tan 20.5° = 0.37388: 1400 / 1.29882 = 1077.9, 860 / 0.74777 = 1150.1 -> 1150.1 mm
    plan = plan_mount(camera_spec("module3"), (1300, 760))
    assert plan.height_mm == pytest.approx(1150.1, abs=0.2)
    assert plan.view_mm[0] == pytest.approx(2 * 1150.1 * 0.64941, abs=0.5)


def test_hq_lens_field_of_view_follows_from_sensor_and_focal_length():
    # IMX477 image area 6.287 x 4.712 mm behind a 6 mm lens: 2 atan(3.1435/6) = 55.3°, 2 atan(2.356/6) = 42.9°
    hq = camera_spec("hq-6mm")
    assert (hq.hfov_deg, hq.vfov_deg) == (55.3, 42.9)


def test_a_portrait_table_turns_the_camera_and_gives_the_same_height():
    a = plan_mount(camera_spec("module3"), (1300, 760))
    b = plan_mount(camera_spec("module3"), (760, 1300))
    assert b.turned and not a.turned and b.height_mm == pytest.approx(a.height_mm)


def test_every_camera_gets_a_full_view_mode_and_warnings_where_due():
    for cam in CAMERAS.values():
        plan = plan_mount(cam, (1300, 760))
        assert plan.sensor_mode.full_view
    tele = plan_mount(camera_spec("hq-16mm"), (1300, 760))
    assert any("ceiling" in w for w in tele.warnings)
    small = plan_mount(camera_spec("module3-wide"), (3000, 2000), main_size=(1280, 720))
    assert any("below" in w for w in small.warnings)


def test_geometry_command_prints_the_figures(capsys):
    assert main(["geometry", "--table", "1300x760", "--camera", "module3-wide"]) == 0
    out = capsys.readouterr().out
    for text in ("mount height  650 mm", "102° x 67°", "1605 x 860 mm", "2304x1296", "1536x864",
                 "0.957 across", "56 x 91 px"):
        assert text in out, text


@pytest.mark.parametrize("argv, problem", [
    (["geometry", "--table", "1300"], "--table '1300': write it as WIDTHxHEIGHT"),
    (["geometry", "--table", "0x760"], "both sides must be positive"),
    (["markers", "--out", "x.pdf"], "ending in .svg"),
    (["markers", "--size-mm", "200"], "20 to 80 mm"),
])
def test_bad_options_are_named(argv, problem, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert problem in capsys.readouterr().err


def rasterise(svg: str, px_per_mm: float = 4.0) -> np.ndarray:
    """Paint the sheet's marker rectangles (all axis-aligned) into a grey image."""
    vb = [float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split()]
    img = np.full((int(vb[3] * px_per_mm), int(vb[2] * px_per_mm)), 255, np.uint8)
    for group in re.findall(r'<g id="marker-\d+"[^>]*>(.*?)</g>', svg, re.S):
        for x, y, w, h, fill in re.findall(
                r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="(\w+)"/>', group):
            x, y, w, h = (float(v) * px_per_mm for v in (x, y, w, h))
            img[round(y):round(y + h), round(x):round(x + w)] = 0 if fill == "black" else 255
    return img


@pytest.mark.parametrize("size_mm", [60.0, 45.0])
def test_marker_sheet_holds_the_four_markers_at_their_printed_size(size_mm):
    svg = marker_sheet_svg(size_mm)
    assert 'width="210.0mm" height="297.0mm"' in svg  # A4 in millimetres: prints at actual size
    img = rasterise(svg)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(img)
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for c in corners:
        side_mm = np.linalg.norm(c[0][0] - c[0][1]) / 4.0
        assert side_mm == pytest.approx(size_mm, abs=0.5)
    assert f"centre {size_mm / 2 + 22:g} mm in from both edges" in svg


def test_markers_command_writes_the_sheet(tmp_path, capsys):
    out = tmp_path / "markers.svg"
    assert main(["markers", "--out", str(out)]) == 0
    assert out.read_text().startswith("<svg")
    printed = capsys.readouterr().out
    assert "id 0: top-left (north-west) corner" in printed and "52 mm in" in printed


def test_unknown_camera_and_page_are_named():
    with pytest.raises(LigrettoError, match="unknown camera 'gopro': one of module3"):
        camera_spec("gopro")
    with pytest.raises(LigrettoError, match="page 'a3'"):
        marker_sheet_svg(page="a3")
