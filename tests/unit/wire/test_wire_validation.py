"""Coral's validation wording, and the model's Java patterns read by Python's `re`."""

from __future__ import annotations

import re

import pytest
from wire_oracle import spec

from onceflow.wire.validate import Problems, check_scalar, java_length, python_pattern, quoted


@pytest.mark.parametrize(("pattern", "good", "bad"), [
    (r"[\p{L}\p{Z}\p{N}_.:/=+\-@]*", ["héllo wörld:1", "tag_1.x/y=z+@-", ""], ["a,b", "a;b", "a\x01", "😀"]),
    (r"^!?\*?([\p{L}\p{Z}\p{N}_.:/=+\-@]*)\*?$", ["!*abc*", "ünïcode"], ["a&b"]),
    (r"\p{ASCII}*", ["plain\x01ascii"], ["é"]),
    (r"\p{Print}+", ["printable ~"], ["tab\t", "é"]),
    (r"[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDC00-\uDBFF\uDFFF\r\n\t]*", ["text\n😀"], ["\x01"]),
    (r"[\w-_]*", ["a-b_c"], ["a b"]),
])
def test_java_patterns_are_translated(pattern: str, good: list[str], bad: list[str]) -> None:
    translated = python_pattern(pattern)
    assert translated is not None
    rx = re.compile(translated)
    assert all(rx.fullmatch(text) for text in good)
    assert not any(rx.fullmatch(text) for text in bad)


def test_every_pattern_of_the_six_models_compiles() -> None:
    untranslatable = set()
    for service in ("dynamodb", "stepfunctions", "lambda", "iam", "sts", "logs"):
        model = spec(service).model
        for name in model.shape_names:
            pattern = model.shape_for(name).metadata.get("pattern")
            if pattern and python_pattern(pattern) is None:
                untranslatable.add(pattern)
    assert untranslatable == set()


def test_values_are_quoted_as_java_prints_them() -> None:
    assert quoted(None) == "null"
    assert quoted(10001) == "'10001'"
    assert quoted(True) == "'true'"
    assert quoted(["a", "b"]) == "'[a, b]'"
    assert quoted(["a", None]) == "'[a, null]'"
    assert [quoted(x) for x in (2.0, -1.0, 0.25, 1e7, 1.5e-4)] == ["'2.0'", "'-1.0'", "'0.25'", "'1.0E7'", "'1.5E-4'"]
    assert quoted({"k": 1}) == "'{k=1}'"
    assert quoted(b"\x00\x01") == "'java.nio.HeapByteBuffer[pos=0 lim=2 cap=2]'"


def test_lengths_count_utf16_code_units() -> None:
    assert java_length("abc") == 3 and java_length("é") == 1 and java_length("😀") == 2


def test_pattern_and_length_are_both_reported() -> None:
    shape = spec("iam").operations["GetRole"].input_shape.members["RoleName"]  # [\w+=,.@-]+, max 64
    problems = Problems()
    check_scalar(shape, "a b" * 30, "roleName", problems)
    assert [kind for _, kind, _ in problems.found] == ["pattern", "max"]
    assert problems.message().startswith("2 validation errors detected: Value 'a ba b")


def test_a_tag_structures_key_and_value_and_a_sensitive_member_are_reported_without_their_value() -> None:
    tag = spec("iam").operations["TagRole"].input_shape.members["Tags"].member
    problems = Problems()
    check_scalar(tag.members["Key"], "bad#key", "tags.1.member.key", problems)
    check_scalar(tag.members["Value"], "v" * 257, "tags.1.member.value", problems)
    assert problems.items == [
        r"Value at 'tags.1.member.key' failed to satisfy constraint: Member must satisfy regular expression "
        r"pattern: [\p{L}\p{Z}\p{N}_.:/=+\-@]+",
        "Value at 'tags.1.member.value' failed to satisfy constraint: Member must have length less than or equal "
        "to 256"]
    password = spec("iam").operations["CreateLoginProfile"].input_shape.members["Password"]
    assert password.metadata.get("sensitive")
    hidden = Problems()
    check_scalar(password, "", "password", hidden)
    assert hidden.items == [
        r"Value at 'password' failed to satisfy constraint: Member must satisfy regular expression pattern: "
        r"[\u0009\u000A\u000D\u0020-\u00FF]+",
        "Value at 'password' failed to satisfy constraint: Member must have length greater than or equal to 1"]


