"""What routing needs of every served model, cached in a file so start-up reads no model.

For each service: its protocol, its X-Amz-Target prefix, and the first path segments of its REST
operations. Computing it reads every model (most of a second); the file is keyed by botocore's
version (read from its files, not imported), the services and AWS_DATA_PATH, so a new botocore or a
new service rebuilds it.
It is plain JSON checked on read: a damaged or foreign file is rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from onceflow.awsmodels import files
from onceflow.awsmodels.model import ServiceModel

FORMAT = 1  # bump when the facts kept change


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/onceflow, else ~/.cache/onceflow."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "onceflow"


def _key(names: list[str]) -> str:
    seed = json.dumps([FORMAT, files.botocore_version(), names, os.environ.get("AWS_DATA_PATH", "")])
    return hashlib.sha256(seed.encode()).hexdigest()[:16]


def compute(loader: files.ModelFiles, names: list[str],
            first_segment: Callable[[str], str]) -> dict[str, dict[str, Any]]:
    index: dict[str, dict[str, Any]] = {}
    for name in names:
        model = ServiceModel(loader.load_service_model(name), service_name=name)
        segments: list[str] = []
        if model.protocol == "rest-json":
            uris = (model.operation_model(op).http["requestUri"] for op in model.operation_names)
            segments = sorted({first_segment(uri) for uri in uris})
        index[name] = {"protocol": model.protocol, "target_prefix": model.metadata.get("targetPrefix"),
                       "segments": segments}
    return index


def _valid(data: object, names: list[str]) -> bool:
    if not isinstance(data, dict) or set(data) != set(names):
        return False
    for facts in data.values():
        if not (isinstance(facts, dict) and isinstance(facts.get("protocol"), str)
                and isinstance(facts.get("target_prefix"), (str, type(None)))
                and isinstance(facts.get("segments"), list) and all(isinstance(s, str) for s in facts["segments"])):
            return False
    return True


def load(loader: Callable[[], files.ModelFiles], names: list[str],
         first_segment: Callable[[str], str]) -> dict[str, dict[str, Any]]:
    """The index from the cache file, else computed with `loader()` and (best effort) saved for the next start."""
    path = cache_dir() / f"spec-index-{_key(names)}.json"
    try:
        data: dict[str, dict[str, Any]] = json.loads(path.read_text())
        if _valid(data, names):
            return data
    except (OSError, ValueError):
        pass
    index = compute(loader(), names, first_segment)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole then renamed: a server starting alongside never reads half a file.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".spec-index-")
        with os.fdopen(fd, "w") as out:
            json.dump(index, out)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home: compute again next start
    return index
