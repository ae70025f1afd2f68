"""The SenderId SQS gives a message (ReceiveMessage's system attribute): the sender's unique id.

AWS (ReceiveMessage's API reference): an IAM user's id (AIDA...), a role session's role id and
session name (AROA...:<session>), the account for its root. An AWS service delivering for itself
(SNS to a subscribed queue) shows the id of that service's own principal, one per region, as
recorded messages show; a service or region not recorded gets an id of the same shape, stable for
the service and region."""

from __future__ import annotations

from typing import TYPE_CHECKING

from onceflow.aws_ids import stable_id

if TYPE_CHECKING:
    from onceflow.context import Principal
    from onceflow.sts.ports import SessionIssuer

# SNS's id in messages it delivered to queues, as seen in recorded AWS messages (by region).
SERVICE_IDS = {
    ("sns.amazonaws.com", "us-east-1"): "AIDAIT2UOQQY3AUEKVGXU",
    ("sns.amazonaws.com", "us-east-2"): "AIDAIVEA3AGEU7NF6DRAG",
    ("sns.amazonaws.com", "eu-west-1"): "AIDAISMY7JYY5F7RTT6AO",
}


def service_sender(service: str, region: str) -> str:
    """The SenderId of a message an AWS service (`sns.amazonaws.com`) sent in `region`."""
    known = SERVICE_IDS.get((service, region))
    if known is not None:
        return known
    return stable_id("AIDA", f"{service}/{region}")


def principal_sender(p: Principal, region: str, ids: SessionIssuer | None) -> str:
    """The SenderId of a message `p` sent with SendMessage (its own keys, or a role onceflow acts
    as for a service: a Lambda destination, a Step Functions task, an EventBridge target's role)."""
    if p.kind == "root":
        return p.account
    if p.kind == "service":
        return service_sender(p.arn or p.name, region)
    if ids is not None:
        return ids.unique_id(p)
    # No STS on this stack (a unit test's): the session's name is all that is known.
    return f"{p.name}:{p.session_name}" if p.session_name else p.name
