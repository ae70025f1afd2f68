"""The handler's environment, built from nothing but what Lambda sets, the role session's
credentials and the function's own variables; and which workers a version's invocations share.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from onceflow.lambda_ import config as cfg
from onceflow.lambda_ import names
from onceflow.lambda_.interpreters import Interpreters
from onceflow.lambda_.service import Resolved

if TYPE_CHECKING:
    from onceflow.ports import Ports

# The X-Ray daemon's address as Lambda gives it (no daemon listens: segments sent there are lost,
# as they are on AWS with tracing off).
_XRAY = {
    "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
    "AWS_XRAY_DAEMON_ADDRESS": "169.254.79.129:2000",
    "_AWS_XRAY_DAEMON_ADDRESS": "169.254.79.129",
    "_AWS_XRAY_DAEMON_PORT": "2000",
}



def _locale(runtime: str) -> dict[str, str]:
    """LC_CTYPE as the runtime's image sets it: the Amazon Linux 2023 Pythons (3.12 on) have it, the
    Amazon Linux 2 ones not (recorded: test_lambda_common test_introspection_invoke python3.11 without,
    python3.12 with, 2023-11; test_lambda.py python3.14 with, 2026)."""
    minor = runtime.removeprefix("python3.")
    return {"LC_CTYPE": "C.UTF-8"} if not minor.isdigit() or int(minor) >= 12 else {}


def spec_key(resolved: Resolved) -> str:
    """Workers are shared by the invocations of one version as it is configured (its RevisionId)."""
    ref = resolved.ref
    return f"{ref.account}/{ref.region}/{ref.name}/{resolved.executed_version}/{resolved.config['RevisionId']}"



def environment(
    resolved: Resolved, task_root: str, stream: str, interpreters: Interpreters, endpoint_url: str, ports: Ports
) -> dict[str, str]:
    """Lambda's defined runtime variables; nothing of the server's own environment."""
    config, ref = resolved.config, resolved.ref
    interpreter = interpreters.get(config["Runtime"]) or sys.executable
    logging_config = cfg.logging_config(config.get("LoggingConfig"), ref.name)
    env = {
        # Lambda's PATH, with the folder of the interpreter that runs the function in /var/lang/bin's place
        "PATH": f"{os.path.dirname(interpreter)}:/usr/local/bin:/usr/bin/:/bin:/opt/bin",
        "LANG": "en_US.UTF-8",
        **_locale(config["Runtime"]),
        "SHLVL": "0",  # in every runtime's recording
        "TZ": ":UTC",
        "LAMBDA_TASK_ROOT": task_root,  # the pool puts the sandbox's copy here (and in PWD)
        "PWD": task_root,
        "LAMBDA_RUNTIME_DIR": "/var/runtime",
        # Recorded for the Python runtimes (test_lambda_common introspection, python3.8 / 3.9; a 2025
        # python dump): the worker's own path is set already, so only the function's subprocesses see it.
        "PYTHONPATH": "/var/runtime",
        # Recorded (test_lambda.py test_lambda_init_environment, python3.14, 2026-02); the worker
        # names its own folders for /var/task and /opt (worker.py)
        "LD_LIBRARY_PATH": "/var/lang/lib:/lib64:/usr/lib64:/var/runtime:/var/runtime/lib:/var/task:/var/task/lib:"
                           "/opt/lib",
        # Where Lambda's runtime API listens. onceflow's runtime speaks to the server over its
        # socket instead; the variable is there for code that checks it is running in Lambda.
        "AWS_LAMBDA_RUNTIME_API": "127.0.0.1:9001",
        "_HANDLER": config["Handler"],
        "AWS_EXECUTION_ENV": f"AWS_Lambda_{config['Runtime']}",
        "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
        "AWS_LAMBDA_FUNCTION_NAME": ref.name,
        "AWS_LAMBDA_FUNCTION_VERSION": resolved.executed_version,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(config.get("MemorySize", 128)),
        "AWS_LAMBDA_LOG_GROUP_NAME": logging_config["LogGroup"],
        "AWS_LAMBDA_LOG_STREAM_NAME": stream,
        **_XRAY,
        "AWS_REGION": ref.region,
        "AWS_DEFAULT_REGION": ref.region,
        "AWS_ENDPOINT_URL": endpoint_url,
        # The server user's AWS files must not leak into the function (Lambda has none).
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }
    if logging_config["LogFormat"] == "JSON":  # what the Python runtime reads to log in JSON
        env["AWS_LAMBDA_LOG_FORMAT"] = "JSON"
        env["AWS_LAMBDA_LOG_LEVEL"] = logging_config["ApplicationLogLevel"]
    env.update(_credentials(ports, ref.account, config["Role"], names.role_session_name(ref.name)))
    env.update((config.get("Environment") or {}).get("Variables") or {})
    return env

def _credentials(ports: Ports, account: str, role_arn: str, session_name: str) -> dict[str, str]:
    sts = ports.sessions.get()
    if sts is None:
        # Until STS exists: a 12-digit key is that account's root on the wire (CONTRACTS.md).
        return {"AWS_ACCESS_KEY_ID": account, "AWS_SECRET_ACCESS_KEY": "test"}
    creds = sts.issue_role_session(account, role_arn, session_name=session_name)
    return {
        "AWS_ACCESS_KEY_ID": creds["AccessKeyId"],
        "AWS_SECRET_ACCESS_KEY": creds["SecretAccessKey"],
        "AWS_SESSION_TOKEN": creds["SessionToken"],
    }
