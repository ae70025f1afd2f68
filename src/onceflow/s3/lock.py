"""S3 Object Lock: a bucket's lock configuration (default retention), a version's retention
(GOVERNANCE or COMPLIANCE until a date) and legal hold, and what they refuse: deleting a locked
version, shortening a COMPLIANCE retention, suspending versioning. A version's lock lives in its
headers (ObjectLockMode, ObjectLockRetainUntilDate, ObjectLockLegalHoldStatus), so Get/HeadObject
answer it as they answer any system header.

GOVERNANCE gives way to `x-amz-bypass-governance-retention: true`; AWS also wants the
s3:BypassGovernanceRetention permission for it, which IAM checks as for any action (not here)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from onceflow.errors import ServiceError
from onceflow.s3 import errors

MODES = ("GOVERNANCE", "COMPLIANCE")
CONFIG = "object_lock"  # the bucket configs' key


def missing_config() -> ServiceError:
    return ServiceError("InvalidRequest", "Bucket is missing Object Lock Configuration", 400)


def no_object_lock() -> ServiceError:
    return ServiceError("NoSuchObjectLockConfiguration", "The specified object does not have a ObjectLock "
                        "configuration", 404)


def no_bucket_lock() -> ServiceError:
    return ServiceError("ObjectLockConfigurationNotFoundError", "Object Lock configuration does not exist for this "
                        "bucket", 404)


def denied() -> ServiceError:
    return ServiceError("AccessDenied", "Access Denied", 403)


def enabled(bucket_row: dict[str, Any]) -> bool:
    return (bucket_row["configs"].get(CONFIG) or {}).get("ObjectLockEnabled") == "Enabled"


def check_config(bucket_row: dict[str, Any], config: dict[str, Any]) -> None:
    """PutObjectLockConfiguration's body, on a bucket whose versioning is on."""
    if config.get("ObjectLockEnabled") != "Enabled":
        raise errors.malformed_xml()
    if bucket_row["versioning"] != "Enabled":
        raise ServiceError("InvalidBucketState", "Versioning must be 'Enabled' on the bucket to apply a Object Lock "
                           "configuration", 409)
    rule = (config.get("Rule") or {}).get("DefaultRetention")
    if rule is None:
        return
    if rule.get("Mode") not in MODES or ("Days" in rule) == ("Years" in rule):
        raise errors.malformed_xml()
    if int(rule.get("Days", rule.get("Years", 0))) <= 0:
        raise errors.invalid_argument("Default retention period must be a positive integer value",
                                      "Days" if "Days" in rule else "Years", str(rule.get("Days", rule.get("Years"))))


def _future(date: datetime, now: float) -> datetime:
    if date.tzinfo is None:
        date = date.replace(tzinfo=UTC)
    if date.timestamp() <= now:
        raise errors.invalid_argument("The retain until date must be in the future!")
    return date


def new_version_fields(bucket_row: dict[str, Any], fields: dict[str, Any], now: float) -> dict[str, Any]:
    """A new version's lock headers: those its request asked for (checked), else the bucket's default
    retention; a bucket without Object Lock refuses them."""
    mode, until, hold = (fields.get("ObjectLockMode"), fields.get("ObjectLockRetainUntilDate"),
                         fields.get("ObjectLockLegalHoldStatus"))
    if not enabled(bucket_row):
        if mode or until or hold:
            raise missing_config()
        return fields
    if (mode is None) != (until is None):
        raise errors.invalid_argument("x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both "
                                      "be supplied")
    out = dict(fields)
    if until is not None:
        out["ObjectLockRetainUntilDate"] = _future(until, now)
        return out
    rule = ((bucket_row["configs"][CONFIG].get("Rule") or {}).get("DefaultRetention")) or {}
    if rule:
        days = int(rule["Days"]) if "Days" in rule else int(rule["Years"]) * 365
        out["ObjectLockMode"] = rule["Mode"]
        # whole seconds: the date then reads the same in a header and in GetObjectRetention's body
        out["ObjectLockRetainUntilDate"] = datetime.fromtimestamp(int(now), UTC) + timedelta(days=days)
    return out


def retain_until(headers: dict[str, Any]) -> float | None:
    value = headers.get("ObjectLockRetainUntilDate")
    return datetime.fromisoformat(value).timestamp() if isinstance(value, str) else None


def check_retention_change(headers: dict[str, Any], wanted: dict[str, Any], bypass: bool, now: float) -> dict[str, Any]:
    """The version's headers with PutObjectRetention's `wanted` ({} removes it): a COMPLIANCE lock
    can only be lengthened, a GOVERNANCE one shortened or removed only with the bypass."""
    mode, until = wanted.get("Mode"), wanted.get("RetainUntilDate")
    if (mode is None) != (until is None) or (mode is not None and mode not in MODES):
        raise errors.malformed_xml()
    if until is not None:
        until = _future(until, now)
    current_mode, current_until = headers.get("ObjectLockMode"), retain_until(headers)
    if current_until is not None and current_until > now:
        stronger = until is not None and until.timestamp() >= current_until and (
            mode == current_mode or (current_mode, mode) == ("GOVERNANCE", "COMPLIANCE"))
        if not stronger and (current_mode == "COMPLIANCE" or not bypass):
            raise denied()
    out = {k: v for k, v in headers.items() if k not in ("ObjectLockMode", "ObjectLockRetainUntilDate")}
    if until is not None:
        out["ObjectLockMode"], out["ObjectLockRetainUntilDate"] = mode, until.isoformat()
    return out


def check_deletable(obj: dict[str, Any], bypass: bool, now: float) -> None:
    """A version may be removed only when no legal hold and no retention (GOVERNANCE: unless bypassed) holds it."""
    headers = obj["headers"]
    if headers.get("ObjectLockLegalHoldStatus") == "ON":
        raise denied()
    until = retain_until(headers)
    if until is not None and until > now:
        if headers.get("ObjectLockMode") == "COMPLIANCE" or not bypass:
            raise denied()
