"""The console's faults page: the rules with their counts and the faults injected, escaped."""

from __future__ import annotations

import sys
import urllib.request
import uuid
from pathlib import Path

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

sys.path.insert(0, str(Path(__file__).parents[1] / "service"))
from faults_client import faults, set_rules


def test_faults_page_lists_rules_counts_and_injected_faults(endpoint: str) -> None:
    ddb = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test",
                       aws_secret_access_key="test", config=Config(retries={"total_max_attempts": 1}))
    name = f"faultpage-{uuid.uuid4().hex[:6]}"
    set_rules(endpoint, [{"service": "dynamodb", "operation": "DescribeTable", "resource": name,
                          "description": "<script>alert(1)</script>", "error": {"code": "InternalServerError"}}])
    try:
        with pytest.raises(ClientError) as err:
            ddb.describe_table(TableName=name)
        request_id = err.value.response["ResponseMetadata"]["RequestId"]
        with urllib.request.urlopen(f"{endpoint}/faults", timeout=30) as response:
            assert response.status == 200
            text = response.read().decode()
    finally:
        assert faults(endpoint, "DELETE")[0] == 200
    assert "dynamodb DescribeTable" in text and "InternalServerError" in text
    assert "<script>alert(1)</script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert f"resource={name}" in text
    assert request_id in text  # the injected fault, from the /aws/onceflow/faults log group
    assert "<td>1</td><td>1</td></tr>" in text  # matched 1, fired 1
