"""The context object a handler gets, as the Python runtime builds it (awslambdaric
lambda_context.py): ids, names, the remaining time, the client context and the identity."""

from __future__ import annotations

import os
import sys
import time
from typing import Any


class LambdaContext:
    """The context object of the Python runtime (awslambdaric lambda_context.py)."""

    def __init__(self, request_id: str, invoked_arn: str, deadline_ms: int, client_context: Any) -> None:
        env = os.environ
        self.aws_request_id = request_id
        self.log_group_name = env.get("AWS_LAMBDA_LOG_GROUP_NAME")
        self.log_stream_name = env.get("AWS_LAMBDA_LOG_STREAM_NAME")
        self.function_name = env.get("AWS_LAMBDA_FUNCTION_NAME")
        self.memory_limit_in_mb = env.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        self.function_version = env.get("AWS_LAMBDA_FUNCTION_VERSION")
        self.invoked_function_arn = invoked_arn
        self.client_context = _ClientContext(client_context) if isinstance(client_context, dict) else None
        self.identity = _CognitoIdentity()
        self.tenant_id = None
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self) -> int:
        return max(self._deadline_ms - int(time.time() * 1000), 0)

    def log(self, msg: str) -> None:
        sys.stdout.write(msg)

    def __repr__(self) -> str:
        return (
            f"LambdaContext([aws_request_id={self.aws_request_id},log_group_name={self.log_group_name},"
            f"log_stream_name={self.log_stream_name},function_name={self.function_name},"
            f"memory_limit_in_mb={self.memory_limit_in_mb},function_version={self.function_version},"
            f"invoked_function_arn={self.invoked_function_arn},client_context={self.client_context},"
            f"identity={self.identity}])"
        )


class _Fields:
    """An object whose attributes are the named fields of a dict (None when absent)."""

    fields: tuple[str, ...] = ()

    def __init__(self, values: dict[str, Any] | None) -> None:
        for name in self.fields:
            setattr(self, name, (values or {}).get(name))

    def __repr__(self) -> str:
        inner = ",".join(f"{name}={getattr(self, name)}" for name in self.fields)
        return f"{type(self).__name__.lstrip('_')}([{inner}])"


class _Client(_Fields):
    fields = ("installation_id", "app_title", "app_version_name", "app_version_code", "app_package_name")


class _ClientContext(_Fields):
    """X-Amz-Client-Context as the Python runtime presents it: custom, env and client."""

    fields = ("custom", "env", "client")

    def __init__(self, values: dict[str, Any]) -> None:
        super().__init__({k: v for k, v in values.items() if k != "w3c"})
        given: Any = getattr(self, "client", None)
        self.client: _Client | None = _Client(given) if isinstance(given, dict) else None


class _CognitoIdentity:
    cognito_identity_id = None
    cognito_identity_pool_id = None

    def __repr__(self) -> str:
        return "CognitoIdentity([cognito_identity_id=None,cognito_identity_pool_id=None])"
