"""Runtime deprecation: CreateFunction refuses a runtime from its "block function create" day,
UpdateFunctionConfiguration from its "block function update" day; the day is given, not read."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from onceflow.errors import ServiceError
from onceflow.lambda_ import runtime_lifecycle as lifecycle

DAY = timedelta(days=1)


@pytest.mark.parametrize("runtime", sorted(lifecycle.LIFECYCLE))
def test_each_block_starts_on_its_day(runtime: str) -> None:
    life = lifecycle.LIFECYCLE[runtime]
    assert life.deprecated <= life.block_create <= life.block_update
    assert not lifecycle.blocked(runtime, "create", life.block_create - DAY)
    assert lifecycle.blocked(runtime, "create", life.block_create)
    assert not lifecycle.blocked(runtime, "update", life.block_update - DAY)
    assert lifecycle.blocked(runtime, "update", life.block_update)


def test_between_the_two_blocks_updates_are_still_taken() -> None:
    life = lifecycle.LIFECYCLE["python3.9"]
    between = life.block_create + DAY
    assert between < life.block_update
    with pytest.raises(ServiceError):
        lifecycle.check("python3.9", "create", between)
    lifecycle.check("python3.9", "update", between)


def test_as_of_2026_12_02() -> None:
    today = date(2026, 12, 2)
    refused = [r for r in ("python2.7", "python3.6", "python3.7") if lifecycle.blocked(r, "create", today)]
    assert refused == ["python2.7", "python3.6", "python3.7"]
    for runtime in ("python3.8", "python3.9", "python3.10", "python3.11", "python3.12", "python3.14"):
        assert not lifecycle.blocked(runtime, "create", today)
        assert not lifecycle.blocked(runtime, "update", today)


def test_the_refusal_in_aws_words() -> None:
    with pytest.raises(ServiceError) as err:
        lifecycle.check("python3.7", "update", date(2026, 12, 2))
    assert err.value.code == "InvalidParameterValueException"
    assert err.value.message == (
        "The runtime parameter of python3.7 is no longer supported for creating or updating AWS Lambda functions. "
        "We recommend you use the new runtime (python3.13) while creating or updating functions."
    )


def test_a_runtime_without_dates_is_never_blocked() -> None:
    assert not lifecycle.blocked("python3.14", "create", date(2100, 1, 1))
