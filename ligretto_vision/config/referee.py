"""`[vision.referee]`: thresholds of the referee's decisions (ligretto_vision/referee/) and of the pile and
zone trackers it keeps (ligretto_vision/track/)."""
from pydantic import Field

from ligretto_vision.config.base import Strict


class RefereeConfig(Strict):
    # what a settled change means
    margin_mm: float = Field(30.0, ge=0.0, le=200.0, description="around a change, the region looked at closely")
    accept_margin_mm: float = Field(8.0, ge=0.0, le=200.0, description="around a change only taken in (noise, a "
                                    "player's zone), the region cropped")
    min_card_share: float = Field(0.3, ge=0.0, le=2.0, description="a change smaller than this share of a card is "
                                  "noise (a shadow, a flicker)")
    cloth_card_least: float = Field(0.08, ge=0.0, le=2.0, description="a smaller change away from every pile is "
                                    "looked at as a card of the cloth's colour (only its print shows) when at least "
                                    "this share of a card: a big numeral is about 0.2; a lamp's flicker and a "
                                    "busy cloth's specks settle in pieces of 0.02-0.05")
    cloth_card_sure: float = Field(0.9, ge=0.0, le=1.0, description="... and it is one only when read this surely: "
                                   "a busy cloth's own texture reads as a face 0.6-0.85 sure, such cards at 0.97 or more")
    least_read: float = Field(0.33, ge=0.0, le=1.0, description="a face read less surely than this is no card at all "
                              "(a shadow, a hand): no play is written")
    judge_least: float = Field(0.7, ge=0.0, le=1.0, description="a face read at least least_read but less surely "
                               "than this is a play written unsure (legal left out, the panel asks to check it), not "
                               "judged: a false 'illegal' costs most. 0.7: the sample scenes' plays read at 0.93 or "
                               "more, and faces misread there (backs taken for faces) below 0.7")
    doubt_after_s: float = Field(1.5, gt=0.0, le=30.0, description="a card called invalid goes back at once; one "
                                 "left lying on a pile longer than this says the pile is not what the verdicts made "
                                 "it (a card misread or unseen): cards laid on it then are written unsure, not illegal")
    confirm_illegal_s: float = Field(5.0, ge=0.5, le=30.0, description="a call of 'illegal' stands once its card "
                                     "is seen taken back (the rules send it back at once); one still lying this long "
                                     "after is amended to unsure: likelier misread than laid wrongly. 5: the tables' "
                                     "illegal cards went back 1.0-3.4 s after they landed")
    taken_least_s: float = Field(0.4, ge=0.0, le=5.0, description="a card seen gone sooner than this after it "
                                 "came to rest never lay there (a card in a passing hand, or one card taken for "
                                 "two in a dispute): its takeback confirms no call of 'illegal'. 0.4: the tables' "
                                 "illegal cards went back 0.9 s or more after they landed")
    doubt_gathering: bool = Field(True, description="after the stop the centre is gathered up for the count: a "
                                  "card that shows there and does not follow its pile is written unsure (likelier "
                                  "uncovered or moved than played); one that follows is a late play, after the stop")
    unseen_pile_share: float = Field(0.3, ge=0.0, le=1.0, description="a card laid where no pile is known, but "
                                     "more than this share of its middle was not bare cloth before: it lies on "
                                     "cards nobody read (a pile missed), so it is not judged. 0.3: on the tuning "
                                     "range cards laid on piles missed at the start showed 0.12-0.49 (a card of "
                                     "the cloth's colour shows little but its print), piles begun on bare cloth "
                                     "0.0-0.12 (0.29 on a flowered cloth)")
    top_changed_share: float = Field(0.3, ge=0.0, le=1.0, description="a card that does not follow its pile's "
                                     "top, where more than this share of the top's middle changed since it was "
                                     "taken in with no card seen laid there: a card was missed, so it is not judged")
    gathered_least: int = Field(2, ge=2, le=10, description="a pile of this many cards or more seen gone at once "
                                "was picked up (a player takes back one card) ...")
    gathered_within_s: float = Field(4.0, ge=0.5, le=30.0, description="... and a second within this time: the "
                                     "piles are being gathered for the count, though the stop was not seen")
    gathered_takebacks_s: float = Field(1.0, ge=0.0, le=10.0, description="two piles losing their top card within "
                                        "this time, neither called illegal (taken back, or the pile picked up): "
                                        "the piles are being gathered (on the tuning range, such losses in play "
                                        "lay 1.1 s apart or more; gathering after an unseen stop, 0-0.5 s)")
    gone_share: float = Field(0.5, ge=0.0, le=1.0, description="bare cloth read where a pile's top card lay, and "
                              "more than this share of its place changed: the card has gone")
    same_place_mm: float = Field(12.0, ge=0.0, le=100.0, description="a card this close to the previous top (and "
                                 "turned alike) is that same card")
    same_turn_deg: float = Field(12.0, ge=0.0, le=90.0, description="... turned less than this from it")
    copy_turn_deg: float = Field(45.0, ge=0.0, le=90.0, description="the top's value read turned this far from "
                                 "where the top was first placed, under an arm, with another player's hand there: "
                                 "a copy laid on it (a first guess is not this far off)")
    rest_after_s: float = Field(0.03, ge=0.0, le=1.0, description="the hand lets go this long before it has left "
                                "the card's region")
    lingered_s: float = Field(0.2, ge=0.0, le=5.0, description="a hand that stayed over the card it laid longer "
                              "than this after the card first touched has let go long before it left ...")
    still_share: float = Field(0.1, ge=0.0, le=1.0, description="... (still: less than this share of the card's "
                               "place moved in any frame)")
    stayed_share: float = Field(0.75, ge=0.0, le=1.0, description="... (stayed: the arm lay over the place in at "
                                "least this share of those frames; one that grazed it, went and came back hovered)")
    let_go_s: float = Field(0.13, ge=0.0, le=1.0, description="... about this long after the touch (a hand lets go "
                            "30-220 ms after its card touches)")
    taken_after_s: float = Field(0.2, ge=0.0, le=2.0, description="a card taken back leaves its place this long "
                                 "before the arm has left the region")
    stray_out_least_mm2: float = Field(120.0, ge=0.0, le=5000.0, description="a card called illegal and covered "
                                       "since by another (a dispute's loser; a wrong card not yet taken back) is "
                                       "watched where it lies out from under the pile's other cards and its coming "
                                       "showed, when that is at least this area ...")
    stray_edge_mm: float = Field(3.0, ge=0.0, le=20.0, description="... that part less this along every edge (the "
                                 "cards' places are known to a few mm)")
    stray_gone_share: float = Field(0.6, ge=0.0, le=1.0, description="... and it has gone back (from under them) when "
                                    "this share of that part changed with its player's arm there ...")
    stray_bare_share: float = Field(0.4, ge=0.0, le=1.0, description="... showing again what lay there before it came "
                                    "(no more than this share differs from it: a card laid over it changes it too)")
    # who laid it
    touch_precision_frames: int = Field(1, ge=0, le=10, description="how exactly an arm's arrival gives the frame "
                                        "its card first touched")
    unexplained: float = Field(0.2, ge=0.0, le=2.0, description="changed outside the card read as the pile's "
                               "unchanged top, as a share of a card: that card is not what changed (a card laid "
                               "across it), so the change is looked at alone")
    under_shows: float = Field(0.1, ge=0.0, le=2.0, description="changed outside the top card, as a share of a "
                               "card: a second card lies under it")
    under_least: float = Field(0.04, ge=0.0, le=2.0, description="... and for any second card at least this: two "
                               "cards slapped down by two players never lie exactly one on the other (less shows where "
                               "one card was laid and another arm only came near)")
    under_most: float = Field(2.0, ge=0.0, le=100.0, description="... but more than this is no card under the top "
                              "one (the centre gathered, a lamp switched, a knock)")
    under_held: float = Field(0.5, ge=0.0, le=100.0, description="frames (as full coverage) another arm held the "
                              "place for the card under the top one to be its")
    seen_peak: float = Field(0.2, ge=0.0, le=1.0, description="an arm that covered at least this share of a place "
                             "was seen there")
    hand_reach_mm: float = Field(200.0, ge=0.0, le=1000.0, description="a card read surely that no arm came over "
                                 "was laid by an arm that came this near (a forearm the cloth's colour)")
    held_peak: float = Field(0.5, ge=0.0, le=1.0, description="an arm that covered at least this share of a place "
                             "covered it well")
    touched_peak: float = Field(0.1, ge=0.0, le=1.0, description="an arm that covered at least this share of a place "
                                "was a little there")
    dispute_peak: float = Field(0.6, ge=0.0, le=1.0, description="another arm that covered this share of a place ...")
    alike_share: float = Field(0.6, ge=0.0, le=1.0, description="... and held on at least this share as long as the "
                               "top card's arm laid a card there too")
    turned_seat_deg: float = Field(40.0, ge=0.0, le=180.0, description="a card laid by an arm of a seat whose cards "
                                   "do not lie its way is the card's seat's when that seat sits within this many degrees "
                                   "of the arm's (neighbours' arms crossing the edge close together are given to the "
                                   "wrong one of them; the card lies turned towards its player). 40: the seat beside at "
                                   "seven to twelve seats; on the tuning range 70 gave more plays their player but three "
                                   "more wrong calls of illegal. 0: never")
    pass_over_mm: float = Field(45.0, ge=0.0, le=500.0, description="an arm reaching this far beyond a place was "
                                "passing over it")
    one_card_s: float = Field(0.25, ge=0.0, le=5.0, description="one hand, one card at a time (the rules): a player "
                              "who laid a card elsewhere within this of when a card here came to rest did not lay it, "
                              "when another arm may have")
    elsewhere_mm: float = Field(150.0, ge=0.0, le=2000.0, description="... elsewhere: this far from here")
    # round end
    stack_confirm_s: float = Field(4.0, ge=0.0, le=30.0, description="a stack's place seen empty is looked at again "
                                   "this long after: still empty, the round has ended (a row card's place is filled "
                                   "again from the stack, in nineteen of twenty refills on the proving ground within "
                                   "this time)")
    last_card_s: float = Field(1.5, ge=0.0, le=10.0, description="after a stack empties, its last card lands in the "
                               "centre (or the row) within this")
    went_on_plays: int = Field(2, ge=1, le=50, description="a stack's place seen empty was not the stack's when this "
                               "many cards are laid in the centre after its last card's time (nobody plays on after "
                               "the stop: on the proving ground every card laid after it came within 0.5 s)")
    stack_empty: float = Field(0.04, ge=0.0, le=1.0, description="a stack's place showing less than this share of "
                               "non-cloth is empty. 0.04: on 33 scenes of the tuning range every stack's place seen "
                               "bare showed 0.0, while stacks of 4-7 cards in the cloth's colour, dim light or "
                               "flicker showed 0.07-0.30 (at 0.25, seven rounds ended falsely)")
    stack_seen: float = Field(0.6, ge=0.0, le=1.0, description="a stack's place learnt at the start must show at "
                              "least this share of a card; less, and the line was misread: that stack is not watched")
    stack_least_run: float = Field(0.5, ge=0.0, le=1.0, description="what lies at the right-hand end of a player's "
                                   "line, apart from it, is taken for the stack only if it is at least this share of a "
                                   "card (less: what is left of a marker, a centre pile's corner; the line's end before "
                                   "it is looked at)")
    stack_in_view: float = Field(0.8, ge=0.0, le=1.0, description="a stack's place is looked at after a change only "
                                 "when at least this share of it lies in the view cut around the change")
    zone_least_share: float = Field(1.5, ge=0.0, le=5.0, description="a zone showing less than this many cards' worth "
                                    "off the cloth when watching starts has no stack place to learn (one card alone "
                                    "is no line: a discard pile seen in dim light, the rest lost in the cloth)")
    row_gap_mm: float = Field(170.0, ge=0.0, le=300.0, description="a gap wider than this ends a player's line of "
                              "cards (the stack is its right-hand end); two empty row places beside the stack leave a "
                              "gap of up to about 160 mm")
    line_thin_mm: int = Field(11, ge=1, le=50, description="what lies off the cloth thinner than this is no card of a "
                              "player's line (a brick cloth's mortar, a speck); a card of the cloth's colour seen by a "
                              "strip wider than this still is")
    line_band_mm: float = Field(20.0, ge=0.0, le=100.0, description="a player's line of cards is what lies within "
                                "half a card's length and this much of its middle, across it (a marker or a centre "
                                "pile beyond is not its end)")
    pile_near: float = Field(0.55, gt=0.0, le=2.0, description="a change this near a pile's top (as a share of a "
                             "card's height) is at that pile")
    # the early look at a card under an arm
    early_still_s: float = Field(0.2, ge=0.0, le=2.0, description="a card on a pile still this long is read without "
                                 "waiting for an arm touching it to go")
    early_sure: float = Field(0.8, ge=0.0, le=1.0, description="... and decided only when read at least this surely "
                              "(else the arm is waited for)")
    visit_moved_share: float = Field(0.1, ge=0.0, le=1.0, description="a pile is looked at every turn for a card "
                                     "laid neatly on its top only after an arm lay over its top, or this share of "
                                     "the top's place moved in one frame (a hand the seat map lost), since its last "
                                     "such look (a shaking camera moves a few of its pixels, a hand many)")
    look_again_s: float = Field(1.0, ge=0.0, le=10.0, description="a look that read a pile's top unsurely has not "
                                "seen it: the pile is looked at again at each still moment up to this long after an "
                                "arm last came over it (a card half hidden then may show; glare may never let it)")
    turned_sure: float = Field(0.9, ge=0.0, le=1.0, description="a card found only when the old top's place is read "
                               "at every turn (laid neatly on one of its colour) is taken when read at least this "
                               "surely: of many rectangles tried, one cut across a messy pile reads some card now "
                               "and then")
    early_every_s: float = Field(0.1, ge=0.0, le=2.0, description="how often such a pile is looked at again while the "
                                 "arm stays ...")
    early_looks: int = Field(3, ge=0, le=100, description="... this many times, and after that only when ...")
    early_more: float = Field(1.25, ge=1.0, le=10.0, description="... this much more of it shows than the last time")
    # the count
    count_wait_s: float = Field(3.0, ge=0.0, le=30.0, description="the longest the count waits for the hands to "
                                "leave the table")
    count_frames: int = Field(5, ge=1, le=100, description="the count is taken from the mean of this many still "
                              "frames")
    count_quiet_s: float = Field(1.0, ge=0.0, le=30.0, description="the count is taken once the spread has lain "
                                 "untouched this long")
    count_retry_s: float = Field(0.2, ge=0.0, le=5.0, description="an arm on the table during the count: look again "
                                 "this much later")
    # the pipeline
    reorder_s: float = Field(0.5, ge=0.0, le=10.0, description="the most the referee may wait before it decides "
                             "(and so hold an event)")
    gap_told_s: float = Field(0.1, ge=0.0, le=10.0, description="frames a live camera never delivered (its "
                              "numbering is by capture time) are noted and shown on the panel when the gap lasts "
                              "this long or longer; every gap is judged around and counted")
    recheck_s: float = Field(2.0, gt=0.0, le=60.0, description="how often the markers are checked for a bumped "
                             "camera ...")
    bump_jump: float = Field(0.05, ge=0.0, le=1.0, description="... and at once when this share of the table "
                             "changes in one frame with no arm there")
