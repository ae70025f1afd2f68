"""Provisioned concurrency keeps its workers: on a server bounded to two workers, a version's
provisioned worker is marked (AWS_LAMBDA_INITIALIZATION_TYPE), survives other functions' cold starts
and a change of $LATEST, is started again by a restart, until the config is deleted (then it is an
ordinary, evictable one)."""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

from lambda_setup import provisioning_settled

TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
APP = '''
import os
def handler(event, context):
    return {"pid": os.getpid(), "init": os.environ["AWS_LAMBDA_INITIALIZATION_TYPE"]}
'''


def code() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", APP)
    return buf.getvalue()


def ready(lam: Any, name: str, qualifier: str) -> None:
    assert provisioning_settled(lam, name, qualifier)["Status"] == "READY"


def test_provisioned_worker_is_kept(server_factory: Callable[..., Any]) -> None:
    server = server_factory(extra_args=("--lambda-max-workers", "2"))
    lam, iam = server.client("lambda"), server.client("iam")
    role = iam.create_role(RoleName=f"pc-{uuid.uuid4().hex[:8]}", AssumeRolePolicyDocument=json.dumps(TRUST))
    names = [f"pc-{i}-{uuid.uuid4().hex[:6]}" for i in range(3)]
    for name in names:
        lam.create_function(FunctionName=name, Runtime="python3.12", Role=role["Role"]["Arn"], Handler="app.handler",
                            Code={"ZipFile": code()})  # fmt: skip
    kept, *others = names

    def run(name: str, qualifier: str | None = None) -> dict[str, Any]:
        extra = {"Qualifier": qualifier} if qualifier else {}
        return dict(json.loads(lam.invoke(FunctionName=name, Payload=b"{}", **extra)["Payload"].read()))

    lam.publish_version(FunctionName=kept)
    lam.put_provisioned_concurrency_config(FunctionName=kept, Qualifier="1", ProvisionedConcurrentExecutions=1)
    ready(lam, kept, "1")  # AWS: IN_PROGRESS until warm
    first = run(kept, "1")
    assert first["init"] == "provisioned-concurrency"
    # Two other functions need both workers' places: the oldest idle worker, the provisioned one, stays.
    for name in others:
        assert run(name)["init"] == "on-demand"
    # A change of $LATEST retires $LATEST's workers, not version 1's provisioned one.
    lam.update_function_configuration(FunctionName=kept, Description="changed")
    lam.get_waiter("function_updated_v2").wait(FunctionName=kept)
    for name in others:
        run(name)
    assert run(kept, "1")["pid"] == first["pid"]

    # A restart starts the provisioned worker again before the server says it is ready.
    server.stop()
    server = server_factory(extra_args=("--lambda-max-workers", "2"))
    lam = server.client("lambda")
    restarted = run(kept, "1")
    assert restarted["init"] == "provisioned-concurrency" and restarted["pid"] != first["pid"]

    # Without the config the worker is evictable like any other.
    lam.delete_provisioned_concurrency_config(FunctionName=kept, Qualifier="1")
    for name in others:
        run(name)
    assert run(kept, "1")["pid"] != restarted["pid"]


def test_provisioned_concurrency_takes_an_idle_workers_place(server_factory: Callable[..., Any]) -> None:
    server = server_factory(extra_args=("--lambda-max-workers", "2"))
    lam, iam = server.client("lambda"), server.client("iam")
    role = iam.create_role(RoleName=f"pc-{uuid.uuid4().hex[:8]}", AssumeRolePolicyDocument=json.dumps(TRUST))
    names = [f"pc-{i}-{uuid.uuid4().hex[:6]}" for i in range(3)]
    for name in names:
        lam.create_function(FunctionName=name, Runtime="python3.12", Role=role["Role"]["Arn"], Handler="app.handler",
                            Code={"ZipFile": code()})  # fmt: skip
    kept, *others = names
    for name in others:  # both places taken by idle on-demand workers
        assert json.loads(lam.invoke(FunctionName=name, Payload=b"{}")["Payload"].read())["init"] == "on-demand"
    lam.publish_version(FunctionName=kept)
    lam.put_provisioned_concurrency_config(FunctionName=kept, Qualifier="1", ProvisionedConcurrentExecutions=1)
    ready(lam, kept, "1")  # AWS: IN_PROGRESS until warm
    first = json.loads(lam.invoke(FunctionName=kept, Qualifier="1", Payload=b"{}")["Payload"].read())
    assert first["init"] == "provisioned-concurrency"  # started ahead in an idle worker's place, not cold now


def test_provisioned_workers_follow_their_alias(server_factory: Callable[..., Any]) -> None:
    server = server_factory()
    lam, iam = server.client("lambda"), server.client("iam")
    role = iam.create_role(RoleName=f"pc-{uuid.uuid4().hex[:8]}", AssumeRolePolicyDocument=json.dumps(TRUST))
    name = f"pc-alias-{uuid.uuid4().hex[:6]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role["Role"]["Arn"], Handler="app.handler",
                        Code={"ZipFile": code()})  # fmt: skip
    lam.publish_version(FunctionName=name)
    lam.update_function_configuration(FunctionName=name, Description="second")
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)
    assert lam.publish_version(FunctionName=name)["Version"] == "2"
    lam.create_alias(FunctionName=name, Name="live", FunctionVersion="1")
    lam.put_provisioned_concurrency_config(FunctionName=name, Qualifier="live", ProvisionedConcurrentExecutions=2)
    ready(lam, name, "live")  # AWS: IN_PROGRESS until warm

    def init_of(version: str) -> str:
        answer = lam.invoke(FunctionName=name, Qualifier=version, Payload=b"{}")
        return str(json.loads(answer["Payload"].read())["init"])

    assert init_of("1") == "provisioned-concurrency"
    # Moving the alias moves its workers: version 2's are started, version 1's become ordinary ones.
    lam.update_alias(FunctionName=name, Name="live", FunctionVersion="2")
    assert init_of("2") == "provisioned-concurrency"
    # Deleting the alias deletes its config.
    lam.delete_alias(FunctionName=name, Name="live")
    lam.create_alias(FunctionName=name, Name="live", FunctionVersion="1")
    assert lam.list_provisioned_concurrency_configs(FunctionName=name)["ProvisionedConcurrencyConfigs"] == []
    # A weighted alias shares its workers between its versions: the new version 3 has one too.
    lam.update_function_configuration(FunctionName=name, Description="third")
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)
    assert lam.publish_version(FunctionName=name)["Version"] == "3"
    lam.create_alias(FunctionName=name, Name="canary", FunctionVersion="1",
                     RoutingConfig={"AdditionalVersionWeights": {"3": 0.5}})  # fmt: skip
    lam.put_provisioned_concurrency_config(FunctionName=name, Qualifier="canary", ProvisionedConcurrentExecutions=2)
    ready(lam, name, "canary")  # AWS: IN_PROGRESS until warm
    assert init_of("3") == "provisioned-concurrency"
