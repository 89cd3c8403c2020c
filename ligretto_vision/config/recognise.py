"""`[vision.recognise]`: thresholds of reading numbers, colours and backs (ligretto_vision/recognise/)."""
from pydantic import Field

from ligretto_vision.config.base import Strict


class RecogniseConfig(Strict):
    # the top card of a pile
    sure_pile_top: float = Field(0.9, ge=0.0, le=1.0, description="a pile found at the start read less surely "
                                 "than this is looked at more widely")
    sure_face: float = Field(0.6, ge=0.0, le=1.0, description="a face read at least this surely needs no second "
                             "look (and is a card, whatever its colour)")
    whole_read: float = Field(0.5, ge=0.0, le=1.0, description="a card just laid whose whole outline shows, read "
                              "this surely, is read so (glare dims readings)")
    card_fill: float = Field(0.5, ge=0.0, le=1.0, description="a rectangle read unsurely is a card (not bare "
                             "cloth) when more than this share of it is not the cloth")
    # numbers as this deck prints them (recognise/numerals.py, from the set-up's ten cards)
    numeral_shift_mm: float = Field(5.0, ge=0.5, le=10.0, description="how far a card may lie off the pose it "
                                    "was cut at and still be matched against the enrolled numbers")
    numeral_turn_deg: float = Field(12.0, ge=0.0, le=45.0, description="how far turned off the pose it was cut at a "
                                    "card may lie and still be matched against the enrolled numbers ...")
    numeral_turn_step_deg: float = Field(4.0, gt=0.0, le=45.0, description="... tried in steps of this")
    numeral_twin: float = Field(0.6, ge=0.0, le=1.0, description="an enrolled number turned half round that matches "
                                "another this well is its turned twin (a 6 and 9 printed without a mark)")
    numeral_twin_sure: float = Field(0.5, ge=0.0, le=1.0, description="a number with a turned twin, read either way "
                                     "up, is read at most this surely: the right way up for its player decides")
    numeral_least: float = Field(0.35, ge=-1.0, le=1.0, description="a card whose best match with the enrolled "
                                 "numbers is below this is not read by them (a back, a covered face): the general "
                                 "number model reads it")
    numeral_good: float = Field(0.45, ge=-1.0, le=1.0, description="a card matching the enrolled numbers less well "
                                "than this (but at least numeral_least) is read the less surely the weaker it "
                                "matches, and by the general model where the two differ")
    numeral_sure: float = Field(0.6, ge=-1.0, le=1.0, description="a match this good is trusted over a general model "
                                "that reads this deck and sees another number (below it the two disagreeing is "
                                "doubt)")
    numeral_lead_full: float = Field(0.21, ge=0.01, le=2.0, description="a match leading the second best number by "
                                     "this much is read with full confidence (less: proportionally less; on the tuning range no "
                                     "card leading by 0.15, 0.7 sure, was misread)")
    # a back's owner (a whole back)
    sure_back: float = Field(0.6, ge=0.0, le=1.0, description="a card that is none of the enrolled deck's faces and "
                             "matches a player's back this surely is that back, whatever the general number model sees")
    print_floor: float = Field(0.15, ge=-1.0, le=1.0, description="a back whose colour says whose it is must show "
                               "that player's print this well (normalised correlation)")
    print_sure: float = Field(0.3, ge=-1.0, le=1.0, description="a whole back's correlation with one player's at "
                              "which the print alone says whose it is ...")
    print_margin: float = Field(0.08, ge=0.0, le=2.0, description="... when it leads the next player's by this much")
    owner_max: float = Field(0.8, ge=0.0, le=10.0, description="distance of a back's colour (and print) beyond "
                             "which it is nobody's")
    owner_lead: float = Field(0.4, ge=0.0, le=1.0, description="a back is a player's only when it is this much "
                              "nearer to theirs than to the next (0.4: the second is nearer than best / 0.6)")
    print_weight: float = Field(0.3, ge=0.0, le=5.0, description="how much unlikeness of a back's small picture "
                                "counts beside the distance of its colour")
    # the count: the face-up fan of a player's stack
    fan_edge_ppm: float = Field(4.0, gt=0.0, le=10.0, description="the fan is looked at this many px per mm")
    fan_margin_mm: float = Field(5.0, ge=0.0, le=50.0, description="... with this much of the cloth each side")
    fan_edge_least: float = Field(40.0, ge=0.0, le=1000.0, description="a card's edge is a colour step at least this "
                                  "steep (and half the fan's steepest tenth) ...")
    fan_edge_down: float = Field(0.6, ge=0.0, le=1.0, description="... running down this share of the card's height")
    fan_edge_apart_mm: float = Field(6.0, ge=1.0, le=50.0, description="two edges of a fan lie at least this far apart")
    fan_edge_slack: float = Field(0.1, ge=0.0, le=0.5, description="a fan is at least a card wide, less this share")
    fan_least_share: float = Field(0.3, ge=0.0, le=5.0, description="round a player's line, less than this share of "
                                   "a card off the cloth is no fan")
    fan_reach_cards: float = Field(2.5, ge=0.0, le=10.0, description="a fan may reach this many cards' widths past "
                                   "either end of where the player's line lay")
    fan_cover: float = Field(0.65, ge=0.0, le=1.0, description="along the band round a player's line, a place is part "
                             "of a fan where this share of a card's height is off the cloth")
    fan_gap_mm: float = Field(30.0, ge=0.0, le=60.0, description="a gap this narrow in a fan (a card the cloth's "
                              "colour) does not end it")
    fan_step_least_mm: float = Field(10.0, ge=1.0, le=50.0, description="a fan's cards lie at least this far apart "
                                     "(a fan this little longer than a card is one card and its shadow)")
    fan_turn_least_deg: float = Field(2.0, ge=0.0, le=45.0, description="a fan found turned at least this much from "
                                      "its player's line is looked at again along its own outline ...")
    fan_turn_most_deg: float = Field(25.0, ge=0.0, le=45.0, description="... and at most this much (more: its "
                                     "outline was not one fan's)")
    fan_most: int = Field(16, ge=1, le=40, description="the most cards a fan is taken to hold")
    fan_edge_tol_mm: float = Field(3.0, ge=0.5, le=10.0, description="a card's edge seen this near where a step puts "
                                   "it fits that step")
    fan_edge_weight: float = Field(0.05, ge=0.0, le=1.0, description="how much each edge fitting a step counts beside "
                                   "how alike the fan is to itself shifted by that step (a correlation)")
    # the count: backs in the face-down spread
    spread_least_share: float = Field(0.4, ge=0.0, le=5.0, description="a part of the centre off the cloth this share "
                                      "of a card or bigger is a spread")
    spread_close_share: float = Field(0.6, ge=0.0, le=2.0, description="a back the cloth's colour leaves holes: the "
                                      "spread is closed over this share of a card's width")
    sliver_share: float = Field(0.4, ge=0.0, le=1.0, description="uncounted spread narrower than this share of a "
                                "card's width (between counted cards) is no card")
    unknown_card_share: float = Field(0.6, gt=0.0, le=1.0, description="uncounted spread this share of a card's area "
                                      "is one back nobody enrolled")
    spread_step_mm: float = Field(28.0, ge=1.0, le=100.0, description="two cards of a spread lie at least this far "
                                  "apart (two tiles of each must show)")
    one_card_slack: float = Field(0.15, ge=0.0, le=0.3, description="two finds of one owner's back, each showing one "
                                  "line of tiles, the second along that line from the first, whose tiles fit together "
                                  "in one card (and this share more: a tile matches a little aside) are one card found "
                                  "twice")
    tiles: tuple[int, int] = Field((2, 3), description="a back is matched in this many tiles across and down: any "
                                   "two showing in place make a card")
    tile_match: float = Field(0.65, ge=-1.0, le=1.0, description="normalised correlation at which a tile of a back "
                              "(or of its print's whites) shows")
    turn_step_deg: float = Field(20 / 3, gt=0.0, le=30.0, description="four turns per way the cards lie; each tile "
                                 "allows a pixel more")
    turn_span_deg: float = Field(10.0, ge=0.0, le=45.0, description="cards of a spread lie within this of the "
                                 "spread's main direction")
    pair_match: float = Field(0.7, ge=0.0, le=1.0, description="two tiles alone make a card only when they match "
                              "this well on average")
    same_print: float = Field(0.8, ge=-1.0, le=1.0, description="correlation of the whites above which two "
                              "players' backs are one print in two colours")
    local_px: int = Field(2, ge=0, le=10, description="the colour check looks this far (match pixels) around where "
                          "the print was found")
    free_share: float = Field(0.5, ge=0.0, le=1.0, description="a tile more than this share under a card found "
                              "before is not this card's")
    within_surer: float = Field(0.9, gt=0.0, le=1.0, description="a find on two tiles that showed this share of "
                                "them within cards found on more tiles is no card of its own")
    fine_tiles: tuple[int, int] = Field((3, 4), description="a find on few tiles is looked at again in this many "
                                        "smaller tiles across and down: a real card shows more of them than a print "
                                        "matched one tile aside")
    fine_upto: int = Field(3, ge=0, le=24, description="finds on this many tiles or fewer are looked at again")
    fine_sure: int = Field(4, ge=0, le=100, description="... and are no card when fewer smaller tiles show and "
                           "their tiles look like the back of a card found beside them")
    aside_cover: float = Field(0.25, gt=0.0, le=1.0, description="a card found beside covers at least this share of "
                               "the places a find's tiles showed, to be compared")
    rival_print_lead: float = Field(0.03, ge=0.0, le=2.0, description="a back as alike in colour to another "
                                    "print's player as to the one found is theirs where their print fits the places it "
                                    "showed better by this much (normalised correlation of the whites)")
    on_spread: float = Field(0.7, ge=0.0, le=1.0, description="a card of the spread lies at least this much on it "
                             "(not half on the cloth)")
    match_ppm: float = Field(0.5, gt=0.0, le=1.0, description="backs are matched at this many pixels per mm: the "
                             "print's balls and lettering still show")
    # where to look for the top card's outline
    top_search_deg: int = Field(16, ge=0, le=45, description="a card laid over a pile may lie up to ~25 degrees off "
                                "the one below (two seats' jitter): the outline is looked for this far around each "
                                "first guess's turn")
    reread_search_mm: int = Field(10, ge=0, le=50, description="a second look at a messy pile's top searches this far "
                                  "around each likely place ...")
    reread_search_deg: int = Field(15, ge=0, le=45, description="... and this far around each of its turns ...")
    reread_turn_step: int = Field(30, ge=1, le=180, description="... every this many degrees of a half turn")
    pile_around_mm: int = Field(18, ge=0, le=100, description="a pile found at the start read unsurely: its top is "
                                "looked for this far to each side too")
