"""Table calibration: image pixels <-> table millimetres, from the ArUco markers.

The four markers taped to the table (scene.json `markers`) give 16 corner points
with known millimetre positions. A homography maps the table plane; a one-term
radial lens model (fitted only when it lowers the error) takes care of barrel
distortion of wide lenses. Each marker is also checked against the other three,
so a marker that was moved is named instead of silently bending the picture.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from ligretto_vision.errors import LigrettoError

MAX_ERROR_MM = 2.0  # reprojection error we accept at the markers
MAX_ERROR_PX = 1.0  # ... or a pixel, where a pixel is more than 2 mm of table (a big table filmed small)
MOVED_MM = 20.0  # a marker this far off the fit of the other three has been moved (extrapolation alone gives < 10)
MOVED_PX = 20.0  # ... and this far in the picture: three small markers extrapolate worse (540p: 26 mm = 12 px)
MAPS_KEPT = 8  # crops whose remap maps are kept (a whole table's: 8 MB)
CORNER_NAMES = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}


class CalibrationError(LigrettoError):
    """Calibration is impossible or implausible; the message says what to do."""


@dataclass
class MarkerLayout:
    dict_name: str
    size_mm: float
    centres_mm: dict[int, tuple[float, float]]

    @classmethod
    def from_scene(cls, scene) -> "MarkerLayout":
        m = scene.markers
        return cls(m.dict_name, m.size_mm, {int(k): tuple(v) for k, v in m.centres_mm.items()})

    def describe(self, marker_id: int) -> str:
        x, y = self.centres_mm[marker_id]
        return f"marker {marker_id} (at {x:.0f},{y:.0f} mm)"


@dataclass
class Calibration:
    H: np.ndarray  # undistorted image px -> table mm
    k1: float  # radial distortion (division model) around the image centre, normalised by the half-diagonal
    image_size: tuple[int, int]  # (width, height)
    error_mm: float  # RMS reprojection error at the marker corners
    marker_px: dict[int, np.ndarray] = field(default_factory=dict)  # detected corners, for re-checks
    shake_px: tuple[float, float] = (0.0, 0.0)  # the picture's shift in this frame (a shaking camera)
    # the last few crops' remap maps and the biggest: the whole-table view is cut again at every look
    # at a part of the table seen anew, and its maps cost five times the remap (a new mapping starts empty)
    _maps: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def shaken(self, shift_px: tuple[float, float]) -> "Calibration":
        """This mapping for a frame whose picture is shifted by `shift_px` (detect/shake.py)."""
        d = np.subtract(shift_px, self.shake_px)
        return replace(self, shake_px=(float(shift_px[0]), float(shift_px[1])),
                       marker_px={i: c + d for i, c in self.marker_px.items()})

    # ---- point mapping ---------------------------------------------------------------
    def _undistort(self, pts: np.ndarray) -> np.ndarray:
        return _undistort(pts, self.k1, self.image_size)

    def to_mm(self, pts_px) -> np.ndarray:
        pts = np.asarray(pts_px, np.float64).reshape(-1, 2) - self.shake_px
        return cv2.perspectiveTransform(self._undistort(pts).reshape(-1, 1, 2), self.H).reshape(-1, 2)

    def to_px(self, pts_mm) -> np.ndarray:
        pts = np.asarray(pts_mm, np.float64).reshape(-1, 2)
        und = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(self.H)).reshape(-1, 2)
        return _distort(und, self.k1, self.image_size) + self.shake_px

    def px_per_mm(self) -> float:
        """Mean image scale on the table (for choosing working resolutions)."""
        c = np.array([[0, 0], [100, 0], [0, 100]], np.float64) + self.to_mm([[self.image_size[0] / 2, self.image_size[1] / 2]])
        p = self.to_px(c)
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 200)

    def crop(self, image: np.ndarray, origin_mm: tuple[float, float], size_mm: tuple[float, float],
             scale: float = 1.0) -> np.ndarray:
        """The table region `origin+size` (mm) seen from straight above, `scale` px per mm."""
        key = (tuple(map(float, origin_mm)), tuple(map(float, size_mm)), float(scale))
        maps = self._maps.pop(key, None) or self.warp_maps(origin_mm, size_mm, scale)
        self._maps[key] = maps  # the newest last
        # the oldest go, but never the biggest (the whole-table view: between two cuts of it come many
        # small crops, one for each change settled)
        while len(self._maps) > MAPS_KEPT:
            biggest = max(self._maps, key=lambda k: self._maps[k][0].size)
            self._maps.pop(next(k for k in self._maps if k != biggest))
        m1, m2 = maps
        return cv2.remap(image, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def warp_maps(self, origin_mm: tuple[float, float], size_mm: tuple[float, float], scale: float):
        """cv2.remap maps that render the table region `origin+size` (mm) at `scale` px/mm."""
        w, h = int(round(size_mm[0] * scale)), int(round(size_mm[1] * scale))
        xs = origin_mm[0] + (np.arange(w) + 0.5) / scale
        ys = origin_mm[1] + (np.arange(h) + 0.5) / scale
        gx, gy = np.meshgrid(xs, ys)
        px = self.to_px(np.stack([gx.ravel(), gy.ravel()], 1)).astype(np.float32)
        return cv2.convertMaps(px[:, 0].reshape(h, w), px[:, 1].reshape(h, w), cv2.CV_16SC2)


def picture_px_per_view(map_x: np.ndarray, map_y: np.ndarray) -> np.ndarray:
    """(2, 2): picture pixels per pixel of a view rendered by these float remap maps, at its middle
    (a shift of the view -> of the picture, as a shaking camera's is taken out)."""
    cy, cx = map_x.shape[0] // 2, map_x.shape[1] // 2
    return np.array([[map_x[cy, cx + 1] - map_x[cy, cx], map_x[cy + 1, cx] - map_x[cy, cx]],
                     [map_y[cy, cx + 1] - map_y[cy, cx], map_y[cy + 1, cx] - map_y[cy, cx]]])


def detect_markers(image: np.ndarray, dict_name: str = "DICT_4X4_50") -> dict[int, np.ndarray]:
    """ArUco markers in a BGR or grey image: id -> 4x2 corner pixels (TL, TR, BR, BL)."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dict_name))
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) for i, c in zip(ids.ravel(), corners)}


def calibrate(image: np.ndarray, layout: MarkerLayout, fit_lens: bool = True) -> Calibration:
    """Calibrate from one frame; raises CalibrationError naming what is wrong."""
    found = detect_markers(image, layout.dict_name)
    wanted = sorted(layout.centres_mm)
    missing = [i for i in wanted if i not in found]
    if len(wanted) - len(missing) < 3:
        raise CalibrationError(
            "cannot see enough table markers: " + ", ".join(layout.describe(i) for i in missing)
            + " not found. Uncover them (no cards, hands or glare on them) and check the camera sees the whole table.")
    size = (image.shape[1], image.shape[0])
    ids = [i for i in wanted if i in found]
    k1 = _fit_k1(found, ids, layout, size) if fit_lens and len(ids) == 4 else 0.0
    H, err, per_marker = _fit(found, ids, layout, size, k1)
    px_per_mm = _marker_px_per_mm(found, ids, layout)
    if len(ids) == 4:
        # leave-one-out: the marker whose leaving-out makes the other three agree best is the suspect
        fits = []
        for i in ids:
            others = [j for j in ids if j != i]
            H3, err3, _ = _fit(found, others, layout, size, k1)
            pred = cv2.perspectiveTransform(_undistort(found[i], k1, size).reshape(-1, 1, 2), H3).reshape(-1, 2)
            fits.append((err3, float(np.linalg.norm(pred.mean(0) - layout.centres_mm[i])), i))
        _, off, i = min(fits)
        if off > max(MOVED_MM, MOVED_PX / px_per_mm):
            raise CalibrationError(
                f"{layout.describe(i)} does not agree with the other markers ({off:.0f} mm off): it has been moved "
                f"or is not flat. Tape it back at its place (or update its position in the set-up).")
    limit = max(MAX_ERROR_MM, MAX_ERROR_PX / px_per_mm)
    if err > limit:
        raise CalibrationError(f"calibration error {err:.1f} mm is too large (at most {limit:.1f} mm): "
                               "is the table flat and are the markers' positions right?")
    return Calibration(H, k1, size, err, {i: found[i] for i in ids})


@dataclass
class Shift:
    """Markers seen away from where the calibration put them."""
    markers: list[int]
    message: str

    @property
    def camera(self) -> bool:
        """Two or more moved: taken for the camera moving (one alone was moved on the table)."""
        return len(self.markers) >= 2

    def __str__(self) -> str:
        return self.message


def check_still(cal: Calibration, image: np.ndarray, layout: MarkerLayout, tol_px: float = 3.0) -> Shift | None:
    """Re-check: None if the visible markers are where calibration put them, else what moved.

    A marker hidden by a hand is not a problem; a visible marker that is elsewhere is."""
    found = detect_markers(image, layout.dict_name)
    moved = [i for i, c in found.items() if i in cal.marker_px and float(np.abs(c - cal.marker_px[i]).max()) > tol_px]
    if not moved:
        return None
    if len(moved) >= 2:
        return Shift(moved, "the camera has moved (markers " + ", ".join(map(str, moved)) + " shifted): recalibrating")
    return Shift(moved, f"{layout.describe(moved[0])} has moved on the table (or a hand half covers it): "
                        "put it back where it was; the camera is taken to be still")


def follow_bump(cal: Calibration, image: np.ndarray, layout: MarkerLayout, max_px: float = 2.0) -> Calibration:
    """The camera was bumped and too few markers are in view to calibrate afresh: a bump shifts
    and turns the picture, so the markers still seen (two or more) give that move, and the old
    mapping follows it. Raises CalibrationError when fewer than two are seen or they did not
    move together (a marker moved on the table)."""
    found = {i: c for i, c in detect_markers(image, layout.dict_name).items() if i in cal.marker_px}
    if len(found) < 2:
        raise CalibrationError("the camera has moved and fewer than two table markers can be seen: "
                               "uncover them, or turn the camera back so that it sees the whole table")
    ids = sorted(found)
    old = np.concatenate([cal._undistort(cal.marker_px[i]) for i in ids])
    new = np.concatenate([cal._undistort(found[i]) for i in ids])
    A, _ = cv2.estimateAffinePartial2D(old, new, method=cv2.LMEDS)
    if A is None:
        raise CalibrationError("the markers in view do not show one move of the camera")
    move = np.vstack([A, [0.0, 0.0, 1.0]])
    off = cv2.perspectiveTransform(old.reshape(-1, 1, 2), move).reshape(-1, 2) - new
    if float(np.abs(off).max()) > max_px:
        raise CalibrationError("the markers in view moved apart, not with the camera: one has been moved on the table")
    marker_px = {i: _distort(cv2.perspectiveTransform(cal._undistort(c).reshape(-1, 1, 2), move).reshape(-1, 2),
                             cal.k1, cal.image_size) for i, c in cal.marker_px.items()}
    marker_px.update(found)
    return Calibration(cal.H @ np.linalg.inv(move), cal.k1, cal.image_size, cal.error_mm, marker_px)


# ---- fitting ------------------------------------------------------------------------------
def _fit(found, ids, layout, size, k1):
    """Homography from all marker corners. Only the centres are known in mm (markers are taped by
    hand, turned a little), so each marker's own turn is fitted alongside, a few rounds."""
    und = {i: _undistort(found[i], k1, size) for i in ids}
    src = np.concatenate([und[i] for i in ids])
    base = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * layout.size_mm / 2
    dst = np.concatenate([base + layout.centres_mm[i] for i in ids])  # first guess: taped square
    for _ in range(4):
        H, _ = cv2.findHomography(src, dst, 0)
        if H is None:
            raise CalibrationError("the markers are in an impossible arrangement (are two ids swapped?)")
        dst = np.concatenate([_square_like(cv2.perspectiveTransform(und[i].reshape(-1, 1, 2), H).reshape(-1, 2),
                                           layout.centres_mm[i], layout.size_mm) for i in ids])
    H, _ = cv2.findHomography(src, dst, 0)
    res = cv2.perspectiveTransform(src.reshape(-1, 1, 2), H).reshape(-1, 2) - dst
    per = np.linalg.norm(res, axis=1)
    return H, float(np.sqrt((per ** 2).mean())), per


def _marker_px_per_mm(found, ids, layout) -> float:
    """The picture's scale at the markers: their sides in pixels per millimetre."""
    sides = [np.linalg.norm(found[i] - np.roll(found[i], 1, axis=0), axis=1).mean() for i in ids]
    return float(np.mean(sides)) / layout.size_mm


def _square_like(seen_mm: np.ndarray, centre, size_mm: float) -> np.ndarray:
    """The true square of a marker at `centre`, turned like the seen corners (ArUco order)."""
    base = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * size_mm / 2
    d = seen_mm - seen_mm.mean(0)
    ang = np.arctan2((base[:, 0] * d[:, 1] - base[:, 1] * d[:, 0]).sum(), (base * d).sum(1).sum())
    c, s_ = np.cos(ang), np.sin(ang)
    return base @ np.array([[c, s_], [-s_, c]]) + np.asarray(centre, np.float64)


def _fit_k1(found, ids, layout, size) -> float:
    """Golden-section search of the radial term that best straightens the markers."""
    lo, hi = -0.35, 0.35
    f = lambda k: _fit(found, ids, layout, size, k)[1]
    g = (np.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = f(a), f(b)
    for _ in range(40):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = f(b)
    k = (lo + hi) / 2
    return k if f(k) < 0.75 * f(0.0) else 0.0  # keep the plain model unless the lens term really helps


def _norm(size):
    w, h = size
    return np.array([w / 2, h / 2]), float(np.hypot(w, h) / 2)


def _undistort(pts: np.ndarray, k1: float, size) -> np.ndarray:
    if k1 == 0.0:
        return np.asarray(pts, np.float64)
    c, r = _norm(size)
    d = (np.asarray(pts, np.float64) - c) / r
    r2 = (d ** 2).sum(1, keepdims=True)
    return c + r * d / (1 + k1 * r2)


def _distort(pts: np.ndarray, k1: float, size) -> np.ndarray:
    if k1 == 0.0:
        return pts
    c, r = _norm(size)
    u = (pts - c) / r
    d = u.copy()
    for _ in range(20):  # invert u = d / (1 + k1 |d|^2) by fixed-point iteration
        d = u * (1 + k1 * (d ** 2).sum(1, keepdims=True))
    return c + r * d
