"""sfn/sdk_services.py: which aws-sdk service names are recognized (botocore's name or its serviceId
as the Java SDK v2 client names it)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from onceflow.sfn.sdk_services import known_names, recognized


def model(root: Path, service: str, version: str, service_id: str, gz: bool = False) -> None:
    folder = root / service / version
    folder.mkdir(parents=True)
    text = json.dumps({"version": "2.0", "metadata": {"apiVersion": version, "serviceId": service_id},
                       "operations": {}}).encode()
    if gz:
        (folder / "service-2.json.gz").write_bytes(gzip.compress(text))
    else:
        (folder / "service-2.json").write_bytes(text)


def test_names_come_from_directories_and_service_ids(tmp_path: Path) -> None:
    model(tmp_path, "acm-pca", "2017-08-22", "ACM PCA", gz=True)
    model(tmp_path, "logs", "2014-03-28", "CloudWatch Logs")
    model(tmp_path, "elbv2", "2015-12-01", "Elastic Load Balancing v2")
    names = known_names((str(tmp_path),))
    assert names is not None
    assert {"acmpca", "cloudwatchlogs", "logs", "elbv2", "elasticloadbalancingv2"} <= names
    assert "acm-pca" not in names and "CloudWatch Logs" not in names


def test_no_models_refuse_nothing() -> None:
    assert known_names(()) is None


@pytest.mark.parametrize("service, known", [
    ("sfn", True), ("stepfunctions", True), ("eventbridge", True), ("cloudwatchlogs", True),
    ("costexplorer", True), ("dynamodb", True), ("nosuchservice", False), ("DynamoDB", False),
])
def test_with_the_installed_botocore(service: str, known: bool) -> None:
    assert recognized(service) is known
