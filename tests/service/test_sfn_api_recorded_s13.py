"""Step Functions API answers compared word for word with AWS's recordings: LocalStack's AWS-validated
snapshots under tests/aws/services/stepfunctions/v2/ (ARNs and ids normalised as LocalStack does). Each
test names the snapshot file, test and entry it encodes. Entries onceflow already answered alike are kept
here too, so a change that parts from AWS shows."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError
from sfn_setup import finished, states_role

# BaseTemplate.BASE_PASS_RESULT
PASS_RESULT = {"Comment": "BASE_PASS_RESULT", "StartAt": "State_1",
               "States": {"State_1": {"Type": "Pass", "Result": {"Arg1": "argument1"}, "End": True}}}
# ValidationTemplate.VALID_BASE_PASS, INVALID_BASE_NO_STARTAT, VALID_QUERY_LANGUAGE_PASS and
# INVALID_DOWNGRADE_QUERY_LANGUAGE
VALID_BASE_PASS = {"StartAt": "StartState", "States": {"StartState": {"Type": "Pass", "End": True}}}
NO_STARTAT = {"States": {"StartState": {"Type": "Pass", "End": True}}}
QUERY_LANGUAGE_PASS = {"StartAt": "Map", "QueryLanguage": "JSONPath", "States": {"Map": {
    "Type": "Map", "QueryLanguage": "JSONata", "ItemProcessor": {
        "ProcessorConfig": {"Mode": "INLINE"}, "StartAt": "Pass",
        "States": {"Pass": {"QueryLanguage": "JSONPath", "Type": "Pass", "End": True}}}, "End": True}}}
DOWNGRADE = {"StartAt": "Pass", "States": {"Pass": {"Type": "Pass", "End": True, "QueryLanguage": "JSONPath"}},
             "QueryLanguage": "JSONata"}
# CallbackTemplates.SQS_WAIT_FOR_TASK_TOKEN
WAIT_FOR_TOKEN = {"StartAt": "SendMessageWithWait", "States": {"SendMessageWithWait": {
    "Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage.waitForTaskToken",
    "Parameters": {"QueueUrl.$": "$.QueueUrl",
                   "MessageBody": {"Message.$": "$.Message", "TaskToken.$": "$$.Task.Token"}}, "End": True}}}


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return states_role(aws, "sfnrec13")


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions")


def _error(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    r = exc.value.response
    return r["Error"]["Code"], r["Error"]["Message"], r["ResponseMetadata"]["HTTPStatusCode"]


def _machine(sfn: Any, role: str, definition: dict[str, Any] = PASS_RESULT, **kw: Any) -> tuple[str, str]:
    name = f"statemachine_{uuid.uuid4().hex[:8]}"
    arn: str = sfn.create_state_machine(name=name, definition=json.dumps(definition), roleArn=role,
                                        **kw)["stateMachineArn"]
    return name, arn


def _validated(sfn: Any, definition: str, kind: str) -> dict[str, Any]:
    out: dict[str, Any] = sfn.validate_state_machine_definition(definition=definition, type=kind)
    out.pop("ResponseMetadata")
    return out


def _fail(code: str, message: str, location: str | None = None) -> dict[str, Any]:
    diagnostic = {"severity": "ERROR", "code": code, "message": message}
    if location is not None:
        diagnostic["location"] = location
    return {"result": "FAIL", "diagnostics": [diagnostic], "truncated": False}


OK = {"result": "OK", "diagnostics": [], "truncated": False}
NOT_A_DEF = ("Unrecognized token 'not': was expecting (JSON String, Number, Array, Object or token 'null', 'true' "
             "or 'false')\n at [Source: (String)\"not a definition\"; line: 1, column: 4]")
DOWNGRADE_MESSAGE = "'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine"


# --------------------------------------------------------------------------- test_sfn_api_validation.snapshot.json
# TestSfnApiValidation (recorded 2025-10-19): every entry, validation_response. 12 compared, 12 matched.
@pytest.mark.parametrize(("entry", "definition", "kind", "expected"), [
    ("not_a_definition[EMPTY_STRING]", " ", "STANDARD",
     _fail("SCHEMA_VALIDATION_FAILED", "Definition must be a valid JSON object")),
    ("not_a_definition[NOT_A_DEF]", "not a definition", "STANDARD",
     _fail("INVALID_JSON_DESCRIPTION", NOT_A_DEF, '[Source: (String)"not a definition"; line: 1, column: 4]')),
    ("not_a_definition[EMPTY_DICT]", "{}", "STANDARD",
     _fail("SCHEMA_VALIDATION_FAILED", "These fields are required: [States, StartAt]", "/")),
    ("type_standard[VALID_BASE_PASS]", json.dumps(VALID_BASE_PASS), "STANDARD", OK),
    ("type_standard[INVALID_BASE_NO_STARTAT]", json.dumps(NO_STARTAT), "STANDARD",
     _fail("SCHEMA_VALIDATION_FAILED", "These fields are required: [StartAt]", "/")),
    ("type_standard[VALID_QUERY_LANGUAGE_PASS]", json.dumps(QUERY_LANGUAGE_PASS), "STANDARD", OK),
    ("type_standard[INVALID_DOWNGRADE_QUERY_LANGUAGE]", json.dumps(DOWNGRADE), "STANDARD",
     _fail("SCHEMA_VALIDATION_FAILED", DOWNGRADE_MESSAGE, "/States/Pass")),
    ("type_express[VALID_BASE_PASS]", json.dumps(VALID_BASE_PASS), "EXPRESS", OK),
    ("type_express[INVALID_BASE_NO_STARTAT]", json.dumps(NO_STARTAT), "EXPRESS",
     _fail("SCHEMA_VALIDATION_FAILED", "These fields are required: [StartAt]", "/")),
    ("type_express[ILLEGAL_WFTT]", json.dumps(WAIT_FOR_TOKEN), "EXPRESS",  # the message ends in a space
     _fail("SCHEMA_VALIDATION_FAILED", "Express state machine does not support '.waitForTaskToken' service "
           "integration ", "/States/SendMessageWithWait/Resource")),
    ("type_express[VALID_QUERY_LANGUAGE_PASS]", json.dumps(QUERY_LANGUAGE_PASS), "EXPRESS", OK),
    ("type_express[INVALID_DOWNGRADE_QUERY_LANGUAGE]", json.dumps(DOWNGRADE), "EXPRESS",
     _fail("SCHEMA_VALIDATION_FAILED", DOWNGRADE_MESSAGE, "/States/Pass")),
])
def test_validate_state_machine_definition_as_recorded(sfn: Any, entry: str, definition: str, kind: str,
                                                       expected: dict[str, Any]) -> None:
    assert _validated(sfn, definition, kind) == expected


# --------------------------------------------------------------------------- test_sfn_api.snapshot.json (TestSnfApi)
def test_update_with_nothing_to_change_is_missing_required_parameter(sfn: Any, role: str) -> None:
    """test_create_update_state_machine_base_update_none, missing_required_parameter: AWS's code is
    MissingRequiredParameter (onceflow answered ValidationException). The recording (2023) names four
    fields; since EncryptionConfiguration came the fifth is named too (UNCONFIRMED)."""
    _, arn = _machine(sfn, role)
    with pytest.raises(ClientError) as exc:
        sfn.update_state_machine(stateMachineArn=arn)
    assert _error(exc) == ("MissingRequiredParameter", "Either the definition, the role ARN, the "
                           "LoggingConfiguration, the EncryptionConfiguration or the TracingConfiguration must be "
                           "specified", 400)
    assert "revisionId" not in sfn.describe_state_machine(stateMachineArn=arn)  # nothing changed


def test_list_executions_status_filter_enum_in_aws_order(sfn: Any, role: str) -> None:
    """test_state_machine_status_filter, list_executions_filter_exc: AWS lists the enum in its own order."""
    _, arn = _machine(sfn, role)
    with pytest.raises(ClientError) as exc:
        sfn.list_executions(stateMachineArn=arn, statusFilter="succeeded")
    assert _error(exc) == ("ValidationException", "1 validation error detected: Value 'succeeded' at 'statusFilter' "
                           "failed to satisfy constraint: Member must satisfy enum value set: [SUCCEEDED, TIMED_OUT, "
                           "PENDING_REDRIVE, ABORTED, FAILED, RUNNING]", 400)


def test_listed_executions_name_a_redrive_count_of_zero(sfn: Any, role: str) -> None:
    """test_state_machine_status_filter (list_before_execution, list_succeeded_when_complete,
    list_running_when_complete) and test_list_executions_versions_pagination: every listed execution
    carries redriveCount, 0 too (onceflow left it out until a redrive)."""
    _, arn = _machine(sfn, role, publish=True)
    assert sfn.list_executions(stateMachineArn=arn)["executions"] == []
    ex = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    assert finished(sfn, ex)["status"] == "SUCCEEDED"
    listed = sfn.list_executions(stateMachineArn=arn, statusFilter="SUCCEEDED")["executions"]
    assert [sorted(item) for item in listed] == [
        ["executionArn", "name", "redriveCount", "startDate", "stateMachineArn", "status", "stopDate"]]
    assert listed[0]["redriveCount"] == 0
    assert sfn.list_executions(stateMachineArn=arn, statusFilter="RUNNING")["executions"] == []
    versioned = sfn.start_execution(stateMachineArn=f"{arn}:1")["executionArn"]
    finished(sfn, versioned)
    by_version = sfn.list_executions(stateMachineArn=f"{arn}:1")["executions"]
    assert [(x["executionArn"], x["redriveCount"], x["stateMachineVersionArn"]) for x in by_version] == [
        (versioned, 0, f"{arn}:1")]


def test_refusals_as_recorded(sfn: Any, role: str) -> None:
    """Entries onceflow already answered as AWS: test_create_delete_invalid_sm (invalid_definition_1),
    test_create_duplicate_definition_format_sm and test_create_duplicate_sm_name (already_exists_1),
    test_invalid_start_execution_arn (start_exec_of_deleted), test_describe_nonexistent_sm,
    test_describe_invalid_arn_sm, test_list_execution_no_such_state_machine, test_list_execution_invalid_arn,
    test_describe_execution_no_such_state_machine, test_get_execution_history_no_such_execution,
    test_get_execution_history_invalid_arn, test_describe_execution_invalid_arn."""
    name, arn = _machine(sfn, role)
    assert sfn.create_state_machine(name=name, definition=json.dumps(PASS_RESULT),
                                    roleArn=role)["stateMachineArn"] == arn  # create_exact_duplicate_sm
    exists = ("StateMachineAlreadyExists", f"State Machine Already Exists: '{arn}'", 400)
    for definition in (json.dumps(PASS_RESULT, indent=4),
                       json.dumps({**PASS_RESULT, "States": {"State_1": {
                           "Type": "Pass", "Result": {"Arg1": "argument1", "Arg2": "Argument2"}, "End": True}}})):
        with pytest.raises(ClientError) as exc:
            sfn.create_state_machine(name=name, definition=definition, roleArn=role)
        assert _error(exc) == exists
    with pytest.raises(ClientError) as exc:  # BASE_INVALID_DER
        sfn.create_state_machine(name=f"{name}-bad", definition=json.dumps({"StartAt": "State_1"}), roleArn=role)
    assert _error(exc) == ("InvalidDefinition", "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: These "
                           "fields are required: [States] at /'", 400)
    missing = arn.replace(name, f"statemachine_invalid_{name}")
    gone = ("StateMachineDoesNotExist", f"State Machine Does Not Exist: '{missing}'", 400)
    for call in (lambda: sfn.start_execution(stateMachineArn=missing),
                 lambda: sfn.describe_state_machine(stateMachineArn=missing),
                 lambda: sfn.list_executions(stateMachineArn=missing)):
        with pytest.raises(ClientError) as exc:
            call()
        assert _error(exc) == gone
    execution = arn.replace(":stateMachine:", ":execution:") + ":nope"
    for call in (lambda: sfn.describe_execution(executionArn=execution),
                 lambda: sfn.get_execution_history(executionArn=execution)):
        with pytest.raises(ClientError) as exc:
            call()
        assert _error(exc) == ("ExecutionDoesNotExist", f"Execution Does Not Exist: '{execution}'", 400)
    for bad, call in (("not_a_valid_arn", lambda v: sfn.describe_state_machine(stateMachineArn=v)),
                      ("invalid_state_machine_arn", lambda v: sfn.list_executions(stateMachineArn=v)),
                      ("invalid_state_machine_arn", lambda v: sfn.get_execution_history(executionArn=v)),
                      ("invalid_state_machine_arn", lambda v: sfn.describe_execution(executionArn=v))):
        with pytest.raises(ClientError) as exc:
            call(bad)
        assert _error(exc) == ("InvalidArn", f"Invalid Arn: 'Invalid ARN prefix: {bad}'", 400)
    assert sfn.delete_state_machine(stateMachineArn=missing)["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_start_execution_input_refusals_as_recorded(sfn: Any, role: str) -> None:
    """test_invalid_start_execution_input: start_exec_str_inp, start_exec_not_json_inp, start_res_empty
    refused; start_res_num, start_res_str, start_res_null started."""
    _, arn = _machine(sfn, role)
    refused = {
        "not some json": "Unrecognized token 'not': was expecting (JSON String, Number, Array, Object or token "
                         "'null', 'true' or 'false')",
        "{'not': 'json'": "Unexpected character (''' (code 39)): was expecting double-quote to start field name",
        "": "Invalid execution input.",
    }
    for text, detail in refused.items():
        with pytest.raises(ClientError) as exc:
            sfn.start_execution(stateMachineArn=arn, input=text)
        assert _error(exc) == ("InvalidExecutionInput", f"Invalid State Machine Execution Input: '{detail}'", 400)
    for text in ("2", '"some text"', "null"):
        assert sfn.start_execution(stateMachineArn=arn, input=text)["executionArn"]


def test_paging_refusals_and_sync_start_of_a_standard_machine(aws: Callable[..., Any], sfn: Any, role: str) -> None:
    """test_list_sms_pagination and test_list_executions_pagination (invalid-param-too-large,
    invalid-param-long-nextToken) and test_start_sync_execution (start_sync_execution_error)."""
    _, arn = _machine(sfn, role)
    too_large = ("ValidationException", "1 validation error detected: Value '1001' at 'maxResults' failed to "
                 "satisfy constraint: Member must have value less than or equal to 1000", 400)
    for call in (lambda: sfn.list_state_machines(maxResults=1001),
                 lambda: sfn.list_executions(stateMachineArn=arn, maxResults=1001)):
        with pytest.raises(ClientError) as exc:
            call()
        assert _error(exc) == too_large
    for limit, call in ((1024, lambda t: sfn.list_state_machines(nextToken=t)),
                        (3096, lambda t: sfn.list_executions(stateMachineArn=arn, nextToken=t))):
        token = "x" * (limit + 1)
        with pytest.raises(ClientError) as exc:
            call(token)
        assert _error(exc) == ("ValidationException", f"1 validation error detected: Value '{token}' at 'nextToken' "
                               "failed to satisfy constraint: Member must have length less than or equal to "
                               f"{limit}", 400)
    sync = aws("stepfunctions", config=botocore.config.Config(inject_host_prefix=False))  # StartSync: "sync-"
    with pytest.raises(ClientError) as exc:
        sync.start_sync_execution(stateMachineArn=arn)
    assert _error(exc) == ("StateMachineTypeNotSupported",
                           "This operation is not supported by this type of state machine", 400)


def test_updates_name_a_revision_only_when_something_changed(aws: Callable[..., Any], sfn: Any, role: str) -> None:
    """test_create_update_state_machine_same_parameters: the same role and definition again keep the
    revision (update_state_machine_res_t2's revisionId is t1's); describe names none before an update."""
    _, arn = _machine(sfn, role)
    assert "revisionId" not in sfn.describe_state_machine(stateMachineArn=arn)
    other = states_role(aws, "sfnrec13b")
    first = sfn.update_state_machine(stateMachineArn=arn, roleArn=other)
    assert sorted(k for k in first if k != "ResponseMetadata") == ["revisionId", "updateDate"]
    again = sfn.update_state_machine(stateMachineArn=arn, definition=json.dumps(PASS_RESULT), roleArn=other)
    assert again["revisionId"] == first["revisionId"]
    described = sfn.describe_state_machine(stateMachineArn=arn)
    assert (described["revisionId"], described["roleArn"]) == (first["revisionId"], other)


# --------------------------------------------------------------------------- test_sfn_api_versioning.snapshot.json
# TestSnfApiVersioning (recorded 2023-08): 14 tests, 56 entries compared, all matched but exec_list_resp and
# exec_version_list_resp, whose listings (recorded before redrive existed) name no redriveCount; the 2024
# recordings of test_sfn_api do (test_listed_executions_name_a_redrive_count_of_zero).
def _commented(suffix: str) -> str:
    return json.dumps({**PASS_RESULT, "Comment": f"BASE_PASS_RESULT{suffix}"})


def _fields(answer: dict[str, Any]) -> list[str]:
    return sorted(k for k in answer if k != "ResponseMetadata")


def test_versions_published_and_refused_as_recorded(sfn: Any, role: str) -> None:
    """test_publish_state_machine_version (publish_v1, describe_v1, publish_v2, describe_v2,
    conflict_exception), test_update_state_machine (invalid_arn_1, invalid_arn_2) and
    test_create_with_version_description_no_publish (validation_exception)."""
    with pytest.raises(ClientError) as exc:
        _machine(sfn, role, versionDescription="HelloWorld!")
    assert _error(exc) == ("ValidationException", "Version description can only be set when publish is true", 400)
    _, arn = _machine(sfn, role)
    first = sfn.update_state_machine(stateMachineArn=arn, definition=_commented("-R1"))
    published = sfn.publish_state_machine_version(stateMachineArn=arn)
    assert (_fields(published), published["stateMachineVersionArn"]) == (
        ["creationDate", "stateMachineVersionArn"], f"{arn}:1")
    v1 = sfn.describe_state_machine(stateMachineArn=f"{arn}:1")
    assert (v1["revisionId"], "description" in v1) == (first["revisionId"], False)
    second = sfn.update_state_machine(stateMachineArn=arn, definition=_commented("-R2"))
    sfn.publish_state_machine_version(stateMachineArn=arn, description="PublishedV2Description")
    v2 = sfn.describe_state_machine(stateMachineArn=f"{arn}:2")
    assert (v2["revisionId"], v2["description"], json.loads(v2["definition"])["Comment"]) == (
        second["revisionId"], "PublishedV2Description", "BASE_PASS_RESULT-R2")
    third = sfn.update_state_machine(stateMachineArn=arn, definition=_commented("-R3"))
    with pytest.raises(ClientError) as exc:
        sfn.publish_state_machine_version(stateMachineArn=arn, revisionId=second["revisionId"])
    assert _error(exc) == ("ConflictException", f"Failed to publish the State Machine version for revision "
                           f"{second['revisionId']}. The current State Machine revision is {third['revisionId']}.", 400)
    for publish in (False, True):
        with pytest.raises(ClientError) as exc:
            sfn.update_state_machine(stateMachineArn=f"{arn}:2", definition=_commented("-R3"), publish=publish)
        assert _error(exc) == ("StateMachineDoesNotExist", f"State Machine Does Not Exist: '{arn}:2'", 400)


def test_version_numbers_and_empty_revisions_as_recorded(sfn: Any, role: str) -> None:
    """test_version_ids_between_deletions (publish_res_v2_2: a deleted number is not reused),
    test_idempotent_publish, test_list_delete_version (delete_version_resp_after_del) and
    test_empty_revision_with_publish_and_(no_)publish_on_creation (no revisionId without a change)."""
    _, arn = _machine(sfn, role, publish=True)
    sfn.update_state_machine(stateMachineArn=arn, definition=_commented("-R2"), publish=True)
    sfn.delete_state_machine_version(stateMachineVersionArn=f"{arn}:2")
    assert sfn.publish_state_machine_version(stateMachineArn=arn)["stateMachineVersionArn"] == f"{arn}:3"
    sfn.delete_state_machine_version(stateMachineVersionArn=f"{arn}:3")
    assert sfn.delete_state_machine_version(stateMachineVersionArn=f"{arn}:3")["ResponseMetadata"][
        "HTTPStatusCode"] == 200
    _, plain = _machine(sfn, role)
    assert [sfn.publish_state_machine_version(stateMachineArn=plain)["stateMachineVersionArn"] for _ in "ab"] == [
        f"{plain}:1", f"{plain}:1"]
    assert len(sfn.list_state_machine_versions(stateMachineArn=plain)["stateMachineVersions"]) == 1
    for kw in ({"publish": True}, {}):
        _, machine = _machine(sfn, role, **kw)
        for _ in "ab":
            same = sfn.update_state_machine(stateMachineArn=machine, definition=json.dumps(PASS_RESULT), publish=True)
            assert (_fields(same), same["stateMachineVersionArn"]) == (
                ["stateMachineVersionArn", "updateDate"], f"{machine}:1")


def test_describe_state_machine_for_execution_of_a_version_as_recorded(sfn: Any, role: str) -> None:
    """test_describe_state_machine_for_execution_of_version(_with_revision), describe_resp: the
    machine's own ARN, and the revision only where one was made."""
    _, arn = _machine(sfn, role, publish=True)
    ex = sfn.start_execution(stateMachineArn=f"{arn}:1")["executionArn"]
    finished(sfn, ex)
    described = sfn.describe_state_machine_for_execution(executionArn=ex)
    # (recorded 2023-08, before encryption configurations existed: AWS has shown the default
    # encryptionConfiguration since, as test_sfn_api_variable_references' 2024-11 recording does)
    assert (_fields(described), described["stateMachineArn"]) == (
        ["definition", "encryptionConfiguration", "loggingConfiguration", "name", "roleArn", "stateMachineArn",
         "tracingConfiguration", "updateDate"], arn)
    _, revised = _machine(sfn, role)
    update = sfn.update_state_machine(stateMachineArn=revised, definition=_commented("-R2"), publish=True)
    ex = sfn.start_execution(stateMachineArn=f"{revised}:1")["executionArn"]
    finished(sfn, ex)
    described = sfn.describe_state_machine_for_execution(executionArn=ex)
    assert (described["stateMachineArn"], described["revisionId"]) == (revised, update["revisionId"])
    assert json.loads(described["definition"])["Comment"] == "BASE_PASS_RESULT-R2"


