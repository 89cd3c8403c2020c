"""The proving ground's board-game scenes (BOARD-SCENES.md): a small generated scene is a complete
scene folder, its truth is what the rules say of its moves, and its frames show what its truth
says (each card on its fields in its colours, each token where it stands). One tiny four-player
scene, chosen for having an illegal card, a takeback and a joker; the kinds are checked on their
draws alone."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from ligretto_vision.cli import main
from ligretto_vision.events import read_log
from ligretto_vision.proving.board_draw import BOARD_KINDS, BORDERS, draw_board_table
from ligretto_vision.proving.board_film import board_filming, generate_board
from ligretto_vision.proving.board_script import board_script
from ligretto_vision.proving.draw import CAMERA_EFFECTS
from ligretto_vision.rules.board import Board, BoardOptions, BoardRound
from ligretto_vision.scene import load_scene

KIND, CARDS = "four-players", 2  # four hands at once, a round of a few seconds


def _wanted(seed: int) -> bool:
    truth = board_script(draw_board_table(seed, KIND, CARDS)).truth
    return (any(e.type == "place" and not e.data["legal"] for e in truth) and any(e.type == "takeback" for e in truth)
            and any(e.type == "joker" for e in truth))


@pytest.fixture(scope="module")
def seed() -> int:
    return next(s for s in range(500) if _wanted(s))


@pytest.fixture(scope="module")
def scene_dir(seed, tmp_path_factory) -> Path:
    return generate_board(seed, tmp_path_factory.mktemp("board"), KIND, CARDS).folder


@pytest.fixture(scope="module")
def film(seed):
    return board_filming(seed, KIND, CARDS)


def _events(film, *types):
    return [e for e in film.script.truth if e.type in types]


def test_scene_folder_is_complete(scene_dir, film):
    scene = load_scene(scene_dir)
    raw = json.loads((scene_dir / "scene.json").read_text())
    assert scene.is_board_game
    f = raw["board"]["field_mm"]
    assert raw["card_mm"] == [2 * f, f]
    assert raw["rules"] == {"swapped": "mistake"} and raw["tokens"] == 4 and raw["cards"] == CARDS
    assert sorted(p["border"] for p in raw["players"]) == sorted(BORDERS)  # four players, four borders
    assert [p["name"] for p in raw["phases"]] == ["setup", "play", "end"]
    w, h = raw["table_mm"]
    assert all(0 < x < w and 0 < y < h for x, y in raw["markers"]["centres_mm"].values())
    cap = cv2.VideoCapture(str(scene.video_path))
    frames = 0
    while True:
        ok, img = cap.read()
        if not ok:
            break
        assert img.shape[1::-1] == tuple(scene.size)
        frames += 1
    assert frames == json.loads((scene_dir / "draw.json").read_text())["frames"] == raw["phases"][-1]["to"] + 1
    for p in scene.player_ids:
        border = cv2.imread(str(scene_dir / "enroll" / "borders" / f"{p}.png"))
        assert border is not None and 1.7 < border.shape[1] / border.shape[0] < 2.3  # upright, long side across
    token = cv2.imread(str(scene_dir / "enroll" / "token.png"))
    assert token is not None and token.shape[0] == token.shape[1]
    written = [e.to_json() for e in read_log(scene_dir / "truth.jsonl", game="board")]
    assert [{k: v for k, v in e.items() if k != "_line"} for e in written] == [e.to_json() for e in film.script.truth]


def test_truth_is_what_the_rules_say_of_its_moves(scene_dir):
    """Feeding the truth's cards, jokers and takebacks to a fresh BoardRound gives back its verdicts,
    its tokens' fields and its ranks."""
    raw = json.loads((scene_dir / "scene.json").read_text())
    truth = read_log(scene_dir / "truth.jsonl", game="board")
    assert truth[0].type == "board" and truth[0].frame == 0
    board = Board.of(truth[0].data["fields"], raw["colours"])
    assert (board.cols, board.rows) == (raw["board"]["cols"], raw["board"]["rows"])
    setup = next(p for p in raw["phases"] if p["name"] == "setup")
    tokens = [e for e in truth if e.type == "token" and e.frame <= setup["to"]]
    assert len(tokens) == raw["tokens"]
    rnd = BoardRound(board, [p["id"] for p in raw["players"]], {e.data["token"]: tuple(e.data["cell"]) for e in tokens},
                     BoardOptions(cards=raw["cards"], **raw["rules"]))
    moves = [e for e in truth if e.type in ("place", "joker", "takeback")]
    assert moves and all(m.frame > setup["to"] for m in moves)
    for i, m in enumerate(truth):
        if m.type not in ("place", "joker", "takeback"):
            continue
        after = [e for e in truth[i + 1:] if e.type in ("place", "joker", "takeback")][:1]
        moved = [(e.data["token"], tuple(e.data["cell"])) for e in truth[i + 1:]
                 if e.type == "token" and (not after or e.frame < after[0].frame)]
        if m.type == "place":
            colours, cells = tuple(m.data["card"].split("+")), [tuple(c) for c in m.data["cells"]]
            onto = moved[0][1] if moved and rnd.judge(m.data["player"], colours, cells).relocation else None
            said = rnd.place(m.data["player"], colours, cells, m.frame, onto=onto)
            assert (said[0].legal, said[0].reason) == (m.data["legal"], m.data["reason"])
        elif m.type == "joker":
            said = rnd.joker(m.data["player"], tuple(m.data["cell"]), m.frame)
        else:
            said = rnd.takeback(m.data["player"], [tuple(c) for c in m.data["cells"]], m.frame)
        assert [(e.token, e.cell) for e in said if e.type == "token"] == moved
    ranks = [e.to_event().data for e in rnd.rank_events(truth[-1].frame)]
    assert ranks == [{k: v for k, v in e.data.items() if k != "_line"} for e in truth if e.type == "rank"]


