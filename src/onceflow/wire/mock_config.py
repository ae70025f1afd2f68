"""`/_onceflow/mock-config`: Step Functions Local's mock configuration (sfn/mocks.py) at run time.

GET answers `{"mockConfig": <the configuration> | null}`. POST takes a whole configuration as its
body and replaces the loaded one (validated first: a bad one gets a 400 and changes nothing);
DELETE unloads it. Executions already started keep the test case they started with (it is stored
with them). A reset puts back the one `serve --mock-config` / $SFN_MOCK_CONFIG loaded. Changes are
answered only to the user's own tools, as reset (app.py checks it before calling here).
"""

from __future__ import annotations

import json
from typing import Any

from onceflow.stack import Stack
from onceflow.wire.request import Request, Response

PATH = "/_onceflow/mock-config"


def answer(stack: Stack, request: Request) -> Response:
    service = stack.services.get("stepfunctions")
    if service is None:
        return _json(404, {"message": "Step Functions is not served"})
    if request.method in ("GET", "HEAD"):
        return _json(200, state(service))
    if request.method == "DELETE":
        service.mock_config = None
        return _json(200, state(service))
    if request.method != "POST":
        return Response(405, b'{"message":"the mock configuration takes GET, POST or DELETE"}',
                        [("allow", "GET, POST, DELETE")])
    try:
        doc = json.loads(request.body or b"")
    except ValueError as exc:
        return _json(400, {"message": f"the body is not JSON: {exc}"})
    try:
        service.load_mock_config(doc)  # sfn/mocks.py checks the format
    except ValueError as exc:
        return _json(400, {"message": f"mock configuration: {exc}"})
    return _json(200, state(service))


def state(service: Any) -> dict[str, Any]:
    config = service.mock_config
    return {"mockConfig": config.document if config is not None else None}


def _json(status: int, body: dict[str, Any]) -> Response:
    return Response(status, json.dumps(body).encode())
