"""Step Functions behaviours replayed from AWS's recordings (LocalStack's AWS-validated snapshots under
tests/aws/services/stepfunctions/v2/) that the open conformance corpus does not pin, end to end
through boto3. Each test names the snapshot file and test its expectation comes from."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import botocore.exceptions
import pytest
from sfn_setup import states_role


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return states_role(aws, "sfns14")


def _create_error(aws: Callable[..., Any], role: str, definition: dict[str, Any]) -> tuple[str, str]:
    with pytest.raises(botocore.exceptions.ClientError) as caught:
        aws("stepfunctions").create_state_machine(name=f"s14-{uuid.uuid4().hex[:10]}",
                                                  definition=json.dumps(definition), roleArn=role)
    err = caught.value.response["Error"]
    return err["Code"], err["Message"]


def _label_map(label: str) -> dict[str, Any]:
    return {"Comment": "MAP_STATE_LABEL_JSON", "StartAt": "MapState", "States": {"MapState": {
        "Type": "Map", "ItemProcessor": {
            "ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
            "StartAt": "IteratorInner", "States": {"IteratorInner": {"Type": "Pass", "End": True}}},
        "Label": label, "End": True}}}


# test_sfn_api_map_run.snapshot.json, test_map_state_label_invalid_char_fail: AWS reports a bad Label
# character as a Python ValueError whose Args is the repr of its args list, e.g.
# Args=["Label contains invalid character: '\\x00'"]. A '"' in the message makes that repr quote
# with single quotes (UNCONFIRMED: the '"' parameter's own recording was not in the stored copy).
@pytest.mark.parametrize(("char", "args"), [
    ("\x00", "[\"Label contains invalid character: '\\\\x00'\"]"),
    ("\\", "[\"Label contains invalid character: '\\\\\\\\'\"]"),
    ("\"", "['Label contains invalid character: \\'\"\\'']"),
])
def test_a_bad_label_character_is_reported_as_aws_reports_it(aws: Callable[..., Any], role: str, char: str,
                                                             args: str) -> None:
    definition = _label_map(f"label_{char}")
    code, message = _create_error(aws, role, definition)
    assert code == "InvalidDefinition"
    assert message == f"Error=ValueError Args={args} in definition '{json.dumps(definition)}'."
