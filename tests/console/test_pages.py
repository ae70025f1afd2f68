"""Every console page over HTTP against the real server, after the seed system's executions."""

from __future__ import annotations

import http.client
import json
import re
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlparse

from console_seed import Lab, Page


def cells(text: str, css_class: str) -> list[str]:
    return re.findall(rf'<tr class="{css_class}">', text)


def node_class(text: str, state: str) -> str:
    found = re.search(rf'<g class="([^"]*)" data-state="{re.escape(state)}">', text)
    assert found, f"no graph node for {state}"
    return found.group(1)


def execution(page: Callable[[str], Page], lab: Lab, name: str, suffix: str = "") -> Page:
    got = page(f"/states/{lab.machine}/executions/{name}{suffix}")
    assert got.status == 200, got.text[:500]
    return got


def test_overview_counts_resources(page: Callable[[str], Page], seeded: dict[str, Lab]) -> None:
    got = page("/")
    assert got.status == 200 and "text/html" in got.headers["content-type"]
    for title in ("State machines", "DynamoDB tables", "Lambda functions", "IAM roles", "Log groups"):
        assert title in got.text
    assert "not available" not in got.text
    lab = seeded["idempotency"]
    for name in ("after-write-order", "repeated-order", "different-order"):
        assert f'href="/states/{lab.machine}/executions/{name}"' in got.text  # the recent executions


def test_state_machines_list_and_detail(page: Callable[[str], Page], seeded: dict[str, Lab]) -> None:
    idem, retry = seeded["idempotency"], seeded["retry"]
    listing = page("/states").text
    assert f'href="/states/{idem.machine}"' in listing and f'href="/states/{retry.machine}"' in listing
    got = page(f"/states/{retry.machine}")
    assert got.status == 200
    for state in ("CheckQuantity", "StoreOrder", "ReadSummary", "Rejected"):
        assert node_class(got.text, state) == "node"
    assert "Retry TransientOrderError ×2" in got.text and "Catch InvalidOrder" in got.text
    assert "&#34;NumericGreaterThan&#34;: 0" in got.text  # the definition's JSON, escaped
    assert "flaky-order" in got.text and "permanent-order" in got.text
    failed = page(f"/states/{retry.machine}?status=FAILED").text
    assert "permanent-order" in failed and "flaky-order" not in failed
    assert page(f"/states/{retry.machine}?status=NOPE").status == 400


def test_execution_after_write_shows_the_retry_and_each_attempts_logs(page: Callable[[str], Page],
                                                                      seeded: dict[str, Lab]) -> None:
    text = execution(page, seeded["idempotency"], "after-write-order").text
    assert node_class(text, "StoreOrder") == "node st-succeeded"
    assert "×2" in text and "2 attempts" in text
    assert node_class(text, "ReadSummary") == "node st-succeeded"
    assert node_class(text, "Rejected") == "node st-not-reached"
    assert '<tr class="ev-TaskFailed">' in text and "TransientOrderError" in text
    assert len(cells(text, "ev-TaskSucceeded")) == 2
    attempts = text.split("<h2>Task attempts</h2>", 1)[1].split("<h2>Event history", 1)[0]
    assert len(cells(attempts, "o-failed")) == 1 and len(cells(attempts, "o-succeeded")) == 2
    assert attempts.count("<details><summary>5 lines") == 3  # START, WORKFLOW, (ERROR|RESULT), END, REPORT
    assert "Result delivery failed after the write" in attempts
    # Every log event starts on its own line, even one (the [ERROR] event) that does not end in a newline.
    assert "END RequestId" in attempts and re.search(r"[^\n>]END RequestId", attempts) is None
    assert "RESULT {&#34;duplicate&#34;: true" in attempts
    assert "&#34;total_cents&#34;: 1100" in text  # the output


def test_execution_with_a_caught_failure(page: Callable[[str], Page], seeded: dict[str, Lab]) -> None:
    text = execution(page, seeded["retry"], "permanent-order").text
    assert node_class(text, "StoreOrder") == "node st-caught"
    assert node_class(text, "Rejected") == "node st-failed"
    assert node_class(text, "ReadSummary") == "node st-not-reached"
    assert '<tr class="ev-FailStateEntered">' in text and "InvalidOrder" in text and "OrderRejected" in text
    assert re.search(r'class="edge edge-catch taken"[^>]*data-src="StoreOrder" data-dst="Rejected"', text)


