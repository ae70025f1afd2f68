"""Paging and tag lists shared by EventBridge's List operations."""

from __future__ import annotations

from typing import Any

from onceflow import pages
from onceflow.errors import ServiceError
from onceflow.events import errors


def tag_map(tags: list[dict[str, str]] | None) -> dict[str, str]:
    return {t["Key"]: t["Value"] for t in tags or []}


def paginate(items: list[Any], limit: int | None, token: str | None) -> tuple[list[Any], str | None]:
    start = pages.offset_of(token, _refused_token)  # a token EventBridge never issued is refused
    end = start + limit if limit else len(items)
    return items[start:end], (pages.offset_token(end) if end < len(items) else None)


def _refused_token() -> ServiceError:
    return errors.validation("The provided pagination token is invalid.")  # UNCONFIRMED wording
