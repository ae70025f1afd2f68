"""Resource policy statements as AddPermission writes them, and their evaluation."""

from __future__ import annotations

import pytest

from onceflow.errors import ServiceError
from onceflow.lambda_ import policy

FN = "arn:aws:lambda:us-east-1:123456789012:function:worker"


def stmt(**params: str) -> dict:
    return policy.statement({"StatementId": "s1", "Action": "lambda:InvokeFunction", **params}, FN)


def test_statement_shapes() -> None:
    assert stmt(Principal="s3.amazonaws.com", SourceAccount="123456789012", SourceArn="arn:aws:s3:::bucket") == {
        "Sid": "s1",
        "Effect": "Allow",
        "Principal": {"Service": "s3.amazonaws.com"},
        "Action": "lambda:InvokeFunction",
        "Resource": FN,
        "Condition": {
            "StringEquals": {"AWS:SourceAccount": "123456789012"},
            "ArnLike": {"AWS:SourceArn": "arn:aws:s3:::bucket"},
        },
    }
    assert stmt(Principal="111122223333")["Principal"] == {"AWS": "arn:aws:iam::111122223333:root"}
    role = "arn:aws:iam::111122223333:role/r"
    assert stmt(Principal=role)["Principal"] == {"AWS": role}
    assert stmt(Principal="*")["Principal"] == "*"
    assert "Condition" not in stmt(Principal="*")
    url = stmt(Principal="*", FunctionUrlAuthType="NONE", PrincipalOrgID="o-abc")
    assert url["Condition"] == {"StringEquals": {"aws:PrincipalOrgID": "o-abc", "lambda:FunctionUrlAuthType": "NONE"}}


def test_bad_principal() -> None:
    with pytest.raises(ServiceError) as err:
        stmt(Principal="not a principal")
    assert err.value.message == "The provided principal was invalid. Please check the principal and try again."


def test_add_and_remove() -> None:
    doc = policy.add(policy.empty(), stmt(Principal="*"))
    with pytest.raises(ServiceError) as err:
        policy.add(doc, stmt(Principal="*"))
    assert err.value.code == "ResourceConflictException"
    with pytest.raises(ServiceError) as err:
        policy.remove(doc, "other")
    assert (err.value.code, err.value.message) == ("ResourceNotFoundException",
                                                   "Statement other is not found in resource policy.")  # fmt: skip
    assert policy.remove(doc, "s1")["Statement"] == []
    with pytest.raises(ServiceError) as err:
        policy.remove(None, "s1")
    assert err.value.message == "No policy is associated with the given resource."


@pytest.mark.parametrize(
    ("who", "context", "allowed"),
    [
        (("Service", "sns.amazonaws.com"), {"AWS:SourceArn": "arn:aws:sns:us-east-1:123456789012:orders"}, True),
        (("Service", "sns.amazonaws.com"), {"AWS:SourceArn": "arn:aws:sns:us-east-1:123456789012:other"}, False),
        (("Service", "sns.amazonaws.com"), {}, False),  # a condition on a key the request lacks
        (("Service", "events.amazonaws.com"), {"AWS:SourceArn": "arn:aws:sns:us-east-1:123456789012:orders"}, False),
        (("Service", "sns.amazonaws.com"), {"aws:sourcearn": "arn:aws:sns:us-east-1:123456789012:orders"}, True),
    ],
)
def test_allows(who: tuple[str, str], context: dict[str, str], allowed: bool) -> None:
    doc = policy.add(policy.empty(), stmt(Principal="sns.amazonaws.com",
                                          SourceArn="arn:aws:sns:us-east-1:123456789012:ord*"))  # fmt: skip
    assert policy.allows(doc, "lambda:InvokeFunction", who, context) is allowed


def test_wildcards_and_unknown_operators() -> None:
    doc = policy.add(policy.empty(), policy.statement(
        {"StatementId": "all", "Action": "lambda:*", "Principal": "*"}, FN))  # fmt: skip
    assert policy.allows(doc, "lambda:InvokeFunction", ("Service", "s3.amazonaws.com"), {})
    assert not policy.allows(None, "lambda:InvokeFunction", ("Service", "s3.amazonaws.com"), {})
    # IAM's evaluator decides: an operator IAM does not define never grants, an explicit deny wins.
    odd = {"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*",
                          "Condition": {"IpAddressish": {"aws:SourceIp": "10.0.0.0/8"}}}]}  # fmt: skip
    assert not policy.allows(odd, "lambda:InvokeFunction", ("AWS", "123456789012"), {"aws:SourceIp": "10.0.0.1"})
    denied = {**doc, "Statement": [*doc["Statement"], {"Effect": "Deny", "Principal": {"Service": "s3.amazonaws.com"},
                                                       "Action": "lambda:InvokeFunction", "Resource": FN}]}
    assert not policy.allows(denied, "lambda:InvokeFunction", ("Service", "s3.amazonaws.com"), {})
    assert policy.allows(denied, "lambda:InvokeFunction", ("Service", "sns.amazonaws.com"), {})
    # A statement grants on the ARN it names: the unqualified function's policy is not version 1's.
    assert not policy.allows(doc, "lambda:InvokeFunction", ("Service", "s3.amazonaws.com"), {}, resource=FN + ":1")
