"""Function names and ARNs, configuration checks and rendering."""

from __future__ import annotations

import re
from datetime import date

import pytest

from onceflow.errors import ServiceError
from onceflow.lambda_ import config, names

ACCOUNT, REGION = "123456789012", "us-east-1"


@pytest.mark.parametrize(
    ("value", "qualifier", "expected"),
    [
        ("worker", None, ("worker", None)),
        ("worker:live", None, ("worker", "live")),
        ("worker:$LATEST", None, ("worker", "$LATEST")),
        ("worker", "3", ("worker", "3")),
        (f"{ACCOUNT}:function:worker", None, ("worker", None)),
        (f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:worker:7", None, ("worker", "7")),
        (f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:worker:7", "7", ("worker", "7")),
    ],
)
def test_parse(value: str, qualifier: str | None, expected: tuple[str, str | None]) -> None:
    ref = names.parse(value, ACCOUNT, REGION, qualifier)
    assert (ref.name, ref.qualifier) == expected
    assert ref.arn() == f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:worker"


def test_conflicting_qualifiers() -> None:
    with pytest.raises(ServiceError) as err:
        names.parse("worker:1", ACCOUNT, REGION, "2")
    assert err.value.message == "The derived qualifier from the function name does not match the specified qualifier."


def test_other_accounts_function_is_not_found() -> None:
    with pytest.raises(ServiceError) as err:
        names.parse(f"arn:aws:lambda:{REGION}:999999999999:function:w", ACCOUNT, REGION)
    assert err.value.code == "ResourceNotFoundException"
    assert err.value.message == f"Function not found: arn:aws:lambda:{REGION}:999999999999:function:w"


def test_runtimes() -> None:
    enum = ["nodejs20.x", "python3.8", "python3.12"]
    today = date(2026, 12, 2)
    for runtime in ("python3.8", "python3.9", "python3.10", "python3.11", "python3.12", "python3.13", "python3.14"):
        config.check_runtime(runtime, enum, "create", today)
    with pytest.raises(ServiceError) as err:
        config.check_runtime("non-existent-runtime", enum, "create", today)
    assert err.value.code == "InvalidParameterValueException"
    assert err.value.message == (  # the list AWS recorded (2024-04), in its order
        "Value non-existent-runtime at 'runtime' failed to satisfy constraint: Member must satisfy enum value set: "
        "[nodejs20.x, provided.al2023, python3.12, java17, nodejs16.x, dotnet8, python3.10, java11, python3.11, "
        "dotnet6, java21, nodejs18.x, provided.al2, ruby3.3, java8.al2, ruby3.2, python3.8, python3.9] or be a "
        "valid ARN"
    )
    with pytest.raises(ServiceError) as err:
        config.check_runtime("python3.8", enum, "create", date(2027, 2, 1))
    assert err.value.message.startswith("The runtime parameter of python3.8 is no longer supported")


def test_reserved_environment_keys() -> None:
    with pytest.raises(ServiceError) as err:
        config.check_limits({"Environment": {"Variables": {"AWS_REGION": "x", "OK": "1"}}})
    assert err.value.message.endswith("Reserved keys used in this request: AWS_REGION")


def test_timeout_limit() -> None:
    with pytest.raises(ServiceError) as err:
        config.check_limits({"Timeout": 901})
    assert err.value.code == "ValidationException"
    assert err.value.message == (
        "1 validation error detected: Value '901' at 'timeout' failed to satisfy constraint: "
        "Member must have value less than or equal to 900"
    )


def test_render_states_and_defaults() -> None:
    record = {
        "FunctionName": "w", "Runtime": "python3.12", "Role": f"arn:aws:iam::{ACCOUNT}:role/r",
        "Handler": "app.handler", "CodeSize": 10, "LastModified": config.now_lambda(), "CodeSha256": "x",
        "RevisionId": "r1", "Environment": None,
    }  # fmt: skip
    created = config.render(record, ACCOUNT, REGION, "create")
    assert (created["State"], created["StateReasonCode"]) == ("Pending", "Creating")
    assert "Environment" not in created
    assert (created["Timeout"], created["MemorySize"], created["Version"]) == (3, 128, "$LATEST")
    assert config.render(record, ACCOUNT, REGION)["LastUpdateStatus"] == "Successful"
    assert config.render(record, ACCOUNT, REGION, "update")["LastUpdateStatus"] == "InProgress"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000", record["LastModified"])
    published = config.render({**record, "Version": "4"}, ACCOUNT, REGION)
    assert published["FunctionArn"] == f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:w:4"
