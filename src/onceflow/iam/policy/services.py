"""Which services a policy lets its holder reach (ListPoliciesGrantingServiceAccess): an Allow
statement whose Action names one of the service's actions, or whose NotAction leaves some of them
out. Conditions and resources are not weighed (AWS: "It only applies permissions policy logic")."""

from __future__ import annotations

from onceflow.iam.policy.document import Policy, Statement
from onceflow.iam.policy.matching import action_matches


def grants(policy: Policy, namespace: str) -> bool:
    return any(_allows(s, namespace) for s in policy.statements if s.effect == "Allow")


def _allows(statement: Statement, namespace: str) -> bool:
    if statement.actions is not None:
        return any(_names(pattern, namespace) for pattern in statement.actions)
    return not any(_covers(pattern, namespace) for pattern in statement.not_actions or ())


def _names(pattern: str, namespace: str) -> bool:
    """Whether the action pattern matches some action of `namespace`."""
    prefix, colon, _ = pattern.partition(":")
    if not colon:  # "*", or a wildcard over the whole action ("s3*")
        return action_matches(pattern, f"{namespace}:x")
    return action_matches(prefix, namespace)


def _covers(pattern: str, namespace: str) -> bool:
    """Whether the NotAction pattern leaves out every action of `namespace`."""
    prefix, colon, name = pattern.partition(":")
    if not colon:
        return pattern == "*"
    return name == "*" and action_matches(prefix, namespace)