# --------------------------------------------------------------------------- test_sfn_api_aliasing.snapshot.json
# TestSfnApiAliasing (recorded 2025-03): 12 tests, 47 entries compared, 46 matched before; the listing of
# test_base_lifecycle_create_invoke_describe_list differed (redriveCount), 47 after.
def _routes(*pairs: tuple[str, int]) -> list[dict[str, Any]]:
    return [{"stateMachineVersionArn": arn, "weight": weight} for arn, weight in pairs]


def test_alias_lifecycle_as_recorded(sfn: Any, role: str) -> None:
    """test_base_lifecycle_create_invoke_describe_list (describe_execution_response_through_alias,
    list_executions_response), test_error_create_alias_not_idempotent, test_delete_version_with_alias
    (exception_delete_version_with_alias_reference), test_update_no_such_alias_arn and
    test_delete_no_such_alias_arn."""
    _, arn = _machine(sfn, role, publish=True)
    name = f"AliasName-{uuid.uuid4().hex[:6]}"
    description = "create state machine alias description"
    alias = sfn.create_state_machine_alias(name=name, description=description,
                                           routingConfiguration=_routes((f"{arn}:1", 100)))["stateMachineAliasArn"]
    assert alias == f"{arn}:{name}"
    conflict = ("ConflictException", "Failed to create alias because an alias with the same name and a different "
                "routing configuration already exists.", 400)
    v2 = sfn.update_state_machine(stateMachineArn=arn, definition=_commented("v1"), publish=True)[
        "stateMachineVersionArn"]
    for other, routes in (("This is a different description", _routes((f"{arn}:1", 100))),
                          (description, _routes((f"{arn}:1", 50), (v2, 50)))):
        with pytest.raises(ClientError) as exc:
            sfn.create_state_machine_alias(name=name, description=other, routingConfiguration=routes)
        assert _error(exc) == conflict
    with pytest.raises(ClientError) as exc:
        sfn.delete_state_machine_version(stateMachineVersionArn=f"{arn}:1")
    assert _error(exc) == ("ConflictException", "Version to be deleted must not be referenced by an alias. Current "
                           f"list of aliases referencing this version: [{name}]", 400)
    through_alias = sfn.start_execution(stateMachineArn=alias, input="{}")["executionArn"]
    described = finished(sfn, through_alias)
    assert (described["stateMachineAliasArn"], described["stateMachineVersionArn"], described["redriveCount"]) == (
        alias, f"{arn}:1", 0)
    through_version = sfn.start_execution(stateMachineArn=f"{arn}:1", input="{}")["executionArn"]
    assert "stateMachineAliasArn" not in finished(sfn, through_version)
    listed = sfn.list_executions(stateMachineArn=arn)["executions"]
    assert [(x["executionArn"], x["redriveCount"], x.get("stateMachineAliasArn")) for x in listed] == [
        (through_version, 0, None), (through_alias, 0, alias)]
    sfn.delete_state_machine_alias(stateMachineAliasArn=alias)
    assert sfn.delete_state_machine_alias(stateMachineAliasArn=alias)["ResponseMetadata"]["HTTPStatusCode"] == 200
    with pytest.raises(ClientError) as exc:
        sfn.update_state_machine_alias(stateMachineAliasArn=alias,
                                       description="Updated state machine alias description")
    assert _error(exc) == ("ResourceNotFound", "Request references a resource that does not exist.", 400)


