"""Every operation of every served service, fed bad input from its botocore model.

    PYTHONPATH=src python bench/sweep_bad_input.py [--kinds abcdef] [--services sqs,sns] [--url URL] [-v]
        [--live] [--accepted] [--src OTHER/src]

--live creates a resource of each kind first (a table, queue, topic, bucket, log group, state
machine, role, function...) and names it in the required members, so that bad input reaches the
code past "does not exist" (Delete* and long polls keep made-up names).

Starts `onceflow serve --in-memory` (bench/servers.py) unless --url names a running one, lists the
operations from the server's registry (onceflow.server.build_stack), and sends each, through a
botocore client with parameter validation off (raw JSON where botocore's serializer refuses):
  a  empty params
  b  every required member missing, one at a time
  c  each top-level member of the wrong type (string for int/list/map, list for string, huge int,
     negative, NaN)
  d  strings past the model's max length and below its min, values outside enums and patterns,
     numbers past max and below min, lists below min
  e  names of resources that do not exist, ARNs of the wrong partition/region/account/service
  f  10,000-character, control-character and astral strings (L: the 10,000-character one alone)
  n  (not in the default) every nested member of a fully filled input given an odd value: 10,000
     characters, empty, astral, NUL; 0, -1, the type's and the model's bounds; epoch 0 and 9999;
     empty lists, maps and structures
The cases (c)-(f) start from the operation's required members (tests/unit/wire/wire_shapegen.py)
and spoil one top-level member. It records every 5xx other than a modeled 501 NotImplemented, every
body with a trace or a Python repr, every timeout (> 10 s), every dropped connection and every
error botocore cannot parse into a code; prints a table per service and the problems found.
The standard: bad input gets AWS's error, a 4xx, and no trace (tests/wire/test_model_sweep.py runs
kinds a, b, c and L of this as a test).
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import re
import sys
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import botocore.exceptions
import botocore.parsers
from botocore.auth import S3SigV4Auth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.model import OperationModel, Shape

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "unit" / "wire"))
from wire_shapegen import value_for  # noqa: E402

SERVICES = ("cloudformation", "dynamodb", "dynamodbstreams", "events", "iam", "lambda", "logs", "s3",
            "scheduler", "sns", "sqs", "stepfunctions", "sts")
TIMEOUT_S = 10.0
# What a Python failure looks like when it leaks into an answer.
LEAK = re.compile(rb"Traceback|object at 0x|KeyError|TypeError|AttributeError|NoneType|IndexError|"
                  rb"UnboundLocalError|ZeroDivisionError|RecursionError")
LONG = "x" * 10_000
ODD_STRINGS = ("a\x00b\x07c\r\n\x1b", "a\U0001F600b\U00010348", "\ud800x")
ARN_TAIL = "thing/does-not-exist"
PLACEHOLDER = "SWEEP-URI-MEMBER"  # stands for a spoilt URI member while botocore frames the rest


@dataclass
class Outcome:
    status: int  # 0: no HTTP answer
    code: str
    problem: str | None  # None: the answer keeps the standard


@dataclass
class Tally:
    operations: int = 0
    requests: int = 0
    ok_2xx: int = 0
    client_4xx: int = 0
    not_implemented: int = 0
    unsendable: int = 0
    server_5xx: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    # 2xx answers to values the model itself rules out (kinds c and d): not a 5xx, but AWS refuses them.
    accepted: list[str] = field(default_factory=list)


def served_operations(services: tuple[str, ...]) -> dict[str, list[str]]:
    """The operations the registry serves, per service (a throwaway in-memory stack lists them)."""
    from onceflow.config import Settings
    from onceflow.server import build_stack

    stack = build_stack(Settings(in_memory=True))
    try:
        return {svc: stack.registry.operations(svc) for svc in services}
    finally:
        stack.db.close()


# ----------------------------------------------------------------------------- live resources
LIVE = "sweep-live"
# Operations that keep their made-up names under --live: they would remove the resources the
# others need (Delete*), or wait on them (long polls).
NOT_LIVE = re.compile(r"^(Delete|Remove|Purge|Deregister)|^(GetActivityTask|ReceiveMessage)$")


def live_resources(url: str) -> dict[str, dict[str, Any]]:
    """Create one resource of each kind the required members name, so that bad input reaches the
    handlers' code past "does not exist": service -> member name -> the value naming it."""
    sys.path.insert(0, str(ROOT / "tests" / "service"))
    from lambda_setup import lambda_role, zip_of
    from sfn_setup import states_role

    def aws(service: str) -> Any:
        return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                            aws_secret_access_key="test")

    ddb, sqs, sns, s3, logs, sfn, iam = (aws(s) for s in ("dynamodb", "sqs", "sns", "s3", "logs", "stepfunctions",
                                                           "iam"))
    ddb.create_table(TableName=LIVE, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST", StreamSpecification={"StreamEnabled": True,
                                                                         "StreamViewType": "NEW_IMAGE"})
    table = ddb.describe_table(TableName=LIVE)["Table"]
    queue = sqs.create_queue(QueueName=LIVE)["QueueUrl"]
    topic = sns.create_topic(Name=LIVE)["TopicArn"]
    s3.create_bucket(Bucket=LIVE)
    s3.put_object(Bucket=LIVE, Key=LIVE, Body=b"x")
    logs.create_log_group(logGroupName=LIVE)
    logs.create_log_stream(logGroupName=LIVE, logStreamName=LIVE)
    machine = sfn.create_state_machine(name=LIVE, roleArn=states_role(aws, LIVE + "-sfn"),
                                       definition='{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}')
    activity = sfn.create_activity(name=LIVE)["activityArn"]
    execution = sfn.start_execution(stateMachineArn=machine["stateMachineArn"])["executionArn"]
    role_arn = states_role(aws, LIVE)
    role = {"RoleName": role_arn.rsplit("/", 1)[-1]}
    iam.create_user(UserName=LIVE)
    iam.create_group(GroupName=LIVE)
    function = aws("lambda").create_function(FunctionName=LIVE, Runtime="python3.12", Handler="app.handler",
                                             Role=lambda_role(aws, LIVE), Code={"ZipFile": zip_of()})
    aws("events").put_rule(Name=LIVE, ScheduleExpression="rate(1 day)")
    return {
        "dynamodb": {"TableName": LIVE, "TableArn": table["TableArn"], "ResourceArn": table["TableArn"]},
        "dynamodbstreams": {"StreamArn": table["LatestStreamArn"]},
        "sqs": {"QueueUrl": queue, "QueueName": LIVE},
        "sns": {"TopicArn": topic, "ResourceArn": topic},
        "s3": {"Bucket": LIVE, "Key": LIVE},
        "logs": {"logGroupName": LIVE, "logStreamName": LIVE, "logGroupIdentifier": LIVE},
        "stepfunctions": {"stateMachineArn": machine["stateMachineArn"], "activityArn": activity,
                          "executionArn": execution, "resourceArn": machine["stateMachineArn"]},
        "iam": {"RoleName": role["RoleName"], "UserName": LIVE, "GroupName": LIVE},
        "lambda": {"FunctionName": function["FunctionName"]},
        "events": {"Name": LIVE, "Rule": LIVE, "EventBusName": "default"},
    }


