"""Paging and tag lists shared by EventBridge's List operations."""

from __future__ import annotations

from typing import Any

from onceflow.events import errors


def tag_map(tags: list[dict[str, str]] | None) -> dict[str, str]:
    return {t["Key"]: t["Value"] for t in tags or []}


def paginate(items: list[Any], limit: int | None, token: str | None) -> tuple[list[Any], str | None]:
    start = 0
    if token:
        try:
            start = int(token)
        except ValueError:
            raise errors.validation("The provided pagination token is invalid.") from None  # UNCONFIRMED
    end = start + limit if limit else len(items)
    return items[start:end], (str(end) if end < len(items) else None)
