"""SQS list tokens: the last name or URL of a page, sealed by the shared codec (pages.py), so a
token SQS never issued (or one from another listing) is refused instead of serving a page from it."""

from __future__ import annotations

from onceflow import pages
from onceflow.errors import ServiceError
from onceflow.sqs.errors import invalid_value


def refused_token() -> ServiceError:
    # "Invalid or expired next token." as an InvalidParameterValue: UNCONFIRMED against a recording
    # (see tests/service/test_paging_tokens_s16.py)
    return invalid_value("Invalid or expired next token.")


def token_after(last: str, listing: str) -> str:
    return pages.encode(last, listing)


def after(token: str | None, listing: str) -> str:
    """The name or URL a `listing` page goes on after ("" without a token)."""
    if not token:
        return ""
    last = pages.decode(token, refused_token, listing)
    if not isinstance(last, str):
        raise refused_token()
    return last
