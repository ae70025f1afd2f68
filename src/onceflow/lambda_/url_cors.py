"""A function URL's Cors configuration applied to HTTP calls, as Lambda applies it (docs: "Cross-origin
resource sharing (CORS)" in "Creating and managing Lambda function URLs"):

- a preflight (OPTIONS with Origin and Access-Control-Request-Method) to a URL with Cors is answered
  by Lambda itself, 200 and no body, without invoking the function and before authentication (a
  browser never signs a preflight; UNCONFIRMED that AWS_IAM URLs answer it unauthenticated); with no
  Cors configured it reaches the function as any request;
- every other answer through the URL carries the CORS headers for an allowed Origin, and they take
  precedence over the same headers set by the function ("If there are conflicting headers, the
  configured CORS headers on the function URL take precedence").

An Origin the configuration does not allow gets no CORS headers (the browser then refuses the page
the answer). UNCONFIRMED: whether AWS also checks the requested method and headers against
AllowMethods / AllowHeaders in a preflight; here the configured lists are sent and the browser checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Headers = list[tuple[str, str]]


def is_preflight(method: str, headers: Mapping[str, str], cors: dict[str, Any] | None) -> bool:
    return bool(cors) and method == "OPTIONS" and "origin" in headers and "access-control-request-method" in headers


def _allowed_origin(cors: dict[str, Any], origin: str | None) -> str | None:
    """The Access-Control-Allow-Origin value for `origin`, or None when it is not allowed."""
    if not origin:
        return None
    allowed = cors.get("AllowOrigins") or []
    if origin in allowed:
        return origin
    if "*" in allowed:
        # A credentialed answer may not say "*" (the browser refuses it): the origin is echoed.
        return origin if cors.get("AllowCredentials") else "*"
    return None


def preflight(cors: dict[str, Any], origin: str | None) -> Headers:
    allowed = _allowed_origin(cors, origin)
    if allowed is None:
        return []
    out = [("access-control-allow-origin", allowed)]
    if cors.get("AllowMethods"):
        out.append(("access-control-allow-methods", ",".join(cors["AllowMethods"])))
    if cors.get("AllowHeaders"):
        out.append(("access-control-allow-headers", ",".join(cors["AllowHeaders"])))
    if cors.get("AllowCredentials"):
        out.append(("access-control-allow-credentials", "true"))
    if cors.get("MaxAge") is not None:
        out.append(("access-control-max-age", str(cors["MaxAge"])))
    out.append(("vary", "Origin"))
    return out


def response(cors: dict[str, Any] | None, origin: str | None, headers: Headers) -> Headers:
    """`headers` (the function's answer) with the configuration's CORS headers, which replace the
    function's own of the same names."""
    if not cors:
        return headers
    allowed = _allowed_origin(cors, origin)
    if allowed is None:
        return headers
    ours = [("access-control-allow-origin", allowed)]
    if cors.get("AllowCredentials"):
        ours.append(("access-control-allow-credentials", "true"))
    if cors.get("ExposeHeaders"):
        ours.append(("access-control-expose-headers", ",".join(cors["ExposeHeaders"])))
    replaced = {name for name, _ in ours}
    kept = [(k, v) for k, v in headers if k.lower() not in replaced]
    varies = any(k.lower() == "vary" and "origin" in v.lower() for k, v in kept)
    return [*kept, *ours] if varies else [*kept, *ours, ("vary", "Origin")]