# ----------------------------------------------------------------------------- cases
def wrong_types(shape: Shape) -> list[Any]:
    kind = shape.type_name
    if kind == "string":
        return [["x"], 12345]
    if kind in ("integer", "long"):
        return ["notanumber", 2 ** 70, -1, math.nan]
    if kind in ("double", "float"):
        return ["notanumber", math.nan, math.inf]
    if kind == "boolean":
        return ["yes", 7]
    if kind == "list":
        return ["x", {"a": 1}]
    if kind in ("map", "structure"):
        return ["x", ["a"]]
    if kind == "blob":
        return [123, ["a"]]
    if kind == "timestamp":
        return ["not-a-date", ["a"]]
    return []


def out_of_bounds(shape: Shape) -> list[Any]:
    md = shape.metadata
    kind = shape.type_name
    out: list[Any] = []
    if kind == "string":
        if "max" in md and md["max"] < 100_000:
            out.append("a" * (int(md["max"]) + 1))
        if md.get("min", 0) > 0:
            out.append("a" * (int(md["min"]) - 1))
        if "enum" in md:
            out.append("NOT_AN_ENUM_VALUE")
        if "pattern" in md:
            out.append("!! not matching %s !!")
    elif kind in ("integer", "long", "double", "float"):
        if "max" in md:
            out.append(md["max"] + 1)
        if "min" in md:
            out.append(md["min"] - 1)
    elif kind == "list":
        if md.get("min", 0) > 0:
            out.append([])
        if "max" in md and md["max"] <= 100:
            item = value_for(shape.member)  # type: ignore[attr-defined]
            out.append([item] * (int(md["max"]) + 1))
    return out


