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
