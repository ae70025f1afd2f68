"""RFC 6238's SHA-1 test vectors (Appendix B), cut to the six digits IAM's devices show."""

from __future__ import annotations

from onceflow.iam import totp

SEED = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"  # base32 of "12345678901234567890"


def test_codes_match_the_rfc_vectors() -> None:
    assert totp.code(SEED, 59 // 30) == "287082"
    assert totp.code(SEED, 1111111109 // 30) == "081804"
    assert totp.code(SEED, 1234567890 // 30) == "005924"


def test_two_consecutive_codes_are_found_within_the_window_only() -> None:
    now = 1111111109.0
    counter = int(now // 30)
    first, second = totp.code(SEED, counter - 3), totp.code(SEED, counter - 2)
    assert totp.consecutive(SEED, first, second, now) == counter - 3
    assert totp.consecutive(SEED, second, first, now) is None
    far = counter + totp.RESYNC_WINDOW + 5
    assert totp.consecutive(SEED, totp.code(SEED, far), totp.code(SEED, far + 1), now) is None