# --------------------------------------------------------------------------- test_sfn_api_tagging.snapshot.json
# TestSnfApiTagging (recorded 2023-08): 11 server answers compared (the four test_tag_invalid_state_machine
# entries are botocore's own refusals), all matched.
def _tags(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"key": k, "value": v} for k, v in pairs]


def test_tags_as_recorded(sfn: Any, role: str) -> None:
    """test_tag_state_machine[tag_list0..4], test_untag_state_machine[tag_keys0..3],
    test_tag_state_machine_version (error) and test_create_state_machine (list_resources_res)."""
    for sent, kept in (([], []), (_tags(("key1", "value1")), _tags(("key1", "value1"))),
                       (_tags(("key1", "")), _tags(("key1", ""))),
                       (_tags(("key1", "value1"), ("key1", "value1")), _tags(("key1", "value1"))),
                       (_tags(("key1", "value1"), ("key2", "value2")), _tags(("key1", "value1"), ("key2", "value2")))):
        _, arn = _machine(sfn, role)
        sfn.tag_resource(resourceArn=arn, tags=sent)
        assert sfn.list_tags_for_resource(resourceArn=arn)["tags"] == kept
    for keys, left in (([], _tags(("key1", "value1"))), (["key1"], []), (["key1", "key1"], []), (["key1", "key2"], [])):
        _, arn = _machine(sfn, role)
        sfn.tag_resource(resourceArn=arn, tags=_tags(("key1", "value1")))
        sfn.untag_resource(resourceArn=arn, tagKeys=keys)
        assert sfn.list_tags_for_resource(resourceArn=arn)["tags"] == left
    _, arn = _machine(sfn, role, tags=_tags(("key1", "value1"), ("key2", "value2")))
    assert sfn.list_tags_for_resource(resourceArn=arn)["tags"] == _tags(("key1", "value1"), ("key2", "value2"))
    version = sfn.publish_state_machine_version(stateMachineArn=arn)["stateMachineVersionArn"]
    with pytest.raises(ClientError) as exc:
        sfn.tag_resource(resourceArn=version, tags=_tags(("key1", "value1")))
    assert _error(exc) == ("ResourceNotFound", f"Resource not found: '{version}'", 400)


