"""SNS list tokens: the last ARN of a page, sealed by the shared codec so a token SNS never issued
(or one from another listing) is refused as AWS refuses it, instead of serving a page from it."""

from __future__ import annotations

from onceflow import pages
from onceflow.errors import ServiceError
from onceflow.sns.errors import invalid


def refused_token() -> ServiceError:
    # AWS: InvalidParameter "Invalid parameter: NextToken" (see tests/service/test_paging_tokens_s15.py)
    return invalid("NextToken")


def token_after(arn: str, listing: str) -> str:
    return pages.encode(arn, listing)


def arn_after(token: str | None, listing: str) -> str:
    """The ARN a `listing` page goes on after ("" without a token)."""
    if not token:
        return ""
    arn = pages.decode(token, refused_token, listing)
    if not isinstance(arn, str):
        raise refused_token()
    return arn
