"""What the IAM service tests share: unique names, and an error's code, message and status (their `iam`
client fixture is in tests/service/conftest.py)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from calls import unique as unique  # re-exported: the IAM tests import it from here


def error(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    r = exc.value.response
    return r["Error"]["Code"], r["Error"]["Message"], r["ResponseMetadata"]["HTTPStatusCode"]