def _chroma(bgr) -> np.ndarray:
    v = np.asarray(bgr, np.float32)
    return v / max(1.0, float(v.sum()))


def _seen(film, f: int, cell) -> np.ndarray:
    """The top view's mean colour round a field's centre, in frame `f`'s still table (no hands)."""
    x, y = film._px(film.d.cell_centre(cell))
    r = max(1, int(film.d.field_mm * film.ppm * 0.08))
    return film._still(f)[int(y) - r:int(y) + r + 1, int(x) - r:int(x) + r + 1].reshape(-1, 3).mean(0)


def test_every_card_lies_on_its_cells_in_its_colours(film):
    """Where the truth says a card came to rest, each of its fields shows that half's colour (of the
    four the nearest in hue); a field a token stands on is left out."""
    standing = {}
    checked = 0
    for e in film.script.truth:
        if e.type == "token":
            standing[e.data["token"]] = tuple(e.data["cell"])
        if e.type != "place":
            continue
        for colour, cell in zip(e.data["card"].split("+"), e.data["cells"]):
            if tuple(cell) in standing.values():
                continue
            seen = _chroma(_seen(film, e.frame, cell))
            nearest = min(film.d.card_palette, key=lambda c: np.linalg.norm(_chroma(film.d.card_palette[c][::-1]) - seen))
            assert nearest == colour, (e.frame, cell)
            checked += 1
    assert checked >= len(_events(film, "place"))


def test_every_token_stands_where_its_event_says(film):
    """In the frame of a token event, the token's field shows the token: white, where a field or a
    card's half is coloured; and a token moves about half a second after its card."""
    for e in _events(film, "token"):
        b, g, r = _seen(film, e.frame, e.data["cell"])
        assert min(b, g, r) > 0.75 * max(b, g, r) and max(b, g, r) > 150, (e.frame, e.data)
    for e in _events(film, "place", "joker"):
        if e.data.get("legal", True):
            after = next(t for t in _events(film, "token") if t.frame > e.frame)
            assert 0.25 * film.d.fps < after.frame - e.frame < 1.0 * film.d.fps


def test_a_takeback_is_the_first_frame_its_card_has_left_its_place(film):
    for e in _events(film, "takeback"):
        cells = [film.d.cell_centre(c) for c in e.data["cells"]]
        centre = np.mean(cells, axis=0)
        card = next(p for p in film.script.pieces if not p.is_token and any(
            not s.held and np.hypot(*(np.array(s.pose0[:2]) - centre)) < 5 for s in p.spans))
        before, now = card.span(e.frame - 1).pose(e.frame - 1), card.span(e.frame).pose(e.frame)
        assert np.hypot(before[0] - centre[0], before[1] - centre[1]) < 5  # still where it lay
        assert np.hypot(now[0] - before[0], now[1] - before[1]) > 0.5  # lifted and moving away


@pytest.mark.parametrize("kind", BOARD_KINDS)
def test_each_kind_draws_what_it_says(kind):
    draws = [draw_board_table(seed, kind) for seed in range(6)]
    for d in draws:
        assert 8 <= d.board.cols <= 12 and 8 <= d.board.rows <= 12 and 32 <= d.field_mm <= 45
        assert 2 <= d.n_players <= 4 and len(set(d.borders)) == d.n_players
        bw, bh = d.board_mm
        assert 0 < d.origin_mm[0] and d.origin_mm[0] + bw < d.table_mm[0] and 0 < d.origin_mm[1] and d.origin_mm[1] + bh < d.table_mm[1]
    if kind == "plain":
        assert all(d.n_players == 2 and not d.effects for d in draws)
    if kind == "four-players":
        assert all(d.n_players == 4 for d in draws)
    if kind in CAMERA_EFFECTS:
        assert all(d.effects == (kind,) for d in draws)
    effect_seen = {"vibration": lambda d: d.vibration_px > 0, "knock": lambda d: d.knock is not None,
                   "h264-4mbit": lambda d: d.codec == "h264" and d.bitrate_mbit == 4.0,
                   "rolling-shutter": lambda d: d.rolling_shutter_s > 0, "lamp-switch": lambda d: d.light.switch_s is not None,
                   "warm-dim-flicker": lambda d: d.light.flicker > 0, "glare": lambda d: bool(d.light.glare)}
    for d in draws:
        assert all(effect_seen[e](d) for e in d.effects)
    assert len({d.board.fields for d in draws}) == len(draws)  # every seed its own board


def test_generate_scene_takes_the_board_game_options(tmp_path, capsys):
    assert main(["generate-scene", "--game", "board", "--seed", "1", "--kind", "no-such", "--out", str(tmp_path)]) == 2
    assert "plain" in capsys.readouterr().err  # the kinds there are are named
    assert main(["generate-scene", "--game", "board", "--seed", "1", "--seconds", "5", "--out", str(tmp_path)]) == 2
    assert main(["generate-scene", "--seed", "1", "--kind", "plain", "--out", str(tmp_path)]) == 2
    assert not any(tmp_path.iterdir())
