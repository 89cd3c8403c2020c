"""`[vision.board]`: the thresholds of the board game's vision (geometry/board_grid.py,
recognise/board_look.py, referee/board/), each bounded."""
from pydantic import Field

from ligretto_vision.config.base import Strict


class BoardConfig(Strict):
    px_per_field: int = Field(32, ge=16, le=96, multiple_of=4, description="the board is looked at from straight above "
                              "at this many pixels per field")
    moved_level: int = Field(15, ge=1, le=255, description="a pixel moved between two frames when a channel "
                             "changed by more than this")
    moved_shift: float = Field(0.2, ge=0.0, le=3.0, description="... plus what a shift of this many half-view "
                               "pixels changes it by at an edge (what is left of a shaking camera's is no motion)")
    changed_level: int = Field(28, ge=1, le=255, description="a pixel differs from the board as last settled "
                               "when a channel differs by more than this")
    still_share: float = Field(0.1, ge=0.0, le=1.0, description="a field lies still in a frame when less than "
                               "this share of it moved")
    quiet_share: float = Field(0.03, ge=0.0, le=1.0, description="... and is quiet (nothing near it moves) "
                               "when less than this share of it and its neighbours moved")
    quiet_s: float = Field(0.3, gt=0.0, le=3.0, description="a change is looked at once its fields and their "
                           "neighbours have been quiet this long")
    settle_frames: int = Field(4, ge=1, le=30, description="a settled change (and the empty board) is read from "
                               "the mean of this many latest frames (a dim lamp's noise averaged out)")
    changed_share: float = Field(0.12, ge=0.0, le=1.0, description="a field changed when at least this share "
                                 "of it differs from the board as last settled")
    held_frames: int = Field(2, ge=1, le=10, description="a hand that held a card (or token) still this many "
                             "frames and then moved let go of it then")
    line_least: float = Field(6.0, ge=0.0, le=255.0, description="a card's printed border shows along each of "
                              "its four edges at least this dark against the card")
    line_ratio: float = Field(4.0, ge=1.0, le=100.0, description="... or at least half as dark, and this many "
                              "times as dark as round the field's other neighbour (a faint print, a blurred view)")
    white_least: int = Field(170, ge=0, le=255, description="token and joker white: at least this bright (HSV; "
                             "replaced by what the enrolled token shows, below) ...")
    white_most_sat: int = Field(70, ge=0, le=255, description="... and at most this saturated")
    white_sat_margin: int = Field(20, ge=0, le=255, description="... and at most this much more saturated than "
                                  "the enrolled token (enroll/token.png)")
    white_value_share: float = Field(0.7, gt=0.0, le=1.0, description="... and at least this share as bright as it")
    token_share: float = Field(0.65, ge=0.0, le=1.0, description="a token stands on a field when at least this "
                               "share of the disc at its centre is token white (a joker's star leaves less)")
    joker_share: float = Field(0.35, ge=0.0, le=1.0, description="a joker lies on a field when at least this "
                               "share of the field's rim is white too (a token's shadow leaves less)")
    shake_steps: int = Field(5, ge=1, le=10, description="looks at most per frame to find a shaking camera's "
                             "shift (the board's hard edges between fields leave each look a part of it)")
    arm_s: float = Field(0.6, gt=0.0, le=3.0, description="whose card: the arm over it is followed back this "
                         "long before it came to rest, to the board's edge it reached in from (4 s are kept)")
    recheck_s: float = Field(1.0, gt=0.0, le=60.0, description="how often the markers are looked at for a knocked "
                             "camera (and at once when the board seems to jump)")
    token_wait_s: float = Field(3.0, gt=0.0, le=20.0, description="a card is judged this long after it came to "
                                "rest: its token has moved by then (an illegal card moves none), and a card laid "
                                "before it, seen settled later, has been seen")
