"""The pytest plugin, run as a user runs it: small test files in a pytest subprocess (pytester).

The subprocess loads the plugin through its entry point when the installed onceflow declares one,
else with `-p onceflow.testing.plugin` (a worktree not installed: PYTHONPATH points at its src).
"""

from __future__ import annotations

import importlib.metadata
import json
import socket
import tomllib
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


def plugin_args() -> list[str]:
    eps = importlib.metadata.entry_points(group="pytest11")
    if any(ep.value == "onceflow.testing.plugin" for ep in eps):
        return []
    return ["-p", "onceflow.testing.plugin"]


@pytest.fixture(autouse=True)
def _outside_xdist(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run below is a pytest session of its own: run from an xdist worker, it would inherit the
    worker's variables and take itself for one (worker usage errors are reported differently)."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", *args, timeout=240)


def test_the_entry_point_names_the_plugin() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {"onceflow": "onceflow.testing.plugin"}


def test_fixtures_point_the_session_at_the_server_and_restore_it(pytester: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_PROFILE", "someone-else")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    pytester.makeconftest("""
        import json, os
        BEFORE = {k: os.environ.get(k) for k in ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_PROFILE")}
        def pytest_unconfigure(config):
            after = {k: os.environ.get(k) for k in BEFORE}
            open("env.json", "w").write(json.dumps({"before": BEFORE, "after": after}))
    """)
    pytester.makepyfile("""
        import os, boto3
        def test_env(onceflow, onceflow_server):
            assert onceflow is onceflow_server
            assert os.environ["AWS_ENDPOINT_URL"] == onceflow.endpoint
            assert os.environ["AWS_ACCESS_KEY_ID"] == "test" == os.environ["AWS_SECRET_ACCESS_KEY"]
            assert os.environ["AWS_DISABLE_HOST_PREFIX_INJECTION"] == "true"
            assert "AWS_PROFILE" not in os.environ
            # plain boto3, configured by nothing but the environment, reaches the server
            assert boto3.client("sts").get_caller_identity()["Account"] == "000000000000"
            assert onceflow.client("dynamodb").list_tables()["TableNames"] == []
            assert onceflow.resource("dynamodb").meta.client.list_tables()["TableNames"] == []
    """)
    run(pytester).assert_outcomes(passed=1)
    env = json.loads((pytester.path / "env.json").read_text())
    assert env["before"]["AWS_PROFILE"] == "someone-else"
    assert env["after"] == env["before"]


def test_state_is_reset_between_tests_unless_the_mark_keeps_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import pytest
        def names(of):
            return of.client("dynamodb").list_tables()["TableNames"]
        def test_first(onceflow):
            onceflow.create_table("first")
            assert names(onceflow) == ["first"]
        def test_second_starts_empty(onceflow):
            assert names(onceflow) == []
            onceflow.create_table("second")
        @pytest.mark.onceflow(reset=False)
        def test_third_keeps_the_second(onceflow):
            assert names(onceflow) == ["second"]
        @pytest.mark.onceflow(reset=False)
        class TestKept:
            @pytest.mark.onceflow(reset=True)
            def test_closest_mark_wins(self, onceflow):
                assert names(onceflow) == []
                onceflow.create_table("kept")
            def test_class_mark(self, onceflow):
                assert names(onceflow) == ["kept"]
    """)
    run(pytester).assert_outcomes(passed=5)


def test_fault_rules_are_cleared_after_a_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import pytest
        from botocore.exceptions import ClientError
        def test_fault(onceflow):
            onceflow.faults.add(service="dynamodb", operation="ListTables",
                                error={"code": "ThrottlingException", "statusCode": 400})
            with pytest.raises(ClientError) as err:
                onceflow.client("dynamodb").list_tables()
            assert err.value.response["Error"]["Code"] == "ThrottlingException"
        @pytest.mark.onceflow(reset=False)  # not the reset: the fixture's teardown cleared the rule
        def test_after(onceflow):
            assert onceflow.faults.list() == []
            assert onceflow.client("dynamodb").list_tables()["TableNames"] == []
    """)
    run(pytester).assert_outcomes(passed=2)


def test_skip_time_ends_a_one_hour_wait_and_is_put_back(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import pytest
        HOUR = {"StartAt": "Hour", "States": {"Hour": {"Type": "Wait", "Seconds": 3600, "Next": "Done"},
                                              "Done": {"Type": "Pass", "Result": "after an hour", "End": True}}}
        def test_hour(onceflow):
            onceflow.deploy_state_machine("hour", HOUR)
            onceflow.skip_time()
            done = onceflow.execute("hour", {}, timeout=30)
            assert done["status"] == "SUCCEEDED"
            assert done["output"] == '"after an hour"'
        @pytest.mark.onceflow(reset=False)
        def test_put_back(onceflow):
            assert onceflow.time_state() == {"timeScale": 1.0, "skipWaits": False}
            arn = onceflow.start_execution("hour", {})
            import time; time.sleep(0.3)
            assert onceflow.client("stepfunctions").describe_execution(executionArn=arn)["status"] == "RUNNING"
            onceflow.skip_time()  # an execution already asleep wakes and goes on
            assert onceflow.wait_execution(arn, timeout=30)["status"] == "SUCCEEDED"
    """)
    run(pytester).assert_outcomes(passed=2)


def test_xdist_gives_each_worker_its_own_server(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile("""
        import os, pytest
        @pytest.mark.parametrize("n", range(6))
        def test_alone(onceflow, n):
            onceflow.create_table("shared")  # the same name in every test: one server per worker
            assert onceflow.client("dynamodb").list_tables()["TableNames"] == ["shared"]
            with open(f"seen-{n}.txt", "w") as f:
                f.write(os.environ["PYTEST_XDIST_WORKER"] + " " + onceflow.endpoint)
    """)
    data = pytester.path / "data"
    run(pytester, "-n", "2", "-p", "no:benchmark", f"--onceflow-data={data}").assert_outcomes(passed=6)
    assert sorted(p.parent.name for p in data.glob("*/onceflow.db")) == ["gw0", "gw1"]  # a store each
    seen = {tuple((pytester.path / f"seen-{n}.txt").read_text().split()) for n in range(6)}
    workers = {worker for worker, _ in seen}
    endpoints = {endpoint for _, endpoint in seen}
    assert workers == {"gw0", "gw1"}
    assert len(endpoints) == 2  # and each worker kept one server for its session


def test_one_endpoint_for_several_xdist_workers_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile("def test_any(onceflow): pass")
    result = run(pytester, "-n", "2", "-p", "no:benchmark", "--onceflow-endpoint=http://127.0.0.1:4566")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --onceflow-endpoint is one server, and every xdist worker*"])


def test_loading_the_plugin_costs_nothing_unused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import sys
        def test_plain():
            assert "onceflow.testing.api" not in sys.modules
            assert "onceflow.server" not in sys.modules
            assert "boto3" not in sys.modules
    """)
    result = run(pytester, "--help")
    result.stdout.fnmatch_lines(["*--onceflow-endpoint=URL*", "*--onceflow-data=DIR*"])
    run(pytester).assert_outcomes(passed=1)


@pytest.mark.parametrize("mark, message", [
    ('onceflow(reset="no")', "*reset takes True or False, not 'no'*"),
    ("onceflow(False)", "*takes keyword arguments only*"),
    ("onceflow(clean=True)", "*unknown option 'clean'*"),
])
def test_a_bad_mark_is_a_usage_error(pytester: pytest.Pytester, mark: str, message: str) -> None:
    pytester.makepyfile(f"""
        import pytest
        @pytest.mark.{mark}
        def test_marked(onceflow):
            pass
    """)
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: *test_marked*{message}"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_bad_mark_under_xdist_errors_its_test_with_the_message(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile("""
        import pytest
        @pytest.mark.onceflow(reset=1)
        def test_marked(onceflow):
            pass
        def test_plain():
            pass
    """)
    result = run(pytester, "-n", "2", "-p", "no:benchmark")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*test_marked: @pytest.mark.onceflow(reset=1): reset takes True or False, not 1*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_in_process_the_server_is_a_thread_of_the_session_and_behaves_the_same(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import threading
        HOUR = {"StartAt": "Hour", "States": {"Hour": {"Type": "Wait", "Seconds": 3600, "End": True}}}
        def test_first(onceflow):
            assert [t.name for t in threading.enumerate()].count("onceflow-server") == 1
            onceflow.create_table("first")
        def test_second_starts_empty_and_skips_an_hour(onceflow):
            assert onceflow.client("dynamodb").list_tables()["TableNames"] == []
            onceflow.deploy_state_machine("hour", HOUR)
            onceflow.skip_time()
            assert onceflow.execute("hour", {}, timeout=30)["status"] == "SUCCEEDED"
    """)
    result = run(pytester, "--onceflow-in-process")
    result.assert_outcomes(passed=2)
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    result = run(pytester, "--onceflow-in-process", "--onceflow-endpoint=http://127.0.0.1:4566")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --onceflow-endpoint uses a running server: --onceflow-in-process*"])


def test_an_unreachable_endpoint_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_any(onceflow): pass")
    url = f"http://127.0.0.1:{_closed_port()}"
    result = run(pytester, f"--onceflow-endpoint={url}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --onceflow-endpoint: no onceflow server answers at {url}*"])
    result = run(pytester, "--onceflow-endpoint=localhost:4566")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --onceflow-endpoint takes a URL such as http://127.0.0.1:4566*"])


