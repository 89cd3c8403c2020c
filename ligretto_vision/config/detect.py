"""`[vision.detect]`: thresholds of change, light, arms and card outlines (ligretto_vision/detect/)."""
from pydantic import Field

from ligretto_vision.config.base import Strict


class DetectConfig(Strict):
    # the low-resolution top view watched every frame (detect/changes.py, detect/light.py)
    low_ppm: float = Field(0.25, gt=0.0, le=2.0, description="pixels per mm of the top view watched every frame "
                           "(0.25: 4 mm per pixel)")
    shrink_above_px: int = Field(700, ge=0, le=100_000, description="a camera picture wider than this is shrunk "
                                 "before the top view is made from it")
    shrink: float = Field(0.5, gt=0.0, le=1.0, description="... by this factor each way")
    light_tolerance: float = Field(0.04, ge=0.0, le=1.0, description="a light gain this close to 1 in every channel "
                                   "is no change of light (a lamp, a cloud) to undo")
    fg_threshold: int = Field(45, ge=0, le=765, description="colour difference summed over the three channels at "
                              "which a pixel differs from the reference")
    motion_threshold: int = Field(30, ge=0, le=765, description="colour difference summed over the three channels "
                                  "at which a pixel changed since the last frame")
    noise_factor: int = Field(4, ge=0, le=100, description="both thresholds rise to this many times the picture's "
                              "median difference (sensor noise, compression flicker)")
    min_blob_px: int = Field(6, ge=1, le=10_000, description="a change smaller than this (top-view pixels) is "
                             "ignored")
    uncovered_s: float = Field(0.25, ge=0.0, le=10.0, description="an arm-shaped change at the edge, of a part of the "
                               "table hardly taken in since watching began, that has lain still this long (an arm gone "
                               "leaves bare cloth at once; waiting longer lets the next arm join it, and what it lays "
                               "there is taken for what lay there) ...")
    uncovered_seen: float = Field(0.25, ge=0.0, le=1.0, description="... (at most this share of it taken in since) ...")
    uncovered_cloth: float = Field(0.15, ge=0.0, le=1.0, description="... and shows this share more bare cloth than the "
                                   "picture taken when watching began is what an arm covered then, now uncovered")
    uncovered_part_px: int = Field(40, ge=1, le=100_000, description="an arm's blob that never lies still (other arms "
                                   "join it) hands on as uncovered each piece this big (top-view pixels) that reaches "
                                   "the edge, was never taken in, lay still as long and shows bare cloth where the "
                                   "picture taken when watching began did not ...")
    uncovered_reach_mm: float = Field(300.0, ge=0.0, le=5000.0, description="... and reaches this far in from the "
                                      "edge, as an arm does (a card taken from a player's line leaves bare cloth too)")
    # a shaking camera (detect/shake.py)
    follow_shake: bool = Field(True, description="take the camera's shake out of the top view, frame by frame")
    shake_every_frames: int = Field(3, ge=1, le=100, description="a camera not seen to shift lately is looked at "
                                    "for a shake every this many frames (one that shakes: every frame)")
    shake_steps: int = Field(2, ge=1, le=10, description="looks at most per frame to find the shake")
    shake_min_px: float = Field(0.1, ge=0.0, le=10.0, description="top-view pixels: a shift smaller than this is "
                                "none (and needs no second look)")
    shake_max_px: float = Field(3.0, ge=0.0, le=50.0, description="top-view pixels: a shift larger than this is no "
                                "shake but a knock (the markers are checked again)")
    shake_memory_frames: int = Field(30, ge=0, le=10_000, description="frames after the picture was last seen to "
                                     "shift in which it is taken to shake (looked at every frame, the markers' squares "
                                     "not watched for change)")
    shake_outlier: float = Field(40.0, ge=1.0, le=255.0, description="grey levels: a pixel differing more from the "
                                 "reference (an arm, a new card) does not say how the picture moved")
    shake_texture: float = Field(2.0, ge=0.0, le=10_000.0, description="mean squared gradient the table needs, in its "
                                 "least textured direction, for its move to be told")
    quiet_s: float = Field(0.1, ge=0.0, le=10.0, description="a change that moved within this long is still moving")
    quiet_min_frames: int = Field(2, ge=1, le=100, description="... and within at least this many frames")
    edge_band_px: int = Field(2, ge=1, le=50, description="top-view pixels (8 mm) along the table's edge: a "
                              "change that reaches into them is an arm reaching in")
    history_s: float = Field(1.2, gt=0.0, le=60.0, description="how far back the arm and motion history reaches")
    bare_share: float = Field(0.9, ge=0.0, le=1.0, description="an arm that left a place before this share of a "
                              "change there was last seen still showing the reference laid nothing there")
    # the cards of a spread for the count, taken in piece by piece (count mode)
    piece_still_s: float = Field(0.4, ge=0.0, le=10.0, description="a part of an arm's blob still this long is a "
                                 "card laid down, not the arm")
    piece_min_px: int = Field(60, ge=1, le=100_000, description="... when it is at least this big (top-view pixels)")
    # arms (detect/arms.py)
    beside_px: int = Field(12, ge=0, le=200, description="top-view pixels (48 mm) around a region where the hand "
                           "that worked on it lies")
    hand_px: int = Field(40, ge=0, le=100_000, description="top-view pixels (640 mm2): a moving blob this big may "
                         "be a hand")
    hand_moving: float = Field(0.4, ge=0.0, le=1.0, description="share of a blob moving in this frame: a hand, not "
                               "a card coming to rest")
    arm_tip_mm: float = Field(60.0, ge=0.0, le=2000.0, description="the far end of an arm, from its edge (where "
                              "the wrist leaves it)")
    arm_body_mm: float = Field(500.0, ge=0.0, le=2000.0, description="a player's shoulder lies about this far beyond "
                               "the table's edge (out from where their seat's direction meets it): an arm belongs to "
                               "the seat whose shoulder its line, drawn on beyond the edge, passes nearest. 500: right "
                               "for shoulders 300-700 mm out round a long table of 6 or 12 (tests/test_detect.py)")
    arm_axis_mm: float = Field(150.0, ge=0.0, le=2000.0, description="an arm shorter than this over the table (a hand "
                               "at the edge) tells no direction: its seat is the one nearest where it crosses")
    arms_apart_mm: tuple[float, ...] = Field((150.0, 250.0, 350.0), min_length=1, description="depths (mm in "
                                             "from the edge a blob crosses) at which two neighbours' arms that "
                                             "touch where they cross it are looked for apart")
    arms_apart_band_mm: float = Field(60.0, gt=0.0, le=500.0, description="... in a band this deep")
    arm_across_mm2: float = Field(2400.0, ge=0.0, le=100_000.0, description="... where each shows at least this "
                                  "much of itself (an arm's width, 100 mm, across 40 % of the band)")
    hand_gap_px: int = Field(25, ge=0, le=1000, description="top-view pixels (100 mm): a hand this near the end "
                             "of an arm is its hand")
    forearm_shoulder_mm: float = Field(200.0, ge=0.0, le=2000.0, description="a hand cut off from its arm whose "
                                       "forearm shows is the seat whose shoulder its line passes this near (and "
                                       "plainly nearer than the other way along it does)")
    hand_clear_ratio: int = Field(2, ge=1, le=100, description="... when the next arm's end is more than this many "
                                  "times as far")
    hand_clear_px: int = Field(2, ge=0, le=1000, description="... plus this many top-view pixels")
    loose_frames: int = Field(5, ge=0, le=1000, description="how long a loose hand's seat is remembered where it "
                              "was")
    withdrawing: float = Field(0.2, ge=0.0, le=1.0, description="share of an arm's pixels beside a region that "
                               "move: the arm is going")
    arm_colour_decay: float = Field(0.995, ge=0.0, le=1.0, description="each frame an arm is alone on the table, "
                                    "its learnt colours fade by this factor before its pixels are added")
    arm_colour_min_px: int = Field(300, ge=0, le=10**9, description="arms' colours tell two touching arms apart "
                                   "once each has been seen with more pixels than this")
    arm_colour_margin: int = Field(2, ge=1, le=100, description="a pixel is the likelier arm's when that is this "
                                   "many times likelier than the other")
    arrived_share: float = Field(0.85, ge=0.0, le=1.0, description="a hand came to rest on a region when its "
                                 "cover first reached this share of its peak")
    edge_still_s: float = Field(1.0, ge=0.0, le=60.0, description="a change at the table's edge still this long "
                                "(and small) is no arm: a card nudged at the edge, a cuff left there")
    edge_small_mm2: float = Field(2500.0, ge=0.0, le=1e6, description="an arm resting on the table is bigger than "
                                  "this")
    under_arm_share: float = Field(0.3, ge=0.0, le=1.0, description="a change still joined to an arm is handed on "
                                   "early when its still part covers this share of the pile's top card")
    joined_share: float = Field(0.5, ge=0.0, le=1.0, description="a change is joined to an arm when more than this "
                                "share of it is an arm's")
    # what changed between two moments at one place (1 px/mm crops; detect/changes.py)
    change_threshold: int = Field(30, ge=0, le=255, description="largest channel difference at which a pixel of a "
                                  "crop changed (in full light)")
    dimmest_light: float = Field(0.3, gt=0.0, le=1.0, description="thresholds scale with the light down to this "
                                 "share of full light, no further")
    change_open_px: int = Field(3, ge=1, le=51, description="a change thinner than this (px) is noise")
    change_close_px: int = Field(7, ge=1, le=51, description="gaps in a change up to this (px) are closed")
    white_percentile: float = Field(99.5, ge=0.0, le=100.0, description="the whitest things on the table (markers, "
                                    "card whites) are this percentile of its grey")
    white_level: float = Field(230.0, gt=0.0, le=255.0, description="... and in full light they are this bright")
    # the cloth and what lies on it (detect/cloth.py)
    # a patterned cloth (checks, stripes): its colours, each spread all over the table
    pattern_colours: int = Field(4, ge=2, le=8, description="how many colours the table's picture is sorted into "
                                 "when looking for a patterned cloth's colours")
    pattern_cell_mm: float = Field(100.0, ge=20.0, le=500.0, description="the table is cut into squares this big to "
                                   "see where each colour lies")
    pattern_spread: float = Field(0.7, ge=0.0, le=1.0, description="a colour found in at least this share of the "
                                  "squares is the cloth's (a card's colour lies in few)")
    pattern_cell_least: float = Field(0.05, ge=0.0, le=1.0, description="a colour lies in a square when it covers "
                                      "this share of it")
    pattern_apart: int = Field(90, ge=0, le=255, description="two cloth colours this far apart (largest channel "
                               "difference) make a patterned cloth; nearer, they are one plain cloth's shading")
    pattern_fill_mm2: float = Field(20000.0, ge=0.0, le=1e6, description="on a patterned cloth, what a card's print "
                                    "and edges enclose is filled in up to this area (mm², a few cards): a pattern's own "
                                    "thin lines joined up across the table are not a card")
    cloth_threshold: int = Field(45, ge=0, le=255, description="largest channel difference from the cloth's colour "
                                 "at which a pixel is not the cloth")
    cloth_least: float = Field(10.0, ge=0.0, le=255.0, description="... but on a cloth that strays little from "
                               "its colour (a plain felt in dim light), a difference of this much may already be a card")
    spread_times: float = Field(2.0, ge=0.0, le=20.0, description="a pixel this many times as far from the cloth as "
                                "the cloth strays from itself (`spread_percentile`) is not the cloth")
    spread_percentile: float = Field(75.0, ge=50.0, le=99.0, description="how far the cloth strays from its own colour: "
                                     "the distance this share of a whole table's pixels lie within (cards cover little)")
    busy_std: float = Field(12.0, ge=0.0, le=255.0, description="grey spread (in full light) of a card's busy "
                            "texture (numerals, balls, edges) on a plain cloth")
    busy_times: float = Field(1.5, ge=1.0, le=10.0, description="... and at least this many times the bare "
                              "cloth's own (gravel, flowers, grain: `cloth_busy` when watching begins)")
    busy_window_px: int = Field(7, ge=1, le=51, description="... measured in windows this big")
    busy_close_px: int = Field(7, ge=1, le=51, description="gaps in a busy texture up to this (px) are closed")
    cloth_open_px: int = Field(7, ge=1, le=51, description="what is not the cloth but thinner than this (px) is "
                               "noise")
    glare_cell_mm: int = Field(10, ge=1, le=200, description="the cloth's colour is looked at in cells this big")
    glare_smooth_mm: int = Field(30, ge=1, le=1000, description="... and smoothed over this far (glare and light "
                                 "fall-off change slowly)")
    glare_full: int = Field(245, ge=0, le=255, description="a channel this bright is at full brightness (can gain "
                            "no more)")
    glare_clip_slack: int = Field(12, ge=0, le=255, description="a channel at full brightness gained at most this "
                                  "much more than the others")
    glare_even_share: float = Field(0.35, ge=0.0, le=10.0, description="glare brightens the channels alike: they "
                                    "differ by less than this share of its mean gain ...")
    glare_even_slack: int = Field(12, ge=0, le=255, description="... plus this")
    glare_min_gain: int = Field(-8, ge=-255, le=0, description="glare darkens no channel by more than this")
    glare_fill_min: float = Field(0.05, ge=0.0, le=1.0, description="glare is filled in where cloth's cells weigh "
                                  "at least this much nearby")
    # card outlines on a top view (detect/outlines.py)
    edge_offset: float = Field(1.5, ge=0.0, le=20.0, description="mm inside and outside a card's side where the "
                               "contrast across it is measured")
    corner_skip: float = Field(7.0, ge=0.0, le=40.0, description="mm of each side by the corners left out (round "
                               "corners)")
    outline_step_mm: float = Field(1.5, gt=0.0, le=20.0, description="mm between points along a side")
    uneven_weight: float = Field(2.0, ge=0.0, le=100.0, description="how much uneven colour just inside the "
                                 "outline counts against it (a wrong rectangle cuts through numerals and cards)")
    weakest_side: float = Field(0.6, ge=0.0, le=1.0, description="weight of the weakest side's contrast in an "
                                "outline's score ...")
    mean_side: float = Field(0.4, ge=0.0, le=1.0, description="... and of all four sides' mean")
    refine_search_mm: float = Field(8.0, ge=0.0, le=200.0, description="an outline is looked for this far around "
                                    "its first guess")
    refine_search_deg: float = Field(10.0, ge=0.0, le=180.0, description="... and turned this far")
    refine_step_mm: float = Field(2.0, gt=0.0, le=50.0, description="the finest first step of the search, mm")
    refine_step_deg: float = Field(2.0, gt=0.0, le=90.0, description="... and degrees")
    guess_min_share: float = Field(0.15, ge=0.0, le=10.0, description="a change smaller than this share of a card "
                                   "gives no first guess of one")
    find_min_cards: float = Field(0.5, ge=0.0, le=10.0, description="a blob smaller than this share of a card holds "
                                  "no card")
    find_edge_px: int = Field(3, ge=0, le=100, description="a blob this near the view's edge is an arm")
    find_thin_px: int = Field(15, ge=1, le=60, description="a blob touching the view's edge is opened this wide and "
                              "looked at again: cards joined by a table's seams or a cloth's thin lines come apart")
    split_card_area: float = Field(1.25, gt=0.0, le=10.0, description="a blob is split into one part per this many "
                                   "cards' area (a messy pile is bigger than one card)")
    split_max_parts: int = Field(12, ge=1, le=100, description="a blob is split into at most this many parts")
    find_search_mm: int = Field(14, ge=0, le=200, description="a card in a blob is looked for this far around the "
                                "blob part's centre")
    find_search_deg: int = Field(30, ge=0, le=180, description="... turned this far from each of `find_turns`")
    find_turns: tuple[float, ...] = Field((0.0, 60.0, 120.0), min_length=1, description="a messy pile's outline "
                                          "says little about the top card's turn: all these are searched")
    same_pile_mm: int = Field(40, ge=0, le=500, description="cards found this near one another are one pile")
    # one card's outline in a photo (the panel's enrollment; detect/outlines.py)
    photo_work_px: int = Field(1000, ge=50, le=100_000, description="the outline is searched in the picture shrunk "
                               "to at most this long side (a photo of several cards: shrunk or enlarged to it)")
    photo_blur_px: int = Field(5, ge=1, le=51, description="the picture is smoothed over this many pixels first")
    photo_canny_low: int = Field(40, ge=0, le=1000, description="edges: the lower Canny threshold")
    photo_canny_high: int = Field(120, ge=0, le=1000, description="edges: the upper Canny threshold")
    photo_close_px: int = Field(5, ge=1, le=51, description="gaps in edges up to this are closed")
    photo_min_area: float = Field(0.02, ge=0.0, le=1.0, description="a card fills at least this share of the photo")
    photo_max_area: float = Field(0.95, ge=0.0, le=1.0, description="... and less than this (more is the table)")
    photo_eps: tuple[float, ...] = Field((0.02, 0.03, 0.045), min_length=1, description="an outline is simplified "
                                         "to four corners within these shares of its perimeter, tried in turn")
    photo_border_px: int = Field(3, ge=0, le=100, description="an outline this near the photo's edge is the "
                                 "background or a card cut off")
    photo_solid: float = Field(0.8, ge=0.0, le=1.0, description="a card's traced outline fills at least this share "
                               "of its four corners")
    photo_ratio_slack: float = Field(1.45, ge=1.0, le=10.0, description="its sides' ratio is the card's within this "
                                     "factor (a photo at a slant)")
    photo_off_side: float = Field(0.03, ge=0.0, le=1.0, description="its outline runs along the four sides, on "
                                  "average within this share of the short side")
    photo_shrink: float = Field(0.985, gt=0.0, le=1.0, description="the traced outline lies a pixel or two outside "
                                "the card: the corners are drawn in by this factor")
    photo_cards_min_area: float = Field(0.003, ge=0.0, le=1.0, description="in a photo of several cards (the ten "
                                        "numbers of one colour), a card fills at least this share of the photo")
    photo_same_size: float = Field(1.5, ge=1.0, le=10.0, description="... and its outline's area is within this "
                                   "factor of the median outline's (two touching cards traced as one are not a card)")
