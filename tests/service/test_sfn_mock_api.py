"""`/_onceflow/mock-config` and `Onceflow.mock_config`: a mock configuration loaded into a running
server, test cases run through `start_execution(test_case=...)`, reset and refusals."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from onceflow.testing import Onceflow, OnceflowError

CONFIG: dict[str, Any] = {
    "StateMachines": {"Greeter": {"TestCases": {
        "Happy": {"Greet": "Hello"},
        "Broken": {"Greet": "Boom"},
    }}},
    "MockedResponses": {
        "Hello": {"0": {"Return": {"Payload": {"greeting": "hi"}}}},
        "Boom": {"0": {"Throw": {"Error": "Lambda.ServiceException", "Cause": "down"}}},
    },
}
DEFINITION = {"StartAt": "Greet", "States": {"Greet": {
    "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "OutputPath": "$.Payload",
    "Parameters": {"FunctionName": "greeter", "Payload.$": "$"}, "End": True}}}


@pytest.fixture(scope="module")
def of() -> Iterator[Onceflow]:
    with Onceflow() as server:  # its own server: the tests load and unload configurations
        yield server


@pytest.fixture
def fresh(of: Onceflow) -> Onceflow:
    of.reset()
    of.deploy_state_machine("Greeter", DEFINITION)
    return of


def test_a_loaded_configuration_drives_its_test_cases(fresh: Onceflow) -> None:
    assert fresh.mock_config(CONFIG) == CONFIG
    happy = fresh.execute("Greeter", {"name": "ada"}, test_case="Happy")
    assert happy["status"] == "SUCCEEDED" and json.loads(happy["output"]) == {"greeting": "hi"}
    broken = fresh.execute("Greeter", {}, test_case="Broken")
    assert (broken["status"], broken["error"], broken["cause"]) == ("FAILED", "Lambda.ServiceException", "down")
    assert [e["type"] for e in fresh.history(broken["executionArn"])][2:5] == [
        "TaskScheduled", "TaskStarted", "TaskFailed"]


def test_a_configuration_from_a_file(fresh: Onceflow, tmp_path: Path) -> None:
    path = tmp_path / "MockConfigFile.json"
    path.write_text(json.dumps(CONFIG))
    fresh.mock_config(path)
    assert fresh.execute("Greeter", {}, test_case="Happy")["status"] == "SUCCEEDED"


def test_reset_and_none_unload_it(fresh: Onceflow) -> None:
    fresh.mock_config(CONFIG)
    fresh.reset()
    fresh.deploy_state_machine("Greeter", DEFINITION)
    with pytest.raises(Exception, match="StateMachineDoesNotExist"):
        fresh.start_execution("Greeter", {}, test_case="Happy")
    fresh.mock_config(CONFIG)
    assert fresh.mock_config(None) is None
    with pytest.raises(Exception, match="StateMachineDoesNotExist"):
        fresh.start_execution("Greeter", {}, test_case="Happy")


def test_a_running_execution_keeps_its_test_case_when_the_configuration_changes(fresh: Onceflow) -> None:
    waiting = {"StartAt": "Nap", "States": {"Nap": {"Type": "Wait", "Seconds": 1, "Next": "Greet"},
                                            "Greet": DEFINITION["States"]["Greet"]}}
    fresh.deploy_state_machine("Greeter", waiting)
    fresh.mock_config(CONFIG)
    arn = fresh.start_execution("Greeter", {}, test_case="Happy")
    fresh.mock_config(None)
    done = fresh.wait_execution(arn)
    assert done["status"] == "SUCCEEDED" and json.loads(done["output"]) == {"greeting": "hi"}


@pytest.mark.parametrize("bad, fragment", [
    ({"StateMachines": {"Greeter": {"TestCases": {"T": {"Greet": "Missing"}}}}}, "'Missing'"),
    ({"MockedResponses": {"R": {"0-1": {"Return": 1}, "1": {"Return": 2}}}}, "overlap"),
    ({"Unknown": {}}, "'Unknown'"),
])
def test_a_bad_configuration_is_refused_and_changes_nothing(fresh: Onceflow, bad: dict[str, Any],
                                                           fragment: str) -> None:
    fresh.mock_config(CONFIG)
    with pytest.raises(OnceflowError, match="400") as exc:
        fresh.mock_config(bad)
    assert fragment in str(exc.value)
    assert fresh.execute("Greeter", {}, test_case="Happy")["status"] == "SUCCEEDED"


def test_a_web_page_cannot_change_it(of: Onceflow) -> None:
    of.mock_config(None)
    req = urllib.request.Request(of.endpoint + "/_onceflow/mock-config", data=json.dumps(CONFIG).encode(),
                                 method="POST", headers={"origin": "http://evil.example"})
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(req, timeout=10)
    assert exc.value.code == 403
    exc.value.close()  # its socket, else a ResourceWarning lands on a later test
    with urllib.request.urlopen(of.endpoint + "/_onceflow/mock-config", timeout=10) as resp:
        assert json.loads(resp.read()) == {"mockConfig": None}  # nothing was loaded
