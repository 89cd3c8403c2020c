"""Reading a card patch: colour and number of a face, owner of a back.

Colours and backs are learned at set-up from enrollment crops (a scene's `enroll/`,
or the same step at a real table), never from fixed hues, so other editions, decks
and lights work. Each card's colour is judged relative to its own white numerals
(or lettering): the light's colour cancels out, so a lamp switched on mid-round
does not turn yellow into orange. Numbers come from the ONNX number model.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.errors import LigrettoError
from ligretto_vision.recognise.numerals import DeckNumerals, NumberScores
from ligretto_vision.recognise.patches import PATCH_PPM, normalise, numeral_corners

MODEL = Path(__file__).resolve().parents[2] / "models" / "numbers.onnx"


@dataclass
class Reading:
    face_up: bool
    colour: str | None = None  # faces
    number: int | None = None  # faces
    owner: str | None = None  # backs: the enrolled player it matches; None: nobody (confidence 0) or one of
    # several players whose backs look alike (confidence > 0: how surely it is a back)
    confidence: float = 0.0  # 0..1, the weaker of the colour and number (or back) judgements
    # a number with a turned twin (an unmarked 6 or 9) read either way up: how sure the numeral is,
    # which way up aside (`confidence` is held down until the card's player says which way it faces)
    numeral_sure: float | None = None

    @property
    def shape_sure(self) -> float:
        return self.confidence if self.numeral_sure is None else self.numeral_sure

    @property
    def card(self) -> str | None:
        return f"{self.colour}-{self.number}" if self.face_up and self.colour and self.number else None


def _body_mask(shape) -> np.ndarray:
    """Where a card shows its plain printed colour: a band along the long edges, clear of
    the numeral corners and the motif in the middle."""
    h, w = shape[:2]
    m = np.zeros((h, w), bool)
    bx0, bx1 = int(w * 0.05), int(w * 0.17)
    y0, y1 = int(h * 0.38), int(h * 0.62)
    m[y0:y1, bx0:bx1] = True
    m[y0:y1, w - bx1:w - bx0] = True
    m[int(h * 0.04):int(h * 0.1), int(w * 0.55):int(w * 0.9)] = True
    m[h - int(h * 0.1):h - int(h * 0.04), int(w * 0.1):int(w * 0.45)] = True
    return m


def shade_of(ground: np.ndarray, white: np.ndarray) -> np.ndarray:
    """A printed colour relative to the print's own whites, (log b/g, log r/g): the light's colour
    and strength cancel out. `ground` and `white` are BGR, offset from zero."""
    rel = ground / white
    return np.array([np.log(rel[0] / rel[1]), np.log(rel[2] / rel[1])], np.float32)


def colour_feature(patch: np.ndarray) -> np.ndarray:
    """The card's printed colour relative to its own whites, (log b/g, log r/g): see `shade_of`."""
    body = np.median(patch[_body_mask(patch.shape)].astype(np.float32), axis=0) + 4.0
    return shade_of(body, _print_white(patch.reshape(-1, 3).astype(np.float32)))


def _print_white(px: np.ndarray) -> np.ndarray:
    """The print's white (its whitest 3 %: bright in every channel), offset from zero, of a card's
    pixels (N, 3) float32. Whitest, not brightest: on a yellow face blurred at a low resolution the
    yellow is brighter on average than the smeared white dots, and taken for white it leaves the
    dots as the card's colour."""
    least = px.min(1)
    return np.median(px[least >= np.percentile(least, 97)], axis=0) + 4.0


def face_colour(patch: np.ndarray, inked: float = 0.25) -> np.ndarray:
    """A face's printed colour relative to its own whites (see `colour_feature`), wherever the deck
    prints its colour: over the face, or only in a frame and the numerals of a white face."""
    return shade_of(*face_ink(patch, inked))


