"""The referee: what a change on the table means and who made it, handed to the rules.

- pipeline:   frames in, events out in frame order; owns the round and publishes `view` (TableView)
- referee:    `Referee`, which only coordinates the decisions below for each settled change
- moves:      what a change means (`meaning` -> `Move`: play, takeback, unchanged, unreadable, ...)
- deliverers: who laid a card (one function over the arm traces and the card's pose)
- early:      the early look at a card an arm still touches
- round_end:  a stack gone, the round's end
- counting:   when and what to count after the stop (the reading itself is in recognise/)
- pictures:   the reference pictures a change is compared with
- view, spec: the read-only view for overlay and panel; the table's facts
- replay:     `ligretto-vision replay`, the pipeline fed from a scene (a board scene: the board referee)
- board/:     the board game's referee: `referee` (frames -> settled changes -> the board rules), `changes`
              (what a settled change is), `timing` (when a hand let go), `state` (the board for the panel)

Legality is never decided here: `rules.Round` judges every move. Every threshold is a field of
`config.referee.RefereeConfig`, handed in.
"""
