"""`ligretto-vision replay SCENE --events FILE`: the live pipeline fed from a scene's video."""
from __future__ import annotations

from pathlib import Path

from ligretto_vision.capture.lossy import losing_frames
from ligretto_vision.capture.scene_source import SceneSource
from ligretto_vision.config.vision import VisionConfig
from ligretto_vision.errors import LigrettoError
from ligretto_vision.events import write_events
from ligretto_vision.referee.pipeline import Pipeline, Stats


def replay(scene_dir: str | Path, events_path: str | Path, max_frames: int | None = None,
           vision: VisionConfig = VisionConfig(), lose_frames: float = 0.0, seed: int = 0) -> Stats:
    """`vision`: the thresholds of every vision stage (a config file's `[vision]`). `lose_frames`:
    the share of frames lost on the way, in bursts (seeded by `seed`), as a live camera may."""
    source = SceneSource(scene_dir)
    if source.scene.is_board_game:
        return _replay_board(source, events_path, max_frames, vision)
    with open_log(events_path) as fh:
        def emit(events):
            write_events(events, fh)
            fh.flush()  # a live log: what was decided is on disk at once

        pipe = Pipeline(source.scene, emit, vision=vision)
        frames = source.frames()
        if max_frames is not None:
            frames = (f for f in frames if f.index < max_frames)
        if lose_frames:
            frames = losing_frames(frames, lose_frames, seed)
        try:
            return pipe.run(frames)
        finally:
            source.close()


def open_log(events_path: str | Path):
    """The event log file, opened for writing, or an error that names it."""
    out = Path(events_path)
    try:
        return out.open("w", encoding="utf-8")
    except OSError as exc:
        raise LigrettoError(f"cannot write the event log: {exc.strerror}", path=str(out)) from None


def _replay_board(source: SceneSource, events_path, max_frames, vision: VisionConfig) -> Stats:
    """A board-game scene (`"game": "board"`): the board referee, with the board rules."""
    import time

    from ligretto_vision.referee.board.referee import BoardReferee

    stats = Stats()
    with open_log(events_path) as fh:
        def emit(events):
            for e in events:
                write_events([e.to_event()], fh)
                stats.events += 1
            fh.flush()

        ref = BoardReferee(source.scene, emit, vision.board, vision.detect)
        try:
            for f in source.frames():
                if max_frames is not None and f.index >= max_frames:
                    break
                t0 = time.perf_counter()
                ref.push(f.index, f.image)
                stats.referee_s += time.perf_counter() - t0
                stats.frames += 1
            ref.finish()
        finally:
            source.close()
        stats.notes.extend(ref.notes)
    return stats