def face_ink(patch: np.ndarray, inked: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """A face's printed colour and its print's white, BGR offset from zero. Of the face's plain band
    (`_body_mask`), the pixels away from the print's white (`inked`: by this share of it in some
    channel) are the colour; where the band is mostly white, those of the whole face."""
    px = patch.reshape(-1, 3).astype(np.float32)
    white = _print_white(px)
    band = patch[_body_mask(patch.shape)].astype(np.float32)

    def away(p: np.ndarray) -> np.ndarray:
        return p[(np.abs(1.0 - (p + 4.0) / white)).max(axis=1) > inked]

    ink = away(band)
    if len(ink) < 0.3 * len(band):
        ink = away(px)
    return np.median(ink if len(ink) else band, axis=0) + 4.0, white


def upright(img: np.ndarray, card_mm) -> np.ndarray:
    """A picture of a card (an enrollment crop, a rendered back) as a canonical upright patch."""
    w, h = int(round(card_mm[0] * PATCH_PPM)), int(round(card_mm[1] * PATCH_PPM))
    if img.shape[1] > img.shape[0]:  # an enrollment crop lying on its side
        img = np.ascontiguousarray(np.rot90(img))
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)


@dataclass
class Enrollment:
    """What set-up taught us: one face crop per colour, one back crop per player, and (when the
    table took that step) the ten numbers of one colour: how this deck prints them."""
    faces: dict[str, np.ndarray] = field(default_factory=dict)  # colour -> feature
    backs: dict[str, np.ndarray] = field(default_factory=dict)  # player -> feature
    back_thumbs: dict[str, np.ndarray] = field(default_factory=dict)  # player -> normalised thumbnail
    back_images: dict[str, np.ndarray] = field(default_factory=dict)  # player -> upright back, 1 px/mm
    numerals: DeckNumerals | None = None  # None: no numbers enrolled, the general model reads alone

    @classmethod
    def from_folder(cls, folder: str | Path, card_mm, colours, players,
                    cfg: RecogniseConfig = RecogniseConfig()) -> "Enrollment":
        folder = Path(folder)
        en = cls()
        inks = {}
        for colour in colours:
            inks[colour] = face_ink(upright(_read(folder / "faces" / f"{colour}.png"), card_mm))
            en.faces[colour] = shade_of(*inks[colour])
        numbers = [folder / "numbers" / f"{n}.png" for n in range(1, 11)]
        if any(f.exists() for f in numbers):  # a partial set is a broken enrollment: _read names the missing file
            ten = [upright(_read(f), card_mm) for f in numbers]
            en.numerals = DeckNumerals.from_patches(ten, cfg, inks, en.colour_of_ten(ten))
        for p in players:
            f = folder / "backs" / f"{p}.png"
            if f.exists():
                patch = upright(_read(f), card_mm)
                en.backs[p] = colour_feature(patch)
                en.back_thumbs[p] = back_thumb(patch)
                en.back_images[p] = patch
        return en

    def colour_of(self, patch: np.ndarray) -> tuple[str, float]:
        """The enrolled colour nearest a face's, and how clearly; by the colour's direction (glare,
        blur and dim light wash a colour out, hardly turn it)."""
        f = face_colour(patch)
        name, _, conf = nearest({c: shade_distance(f, e) for c, e in self.faces.items()})
        return name, conf

    def colour_of_ten(self, ten: list[np.ndarray]) -> str | None:
        """The enrolled colour the ten numbers are printed in (they are all one colour)."""
        if not self.faces:
            return None
        votes = [self.colour_of(p)[0] for p in ten]
        return max(set(votes), key=votes.count)