def test_execution_denied_before_the_worker_ran(page: Callable[[str], Page], seeded: dict[str, Lab]) -> None:
    lab = seeded["retry"]
    text = execution(page, lab, "denied-order").text
    assert node_class(text, "StoreOrder") == "node st-failed"
    assert "Lambda.AWSLambdaException" in text and "Status Code: 403" in text
    attempts = text.split("<h2>Task attempts</h2>", 1)[1].split("<h2>Event history", 1)[0]
    assert '<span class="muted">not invoked</span>' in attempts and "<details>" not in attempts
    idem = execution(page, lab, "denied-order", "/idempotency").text
    assert decisions(idem) == ["not invoked"]
    assert "<b>0</b> business writes" in idem and "<b>1</b> not invoked" in idem
    assert '<p class="empty">No item.</p>' in idem  # nothing under denied-order in the orders table
    worker = page(f"/lambda/{lab.prefix}-worker").text
    # flaky 2 + summary 1 + permanent 1; the denied call never ran
    assert re.search(r"\(4 in the latest log events of \d+ streams?\)", worker)


def test_parallel_and_map_executions_colour_their_groups(page: Callable[[str], Page], aws: Callable[..., Any],
                                                        seeded: dict[str, Lab]) -> None:
    role = aws("iam").get_role(RoleName=seeded["idempotency"].role)["Role"]["Arn"]
    definition = {"StartAt": "Fan", "States": {
        "Fan": {"Type": "Parallel", "Next": "Each", "ResultPath": "$.fan", "Branches": [
            {"StartAt": "Left", "States": {"Left": {"Type": "Pass", "End": True}}},
            {"StartAt": "Right", "States": {"Right": {"Type": "Pass", "End": True}}}]},
        "Each": {"Type": "Map", "ItemsPath": "$.items", "End": True, "ItemProcessor": {
            "StartAt": "Item", "States": {
                "Item": {"Type": "Choice", "Choices": [{"Variable": "$", "NumericEquals": 2, "Next": "Two"}],
                         "Default": "Other"},
                "Two": {"Type": "Pass", "End": True}, "Other": {"Type": "Pass", "End": True}}}}}}
    name = f"nested-{seeded['idempotency'].prefix}"
    sfn = aws("stepfunctions")
    arn = sfn.create_state_machine(name=name, roleArn=role, definition=json.dumps(definition))["stateMachineArn"]
    lab = Lab("", name, arn, "")
    from console_seed import run

    assert run(aws, lab, "n1", {"items": [1, 2, 3]})["status"] == "SUCCEEDED"
    text = execution(page, lab, "n1").text
    for group in ("Fan", "Each"):
        assert re.search(rf'<g class="group st-succeeded" data-state="{group}">', text), group
    for state in ("Left", "Right", "Item", "Two", "Other"):
        assert node_class(text, state) == "node st-succeeded", state
    iterations = re.findall(r'"ev-MapIterationStarted"><td>\d+</td><td>MapIterationStarted</td><td>(\w+)</td>', text)
    assert iterations == ["Each", "Each", "Each"]


def test_a_lambda_arn_as_resource_finds_its_invocation_by_time(page: Callable[[str], Page], aws: Callable[..., Any],
                                                               seeded: dict[str, Lab]) -> None:
    from console_seed import orders

    lab, lam = seeded["idempotency"], aws("lambda")
    config = lam.get_function_configuration(FunctionName=f"{lab.prefix}-worker")  # a copy, so the lab's counts hold
    worker = lam.create_function(FunctionName=f"{lab.prefix}-direct", Runtime="python3.12", Handler="app.handler",
                                 Role=config["Role"], Code={"ZipFile": orders.worker_zip("protected")},
                                 Environment=config["Environment"])["FunctionArn"]
    lam.get_waiter("function_active_v2").wait(FunctionName=worker, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    iam = aws("iam")
    iam.put_role_policy(RoleName=lab.role, PolicyName="InvokeDirect", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunction",
                                                "Resource": worker}]}))
    role = iam.get_role(RoleName=lab.role)["Role"]["Arn"]
    definition = {"StartAt": "Summary", "States": {"Summary": {"Type": "Task", "Resource": worker, "End": True}}}
    name = f"direct-{lab.prefix}"
    arn = aws("stepfunctions").create_state_machine(name=name, roleArn=role, definition=json.dumps(definition))
    direct = Lab("", name, arn["stateMachineArn"], "")
    from console_seed import run

    assert run(aws, direct, "d1", {"stage": "summary", "id": "protected-order"})["status"] == "SUCCEEDED"
    text = execution(page, direct, "d1").text
    attempts = text.split("<h2>Task attempts</h2>", 1)[1].split("<h2>Event history", 1)[0]
    assert f'href="/lambda/{lab.prefix}-direct"' in attempts
    assert "<details><summary>5 lines" in attempts and "RESULT {&#34;completed&#34;: true" in attempts