# --------------------------------------------------------------------------- test_sfn_api_express.snapshot.json
# TestSfnApiExpress (recorded 2024-06/07): 14 entries compared, 9 matched before (creation, describe,
# deletion, sync start, ListExecutions refused, '.waitForTaskToken' refused); the '.sync' refusal's
# spacing, an activity accepted, and DescribeExecution, StopExecution, GetExecutionHistory serving an
# express execution differed. 14 after.
def test_express_executions_are_refused_where_aws_refuses_them(sfn: Any, role: str) -> None:
    """test_start_async_describe_history_execution: list_executions_error, describe_execution_error,
    stop_execution_error, get_execution_history_error."""
    _, arn = _machine(sfn, role, type="EXPRESS")
    assert sfn.describe_state_machine(stateMachineArn=arn)["type"] == "EXPRESS"
    execution = sfn.start_execution(stateMachineArn=arn, input="{}")["executionArn"]
    assert execution.split(":")[5] == "express"
    with pytest.raises(ClientError) as exc:
        sfn.list_executions(stateMachineArn=arn)
    assert _error(exc) == ("StateMachineTypeNotSupported",
                           "This operation is not supported by this type of state machine", 400)
    for call in (sfn.describe_execution, sfn.stop_execution, sfn.get_execution_history):
        with pytest.raises(ClientError) as exc:
            call(executionArn=execution)
        assert _error(exc) == ("InvalidArn", "Invalid Arn: 'Resource type not valid in this context: express'", 400)