def _read(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise LigrettoError("enrollment image is missing or not an image", path=str(path))
    return img


def shade_distance(f: np.ndarray, e: np.ndarray) -> float:
    """How far apart two printed colours (log b/g, log r/g relative to white) are. Glare, blur and
    dim light wash a colour out but hardly turn it: the direction counts more than the strength."""
    turn = abs((float(np.arctan2(f[1], f[0]) - np.arctan2(e[1], e[0])) + np.pi) % (2 * np.pi) - np.pi)
    washed = abs(float(np.log((np.hypot(f[0], f[1]) + 0.05) / (np.hypot(e[0], e[1]) + 0.05))))
    return turn + 0.25 * washed


def nearest(distances: dict[str, float]) -> tuple[str, float, float]:
    """The nearest name, its distance, and a confidence: how far ahead it is of the next."""
    order = sorted(distances, key=distances.get)
    best = distances[order[0]]
    second = distances[order[1]] if len(order) > 1 else best + 1
    return order[0], best, float(np.clip((second - best) / (second + 1e-6), 0, 1))


def clear_nearest(distances: dict[str, float], max_distance: float, min_lead: float) -> tuple[str | None, float]:
    """The nearest player and a confidence, or (None, 0) when nobody is near enough or two are
    about as near: a back like nobody's, or like two players', is unknown, never guessed."""
    name, best, conf = nearest(distances)
    if best > max_distance or conf < min_lead:  # 0.4: the second is nearer than best / 0.6
        return None, 0.0
    return name, conf


def _unit(img: np.ndarray) -> np.ndarray:
    """A picture as a unit vector with each channel's mean taken out: the dot product of two is
    their normalised correlation (cv2.TM_CCOEFF_NORMED), without a matchTemplate call's overhead."""
    v = img.astype(np.float32) - img.reshape(-1, img.shape[-1]).mean(axis=0)
    v = v.ravel()
    return v / (np.linalg.norm(v) + 1e-6)


def back_thumb(patch: np.ndarray) -> np.ndarray:
    """A small light-normalised picture of a back (colour and symbol) for matching backs."""
    t = cv2.resize(patch, (12, 18), interpolation=cv2.INTER_AREA).astype(np.float32)
    t -= t.mean(axis=(0, 1))
    return t / (np.linalg.norm(t) + 1e-6)


class NumberModel:
    def __init__(self, path: Path = MODEL):
        import onnxruntime as ort

        if not path.exists():
            raise LigrettoError("the number model is missing (run models/train_numbers.py)", path=str(path))
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    def corner_probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(N, 11) probabilities for single numeral-corner crops (N, H, W, 3)."""
        logits = self.session.run(None, {"crops": normalise(crops)})[0]
        e = np.exp(logits - logits.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)

    def probabilities(self, patches: list[np.ndarray]) -> np.ndarray:
        """(N, 11) probabilities per patch: 0 = no numeral (a back), 1..10; from both corners."""
        crops = np.concatenate([numeral_corners(p) for p in patches])
        return combine_corners(self.corner_probabilities(crops).reshape(len(patches), 2, -1))


def combine_corners(p: np.ndarray) -> np.ndarray:
    """(N, 2, 11) probabilities of each card's two numeral corners -> (N, 11) for the card.
    One corner may be under a hand, a sleeve or another card: the corner that shows one numeral
    most surely is trusted (a covered corner shows no numeral, or a smear of several), so a
    clear corner beside a covered one reads about as surely as two clear ones."""
    face = 1 - p[:, :, 0]  # (N, 2): shows a numeral at all
    num = p[:, :, 1:] / (face[:, :, None] + 1e-9)  # each corner's numbers, given it shows one
    sure = (face * num.max(2)) ** 2
    numbers = (num * (sure / (sure.sum(1, keepdims=True) + 1e-12))[:, :, None]).sum(1)
    best_face = face.max(1, keepdims=True)
    return np.concatenate([1 - best_face, numbers / (numbers.sum(1, keepdims=True) + 1e-9) * best_face], 1)


class CardReader:
    @classmethod
    def for_scene(cls, scene, cfg: RecogniseConfig = RecogniseConfig()) -> "CardReader":
        """The reader for a scene (or table) folder: its enrollment crops and the number model."""
        return cls(Enrollment.from_folder(scene.folder / "enroll", scene.card_mm, scene.colours, scene.player_ids,
                                          cfg), cfg=cfg)

    def __init__(self, enrollment: Enrollment, model: NumberModel | None = None,
                 cfg: RecogniseConfig = RecogniseConfig()):
        self.enrollment = enrollment
        self.cfg = cfg
        self.model = model or NumberModel()
        # enrolled backs as unit vectors, both ways up (see owner_of_back), and the size they come in
        self._prints = {p: (_unit(b), _unit(b[::-1, ::-1])) for p, b in enrollment.back_images.items()}
        self._back_size = next((b.shape[1::-1] for b in enrollment.back_images.values()), None)
        # does the general model read this deck? (its ten enrolled numbers, each as its number)
        cards = list(enrollment.numerals.cards) if enrollment.numerals is not None else []
        self.model_knows_deck = bool(cards) and \
            [int(p.argmax()) for p in self.model.probabilities(cards)] == list(range(1, 11))

    def colour_of(self, patch: np.ndarray) -> tuple[str, float]:
        return self.enrollment.colour_of(patch)

    def owner_of_back(self, patch: np.ndarray) -> tuple[str | None, float]:
        """The enrolled player whose back this is and how surely; (None, 0.0) when it matches nobody
        well; (None, c > 0) when it is surely someone's but the backs of several players look alike
        (one colour and print, told apart by a small box mark only)."""
        cfg = self.cfg
        if not self.enrollment.backs:
            return None, 0.0
        f = colour_feature(patch)
        thumb = back_thumb(patch)
        names = list(self.enrollment.backs)
        scores = []
        for p in names:
            sim = max(float((self.enrollment.back_thumbs[p] * thumb).sum()),
                      float((self.enrollment.back_thumbs[p] * thumb[::-1, ::-1]).sum()))
            scores.append(shade_distance(f, self.enrollment.backs[p]) + cfg.print_weight * (1 - sim))
        owner, conf = clear_nearest(dict(zip(names, scores)), cfg.owner_max, cfg.owner_lead)
        if not self.enrollment.back_images:
            return owner, conf
        # the whole print in its colours, either way up: normalised correlation with each back
        seen = _unit(cv2.resize(patch, self._back_size, interpolation=cv2.INTER_AREA))

        def print_match(p: str) -> float:
            return max(float(seen @ u) for u in self._prints[p])

        if owner is not None:
            # the colour says whose; a print unlike theirs is another box's back: unknown
            return (owner, conf) if print_match(owner) >= cfg.print_floor else (None, 0.0)
        # glare, blur or a finger left the colour unclear: the print may still be clearly one
        # player's (never a guess: a clear lead, or unknown)
        ncc = {p: print_match(p) for p in self.enrollment.back_images}
        order = sorted(ncc, key=ncc.get, reverse=True)
        if ncc[order[0]] >= cfg.print_sure and (len(order) == 1 or ncc[order[0]] - ncc[order[1]] >= cfg.print_margin):
            return order[0], float(ncc[order[0]] - (ncc[order[1]] if len(order) > 1 else 0))
        # backs alike, the colour near and the print matching: someone's, unclear whose (a ten turned
        # face down on a 9 is that pile's all the same; the arm that laid it says whose)
        alike = max((ncc[p] for p, s in zip(names, scores) if s <= cfg.owner_max), default=0.0)
        return None, (alike if alike >= cfg.print_sure else 0.0)

    def read(self, patches: list[np.ndarray], either_way: bool = True) -> list[Reading]:
        """Each patch read: a face's colour and number, or a back's owner. The deck's own enrolled
        numbers read a face first, and the general model's agreeing raises how sure that is; what
        they do not match (a back, a covered face, a table that skipped that step) the general
        number model reads alone. `either_way` False: each patch is cut the right way up (the deck's
        print read so: a 6 is no 9)."""
        if not patches:
            return []
        probs = self.model.probabilities(patches)
        return [self._read_one(patch, p, either_way) for patch, p in zip(patches, probs)]

    def _read_one(self, patch: np.ndarray, p: np.ndarray, either_way: bool = True) -> Reading:
        k = int(p.argmax())
        if self.enrollment.numerals is not None:
            colour, cconf = self.colour_of(patch)
            seen = self.enrollment.numerals.read(patch, either_way, colour)
            if seen.best >= self.cfg.numeral_least:
                number, sure = deck_and_model(seen, p, self.model_knows_deck, self.cfg)
                sure = float(min(sure, 0.5 + cconf / 2))
                if either_way and number in self.enrollment.numerals.twins:  # a 6 or a 9: which way up decides
                    return Reading(True, colour, number, confidence=min(sure, self.enrollment.numerals.twin_sure),
                                   numeral_sure=sure)
                return Reading(True, colour, number, confidence=sure)
            # not a face of this deck as enrolled: a back surely a player's (a ten turned face down) is
            # that back, even where the general model, which reads many prints poorly, sees a numeral
            # unsurely (a face washed out by glare that it reads surely stays a face)
            owner, conf = self.owner_of_back(patch)
            if owner is not None and (k == 0 or (conf >= self.cfg.sure_back and p[k] < self.cfg.sure_face)):
                return Reading(False, owner=owner, confidence=conf)
            if k == 0:  # nobody's back, or someone's whose backs look like others' (asked once)
                return Reading(False, owner=None, confidence=conf)
            if k != seen.number and not self.model_knows_deck:
                # a face matching this deck weakly, which the general model reads otherwise but cannot read
                # this deck: the deck's number, half as surely as it leads (a second look is due)
                return Reading(True, colour, seen.number, confidence=float(min(0.5 * seen.confidence, 0.5 + cconf / 2)))
            return Reading(True, colour, k, confidence=float(min(p[k], 0.5 + cconf / 2)))
        if k == 0:
            owner, conf = self.owner_of_back(patch)
            return Reading(False, owner=owner, confidence=float(p[0]) * conf)
        colour, cconf = self.colour_of(patch)
        return Reading(True, colour, k, confidence=float(min(p[k], 0.5 + cconf / 2)))


def deck_and_model(seen: NumberScores, p: np.ndarray, model_knows_deck: bool,
                   cfg: RecogniseConfig = RecogniseConfig()) -> tuple[int, float]:
    """A face's number and how sure it is, from the deck's enrolled numbers (`seen`) and the general
    model (N=11 probabilities). A card that matches the deck's print only weakly (cut a little off,
    another card's edge in it) is read less surely the weaker it matches. Two readings of different
    kinds that agree are surer than either. Where they differ the deck's own print is trusted (the
    general model reads many prints poorly, and surely), unless the general model reads this deck
    (`model_knows_deck`: its ten enrolled numbers right): then, against a weak match, the general
    model's reading of a numeral stands, and against a middling one (below `numeral_sure`) the
    surer of the two is read half as surely (a second look is due)."""
    k = int(p.argmax())
    weak = seen.best < cfg.numeral_good
    sure = seen.confidence * (float(np.clip((seen.best - cfg.numeral_least) / max(cfg.numeral_good - cfg.numeral_least, 1e-6),
                                            0.0, 1.0)) if weak else 1.0)
    if k == seen.number:
        return k, 1.0 - (1.0 - sure) * (1.0 - float(p[k]))
    if weak and k != 0 and model_knows_deck:
        return k, float(p[k])
    if k != 0 and model_knows_deck and seen.best < cfg.numeral_sure:
        # two readers that both read this deck disagree, neither match strong: a second look
        return (seen.number, 0.5 * sure) if sure >= p[k] else (k, 0.5 * float(p[k]))
    return seen.number, sure
