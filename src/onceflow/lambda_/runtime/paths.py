"""The file names of a traceback as Lambda shows them: the function's code under /var/task, its
layers under /opt, the runtime's own packages under /var/runtime and the standard library and
other packages under /var/lang, whatever folder and Python they run from here."""

from __future__ import annotations

import os
import sysconfig
import traceback

# The packages the Lambda Python runtime itself ships in /var/runtime (the rest of site-packages is
# /var/lang/lib/pythonX.Y/site-packages there).
_RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3", "six.py")


def as_var_task(frames: list[traceback.FrameSummary]) -> list[traceback.FrameSummary]:
    """Name files as Lambda does (/var/task/app.py, /var/runtime/botocore/client.py,
    /var/lang/lib/python3.12/json/decoder.py), whatever folder and Python they run from here."""
    return [traceback.FrameSummary(aws_path(f.filename), f.lineno, f.name, line=f.line) for f in frames]


def aws_path(filename: str) -> str:
    root = os.environ.get("LAMBDA_TASK_ROOT", "")
    if root and filename.startswith(root + os.sep):
        return "/var/task" + filename[len(root) :]
    if OPT[0] and filename.startswith(OPT[0] + os.sep):
        return "/opt" + filename[len(OPT[0]) :]
    runtime = os.environ.get("AWS_EXECUTION_ENV", "").removeprefix("AWS_Lambda_") or "python3"
    lang = f"/var/lang/lib/{runtime}"
    for prefix, kind in _host_prefixes():
        if filename.startswith(prefix):
            rest = filename[len(prefix) :]
            if kind == "site":
                top = rest.split(os.sep, 1)[0]
                return ("/var/runtime/" if top in _RUNTIME_PACKAGES else f"{lang}/site-packages/") + rest
            return f"{lang}/{rest}"
    return filename


_PREFIXES: list[tuple[str, str]] = []
OPT: list[str] = [""]  # the folder standing for /opt in this worker (its layers), if any


def _host_prefixes() -> list[tuple[str, str]]:
    """The host's site-packages and stdlib folders (each ending in /), longest first."""
    if not _PREFIXES:
        found: dict[str, str] = {}
        paths = sysconfig.get_paths()
        for key in ("stdlib", "platstdlib"):
            if paths.get(key):
                found[os.path.realpath(paths[key]) + os.sep] = "lib"
                found[paths[key] + os.sep] = "lib"
        sites = [paths.get("purelib"), paths.get("platlib")]
        try:
            import site

            sites += [*site.getsitepackages(), site.getusersitepackages()]
        except Exception:  # a virtualenv's old site module may lack these
            pass
        for path in filter(None, sites):
            found[os.path.realpath(path) + os.sep] = "site"
            found[path + os.sep] = "site"
        _PREFIXES.extend(sorted(found.items(), key=lambda item: -len(item[0])))
    return _PREFIXES
