"""Session tags (AssumeRole's Tags and TransitiveTagKeys): checked as STS checks them, carried
down a role chain when transitive, and seen by policies as aws:PrincipalTag/<key>.

AWS's recorded answers (LocalStack's test_sts snapshot, TestSTSAssumeRoleTagging): a transitive
key must be among the tags, keys are unique regardless of case, and a session may not set again a
transitive key it inherited; each refusal is InvalidParameterValue."""

from __future__ import annotations

from typing import Any

from onceflow.errors import ServiceError

Tags = dict[str, dict[str, str]]  # lower-cased key -> {"Key", "Value"} as given

NOT_AMONG = "The specified transitive tag key must be included in the requested tags."
DUPLICATE = "Duplicate tag keys found. Please note that Tag keys are case insensitive."
CONFLICT = ("One of the specified transitive tag keys can't be set because it conflicts with a transitive tag key "
            "from the calling session.")


def _invalid(message: str) -> ServiceError:
    return ServiceError("InvalidParameterValue", message, 400)


def requested(params: dict[str, Any], inherited: Tags, inherited_keys: list[str]) -> tuple[Tags, list[str]]:
    """The session's tags and transitive keys: the call's own over nothing, the caller session's
    transitive tags added. Raises InvalidParameterValue as STS does."""
    tags: Tags = {}
    for tag in params.get("Tags") or []:
        key = tag["Key"].lower()
        if key in tags:
            raise _invalid(DUPLICATE)
        tags[key] = {"Key": tag["Key"], "Value": tag["Value"]}
    transitive = [k.lower() for k in params.get("TransitiveTagKeys") or []]
    if any(k not in tags for k in transitive):
        raise _invalid(NOT_AMONG)
    if any(k in tags for k in inherited_keys):
        raise _invalid(CONFLICT)
    chained = {k: inherited[k] for k in inherited_keys if k in inherited}
    return {**chained, **tags}, sorted({*inherited_keys, *transitive})

