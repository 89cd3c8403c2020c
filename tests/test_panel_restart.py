"""The real `ligretto-vision serve` process: killed mid-match (SIGKILL, as a power cut) and started
again, it still has the match history, settings and PIN; bad requests never bring it down."""
from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from panel_support import PIN, free_port

CLI = [sys.executable, "-m", "ligretto_vision"]


def write_config(tmp: Path, port: int, host: str = "127.0.0.1") -> Path:
    cfg = tmp / "table.toml"
    cfg.write_text(f"""
[table]
players = 2
[panel]
host = "{host}"
port = {port}
[match]
goal = "endless"
[data]
database = "{tmp / 'table.db'}"
clips = "{tmp / 'clips'}"
""")
    return cfg


class Served:
    def __init__(self, cfg: Path, port: int, tmp: Path):
        self.url = f"http://127.0.0.1:{port}"
        self.log = (tmp / f"serve-{time.monotonic_ns()}.log").open("w")
        # a fast simulated table, so rounds finish within the test
        self.proc = subprocess.Popen(CLI + ["serve", "--config", str(cfg), "--speed", "60"],
                                     stdout=self.log, stderr=subprocess.STDOUT, cwd=tmp)
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(self.url + "/api/state", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"serve did not come up: {Path(self.log.name).read_text()}")
            time.sleep(0.1)

    def get(self, path: str):
        return httpx.get(self.url + path, timeout=5)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.log.close()


@pytest.fixture
def served(tmp_path):
    port = free_port()
    cfg = write_config(tmp_path, port)
    started: list[Served] = []

    def start() -> Served:
        s = Served(cfg, port, tmp_path)
        started.append(s)
        return s
    yield start
    for s in started:
        if s.proc.poll() is None:
            s.kill()


def wait_rounds(s: Served, n: int, timeout: float = 40) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rounds = s.get("/api/state").json()["match"]["rounds"]
        if len(rounds) >= n:
            return rounds
        time.sleep(0.2)
    raise AssertionError(f"fewer than {n} rounds after {timeout} s")


def test_a_killed_server_comes_back_with_its_history(served):
    s = served()
    assert httpx.post(s.url + "/api/pin", json={"pin": PIN}).status_code == 200
    headers = {"X-Table-PIN": PIN, "X-Who": "Anna"}
    players = [{"id": "P1", "name": "Anna", "seat": "south"}, {"id": "P2", "name": "Ben", "seat": "north"}]
    assert httpx.put(s.url + "/api/settings/players", json={"players": players}, headers=headers).status_code == 200
    rounds = wait_rounds(s, 2)
    r = httpx.put(f"{s.url}/api/rounds/{rounds[0]['id']}", json={"scores": {"P1": 50}, "who": "Anna"}, headers=headers)
    assert r.status_code == 200
    shown = s.get("/api/state").json()["match"]  # what the panel showed just before the power cut
    disputes = s.get("/api/disputes").json()
    s.kill()

    again = served()
    match = again.get("/api/state").json()["match"]
    assert match["id"] == shown["id"]  # the same match goes on
    assert match["rounds"][:len(shown["rounds"])] == shown["rounds"]
    assert match["rounds"][0]["scores"]["P1"] == 50 and match["rounds"][0]["corrected"]
    kept = {d["id"]: (d["card"], d["winner"], d["claims"]) for d in again.get("/api/disputes?limit=500").json()}
    assert all(kept[d["id"]] == (d["card"], d["winner"], d["claims"]) for d in disputes)
    assert [p["name"] for p in again.get("/api/state").json()["players"]] == ["Anna", "Ben"]
    assert again.get("/api/changes").json()[0]["who"] == "Anna"
    # the PIN survived too: the right one works, a wrong one does not
    goal = {"goal": "rounds", "value": 9}
    assert httpx.put(again.url + "/api/settings/match", json=goal, headers={"X-Table-PIN": "0000"}).status_code == 403
    assert httpx.put(again.url + "/api/settings/match", json=goal, headers=headers).status_code == 200
    assert len(wait_rounds(again, len(shown["rounds"]) + 1)) > len(shown["rounds"])  # and it keeps refereeing


def test_bad_requests_get_4xx_and_the_server_keeps_running(served):
    s = served()
    url = s.url + "/api/settings/match"
    assert httpx.put(url, json={"goal": "rounds", "value": 3}).status_code == 409  # no PIN chosen yet
    assert httpx.post(s.url + "/api/pin", json={"pin": "12"}).status_code == 422  # too short
    assert httpx.post(s.url + "/api/pin", json={"pin": PIN}).status_code == 200
    pin = {"X-Table-PIN": PIN}
    cases = [
        (httpx.put(url, json={"goal": "rounds"}), 401, "PIN"),
        (httpx.put(url, json={"goal": "rounds"}, headers={"X-Table-PIN": "9999"}), 403, "wrong PIN"),
        (httpx.put(url, content=b"{not json", headers={**pin, "Content-Type": "application/json"}), 422, "not valid JSON"),
        (httpx.put(url, json={"goal": "rounds", "value": -4}, headers=pin), 422, "value"),
        (httpx.put(url, json={"goal": "rounds", "extra": 1}, headers=pin), 422, "extra"),
        (httpx.put(url, content=b"[" * (2 << 20), headers={**pin, "Content-Type": "application/json"}), 413, "too large"),
        (httpx.put(url, content=(b"x" * 70_000 for _ in range(3)), headers=pin), 413, "too large"),  # chunked, no length
        (httpx.put(s.url + "/api/rounds/abc", json={}, headers=pin), 422, "round_id"),
        (httpx.get(s.url + "/api/matches/999999"), 404, "no match"),
    ]
    for resp, status, words in cases:
        assert resp.status_code == status, (resp.request.url, resp.text)
        assert words in resp.json()["detail"], resp.text
    assert s.proc.poll() is None and s.get("/api/state").status_code == 200


def test_serve_prints_the_address_a_phone_opens(tmp_path):
    port = free_port()
    s = Served(write_config(tmp_path, port, host="0.0.0.0"), port, tmp_path)  # listening on every address
    try:
        printed = Path(s.log.name).read_text()
        m = re.search(r"panel on (\S+) \(open it on a phone", printed)
        assert m, printed
        assert "0.0.0.0" not in m[1] and m[1].endswith(f":{port}/")
        assert m[1] == s.get("/api/url").json()["url"]  # what the Set-up page's QR code shows
    finally:
        s.kill()
