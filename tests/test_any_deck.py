"""Any deck (issue 17): the sample scenes of another edition and of tens turned face down, replayed
blind and scored by the project's scorer against the refereeing bars (count_exact 1.0 where counted)."""
import pytest

from conftest import sample_scenes
from test_referee import THRESHOLDS, blind_replay


def _scene(name: str):
    found = [p for p in sample_scenes() if p.name == name]
    if not found:
        pytest.skip(f"sample scene {name} not found (set LIGRETTO_SHARED)")
    return found[0]


def _unmet(figures: dict) -> dict:
    bars = {**THRESHOLDS, **({"count_exact": 1.0} if "count_exact" in figures else {})}
    return {k: figures[k] for k, low in bars.items() if figures[k] < low}


def test_tens_face_down_on_white_and_blue_checks(tmp_path):
    """s06: a white-faced print in a coloured frame on gingham, tens laid face down: a back on a 9
    is that pile's 10 and closes it."""
    _, _, figures = blind_replay(_scene("s06-tens-down-3p"), tmp_path)
    assert not _unmet(figures), figures


@pytest.mark.xfail(strict=True, reason="s05 does not meet every bar yet: a player's arm over the table "
                   "when watching begins hides a pile and a card laid under it (play_f1 0.96), two plays "
                   "are given to the neighbouring seat (player_acc 0.91), the round's end is found late "
                   "and the count is one card off for two of five players (README: any deck)")
def test_a_five_player_dutch_edition_round_to_the_count(tmp_path):
    """s05: five players round an oval table, the dutch edition (pink, blue, turquoise, yellow; pale
    numerals in the middle and four small corners), the round played to the count."""
    _, _, figures = blind_replay(_scene("s05-five-dutch"), tmp_path)
    assert figures["legal_acc"] >= THRESHOLDS["legal_acc"], figures  # never a legal play called illegal
    assert not _unmet(figures), figures
