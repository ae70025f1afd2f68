"""What the IAM service tests share: unique names, and an error's code, message and status (their `iam`
client fixture is in tests/service/conftest.py)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from calls import unique as unique  # re-exported: the IAM tests import it from here


def error(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    r = exc.value.response
    return r["Error"]["Code"], r["Error"]["Message"], r["ResponseMetadata"]["HTTPStatusCode"]


def totp_codes(seed: str | bytes) -> tuple[str, str]:
    """Two consecutive codes of a virtual MFA device now, as its authenticator app would show them
    (RFC 6238: HMAC-SHA1 over 30-second steps, 6 digits), written here apart from the server's own."""
    import base64
    import hashlib
    import hmac
    import struct
    import time

    def at(counter: int) -> str:
        digest = hmac.new(base64.b32decode(seed), struct.pack(">Q", counter), hashlib.sha1).digest()
        offset = digest[-1] & 0x0F
        return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"

    now = int(time.time() // 30)
    return at(now - 1), at(now)
