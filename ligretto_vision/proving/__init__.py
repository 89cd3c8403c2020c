"""The proving ground: tables the referee has never seen, generated, refereed and scored.

- `draw.py`: every choice of one generated table (deck print, edition, cloth, seats, light,
  camera, video, players, rules), drawn from one seed; the two seed ranges that never mix.
- `deck.py`: card faces and backs of many print families and fonts.
- `surfaces.py`: cloths, wood, checks, flowers, photo-like textures, props.
- `film.py`: the frames: the simulated table's state each frame, hands that carry cards,
  light, camera shake, knocks, lens, rolling shutter, noise, H.264.
- `generate.py`: one scene folder exactly as ../shared/SCENES.md describes.
- `suite.py`: make or reuse a suite, referee every scene, score, report per kind.
- `stages.py`: the recognition stages measured alone on generated pictures.
- the board game's scenes (../shared/BOARD-SCENES.md), with the same table, light, arms and camera:
  `board_draw.py` (every choice of a board table, by seed and kind), `board_pieces.py` (the board,
  cards with their players' borders, jokers, tokens), `board_script.py` (the bots' round timed for
  the hands, its truth from the rules), `board_film.py` (its frames and the scene folder).

Nothing here is imported by the referee: it is the referee's examiner.
"""