def missing_things(name: str, shape: Shape, signing: str) -> list[Any]:
    if shape.type_name != "string" or "enum" in shape.metadata:
        return []
    if name.lower().endswith("arn") or name.lower().endswith("arns"):
        return [f"arn:aws-cn:{signing}:us-east-1:000000000000:{ARN_TAIL}",
                f"arn:aws:{signing}:eu-nowhere-9:000000000000:{ARN_TAIL}",
                f"arn:aws:{signing}:us-east-1:123456789012:{ARN_TAIL}",
                f"arn:aws:{'sqs' if signing != 'sqs' else 'sns'}:us-east-1:000000000000:{ARN_TAIL}",
                "arn:nonsense"]
    if re.search(r"(Name|Id|Url|Key|Bucket|Identifier)$", name):
        return ["does-not-exist-sweep"]
    return []


def odd_values(shape: Shape) -> list[Any]:
    """Values the model allows (or barely refuses) that a handler may not expect."""
    kind = shape.type_name
    md = shape.metadata
    if kind == "string":
        return [] if "enum" in md else [LONG, "", "\U0001F600", "a\x00b"]
    if kind in ("integer", "long"):
        top = 2 ** 31 - 1 if kind == "integer" else 2 ** 63 - 1
        return sorted({0, -1, top, md.get("max", top), md.get("min", 0)})
    if kind in ("double", "float"):
        return [0.0, -1.0, 1e308]
    if kind == "timestamp":
        return [0, 253402300799]
    if kind == "blob":
        return [b"", b"\x00" * 10_000]
    if kind == "list":
        return [[]]
    if kind in ("map", "structure"):
        return [{}]
    return []


def leaves(shape: Shape, value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Shape]]:
    """Every member below the top level of `value` (a `shape`), with where it sits."""
    kind = shape.type_name
    if path:
        yield path, shape
    if kind == "structure" and isinstance(value, dict):
        for name, v in value.items():
            yield from leaves(shape.members[name], v, (*path, name))  # type: ignore[attr-defined]
    elif kind == "list" and isinstance(value, list) and value:
        yield from leaves(shape.member, value[0], (*path, 0))  # type: ignore[attr-defined]
    elif kind == "map" and isinstance(value, dict) and value:
        key = next(iter(value))
        yield from leaves(shape.value, value[key], (*path, key))  # type: ignore[attr-defined]


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of `value` with the member at `path` set to `new`."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, list):
        return [replaced(v, rest, new) if i == head else v for i, v in enumerate(value)]
    return {k: replaced(v, rest, new) if k == head else v for k, v in value.items()}


def nested_cases(shape: Shape, base: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], str | None]]:
    """Kind n: every member below the top level given an odd value, in the required members plus
    the one top-level member it sits in, filled (an input filled whole is refused early more often,
    before the handler's code that reads the member is reached)."""
    for name, top in shape.members.items():  # type: ignore[attr-defined]
        if top.type_name not in ("structure", "list", "map") or top.serialization.get("eventstream"):
            continue
        try:
            filled = {**base, name: value_for(top, 1)}
        except (AssertionError, re.error):
            continue
        for path, member in leaves(shape, filled):
            if len(path) < 2 or path[0] != name:
                continue  # the top level is kinds c, d and f's
            for value in odd_values(member):
                where = ".".join(map(str, path))
                yield f"n {where}={_short(value)}", replaced(filled, path, value), name