def test_express_definitions_refused_as_recorded(sfn: Any, role: str) -> None:
    """test_illegal_callbacks[WAIT_FOR_TASK_TOKEN] and [SYNC], test_illegal_activity_task: creation_error.
    The '.waitForTaskToken' message ends with a space ('integration  at'), the '.sync' one does not."""
    activity = sfn.create_activity(name=f"activity-{uuid.uuid4().hex[:8]}")["activityArn"]
    refused = {
        "Publish": ("arn:aws:states:::sns:publish.waitForTaskToken",
                    "Express state machine does not support '.waitForTaskToken' service integration  at "
                    "/States/Publish/Resource"),
        "StartExecution": ("arn:aws:states:::states:startExecution.sync",
                           "Express state machine does not support '.sync' service integration at "
                           "/States/StartExecution/Resource"),
        "ActivityTask": (activity, "Express state machine does not support Activity ARN at "
                                   "/States/ActivityTask/Resource"),
    }
    for state, (resource, message) in refused.items():
        definition = {"StartAt": state, "States": {state: {"Type": "Task", "Resource": resource, "End": True}}}
        with pytest.raises(ClientError) as exc:
            _machine(sfn, role, definition, type="EXPRESS")
        assert _error(exc) == ("InvalidDefinition",
                               f"Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: {message}'", 400)
        _machine(sfn, role, definition)  # a STANDARD machine takes each


