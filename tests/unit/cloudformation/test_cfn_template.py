"""The template engine: reading JSON/YAML, intrinsic functions, conditions, ordering, errors."""

from __future__ import annotations

from typing import Any

import pytest

from onceflow.cloudformation.template import (
    NO_VALUE,
    Env,
    TemplateError,
    conditions,
    evaluate,
    load,
    order,
    outputs,
    parse,
    resolve_parameters,
)

YAML = """\
AWSTemplateFormatVersion: 2010-09-09
Parameters:
  Env: {Type: String, Default: dev}
  Size: {Type: Number, Default: 3}
  Zones: {Type: CommaDelimitedList, Default: "a,b"}
Mappings:
  Sizes: {dev: {Mem: 128}, prod: {Mem: 1024}}
Conditions:
  IsProd: !Equals [!Ref Env, prod]
  NotProd: !Not [!Condition IsProd]
Resources:
  Fn:
    Type: AWS::Lambda::Function
    Properties:
      Role: !GetAtt Role.Arn
      MemorySize: !FindInMap [Sizes, !Ref Env, Mem]
      Description: !If [IsProd, production, !Ref AWS::NoValue]
  Role:
    Type: AWS::IAM::Role
Outputs:
  Name: {Value: !Sub "${AWS::StackName}-${Env}-${Role.Arn}"}
  Only: {Value: x, Condition: IsProd}
"""


def _env(template: Any, **params: str) -> Env:
    env = Env("123456789012", "eu-west-1", "app", "arn:aws:cloudformation:eu-west-1:123456789012:stack/app/1",
              resolve_parameters(template, params), mappings=template.doc.get("Mappings") or {})
    env.resources = {"Role": "app-Role-X"}
    env.attributes = lambda logical, name: f"arn:aws:iam::123456789012:role/{env.resources[logical]}"
    conditions(template, env)
    return env


def test_yaml_short_forms_and_dates_kept_as_text() -> None:
    t = load(YAML)
    assert t.doc["AWSTemplateFormatVersion"] == "2010-09-09"
    fn = t.resources["Fn"]["Properties"]
    assert fn["Role"] == {"Fn::GetAtt": ["Role", "Arn"]}
    assert fn["MemorySize"] == {"Fn::FindInMap": ["Sizes", {"Ref": "Env"}, "Mem"]}
    assert t.doc["Conditions"]["NotProd"] == {"Fn::Not": [{"Condition": "IsProd"}]}


def test_dependencies_order_resources() -> None:
    assert order(load(YAML)) == ["Role", "Fn"]


def test_intrinsics_with_defaults_and_conditions() -> None:
    t = load(YAML)
    env = _env(t)
    assert env.conditions == {"IsProd": False, "NotProd": True}
    assert env.parameters == {"Env": "dev", "Size": "3", "Zones": ["a", "b"]}
    props = evaluate(t.resources["Fn"]["Properties"], env)
    assert props == {"Role": "arn:aws:iam::123456789012:role/app-Role-X", "MemorySize": 128}
    assert outputs(t, env) == [{"OutputKey": "Name",
                                "OutputValue": "app-dev-arn:aws:iam::123456789012:role/app-Role-X"}]
    prod = _env(t, Env="prod")
    assert evaluate(t.resources["Fn"]["Properties"], prod)["Description"] == "production"
    assert [o["OutputKey"] for o in outputs(t, prod)] == ["Name", "Only"]


@pytest.mark.parametrize(("node", "value"), [
    ({"Fn::Join": ["-", ["a", {"Ref": "AWS::Region"}]]}, "a-eu-west-1"),
    ({"Fn::Select": [1, {"Fn::Split": [",", "x,y,z"]}]}, "y"),
    ({"Fn::Sub": ["${A}/${!Literal}", {"A": {"Ref": "AWS::AccountId"}}]}, "123456789012/${Literal}"),
    ({"Fn::Base64": "hi"}, "aGk="),
    ({"Fn::GetAZs": ""}, ["eu-west-1a", "eu-west-1b", "eu-west-1c"]),
    ({"Fn::And": [{"Fn::Equals": [1, "1"]}, {"Fn::Or": [False, True]}]}, True),
    ({"Ref": "AWS::NoValue"}, NO_VALUE),
    (["a", {"Ref": "AWS::NoValue"}], ["a"]),
    ({"Ref": "AWS::Partition"}, "aws"),
    ({"Fn::Cidr": ["10.0.0.0/16", 3, 8]}, ["10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24"]),
    ({"Fn::Cidr": ["192.168.0.0/24", 2, "6"]}, ["192.168.0.0/26", "192.168.0.64/26"]),
    ({"Fn::Cidr": ["2001:db8::/56", 2, 64]}, ["2001:db8::/64", "2001:db8:0:1::/64"]),
])
def test_functions(node: Any, value: Any) -> None:
    assert evaluate(node, _env(load(YAML))) == value


