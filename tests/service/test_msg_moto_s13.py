"""Regressions found by re-running moto 5.2.1's own suites against onceflow in session 13 (issue 19)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


def _name() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


def test_a_disabled_endpoint_refuses_before_its_json_structure_is_parsed(sns: Any) -> None:
    """moto's AWS-verified test_publish_to_disabled_platform_endpoint: "msg" published as
    MessageStructure json to a disabled endpoint gets EndpointDisabled, not the JSON parse error."""
    app = sns.create_platform_application(Name=_name(), Platform="GCM",
                                          Attributes={"PlatformCredential": "key"})["PlatformApplicationArn"]
    endpoint = sns.create_platform_endpoint(PlatformApplicationArn=app, Token=_name(),
                                            Attributes={"Enabled": "false"})["EndpointArn"]
    with pytest.raises(ClientError) as exc:
        sns.publish(Message="msg", MessageStructure="json", TargetArn=endpoint)
    err = exc.value.response["Error"]
    assert (err["Code"], err["Message"]) == ("EndpointDisabled", "Endpoint is disabled")
