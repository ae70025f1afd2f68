"""The endpoint answers onceflow's own paths and names unimplemented operations clearly."""

from __future__ import annotations

import json
import urllib.request


def test_health_reports_services_and_version(endpoint: str) -> None:
    with urllib.request.urlopen(f"{endpoint}/_onceflow/health") as resp:
        body = json.load(resp)
    assert body["status"] == "running"
    assert set(body["services"]) == {"dynamodb", "dynamodbstreams", "stepfunctions", "lambda", "iam", "sts", "logs",
                                     "sqs", "sns", "events", "scheduler", "s3", "cloudformation"}
    assert body["version"]
