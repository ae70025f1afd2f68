"""The ERROR_CODE a dead-letter message carries: AWS's names for why a delivery failed."""

from __future__ import annotations

import pytest

from onceflow.events.targets import DeliveryFailure, dead_letter_code_of


@pytest.mark.parametrize(("code", "retriable", "expected"), [
    ("AccessDeniedException", False, "NO_PERMISSIONS"),  # a resource policy refused events.amazonaws.com
    ("AccessDenied", False, "NO_PERMISSIONS"),
    ("ResourceNotFoundException", False, "NO_RESOURCE"),  # the function or bus is gone
    ("AWS.SimpleQueueService.NonExistentQueue", False, "NO_RESOURCE"),
    ("NoRole", False, "FAILED_TO_ASSUME_ROLE"),
    ("TooManyRequestsException", True, "THROTTLING"),
    ("HTTP400", False, "ERROR_FROM_TARGET"),  # an API destination's endpoint said no
    ("ConnectionFailed", True, "CONNECTION_FAILURE"),
    ("KMSDisabled", True, "INTERNAL_ERROR"),
    ("TooManyHops", False, "UNKNOWN"),
])
def test_dead_letter_code(code: str, retriable: bool, expected: str) -> None:
    assert dead_letter_code_of(code, retriable) == expected


def test_a_failure_may_name_its_own_code() -> None:
    # A role that does not trust EventBridge answers AccessDenied, but AWS files it as an assume-role failure.
    failure = DeliveryFailure("AccessDenied", "events.amazonaws.com may not assume r", False, "FAILED_TO_ASSUME_ROLE")
    assert (failure.code, failure.dead_letter_code) == ("AccessDenied", "FAILED_TO_ASSUME_ROLE")
    assert DeliveryFailure("AccessDenied", "no", False).dead_letter_code == "NO_PERMISSIONS"
