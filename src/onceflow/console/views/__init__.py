"""The console's pages, one module per service; ROUTES maps path patterns to views."""

from __future__ import annotations

from onceflow.console.app import Handler
from onceflow.console.views import (
    cloudformation,
    ddb,
    events,
    executions,
    express,
    faults,
    home,
    iam,
    lambda_,
    logs,
    messaging,
    proofs,
    s3,
    sfn,
)

NAME = r"(?P<name>[^/]+)"

ROUTES: list[tuple[str, Handler]] = [
    (r"/", home.overview),
    (r"/states", sfn.machines),
    (rf"/states/{NAME}", sfn.machine),
    (rf"/states/{NAME}/keys", executions.business_key),
    (rf"/states/{NAME}/executions/(?P<execution>[^/]+)", executions.execution),
    (rf"/states/{NAME}/executions/(?P<execution>[^/]+)/status\.json", executions.status),
    (rf"/states/{NAME}/executions/(?P<execution>[^/]+)/idempotency", executions.idempotency_page),
    (rf"/states/{NAME}/express/(?P<execution>[^/]+)", express.execution),
    (rf"/states/{NAME}/express/(?P<execution>[^/]+)/status\.json", express.status),
    # A Distributed Map's child execution: its machine is <machine>/<label> (sfn/maprun.py)
    (rf"/states/{NAME}/(?P<label>[^/]+)/executions/(?P<execution>[^/]+)", executions.execution),
    (rf"/states/{NAME}/(?P<label>[^/]+)/executions/(?P<execution>[^/]+)/status\.json", executions.status),
    (r"/dynamodb", ddb.tables),
    (rf"/dynamodb/{NAME}", ddb.table),
    (rf"/dynamodb/{NAME}/item", ddb.item),
    (r"/lambda", lambda_.functions),
    (rf"/lambda/{NAME}", lambda_.function),
    (r"/iam", iam.roles),
    (rf"/iam/roles/{NAME}", iam.role),
    (r"/logs", logs.groups),
    (r"/logs/group", logs.group),
    (r"/logs/stream", logs.stream),
    (r"/s3", s3.buckets),
    (rf"/s3/{NAME}", s3.bucket),
    (r"/faults", faults.rules),
    (r"/events", events.rules),
    (rf"/events/rules/{NAME}", events.rule),
    (r"/sqs", messaging.queues),
    (rf"/sqs/{NAME}", messaging.queue),
    (r"/sns", messaging.topics),
    (r"/sns/topic", messaging.topic),
    (r"/cloudformation", cloudformation.stacks),
    (rf"/cloudformation/{NAME}", cloudformation.stack),
    (r"/proofs", proofs.proofs),
    (r"/proofs/(?P<proof>[^/]+)", proofs.proof),
]
