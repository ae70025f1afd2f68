"""Which partition a region belongs to (aws, aws-cn, aws-us-gov, aws-iso-b, ...): every ARN names it.

botocore's `data/partitions.json` says which regions each partition holds (its region list, then its
regionRegex); a region no partition claims is in `aws`. Read as JSON, like the models (files.py).
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from onceflow.awsmodels.files import botocore_dir

DEFAULT = "aws"


@functools.lru_cache(maxsize=256)
def partition(region: str) -> str:
    """The partition of `region`: aws-cn for cn-*, aws-us-gov for us-gov-*, ...; else aws."""
    for entry in _partitions():
        if region in entry.get("regions", {}) or re.fullmatch(entry.get("regionRegex", "$^"), region):
            return str(entry["id"])
    return DEFAULT


@functools.cache
def _partitions() -> list[dict[str, Any]]:
    folder = botocore_dir()
    if folder is None:
        return []
    try:
        entries: list[dict[str, Any]] = json.loads((folder / "data" / "partitions.json").read_text())["partitions"]
    except (OSError, ValueError, KeyError):
        return []
    return entries
