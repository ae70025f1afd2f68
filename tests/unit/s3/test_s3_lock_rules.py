"""Object Lock's retention rules as pure functions: what strengthens a lock, what needs the bypass."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from onceflow.errors import ServiceError
from onceflow.s3 import lock

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def held(mode: str, days: int) -> dict[str, str]:
    return {"ObjectLockMode": mode, "ObjectLockRetainUntilDate": (NOW + timedelta(days=days)).isoformat()}


def change(headers: dict[str, str], mode: str | None, days: int | None, bypass: bool = False) -> dict[str, str]:
    wanted = {} if mode is None else {"Mode": mode, "RetainUntilDate": NOW + timedelta(days=days or 0)}
    return lock.check_retention_change(headers, wanted, bypass, NOW.timestamp())


def test_a_lock_may_always_be_lengthened_or_raised_to_compliance() -> None:
    assert change(held("GOVERNANCE", 1), "GOVERNANCE", 5)["ObjectLockMode"] == "GOVERNANCE"
    assert change(held("GOVERNANCE", 1), "COMPLIANCE", 1)["ObjectLockMode"] == "COMPLIANCE"
    assert change(held("COMPLIANCE", 1), "COMPLIANCE", 2)["ObjectLockRetainUntilDate"] == (
        NOW + timedelta(days=2)).isoformat()


@pytest.mark.parametrize(("mode", "days"), [("GOVERNANCE", 1), (None, None)])
def test_weakening_governance_needs_the_bypass_and_compliance_refuses_it(mode: str | None, days: int | None) -> None:
    with pytest.raises(ServiceError) as info:
        change(held("GOVERNANCE", 3), mode, days)
    assert info.value.code == "AccessDenied"
    out = change(held("GOVERNANCE", 3), mode, days, bypass=True)
    assert ("ObjectLockMode" in out) == (mode is not None)
    with pytest.raises(ServiceError):
        change(held("COMPLIANCE", 3), mode, days, bypass=True)
    assert change(held("COMPLIANCE", -1), mode, days) is not None  # an expired lock holds nothing


def test_a_legal_hold_or_a_live_retention_keeps_a_version() -> None:
    with pytest.raises(ServiceError):
        lock.check_deletable({"headers": {"ObjectLockLegalHoldStatus": "ON"}}, True, NOW.timestamp())
    lock.check_deletable({"headers": held("GOVERNANCE", 1)}, True, NOW.timestamp())
    lock.check_deletable({"headers": held("COMPLIANCE", -1)}, False, NOW.timestamp())
    with pytest.raises(ServiceError):
        lock.check_deletable({"headers": held("COMPLIANCE", 1)}, True, NOW.timestamp())