# --------------------------------------------------------------------------- test_sfn_api_activities.snapshot.json
# TestSnfApiActivities (recorded 2024-03): 8 entries compared, 8 matched.
def test_activities_as_recorded(sfn: Any) -> None:
    """test_create_describe_delete_activity (a duplicate creation answers the same ARN, deleting twice
    succeeds), test_create_activity_invalid_name, test_describe_deleted_activity and
    test_get_activity_task_deleted."""
    name = f"activity.name.v2-{uuid.uuid4().hex[:8]}"  # dots are allowed (the test's newer names)
    arn = sfn.create_activity(name=name)["activityArn"]
    assert sfn.create_activity(name=name)["activityArn"] == arn
    described = sfn.describe_activity(activityArn=arn)
    assert (_fields(described), described["name"]) == (["activityArn", "creationDate", "name"], name)
    for _ in "ab":
        assert sfn.delete_activity(activityArn=arn)["ResponseMetadata"]["HTTPStatusCode"] == 200
    for call in (sfn.describe_activity, sfn.get_activity_task):
        with pytest.raises(ClientError) as exc:
            call(activityArn=arn)
        assert _error(exc) == ("ActivityDoesNotExist", f"Activity Does Not Exist: '{arn}'", 400)
    with pytest.raises(ClientError) as exc:
        sfn.create_activity(name="TestActivity InvalidName$")
    assert _error(exc) == ("InvalidName", "Invalid Name: 'TestActivity InvalidName$'", 400)