def test_status_json_for_live_updates(page: Callable[[str], Page], seeded: dict[str, Lab]) -> None:
    got = execution(page, seeded["retry"], "flaky-order", "/status.json")
    assert got.headers["content-type"] == "application/json"
    body = json.loads(got.text)
    assert body["status"] == "SUCCEEDED" and body["lastEventId"] > 10
    assert body["states"]["StoreOrder"] == {"status": "succeeded", "attempts": 2}
    assert ["StoreOrder", "ReadSummary"] in body["transitions"]


def decisions(text: str) -> list[str]:
    return re.findall(r'<span class="decision">([^<]*)</span>', text)


def test_idempotency_views(page: Callable[[str], Page], seeded: dict[str, Lab]) -> None:
    """The effect ledger's writes per attempt: the protected worker counts its attempts in the
    attempts table (ADD: a repeated write on every retry) and writes the order once."""
    idem, retry = seeded["idempotency"], seeded["retry"]
    orders, attempts = f"{idem.prefix}-orders", f"{idem.prefix}-attempts"
    first = execution(page, idem, "after-write-order", "/idempotency").text
    assert decisions(first) == ["wrote", "repeated a write", "no business write"]
    assert "<b>3</b> task attempts" in first and "<b>3</b> business writes" in first
    assert "<b>2</b> items written" in first
    assert "<b>1</b> repeated writes" in first and "attempt 1 of StoreOrder wrote this item first" in first
    rows = first.split("<tbody>", 1)[1].split("</tbody>", 1)[0].split("<tr ")[1:]
    assert f">{orders}</a>" in rows[0] and f">{attempts}</a>" in rows[0] and f">{orders}</a>" not in rows[1]
    assert "&#34;N&#34;: &#34;1100&#34;" in first  # the item under the key, read from the orders table
    assert f'class="by-key" href="/states/{idem.machine}/keys?field=id&amp;value=protected-order"' in first
    repeated = execution(page, idem, "repeated-order", "/idempotency").text
    # Its order write was refused by the condition (no effect, no ledger row); it counted one more attempt.
    assert decisions(repeated) == ["wrote", "no business write"] and f">{orders}</a>" not in repeated.split(
        "<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert "also written by" in repeated and "after-write-order</a>" in repeated
    different = execution(page, idem, "different-order", "/idempotency").text
    assert decisions(different) == ["wrote", "no business write"]
    flaky = execution(page, retry, "flaky-order", "/idempotency").text
    assert decisions(flaky) == ["wrote", "repeated a write", "no business write"]
    by_key = page(f"/states/{idem.machine}/keys?field=id&value=protected-order")
    assert by_key.status == 200 and "2 of 3 executions carry it" in by_key.text
    assert "<b>5</b> task attempts" in by_key.text and "<b>4</b> business writes" in by_key.text


def test_dynamodb_pages_with_paging_query_and_item_json(page: Callable[[str], Page], seeded: dict[str, Lab]) -> None:
    table = f"{seeded['idempotency'].prefix}-orders"
    assert f'href="/dynamodb/{table}"' in page("/dynamodb").text
    full = page(f"/dynamodb/{table}").text
    assert "protected-order" in full and "different-order" in full and ">1100<" in full and ">350<" in full
    first = page(f"/dynamodb/{table}?limit=1").text
    token = re.search(r'class="next" href="[^"]*start=([A-Za-z0-9_-]+)', first)
    assert token, "a first page of one item links to the next"
    second = page(f"/dynamodb/{table}?limit=1&start={token.group(1)}").text
    shown = {name for name in ("protected-order", "different-order") if f">{name}<" in first + second}
    assert shown == {"protected-order", "different-order"}
    query = page(f"/dynamodb/{table}?pk=protected-order").text
    assert ">protected-order<" in query and ">different-order<" not in query
    link = re.search(r'href="(/dynamodb/[^"]+/item\?key=[^"]+)"', query)
    assert link
    item = page(link.group(1).replace("&amp;", "&"))
    assert item.status == 200 and "&#34;1100&#34;" in item.text
    assert page(f"/dynamodb/{table}?start=!!!").status == 400
    assert page(f"/dynamodb/{table}?limit=0").status == 400
    assert page(f"/dynamodb/{table}/item?key=eyJpZCI6eyJTIjoibm9wZSJ9fQ").status == 404


def test_lambda_pages(page: Callable[[str], Page], aws: Callable[..., Any], seeded: dict[str, Lab]) -> None:
    worker = f"{seeded['idempotency'].prefix}-worker"
    assert f'href="/lambda/{worker}"' in page("/lambda").text
    got = page(f"/lambda/{worker}")
    sha = aws("lambda").get_function_configuration(FunctionName=worker)["CodeSha256"]
    assert got.status == 200 and sha in got.text
    # the idempotency lab's seven worker invocations
    assert re.search(r"\(7 in the latest log events of \d+ streams?\)", got.text)
    assert len(re.findall(r"<td>\d+(?:\.\d+)? ms</td>", got.text)) == 14  # duration and billed, per invocation
    assert len(cells(got.text, "o-error")) == 1 and "TransientOrderError" in got.text


def test_iam_pages(page: Callable[[str], Page], aws: Callable[..., Any], seeded: dict[str, Lab]) -> None:
    lab = seeded["idempotency"]
    iam = aws("iam")
    doc = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "states:DescribeExecution",
                                                   "Resource": "*"}]}
    managed = iam.create_policy(PolicyName=f"{lab.prefix}-read", PolicyDocument=json.dumps(doc))["Policy"]["Arn"]
    iam.attach_role_policy(RoleName=lab.role, PolicyArn=managed)
    assert f'href="/iam/roles/{lab.role}"' in page("/iam").text
    role = page(f"/iam/roles/{lab.role}").text
    assert "states.amazonaws.com" in role and "InvokeWorker" in role and "lambda:InvokeFunction" in role
    assert f'href="/states/{lab.machine}"' in role
    assert managed in role and "states:DescribeExecution" in role  # the attached policy and its document
    worker_role = page(f"/iam/roles/{lab.prefix}-worker-role").text
    assert "lambda.amazonaws.com" in worker_role and f'href="/lambda/{lab.prefix}-worker"' in worker_role
    assert "dynamodb:PutItem" in worker_role


