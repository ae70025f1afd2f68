"""`Onceflow`: the whole stack for one test run, with or without pytest.

    with Onceflow() as of:                      # a server in memory on a free loopback port
        arn = of.deploy_state_machine("orders", definition)
        done = of.wait_execution(of.client("stepfunctions").start_execution(stateMachineArn=arn)["executionArn"])

`Onceflow(endpoint=URL)` attaches to a server already running instead (and never stops it); `data`
is then that server's data folder, which only `prove` reads. `Onceflow(in_process=True)` runs the
server on a thread of this process instead of a child (testing/process.py says what each costs).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from onceflow.testing import deploy
from onceflow.testing.errors import OnceflowError
from onceflow.testing.faults import FaultControl
from onceflow.testing.process import ServerChild, ServerThread

KEYS = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}
# While waits are skipped a one-hour Wait ends at once; an execution still running after this
# long is stuck, not slow (wait_execution's default).
WAIT_TIMEOUT_S = 60.0
_POLL_S = 0.02


class Onceflow:
    def __init__(self, endpoint: str | None = None, *, data: str | Path | None = None, port: int = 0,
                 region: str = "us-east-1", time_scale: float = 1.0, start_timeout: float = 60.0,
                 max_attempts: int = 1, in_process: bool = False) -> None:
        if endpoint is not None and port:
            raise OnceflowError("an endpoint is attached to as it is: port is for a server of our own")
        self.region = region
        self.endpoint = endpoint.rstrip("/") if endpoint else ""
        self.data = Path(data) if data is not None else None
        self._port = port
        self._time_scale = time_scale
        self._start_timeout = start_timeout
        # One attempt by default: an injected fault reaches the test as it is, and a failing call
        # fails at once instead of after a backoff.
        self._max_attempts = max_attempts
        self._in_process = in_process
        self._child: ServerChild | ServerThread | None = None
        self._session: Any = None
        self._clients: dict[str, Any] = {}
        self._resources: dict[str, Any] = {}
        self._account: str | None = None
        self._initial_time: dict[str, Any] | None = None  # the server's time scale when we met it
        self._time_changed = False
        self.faults = FaultControl(self._request)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Onceflow:
        if self.endpoint:
            self._check_endpoint()
        elif self._child is None:
            kind = ServerThread if self._in_process else ServerChild
            self._child = kind(data=self.data, port=self._port, time_scale=self._time_scale)
            self.endpoint = self._child.start(self._start_timeout)
        if self._initial_time is None:
            try:
                self._initial_time = self.time_state()
            except OnceflowError:  # a server from before /_onceflow/time-scale: nothing to put back
                self._initial_time = {}
        return self

    def close(self) -> None:
        for client in self._clients.values():
            client.close()
        self._clients.clear()
        self._resources.clear()
        if self._child is not None:
            self._child.stop()
            self._child = None

    def __enter__(self) -> Onceflow:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @property
    def owns_server(self) -> bool:
        return self._child is not None

    def _check_endpoint(self) -> None:
        try:
            status, body = self._request("GET", "/_onceflow/health", None, timeout=5.0)
        except OnceflowError as exc:
            raise OnceflowError(f"no onceflow server answers at {self.endpoint}: {exc}") from None
        if status != 200 or not isinstance(body, dict) or body.get("status") != "running":
            raise OnceflowError(f"{self.endpoint} answers, but not as onceflow does (GET /_onceflow/health: {status})")

    # ------------------------------------------------------------------ the environment
    def environ(self) -> dict[str, str]:
        """The variables that point boto3, the AWS CLI and Lambda-style code at this server."""
        return {"AWS_ENDPOINT_URL": self.endpoint, **KEYS, "AWS_DEFAULT_REGION": self.region,
                "AWS_REGION": self.region, "AWS_DISABLE_HOST_PREFIX_INJECTION": "true"}

    def session(self) -> Any:
        if self._session is None:
            import boto3

            self._session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test",
                                                  region_name=self.region)
        return self._session

    def _config(self, **overrides: Any) -> Any:
        import botocore.config

        base = botocore.config.Config(inject_host_prefix=False, connect_timeout=10, read_timeout=120,
                                      retries={"mode": "standard", "total_max_attempts": self._max_attempts})
        return base.merge(botocore.config.Config(**overrides)) if overrides else base

    def client(self, name: str, **config: Any) -> Any:
        """A boto3 client on this server (cached per service; keyword arguments are botocore Config
        options and give a client of its own)."""
        if config:
            return self.session().client(name, endpoint_url=self.endpoint, config=self._config(**config))
        if name not in self._clients:
            self._clients[name] = self.session().client(name, endpoint_url=self.endpoint, config=self._config())
        return self._clients[name]

    def resource(self, name: str) -> Any:
        if name not in self._resources:
            self._resources[name] = self.session().resource(name, endpoint_url=self.endpoint, config=self._config())
        return self._resources[name]

    @property
    def account(self) -> str:
        if self._account is None:
            self._account = str(self.client("sts").get_caller_identity()["Account"])
        return self._account

    # ------------------------------------------------------------------ onceflow's own endpoints
    def _request(self, method: str, path: str, body: bytes | None, timeout: float = 60.0) -> tuple[int, Any]:
        if not self.endpoint:
            raise OnceflowError("the server is not started (use `with Onceflow() as of:` or of.start())")
        req = urllib.request.Request(self.endpoint + path, data=body, method=method,
                                     headers={"content-type": "application/json"} if body is not None else {})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                status, raw = resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        except (urllib.error.URLError, OSError) as exc:
            raise OnceflowError(str(getattr(exc, "reason", exc))) from None
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw.decode(errors="replace")

    def _own(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        try:
            status, answer = self._request(method, path, data)
        except OnceflowError as exc:
            raise OnceflowError(f"{method} {path} at {self.endpoint}: {exc}") from None
        if status != 200:
            message = answer.get("message") if isinstance(answer, dict) else answer
            raise OnceflowError(f"{method} {path}: {status} {message}")
        return answer

    def reset(self) -> None:
        """Every table, function, role, state machine, execution, log and fault rule gone."""
        self._own("POST", "/_onceflow/reset")

    def time_scale(self, scale: float) -> float:
        """Divide waits, retry intervals and timeouts by `scale` from now on (as `serve --time-scale`)."""
        self._time_changed = True
        return float(self._own("POST", "/_onceflow/time-scale", {"timeScale": scale})["timeScale"])

    def skip_time(self, skip: bool = True) -> None:
        """Wait states, Retry intervals and Lambda's asynchronous retry delays end at once (timeouts
        keep their length); `skip_time(False)` waits again."""
        self._time_changed = True
        self._own("POST", "/_onceflow/time-scale", {"skipWaits": skip})

    def restore_time(self) -> None:
        """The time scale and wait skipping as they were when this object met the server."""
        if self._time_changed and self._initial_time:
            self._own("POST", "/_onceflow/time-scale", self._initial_time)
            self._time_changed = False

    def time_state(self) -> dict[str, Any]:
        return dict(self._own("GET", "/_onceflow/time-scale"))

    @contextmanager
    def skipping_time(self) -> Iterator[None]:
        self.skip_time(True)
        try:
            yield
        finally:
            self.skip_time(False)

    def mock_config(self, config: str | Path | Mapping[str, Any] | None) -> dict[str, Any] | None:
        """Load a Step Functions Local mock configuration (a file or the decoded JSON) into the
        server; start executions with `start_execution(..., test_case=NAME)` to run one of its test
        cases. None unloads it; a reset puts back the one the server started with."""
        if config is None:
            return self._own("DELETE", "/_onceflow/mock-config")["mockConfig"]
        document: Mapping[str, Any]
        if isinstance(config, str | Path):
            try:
                document = json.loads(Path(config).read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise OnceflowError(f"mock configuration {config}: {exc}") from None
        else:
            document = config
        return self._own("POST", "/_onceflow/mock-config", dict(document))["mockConfig"]

    # ------------------------------------------------------------------ executions and logs
    def state_machine_arn(self, name_or_arn: str) -> str:
        if name_or_arn.startswith("arn:"):
            return name_or_arn
        return f"arn:aws:states:{self.region}:{self.account}:stateMachine:{name_or_arn}"

    def start_execution(self, state_machine: str, input: Any = None, *, name: str | None = None,
                        test_case: str | None = None) -> str:
        """`test_case` runs that test case of the loaded mock configuration (`<arn>#<test case>`)."""
        arn = self.state_machine_arn(state_machine)
        params: dict[str, Any] = {"stateMachineArn": f"{arn}#{test_case}" if test_case else arn,
                                  "input": json.dumps({} if input is None else input)}
        if name is not None:
            params["name"] = name
        return str(self.client("stepfunctions").start_execution(**params)["executionArn"])

    def execute(self, state_machine: str, input: Any = None, *, name: str | None = None,
                timeout: float = WAIT_TIMEOUT_S, test_case: str | None = None) -> dict[str, Any]:
        """Start an execution and return its finished DescribeExecution."""
        return self.wait_execution(self.start_execution(state_machine, input, name=name, test_case=test_case),
                                   timeout=timeout)

    def wait_execution(self, arn: str, timeout: float = WAIT_TIMEOUT_S) -> dict[str, Any]:
        """The DescribeExecution of `arn` once it is no longer RUNNING."""
        sfn = self.client("stepfunctions")
        deadline = time.monotonic() + timeout
        while True:
            described = sfn.describe_execution(executionArn=arn)
            if described["status"] != "RUNNING":
                described.pop("ResponseMetadata", None)
                return dict(described)
            if time.monotonic() > deadline:
                raise TimeoutError(f"execution {arn} still RUNNING after {timeout:g} s")
            time.sleep(_POLL_S)

    def history(self, arn: str) -> list[dict[str, Any]]:
        pages = self.client("stepfunctions").get_paginator("get_execution_history").paginate(executionArn=arn)
        return [event for page in pages for event in page["events"]]

    def logs(self, function_name: str, *, contains: str | None = None, timeout: float = 10.0) -> list[str]:
        """The messages a function logged (its log group /aws/lambda/NAME), oldest first. Logs are
        shipped a moment after an invocation: with `contains`, wait until a message has it."""
        deadline = time.monotonic() + timeout
        while True:
            messages = self._log_messages(f"/aws/lambda/{function_name}")
            if contains is None or any(contains in m for m in messages):
                return messages
            if time.monotonic() > deadline:
                raise TimeoutError(f"no log message of {function_name} contains {contains!r} after {timeout:g} s")
            time.sleep(_POLL_S)

    def _log_messages(self, group: str) -> list[str]:
        logs = self.client("logs")
        try:
            pages = list(logs.get_paginator("filter_log_events").paginate(logGroupName=group))
        except logs.exceptions.ResourceNotFoundException:
            return []
        events = [event for page in pages for event in page["events"]]
        events.sort(key=lambda e: (e["timestamp"], e.get("ingestionTime", 0)))
        return [e["message"] for e in events]

    # ------------------------------------------------------------------ deploy helpers
    def role(self, service: str) -> str:
        """The default role for `service` (lambda.amazonaws.com, states.amazonaws.com): trusting it,
        allowed everything; made when missing (after a reset too)."""
        iam = self.client("iam")
        name = deploy.DEFAULT_ROLES[service]
        try:
            arn = iam.get_role(RoleName=name)["Role"]["Arn"]
        except iam.exceptions.NoSuchEntityException:
            trust = json.dumps(deploy.trust(service))
            arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=trust)["Role"]["Arn"]
            iam.put_role_policy(RoleName=name, PolicyName="AllowAll", PolicyDocument=json.dumps(deploy.ALLOW_ALL))
        return str(arn)

    def deploy_function(self, name: str, handler: str = "app.handler", source: deploy.Source = "", *,
                        role: str | None = None, runtime: str = "python3.12",
                        environment: Mapping[str, str] | None = None, timeout: int = 30, memory_size: int = 128,
                        **create: Any) -> dict[str, Any]:
        """Create the function, or update its code and configuration when it exists; returns its
        configuration once it is Active. `source` is a folder, a .py or .zip file, code, or zip bytes."""
        if source in ("", b""):
            raise OnceflowError("deploy_function needs a source: a folder, a .py or .zip file, or code")
        code = deploy.package(source, handler)
        lam = self.client("lambda")
        role_arn = role or self.role("lambda.amazonaws.com")
        config: dict[str, Any] = {"Runtime": runtime, "Handler": handler, "Role": role_arn, "Timeout": timeout,
                                  "MemorySize": memory_size, "Environment": {"Variables": dict(environment or {})},
                                  **create}
        try:
            lam.create_function(FunctionName=name, Code={"ZipFile": code}, **config)
        except lam.exceptions.ResourceConflictException:
            lam.update_function_code(FunctionName=name, ZipFile=code)
            self._function_ready(name)
            lam.update_function_configuration(FunctionName=name, **config)
        return self._function_ready(name)

    def _function_ready(self, name: str, timeout: float = 60.0) -> dict[str, Any]:
        lam = self.client("lambda")
        deadline = time.monotonic() + timeout
        while True:
            config = lam.get_function_configuration(FunctionName=name)
            if config.get("State") != "Pending" and config.get("LastUpdateStatus") != "InProgress":
                config.pop("ResponseMetadata", None)
                return dict(config)
            if time.monotonic() > deadline:
                raise TimeoutError(f"function {name} not Active after {timeout:g} s")
            time.sleep(_POLL_S)

    def create_table(self, name: str, key: str = "id", sort_key: str | None = None, *,
                     types: Mapping[str, str] | None = None, **create: Any) -> dict[str, Any]:
        """An on-demand table keyed by `key` (and `sort_key`), string keys unless `types` says
        otherwise ({"n": "N"}); other keywords go to CreateTable as they are. Returns it ACTIVE."""
        types = dict(types or {})
        schema = [{"AttributeName": key, "KeyType": "HASH"}]
        if sort_key:
            schema.append({"AttributeName": sort_key, "KeyType": "RANGE"})
        params: dict[str, Any] = {
            "TableName": name, "BillingMode": "PAY_PER_REQUEST", "KeySchema": schema,
            "AttributeDefinitions": [{"AttributeName": a["AttributeName"],
                                      "AttributeType": types.get(a["AttributeName"], "S")} for a in schema],
        }
        params.update(create)
        ddb = self.client("dynamodb")
        ddb.create_table(**params)
        deadline = time.monotonic() + 60.0
        while True:
            table = ddb.describe_table(TableName=name)["Table"]
            if table["TableStatus"] == "ACTIVE" or time.monotonic() > deadline:
                return dict(table)
            time.sleep(_POLL_S)

    def deploy_state_machine(self, name: str, definition: str | Path | dict[str, Any], role: str | None = None,
                             *, type: str = "STANDARD", **create: Any) -> str:
        """Create the state machine, or update its definition when it exists; returns its ARN.
        `definition` is a dict, JSON text or a JSON file."""
        text = deploy.definition_text(definition)
        sfn = self.client("stepfunctions")
        role_arn = role or self.role("states.amazonaws.com")
        try:
            return str(sfn.create_state_machine(name=name, definition=text, roleArn=role_arn, type=type,
                                                **create)["stateMachineArn"])
        except sfn.exceptions.StateMachineAlreadyExists:
            arn = self.state_machine_arn(name)
            sfn.update_state_machine(stateMachineArn=arn, definition=text, roleArn=role_arn)
            return arn

    # ------------------------------------------------------------------ proofs
    def prove(self, state_machine: str, input: Any, **options: Any) -> Any:
        """`onceflow.prove.prove` on this server's store: its Report (`assert report.safe`). The
        prover works on a copy of the store file, so the server needs a data folder (`Onceflow(data=DIR)`,
        pytest `--onceflow-data DIR`); other keywords go to prove as they are."""
        try:
            from onceflow.prove import prove
        except ImportError as exc:
            raise OnceflowError(f"proving needs onceflow.prove, which this onceflow does not have ({exc})") from None
        if "data" not in options and "endpoint" not in options:
            if self.data is None:
                where = "the server at " + self.endpoint if not self.owns_server else "a server in memory"
                raise OnceflowError(f"prove works on a copy of the server's store, and {where} has no data folder "
                                    "here: start it with Onceflow(data=DIR) (pytest: --onceflow-data DIR)")
            options["data"] = self.data
        return prove(state_machine, input, **options)
