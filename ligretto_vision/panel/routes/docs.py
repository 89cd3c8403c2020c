"""The API's documentation, served from the package's own files (no CDN: it works on a table with no
internet), and the panel's icons."""
from __future__ import annotations

import functools

import cv2
import numpy as np
from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import Response

router = APIRouter(include_in_schema=False)
OAUTH2_REDIRECT = "/docs/oauth2-redirect"  # FastAPI's default swagger_ui_oauth2_redirect_url


@router.get("/docs")
def docs(request: Request):
    app = request.app
    return get_swagger_ui_html(openapi_url=app.openapi_url, title=f"{app.title} – API",
                               oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
                               swagger_js_url="/static-docs/swagger-ui-bundle.js",
                               swagger_css_url="/static-docs/swagger-ui.css",
                               swagger_favicon_url="/static/favicon.svg")


@router.get(OAUTH2_REDIRECT)
def docs_redirect():
    return get_swagger_ui_oauth2_redirect_html()


@router.get("/redoc")
def redoc(request: Request):
    app = request.app
    return get_redoc_html(openapi_url=app.openapi_url, title=f"{app.title} – API",
                          redoc_js_url="/static-docs/redoc.standalone.js", redoc_favicon_url="/static/favicon.svg",
                          with_google_fonts=False)


@router.get("/favicon.ico")
def favicon():
    return Response(icon_png(32), media_type="image/png", headers={"Cache-Control": "max-age=86400"})


@router.get("/apple-touch-icon.png")
def touch_icon():
    return Response(icon_png(180), media_type="image/png", headers={"Cache-Control": "max-age=86400"})


@functools.lru_cache(maxsize=4)
def icon_png(size: int) -> bytes:
    """The panel's icon (two cards on the felt), as a PNG of `size` px: favicon and phone home screen."""
    k = 4  # drawn large, then shrunk: smooth edges
    n = size * k
    img = np.zeros((n, n, 4), np.uint8)
    r = n // 6
    felt = (38, 96, 52, 255)
    cv2.rectangle(img, (r, 0), (n - r, n), felt, -1)
    cv2.rectangle(img, (0, r), (n, n - r), felt, -1)
    for cx, cy in ((r, r), (n - r, r), (r, n - r), (n - r, n - r)):
        cv2.circle(img, (cx, cy), r, felt, -1)

    def card(angle: float, colour, centre):
        box = cv2.boxPoints(((centre[0], centre[1]), (n * 0.42, n * 0.62), angle)).astype(np.int32)
        cv2.fillConvexPoly(img, box, (255, 255, 255, 255))
        inner = cv2.boxPoints(((centre[0], centre[1]), (n * 0.36, n * 0.56), angle)).astype(np.int32)
        cv2.fillConvexPoly(img, inner, colour)
    card(-14, (50, 50, 215, 255), (n * 0.40, n * 0.52))
    card(12, (200, 110, 30, 255), (n * 0.60, n * 0.48))
    small = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".png", small)
    return buf.tobytes()
