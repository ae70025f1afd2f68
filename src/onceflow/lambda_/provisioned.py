"""Where a provisioned concurrency config's workers go. A config on a version keeps that version's
workers; one on an alias follows the alias: moving the alias moves them to its new version, and a
weighted alias shares them between its versions by weight (AWS: the allocated count of a weighted
alias "fluctuates depending on the amount of concurrency that is provisioned for the function
versions"). Pure: the invoker turns the shares into workers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def alias_shares(count: int, alias: Mapping[str, Any]) -> dict[str, int]:
    """{version: workers} for `count` provisioned on `alias`: each additional version gets its
    weight's share (rounded), the alias's own version the rest."""
    weights = (alias.get("RoutingConfig") or {}).get("AdditionalVersionWeights") or {}
    shares = {str(version): round(count * float(weight)) for version, weight in weights.items()}
    shares = {version: n for version, n in shares.items() if n > 0}
    primary = str(alias["FunctionVersion"])
    shares[primary] = shares.get(primary, 0) + count - sum(shares.values())
    return {version: n for version, n in shares.items() if n > 0}


def version_counts(
    entries: Mapping[str, Mapping[str, Any]], alias_of: Callable[[str], Mapping[str, Any] | None]
) -> dict[str, int]:
    """{version: workers} over all of a function's configs (`qualifier: {"Requested": n}`);
    `alias_of(name)` is the alias's record or None (a deleted alias keeps no workers). A version
    named by two configs (itself, and an alias to it) gets both counts."""
    out: dict[str, int] = {}
    for qualifier, entry in entries.items():
        count = int(entry["Requested"])
        if qualifier.isdigit():
            shares = {qualifier: count}
        else:
            alias = alias_of(qualifier)
            shares = alias_shares(count, alias) if alias is not None else {}
        for version, n in shares.items():
            out[version] = out.get(version, 0) + n
    return out
