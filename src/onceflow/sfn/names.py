"""Small rules the Step Functions API modules share: which names AWS accepts, how times go out,
which encryption configurations are valid."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from onceflow.errors import ServiceError

_FORBIDDEN = re.compile(r"[\s<>{}\[\]?*\"#%\\^|~`$&,;:/\x00-\x1f\x7f-\x9f\ufffe\uffff]|[\ud800-\udfff]")


def ts(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


def valid_name(name: str) -> bool:
    """State machine, execution, activity and alias names: 1-80 characters, none AWS forbids."""
    return 0 < len(name) <= 80 and not _FORBIDDEN.search(name)


def tag_pairs(tags: list[dict[str, Any]] | None) -> list[tuple[str, str]]:
    """The (key, value) pairs of a request's tags. The model's Tag requires neither member; a tag
    without a key is refused in the model's not-null form, before anything is written (UNCONFIRMED:
    AWS's answer to one; a missing value is taken as the empty one)."""
    pairs = []
    for i, tag in enumerate(tags or []):
        if tag.get("key") is None:
            raise ServiceError("ValidationException", f"1 validation error detected: Value null at "
                               f"'tags.{i + 1}.member.key' failed to satisfy constraint: Member must not be null", 400)
        pairs.append((tag["key"], tag.get("value") or ""))
    return pairs


def check_encryption(config: dict[str, Any] | None) -> None:
    """InvalidEncryptionConfiguration as the API reference lists its causes: a customer managed key
    without its id, or a data key reuse period outside 60-900 seconds (onceflow serves no KMS, so a
    key's own state is not checked). The messages' wording is UNCONFIRMED."""
    if not config:
        return
    if config.get("type") == "CUSTOMER_MANAGED_KMS_KEY" and not config.get("kmsKeyId"):
        raise ServiceError("InvalidEncryptionConfiguration",
                           "kmsKeyId is required when the encryption type is CUSTOMER_MANAGED_KMS_KEY", 400)
    period = config.get("kmsDataKeyReusePeriodSeconds")
    if period is not None and config.get("type") == "CUSTOMER_MANAGED_KMS_KEY" and not 60 <= period <= 900:
        raise ServiceError("InvalidEncryptionConfiguration",
                           "kmsDataKeyReusePeriodSeconds must be between 60 and 900", 400)
