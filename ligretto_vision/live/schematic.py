"""The schematic picture of the simulated table (a top view drawn to scale), the drawing helpers the
camera overlay shares with it, and JPEG encoding for the hub."""
from __future__ import annotations

import cv2
import numpy as np

from ligretto_vision.geometry.seats import seat_direction
from ligretto_vision.sim import TableState
from ligretto_vision.sim.render import CARD_BGR

FELT = (52, 96, 38)
WHITE, BLACK, RED = (255, 255, 255), (0, 0, 0), (40, 40, 230)
WIDTH_PX = 720


def card_colour(card: str | None) -> tuple[int, int, int]:
    """The BGR colour a card ("red-7") is drawn in; grey for a colour not known."""
    return CARD_BGR.get((card or "").rpartition("-")[0], (150, 150, 150))


def draw_card(img: np.ndarray, x: int, y: int, w: int, h: int, card: str | None, outline=WHITE) -> None:
    cv2.rectangle(img, (x, y), (x + w, y + h), card_colour(card), -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), outline, 2 if outline == RED else 1)
    if card:
        num = card.rpartition("-")[2]
        ink = BLACK if card.startswith(("yellow", "pink", "turquoise")) else WHITE
        scale = h / 60
        (tw, th), _ = cv2.getTextSize(num, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        cv2.putText(img, num, (x + (w - tw) // 2, y + (h + th) // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, ink, 2,
                    cv2.LINE_AA)


def draw_label(img, text, org, scale=0.45, colour=WHITE, thick=1) -> None:
    """Text on a dark band, readable on any card or felt."""
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x = min(max(2, org[0]), img.shape[1] - tw - 2)
    y = org[1]
    cv2.rectangle(img, (x - 2, y - th - 2), (x + tw + 2, y + base), (25, 40, 20), -1)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def seat_label(name: str, laid: int, illegal: int, stack: int, room_px: float) -> tuple[str, float]:
    """A seat's label and its size: the whole tally where the seat has `room_px` beside it, else shorter,
    down to the name cut with '..' (round a crowded table the panel's list has the tallies)."""
    tries = [(f"{name}  laid {laid}  illegal {illegal}  stack {stack}", 0.55),
             (f"{name} laid {laid} illegal {illegal} stack {stack}", 0.45), (f"{name} stack {stack}", 0.45)]
    tries += [(name[:n] + (".." if n < len(name) else ""), 0.45) for n in range(len(name), 0, -1)]
    for text, scale in tries:
        if cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)[0][0] <= room_px:
            return text, scale
    return tries[-1]


def label_room(spots: list[tuple[float, float]], at: tuple[float, float], tall: float, width: float) -> float:
    """How wide the label of the seat drawn at `at` may be: as far as the nearest seat beside it, less than
    `tall` higher or lower (twelve round a table sit close), at most `width`."""
    beside = [abs(x - at[0]) for x, y in spots if abs(x - at[0]) > 1 and abs(y - at[1]) < tall]
    return min([width] + beside) - 8


def draw_table(state: TableState, table_mm: tuple[float, float], tallies: dict[str, tuple[int, int]],
               caption: str, names: dict[str, str] | None = None,
               strays: dict[str, list[str]] | None = None) -> np.ndarray:
    """A top view of the table: centre piles with their top card, each seat's cards and tallies.

    `tallies` is {player: (cards laid, illegal plays)}; `strays` {pile id: illegal cards lying on it
    until taken back} (the snapshot lists them after the pile's run). Plain drawing on purpose: a
    photo-realistic render replaces it later behind the same feed.
    """
    names, strays = names or {}, strays or {}
    s = WIDTH_PX / table_mm[0]
    w, h = WIDTH_PX, int(round(table_mm[1] * s))
    img = np.full((h, w, 3), FELT, np.uint8)
    cw, ch = int(60 * s), int(90 * s)  # a card is about 60 x 90 mm
    for pile in state.piles:
        if not pile.cards:
            continue
        x, y = int(pile.at[0] * s) - cw // 2, int(pile.at[1] * s) - ch // 2
        wrong = strays.get(str(pile.id), [])
        run = [c for c, _ in pile.cards][:len(pile.cards) - len(wrong)]
        if run:
            top = run[-1]
            closed = top.endswith("-10")
            draw_card(img, x, y, cw, ch, top, outline=(200, 200, 200) if closed else WHITE)
            if closed:
                cv2.line(img, (x, y), (x + cw, y + ch), (220, 220, 220), 1)
        for i, card in enumerate(wrong):  # an illegal card lies across the pile, red-edged
            draw_card(img, x + cw // 3 + 4 * i, y + ch // 3 + 4 * i, cw, ch, card, outline=RED)
        draw_label(img, f"#{pile.id}", (x, y - 3), 0.45)
    sw, sh = int(cw * 0.55), int(ch * 0.55)
    spots = {}  # where each seat is drawn, all known first: a label must not run into the next seat's cards
    for pid, p in state.players.items():
        dx, dy = seat_direction(p["seat"])
        spots[pid] = (w / 2 + dx * w * 0.40, h / 2 + dy * h * 0.40)
    for pid, p in state.players.items():
        px, py = spots[pid]
        row = list(p["row"])
        zone_w = (len(row) + 1) * (sw + 3) + 6
        bx = min(max(4, int(px) - zone_w // 2), w - zone_w - 4)
        by = min(max(14, int(py) - 26), h - sh - 20)
        for i, c in enumerate(row):
            if c:
                draw_card(img, bx + i * (sw + 3), by + 14, sw, sh, c)
        stack_top = p["stack"][-1] if p["stack"] else None
        sx = bx + len(row) * (sw + 3) + 6
        if stack_top:
            draw_card(img, sx, by + 14, sw, sh, stack_top, outline=(0, 215, 255))
        laid, illegal = tallies.get(pid, (0, 0))
        room = label_room(list(spots.values()), (px, py), sh + 34, w)  # label and cards: about sh + 34 px tall
        text, scale = seat_label(names.get(pid, pid), laid, illegal, len(p["stack"]), room)
        draw_label(img, text, (bx, by + 8), scale, (120, 120, 255) if illegal else WHITE)
        held = p.get("held")
        if held and held["kind"] == "play" and held["card"]:
            draw_card(img, int(w / 2 + (px - w / 2) * 0.55) - sw // 2, int(h / 2 + (py - h / 2) * 0.55) - sh // 2,
                  sw, sh, held["card"], outline=(0, 255, 255))
    draw_label(img, caption, (8, h - 8), 0.6)
    return img


def encode_jpeg(img: np.ndarray, quality: int = 75) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()