def test_logs_pages_with_the_filter_box(page: Callable[[str], Page], seeded: dict[str, Lab]) -> None:
    group = f"/aws/lambda/{seeded['idempotency'].prefix}-worker"
    assert group in page("/logs").text
    got = page(f"/logs/group?name={quote(group, safe='')}")
    assert got.status == 200 and got.text.count("START RequestId") == 7
    filtered = page(f"/logs/group?name={quote(group, safe='')}&filter=RESULT").text
    assert filtered.count("<pre class=\"log\">RESULT ") == 6 and "START RequestId" not in filtered
    stream = re.search(r'href="(/logs/stream\?[^"]+)"', got.text)
    assert stream
    lines = page(stream.group(1).replace("&amp;", "&"))
    assert lines.status == 200 and "REPORT RequestId" in lines.text


def test_missing_resources_are_404_pages(page: Callable[[str], Page], seeded: dict[str, Lab]) -> None:
    lab = seeded["idempotency"]
    for path in ("/states/no-such-machine", f"/states/{lab.machine}/executions/no-such-execution",
                 f"/states/{lab.machine}/executions/no-such-execution/idempotency", "/dynamodb/no-such-table",
                 "/lambda/no-such-function", "/iam/roles/no-such-role", "/logs/group?name=/no/such/group",
                 "/logs/stream?group=/no/such&stream=x", "/no/such/page", "/static/nope.js"):
        got = page(path)
        assert got.status == 404, path
        assert "Traceback" not in got.text and "File \"" not in got.text
    odd = page("//evil.example/x")  # a path that would be a protocol-relative URL if echoed into a link
    assert odd.status == 404 and 'action="//' not in odd.text and 'href="//' not in odd.text


