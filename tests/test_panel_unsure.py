"""The panel and a play read too unsurely to judge: counted as laid, never as illegal, shown as
"check this card" with the feed's picture of where it lies, not as the illegal-play alert."""
from __future__ import annotations

import cv2
import numpy as np

from ligretto_vision.events import Event
from panel_support import client, counts, panel, play, settle  # noqa: F401 (fixtures)


def unsure_play(frame, player, card, pile, **extra) -> Event:
    """A play as the rules write one read too unsurely to judge: `legal` left out."""
    return Event("play", frame, {"player": player, "card": card, "pile": pile, "unsure": True, "unsure_of": "card",
                                 "confidence": 0.52, "at": [650.0, 450.0, 3.0], **extra})


def picture(w=320, h=200) -> bytes:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, w // 2:] = (0, 0, 255)  # the right half red: a zoom on it shows only red
    return cv2.imencode(".jpg", img)[1].tobytes()


def test_an_unsure_play_reaches_the_panel_as_one_to_check_and_is_not_counted_illegal(panel, client):
    panel.hub.publish_frame(picture())
    panel.hub.publish([play(10, "P1", "red-1", 1), unsure_play(40, "P2", "blue-7", 1)])
    settle(panel)
    state = client.get("/api/state").json()
    shown = state["round"]["plays"][0]
    assert (shown["card"], shown["unsure"], shown["legal"]) == ("blue-7", True, None)
    assert state["alert"] is None  # no illegal-play alert
    t = state["round"]["tallies"]["P2"]
    assert (t["laid"], t["illegal"]) == (1, 0)
    check = state["check"]
    assert (check["card"], check["player"], check["pile"], check["confidence"]) == ("blue-7", "P2", 1, 0.52)
    assert "52 % sure" in check["why"]
    got = client.get(check["picture"])
    assert got.status_code == 200 and got.headers["content-type"] == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(got.content, np.uint8), cv2.IMREAD_COLOR).shape[:2] == (200, 320)  # no feed: whole


def test_the_picture_to_check_shows_the_part_of_the_table_where_the_card_lies(panel, client):
    panel.keeper.locate = lambda spots: {"x": 0.5, "y": 0.0, "w": 0.5, "h": 0.5}  # as a calibrated feed says
    panel.hub.publish_frame(picture())
    panel.hub.publish([unsure_play(40, "P2", "blue-7", 1)])
    settle(panel)
    got = client.get(client.get("/api/state").json()["check"]["picture"])
    img = cv2.imdecode(np.frombuffer(got.content, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape[:2] == (100, 160) and img[..., 2].mean() > 200 and img[..., 1].mean() < 40  # the red part


def test_a_card_laid_on_an_unsure_top_is_shown_to_check_and_the_check_goes_with_its_round(panel, client):
    panel.hub.publish([play(10, "P1", "red-1", 1), unsure_play(40, "P2", "red-2", 1),
                       unsure_play(50, "P3", "green-9", 1, unsure_of="pile-top", confidence=0.97)])
    settle(panel)
    state = client.get("/api/state").json()
    assert state["check"]["card"] == "green-9" and "pile 1's top" in state["check"]["why"]
    assert state["check"]["picture"] is None  # the feed has sent no picture yet
    assert all(t["illegal"] == 0 for t in state["round"]["tallies"].values())
    panel.hub.publish(counts(99, {"P1": 1, "P2": 1, "P3": 1}))
    settle(panel)
    state = client.get("/api/state").json()
    assert state["check"] is None
    assert state["match"]["rounds"][0]["scores"] == {"P1": 1, "P2": 1, "P3": 1}


def test_a_picture_no_longer_kept_is_a_clear_404(client):
    got = client.get("/api/checks/12345.jpg")
    assert got.status_code == 404 and "only the last few" in got.json()["detail"]