# --------------------------------------------------------------------------- test_sfn_api_map_run.snapshot.json
# TestSnfApiMapRun (recorded 2023-09): 2 entries compared (list_map_runs, describe_map_run), 0 matched
# before (ListMapRuns named the plain machine; resultsWritten was 0 without a ResultWriter), 2 after.
# The label entries (test_map_state_label_*) are in the open corpus (cases/api) and pass.
CSV_MAP = {"Comment": "MAP_ITEM_READER_BASE_CSV_HEADERS_FIRST_LINE", "StartAt": "MapState", "States": {"MapState": {
    "Type": "Map", "MaxConcurrency": 1,
    "ItemReader": {"ReaderConfig": {"InputType": "CSV", "CSVHeaderLocation": "FIRST_ROW"},
                   "Resource": "arn:aws:states:::s3:getObject",
                   "Parameters": {"Bucket.$": "$.Bucket", "Key.$": "$.Key"}},
    "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                      "StartAt": "PassItem", "States": {"PassItem": {"Type": "Pass", "End": True}}},
    "End": True}}}


def test_list_and_describe_map_run_as_recorded(aws: Callable[..., Any], sfn: Any, role: str) -> None:
    """test_list_map_runs_and_describe_map_run: the listed run names its labelled machine
    (stateMachine:<machine>/<label>); its two results count as written."""
    s3 = aws("s3")
    bucket = f"rec13-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="file.csv", Body=b"Col1,Col2,Col3\nValue1,Value2,Value3\nValue4,Value5,Value6")
    _, arn = _machine(sfn, role, CSV_MAP)
    ex = sfn.start_execution(stateMachineArn=arn, input=json.dumps({"Bucket": bucket, "Key": "file.csv"}))[
        "executionArn"]
    assert finished(sfn, ex)["status"] == "SUCCEEDED"
    runs = sfn.list_map_runs(executionArn=ex)["mapRuns"]
    assert [_fields(r) for r in runs] == [["executionArn", "mapRunArn", "startDate", "stateMachineArn", "stopDate"]]
    run_arn = runs[0]["mapRunArn"]
    label = run_arn.split(":")[6].split("/")[1]
    assert (runs[0]["executionArn"], runs[0]["stateMachineArn"], label) == (ex, f"{arn}/MapState", "MapState")
    described = sfn.describe_map_run(mapRunArn=run_arn)
    counts = {"aborted": 0, "failed": 0, "pending": 0, "resultsWritten": 2, "running": 0, "succeeded": 2,
              "timedOut": 0, "total": 2}
    assert (described["itemCounts"], described["executionCounts"]) == (counts, counts)
    assert (described["status"], described["maxConcurrency"], described["toleratedFailureCount"],
            described["toleratedFailurePercentage"]) == ("SUCCEEDED", 1, 0, 0.0)
    # its children are listed as ListExecutions lists any execution: redriveCount 0 too (UNCONFIRMED by mapRunArn)
    children = sfn.list_executions(mapRunArn=run_arn)["executions"]
    assert [(c["redriveCount"], c["stateMachineArn"]) for c in children] == [(0, f"{arn}/MapState")] * 2


# --------------------------------------------------------------------------- test_sfn_api_logs.snapshot.json
# TestSnfApiLogs (recorded 2024-06): 32 entries compared, 32 matched.
LOGS_POLICY = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": "logs:*", "Resource": "*"}]})