def cases(op: OperationModel, kinds: str, signing: str, live: dict[str, Any] | None = None,
          live_only: bool = False) -> Iterator[tuple[str, dict[str, Any], str | None]]:
    """(label, params, the member spoilt or left out, or None) for each bad input of `kinds` to `op`;
    `live` names existing resources by member name, `live_only` leaves out the operations it names none in."""
    shape = op.input_shape
    if "a" in kinds:
        yield "a empty", {}, None
    if shape is None:
        return
    try:
        base = value_for(shape, required_only=True)
    except (AssertionError, re.error):
        base = {}
    named = {k: v for k, v in (live or {}).items() if k in base} if not NOT_LIVE.search(op.name) else {}
    if live_only and not named:
        return  # the same calls as without --live
    base.update(named)
    if "b" in kinds:
        for name in shape.required_members:
            yield f"b no {name}", {k: v for k, v in base.items() if k != name}, name
    for name, member in shape.members.items():
        if member.serialization.get("eventstream"):
            continue
        spoilt: list[tuple[str, Any]] = []
        if "c" in kinds:
            spoilt += [("c", v) for v in wrong_types(member)]
        if "d" in kinds:
            try:
                spoilt += [("d", v) for v in out_of_bounds(member)]
            except (AssertionError, re.error):
                pass
        if "e" in kinds:
            spoilt += [("e", v) for v in missing_things(name, member, signing)]
        if "f" in kinds and member.type_name == "string":
            spoilt += [("f", v) for v in (LONG, *ODD_STRINGS)]
        elif "L" in kinds and member.type_name == "string":
            spoilt.append(("L", LONG))
        for kind, value in spoilt:
            yield f"{kind} {name}={_short(value)}", {**base, name: value}, name
    if "n" in kinds:
        yield from nested_cases(shape, base)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ----------------------------------------------------------------------------- sending
