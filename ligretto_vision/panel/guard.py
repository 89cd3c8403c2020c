"""Keeping bad requests out: a cap on request bodies and errors that say what is wrong.

Every refusal is a 4xx with `{"detail": "<one clear sentence>"}`; the server keeps running.
"""
from __future__ import annotations

import json

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ligretto_vision.panel.pin import PinRefused

MAX_BODY = 64 * 1024  # the biggest honest request (a settings change) is a few hundred bytes


class BodyLimit:
    """ASGI middleware: reads a request body up to `limit` bytes, refuses anything longer with 413."""

    def __init__(self, app, limit: int = MAX_BODY):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await _too_large(self.limit, send)
        chunks, size = [], 0
        while True:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return
            chunks.append(msg.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                return await _too_large(self.limit, send)
            if not msg.get("more_body"):
                break
        body, sent = b"".join(chunks), False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


async def _too_large(limit: int, send) -> None:
    payload = json.dumps({"detail": f"request body too large: at most {limit} bytes"}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": payload})


def explain(errors: list[dict]) -> str:
    """Pydantic's error list as one sentence a person can act on."""
    parts = []
    for e in errors[:3]:
        loc = list(e.get("loc", ()))
        if loc and loc[0] in ("body", "path", "query", "header", "cookie"):
            loc = loc[1:]
        loc = [str(x) for x in loc]
        if e.get("type") == "json_invalid":
            parts.append("the request body is not valid JSON")
            continue
        if e.get("type") == "missing" and not loc:
            parts.append("the request needs a JSON body")
            continue
        where = ".".join(loc)
        msg = str(e.get("msg"))
        msg = msg.removeprefix("Value error, ")  # a validator's own sentence, as it wrote it
        parts.append(f"{where}: {msg}" if where else msg)
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return "; ".join(parts) + more


def install(app: FastAPI) -> None:
    app.add_middleware(BodyLimit)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return JSONResponse({"detail": explain(exc.errors())}, status_code=422)

    @app.exception_handler(PinRefused)
    async def _pin(request: Request, exc: PinRefused):
        return JSONResponse({"detail": exc.message}, status_code=exc.status)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"nothing at {request.url.path}"
        elif exc.status_code == 405:
            detail = f"{request.method} is not allowed on {request.url.path}"
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))
