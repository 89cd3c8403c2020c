"""The `ligretto-vision` command. Each sub-command is a thin front to one stage's module.

Errors a user can cause print one line naming the file, line and problem and exit 2;
nothing reaches the user as a bare traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
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


def _vision(args):
    """The `[vision]` section of the config file given with --config (defaults without one), so one
    stage's thresholds can be swept on a scene or the proving ground."""
    from ligretto_vision.config import load_config
    from ligretto_vision.config.vision import VisionConfig

    return load_config(args.config).vision if args.config else VisionConfig()


def _replay(args) -> int:
    from ligretto_vision.referee.replay import replay

    stats = replay(args.scene, args.events, args.max_frames, _vision(args), args.lose_frames, args.seed)
    lost = f" ({stats.missed} lost on the way)" if stats.missed else ""
    print(f"{stats.frames} frames{lost}, {stats.events} events -> {args.events}")
    print(f"decision lag after the rest frame: {stats.lag_summary()}")
    print(f"referee time {stats.referee_s / max(1, stats.frames) * 1000:.2f} ms per frame (video decode not counted)")
    for note in stats.notes[:10]:
        print(f"note: {note}")
    return 0


def _inspect(args) -> int:
    from ligretto_vision.inspect import inspect

    seen = inspect(args.scene, args.frame, args.out)
    for c in seen:
        print(f"{c['card']:>10}  at {c['at']}  {c['zone']:>6}  confidence {c['confidence']:.2f}")
    print(f"{len(seen)} cards -> {args.out}")
    return 0


def _bench(args) -> int:
    from ligretto_vision.bench import bench, bench_count, bench_modes, report, report_count, report_modes

    print(report(bench(args.scene, args.frames)))
    if args.modes:
        print()
        print(report_modes(bench_modes(args.scene, min(args.frames, 300))))
    if args.count:
        print()
        print(report_count(bench_count()))
    return 0


