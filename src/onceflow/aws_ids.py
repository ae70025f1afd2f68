"""The unique ids AWS gives principals (AIDA..., AROA..., AKIA...): 21 characters of upper-case
letters and digits after a prefix that names the kind. One shape for IAM, STS and the SenderId SQS
shows, random for new entities or stable for a seed."""

from __future__ import annotations

import hashlib
import secrets
import string

ID_CHARS = string.ascii_uppercase + string.digits


def new_id(prefix: str, length: int = 21) -> str:
    return prefix + "".join(secrets.choice(ID_CHARS) for _ in range(length - len(prefix)))


def stable_id(prefix: str, seed: str, length: int = 21) -> str:
    """An id shaped like new_id's that is the same for the same seed (a role IAM does not hold
    gets one id however often its sessions are named; a service's sender id one per region)."""
    digest = hashlib.sha256(seed.encode()).digest()
    return prefix + "".join(ID_CHARS[b % len(ID_CHARS)] for b in digest[: length - len(prefix)])
