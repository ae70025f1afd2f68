"""The stages of the request pipeline that are plain data or functions (wire/app.py lists them)."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from wire_oracle import specs

from onceflow.registry import OverBudget, on_loop, operation, placement, run_bounded
from onceflow.wire import facts, protocols
from onceflow.wire.specs import Specs


def test_every_served_protocol_has_its_own_protocol_object() -> None:
    served: Specs = specs()
    # S3 (rest-xml) streams its bodies on a path of its own (s3_path.py); every other service's
    # protocol must be one the pipeline knows, never the REST-JSON fallback by accident.
    for spec in served.services.values():
        if spec.name != "s3":
            assert protocols.of(spec).name == spec.protocol, spec.name
    assert {p.name for p in protocols.PROTOCOLS.values()} == {"json", "query", "rest-json"}


def test_the_placement_hint_is_read_off_the_handler_and_survives_a_wrapper() -> None:
    @operation("A", inline=True)
    def quick(ctx: Any, params: Any) -> None: ...

    @operation("B", commits=True)
    def write(ctx: Any, params: Any) -> None: ...

    @operation("C")
    def slow(ctx: Any, params: Any) -> None: ...

    @operation("D", bounded=True)
    def read(ctx: Any, params: Any) -> None: ...

    assert [placement(h) for h in (quick, write, slow, read)] == ["loop", "commit", "pool", "bounded"]
    wrapped = functools.wraps(write)(lambda ctx, params: write(ctx, params))  # as the prover's ledger wraps
    assert placement(wrapped) == "commit"
    assert placement(functools.wraps(read)(lambda ctx, params: read(ctx, params))) == "bounded"


def test_only_a_bounded_run_is_on_the_loops_budget() -> None:
    assert not on_loop()
    assert run_bounded(on_loop) is True
    assert not on_loop()  # reset after it, and after an OverBudget too
    with pytest.raises(OverBudget):
        run_bounded(lambda: (_ for _ in ()).throw(OverBudget()))
    assert not on_loop()


def test_the_per_service_facts_and_their_defaults() -> None:
    assert facts.validation_code("sts") == "ValidationError"
    assert facts.validation_code("logs") == "InvalidParameterException"
    assert facts.validation_code("dynamodb") == "ValidationException"


def test_an_operation_whose_model_lists_only_validation_exception_answers_with_it() -> None:
    logs = specs().services["logs"].operations
    assert facts.validation_code("logs", logs["PutDeliveryDestination"]) == "ValidationException"
    assert facts.validation_code("logs", logs["CreateLogGroup"]) == "InvalidParameterException"
    assert facts.validation_code("logs", logs["DeleteLogGroup"]) == "InvalidParameterException"  # lists both
    assert facts.body_limit("lambda", 1024) == 80 * 1024 * 1024 and facts.body_limit("sqs", 1024) == 1024
    assert facts.is_long_call("lambda", "Invoke") and facts.is_long_call("stepfunctions", "GetActivityTask")
    assert not facts.is_long_call("lambda", "GetFunction") and not facts.is_long_call("sqs", "Invoke")
