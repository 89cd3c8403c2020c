"""The table's PIN: watching needs nothing, changing scores or settings needs it.

Only a salted PBKDF2 hash is stored. Wrong guesses are slowed down per client (per
address): after five wrong PINs in a row that client is refused PIN checks for 30 s,
while everybody else at the table goes on (a guest's guesses never lock the real PIN
out). A guess counts from the moment its check starts, so guesses sent in parallel get
no more checks than guesses sent one after another: at most five per 30 s.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import threading
import time
from dataclasses import dataclass, field

ITERATIONS = 120_000  # about 0.1 s on a Raspberry Pi 4: fine once per change
MAX_FAILS = 5
LOCKOUT_S = 30.0
MAX_CLIENTS = 4096  # clients remembered at once (a table has a handful)

NEEDS_PIN = "this change needs the table's PIN"


def hash_pin(pin: str, salt: bytes | None = None, iterations: int = ITERATIONS) -> dict:
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode("utf-8"), salt, iterations)
    return {"salt": salt.hex(), "hash": digest.hex(), "iterations": iterations, "algo": "pbkdf2-sha256"}


def pin_matches(pin: str, stored: dict) -> bool:
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode("utf-8", "replace"), bytes.fromhex(stored["salt"]),
                                 int(stored["iterations"]))
    return hmac.compare_digest(digest.hex(), stored["hash"])


class PinRefused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


@dataclass
class _Client:
    fails: int = 0  # wrong PINs since the last right one or the last lockout
    checking: int = 0  # checks under way (counted as wrong until they turn out right)
    locked_until: float = 0.0


@dataclass
class PinGuard:
    max_fails: int = MAX_FAILS
    lockout_s: float = LOCKOUT_S
    clients: dict[str, _Client] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, pin: str | None, stored: dict | None, client: str = "") -> None:
        """Raise PinRefused (401/403/409/429) unless `pin` is the table's PIN.

        `client` is who asks (the request's address): lockouts are per client.
        """
        if stored is None:
            raise PinRefused(409, "this table has no PIN yet: choose one on the Set-up page first")
        if not pin:
            raise PinRefused(401, NEEDS_PIN)
        with self._lock:
            c = self._client(client)
            now = time.monotonic()
            if c.locked_until > now:
                raise PinRefused(429, f"too many wrong PINs from this phone: try again in "
                                      f"{int(c.locked_until - now) + 1} s")
            if c.fails + c.checking >= self.max_fails:  # the rest of this window's guesses are under way
                raise PinRefused(429, "too many PIN tries at once from this phone: wait a moment and try again")
            c.checking += 1
        try:
            ok = pin_matches(pin, stored)
        finally:
            with self._lock:
                c.checking -= 1
        with self._lock:
            if ok:
                c.fails = 0
                self._forget_idle()
                return
            c.fails += 1
            if c.fails >= self.max_fails:
                c.fails, c.locked_until = 0, time.monotonic() + self.lockout_s
        raise PinRefused(403, "wrong PIN")

    def _client(self, key: str) -> _Client:
        c = self.clients.get(key)
        if c is None:
            if len(self.clients) >= MAX_CLIENTS:
                self._forget_idle()
            c = self.clients[key] = _Client()
        return c

    def _forget_idle(self) -> None:
        now = time.monotonic()
        for key in [k for k, c in self.clients.items() if not c.fails and not c.checking and c.locked_until <= now]:
            del self.clients[key]
        if len(self.clients) >= MAX_CLIENTS:  # many clients mid-guess: forget the ones not locked out
            for key in [k for k, c in self.clients.items() if c.locked_until <= now and not c.checking]:
                del self.clients[key]