class Sender:
    """One service's client, with the last raw answer kept for the checks."""

    def __init__(self, url: str, service: str) -> None:
        self.url = url
        config = botocore.config.Config(parameter_validation=False, read_timeout=TIMEOUT_S, connect_timeout=5,
                                        retries={"total_max_attempts": 1}, inject_host_prefix=False,
                                        s3={"addressing_style": "path"})
        self.client = boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                                   aws_secret_access_key="test", config=config)
        self.model = self.client.meta.service_model
        self.methods = {api: py for py, api in self.client.meta.method_to_api_mapping.items()}
        self.last: dict[str, Any] | None = None
        self.client.meta.events.register("before-parse", self._keep)

    def _keep(self, response_dict: dict[str, Any], **_: Any) -> None:
        self.last = response_dict

    def send(self, op_name: str, params: dict[str, Any], spoilt: str | None = None,
             raw_first: bool = False) -> Outcome | None:
        """The outcome, or None where neither botocore nor the raw path could send it. `raw_first`:
        send it raw where that can be done, since botocore's serializer mends some wrong types
        itself (a string given for a list is iterated into one) and the server would never see them."""
        op = self.model.operation_model(op_name)
        if raw_first:
            outcome = self._raw(op, params, spoilt)
            if outcome is not None:
                return outcome
        call = getattr(self.client, self.methods[op_name])
        self.last = None
        started = time.monotonic()
        try:
            result = call(**params)
            for value in result.values():  # a streamed payload (Invoke, GetObject): let its connection go
                if hasattr(value, "close"):
                    value.close()
        except botocore.exceptions.ClientError as exc:
            return self._judge(exc.response, time.monotonic() - started)
        except (botocore.exceptions.ReadTimeoutError, botocore.exceptions.ConnectTimeoutError):
            return Outcome(0, "", "timeout")
        except (botocore.exceptions.EndpointConnectionError, botocore.exceptions.ConnectionClosedError) as exc:
            return Outcome(0, "", f"dropped: {type(exc).__name__}")
        except botocore.parsers.ResponseParserError as exc:
            return self._unparseable(f"botocore cannot parse: {exc}"[:200])
        except Exception:  # the client's serializer refused these params
            if self.last is not None:
                return self._unparseable("client failed on the answer")
            return self._raw(op, params, spoilt)
        elapsed = time.monotonic() - started
        return self._judge(None, elapsed)

    def _unparseable(self, why: str) -> Outcome:
        status = int(self.last["status_code"]) if self.last else 0
        body = self.last["body"] if self.last else b""
        if isinstance(body, bytes) and LEAK.search(body):
            return Outcome(status, "", "python leak in body")
        return Outcome(status, "", why)

    def _judge(self, response: dict[str, Any] | None, elapsed: float) -> Outcome:
        raw = self.last or {}
        status = int(raw.get("status_code", 0))
        body = raw.get("body") or b""
        if not isinstance(body, bytes):
            body = b""  # a streamed success (Invoke's payload): its bytes are the function's
        code = (response or {}).get("Error", {}).get("Code", "")
        if elapsed > TIMEOUT_S:
            return Outcome(status, code, "timeout")
        if LEAK.search(body):
            return Outcome(status, code, "python leak in body: " + LEAK.search(body).group().decode())  # type: ignore[union-attr]
        if status == 501:
            return Outcome(status, code, None if code == "NotImplemented" else "501 without NotImplemented")
        if status >= 500:
            return Outcome(status, code, f"{status} {code}")
        if status >= 400 and not code:
            return Outcome(status, code, "error without a code")
        return Outcome(status, code, None)

    def _raw(self, op: OperationModel, params: dict[str, Any], spoilt: str | None) -> Outcome | None:
        """Send what botocore's serializer refused ourselves: the json protocol's body as it is; for
        rest-json and query, botocore frames the other members and the spoilt one is put in as it
        is (JSON body member, query string, header or form field). None: not expressible here."""
        protocol = self.model.protocol
        headers: dict[str, str] = {}
        if protocol == "json":
            path, query = "/", ""
            body = json.dumps(params, default=str).encode()
            version = self.model.metadata.get("jsonVersion", "1.0")
            headers = {"X-Amz-Target": f"{self.model.metadata['targetPrefix']}.{op.name}",
                       "Content-Type": f"application/x-amz-json-{version}"}
        elif protocol in ("rest-json", "rest-xml", "query") and spoilt is not None and op.input_shape is not None:
            member = op.input_shape.members[spoilt]
            wire = member.serialization.get("name", spoilt)
            where = member.serialization.get("location")
            missing = spoilt not in params
            if missing and where != "uri":
                return None  # botocore sends a missing body or query member; nothing more to say raw
            value = "" if missing else params[spoilt]
            rest = {k: v for k, v in params.items() if k != spoilt}
            if where == "uri":
                rest[spoilt] = PLACEHOLDER
            try:
                framed = self.client._serializer.serialize_to_request(rest, op)
            except Exception:  # the rest of the params do not frame either
                return None
            headers = dict(framed["headers"])
            qs = dict(framed["query_string"])
            body = framed["body"] or b""
            text = value if isinstance(value, str) else json.dumps(value)
            if protocol == "query":
                body = urllib.parse.urlencode({**framed["body"], wire: text}, errors="surrogatepass").encode()
                headers["Content-Type"] = "application/x-www-form-urlencoded; charset=utf-8"
            elif where is None and protocol == "rest-json":
                doc = json.loads(body or b"{}")
                doc[wire] = value
                body = json.dumps(doc, default=str).encode()
                headers.setdefault("Content-Type", "application/json")
            elif where == "querystring":
                qs[wire] = text
            elif where == "header":
                headers[wire] = text
            elif where != "uri":
                return None
            body = body if isinstance(body, bytes) else body.encode()
            path = framed["url_path"].replace(PLACEHOLDER, urllib.parse.quote(text, safe="", errors="surrogatepass"))
            query = urllib.parse.urlencode(qs, doseq=True, errors="surrogatepass")
            if "?" in path:  # a query fixed in the model's requestUri (?find=LayerVersion)
                path, _, fixed = path.partition("?")
                query = "&".join(q for q in (fixed, query) if q)
        else:
            return None
        url = self.url + path + (f"?{query}" if query else "")
        request = AWSRequest("POST" if protocol in ("json", "query") else op.http["method"], url, data=body,
                             headers=headers)
        auth = S3SigV4Auth if protocol == "rest-xml" else SigV4Auth
        try:
            auth(Credentials("test", "test"), self.model.signing_name, "us-east-1").add_auth(request)
        except Exception:  # a header value no HTTP client can sign or send
            return None
        parts = urllib.parse.urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT_S)
        started = time.monotonic()
        try:
            conn.request(request.method, parts.path + (f"?{parts.query}" if parts.query else ""), body=body,
                         headers=dict(request.headers.items()))
            resp = conn.getresponse()
            data = resp.read()
        except TimeoutError:
            return Outcome(0, "", "timeout")
        except ValueError:
            return None  # http.client cannot put that text in a header (nor can any client)
        except OSError as exc:
            return Outcome(0, "", f"dropped: {type(exc).__name__}")
        finally:
            conn.close()
        answer = {"status_code": resp.status, "headers": {k.lower(): v for k, v in resp.getheaders()}, "body": data}
        self.last = answer
        if resp.status < 300:
            return self._judge(None, time.monotonic() - started)
        try:  # botocore's own parser: the shape clients read
            parsed = self.client._response_parser.parse(answer, op.output_shape)
        except botocore.parsers.ResponseParserError as exc:
            return self._unparseable(f"botocore cannot parse: {exc}"[:200])
        return self._judge(parsed, time.monotonic() - started)


