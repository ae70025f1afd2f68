"""Bus resource policies: who may put events on another account's bus."""

from __future__ import annotations

import json

from onceflow.events.bus_policy import allows

BUS = "arn:aws:events:us-east-1:111111111111:event-bus/shared"


def policy(*statements: dict) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def stmt(principal: object, effect: str = "Allow", action: object = "events:PutEvents", resource: object = BUS,
         **extra: object) -> dict:
    return {"Effect": effect, "Principal": principal, "Action": action, "Resource": resource, **extra}


def test_an_account_named_by_id_root_arn_or_star() -> None:
    assert allows(policy(stmt({"AWS": "arn:aws:iam::222222222222:root"})), "222222222222", BUS)
    assert allows(policy(stmt({"AWS": ["333333333333", "222222222222"]})), "222222222222", BUS)
    assert allows(policy(stmt("*")), "222222222222", BUS)
    assert not allows(policy(stmt({"AWS": "arn:aws:iam::333333333333:root"})), "222222222222", BUS)


def test_no_policy_deny_action_resource_and_conditions() -> None:
    assert not allows(None, "222222222222", BUS)
    assert not allows("{not json", "222222222222", BUS)
    assert not allows(policy(stmt("*"), stmt({"AWS": "222222222222"}, effect="Deny")), "222222222222", BUS)
    assert not allows(policy(stmt("*", action="events:PutRule")), "222222222222", BUS)
    assert allows(policy(stmt("*", action=["events:*"])), "222222222222", BUS)
    assert not allows(policy(stmt("*", resource="arn:aws:events:us-east-1:111111111111:event-bus/other")),
                      "222222222222", BUS)
    assert not allows(policy(stmt("*", Condition={"StringEquals": {"aws:PrincipalOrgID": "o-1"}})),
                      "222222222222", BUS)
