"""A key onceflow knows the secret of: who it acts as, the secret its signatures are checked
with, and, for temporary keys, the session token that must come with it and when it expires.

IAM (users' access keys) and STS (session keys) register resolvers in `stack.credential_resolvers`:
`(access key id) -> Credential | None`. The wire layer verifies each request against the
Credential its key resolves to (wire/authenticate.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from onceflow.context import Principal


@dataclass(frozen=True, slots=True)
class Credential:
    principal: Principal
    secret: str
    session_token: str | None = None  # temporary keys: the X-Amz-Security-Token that must come with them
    expires_at: float | None = None  # epoch seconds (wall clock); None: a long-term key
    active: bool = True  # IAM access keys can be made Inactive