def _eval_lag(args) -> int:
    from ligretto_vision.evaluate import eval_lag

    for scene in args.scenes:
        lags, total = eval_lag(scene)
        if not lags:
            print(f"{Path(scene).name}: none of {total} plays found")
            continue
        worst, t = max(lags, key=lambda lt: lt[0])
        median = sorted(l for l, _ in lags)[len(lags) // 2]
        print(f"{Path(scene).name}: {len(lags)}/{total} plays found; decided after their rest frame: median "
              f"{median:.2f} s, worst {worst:.2f} s ({t['card']} at frame {t['frame']})")
    return 0


def _eval_reading(args) -> int:
    from ligretto_vision.evaluate import eval_reading

    tot = a = b = 0
    for scene in args.scenes:
        r = eval_reading(scene)
        tot, a, b = tot + r.total, a + r.right_at_truth, b + r.right_after_search
        print(f"{r.scene}: {r.total} plays, read right {r.right_at_truth}/{r.total} at the true pose, "
              f"{r.right_after_search}/{r.total} after finding the card; calibration {r.calibration_mm:.2f} mm")
        for m in r.misses:
            print(f"  miss: {m}")
    if tot:
        print(f"all: {a / tot:.4f} at the true pose, {b / tot:.4f} after finding the card ({tot} plays)")
    if args.backs:
        from ligretto_vision.evaluate import eval_backs

        got = eval_backs(args.scenes, per_back=args.backs, seed=args.seed, fingers=args.fingers)
        for name, (right, total) in got.items():
            print(f"{name}: enrolled backs on our renders told apart {right}/{total}")
        right, total = sum(r for r, _ in got.values()), sum(t for _, t in got.values())
        hands = ", fingers over them" if args.fingers else ""
        print(f"backs, all: {right}/{total} = {right / max(1, total):.4f} (seed {args.seed}{hands})")
    return 0


def _generate_scene(args) -> int:
    if args.game == "board":
        from ligretto_vision.proving.board_film import generate_board

        if args.seconds is not None:
            raise LigrettoError("--seconds is the card game's: a board scene lasts its round (set --cards)")
        given = {k: v for k, v in (("kind", args.kind), ("cards", args.cards)) if v is not None}  # else the generator's
        g = generate_board(args.seed, args.out, **given)
    else:
        from ligretto_vision.proving.generate import generate

        if args.kind is not None or args.cards is not None:
            raise LigrettoError("--kind and --cards are the board game's (--game board)")
        g = generate(args.seed, args.out, length_s=args.seconds)
    kinds = json.loads((Path(g.folder) / "draw.json").read_text(encoding="utf-8"))["kinds"]
    print(f"{g.folder}: {g.frames} frames made in {g.seconds:.1f} s; " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
    return 0


def _proving_ground(args) -> int:
    from ligretto_vision.proving import suite

    t0 = time.monotonic()
    if args.game == "board":
        from ligretto_vision.proving import board_suite

        results = board_suite.run_board_suite(args.range, args.dir, args.per_kind, args.workers, args.scorer)
        print(board_suite.report(results))
        if args.report:
            Path(args.report).write_text(json.dumps(results, indent=1), encoding="utf-8")
        print(f"\n{len(results)} board scenes of the {args.range} range in {time.monotonic() - t0:.0f} s")
        return 1 if any("error" in r for r in results) else 0
    results = suite.run_suite(args.suite, args.range, args.dir, args.workers, args.scorer, vision=_vision(args),
                              lose_frames=args.lose_frames)
    print(suite.report(results))
    if args.report:
        suite.save(results, args.report)
    if args.misses:
        from ligretto_vision.proving.misses import explain

        print("\n" + explain([Path(args.dir) / args.range / str(r.seed) for r in results if not r.error]))
    made = sum(r.make_s for r in results)
    lost = f", {args.lose_frames:.0%} of their frames lost on the way" if args.lose_frames else ""
    print(f"\n{len(results)} scenes of the {args.range} range ({args.suite} suite{lost}) in {time.monotonic() - t0:.0f} s "
          f"({made:.0f} s of it making scenes, summed over {args.workers} workers)")
    return 1 if any(r.error for r in results) else 0


def _proving_stages(args) -> int:
    from ligretto_vision.proving.stages import evaluate_stages, format_report

    t0 = time.monotonic()
    vision = _vision(args)
    if args.arms:
        from ligretto_vision.proving.arms_stage import evaluate_arms, format_arms

        print(format_arms(evaluate_arms(args.range, args.tables, detect=vision.detect)))
    elif args.count:
        from ligretto_vision.proving.fan_stage import evaluate_fans, format_fans
        from ligretto_vision.proving.spread_stage import evaluate_spreads, format_spreads

        if not args.fans_only:
            print(format_spreads(evaluate_spreads(args.range, args.tables, recognise=vision.recognise, detect=vision.detect)))
            print()
        print(format_fans(evaluate_fans(args.range, args.tables, recognise=vision.recognise, detect=vision.detect)))
    else:
        print(format_report(evaluate_stages(args.range, args.tables, recognise=vision.recognise,
                                            numbers=not args.no_numbers)))
    print(f"\n{args.tables} generated tables of the {args.range} range in {time.monotonic() - t0:.0f} s")
    return 0


def _config(args) -> int:
    from ligretto_vision.config import Config, load_config

    cfg = load_config(args.config) if args.config else Config()
    if args.vision:
        from ligretto_vision.config.vision import vision_toml

        print(vision_toml(cfg.vision), end="")
    else:
        print(json.dumps(cfg.model_dump(mode="json"), indent=2))
    return 0


def _geometry(args) -> int:
    from ligretto_vision.hardware.cameras import camera_spec
    from ligretto_vision.hardware.mounting import describe, parse_size, plan_mount

    main_size = tuple(int(v) for v in parse_size(args.main, "--main")) if args.main else None
    plan = plan_mount(camera_spec(args.camera), parse_size(args.table, "--table"), margin_mm=args.margin,
                      fps=args.fps, main_size=main_size)
    print(describe(plan))
    return 0


def _markers(args) -> int:
    from ligretto_vision.hardware.markers import CORNERS, write_marker_sheet

    out = write_marker_sheet(args.out, size_mm=args.size_mm, page=args.page)
    print(f"wrote {out}: ArUco DICT_4X4_50 ids 0-3, {args.size_mm:g} mm; print at 100 %")
    for mid, corner in CORNERS.items():
        print(f"  id {mid}: {corner} corner of the play area, centre {args.size_mm / 2 + 22:g} mm in from both edges")
    return 0


def _serve(args) -> int:
    from ligretto_vision.config import load_config
    from ligretto_vision.panel.server import serve

    if args.speed <= 0:
        raise LigrettoError("--speed must be above 0")
    return serve(load_config(args.config), port=args.port, speed=args.speed)


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
    p.add_argument("--events", help="event log to check (default: the truth log of a sample scene)")
    p.set_defaults(func=_check_log)

    p = sub.add_parser("serve", help="run the referee with its web panel on [table].source (the simulated table, a camera, a video or a scene folder)")
    p.add_argument("--config", help="a TOML config file (default: ligretto-vision.toml if present)")
    p.add_argument("--port", type=int, help="panel port (default: [panel].port)")
    p.add_argument("--speed", type=float, default=1.0, help="run the simulated table this many times faster (demos, tests)")
    p.set_defaults(func=_serve)

    p = sub.add_parser("replay", help="referee a recorded scene frame by frame and write its event log")
    p.add_argument("scene", help="scene folder (scene.json, video, enroll/)")
    p.add_argument("--events", required=True, help="where to write the event log (JSON lines)")
    p.add_argument("--max-frames", type=int, help="stop after this many frames")
    p.add_argument("--config", help="a TOML config file whose [vision] thresholds to use (default: the defaults)")
    p.add_argument("--lose-frames", type=float, default=0.0, metavar="SHARE",
                   help="lose this share of the frames on the way, in bursts, as a live camera may (0.05: 5 %%)")
    p.add_argument("--seed", type=int, default=0, help="which frames --lose-frames loses")
    p.set_defaults(func=_replay)

    p = sub.add_parser("inspect", help="draw what the referee sees in one frame of a scene")
    p.add_argument("scene")
    p.add_argument("--frame", type=int, default=0)
    p.add_argument("--out", required=True, help="PNG file to write")
    p.set_defaults(func=_inspect)

    p = sub.add_parser("bench", help="measure the cost of each stage on one core (printed, not asserted)")
    p.add_argument("scene", help="scene folder to run on")
    p.add_argument("--frames", type=int, default=900)
    p.add_argument("--modes", action="store_true", help="also run the whole referee at each Pi camera mode")
    p.add_argument("--count", action="store_true", help="also count rendered centre spreads of 2 to 12 players")
    p.set_defaults(func=_bench)

    p = sub.add_parser("eval-reading", help="measure card reading on scenes with truth (the seeing stage alone)")
    p.add_argument("scenes", nargs="+")
    p.add_argument("--backs", type=int, default=0, metavar="N",
                   help="also render each enrolled back N times onto our own tables and tell them apart")
    p.add_argument("--seed", type=int, default=0, help="seed of those renders")
    p.add_argument("--fingers", action="store_true", help="render fingers over those backs too (a harder set)")
    p.set_defaults(func=_eval_reading)

    p = sub.add_parser("eval-lag", help="measure how soon each play is decided after the truth's rest frame")
    p.add_argument("scenes", nargs="+")
    p.set_defaults(func=_eval_lag)

    p = sub.add_parser("generate-scene", help="make one generated scene folder (video, scene.json, enroll/, truth)")
    p.add_argument("--seed", type=int, required=True, help="every choice of the table comes from it; >= 1000000: the measuring range")
    p.add_argument("--out", required=True, help="the scene folder to write")
    p.add_argument("--seconds", type=float, help="the scene's length (default: as drawn from the seed, 12-20 s)")
    p.add_argument("--game", choices=["cards", "board"], default="cards",
                   help="cards: the card game (SCENES.md, default); board: the board game (BOARD-SCENES.md)")
    p.add_argument("--kind", help="board game: what kind of table: plain (default), other-board, four-players, all, "
                   "or one camera effect alone (vibration, knock, h264-4mbit, rolling-shutter, lamp-switch, ...)")
    p.add_argument("--cards", type=int, help="board game: cards each player lays at most (default: the generator's, "
                   "a round of 20-40 s)")
    p.set_defaults(func=_generate_scene)

    p = sub.add_parser("proving-ground", help="referee and score a suite of generated scenes, figures per kind")
    p.add_argument("--suite", default="quick", choices=["quick", "standard"], help="quick: 10 scenes; standard: 60")
    p.add_argument("--range", default="measure", choices=["measure", "tune"],
                   help="measure: scenes never tuned on (default); tune: scenes for training and tuning")
    p.add_argument("--dir", default="build/proving", help="where the scenes are kept and reused")
    p.add_argument("--workers", type=int, default=2, help="scenes made and refereed at once (one core each)")
    p.add_argument("--scorer", help="score_events.py (default: ../shared/tools/score_events.py)")
    p.add_argument("--report", help="also write every scene's figures to this JSON file")
    p.add_argument("--config", help="a TOML config file whose [vision] thresholds to referee with (a stage swept)")
    p.add_argument("--lose-frames", type=float, default=0.0, metavar="SHARE",
                   help="lose this share of every scene's frames on the way, in bursts, as a live camera may")
    p.add_argument("--misses", action="store_true", help="also list every play missed, by why (late, dispute, "
                   "misread, never written), and every wrong call of illegal, scene by scene")
    p.add_argument("--game", default="cards", choices=["cards", "board"],
                   help="board: the board game's scenes, every kind (--per-kind each), scored by score_board.py")
    p.add_argument("--per-kind", type=int, default=2, help="board game: scenes of each kind")
    p.set_defaults(func=_proving_ground)

    p = sub.add_parser("proving-stages", help="measure card finding, number, colour and back reading alone, per print family")
    p.add_argument("--range", default="measure", choices=["measure", "tune"])
    p.add_argument("--tables", type=int, default=40,
                   help="generated tables to lay out (10-25 cards and 2-4 backs each; with --count, a spread)")
    p.add_argument("--config", help="a TOML config file whose [vision] thresholds to read (and count) with")
    p.add_argument("--no-numbers", action="store_true",
                   help="tables that skipped the set-up step 'lay out 1 to 10' (the general number model alone)")
    p.add_argument("--count", action="store_true",
                   help="the count stage instead: a face-down centre spread per table, counted by its backs, and "
                        "each player's fan of stack cards")
    p.add_argument("--fans-only", action="store_true", help="with --count: the fans alone")
    p.add_argument("--arms", action="store_true",
                   help="the arms stage instead: 10 s of each table's round filmed (no encoder), and whose arm "
                        "each hand over the table is given in every frame of play, per seat count")
    p.set_defaults(func=_proving_stages)

    p = sub.add_parser("config", help="print the configuration in force (defaults when no file is given)")
    p.add_argument("--config", help="a TOML config file")
    p.add_argument("--vision", action="store_true",
                   help="print the [vision.*] thresholds as TOML, each with its meaning and bounds")
    p.set_defaults(func=_config)

    from ligretto_vision.hardware.cameras import CAMERAS

    p = sub.add_parser("geometry", help="how high to mount the camera over a table, and what it will see")
    p.add_argument("--table", default="1300x760", help="play area in mm, WIDTHxHEIGHT (default 1300x760)")
    p.add_argument("--camera", default="module3", choices=sorted(CAMERAS))
    p.add_argument("--margin", type=float, default=50.0, help="mm of view beyond the play area on each side")
    p.add_argument("--fps", type=float, default=30.0)
    p.add_argument("--main", help="main stream size in pixels, WIDTHxHEIGHT (default: the smallest that is sharp enough)")
    p.set_defaults(func=_geometry)

    p = sub.add_parser("markers", help="write the printable sheet of the four ArUco table markers (SVG)")
    p.add_argument("--out", default="markers.svg", help="SVG file to write")
    p.add_argument("--size-mm", type=float, default=60.0, help="marker side in mm (default 60, as the sample scenes)")
    p.add_argument("--page", default="a4", choices=["a4", "letter"])
    p.set_defaults(func=_markers)
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
