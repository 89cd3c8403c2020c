"""The board game's referee: frames -> the board's top view -> settled changes (changes.py) ->
the board rules (rules/board/round.py) -> events. Times are the frames hands let go (timing.py)."""
from __future__ import annotations

import bisect
import math
from collections import deque
from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np
from pydantic import ValidationError

from ligretto_vision.config.board import BoardConfig
from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.detect.shake import ShakeGauge
from ligretto_vision.errors import LigrettoError
from ligretto_vision.geometry.board_grid import BoardGrid, Cell
from ligretto_vision.geometry.calibration import CalibrationError, MarkerLayout, calibrate, check_still, follow_bump
from ligretto_vision.recognise.board_look import BorderReader, enrolled_white, read_fields, token_seen
from ligretto_vision.referee.board.arms import SIDES, arm_side, facing
from ligretto_vision.referee.board.changes import BoardLook, SeenCard, read_change
from ligretto_vision.referee.board.state import board_state
from ligretto_vision.referee.board.timing import let_go, quiet_for, set_down
from ligretto_vision.rules.board.board import Board, edge_touch
from ligretto_vision.rules.board.log import TokenEvent
from ligretto_vision.rules.board.options import BoardOptions
from ligretto_vision.rules.board.round import BoardRound

def half(view: np.ndarray) -> np.ndarray:
    """The view at half resolution, a little blurred (the fields' printed grain is no change), as
    int16 for differences."""
    return cv2.blur(view, (5, 5))[::2, ::2].astype(np.int16)


@dataclass
class Entry:
    frame: int
    moved: np.ndarray  # (rows, cols) share of each field that moved since the frame before
    changed: np.ndarray  # ... that differs from the board as last settled
    foreign: np.ndarray  # (half-resolution view) pixels that differ from it
    small: np.ndarray  # the half-resolution view itself (what differs is asked again once the board settles)


@dataclass
class Pending:
    card: SeenCard
    frame: int  # the frame the hand let go of it
    token: str | None = None  # the token seen set down on it, and where
    onto: Cell | None = None
    came_from: Cell | None = None  # where that token stood before
    lifted: int | None = None  # the frame it was taken back, before it was judged


