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


KEY_CHECK = 4  # characters of an issued key id that check the rest: 1 in 36**4 other ids pass


def new_key_id(prefix: str) -> str:
    """An access key id onceflow issues (AKIA..., ASIA...; 20 characters, as AWS's): random, its
    last characters a check of the rest, so a key it issued is known as its own once deleted."""
    body = new_id(prefix, 20 - KEY_CHECK)
    return body + _key_check(body)


def is_issued_key(key: str) -> bool:
    """Whether onceflow issued this key id (it need not exist any more: a deleted key, a deleted
    user's key). Such a key is never taken for the account root, as any other key is."""
    return len(key) == 20 and key[:4] in ("AKIA", "ASIA") and key[-KEY_CHECK:] == _key_check(key[:-KEY_CHECK])


def _key_check(body: str) -> str:
    digest = hashlib.sha256(b"onceflow issued key:" + body.encode()).digest()
    return "".join(ID_CHARS[b % len(ID_CHARS)] for b in digest[:KEY_CHECK])
