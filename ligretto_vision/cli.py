"""The `ligretto-vision` command. Each sub-command is a thin front to one stage's module.

Errors a user can cause print one line naming the file, line and problem and exit 2;
nothing reaches the user as a bare traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ligretto_vision.errors import LigrettoError


def _simulate(args) -> int:
    from ligretto_vision.events import write_events
    from ligretto_vision.rules import RuleOptions
    from ligretto_vision.sim import BotStyle, SimTable

    table = SimTable(args.players, seed=args.seed, options=RuleOptions(), fps=args.fps,
                     edition_name=args.edition, style=BotStyle(mistakes=args.mistakes))
    events = table.run()
    out = Path(args.events)
    try:
        with out.open("w", encoding="utf-8") as fh:
            write_events(events, fh)
    except OSError as exc:
        raise LigrettoError(f"cannot write the event log: {exc.strerror}", path=str(out)) from None
    counts = [e for e in events if e.type == "count"]
    plays = sum(1 for e in events if e.type == "play")
    print(f"simulated {args.players} players, seed {args.seed}: {table.frame} frames "
          f"({table.frame / args.fps:.1f} s), {plays} plays, {len(events)} events -> {out}")
    for c in counts:
        print(f"  {c.data['player']}: centre {c.data['centre']}, stack {c.data['stack']}, score {c.data['score']}")
    return 0


def _check_log(args) -> int:
    from ligretto_vision.checklog import check_log

    report = check_log(args.scene, args.events)
    for line in report.problems:
        print(line)
    if report.scores:
        print("round scores: " + ", ".join(f"{p} {s:+d}" for p, s in report.scores.items()))
    verdict = "agrees with the rules on every event" if report.ok else f"{len(report.problems)} disagreement(s)"
    print(f"{report.log}: checked {report.checked} events: {verdict}")
    return 0 if report.ok else 1


def _config(args) -> int:
    from ligretto_vision.config import Config, load_config

    cfg = load_config(args.config) if args.config else Config()
    print(json.dumps(cfg.model_dump(mode="json"), indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="ligretto-vision", description="A camera referee for Ligretto.")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("simulate", help="play a round on the simulated table and write its event log")
    p.add_argument("--players", type=int, default=4, help="2 to 12")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--events", required=True, help="where to write the event log (JSON lines)")
    p.add_argument("--fps", type=float, default=30.0)
    p.add_argument("--edition", default="classic", choices=["classic", "dutch", "starwars"])
    p.add_argument("--mistakes", type=float, default=0.0, help="chance that a bot's play is wrong on purpose")
    p.set_defaults(func=_simulate)

    p = sub.add_parser("check-log", help="replay an event log through the rules and report disagreements")
    p.add_argument("scene", help="scene folder (scene.json)")
    p.add_argument("--events", help="event log to check (default: the scene's truth.jsonl)")
    p.set_defaults(func=_check_log)

    p = sub.add_parser("config", help="print the configuration in force (defaults when no file is given)")
    p.add_argument("--config", help="a TOML config file")
    p.set_defaults(func=_config)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "players", None) is not None and not 2 <= args.players <= 12:
        print("ligretto-vision: --players must be 2 to 12", file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except LigrettoError as exc:
        print(f"ligretto-vision: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
