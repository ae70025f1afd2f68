"""Time-based one-time passwords (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits), what a virtual
MFA device's authenticator app shows for the device's Base32 seed."""

from __future__ import annotations

import base64
import hashlib
import hmac
import struct
import time

STEP_S = 30
# How far a device's clock may have drifted for a resync to find it, in steps either way
# (UNCONFIRMED: IAM does not document its window).
RESYNC_WINDOW = 20


def code(seed: str, counter: int) -> str:
    digest = hmac.new(base64.b32decode(seed), struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1_000_000:06d}"


def consecutive(seed: str, first: str, second: str, now: float | None = None) -> int | None:
    """The counter of `first` when `first` and `second` are two consecutive codes near now; else None."""
    current = int((time.time() if now is None else now) // STEP_S)
    for counter in range(current - RESYNC_WINDOW, current + RESYNC_WINDOW + 1):
        if hmac.compare_digest(code(seed, counter), first) and hmac.compare_digest(code(seed, counter + 1), second):
            return counter
    return None
