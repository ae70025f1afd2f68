"""Read the SigV4 credential scope: access key, region and service of a request.

onceflow accepts any signature (it is a local stack); the scope is what routes the call and picks
the account and region. Presigned URLs carry the same scope in X-Amz-Credential.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qs

_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request")


@dataclass(frozen=True)
class Scope:
    access_key: str
    region: str
    service: str


def credential_scope(headers: dict[str, str], query_string: str) -> Scope | None:
    auth = headers.get("authorization", "")
    m = _CREDENTIAL.search(auth)
    if m:
        return Scope(m.group(1), m.group(3), m.group(4))
    if "X-Amz-Credential" in query_string:
        cred = parse_qs(query_string).get("X-Amz-Credential", [""])[0]
        parts = cred.split("/")
        if len(parts) == 5:
            return Scope(parts[0], parts[2], parts[3])
    return None