def test_an_unreachable_environment_endpoint_stops_the_session(pytester: pytest.Pytester,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile("def test_any(onceflow): pass\ndef test_other(onceflow): pass")
    monkeypatch.setenv("ONCEFLOW_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*ONCEFLOW_ENDPOINT: no onceflow server answers at*"])
    assert "Traceback" not in result.stdout.str()


def test_a_port_in_use_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_any(onceflow): pass")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run(pytester, f"--onceflow-port={port}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --onceflow-port {port}: cannot listen on 127.0.0.1:{port}*"])


def test_an_existing_server_is_used_and_kept(pytester: pytest.Pytester) -> None:
    from onceflow.testing import Onceflow

    with Onceflow() as server:
        server.create_table("before")
        pytester.makepyfile("""
            def test_attached(onceflow):
                assert onceflow.client("dynamodb").list_tables()["TableNames"] == []  # reset first
                onceflow.create_table("during")
        """)
        run(pytester, f"--onceflow-endpoint={server.endpoint}").assert_outcomes(passed=1)
        # the session ended without stopping a server it did not start
        assert server.client("dynamodb").list_tables()["TableNames"] == ["during"]


def test_the_orders_example_passes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_orders=(HERE / "orders_example.py").read_text())
    result = run(pytester, "-rs", f"--onceflow-data={pytester.path / 'data'}")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 1 and not outcomes.get("failed") and not outcomes.get("errors"), \
        result.stdout.str()[-3000:]
    # all three pass where this onceflow has the prover (protected safe, starter not); else the proof
    # tests skip and say why
    assert outcomes.get("passed", 0) + outcomes.get("skipped", 0) == 3
    try:
        import onceflow.prove.proof  # noqa: F401
    except ImportError:
        result.stdout.fnmatch_lines(["SKIPPED*onceflow.prove.proof*"])
    else:
        assert outcomes["passed"] == 3
