"""The printable sheet of the four table markers (ArUco DICT_4X4_50, ids 0-3), as SVG.

Marker bits come from cv2.aruco, drawn as vector squares in millimetres, so the sheet
prints at exactly the stated size (print at 100 %, "actual size", never "fit to page").
The placement matches the scene format (SCENES.md): marker centres `inset` mm in from
the corners of the play area, id 0 top-left as the camera sees it (the far left corner
for the player at the south edge), then clockwise: 1 top-right, 2 bottom-right,
3 bottom-left.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ligretto_vision.errors import LigrettoError

DICT_NAME = "DICT_4X4_50"
IDS = (0, 1, 2, 3)
CORNERS = {0: "top-left (north-west)", 1: "top-right (north-east)", 2: "bottom-right (south-east)",
           3: "bottom-left (south-west)"}
PAGES = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
DEFAULT_SIZE_MM = 60.0  # as in the sample scenes
GAP_MM = 22.0  # marker edge to play-area edge in the sample scenes (centre 52 mm in)


def marker_bits(marker_id: int) -> np.ndarray:
    """The marker as a 6x6 array of cells, True = black (4x4 data bits inside a one-cell black border)."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, 6, borderBits=1)
    return img < 128


def marker_sheet_svg(size_mm: float = DEFAULT_SIZE_MM, page: str = "a4") -> str:
    if page not in PAGES:
        raise LigrettoError(f"page {page!r}: one of {', '.join(PAGES)}")
    if not 20 <= size_mm <= 80:
        raise LigrettoError(f"marker size {size_mm:g} mm: 20 to 80 mm fit four to a page")
    pw, ph = PAGES[page]
    inset = size_mm / 2 + GAP_MM
    cell_w, cell_h = (pw - 20) / 2, 110.0
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{pw}mm" height="{ph}mm" viewBox="0 0 {pw} {ph}">',
           f'<rect x="0" y="0" width="{pw}" height="{ph}" fill="white"/>',
           '<g font-family="sans-serif" fill="black">',
           f'<text x="10" y="14" font-size="6">ligretto-vision table markers: ArUco {DICT_NAME}, ids 0-3, '
           f'{size_mm:g} mm</text>',
           f'<text x="10" y="21" font-size="3.6">Print at 100 % (actual size, never "fit to page"). Each black '
           f'square must measure {size_mm:g} mm.</text>',
           '<text x="10" y="25.5" font-size="3.6">Cut on the grey lines, keeping the white rim.</text></g>']
    for k, mid in enumerate(IDS):
        cx = 10 + cell_w * (k % 2) + cell_w / 2
        cy = 34 + cell_h * (k // 2) + size_mm / 2 + 8
        x0, y0 = cx - size_mm / 2, cy - size_mm / 2
        cell = size_mm / 6
        rim = cell  # white quiet zone of one cell, inside the cut line
        out.append(f'<rect x="{x0 - rim:.3f}" y="{y0 - rim:.3f}" width="{size_mm + 2 * rim:.3f}" '
                   f'height="{size_mm + 2 * rim:.3f}" fill="none" stroke="#999" stroke-width="0.3" '
                   f'stroke-dasharray="2 1.5"/>')
        # a black square with the white cells cut out as runs: crisp, no hairline seams between cells
        out.append(f'<g id="marker-{mid}" shape-rendering="crispEdges">')
        out.append(f'<rect x="{x0:.3f}" y="{y0:.3f}" width="{size_mm:.3f}" height="{size_mm:.3f}" fill="black"/>')
        bits = marker_bits(mid)
        for r in range(6):
            c = 0
            while c < 6:
                if bits[r, c]:
                    c += 1
                    continue
                start = c
                while c < 6 and not bits[r, c]:
                    c += 1
                out.append(f'<rect x="{x0 + start * cell:.3f}" y="{y0 + r * cell:.3f}" '
                           f'width="{(c - start) * cell:.3f}" height="{cell:.3f}" fill="white"/>')
        out.append("</g>")
        out.append(f'<text x="{cx:.3f}" y="{y0 + size_mm + rim + 7:.3f}" font-family="sans-serif" font-size="4.5" '
                   f'text-anchor="middle">id {mid}: {CORNERS[mid]} corner</text>')
    ty = 34 + 2 * cell_h + 2
    notes = ["Where to tape them, as the camera sees the table (image top = north, the edge facing",
             f"the south seat): each marker flat, its centre {inset:g} mm in from both edges at its corner",
             "of the play area (the part of the table the referee watches, e.g. 1300 x 760 mm).",
             "Measure both diagonals between marker centres: equal diagonals mean a true rectangle.",
             "Ids are what matter, not how a marker is turned; keep them clean and unbent."]
    out.append('<g font-family="sans-serif" font-size="3.6" fill="black">')
    out += [f'<text x="10" y="{ty + 5.5 * i:.1f}">{line}</text>' for i, line in enumerate(notes)]
    out += ["</g>", "</svg>"]
    return "\n".join(out) + "\n"


def write_marker_sheet(path: str | Path, size_mm: float = DEFAULT_SIZE_MM, page: str = "a4") -> Path:
    path = Path(path)
    if path.suffix.lower() != ".svg":
        raise LigrettoError("the marker sheet is written as SVG: give a file name ending in .svg", path=str(path))
    svg = marker_sheet_svg(size_mm, page)
    try:
        path.write_text(svg, encoding="utf-8")
    except OSError as exc:
        raise LigrettoError(f"cannot write the marker sheet: {exc.strerror}", path=str(path)) from None
    return path