def test_at_most_ten_problems_are_listed() -> None:
    problems = Problems()
    for i in range(12):
        problems.add(None, f"m{i}", "Member must not be null")
    message = problems.message()
    assert message.startswith("10 validation errors detected: ") and "'m9'" in message and "'m10'" not in message


def test_service_wording_and_service_checks() -> None:
    problems = Problems()
    problems.add("g" * 513, "logGroupName", "Member must have length less than or equal to 512", "max")
    assert problems.outcome("logs") == ("Invalid LogGroup or LogStream, both must have length less than or equal "
                                        "to 512.")
    runtime = Problems()
    runtime.add("python0", "runtime", "Member must satisfy enum value set: [...]", "enum")
    assert runtime.outcome("lambda") is None  # Lambda answers this one itself
    assert runtime.outcome("stepfunctions") is not None


# ---------------------------------------------------------------------- map keys
def _json_problems(service: str, operation: str, params: dict[str, object]) -> Problems:
    from onceflow.wire.shapes import from_json

    op = spec(service).operations[operation]
    assert op.input_shape is not None
    problems = Problems()
    from_json(op.input_shape, params, "", problems)
    return problems


def test_a_map_key_breaking_its_key_shape_is_one_violation_listing_the_keys_constraints() -> None:
    problems = _json_problems("logs", "TagResource", {"resourceArn": "arn:aws:logs:us-east-1:000000000000:log-group:g",
                                                      "tags": {"ok": "1", "bad,key": "2", "": "3"}})
    assert problems.items == [
        "Value '{ok=1, bad,key=2, =3}' at 'tags' failed to satisfy constraint: Map keys must satisfy constraint: "
        "[Member must have length less than or equal to 128, Member must have length greater than or equal to 1, "
        r"Member must satisfy regular expression pattern: ^([\p{L}\p{Z}\p{N}_.:/=+\-@]+)$]"]
    fine = _json_problems("logs", "TagResource", {"resourceArn": "arn:aws:logs:us-east-1:000000000000:log-group:g",
                                                  "tags": {"ok": "1", "ünïcode key": "2"}})
    assert fine.found == []


def test_a_sensitive_maps_keys_are_reported_without_its_value() -> None:
    problems = _json_problems("lambda", "UpdateFunctionConfiguration",
                              {"FunctionName": "f", "Environment": {"Variables": {"GOOD": "secret", "1BAD": "x"}}})
    assert problems.message() == (
        "1 validation error detected: Value at 'environment.variables' failed to satisfy constraint: Map keys must "
        "satisfy constraint: [Member must satisfy regular expression pattern: [a-zA-Z]([a-zA-Z0-9_])+]")


def test_services_that_check_their_keys_themselves_keep_their_own_answer() -> None:
    long_name = "a" * 70000  # past AttributeName's 65535: DynamoDB's own item checks answer it
    problems = _json_problems("dynamodb", "PutItem", {"TableName": "table", "Item": {long_name: {"S": "x"}}})
    assert problems.found == []


def test_query_protocol_map_keys_are_checked_too() -> None:
    from onceflow.awsmodels.model import ServiceModel
    from onceflow.wire import query

    # No served query service has an input map with constrained keys (SQS checks its own): a model of one.
    model = ServiceModel({"metadata": {"protocol": "query"}, "operations": {"Op": {"name": "Op", "input": {
        "shape": "In"}}}, "shapes": {"In": {"type": "structure", "members": {"Tags": {"shape": "TagMap"}}},
        "TagMap": {"type": "map", "key": {"shape": "Key"}, "value": {"shape": "Value"}},
        "Key": {"type": "string", "min": 1, "max": 3}, "Value": {"type": "string"}}}, "iam")
    fields = query.Form({"Tags.entry.1.key": "long", "Tags.entry.1.value": "v"})
    problems = Problems()
    shape = model.operation_model("Op").input_shape
    assert shape is not None
    assert query._structure(shape, fields, "", "", problems) == {"Tags": {"long": "v"}}
    assert problems.items == ["Value '{long=v}' at 'tags' failed to satisfy constraint: Map keys must satisfy "
                              "constraint: [Member must have length less than or equal to 3, Member must have length "
                              "greater than or equal to 1]"]


