"""Who is calling: the request's signature read (not yet verified), and the call's context - the
principal its verified credentials stand for (authenticate.py) and the region its scope names."""

from __future__ import annotations

from onceflow.config import Settings
from onceflow.context import Principal, RequestContext
from onceflow.wire import sigv4
from onceflow.wire.authenticate import Authenticator
from onceflow.wire.request import Request
from onceflow.wire.routing import UNSIGNED_SNS, Route
from onceflow.wire.sigv4 import Scope, Signed

Signature = Signed | sigv4.Malformed | None  # None: unsigned


def signature(request: Request) -> tuple[Signature, Scope | None]:
    """The signature and its credential scope; a malformed one still names its scope when it can
    (the scope routes the request, and the refusal comes in the right protocol)."""
    try:
        signed = sigv4.read(request.headers, request.query_string)
    except sigv4.Malformed as exc:
        return exc, sigv4.credential_scope(request.headers, request.query_string)
    return signed, signed.scope if signed else None


def context(settings: Settings, auth: Authenticator, found: Route, scope: Scope | None, signed: Signature,
            request: Request, request_id: str) -> RequestContext:
    region = scope.region if scope and scope.region else settings.default_region  # SigV4a "*": none
    if signed is None and found.spec.name == "sns" and found.operation_name in UNSIGNED_SNS:
        # A SubscribeURL visited: anyone holding the token may confirm (AWS asks for no signature).
        principal = Principal(settings.account_id, "service", "anonymous", "anonymous")
    elif signed is None and found.operation is not None and found.operation.auth_type == "none":
        # Operations the model marks unauthenticated (STS's AssumeRoleWithWebIdentity and
        # AssumeRoleWithSAML): the token in the request is the proof, checked by the service.
        principal = Principal(settings.account_id, "service", "", "anonymous")
    else:
        principal = auth.principal(request, signed, found.spec.protocol, found.spec.name)
    return RequestContext(found.spec.name, found.operation_name, principal.account, region, principal,
                          request_id=request_id, source_ip=request.client_host, body_bytes=len(request.body))
