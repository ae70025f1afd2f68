"""S3's naming rules for buckets and keys (pure)."""

from __future__ import annotations

import ipaddress
import re

_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


def bucket_name_problem(name: str) -> str | None:
    """Why `name` breaks the general-purpose bucket naming rules, or None."""
    if not _BUCKET.fullmatch(name):
        return "invalid characters or length"
    if ".." in name or ".-" in name or "-." in name:
        return "adjacent periods or a period next to a hyphen"
    try:
        ipaddress.IPv4Address(name)
        return "formatted as an IP address"
    except ValueError:
        pass
    for prefix in ("xn--", "sthree-", "amzn-s3-demo-"):
        if name.startswith(prefix):
            return f"starts with {prefix}"
    for suffix in ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"):
        if name.endswith(suffix):
            return f"ends with {suffix}"
    return None
