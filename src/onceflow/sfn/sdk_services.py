"""Which `aws-sdk:<service>` names Step Functions recognizes.

AWS names an SDK integration's service as the Java SDK v2 names its client: the model's
`serviceId` in lower case without spaces or dashes ("CloudWatch Logs" -> cloudwatchlogs, "SFN" ->
sfn, "Elastic Load Balancing v2" -> elasticloadbalancingv2), with a few exceptions the Step
Functions developer guide lists. A name that is neither is refused at CreateStateMachine with
the "resource ... is not recognized" schema message, as any unknown Task resource is
(UNCONFIRMED for aws-sdk: no AWS recording of it; the service list is botocore's, so a service
Step Functions does not offer yet but botocore knows is accepted here).
Reads only the head of each botocore model (its metadata), once. The pure core (asl/resources.py)
asks it through the check SfnService installs.
"""

from __future__ import annotations

import gzip
import os
import re
from functools import lru_cache

from onceflow.awsmodels import files

_SERVICE_ID = re.compile(rb'"serviceId"\s*:\s*"([^"]+)"')
_HEAD_BYTES = 4096  # a model's metadata comes first; serviceId sits within its first kilobyte
# [AWS] names the Step Functions guide lists that the serviceId rule does not give
_EXCEPTIONS = frozenset({"directory", "cloudwatchevents", "elasticsearch"})


def _normal(name: str) -> str:
    return re.sub(r"[\s_-]+", "", name).lower()


def _head(folder: str) -> bytes:
    versions = sorted(os.listdir(folder), reverse=True)  # api versions are dates: the newest first
    for version in versions:
        base = os.path.join(folder, version, "service-2.json")
        try:
            if os.path.isfile(base):
                with open(base, "rb") as f:
                    return f.read(_HEAD_BYTES)
            if os.path.isfile(base + ".gz"):
                with gzip.open(base + ".gz", "rb") as g:
                    return g.read(_HEAD_BYTES)
        except OSError:
            continue
    return b""


@lru_cache(maxsize=8)
def known_names(search_paths: tuple[str, ...]) -> frozenset[str] | None:
    """Every recognized service name under the model search paths (botocore's data, AWS_DATA_PATH);
    None when there are no models at all (nothing is refused)."""
    if not search_paths:
        return None
    names: set[str] = set(_EXCEPTIONS)
    for path in search_paths:
        for entry in os.scandir(path):
            if not entry.is_dir():
                continue
            names.add(_normal(entry.name))  # botocore's own name too (sts, ec2, s3, ...)
            found = _SERVICE_ID.search(_head(entry.path))
            if found:
                names.add(_normal(found.group(1).decode("utf-8", "replace")))
    return frozenset(names)


def recognized(service: str) -> bool:
    paths = tuple(files.default().search_paths)
    if service.isalnum() and any(os.path.isdir(os.path.join(path, service)) for path in paths):
        return True  # botocore's own name (dynamodb, s3, sqs, ...): no need to read the models' heads
    names = known_names(paths)
    return names is None or service in names


__all__ = ["known_names", "recognized"]
