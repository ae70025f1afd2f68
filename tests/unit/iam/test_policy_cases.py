"""The policy language on tables of cases (cases/*.json): validation messages and evaluation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onceflow.iam.policy import Decision, MalformedPolicy, Request, evaluate, parse, stored
from onceflow.iam.policy.document import build

CASES = Path(__file__).parent / "cases"
EVALUATE = json.loads((CASES / "evaluate.json").read_text())
DOCUMENTS = json.loads((CASES / "documents.json").read_text())


@pytest.mark.parametrize("case", EVALUATE, ids=[c["name"] for c in EVALUATE])
def test_evaluate(case: dict) -> None:
    # Built unchecked, as a stored document is: some cases hold operators IAM now refuses to store.
    policies = [build(p) for p in case["policies"]]
    request = Request(case["action"], case["resource"], case["context"])
    assert evaluate(policies, request) is Decision(case["expect"])


@pytest.mark.parametrize("case", DOCUMENTS["malformed"], ids=[c["name"] for c in DOCUMENTS["malformed"]])
def test_malformed_documents_are_refused_with_iams_message(case: dict) -> None:
    with pytest.raises(MalformedPolicy) as info:
        parse(case["document"], case["kind"])
    assert info.value.message == case["message"]


@pytest.mark.parametrize("case", DOCUMENTS["valid"], ids=[c["name"] for c in DOCUMENTS["valid"]])
def test_valid_documents_parse(case: dict) -> None:
    policy = parse(case["document"], case["kind"])
    assert policy.statements


def test_parse_is_cached_by_text() -> None:
    text = DOCUMENTS["valid"][1]["document"]
    assert parse(text, "identity") is parse(text, "identity")


def test_a_stored_document_is_read_without_todays_stricter_checks() -> None:
    # Accepted before unknown operators with keys were refused: it must still compile, its Deny
    # statement must still deny, and the statement with the unknown operator never applies.
    text = json.dumps({
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:*", "Resource": "*", "Condition": {"StringEqualz": {"a:b": "c"}}},
            {"Effect": "Deny", "Action": "s3:DeleteObject", "Resource": "*"},
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"},
        ],
    })
    with pytest.raises(MalformedPolicy):
        parse(text, "identity")
    policy = stored(text, "identity")
    assert evaluate([policy], Request("s3:DeleteObject", "arn:aws:s3:::b/k", {})) is Decision.EXPLICIT_DENY
    assert evaluate([policy], Request("s3:GetObject", "arn:aws:s3:::b/k", {})) is Decision.ALLOW
    assert evaluate([policy], Request("s3:PutObject", "arn:aws:s3:::b/k", {})) is Decision.IMPLICIT_DENY
