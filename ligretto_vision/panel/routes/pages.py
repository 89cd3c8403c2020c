"""The phone page, and the address phones open (as text and as a QR code)."""
from __future__ import annotations

import io
import socket
from pathlib import Path

import segno
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

STATIC = Path(__file__).resolve().parents[1] / "static"  # the phone page, its script, style and icon

router = APIRouter()


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def index():
    return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))


@router.get("/api/qr.svg", summary="QR code that opens this panel on a phone")
def qr(request: Request):
    buf = io.BytesIO()
    segno.make(panel_url(request), error="m").save(buf, kind="svg", scale=6, border=2, light="white")
    return Response(buf.getvalue(), media_type="image/svg+xml")


@router.get("/api/url", summary="The address phones should open")
def url(request: Request):
    return {"url": panel_url(request)}


def is_loopback(host: str) -> bool:
    return host in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")


def _url(scheme: str, host: str, port: int | None) -> str:
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}{f':{port}' if port else ''}/"


def panel_url(request: Request) -> str:
    """The address other phones at the table can open: this request's, unless that is loopback."""
    host = request.url.hostname or "localhost"
    if is_loopback(host):
        host = lan_address() or host
    return _url(request.url.scheme, host, request.url.port)


def served_url(host: str, port: int) -> tuple[str, str]:
    """The address `serve` tells, for the host it listens on (never 0.0.0.0), and a note when phones
    cannot open it. Listening on every address, it is the one the Set-up QR code shows."""
    if host in ("0.0.0.0", "::", ""):
        return _url("http", lan_address() or "localhost", port), ""
    if is_loopback(host):
        return _url("http", host, port), (' (only this computer can open it: [panel].host = "0.0.0.0" '
                                          "lets phones in)")
    return _url("http", host, port), ""


def lan_address() -> str | None:
    """This machine's address on the local network (no traffic is sent): the address its default
    route leaves from, else one its own name resolves to, else `<name>.local`."""
    try:  # connecting a UDP socket only picks the route: nothing is sent (192.0.2.1 is a documentation address)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            addr = s.getsockname()[0]
        if addr and not is_loopback(addr) and addr != "0.0.0.0":
            return addr
    except OSError:
        pass
    name = socket.gethostname()
    try:
        addrs = socket.gethostbyname_ex(name)[2]
    except OSError:
        addrs = []
    lan = [a for a in addrs if not a.startswith("127.")]
    return lan[0] if lan else (f"{name}.local" if name and name != "localhost" else None)
