"""`[vision]`: one section per stage, each handed to the stage that uses it, so one stage can be
swept on the proving ground (or adjusted for one table) without touching the others."""
import json

from ligretto_vision.config.base import Strict
from ligretto_vision.config.board import BoardConfig
from ligretto_vision.config.detect import DetectConfig
from ligretto_vision.config.recognise import RecogniseConfig
from ligretto_vision.config.referee import RefereeConfig


class VisionConfig(Strict):
    detect: DetectConfig = DetectConfig()
    recognise: RecogniseConfig = RecogniseConfig()
    referee: RefereeConfig = RefereeConfig()
    board: BoardConfig = BoardConfig()


def _bounds(field) -> str:
    low = high = None
    for m in field.metadata:  # annotated_types.Ge / Le / Gt / Lt
        for name, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            if hasattr(m, name):
                if sign.startswith(">"):
                    low = f"{sign} {getattr(m, name)}"
                else:
                    high = f"{sign} {getattr(m, name)}"
    return ", ".join(b for b in (low, high) if b)


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(v) if isinstance(v, str) else repr(v)


def vision_toml(vision: VisionConfig | None = None) -> str:
    """The `[vision.*]` tables as a commented starting file: every threshold with its default (or the
    value in force), its meaning and its bounds, so a table's file can adjust one knowingly."""
    vision = vision or VisionConfig()
    out = []
    for stage, field in VisionConfig.model_fields.items():
        section = getattr(vision, stage)
        out.append(f"[vision.{stage}]")
        for name, f in type(section).model_fields.items():
            bounds = _bounds(f)
            out.append(f"# {f.description or name}" + (f" ({bounds})" if bounds else ""))
            out.append(f"# {name} = {_toml_value(getattr(section, name))}")
        out.append("")
    return "\n".join(out)
