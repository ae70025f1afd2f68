"""Who is calling, in which account and region: the per-call facts every handler receives."""

from __future__ import annotations

import contextvars
import uuid
from dataclasses import dataclass, field

from onceflow.awsmodels.partitions import partition

# The Step Functions task call running on this thread: (execution ARN, the task's TaskStarted event
# id), for the effect ledger (prove/ledger.py), which attributes a `dynamodb:` task's writes and a
# Lambda task's invocation to the very attempt that made them, concurrent branches and iterations
# too. Here rather than in sfn/ so that the ledger can read it without importing Step Functions.
TASK_CALL: contextvars.ContextVar[tuple[str, int] | None] = contextvars.ContextVar("sfn_task_call", default=None)


@dataclass(frozen=True)
class Principal:
    """The identity a call acts as. kind: 'root', 'user', 'assumed-role' or 'service'."""

    account: str
    kind: str = "root"
    arn: str = ""
    name: str = ""
    role_arn: str | None = None  # for assumed-role sessions: arn:aws:iam::<acct>:role/<path><name>
    session_name: str | None = None
    access_key: str | None = None
    # The unique id (AIDA..., AROA...:<session>) where authentication read it with the key, so that
    # GetCallerIdentity and each SendMessage's SenderId need no store read of their own.
    user_id: str | None = None

    @staticmethod
    def root(account: str, access_key: str | None = None) -> Principal:
        return Principal(account, "root", f"arn:aws:iam::{account}:root", "root", access_key=access_key)


@dataclass
class RequestContext:
    """One API call. `service` is the boto3 name (dynamodb, stepfunctions, lambda, iam, sts, logs)."""

    service: str
    operation: str
    account: str
    region: str
    principal: Principal
    request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    # True for calls made by onceflow itself on a principal's behalf (Step Functions tasks, internal.call).
    internal: bool = False
    source_ip: str = "127.0.0.1"
    body_bytes: int = 0  # the request body's size as received (Lambda's request limit names it)

    @property
    def partition(self) -> str:
        """The region's partition, which the ARNs this call builds name (aws-cn in cn-north-1, ...)."""
        return partition(self.region)
