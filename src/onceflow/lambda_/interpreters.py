"""Which Python runs each Lambda runtime.

`--lambda-interpreter RUNTIME=PATH` wins (checked when the server starts: the path must run
onceflow's worker and import boto3). Otherwise the host Python when its version is the runtime's,
else the first `python3.X` on PATH that really is 3.X and can run the worker with boto3 (a pyenv shim
for a version that is not active fails the check and is passed over), else the host Python with a
warning in the server log and in each cold start's INIT_START line: the function's code then runs on
another Python than its runtime names.

The PATH search runs once per runtime, when a function of that runtime first needs it.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import onceflow

log = logging.getLogger("onceflow.lambda")

HOST_VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"
_SRC_ROOT = str(Path(onceflow.__file__).resolve().parent.parent)
# What the zygote needs: onceflow's runtime modules importable on that Python, and boto3.
_PROBE = (
    "import sys, importlib.util\n"
    "print('%d.%d' % sys.version_info[:2])\n"
    "print('boto3' if importlib.util.find_spec('boto3') else 'no-boto3', flush=True)\n"
    "import onceflow.lambda_.runtime.zygote\n"
)


@dataclass(frozen=True)
class Probe:
    version: str | None  # "3.12"; None when the interpreter did not run
    problem: str | None  # why it cannot run Lambda workers; None when it can


def probe(path: str, timeout_s: float = 30.0) -> Probe:
    """Run the interpreter at path the way the zygote will be run (same PYTHONPATH) and report."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": os.pathsep.join(p for p in (_SRC_ROOT, os.environ.get("PYTHONPATH")) if p),
        "LANG": "C.UTF-8",
    }
    try:
        done = subprocess.run([path, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=timeout_s,
                              stdin=subprocess.DEVNULL, cwd="/")
    except FileNotFoundError:
        return Probe(None, "no such file")
    except PermissionError:
        return Probe(None, "not executable")
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Probe(None, f"did not run ({exc})")
    lines = done.stdout.split()
    version = lines[0] if lines and lines[0].startswith("3.") else None
    errors = [line.strip() for line in done.stderr.splitlines() if line.strip()] or [f"exit status {done.returncode}"]
    if version is None:  # not a Python that runs (a pyenv shim of an inactive version says why first)
        return Probe(None, f"did not run: {errors[0]}")
    if lines[1:2] != ["boto3"]:
        return Probe(version, "boto3 is not installed for it (Lambda's Python runtimes include boto3)")
    if done.returncode != 0:  # the traceback's last line names the import that failed
        return Probe(version, f"cannot run onceflow's Lambda worker: {errors[-1]}")
    return Probe(version, None)


def check_explicit(pairs: tuple[tuple[str, str], ...]) -> None:
    """Raise ValueError with a one-line reason for a --lambda-interpreter that cannot run workers."""
    for runtime, path in pairs:
        result = probe(path)
        if result.problem is not None:
            raise ValueError(f"--lambda-interpreter {runtime}={path}: {result.problem}")


def runtime_version(runtime: str) -> str:
    return runtime.removeprefix("python")


class Interpreters:
    """runtime -> interpreter path (None: the host Python), resolved once per runtime."""

    def __init__(self, explicit: dict[str, str], search_path: str | None = None) -> None:
        self.explicit = dict(explicit)
        self.search_path = search_path
        self._lock = threading.Lock()
        self._chosen: dict[str, tuple[str | None, str | None]] = {}  # runtime -> (path, warning)

    def get(self, runtime: str) -> str | None:
        return self._choose(runtime)[0]

    def warning(self, runtime: str) -> str | None:
        """Why a runtime runs on the host Python although its version differs; None when it does not."""
        return self._choose(runtime)[1]

    def _choose(self, runtime: str) -> tuple[str | None, str | None]:
        with self._lock:
            if runtime not in self._chosen:
                self._chosen[runtime] = self._find(runtime)
            return self._chosen[runtime]

    def _find(self, runtime: str) -> tuple[str | None, str | None]:
        if runtime in self.explicit:
            return self.explicit[runtime], None
        version = runtime_version(runtime)
        if version == HOST_VERSION:
            return None, None
        passed_over = []
        for candidate in self._candidates(f"python{version}"):
            result = probe(candidate)
            if result.problem is None and result.version == version:
                return candidate, None
            passed_over.append(f"{candidate} ({result.problem or f'is Python {result.version}'})")
        warning = (f"no usable python{version} on PATH: {runtime} functions run on the host's Python "
                   f"{sys.version.split()[0]}; pass --lambda-interpreter {runtime}=PATH to choose one")
        log.warning("%s%s", warning, f" (passed over: {', '.join(passed_over)})" if passed_over else "")
        return None, warning

    def _candidates(self, name: str) -> list[str]:
        path = self.search_path if self.search_path is not None else os.environ.get("PATH", "")
        found = []
        for folder in path.split(os.pathsep):
            candidate = os.path.join(folder or ".", name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK) and candidate not in found:
                found.append(candidate)
        return found