def test_logging_configurations_as_recorded(aws: Callable[..., Any], sfn: Any) -> None:
    """test_incomplete_logging_configuration (describe_resp: no destinations, or the empty list kept),
    test_invalid_logging_configuration, test_deleted_log_group, test_multiple_destinations and
    test_update_logging_configuration (the same configuration again keeps the revision)."""
    role = states_role(aws, "sfnrec13logs")
    aws("iam").put_role_policy(RoleName=role.rsplit("/", 1)[1], PolicyName="logs", PolicyDocument=LOGS_POLICY)
    logs = aws("logs")
    unchecked = aws("stepfunctions", config=botocore.config.Config(parameter_validation=False))

    def group() -> tuple[str, dict[str, Any]]:
        name = f"rec13-{uuid.uuid4().hex[:10]}"
        logs.create_log_group(logGroupName=name)
        arn = logs.describe_log_groups(logGroupNamePrefix=name)["logGroups"][0]["arn"]
        return name, {"cloudWatchLogsLogGroup": {"logGroupArn": arn}}

    for given, described in (({}, {"level": "OFF", "includeExecutionData": False}),
                             ({"destinations": []}, {"level": "OFF", "includeExecutionData": False,
                                                     "destinations": []})):
        _, arn = _machine(sfn, role, loggingConfiguration=given)
        assert sfn.describe_state_machine(stateMachineArn=arn)["loggingConfiguration"] == described
    gone, destination = group()
    logs.delete_log_group(logGroupName=gone)
    _, other = group()
    refusals = [({"level": level}, "Must specify exactly one Log Destination.") for level in ("ALL", "FATAL", "ERROR")]
    refusals += [({"level": "ALL", "destinations": [destination]}, "Log Destination not found."),
                 ({"level": "ALL", "destinations": [group()[1], other]}, "Must specify exactly one Log Destination.")]
    for configuration, reason in refusals:
        with pytest.raises(ClientError) as exc:
            _machine(unchecked, role, loggingConfiguration=configuration)
        assert _error(exc) == ("InvalidLoggingConfiguration", f"Invalid Logging Configuration: {reason}", 400)
    configuration = {"level": "ALL", "includeExecutionData": True, "destinations": [group()[1]]}
    _, arn = _machine(sfn, role, loggingConfiguration=configuration)
    revisions = []
    for change in ({"level": "FATAL"}, {}, {"includeExecutionData": False}):
        configuration.update(change)
        unchecked.update_state_machine(stateMachineArn=arn, loggingConfiguration=configuration)
        described = sfn.describe_state_machine(stateMachineArn=arn)
        assert described["loggingConfiguration"] == configuration
        revisions.append(described["revisionId"])
    assert revisions[0] == revisions[1] != revisions[2]
    for bad in ({**configuration, "destinations": [*configuration["destinations"], other]}, {"level": "ALL"}):
        with pytest.raises(ClientError) as exc:
            unchecked.update_state_machine(stateMachineArn=arn, loggingConfiguration=bad)
        assert _error(exc) == ("InvalidLoggingConfiguration",
                               "Invalid Logging Configuration: Must specify exactly one Log Destination.", 400)


# --------------------------------------------------------------------------- ValidateStateMachineDefinition warnings
def test_validate_with_severity_warning_lists_the_static_analysis_warnings(sfn: Any) -> None:
    """AWS's API reference, ValidateStateMachineDefinition, 'Validate a state machine definition with
    static analysis': the example's four WARNINGs, word for word; with the default severity (ERROR)
    none are listed, and warnings never fail a definition."""
    definition = json.dumps({"StartAt": "HelloWorld", "States": {
        "HelloWorld": {"Type": "Pass", "Parameters": {"a": "$.a"}, "Result": {"c.$": "$.c"}, "Next": "FailState"},
        "FailState": {"Type": "Fail", "Error": "$.error", "Cause": "$.cause"}}})
    assert _validated(sfn, definition, "STANDARD") == OK
    out = sfn.validate_state_machine_definition(definition=definition, type="STANDARD", severity="WARNING")

    def warning(code: str, message: str, location: str) -> dict[str, str]:
        return {"severity": "WARNING", "code": code, "message": message, "location": location}

    assert (out["result"], out["truncated"]) == ("OK", False)
    assert out["diagnostics"] == [
        warning("NO_DOLLAR", "The value of 'a' looks like a JSONPath. Instead of 'a', use 'a.$' to evaluate it as a "
                "JSONPath at runtime.", "/States/HelloWorld/Parameters"),
        warning("PASS_RESULT_IS_STATIC", "The value of 'c.$' will not evaluate as a JSONPath or Intrinsic Function at "
                "runtime. Instead of 'Result', use 'Parameters' to evaluate it as a JSONPath or Intrinsic Function at "
                "runtime.", "/States/HelloWorld/Result"),
        warning("NO_PATH", "The value of 'Error' looks like a JSONPath. Instead of 'Error', use 'ErrorPath' to "
                "evaluate it as a JSONPath at runtime.", "/States/FailState/Error"),
        warning("NO_PATH", "The value of 'Cause' looks like a JSONPath. Instead of 'Cause', use 'CausePath' to "
                "evaluate it as a JSONPath at runtime.", "/States/FailState/Cause")]
    assert sfn.validate_state_machine_definition(definition=definition, severity="WARNING",
                                                 maxResults=1)["truncated"] is True
