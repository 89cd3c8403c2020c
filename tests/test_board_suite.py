"""The board game's proving-ground report: figures per kind and over all, a figure a scene has none of
left out of its mean, a scene that failed named."""
from ligretto_vision.proving.board_suite import report


def test_the_report_averages_each_kind_and_all_and_names_failures():
    results = [
        {"kind": "plain", "seed": 0, "figures": {"place_f1": 1.0, "legal_acc": 0.5, "rank_exact": None}},
        {"kind": "plain", "seed": 1, "figures": {"place_f1": 0.5, "legal_acc": 1.0, "rank_exact": 1.0}},
        {"kind": "knock", "seed": 0, "figures": {"place_f1": 0.0, "legal_acc": 1.0, "rank_exact": 0.0}},
        {"kind": "knock", "seed": 1, "error": "LigrettoError: no markers"},
    ]
    lines = report(results).splitlines()
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {r.strip("|").split("|")[0].strip(): [c.strip() for c in r.strip("|").split("|")]
            for r in lines[2:] if r.startswith("|")}
    col = {name: i for i, name in enumerate(head)}
    assert rows["plain"][col["scenes"]] == "2" and rows["plain"][col["place_f1"]] == "0.750"
    assert rows["plain"][col["rank_exact"]] == "1.000"  # the scene without ranks is left out
    assert rows["every kind"][col["place_f1"]] == "0.500" and rows["every kind"][col["scenes"]] == "3"
    assert rows["knock"][col["token_f1"]] == "–"
    assert any("knock-1" in line and "no markers" in line for line in lines)


def test_the_panels_board_state_shows_a_finished_round_as_the_rules_hold_it():
    """board_state (what /api/board serves) of a round the bots played to its ranks: every card lying,
    the illegal ones with their reason, the tokens, and the ranks with chips and cards put aside."""
    from types import SimpleNamespace

    from ligretto_vision.geometry.board_grid import BoardGrid
    from ligretto_vision.referee.board.state import board_state
    from ligretto_vision.rules.board.log import JokerEvent, PlaceEvent
    from ligretto_vision.sim.board_table import BoardBotStyle, BoardSimTable

    table = BoardSimTable(n_players=3, seed=5, style=BoardBotStyle(mistakes=0.3, take_back=0.3))
    events = table.run()
    rnd = table.round
    players = [SimpleNamespace(id=p, seat=s) for p, s in zip(rnd.players, ("south", "north", "west"))]
    referee = SimpleNamespace(scene=SimpleNamespace(players=players, palette={"red": (200, 0, 0)}), round=rnd,
                              grid=BoardGrid((0, 0), 40, table.board.cols, table.board.rows), board=table.board,
                              tokens={}, notes=[], illegal=[e for e in events if isinstance(e, (PlaceEvent, JokerEvent))
                                                           and e.legal is False])
    assert referee.illegal, "bots that make mistakes lay illegal cards"
    state = board_state(referee)
    assert state["ended"] and len(state["ranks"]) == 3
    assert {r["player"]: (r["place"], r["chips"], r["aside"]) for r in state["ranks"]} == {
        r.player: (r.place, r.chips, r.aside) for r in rnd.ranks()}
    assert len(state["lying"]) == len(rnd.position.lying) and len(state["tokens"]) == len(rnd.position.tokens)
    assert all(x["reason"] for x in state["illegal"]) and len(state["illegal"]) == len(referee.illegal)