def test_bad_parameters_are_400_pages(page: Callable[[str], Page], seeded: dict[str, Lab]) -> None:
    for path in ("/states?account=123", "/states?region=../../x", "/logs/group", "/logs/stream?group=x"):
        got = page(path)
        assert got.status == 400, path
        assert "Traceback" not in got.text


def test_account_and_region_selector(page: Callable[[str], Page], seeded: dict[str, Lab]) -> None:
    account = f"{uuid.uuid4().int % 10**12:012d}"  # an account no other test uses
    other = page(f"/states?account={account}&region=eu-west-1").text
    assert "No state machines in this account and region." in other
    assert f'href="/dynamodb?account={account}&amp;region=eu-west-1"' in other  # links keep the choice
    assert "No tables" in page(f"/dynamodb?account={account}").text
    assert seeded["idempotency"].machine in page("/states?region=us-east-1").text


def test_read_only_headers_and_host_check(endpoint: str, seeded: dict[str, Lab]) -> None:
    url = urlparse(endpoint)

    def ask(method: str, path: str, host: str | None = None) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        try:
            conn.request(method, path, headers={"Host": host} if host else {})
            resp = conn.getresponse()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
        finally:
            conn.close()

    status, headers, _ = ask("GET", "/states")
    csp = headers.get("content-security-policy", "")
    assert status == 200 and "script-src 'self'" in csp and "default-src 'none'" in csp
    assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
    status, _, body = ask("HEAD", "/states")
    assert status == 200 and body == b""
    status, headers, _ = ask("POST", "/states")
    assert status == 405 and headers["allow"] == "GET, HEAD"
    assert ask("GET", "/states", host="evil.example:80")[0] == 403  # a DNS-rebound page
    assert ask("GET", "/states", host=f"localhost:{url.port}")[0] == 200
    status, headers, body = ask("GET", "/static/console.css")
    assert status == 200 and headers["content-type"] == "text/css; charset=utf-8" and b"svg.graph" in body


def test_long_histories_are_shown_a_thousand_events_at_a_time(page: Callable[[str], Page], aws: Callable[..., Any],
                                                               seeded: dict[str, Lab]) -> None:
    from console_seed import LOOP, run

    role = aws("iam").get_role(RoleName=seeded["idempotency"].role)["Role"]["Arn"]
    name = f"loop-{seeded['idempotency'].prefix}"
    arn = aws("stepfunctions").create_state_machine(name=name, roleArn=role, definition=json.dumps(LOOP))
    lab = Lab("", name, arn["stateMachineArn"], "")
    done = run(aws, lab, "long", {"n": 0, "limit": 300})
    assert done["status"] == "SUCCEEDED"
    pages = aws("stepfunctions").get_paginator("get_execution_history").paginate(executionArn=done["executionArn"])
    total = sum(len(p["events"]) for p in pages)
    assert total > 1200  # four events a turn
    first = execution(page, lab, "long")
    assert f"({total} events, 1 to 1000 shown)" in first.text
    assert first.text.count("<tr class=\"ev-") == 1000
    assert len(first.text.encode()) < 500_000
    later = re.search(r'class="next" href="([^"]+)"', first.text)
    assert later and later.group(1).endswith("?from=1001")
    second = page(later.group(1))
    assert f"({total} events, 1001 to {total} shown)" in second.text
    assert second.text.count("<tr class=\"ev-") == total - 1000
    assert f'<tr class="ev-ExecutionSucceeded"><td>{total}</td>' in second.text
    assert "Earlier events" in second.text
    assert page(f"/states/{name}/executions/long?from={total + 1}").status == 400


def test_an_express_machine_page_lists_no_executions(page: Callable[[str], Page], aws: Any) -> None:
    iam = aws("iam")
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName="console-express-role", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    definition = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}
    aws("stepfunctions").create_state_machine(name="console-express", type="EXPRESS", roleArn=role,
                                              definition=json.dumps(definition))
    assert page("/").status == 200
    shown = page("/states/console-express")
    assert shown.status == 200
    assert "EXPRESS executions leave no history in Step Functions" in shown.text
    assert "/states/console-express/express/" not in shown.text
