"""The table's PIN: watching needs nothing, changing scores, settings or calibration needs it.

Only a salted PBKDF2 hash is stored. Wrong guesses are slowed down: after a few in a
row the panel refuses PIN checks for a while, so a four-digit PIN cannot be tried
through in an evening.
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


def hash_pin(pin: str, salt: bytes | None = None, iterations: int = ITERATIONS) -> dict:
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode("utf-8"), salt, iterations)
    return {"salt": salt.hex(), "hash": digest.hex(), "iterations": iterations, "algo": "pbkdf2-sha256"}


def pin_matches(pin: str, stored: dict) -> bool:
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode("utf-8"), bytes.fromhex(stored["salt"]),
                                 int(stored["iterations"]))
    return hmac.compare_digest(digest.hex(), stored["hash"])


class PinRefused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


@dataclass
class PinGuard:
    fails: int = 0
    locked_until: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, pin: str | None, stored: dict | None) -> None:
        """Raise PinRefused (401/403/409/429) unless `pin` is the table's PIN."""
        if stored is None:
            raise PinRefused(409, "this table has no PIN yet: choose one on the Set-up page first")
        if not pin:
            raise PinRefused(401, "this change needs the table's PIN (send it in the X-Table-PIN header)")
        with self._lock:
            wait = self.locked_until - time.monotonic()
            if wait > 0:
                raise PinRefused(429, f"too many wrong PINs: try again in {int(wait) + 1} s")
        ok = pin_matches(pin, stored)
        with self._lock:
            if ok:
                self.fails = 0
                return
            self.fails += 1
            if self.fails >= MAX_FAILS:
                self.fails, self.locked_until = 0, time.monotonic() + LOCKOUT_S
        raise PinRefused(403, "wrong PIN")
