"""The board game's referee: the board's top view, frame by frame -> what came to rest on which
fields -> the board rules (rules/board/) -> the BOARD-SCENES.md event log."""