# ----------------------------------------------------------------------------- the sweep
def sweep_service(url: str, service: str, operations: list[str], kinds: str, verbose: bool = False,
                  live: dict[str, Any] | None = None, live_only: bool = False) -> Tally:
    sender = Sender(url, service)
    modeled = set(sender.model.operation_names)
    tally = Tally()
    for op_name in operations:
        if op_name not in modeled:
            continue  # served for a newer botocore than this one
        tally.operations += 1
        op = sender.model.operation_model(op_name)
        for label, params, spoilt in cases(op, kinds, sender.model.signing_name, live, live_only):
            outcome = sender.send(op_name, params, spoilt, raw_first=label[0] == "c")
            if outcome is None:
                tally.unsendable += 1
                continue
            tally.requests += 1
            if outcome.status == 501 and outcome.problem is None:
                tally.not_implemented += 1
            elif 200 <= outcome.status < 300:
                tally.ok_2xx += 1
                if label[0] in "cd":
                    tally.accepted.append(f"{service}.{op_name} [{label}] -> {outcome.status}")
            elif 400 <= outcome.status < 500:
                tally.client_4xx += 1
            if outcome.status >= 500 and outcome.status != 501:
                tally.server_5xx[op_name] = tally.server_5xx.get(op_name, 0) + 1
            if outcome.problem is not None:
                tally.problems.append(f"{service}.{op_name} [{label}] -> {outcome.status} {outcome.code}: "
                                      f"{outcome.problem}")
                if verbose:
                    print("  " + tally.problems[-1], flush=True)
    return tally


def print_table(tallies: dict[str, Tally]) -> None:
    print(f"{'service':16} {'ops':>4} {'requests':>8} {'2xx':>5} {'4xx':>6} {'501':>4} {'unsent':>6} "
          f"{'problems':>8}  5xx by operation")
    for svc, t in tallies.items():
        by_op = ", ".join(f"{op}:{n}" for op, n in sorted(t.server_5xx.items())) or "-"
        print(f"{svc:16} {t.operations:>4} {t.requests:>8} {t.ok_2xx:>5} {t.client_4xx:>6} {t.not_implemented:>4} "
              f"{t.unsendable:>6} {len(t.problems):>8}  {by_op}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kinds", default="abcdef")
    ap.add_argument("--services", default=",".join(SERVICES))
    ap.add_argument("--url", help="a running onceflow (default: start one in memory)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--src", help="serve the onceflow in this folder (another checkout's src: a baseline)")
    ap.add_argument("--live", action="store_true", help="name existing resources in the required members")
    ap.add_argument("--accepted", action="store_true", help="also list 2xx answers to wrong types and bounds")
    args = ap.parse_args()
    services = tuple(s for s in args.services.split(",") if s)
    proc = None
    url = args.url
    if url is None:
        sys.path.insert(0, str(ROOT / "bench"))
        from servers import spawn_onceflow
        proc, url = spawn_onceflow(None, src=args.src)
    try:
        ops = served_operations(services)
        live = live_resources(url) if args.live else {}
        tallies: dict[str, Tally] = {}
        for svc in services:
            started = time.monotonic()
            tallies[svc] = sweep_service(url, svc, ops[svc], args.kinds, args.verbose, live.get(svc))
            print(f"# {svc}: {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
        print_table(tallies)
        for t in tallies.values():
            for line in t.problems + (t.accepted if args.accepted else []):
                print(line)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
