"""Find and read the AWS service models botocore ships, without importing botocore.

Importing botocore's loader or model pulls in botocore.utils and with it urllib3, dateutil and its
auth code: a fifth of `onceflow serve`'s start-up (issue 23). The models themselves are plain JSON
files (`<dir>/<service>/<api-version>/service-2.json[.gz]`), so this reads them as botocore's
`Loader` does: the directories of AWS_DATA_PATH first, then ~/.aws/models, then the package's own
`data/`; the newest API version any of them has; the first directory holding that version's file;
and the `sdk` extras file (`service-2.sdk-extras.json`) merged over it.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

SERVICE = "service-2"
_EXTRAS_TYPES = ("sdk",)  # botocore's Loader.BUILTIN_EXTRAS_TYPES
_VERSION = re.compile(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", re.MULTILINE)


class ModelNotFound(LookupError):
    """No search path has a model of that type for the service (botocore: UnknownServiceError or
    DataNotFoundError)."""


@lru_cache(maxsize=1)
def botocore_dir() -> Path | None:
    """The installed botocore package's folder, found on sys.path without importing it."""
    try:
        spec = importlib.util.find_spec("botocore")
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    return Path(locations[0]) if locations else None


@lru_cache(maxsize=1)
def botocore_version() -> str:
    """botocore's version as its `__init__.py` declares it ("" when it cannot be read)."""
    folder = botocore_dir()
    try:
        text = (folder / "__init__.py").read_text() if folder is not None else ""
    except OSError:
        return ""
    found = _VERSION.search(text)
    return found.group(1) if found else ""


def search_paths(data_path: str | None) -> list[str]:
    """The folders searched, in order (botocore's `create_loader(AWS_DATA_PATH)`)."""
    paths = [os.path.expanduser(os.path.expandvars(p)) for p in data_path.split(os.pathsep)] if data_path else []
    paths.append(os.path.join(os.path.expanduser("~"), ".aws", "models"))
    folder = botocore_dir()
    if folder is not None:
        paths.append(str(folder / "data"))
    return paths


def _read(base: str) -> Any:
    """The JSON at `base` + '.json' or '.json.gz' (in that order, as botocore tries them), else None."""
    if os.path.isfile(base + ".json"):
        with open(base + ".json", "rb") as f:
            return json.loads(f.read().decode("utf-8"))
    if os.path.isfile(base + ".json.gz"):
        with gzip.open(base + ".json.gz", "rb") as f:
            return json.loads(f.read().decode("utf-8"))
    return None


def _exists(base: str) -> bool:
    return os.path.isfile(base + ".json") or os.path.isfile(base + ".json.gz")


def deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> None:
    """Merge `extra` into `base` in place: dicts key by key, anything else replaced (botocore's extras)."""
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            deep_merge(base[key], value)
        else:
            base[key] = value


class ModelFiles:
    """The model files under a list of search paths; each model is read once and then shared (read-only)."""

    def __init__(self, data_path: str | None = None) -> None:
        self.search_paths = [p for p in search_paths(data_path) if os.path.isdir(p)]
        self._loaded: dict[tuple[str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()  # two first requests read a large model once

    def api_versions(self, service: str, type_name: str = SERVICE) -> list[str]:
        """Every API version some search path has a `type_name` file for, sorted."""
        found: set[str] = set()
        for path in self.search_paths:
            folder = os.path.join(path, service)
            if not os.path.isdir(folder):
                continue
            found.update(v for v in os.listdir(folder) if _exists(os.path.join(folder, v, type_name)))
        return sorted(found)

    def _data(self, name: str) -> Any:
        """The first search path's file for `name` ('sqs/2012-11-05/service-2'), else None."""
        for path in self.search_paths:
            data = _read(os.path.join(path, name))
            if data is not None:
                return data
        return None

    def load_service_model(self, service: str, type_name: str = SERVICE) -> dict[str, Any]:
        """The newest API version's model, extras merged. Raises ModelNotFound."""
        key = (service, type_name)
        model = self._loaded.get(key)
        if model is not None:
            return model
        with self._lock:
            model = self._loaded.get(key)
            if model is None:
                model = self._load(service, type_name)
                self._loaded[key] = model
        return model

    def metadata(self, service: str) -> dict[str, Any]:
        """The `metadata` of `service`'s model; the model itself is not kept (unserved services' 501s:
        some 450 models, a few of them megabytes). Raises ModelNotFound."""
        loaded = self._loaded.get((service, SERVICE))
        metadata = (loaded if loaded is not None else self._load(service, SERVICE)).get("metadata")
        return metadata if isinstance(metadata, dict) else {}

    def _load(self, service: str, type_name: str) -> dict[str, Any]:
        if not service or "/" in service or os.sep in service or service.startswith("."):
            raise ModelNotFound(service)  # a name, never a path
        versions = self.api_versions(service, type_name)
        if not versions:
            raise ModelNotFound(service)
        base = f"{service}/{versions[-1]}/{type_name}"
        model = self._data(base)
        if not isinstance(model, dict):
            raise ModelNotFound(service)
        for extras_type in _EXTRAS_TYPES:
            extras = self._data(f"{base}.{extras_type}-extras")
            if isinstance(extras, dict) and isinstance(extras.get("merge"), dict):
                deep_merge(model, extras["merge"])
        return model


@lru_cache(maxsize=8)
def for_data_path(data_path: str | None) -> ModelFiles:
    return ModelFiles(data_path)


def default() -> ModelFiles:
    """The files as this process's AWS_DATA_PATH finds them (one shared instance per value)."""
    return for_data_path(os.environ.get("AWS_DATA_PATH"))