def test_a_bad_list_member_names_the_whole_list_listing_the_members_constraints() -> None:
    def create(**extra: object) -> Problems:
        role = "arn:aws:iam::000000000000:role/r"
        return _json_problems("lambda", "CreateFunction", {"FunctionName": "f", "Role": role, "Code": {}, **extra})

    assert create(Architectures=["foo"]).items == [
        "Value '[foo]' at 'architectures' failed to satisfy constraint: Member must satisfy constraint: [Member must "
        "satisfy enum value set: [x86_64, arm64], Member must not be null]"]
    assert create(Architectures=["arm64"]).found == []
    # Lambda's string members: both bounds, the pattern, not null (as AWS answers cors.allowMethods). The
    # pattern and bounds are the model's (botocore 1.44 widened the layer ARN's pattern).
    layer = spec("lambda").operations["CreateFunction"].input_shape.members["Layers"].member.metadata
    assert create(Layers=["arn:aws:lambda:us-east-1:000000000000:layer:l:1", "nope"]).items == [
        "Value '[arn:aws:lambda:us-east-1:000000000000:layer:l:1, nope]' at 'layers' failed to satisfy constraint: "
        f"Member must satisfy constraint: [Member must have length less than or equal to {layer['max']}, Member "
        f"must have length greater than or equal to {layer['min']}, Member must satisfy regular expression "
        f"pattern: {layer['pattern']}, Member must not be null]"]


def test_list_members_of_structures_keep_their_member_paths() -> None:
    problems = _json_problems("dynamodb", "CreateTable", {
        "TableName": "table", "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "X"}], "BillingMode": "PAY_PER_REQUEST"})
    assert [p[0] for p in problems.found] == ["attributeDefinitions.1.member.attributeType"]


def test_services_that_report_each_list_member_keep_their_wording() -> None:
    problems = _json_problems("sqs", "GetQueueAttributes", {"QueueUrl": "q", "AttributeNames": ["Bogus"]})
    assert [p[0] for p in problems.found] == ["attributeNames.1.member"]


def test_query_protocol_lists_of_scalars_name_the_whole_list() -> None:
    from onceflow.awsmodels.model import ServiceModel
    from onceflow.wire import query

    model = ServiceModel({"metadata": {"protocol": "query"}, "operations": {"Op": {"name": "Op", "input": {
        "shape": "In"}}}, "shapes": {"In": {"type": "structure", "members": {"Keys": {"shape": "KeyList"}}},
        "KeyList": {"type": "list", "member": {"shape": "Key"}}, "Key": {"type": "string", "min": 1, "max": 3}}},
        "iam")  # fmt: skip
    problems = Problems()
    shape = model.operation_model("Op").input_shape
    assert shape is not None
    fields = query.Form({"Keys.member.1": "ok", "Keys.member.2": "long"})
    assert query._structure(shape, fields, "", "", problems) == {"Keys": ["ok", "long"]}
    assert problems.items == ["Value '[ok, long]' at 'keys' failed to satisfy constraint: Member must satisfy "
                              "constraint: [Member must have length less than or equal to 3, Member must have length "
                              "greater than or equal to 1]"]


def test_a_maps_bad_scalar_value_names_the_whole_map() -> None:
    problems = _json_problems("lambda", "CreateAlias", {"FunctionName": "f", "Name": "a", "FunctionVersion": "1",
                                                        "RoutingConfig": {"AdditionalVersionWeights": {"2": 2}}})
    assert problems.items == [
        "Value '{2=2.0}' at 'routingConfig.additionalVersionWeights' failed to satisfy constraint: Map value must "
        "satisfy constraint: [Member must have value less than or equal to 1.0, Member must have value greater than "
        "or equal to 0.0, Member must not be null]"]
