"""Policy documents: parse and validate once, giving an immutable Policy the evaluator walks.

Validation (validation.py) follows IAM's stages and MalformedPolicyDocument messages; the kind
(`identity`, `managed`, `trust`) decides the rules.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# validation imports conditions, which names ConditionClause only for type checking.
from onceflow.iam.policy.validation import MalformedPolicy, check, statements_of, values

__all__ = [
    "INVALID_JSON", "ConditionClause", "MalformedPolicy", "Policy", "Statement",
    "build", "from_json", "parse", "stored",
]

INVALID_JSON = "This policy contains invalid Json"


@dataclass(frozen=True)
class ConditionClause:
    operator: str  # as written, e.g. "ForAnyValue:StringLikeIfExists"
    key: str  # condition keys are case-insensitive: kept as written, compared lowered
    values: tuple[str, ...]


@dataclass(frozen=True)
class Statement:
    effect: str  # "Allow" | "Deny"
    sid: str | None = None
    actions: tuple[str, ...] | None = None
    not_actions: tuple[str, ...] | None = None
    resources: tuple[str, ...] | None = None
    not_resources: tuple[str, ...] | None = None
    principals: dict[str, tuple[str, ...]] | None = None  # {"*": ("*",)} for Principal "*"
    not_principals: dict[str, tuple[str, ...]] | None = None
    conditions: tuple[ConditionClause, ...] = ()


@dataclass(frozen=True)
class Policy:
    version: str
    statements: tuple[Statement, ...]

    @property
    def supports_variables(self) -> bool:
        return self.version == "2012-10-17"


@lru_cache(maxsize=2048)
def parse(text: str, kind: str = "identity") -> Policy:
    """Parse and validate `text`; raises MalformedPolicy with IAM's message. Cached by text."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        raise MalformedPolicy(INVALID_JSON) from None
    return from_json(doc, kind)


@lru_cache(maxsize=2048)
def stored(text: str, kind: str = "identity") -> Policy:
    """Compile a document IAM accepted when it was written, without checking it again: rules
    tightened since must not make a stored policy unreadable (its Deny statements still apply;
    a statement with an operator IAM does not define never applies)."""
    try:
        return build(json.loads(text))
    except (ValueError, RecursionError, KeyError, TypeError, AttributeError):
        return parse(text, kind)  # not even buildable: refuse it as IAM would


def from_json(doc: Any, kind: str = "identity") -> Policy:
    check(doc, kind)
    return build(doc)


def build(doc: dict[str, Any]) -> Policy:
    """The Policy of a document with the grammar's shapes (checked, or checked when stored)."""
    return Policy(doc.get("Version", "2008-10-17"), tuple(_statement(s) for s in statements_of(doc)))


def _statement(raw: dict[str, Any]) -> Statement:
    """A statement that passed check(): every element has its documented type."""

    def strings(name: str) -> tuple[str, ...] | None:
        return tuple(values(raw, name)) if name in raw else None

    return Statement(
        effect=raw["Effect"],
        sid=raw.get("Sid") or None,
        actions=strings("Action"),
        not_actions=strings("NotAction"),
        resources=strings("Resource"),
        not_resources=strings("NotResource"),
        principals=_principal(raw["Principal"]) if "Principal" in raw else None,
        not_principals=_principal(raw["NotPrincipal"]) if "NotPrincipal" in raw else None,
        conditions=_conditions(raw.get("Condition") or {}),
    )


def _principal(value: Any) -> dict[str, tuple[str, ...]]:
    if value == "*":
        return {"*": ("*",)}
    return {ptype: (ids,) if isinstance(ids, str) else tuple(ids) for ptype, ids in value.items()}


def _conditions(raw: dict[str, Any]) -> tuple[ConditionClause, ...]:
    return tuple(
        ConditionClause(operator, key, tuple(_scalar(v) for v in (value if isinstance(value, list) else [value])))
        for operator, block in raw.items()
        for key, value in block.items()
    )


def _scalar(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
