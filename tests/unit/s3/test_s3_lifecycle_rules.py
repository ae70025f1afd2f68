"""Lifecycle rules as pure functions: when a version falls due (AWS's round-up to midnight UTC),
which versions a rule selects, what NoncurrentVersionExpiration keeps."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from onceflow.s3 import lifecycle


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def version(vid: str, modified: str, latest: bool = False, marker: bool = False, size: int = 1,
            tags: dict[str, str] | None = None) -> dict[str, Any]:
    return {"version_id": vid, "modified": at(modified), "latest": int(latest), "delete_marker": int(marker),
            "size": size, "tags": tags or {}, "etag": f"e-{vid}"}


def test_days_round_up_to_the_next_midnight_utc() -> None:
    rule = {"Expiration": {"Days": 3}}
    assert lifecycle.current_due(rule, at("2026-01-15T10:30:00")) == at("2026-01-19T00:00:00")
    assert lifecycle.current_due(rule, at("2026-01-15T00:00:00")) == at("2026-01-18T00:00:00")
    assert lifecycle.current_due({"Expiration": {"ExpiredObjectDeleteMarker": True}}, 0.0) is None


def test_filters_need_the_prefix_every_tag_and_the_size_bounds() -> None:
    rule = {"Filter": {"And": {"Prefix": "logs/", "Tags": [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}],
                               "ObjectSizeGreaterThan": 10}}}
    assert lifecycle.selects(rule, "logs/x", 11, {"a": "1", "b": "2", "c": "3"})
    assert not lifecycle.selects(rule, "logs/x", 11, {"a": "1"})
    assert not lifecycle.selects(rule, "logs/x", 10, {"a": "1", "b": "2"})
    assert not lifecycle.selects(rule, "other/x", 11, {"a": "1", "b": "2"})
    assert lifecycle.selects({"Prefix": "p/"}, "p/q", 0, {})  # the older rule-level Prefix


def test_noncurrent_versions_count_from_their_successor_and_the_newest_are_kept() -> None:
    rule = {"NoncurrentVersionExpiration": {"NoncurrentDays": 1, "NewerNoncurrentVersions": 1}}
    versions = [version("v1", "2026-01-01T08:00:00"), version("v2", "2026-01-02T08:00:00"),
                version("v3", "2026-01-05T08:00:00"), version("v4", "2026-01-05T09:00:00", latest=True)]
    doomed: dict[tuple[str, str | None], str | None] = {}
    # On Jan 6 at noon: v3 (noncurrent since Jan 5 09:00, due Jan 7) is not due, and is the one kept anyway;
    # v2 became noncurrent Jan 5 08:00 -> due Jan 7: not yet; v1 since Jan 2 08:00 -> due Jan 4: removed.
    lifecycle._due_versions(rule, "k", versions, at("2026-01-06T12:00:00"), doomed)
    assert doomed == {("k", "v1"): None}
    doomed.clear()
    lifecycle._due_versions(rule, "k", versions, at("2026-01-08T00:00:00"), doomed)
    assert doomed == {("k", "v1"): None, ("k", "v2"): None}  # v3 is the newer noncurrent version kept
