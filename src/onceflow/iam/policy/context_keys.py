"""The context keys a policy names: what GetContextKeysFor*Policy answer, so that a caller knows
which ContextEntries a simulation needs.

AWS's example (IAM User Guide, GetContextKeysForCustomPolicy with a CLI): a policy whose Resource
holds ${aws:username} and whose Condition tests aws:CurrentTime gives ["aws:username",
"aws:CurrentTime"], the keys as written, variables as well as condition keys. Here each key once
(keys are case-insensitive: the first spelling is kept), in the order the statements name them,
each statement's resource variables before its condition keys (UNCONFIRMED beyond the example).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from onceflow.iam.policy.document import Policy, Statement

_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_LITERALS = frozenset("*?$")  # ${*}, ${?}, ${$} stand for characters, not keys


def context_keys(policies: Iterable[Policy]) -> list[str]:
    seen: dict[str, str] = {}
    for policy in policies:
        for statement in policy.statements:
            for key in _named(statement, policy.supports_variables):
                seen.setdefault(key.lower(), key)
    return list(seen.values())


def _named(statement: Statement, variables: bool) -> Iterator[str]:
    if variables:
        for text in (*(statement.resources or ()), *(statement.not_resources or ())):
            yield from _variables(text)
    for clause in statement.conditions:
        if variables:
            yield from _variables(clause.key)
        yield clause.key
        if variables:
            for value in clause.values:
                yield from _variables(value)


def _variables(text: str) -> Iterator[str]:
    if "${" not in text:
        return
    for m in _VARIABLE.finditer(text):
        name = m.group(1).partition(",")[0].strip()
        if name and name not in _LITERALS:
            yield name
