"""Helpers shared by the IAM and STS services: ids, time, policy validation, paging, tags."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from onceflow import pages
from onceflow.aws_ids import new_id as new_id  # re-exported for IAM's and STS's modules
from onceflow.aws_ids import stable_id as stable_id
from onceflow.awsmodels.partitions import partition as partition  # re-exported for IAM's modules
from onceflow.iam import errors
from onceflow.iam.policy import MalformedPolicy, Policy, parse

ROLE_INLINE_LIMIT = 10240
MANAGED_LIMIT = 6144
TRUST_LIMIT = 2048
MAX_ITEMS = 100


def partition_of(arn: str) -> str:
    return arn.split(":", 2)[1] if arn.count(":") >= 2 else "aws"


def issuer(url: str) -> str:
    """An OpenID Connect provider's identity in its ARN and in tokens' `iss`: the URL without its scheme."""
    return url.split("://", 1)[-1].rstrip("/")


def now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def policy_size(text: str) -> int:
    """IAM counts a policy's size without whitespace."""
    return sum(1 for ch in text if not ch.isspace())


def validate(text: str, kind: str = "identity") -> Policy:
    try:
        return parse(text, kind)
    except MalformedPolicy as exc:
        raise errors.malformed_policy(exc.message) from None


def page(items: list[Any], marker: str | None, max_items: int | None, key: Any) -> tuple[list[Any], str | None]:
    """IAM paging: MaxItems (default 100) and an opaque Marker naming the last item returned."""
    after = unmark(marker)
    if after is not None:
        # Continue after the item the marker names (lists need not be sorted by their key); if it
        # is gone, after the first key past it.
        keys = [key(i) for i in items]
        start = (
            keys.index(after) + 1 if after in keys else next((n for n, k in enumerate(keys) if k > after), len(keys))
        )
        items = items[start:]
    limit = max_items or MAX_ITEMS
    if len(items) <= limit:
        return items, None
    return items[:limit], mark(key(items[limit - 1]))


def mark(key: str) -> str:
    """The Marker of a page that ends at the item of `key` (pages.py: one codec for all services)."""
    return pages.encode(key, "iam")


def unmark(marker: str | None) -> str | None:
    if not marker:
        return None
    key = pages.decode(marker, errors.invalid_marker, "iam")
    if not isinstance(key, str):
        raise errors.invalid_marker()
    return key


def merge_tags(existing: list[dict[str, str]], new: list[dict[str, str]],
               case_sensitive: bool = False) -> list[dict[str, str]]:
    """A new value replaces the old one. Tag keys are case-insensitive in IAM but for managed
    policies', which are case-sensitive (recorded: LocalStack's test_iam_policies snapshot,
    "create-with-case-sensitive-tags" and "err-duplicate-keys")."""
    fold = (lambda k: k) if case_sensitive else str.lower
    keys = [fold(t["Key"]) for t in new]
    if len(keys) != len(set(keys)):
        raise errors.duplicate_tag_keys(case_sensitive)
    merged = {fold(t["Key"]): t for t in existing}
    merged.update({fold(t["Key"]): {"Key": t["Key"], "Value": t["Value"]} for t in new})
    if len(merged) > 50:
        raise errors.too_many_tags()
    return list(merged.values())


def drop_tags(existing: list[dict[str, str]], keys: list[str] | None,
              case_sensitive: bool = False) -> list[dict[str, str]]:
    """The tags left once `keys` are removed (an Untag* call), keys compared as merge_tags compares them."""
    fold = (lambda k: k) if case_sensitive else str.lower
    gone = {fold(k) for k in keys or []}
    return [t for t in existing if fold(t["Key"]) not in gone]


def check_policy_arn(arn: str, code: str = "InvalidInput") -> None:
    parts = arn.split(":", 5)
    if len(parts) != 6 or parts[0] != "arn" or parts[2] != "iam" or not parts[5].startswith("policy/"):
        raise errors.invalid_arn(arn, code)


def entity_of(arn: str, kinds: tuple[str, ...], account: str | None = None) -> tuple[str, str]:
    """(kind, name) of the IAM entity an ARN names (arn:aws:iam::<account>:user/<path><name>); an ARN
    of another service, another kind, another account (when `account` is given) or without a name is
    refused as IAM refuses it ("ARN X is not valid.")."""
    parts = arn.split(":", 5)
    if len(parts) != 6 or parts[0] != "arn" or parts[2] != "iam" or (account is not None and parts[4] != account):
        raise errors.invalid_arn(arn)
    kind, slash, rest = parts[5].partition("/")
    name = rest.rsplit("/", 1)[-1]
    if kind not in kinds or not slash or not name:
        raise errors.invalid_arn(arn)
    return kind, name
