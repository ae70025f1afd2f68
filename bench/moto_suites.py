"""Run moto's own black-box suites (SQS, SNS, EventBridge by default) against onceflow in server mode.

Downloads moto's sdist from PyPI (`pip download --no-binary`), unpacks it to a temporary folder,
starts `onceflow serve --in-memory` on a free loopback port and runs moto's tests with
TEST_SERVER_MODE pointing at it, then prints passed / failed / skipped (issue 19's figure).
moto's test dependencies (pytest, freezegun, pytest-timeout, moto itself for its decorators) must
be installed; nothing of moto is copied into onceflow.

    python bench/moto_suites.py [--moto-version 5.2.1] [--suites test_sqs test_sns test_events]
                                [--source DIR]   # an already unpacked sdist instead of downloading
                                [--shim-trust-policy]  # see bench/moto_shims/moto_trust_policy.py
                                [--shim-queue-policy]  # see bench/moto_shims/moto_queue_policy.py
                                [--shim-states-role]   # see bench/moto_shims/moto_states_role.py
                                [--verbose]      # every test id with its outcome, as it runs
                                [--deps DIR]     # moto and/or test deps, `pip install --target DIR`; or --moto-path
                                [--port 5000]    # moto's stepfunctions parser tests call localhost:5000

moto's Lambda suite (`--suites test_awslambda`) needs `--shim-trust-policy`: without it its role set-up
loops forever on IAM's MalformedPolicyDocument. Its Step Functions suite (`--suites test_stepfunctions`,
`--port 5000` for the parser tests) needs `--shim-states-role` to get past the role it never creates.

moto's tests/test_events/test_events_sfn_integration.py fails at CreateStateMachine with AccessDeniedException,
as on AWS: its role (`role/unknown_sf_role`) was never created, and Step Functions answers a role it cannot
assume, missing or not trusting states.amazonaws.com, with that refusal (tests/service/test_sfn_api.py,
test_role_must_trust_step_functions). Past it the test would still fail on AWS: target Id 'n/a' breaks the
model's pattern, and it expects CreateBucket to reach a CloudTrail pattern as an 'Object Created' event.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch_sdist(version: str, into: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                    f"moto=={version}", "-d", str(into)], check=True, stdout=subprocess.DEVNULL)
    archive = next(into.glob(f"moto-{version}.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / f"moto-{version}"


def start_server(port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "onceflow", "serve", "--port", str(port), "--in-memory",
                             "--account-id", "123456789012"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/moto-api/reset", data=b"", timeout=2)
            return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("onceflow did not start")


def run_suites(source: Path, suites: list[str], port: int, shims: tuple[str, ...] = (),
               verbose: bool = False, deps: Path | None = None) -> dict[str, int]:
    env = {**os.environ, "TEST_SERVER_MODE": "true", "TEST_SERVER_MODE_ENDPOINT": f"http://127.0.0.1:{port}",
           "AWS_ACCESS_KEY_ID": "FOOBARKEY", "AWS_SECRET_ACCESS_KEY": "FOOBARSECRET", "COLUMNS": "250"}
    env.pop("PYTHONPATH", None)  # moto's tests import moto, not onceflow
    # moto's test dependencies may sit in a pip --target folder, kept out of the venv onceflow runs in
    paths = [str(deps)] if deps else []
    plugins: list[str] = []
    if shims:
        paths.append(str(ROOT / "bench" / "moto_shims"))
        plugins = [arg for shim in shims for arg in ("-p", shim)]
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    cmd = [sys.executable, "-m", "pytest", "-v" if verbose else "-q", "-p", "no:cacheprovider", "-p",
           "no:benchmark", *plugins, "--color=no", "--timeout=60", "--tb=no", "-rf", *[f"tests/{s}" for s in suites]]
    if verbose:  # stream the per-test lines too, and keep them for the summary
        proc = subprocess.Popen(cmd, cwd=source, env=env, stdout=subprocess.PIPE, text=True)
        lines = []
        for line in proc.stdout or []:
            print(line, end="", flush=True)
            lines.append(line)
        proc.wait()
        out = "".join(lines)
    else:
        out = subprocess.run(cmd, cwd=source, env=env, capture_output=True, text=True).stdout
    failed = [line for line in out.splitlines() if line.startswith("FAILED ")]
    print("\n".join(failed))
    summary = out.strip().splitlines()[-1] if out.strip() else ""
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped|error)", summary)}
    return {k: counts.get(k, 0) for k in ("passed", "failed", "skipped", "error")}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--moto-version", default="5.2.1")
    ap.add_argument("--suites", nargs="+", default=["test_sqs", "test_sns", "test_events"])
    ap.add_argument("--source", type=Path, help="an unpacked moto sdist (skips the download)")
    ap.add_argument("--shim-trust-policy", action="store_true", help="see bench/moto_shims/moto_trust_policy.py")
    ap.add_argument("--shim-queue-policy", action="store_true", help="see bench/moto_shims/moto_queue_policy.py")
    ap.add_argument("--shim-states-role", action="store_true", help="see bench/moto_shims/moto_states_role.py")
    ap.add_argument("--verbose", action="store_true", help="print every test id as it runs")
    ap.add_argument("--port", type=int, default=0, help="serve on this port (default: a free one)")
    ap.add_argument("--deps", "--moto-path", dest="deps", type=Path,
                    help="a `pip install --target` folder holding moto[server] and/or its test dependencies")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="onceflow-moto-") as tmp:
        source = args.source or fetch_sdist(args.moto_version, Path(tmp))
        port = args.port or free_port()
        server = start_server(port)
        try:
            shims = tuple(name for name, wanted in (("moto_trust_policy", args.shim_trust_policy),
                                                    ("moto_queue_policy", args.shim_queue_policy),
                                                    ("moto_states_role", args.shim_states_role)) if wanted)
            counts = run_suites(source, args.suites, port, shims, args.verbose, args.deps)
        finally:
            server.terminate()
            server.wait(10)
    print(f"moto {args.moto_version} {' '.join(args.suites)}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
