"""Console passwords: checked against the account's password policy (or AWS's default policy when
the account has none), kept only as salted PBKDF2 hashes, with the history that
PasswordReusePrevention needs.

AWS (IAM User Guide, "Set an account password policy for IAM users"): without a custom policy a
password must be 8 to 128 characters with at least three of uppercase letters, lowercase letters,
numbers and the symbols ! @ # $ % ^ & * ( ) _ + - = [ ] { } | '. The violation messages are
UNCONFIRMED (the first rule broken is named).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from onceflow.iam import errors

SYMBOLS = frozenset("!@#$%^&*()_+-=[]{}|'")
DEFAULT_LENGTH = 8
ITERATIONS = 20_000  # a local emulator's passwords: enough to keep them out of plain sight


def _classes(password: str) -> dict[str, bool]:
    return {
        "uppercase letter": any("A" <= c <= "Z" for c in password),
        "lowercase letter": any("a" <= c <= "z" for c in password),
        "number": any(c.isdigit() for c in password),
        "symbol": any(c in SYMBOLS for c in password),
    }


def check(password: str, policy: dict[str, Any] | None) -> None:
    """Raise PasswordPolicyViolation when `password` breaks the policy (None: AWS's default one)."""
    has = _classes(password)
    if policy is None:
        if len(password) < DEFAULT_LENGTH:
            raise errors.password_policy_violation(f"Password should have a minimum length of {DEFAULT_LENGTH}")
        if sum(has.values()) < 3:
            raise errors.password_policy_violation(
                "Password should have at least three of: uppercase letters, lowercase letters, numbers, symbols")
        return
    minimum = int(policy.get("MinimumPasswordLength", 6))
    if len(password) < minimum:
        raise errors.password_policy_violation(f"Password should have a minimum length of {minimum}")
    required = {"uppercase letter": "RequireUppercaseCharacters", "lowercase letter": "RequireLowercaseCharacters",
                "number": "RequireNumbers", "symbol": "RequireSymbols"}
    for what, flag in required.items():
        if policy.get(flag) and not has[what]:
            raise errors.password_policy_violation(f"Password should have at least one {what}")


def digest(password: str, salt: str | None = None) -> str:
    salt = salt or secrets.token_hex(16)
    derived = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), ITERATIONS).hex()
    return f"{salt}${derived}"


def matches(password: str, stored: str) -> bool:
    salt = stored.split("$", 1)[0]
    return hmac.compare_digest(digest(password, salt), stored)


def reused(password: str, history: list[str], keep: int) -> bool:
    """Whether `password` is one of the last `keep` passwords (PasswordReusePrevention)."""
    return keep > 0 and any(matches(password, old) for old in history[-keep:])
