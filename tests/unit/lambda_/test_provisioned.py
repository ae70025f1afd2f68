"""Where provisioned concurrency's workers go: a version keeps its own, an alias's follow its
version, or its versions by weight."""

from __future__ import annotations

from onceflow.lambda_.provisioned import alias_shares, version_counts


def test_an_alias_shares_by_weight() -> None:
    assert alias_shares(3, {"FunctionVersion": "1"}) == {"1": 3}
    assert alias_shares(4, {"FunctionVersion": "1", "RoutingConfig": {"AdditionalVersionWeights": {"2": 0.25}}}) == {
        "1": 3, "2": 1}  # fmt: skip
    # A share that rounds to nothing stays with the alias's version.
    assert alias_shares(2, {"FunctionVersion": "1", "RoutingConfig": {"AdditionalVersionWeights": {"2": 0.1}}}) == {
        "1": 2}  # fmt: skip


def test_counts_add_up_over_configs() -> None:
    aliases = {"live": {"FunctionVersion": "2"}}
    entries = {"2": {"Requested": 1}, "live": {"Requested": 2}, "gone": {"Requested": 5}, "1": {"Requested": 1}}
    assert version_counts(entries, aliases.get) == {"2": 3, "1": 1}