@pytest.mark.parametrize(("text", "message"), [
    ("{bad", "Template format error: JSON not well-formed. (line 1, column 2)"),
    ("Resources: [a\n", "Template format error: YAML not well-formed. (line 2, column 1)"),
    ("Description: x\n", "Template format error: At least one Resources member must be defined."),
    ("Resources:\n  A: {Properties: {}}\n", "Template format error: [/Resources/A] Every Resources object must "
                                          "contain a Type member."),
    ("Resources:\n  A: {Type: T, Properties: {X: !Ref B}}\n  B: {Type: T, Properties: {X: !Sub '${A.Arn}'}}\n",
     "Circular dependency between resources: [A, B]"),
    ("Resources:\n  A: {Type: T, DependsOn: Z}\n", "Template format error: Unresolved resource dependencies [Z] in "
                                                  "the Resources block of the template"),
])
def test_template_errors(text: str, message: str) -> None:
    with pytest.raises(TemplateError) as err:
        load(text)
    assert err.value.message == message


def test_parameter_errors() -> None:
    t = load("Parameters:\n  A: {Type: String}\n  B: {Type: String, AllowedValues: [x]}\n"
             "Resources:\n  R: {Type: T}\n")
    for given, message in [({}, "Parameters: [A, B] must have values"),
                           ({"A": "1", "C": "2"}, "Parameters: [C] do not exist in the template"),
                           ({"A": "1", "B": "y"}, "Parameter 'B' must be one of AllowedValues")]:
        with pytest.raises(TemplateError) as err:
            resolve_parameters(t, given)
        assert err.value.message == message


def test_unknown_function() -> None:
    with pytest.raises(TemplateError) as err:
        evaluate({"Fn::Nope": 1}, _env(load(YAML)))
    assert err.value.message.startswith("Template error: Encountered unsupported function: Fn::Nope")


def test_json_parses_like_yaml() -> None:
    assert parse('{"Resources": {"A": {"Type": "T"}}}') == parse("Resources:\n  A:\n    Type: T\n")


def test_cidr_that_does_not_fit() -> None:
    with pytest.raises(TemplateError) as err:
        evaluate({"Fn::Cidr": ["10.0.0.0/24", 5, 7]}, _env(load(YAML)))
    assert err.value.message == "Template error: Fn::Cidr cannot make 5 subnets of 7 bits in 10.0.0.0/24"


FOR_EACH = """\
Transform: [AWS::LanguageExtensions, AWS::Serverless-2016-10-31]
Parameters:
  Names: {Type: CommaDelimitedList, Default: "orders,audit-log"}
Resources:
  Fn::ForEach::Queues:
    - Name
    - !Ref Names
    - Queue&{Name}:
        Type: AWS::SQS::Queue
        Properties:
          QueueName: !Sub "${AWS::StackName}-${Name}"
          Tags: [{Key: kind, Value: !Ref Name}]
Outputs:
  Fn::ForEach::Urls:
    - Name
    - [orders]
    - ${Name}Url: {Value: !Ref Queueorders}
"""


def test_for_each_expands_resources_and_outputs() -> None:
    from onceflow.cloudformation.language import expand

    doc = expand(parse(FOR_EACH), {"Names": "orders,audit-log"})
    assert doc["Transform"] == "AWS::Serverless-2016-10-31"
    assert doc["Resources"] == {
        "Queueorders": {"Type": "AWS::SQS::Queue", "Properties": {
            "QueueName": {"Fn::Sub": "${AWS::StackName}-orders"}, "Tags": [{"Key": "kind", "Value": "orders"}]}},
        "Queueauditlog": {"Type": "AWS::SQS::Queue", "Properties": {
            "QueueName": {"Fn::Sub": "${AWS::StackName}-audit-log"}, "Tags": [{"Key": "kind", "Value": "audit-log"}]}},
    }
    assert doc["Outputs"] == {"ordersUrl": {"Value": {"Ref": "Queueorders"}}}
    assert list(expand(parse(FOR_EACH), {"Names": "x"})["Resources"]) == ["Queuex"]


@pytest.mark.parametrize(("spec", "value", "message"), [
    ("{Type: String, AllowedPattern: '[a-z]+'}", "Ab", "Parameter 'P' must match pattern [a-z]+"),
    ("{Type: String, MinLength: 3}", "ab", "Parameter 'P' must contain at least 3 characters"),
    ("{Type: String, MaxLength: 1}", "ab", "Parameter 'P' must contain at most 1 characters"),
    ("{Type: Number, MinValue: 5}", "4", "Parameter 'P' must be a number not less than 5"),
    ("{Type: Number, MaxValue: 5}", "6", "Parameter 'P' must be a number not greater than 5"),
    ("{Type: String, MaxLength: 1, ConstraintDescription: one letter}", "ab", "one letter"),
    ("{Type: CommaDelimitedList, AllowedPattern: '[a-z]+'}", "ok,NO", "Parameter 'P' must match pattern [a-z]+"),
    ("{Type: 'AWS::SSM::Parameter::Value<String>'}", "/app/x",
     "Unable to fetch parameters [/app/x] from parameter store for this account."),
])
def test_parameter_constraints(spec: str, value: str, message: str) -> None:
    t = load(f"Parameters:\n  P: {spec}\nResources:\n  R: {{Type: T}}\n")
    with pytest.raises(TemplateError) as err:
        resolve_parameters(t, {"P": value})
    assert err.value.message == message


def test_parameter_constraints_met() -> None:
    t = load("Parameters:\n  P: {Type: String, AllowedPattern: '[a-z0-9-]{1,40}', MinLength: 2}\n"
             "Resources:\n  R: {Type: T}\n")
    assert resolve_parameters(t, {"P": "labex-ev05"}) == {"P": "labex-ev05"}
