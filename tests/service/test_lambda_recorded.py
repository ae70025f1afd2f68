"""Lambda's answers where AWS's recorded behaviour is particular: which checks come first, which reads
look nothing up, what a delete of something absent does."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import lambda_role, zip_of

ACCOUNT = "000000000000"
ARN = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "recorded-role")


@pytest.fixture
def fn(aws: Callable[..., Any], role: str) -> str:
    name = f"rec-{uuid.uuid4().hex[:10]}"
    aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": zip_of()})  # fmt: skip
    return name


def refused(call: Callable[..., Any], **params: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as excinfo:
        call(**params)
    response = excinfo.value.response
    return response["Error"]["Code"], response["Error"]["Message"], response["ResponseMetadata"]["HTTPStatusCode"]


def test_deleting_latest_is_refused_before_the_function_is_looked_up(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    missing = f"none-{uuid.uuid4().hex[:8]}"
    assert refused(lam.delete_function, FunctionName=f"{ARN}{missing}:$LATEST", Qualifier="$LATEST") == (
        "InvalidParameterValueException", "$LATEST version cannot be deleted without deleting the function.", 400)
    assert refused(lam.delete_function, FunctionName=missing, Qualifier="3") == (
        "ResourceNotFoundException", f"Function not found: {ARN}{missing}", 404)


def test_deleting_a_version_that_is_not_there_is_idempotent(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    for _ in range(2):
        assert lam.delete_function(FunctionName=fn, Qualifier="1233")["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert lam.get_function(FunctionName=fn)["Configuration"]["FunctionName"] == fn  # the function stays
    lam.delete_function(FunctionName=fn)
    assert refused(lam.delete_function, FunctionName=fn, Qualifier="1233") == (
        "ResourceNotFoundException", f"Function not found: {ARN}{fn}", 404)


def test_reading_an_invoke_config_looks_no_function_up(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    missing = f"none-{uuid.uuid4().hex[:8]}"
    assert refused(lam.get_function_event_invoke_config, FunctionName=missing) == (
        "ResourceNotFoundException", f"The function {ARN}{missing}:$LATEST doesn't have an EventInvokeConfig", 404)
    assert refused(lam.get_function_event_invoke_config, FunctionName=fn, Qualifier="1221") == (
        "ResourceNotFoundException", f"The function {ARN}{fn}:1221 doesn't have an EventInvokeConfig", 404)
    # A write still needs the function.
    assert refused(lam.put_function_event_invoke_config, FunctionName=missing, MaximumRetryAttempts=1)[0] == (
        "ResourceNotFoundException")


def test_reading_a_url_config_of_a_missing_function(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    missing = f"none-{uuid.uuid4().hex[:8]}"
    assert refused(lam.get_function_url_config, FunctionName=missing) == (
        "ResourceNotFoundException", "The resource you requested does not exist.", 404)
    assert refused(lam.create_function_url_config, FunctionName=missing, AuthType="NONE") == (
        "ResourceNotFoundException", "Function does not exist", 404)


def test_publish_with_another_code_sha(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    sha = lam.get_function(FunctionName=fn)["Configuration"]["CodeSha256"]
    assert refused(lam.publish_version, FunctionName=fn, CodeSha256="other") == (
        "InvalidParameterValueException",
        f"CodeSHA256 (other) is different from current CodeSHA256 in $LATEST ({sha}). Please try again with the "
        "CodeSHA256 in $LATEST.", 400)  # fmt: skip
    assert lam.list_versions_by_function(FunctionName=fn)["Versions"][-1]["Version"] == "$LATEST"


@pytest.fixture
def two_versions(aws: Callable[..., Any], fn: str) -> str:
    lam = aws("lambda")
    lam.publish_version(FunctionName=fn)
    lam.update_function_configuration(FunctionName=fn, Description="second")
    lam.publish_version(FunctionName=fn)
    return fn


def test_alias_weights_out_of_range_name_the_whole_map(aws: Callable[..., Any], two_versions: str) -> None:
    lam = aws("lambda")
    for weight, shown in ((2, "2.0"), (1.5, "1.5")):  # (botocore refuses a negative one itself)
        assert refused(lam.create_alias, FunctionName=two_versions, Name="w", FunctionVersion="1",
                       RoutingConfig={"AdditionalVersionWeights": {"2": weight}}) == (
            "ValidationException",
            f"1 validation error detected: Value '{{2={shown}}}' at 'routingConfig.additionalVersionWeights' failed to "
            "satisfy constraint: Map value must satisfy constraint: [Member must have value less than or equal to 1.0, "
            "Member must have value greater than or equal to 0.0, Member must not be null]", 400)  # fmt: skip
    assert lam.list_aliases(FunctionName=two_versions)["Aliases"] == []


def test_an_alias_of_a_missing_function_is_not_found_as_its_version(aws: Callable[..., Any]) -> None:
    missing = f"none-{uuid.uuid4().hex[:8]}"
    assert refused(aws("lambda").create_alias, FunctionName=missing, Name="a", FunctionVersion="1") == (
        "ResourceNotFoundException", f"Function not found: {ARN}{missing}:1", 404)


def test_latest_with_weights_is_refused_without_a_type(aws: Callable[..., Any], two_versions: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        aws("lambda").create_alias(FunctionName=two_versions, Name="l", FunctionVersion="$LATEST",
                                   RoutingConfig={"AdditionalVersionWeights": {"1": 0.5}})  # fmt: skip
    response = excinfo.value.response
    assert response["Error"] == {"Code": "InvalidParameterValueException",
                                 "Message": "$LATEST is not supported for an alias pointing to more than 1 version"}
    assert "Type" not in response


def test_empty_weights_leave_no_routing_config(aws: Callable[..., Any], two_versions: str) -> None:
    lam = aws("lambda")
    empty = lam.create_alias(FunctionName=two_versions, Name="empty", FunctionVersion="1",
                             RoutingConfig={"AdditionalVersionWeights": {}})  # fmt: skip
    assert "RoutingConfig" not in empty
    lam.create_alias(FunctionName=two_versions, Name="split", FunctionVersion="1",
                     RoutingConfig={"AdditionalVersionWeights": {"2": 0.2}})  # fmt: skip
    updated = lam.update_alias(FunctionName=two_versions, Name="split", RoutingConfig={"AdditionalVersionWeights": {}})
    assert "RoutingConfig" not in updated
    assert "RoutingConfig" not in lam.get_alias(FunctionName=two_versions, Name="split")
    assert all("RoutingConfig" not in a for a in lam.list_aliases(FunctionName=two_versions)["Aliases"])


def test_invoke_config_writes_and_lists_of_a_missing_function(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    missing = f"none-{uuid.uuid4().hex[:8]}"
    gone = ("ResourceNotFoundException", "The function doesn't exist.", 404)
    assert refused(lam.put_function_event_invoke_config, FunctionName=missing, MaximumRetryAttempts=1) == gone
    assert refused(lam.put_function_event_invoke_config, FunctionName=f"{ARN}{missing}", MaximumRetryAttempts=1) == gone
    assert refused(lam.put_function_event_invoke_config, FunctionName=fn, Qualifier="nosuchalias",
                   MaximumRetryAttempts=1) == gone  # fmt: skip
    assert refused(lam.update_function_event_invoke_config, FunctionName=missing, MaximumRetryAttempts=0) == gone
    assert refused(lam.list_function_event_invoke_configs, FunctionName=missing) == gone
    # Nothing to set is refused before the function is looked up; a delete looks nothing up.
    assert refused(lam.put_function_event_invoke_config, FunctionName=missing) == (
        "InvalidParameterValueException", "You must specify at least one of error handling or destination setting.",
        400)  # fmt: skip
    assert refused(lam.delete_function_event_invoke_config, FunctionName=missing) == (
        "ResourceNotFoundException", f"The function {ARN}{missing}:$LATEST doesn't have an EventInvokeConfig", 404)


def test_invoke_config_destinations_refused_as_recorded(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    nowhere = f"{ARN}none-{uuid.uuid4().hex[:8]}"
    assert refused(lam.put_function_event_invoke_config, FunctionName=fn,
                   DestinationConfig={"OnSuccess": {"Destination": nowhere}}) == (
        "InvalidParameterValueException", f"The destination ARN {nowhere} is invalid.", 400)  # fmt: skip
    other = f"arn:aws:iam:us-east-1:{ACCOUNT}:function:{fn}"
    assert refused(lam.put_function_event_invoke_config, FunctionName=fn,
                   DestinationConfig={"OnSuccess": {"Destination": other}}) == (
        "InvalidParameterValueException",
        f"The provided destination config DestinationConfig(onSuccess=OnSuccess(destination={other}), onFailure=null) "
        "is invalid.", 400)  # fmt: skip
    assert refused(lam.get_function_event_invoke_config, FunctionName=fn)[0] == "ResourceNotFoundException"


def test_reserved_concurrency_refusals(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    missing = f"none-{uuid.uuid4().hex[:8]}"
    for value in (1, 100_000):  # the function is looked up before the value is weighed
        assert refused(lam.put_function_concurrency, FunctionName=missing, ReservedConcurrentExecutions=value) == (
            "ResourceNotFoundException", f"Function not found: {ARN}{missing}:$LATEST", 404)
    lam.publish_version(FunctionName=fn)
    assert refused(lam.put_function_concurrency, FunctionName=f"{ARN}{fn}:1", ReservedConcurrentExecutions=1) == (
        "InvalidParameterValueException",
        "This operation is permitted on Lambda functions only. Aliases and versions do not support this operation. "
        "Please specify either a function name or an unqualified function ARN.", 400)  # fmt: skip
    assert "ReservedConcurrentExecutions" not in lam.get_function_concurrency(FunctionName=fn)


def test_tags_refused_as_recorded(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    arn = f"{ARN}{fn}"
    lam.publish_version(FunctionName=fn)
    for qualified in (f"{arn}:v1", f"{arn}:1", f"{arn}:$LATEST"):
        assert refused(lam.tag_resource, Resource=qualified, Tags={"a": "b"}) == (
            "InvalidParameterValueException",
            "Tags on function aliases and versions are not supported. Please specify a function ARN.", 400)  # fmt: skip
    assert refused(lam.tag_resource, Resource=arn, Tags={}) == (
        "InvalidParameterValueException", "An error occurred and the request cannot be processed.", 400)
    too_many = ("InvalidParameterValueException", "Number of tags exceeds resource tag limit.", 400)
    assert refused(lam.tag_resource, Resource=arn, Tags={f"{i}_key": "v" for i in range(51)}) == too_many
    lam.tag_resource(Resource=arn, Tags={f"{i}_key": "v" for i in range(50)})
    assert refused(lam.tag_resource, Resource=arn, Tags={"one": "more"}) == too_many
    assert len(lam.list_tags(Resource=arn)["Tags"]) == 50


def test_code_signing_config_not_found_answers(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    missing = f"arn:aws:lambda:us-east-1:{ACCOUNT}:code-signing-config:csc-{uuid.uuid4().hex[:17]}"
    with pytest.raises(ClientError) as excinfo:
        lam.get_code_signing_config(CodeSigningConfigArn=missing)
    response = excinfo.value.response
    assert response["Error"]["Message"] == f"The Lambda code signing configuration {missing} can not be found."
    assert "Type" not in response  # recorded without it
    # A missing configuration is named before a missing function.
    assert refused(lam.put_function_code_signing_config, CodeSigningConfigArn=missing,
                   FunctionName=f"none-{uuid.uuid4().hex[:8]}")[0] == "CodeSigningConfigNotFoundException"  # fmt: skip


def test_event_source_mapping_create_refusals(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    assert refused(lam.create_event_source_mapping, FunctionName="doesnotexist") == (
        "InvalidParameterValueException", "Unrecognized event source.", 400)
    assert refused(lam.create_event_source_mapping, FunctionName=f"none-{uuid.uuid4().hex[:8]}",
                   EventSourceArn=f"arn:aws:sqs:us-east-1:{ACCOUNT}:somequeue") == (
        "InvalidParameterValueException", "Function does not exist", 400)  # fmt: skip


def test_provisioned_concurrency_targets_as_recorded(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    lam.publish_version(FunctionName=fn)
    missing = f"none-{uuid.uuid4().hex[:8]}"
    get, put = lam.get_provisioned_concurrency_config, lam.put_provisioned_concurrency_config
    assert refused(get, FunctionName=missing, Qualifier="noalias") == (
        "ResourceNotFoundException", f"Cannot find alias arn: {ARN}{missing}:noalias", 404)
    assert refused(put, FunctionName=missing, Qualifier="1", ProvisionedConcurrentExecutions=1) == (
        "ResourceNotFoundException", f"Function not found: {ARN}{missing}:1", 404)
    assert refused(get, FunctionName=fn, Qualifier="$LATEST") == (
        "InvalidParameterValueException", "The function resource provided must be an alias or a published version.",
        400)  # fmt: skip
    delete = lam.delete_provisioned_concurrency_config(FunctionName=fn, Qualifier="1")  # nothing there
    assert delete["ResponseMetadata"]["HTTPStatusCode"] == 204


def test_a_version_and_its_alias_do_not_both_hold_provisioned_concurrency(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    lam.publish_version(FunctionName=fn)
    lam.create_alias(FunctionName=fn, Name="live", FunctionVersion="1")
    put = lam.put_provisioned_concurrency_config
    put(FunctionName=fn, Qualifier="1", ProvisionedConcurrentExecutions=1)
    assert refused(put, FunctionName=fn, Qualifier="live", ProvisionedConcurrentExecutions=1) == (
        "ResourceConflictException",
        "Alias can't be used for Provisioned Concurrency configuration on an already Provisioned version", 409)
    lam.delete_provisioned_concurrency_config(FunctionName=fn, Qualifier="1")
    put(FunctionName=fn, Qualifier="live", ProvisionedConcurrentExecutions=1)
    assert refused(put, FunctionName=fn, Qualifier="1", ProvisionedConcurrentExecutions=1) == (
        "ResourceConflictException", "Version is pointed by a Provisioned Concurrency alias", 409)
    listed = lam.list_provisioned_concurrency_configs(FunctionName=fn)["ProvisionedConcurrencyConfigs"]
    assert [c["FunctionArn"] for c in listed] == [f"{ARN}{fn}:live"]


def test_reserved_and_provisioned_concurrency_bound_each_other(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    lam.publish_version(FunctionName=fn)
    lam.update_function_configuration(FunctionName=fn, Timeout=15)
    lam.publish_version(FunctionName=fn)
    put = lam.put_provisioned_concurrency_config
    put(FunctionName=fn, Qualifier="1", ProvisionedConcurrentExecutions=2)
    with pytest.raises(ClientError) as excinfo:
        lam.put_function_concurrency(FunctionName=fn, ReservedConcurrentExecutions=1)
    message = " ReservedConcurrentExecutions  1 should not be lower than function's total provisioned concurrency [2]."
    assert excinfo.value.response["Error"] == {"Code": "InvalidParameterValueException", "Message": message}
    assert "Type" not in excinfo.value.response and excinfo.value.response["message"] == message
    assert lam.get_function_concurrency(FunctionName=fn).get("ReservedConcurrentExecutions") is None
    lam.put_function_concurrency(FunctionName=fn, ReservedConcurrentExecutions=2)
    over = ("InvalidParameterValueException",
            "Requested Provisioned Concurrency should not be greater than the reservedConcurrentExecution for function",
            400)  # fmt: skip
    assert refused(put, FunctionName=fn, Qualifier="2", ProvisionedConcurrentExecutions=1) == over
    assert refused(put, FunctionName=fn, Qualifier="1", ProvisionedConcurrentExecutions=3) == over
    listed = lam.list_provisioned_concurrency_configs(FunctionName=fn)["ProvisionedConcurrencyConfigs"]
    assert [(c["FunctionArn"], c["RequestedProvisionedConcurrentExecutions"]) for c in listed] == [(f"{ARN}{fn}:1", 2)]
    put(FunctionName=fn, Qualifier="1", ProvisionedConcurrentExecutions=1)  # within the reserved 2: taken
    put(FunctionName=fn, Qualifier="2", ProvisionedConcurrentExecutions=1)


def test_provisioned_concurrency_is_carved_out_of_the_reserved(aws: Callable[..., Any], fn: str) -> None:
    """As recorded: reserved 2 all provisioned to version 1 leaves $LATEST nothing (throttled); version 1 runs."""
    lam = aws("lambda")
    lam.publish_version(FunctionName=fn)
    lam.put_provisioned_concurrency_config(FunctionName=fn, Qualifier="1", ProvisionedConcurrentExecutions=2)
    lam.put_function_concurrency(FunctionName=fn, ReservedConcurrentExecutions=2)
    with pytest.raises(ClientError) as excinfo:
        lam.invoke(FunctionName=fn, Payload=b"{}")
    response = excinfo.value.response
    assert (response["Error"], response["Reason"], response["ResponseMetadata"]["HTTPStatusCode"]) == (
        {"Code": "TooManyRequestsException", "Message": "Rate Exceeded."},
        "ReservedFunctionConcurrentInvocationLimitExceeded", 429)  # fmt: skip
    assert lam.invoke(FunctionName=fn, Qualifier="1", Payload=b"{}")["StatusCode"] == 200
    lam.put_function_concurrency(FunctionName=fn, ReservedConcurrentExecutions=3)
    assert lam.invoke(FunctionName=fn, Payload=b"{}")["StatusCode"] == 200


def test_url_configs_of_a_missing_function_are_not_listed(aws: Callable[..., Any]) -> None:
    assert refused(aws("lambda").list_function_url_configs, FunctionName=f"none-{uuid.uuid4().hex[:8]}") == (
        "ResourceNotFoundException", "Function does not exist", 404)


def test_policy_calls_name_what_is_missing_as_recorded(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    missing = f"none-{uuid.uuid4().hex[:8]}"
    grant = {"Action": "lambda:InvokeFunction", "Principal": "s3.amazonaws.com", "StatementId": "s3"}
    assert refused(lam.add_permission, FunctionName=fn, Qualifier="alias-doesnotexist", **grant) == (
        "ResourceNotFoundException", f"Cannot find alias arn: {ARN}{fn}:alias-doesnotexist", 404)
    assert refused(lam.add_permission, FunctionName=fn, Qualifier="42", **grant) == (
        "ResourceNotFoundException", f"Function not found: {ARN}{fn}:42", 404)
    assert refused(lam.get_policy, FunctionName=fn, Qualifier="42") == (
        "ResourceNotFoundException", "The resource you requested does not exist.", 404)
    assert refused(lam.remove_permission, FunctionName=missing, StatementId="s3") == (
        "ResourceNotFoundException", f"No policy found for: {ARN}{missing}", 404)
    assert refused(lam.remove_permission, FunctionName=fn, StatementId="s3", Qualifier="alias-doesnotexist") == (
        "ResourceNotFoundException", f"Cannot find alias arn: {ARN}{fn}:alias-doesnotexist", 404)


def test_url_config_writes_and_deletes_of_a_missing_function(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    missing = f"none-{uuid.uuid4().hex[:8]}"
    gone = ("ResourceNotFoundException", "Function does not exist", 404)
    assert refused(lam.create_function_url_config, FunctionName=missing, AuthType="NONE") == gone
    assert refused(lam.update_function_url_config, FunctionName=fn, Qualifier="nosuchalias", AuthType="NONE") == gone
    assert refused(lam.delete_function_url_config, FunctionName=missing) == (
        "ResourceNotFoundException", "The resource you requested does not exist.", 404)


def test_layer_answers_as_recorded(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    name = f"layer-{uuid.uuid4().hex[:8]}"
    published = lam.publish_layer_version(LayerName=name, Content={"ZipFile": zip_of()}, CompatibleRuntimes=[],
                                          CompatibleArchitectures=[])  # fmt: skip
    assert (published["CompatibleRuntimes"], published["CompatibleArchitectures"]) == ([], [])
    for call in (lam.get_layer_version, lam.delete_layer_version):
        assert refused(call, LayerName=name, VersionNumber=0) == (
            "InvalidParameterValueException", "Layer Version Cannot be less than 1", 400)
    assert lam.get_layer_version(LayerName=name, VersionNumber=1)["Version"] == 1
    assert refused(lam.publish_layer_version, LayerName=name, Content={"ZipFile": zip_of()},
                   CompatibleRuntimes=["nope", "python3.12"], CompatibleArchitectures=["nope"]) == (
        "ValidationException",
        "2 validation errors detected: Value '[nope, python3.12]' at 'compatibleRuntimes' failed to satisfy "
        "constraint: Member must satisfy enum value set: [nodejs20.x, provided.al2023, python3.12, java17, "
        "nodejs16.x, dotnet8, python3.10, java11, python3.11, dotnet6, java21, nodejs18.x, provided.al2, ruby3.3, "
        "java8.al2, ruby3.2, python3.8, python3.9]; Value '[nope]' at 'compatibleArchitectures' failed to satisfy "
        "constraint: Member must satisfy constraint: [Member must satisfy enum value set: [x86_64, arm64]]",
        400)  # fmt: skip
    assert [v["Version"] for v in lam.list_layer_versions(LayerName=name)["LayerVersions"]] == [1]


def test_layer_policy_and_function_layer_refusals(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = f"layer-{uuid.uuid4().hex[:8]}"
    arn = lam.publish_layer_version(LayerName=name, Content={"ZipFile": zip_of()})["LayerArn"]
    lam.publish_layer_version(LayerName=name, Content={"ZipFile": zip_of()})
    grant = {"StatementId": "s1", "Action": "lambda:GetLayerVersion", "Principal": "*"}
    assert refused(lam.add_layer_version_permission, LayerName=name, VersionNumber=3, **grant) == (
        "ResourceNotFoundException", f"Layer version {arn}:3 does not exist.", 404)
    lam.add_layer_version_permission(LayerName=name, VersionNumber=1, **grant)
    assert refused(lam.remove_layer_version_permission, LayerName=name, VersionNumber=1, StatementId="s1",
                   RevisionId="stale") == (
        "PreconditionFailedException", "The Revision Id provided does not match the latest Revision Id. Call the "
        "GetLayerPolicy API to retrieve the latest Revision Id", 412)  # fmt: skip
    fn = f"layered-{uuid.uuid4().hex[:8]}"
    for layers, second in (([f"{arn}:1", f"{arn}:2"], f"{arn}:2"), ([f"{arn}:1", f"{arn}:1"], f"{arn}:1")):
        assert refused(lam.create_function, FunctionName=fn, Runtime="python3.12", Role=role, Handler="app.handler",
                       Code={"ZipFile": zip_of()}, Layers=layers) == (
            "InvalidParameterValueException",
            "Two different versions of the same layer are not allowed to be referenced in the same function. "
            f"{arn}:1 and {second} are versions of the same layer.", 400)  # fmt: skip
    elsewhere = f"arn:aws:lambda:us-west-2:{ACCOUNT}:layer:{name}:1"
    assert refused(lam.create_function, FunctionName=fn, Runtime="python3.12", Role=role, Handler="app.handler",
                   Code={"ZipFile": zip_of()}, Layers=[elsewhere]) == (
        "InvalidParameterValueException",
        "Layers are not in the same region as the function. Layers are expected to be in region us-east-1.", 400)
    assert refused(lam.get_function, FunctionName=fn)[0] == "ResourceNotFoundException"


def test_permission_conditions_in_aws_order(aws: Callable[..., Any], fn: str) -> None:
    added = aws("lambda").add_permission(
        FunctionName=fn, StatementId="url", Principal="*", Action="lambda:InvokeFunctionUrl",
        SourceArn="arn:aws:s3:::b", SourceAccount=ACCOUNT, PrincipalOrgID="o-1234567890", FunctionUrlAuthType="NONE")
    condition = json.loads(added["Statement"])["Condition"]
    assert list(condition) == ["StringEquals", "ArnLike"]
    assert list(condition["StringEquals"]) == ["AWS:SourceAccount", "lambda:FunctionUrlAuthType", "aws:PrincipalOrgID"]


def test_a_stream_mapping_without_starting_position(aws: Callable[..., Any], fn: str) -> None:
    ddb = aws("dynamodb")
    table = f"t-{uuid.uuid4().hex[:8]}"
    stream = ddb.create_table(
        TableName=table, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )["TableDescription"]["LatestStreamArn"]  # fmt: skip
    assert refused(aws("lambda").create_event_source_mapping, FunctionName=fn, EventSourceArn=stream) == (
        "InvalidParameterValueException",
        "1 validation error detected: Value null at 'startingPosition' failed to satisfy constraint: Member must not "
        "be null.", 400)  # fmt: skip


def test_snap_start_kept_and_refused_for_older_pythons(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = f"snap-{uuid.uuid4().hex[:8]}"
    assert refused(lam.create_function, FunctionName=name, Runtime="python3.11", Role=role, Handler="app.handler",
                   Code={"ZipFile": zip_of()}, SnapStart={"ApplyOn": "PublishedVersions"}) == (
        "InvalidParameterValueException", "python3.11 is not supported for SnapStart enabled functions.", 400)
    created = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": zip_of()}, SnapStart={"ApplyOn": "PublishedVersions"})
    assert created["SnapStart"] == {"ApplyOn": "PublishedVersions", "OptimizationStatus": "Off"}
    assert refused(lam.update_function_configuration, FunctionName=name, Runtime="python3.10")[1] == (
        "python3.10 is not supported for SnapStart enabled functions.")


def test_a_policy_carries_its_functions_revision(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    before = lam.get_function(FunctionName=fn)["Configuration"]["RevisionId"]
    grant = {"Action": "lambda:InvokeFunction", "Principal": "s3.amazonaws.com"}
    lam.add_permission(FunctionName=fn, StatementId="s3", RevisionId=before, **grant)  # GetFunction's revision
    policy_revision = lam.get_policy(FunctionName=fn)["RevisionId"]
    after = lam.get_function(FunctionName=fn)["Configuration"]["RevisionId"]
    assert policy_revision == after != before  # the change gave the function a new revision
    version = lam.publish_version(FunctionName=fn)
    latest = lam.get_function(FunctionName=fn)["Configuration"]["RevisionId"]
    assert latest != after and lam.get_policy(FunctionName=fn)["RevisionId"] == latest  # a publish moves both
    lam.add_permission(FunctionName=fn, Qualifier="1", StatementId="v1", **grant)
    on_version = lam.get_policy(FunctionName=fn, Qualifier="1")["RevisionId"]
    assert on_version != version["RevisionId"]
    assert on_version == lam.get_function(FunctionName=fn, Qualifier="1")["Configuration"]["RevisionId"]
    assert refused(lam.add_permission, FunctionName=fn, StatementId="stale", RevisionId=before, **grant)[0] == (
        "PreconditionFailedException")


def test_a_payload_that_is_not_json_is_refused_in_jacksons_words(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    assert refused(lam.invoke, FunctionName=fn, Payload=b"Hello World") == (
        "InvalidRequestContentException",
        "Could not parse request body into json: Could not parse payload into json: Unrecognized token 'Hello': was "
        "expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')\n at [Source: REDACTED "
        "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 7]",
        400,
    )
    assert refused(lam.invoke, FunctionName=fn, Payload=b"n\x87r\x9e\xe9\xb5\xd7I\xee\x9bmt")[1] == (
        "Could not parse request body into json: Could not parse payload into json: Invalid UTF-8 start byte 0x87\n"
        " at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 3]"
    )
    code, message, _ = refused(lam.invoke, FunctionName=fn, Payload=b'{"n": NaN}', InvocationType="Event")
    assert (code, message.split("\n")[0]) == ("InvalidRequestContentException", "Could not parse request body into "
        "json: Could not parse payload into json: Non-standard token 'NaN': enable "
        "`JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow")  # fmt: skip


def test_a_cold_starts_log_tail_begins_at_start(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = f"rec-{uuid.uuid4().hex[:10]}"
    printing = "import json\ndef handler(event, context):\n    print(json.dumps(event))\n    return event\n"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": zip_of(printing)})  # fmt: skip
    answer = lam.invoke(FunctionName=name, Payload=b"{}", LogType="Tail")
    lines = base64.b64decode(answer["LogResult"]).decode().splitlines(keepends=True)
    request_id = answer["ResponseMetadata"]["RequestId"]
    assert lines[:3] == [f"START RequestId: {request_id} Version: $LATEST\n", "{}\n", f"END RequestId: {request_id}\n"]
    assert len(lines) == 4 and lines[3].startswith(f"REPORT RequestId: {request_id}\tDuration: ")
    assert "\tInit Duration: " in lines[3]


def test_an_image_for_a_zip_function_is_refused(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    before = lam.get_function_configuration(FunctionName=fn)
    assert refused(lam.update_function_code, FunctionName=fn,
                   ImageUri=f"{ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/repo:latest") == (
        "InvalidParameterValueException",
        "Please don't provide ImageUri when updating a function with packageType Zip.", 400)  # fmt: skip
    after = lam.get_function_configuration(FunctionName=fn)
    assert (after["CodeSha256"], after["RevisionId"]) == (before["CodeSha256"], before["RevisionId"])
