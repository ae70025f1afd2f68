"""Tags on functions and the account's settings (GetAccountSettings)."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.lambda_ import cross_account, errors
from onceflow.lambda_.store import LambdaStore

# Lambda's default quotas (docs: "Lambda quotas").
TOTAL_CODE_SIZE = 80_530_636_800
CODE_SIZE_UNZIPPED = 262_144_000
CODE_SIZE_ZIPPED = 52_428_800
MAX_TAGS = 50  # tags on one function (docs: "Using tags on Lambda functions"; recorded)


class AccountService:
    def __init__(self, store: LambdaStore, account_limit: int) -> None:
        self.store = store
        self.account_limit = account_limit

    def _tagged(self, ctx: RequestContext, resource: str) -> tuple[tuple[str, str, str], dict[str, str]]:
        ref = cross_account.parse(ctx, resource)
        tags = self.store.get_tags(ref.key)
        if tags is None:
            raise errors.function_not_found(ref.arn())
        return ref.key, tags

    def list_tags(self, ctx: RequestContext, resource: str) -> dict[str, Any]:
        return {"Tags": self._tagged(ctx, resource)[1]}

    def tag(self, ctx: RequestContext, resource: str, new: dict[str, str]) -> None:
        if cross_account.parse(ctx, resource).qualifier is not None:  # recorded, versions and $LATEST too
            raise errors.invalid(
                "Tags on function aliases and versions are not supported. Please specify a function ARN."
            )
        key, tags = self._tagged(ctx, resource)
        if not new:  # recorded
            raise errors.invalid("An error occurred and the request cannot be processed.")
        merged = {**tags, **new}
        if len(merged) > MAX_TAGS:
            raise errors.invalid("Number of tags exceeds resource tag limit.")
        with self.store.db.transaction() as conn:
            self.store.set_tags(conn, key, merged)

    def untag(self, ctx: RequestContext, resource: str, keys: list[str]) -> None:
        key, tags = self._tagged(ctx, resource)
        with self.store.db.transaction() as conn:
            self.store.set_tags(conn, key, {k: v for k, v in tags.items() if k not in keys})

    def settings(self, ctx: RequestContext) -> dict[str, Any]:
        count, code = self.store.usage(ctx.account, ctx.region)
        reserved = self.store.total_reserved(ctx.account, ctx.region)
        return {
            "AccountLimit": {
                "TotalCodeSize": TOTAL_CODE_SIZE,
                "CodeSizeUnzipped": CODE_SIZE_UNZIPPED,
                "CodeSizeZipped": CODE_SIZE_ZIPPED,
                "ConcurrentExecutions": self.account_limit,
                "UnreservedConcurrentExecutions": self.account_limit - reserved,
            },
            "AccountUsage": {"TotalCodeSize": code, "FunctionCount": count},
        }