class BoardReferee:
    def __init__(self, scene, emit: Callable[[list], None], cfg: BoardConfig = BoardConfig(),
                 detect: DetectConfig = DetectConfig()):
        where = str(scene.folder / "scene.json")
        self.scene, self.send = scene, emit
        self.cfg = cfg = enrolled_white(cfg, scene.folder / "enroll" / "token.png")
        self.outbox: list = []  # events decided, held until no earlier one can still come (a log in frame order)
        self.illegal: list = []  # every illegal card or joker sent, also those taken back since
        self.grid = BoardGrid.of(getattr(scene, "board", None), cfg.px_per_field, where)
        self.borders = BorderReader.enrolled(scene.folder / "enroll" / "borders", scene.player_ids, cfg.px_per_field)
        if not 2 <= len(scene.players) <= 4:
            raise LigrettoError(f"the board game is for 2 to 4 players, this scene has {len(scene.players)}", path=where)
        try:
            self.options = BoardOptions(**{**scene.rules, **{k: getattr(scene, k) for k in ("cards", "jokers")
                                                            if getattr(scene, k, None) is not None}})
            self.tokens_dealt = int(getattr(scene, "tokens", 4))
        except (ValidationError, TypeError, ValueError) as exc:
            raise LigrettoError(f"rules, cards, jokers or tokens: {exc}".splitlines()[0], path=where) from None
        self.layout = MarkerLayout.from_scene(scene)
        self.history: deque[Entry] = deque(maxlen=int(4 * scene.fps))
        self.quiet_n = max(2, int(round(cfg.quiet_s * scene.fps)))
        self.recent: deque[np.ndarray] = deque(maxlen=min(cfg.settle_frames, self.quiet_n))  # the latest steadied views
        self.cal = self.warp = self.prev = self.ref = self.empty = self.palette = self.board = self.first = None
        self.round: BoardRound | None = None
        self.tokens: dict[Cell, str] = {}  # where each token stands, as seen
        self.setup: dict[str, Cell] = {}  # where each was set up
        self.in_hand: dict[str, Cell] = {}  # tokens lifted and not yet seen set down: where they stood
        self.onto: dict[str, Cell] = {}  # a token the rules moved onto a joker (a token on white is not seen)
        self.covered: dict[Cell, tuple] = {}  # field -> the cells of the card or joker lying on it
        self.owner_of: dict[tuple, str] = {}
        self.pending: list[Pending] = []
        self.last_note = ""
        self.tried: dict[Cell, int] = {}
        self.last = 0
        self.gauge, self.detect = ShakeGauge(detect), detect  # the camera's shake, against the settled board
        self.shake = np.zeros(4)  # the shift last taken out of the view (detect/shake.py's step_rows)
        self.next_check = 0
        self.notes: list[str] = []
        self.seated = {side: facing(scene.players, side) for side in SIDES}

    # ---- frames ---------------------------------------------------------------------------
    def push(self, index: int, image: np.ndarray) -> None:
        self.last = index
        if self.cal is None and not self._calibrate(index, image):
            return
        if index >= self.next_check:
            self._recheck(index, image)
        if self.ref is None and self.first is None:  # steadied against the first view until the board is read
            self.first = self.warp.view(image)
            self.gauge.reference(self.first)
        view = self._steadied(image, self.ref if self.ref is not None else self.first)
        self.recent.append(view)
        small = half(view)
        if self.prev is None:
            self.prev, self.prev_edge = small, self._edge(small)
            return
        # moved: more than a part of a pixel's shift would change it at an edge (what is left of a
        # shaking camera's, or of a rolling shutter's, is no motion)
        moved = self.grid.per_cell(np.abs(small - self.prev).max(axis=2) > self.cfg.moved_level + self.prev_edge, 2)
        self.prev, self.prev_edge = small, self._edge(small)
        if self.ref is None:
            self._wait_for_empty_board(index, moved, small)
            return
        foreign = np.abs(small - self.ref_half).max(axis=2) > self.cfg.changed_level
        self.history.append(Entry(index, moved, self.grid.per_cell(foreign, 2), foreign, small))
        settled = self._settled(index)
        if settled:
            self._apply(index, self._look(), settled)
        self._judge_waiting(index)
        self._release(min([p.frame for p in self.pending] + [self.history[0].frame]))

    def finish(self) -> None:
        """The recording ends: what waits is judged, and an ended round is ranked."""
        self._judge_waiting(math.inf)
        if self.round is not None and self.round.position.stopped:
            # ranked when the recording ends: a wrong card taken back after the stop is no mistake
            try:
                self.emit(self.round.rank_events(self.last))
            except LigrettoError as exc:  # what was seen cannot be ranked (a card missed): said, not guessed
                self.notes.append(f"no ranks: {exc}")
        elif self.round is not None:
            self.notes.append("the round had not ended when the recording did: no ranks")
        self._release(math.inf)

    def state(self) -> dict:
        """The board as the referee sees it now (referee/board/state.py), for the panel."""
        return board_state(self)

    def emit(self, events: list) -> None:
        self.outbox += events

    def _release(self, before: float) -> None:
        """Send, in frame order, the events earlier than any still to be decided (`before`)."""
        self.outbox.sort(key=lambda e: e.frame)
        n = next((i for i, e in enumerate(self.outbox) if e.frame >= before), len(self.outbox))
        if n:
            sent, self.outbox = self.outbox[:n], self.outbox[n:]
            self.illegal += [e for e in sent if getattr(e, "legal", True) is False]
            self.send(sent)

    def _steadied(self, image: np.ndarray, settled: np.ndarray) -> np.ndarray:
        """The board's top view of the camera's `image` as the settled board's light and place would
        show it: rendered with the last frame's shift (a vibration goes on), a lamp's or flicker's
        gain taken out (the median ratio to the settled board: hands and new cards are the few), then
        rendered again while detect/shake.py's gauge (over the board's own fields, row by row) finds a
        part of a shift left. Where it cannot tell, the last shift stays. A shift too big for a shake
        is a knock: the markers are looked at again at once."""
        total = self.shake.copy()  # a vibration goes on: from the last frame's shift
        view = self.warp.view(image, total)
        ref = settled[::4, ::4].astype(np.float32) + 1.0
        gain = np.median(view[::4, ::4].astype(np.float32).reshape(-1, 3) / ref.reshape(-1, 3), axis=0)
        lit = (lambda v: v) if np.all(np.abs(gain - 1.0) < 0.02) else \
            (lambda v: np.clip(v.astype(np.float32) / gain, 0, 255).astype(np.uint8))
        out = lit(view)
        for _ in range(self.cfg.shake_steps):
            s = self.gauge.step_rows(out)
            if s is None or np.abs(s).max() < self.detect.shake_min_px:
                break
            total += s
            if np.abs(total[:2]).max() + np.abs(total[2:]).max() / 2 > self.grid.px / 4:
                self.next_check, self.shake = 0, np.zeros(4)
                return lit(self.warp.view(image))
            out = lit(self.warp.view(image, total))
        self.shake = total
        return out

    def _recheck(self, index: int, image: np.ndarray) -> None:
        """Every second, and after a knock: are the markers where the calibration put them? When the
        camera moved, it is calibrated again (or follows the markers still in view)."""
        self.next_check = index + max(1, int(self.cfg.recheck_s * self.scene.fps))
        moved = check_still(self.cal, image, self.layout)
        if moved is None or not moved.camera:
            return
        try:
            self.cal = calibrate(image, self.layout)
        except CalibrationError:
            try:
                self.cal = follow_bump(self.cal, image, self.layout)
            except CalibrationError as exc:
                self.notes.append(f"frame {index}: {exc}")
                return
        self.notes.append(f"frame {index}: {moved}")
        self.warp = self.grid.warp(self.cal)
        self.recent.clear()
        self.prev, self.shake = None, np.zeros(4)  # the jump is no motion on the board

    def _calibrate(self, index: int, image: np.ndarray) -> bool:
        try:
            self.cal = calibrate(image, self.layout)
            self.warp = self.grid.warp(self.cal)
            return True
        except CalibrationError as exc:
            self._note_once(index, str(exc))
            return False

    def _note_once(self, index: int, why: str) -> None:
        """A note, unless the last one said the same (a marker hidden for many frames is one note)."""
        if self.last_note != why:
            self.notes.append(f"frame {index}: {why}")
            self.last_note = why

    def _edge(self, small: np.ndarray) -> np.ndarray:
        """Per pixel, how much a shift of [vision.board] moved_shift half-view pixels changes it."""
        if self.cfg.moved_shift <= 0:
            return np.zeros(small.shape[:2], np.float32)
        f = small.astype(np.float32)
        g = np.maximum(np.abs(cv2.Sobel(f, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)),
                       np.abs(cv2.Sobel(f, cv2.CV_32F, 0, 1, ksize=3, scale=0.125))).max(axis=2)
        return g * self.cfg.moved_shift

    def _look(self) -> BoardLook:
        """What is read once something settled: the mean of the last few views (it lay still that
        long; a dim lamp's noise, which a camera's gain makes strong, is averaged out)."""
        return BoardLook.of(np.mean(self.recent, axis=0).astype(np.uint8) if len(self.recent) > 1 else self.recent[0])

    def _wait_for_empty_board(self, index: int, moved: np.ndarray, small: np.ndarray) -> None:
        """The fields' colours are read once nothing has moved over the board for a while."""
        self.history.append(Entry(index, moved, moved, np.zeros(1, bool), small))
        # no hand over it: no field moved more than a field lying still does (a shaking camera leaves
        # a few fields a little motion in every frame)
        if quiet_for(np.array([e.moved.max() for e in self.history]), self.cfg.still_share) < self.quiet_n:
            return
        look = self._look()
        try:
            fields, self.palette = read_fields(look.view, self.grid, self.scene.colours, self.scene.palette, self.cfg)
        except LigrettoError as exc:  # glare, something lying on it: said, and looked at again in a moment
            self._note_once(index, str(exc))
            self.history.clear()
            return
        self.board = Board(fields, tuple(self.scene.colours))
        self.ref, self.empty = look.view.copy(), look
        self._settled_ref()
        self.history.clear()

    def _settled(self, index: int) -> set[Cell]:
        """Fields that differ from the board as settled while nothing near them moved for a while."""
        if len(self.history) < self.quiet_n:
            return set()
        recent = np.max([e.moved for e in list(self.history)[-self.quiet_n:]], axis=0)
        near = cv2.dilate(recent.astype(np.float32), np.ones((3, 3), np.uint8))
        ok = (self.history[-1].changed >= self.cfg.changed_share) & (near < self.cfg.quiet_share)
        return {(int(c), int(r)) for r, c in zip(*np.nonzero(ok))
                if index - self.tried.get((int(c), int(r)), -10**9) >= self.quiet_n}

    # ---- what settled ---------------------------------------------------------------------
    def _apply(self, index: int, look: BoardLook, cells: set[Cell]) -> None:
        change = read_change(look, cells, self.grid, tokens=set(self.tokens), covered=self.covered,
                             empty=self.empty, palette=self.palette, borders=self.borders, cfg=self.cfg,
                             owner_hint=lambda cs: self._arm_owner(cs))
        on_cards = {c for card in change.laid for c in card.cells}
        for c in change.tokens_went:
            self._token_went(c, index)
        for c in change.tokens_came:
            if c not in on_cards:
                self._token_came(c, look)
        for cells_ in change.lifted:
            self._lifted(cells_)
        for card in change.laid:
            self._laid(card, index)
        for c in change.tokens_came:
            if c in on_cards:
                self._token_came(c, look)
        px = self.grid.px
        # a card laid a little off its fields, a token's shadow: its neighbours changed a little and
        # are quiet too; they are the board as settled now, or every later change there would seem begun
        changed = self.history[-1].changed
        around = {(c + dc, r + dr) for c, r in change.explained for dc in (-1, 0, 1) for dr in (-1, 0, 1)}
        around = {x for x in around if self.grid.contains(x) and changed[x[1], x[0]] < 2 * self.cfg.changed_share}
        for c, r in change.explained | around:
            self.ref[r * px:(r + 1) * px, c * px:(c + 1) * px] = look.view[r * px:(r + 1) * px, c * px:(c + 1) * px]
        for c in cells - change.explained - around:
            self.tried[c] = index
        if change.explained:
            self._settled_ref()

    def _settled_ref(self) -> None:
        """What follows from the board as settled, worked out once when it changes, not per frame."""
        self.ref_half = half(self.ref)
        self.gauge.reference(self.ref)

    def _series(self, cells) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per history entry: its frame, how much of `cells` moved, and how much differs from the
        board as it is settled now (not as it was then: a card laid since is no change of a token's)."""
        px = self.grid.px // 2
        frames = np.array([e.frame for e in self.history])
        idx = tuple(np.array(cells).T[::-1])  # (rows, cols)
        moved = np.array([e.moved[idx].mean() for e in self.history])
        ref = self.ref_half
        boxes = [(slice(r * px, (r + 1) * px), slice(c * px, (c + 1) * px)) for c, r in cells]
        changed = np.array([np.mean([(np.abs(e.small[b] - ref[b]).max(axis=2) > self.cfg.changed_level).mean()
                                     for b in boxes]) for e in self.history])
        return frames, moved, changed

    def _rest_frame(self, cells) -> int:
        frames, moved, changed = self._series(cells)
        f = let_go(frames, moved, changed, self.cfg.still_share, self.cfg.held_frames, self.cfg.changed_share)
        return f if f is not None else int(frames[max(0, len(frames) - self.quiet_n)])

    def _token_went(self, cell: Cell, index: int) -> None:
        token = self.tokens.pop(cell)
        if token in self.onto:  # the rules moved it onto a joker just laid
            to = self.onto.pop(token)
            self.tokens[to] = token
            self.emit([TokenEvent(self._rest_frame([cell]) + self.quiet_n, token, to)])
        else:
            self.in_hand[token] = cell

    def _token_set_down(self, cell: Cell) -> int:
        frames, moved, _ = self._series([cell])
        return set_down(frames, moved, self.cfg.still_share, self.cfg.held_frames)

    def _token_came(self, cell: Cell, look: BoardLook) -> None:
        token, came_from = self._which_token(cell, look)
        self.tokens[cell] = token
        self.emit([TokenEvent(self._token_set_down(cell), token, cell)])
        for p in self.pending:
            if cell in p.card.cells and not p.card.joker and p.token is None:
                p.token, p.onto, p.came_from = token, cell, came_from
                return

    def _which_token(self, cell: Cell, look: BoardLook) -> tuple[str, Cell | None]:
        """Which token was set down on `cell`, and where it stood: one lifted (or no longer seen where
        it stood), and of those one that stood next to the card it now stands on (the rules move a
        card's token onto it from beside it); at set-up, a new one."""
        gone = {t: c for c, t in self.tokens.items() if not token_seen(look.hsv, self.grid, c, self.cfg)}
        lifted = {**self.in_hand, **gone}
        again = next((t for t, c in self.setup.items() if c == cell and t not in self.tokens.values()), None)
        if not lifted and again is not None:  # set up here and lost from sight a moment
            return again, None
        if not lifted and len(self.setup) < self.tokens_dealt:
            token = f"T{len(self.setup) + 1}"
            self.setup[token] = cell
            return token, None
        if not lifted:  # every token is on the board: one was moved unseen, the nearest
            lifted = {t: c for c, t in self.tokens.items()}
            gone = dict(lifted)
        card = next((p.card.cells for p in self.pending if cell in p.card.cells), None)
        beside = [t for t, c in lifted.items() if c is not None and card is not None
                  and any(edge_touch(c, x) for x in card)]
        token = (beside or sorted(lifted, key=lambda t: abs(lifted[t][0] - cell[0]) + abs(lifted[t][1] - cell[1])))[0]
        self.in_hand.pop(token, None)
        if token in gone:
            del self.tokens[gone[token]]
        return token, lifted[token]

    def _laid(self, card: SeenCard, index: int) -> None:
        for c in card.cells:
            self.covered[c] = card.cells
        # the rules take the cards in the order they came to rest, not the order they were seen settled
        bisect.insort(self.pending, Pending(card, self._rest_frame(list(set(card.cells)))), key=lambda p: p.frame)

    def _lifted(self, cells) -> None:
        for c in cells:
            self.covered.pop(c, None)
        frame = self._rest_frame(list(set(cells)))
        waiting = [p for p in self.pending if p.card.cells == cells and p.lifted is None]
        if waiting:  # taken back once it is judged
            waiting[0].lifted = frame
        else:
            self._take_back(cells, frame)

    def _take_back(self, cells, frame: int) -> None:  # a card the rules judged, lifted
        owner = self.owner_of.pop(cells, None)
        if owner is not None and self.round is not None:
            try:
                self.emit(self.round.takeback(owner, list(dict.fromkeys(cells)), frame))
            except LigrettoError as exc:  # the rules hold no such card there: said, not forced
                self.notes.append(f"frame {frame}: {exc}")

    # ---- the rules --------------------------------------------------------------------------
    def _judge_waiting(self, index: float) -> None:
        """The rules take the cards in the order they came to rest, each once `token_wait_s` has
        passed since: a card seen settled later may have come to rest earlier (a hand lingered)."""
        wait = self.cfg.token_wait_s * self.scene.fps
        while self.pending and index - self.pending[0].frame > wait:
            p = self.pending.pop(0)
            self._judge(p, p.token, p.onto)
            if p.lifted is not None:
                self._take_back(p.card.cells, p.lifted)
            self._follow_seen(p.frame)

    def _judge(self, p: Pending, token: str | None, onto: Cell | None) -> None:
        if self.round is None and not self.setup:  # told, not judged against tokens nobody saw
            why = "no token was seen set up on the board: its cards cannot be judged"
            if why not in self.notes:
                self.notes.append(why)
            return
        if self.round is None:  # the tokens where they were set up, before the first card
            first = {}
            for t, c in self.setup.items():  # one token per field: a second id seen there was the same token
                first.setdefault(c, t)
            self.round = BoardRound(self.board, self.scene.player_ids, {t: c for c, t in first.items()}, self.options)
        card, rnd = p.card, self.round
        stood = {t.id: t.cell for t in rnd.position.tokens}
        try:
            if card.joker:
                if rnd.jokers_left(card.owner) <= 0:
                    self.notes.append(f"frame {p.frame}: a joker of {card.owner}, who has none left")
                    return
                out = rnd.joker(card.owner, card.cells[0], p.frame)
            else:
                try:
                    out = rnd.place(card.owner, card.colours, list(card.cells), p.frame, token=token, onto=onto)
                except LigrettoError as exc:
                    self.notes.append(f"frame {p.frame}: {exc}; judged for the rules' own token")
                    out = rnd.place(card.owner, card.colours, list(card.cells), p.frame)
        except LigrettoError as exc:
            self.notes.append(f"frame {p.frame}: {exc}")
            return
        self.owner_of[card.cells] = card.owner
        moved = [e for e in out if isinstance(e, TokenEvent)]
        if card.joker:
            for e in moved:
                if self.tokens.get(stood[e.token]) == e.token:  # still seen where it stood: it goes when lifted
                    self.onto[e.token] = e.cell
                elif e.token in self.in_hand:  # lifted, and set down on the white joker, where it is not seen
                    del self.in_hand[e.token]
                    self.tokens.setdefault(e.cell, e.token)
        self.emit([e for e in out if not isinstance(e, TokenEvent)])

    def _follow_seen(self, frame: int) -> None:
        """The rules' tokens stand where the tokens are seen once the cards judged so far have moved
        theirs (a token set down on a card still waiting counts where it stood before), and the
        seen ones take the rules' ids. A card missed or given to the wrong player moves a token in
        the rules that did not move on the board, or none that did: without this, every later card
        beside it would be judged against a token that is not there."""
        if self.round is None or self.in_hand:
            return
        seen = dict(self.tokens)  # field -> id
        where = {t: c for c, t in seen.items()}
        for t, joker in self.onto.items():  # the rules moved it onto a joker; still seen where it stood
            if t in where and joker not in seen:
                seen[joker] = seen.pop(where[t])
        for p in self.pending:
            on_it = [c for c in p.card.cells if c in seen]
            if not on_it:
                continue
            if on_it != [p.onto] or p.came_from is None:  # a joker's token: where from is the rules' to say
                return
            seen[p.came_from] = seen.pop(p.onto)
        if len(seen) != len(self.round.position.tokens):
            return
        try:
            moved = self.round.tokens_stand(list(seen))
        except LigrettoError:
            return
        if moved:
            self.notes.append(f"frame {frame}: the rules follow the tokens as seen: "
                              + ", ".join(f"{t} onto {list(c)}" for t, c in moved.items()))
        ids = self.round.position.token_cells
        rename = {seen[c]: ids[c] for c in seen}
        self.tokens = {c: rename.get(t, t) for c, t in self.tokens.items()}
        self.onto = {rename.get(t, t): c for t, c in self.onto.items()}
        self.setup = {rename.get(t, t): c for t, c in self.setup.items()}
        for p in self.pending:
            p.token = rename.get(p.token, p.token)

    # ---- whose arm ----------------------------------------------------------------------------
    def _arm_owner(self, cells) -> str | None:
        """The player at the board's edge that the arm over these fields reached in from, in the
        frames before it let go (referee/board/arms.py); None where no arm was seen reaching in or
        two players sit at that edge."""
        frame = self._rest_frame(list(set(cells)))
        since = frame - max(5, int(self.cfg.arm_s * self.scene.fps))
        masks = [e.foreign for e in self.history if since <= e.frame <= frame and e.foreign.ndim == 2]
        half = self.grid.px // 2
        points = [(r * half + half // 2, c * half + half // 2) for c, r in cells]
        side = arm_side(masks, points, self.seated)
        return self.seated[side][0] if side is not None and len(self.seated[side]) == 1 else None
