"""The front door: which requests onceflow answers at all, whatever they ask.

onceflow runs next to the user's browser. Two rules keep web pages out:
- Host: a request must be addressed to a loopback address, `localhost` (or `*.localhost`), the
  address the server was told to bind, or a name allowed with `--allow-host`. A DNS-rebinding
  page reaches onceflow under its own name, so it is refused before anything is routed. The API,
  onceflow's own endpoints and the console all use `host_allowed`.
- Origin: a browser says where a request comes from (`Origin`, `Sec-Fetch-Site`). An AWS call or
  a state-changing endpoint coming from a page of another origin is refused, unless the user
  allowed that origin with `--cors-origin`; CORS preflights are answered for those origins only.
- Stored content is not onceflow's own page: what S3 objects and function URLs serve is anyone's
  (an uploaded file, a handler echoing its input). A page on a content host (`<bucket>.localhost`,
  `<id>.lambda-url.<region>.localhost`) counts as another origin even when it calls its own
  host, and content served at onceflow's own origin (path-style GetObject, `/_onceflow/lambda-url/`)
  carries `CONTENT_SANDBOX`, so a browser runs it in an opaque origin (`Origin: null`).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

from onceflow.config import Settings
from onceflow.outbound import DELIVERY_HEADER
from onceflow.wire.peers import socket_owner
from onceflow.wire.request import Request

PREFLIGHT_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE"
EXPOSED = "x-amzn-requestid, x-amzn-errortype, x-amz-request-id, x-amz-id-2, x-amz-function-error, " \
          "x-amz-log-result, x-amz-executed-version, x-amz-crc32, date"


_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?")  # a DNS name, one trailing dot at most
_PORT = re.compile(r"[0-9]{0,5}")  # RFC 3986: the port may be empty
# What stored content served at onceflow's own origin carries: its scripts run, but in an origin of
# their own, so they can neither read the console nor call the API as onceflow's own pages.
CONTENT_SANDBOX = ("content-security-policy",
                   "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads")


def hostname(host: str) -> str | None:
    """The name of a Host header, without its port: '[::1]:4566' -> '::1', 'Name.:80' -> 'name';
    '' for no Host at all; None for what is no `host[:port]` ('[::1].evil.com', '127.0.0.1:1 x',
    'localhost:abc'): the front door refuses it rather than guess which part a browser meant."""
    if host.startswith("["):
        address, bracket, port = host[1:].partition("]")
        if not bracket or (port and not (port[0] == ":" and _PORT.fullmatch(port[1:]))):
            return None
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            return None
        return address.lower()
    if host.count(":") > 1:  # a bare IPv6 address, as some clients send it
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return None
        return host.lower()
    name, colon, port = host.lower().partition(":")
    if colon and not _PORT.fullmatch(port):
        return None
    if not name:
        return None if colon else ""
    return name.rstrip(".") if _NAME.fullmatch(name) else None


def _is_loopback_address(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_content_host(host: str) -> bool:
    """Whether a Host header names a host onceflow serves stored content on rather than its own
    pages: a sub-domain of localhost (S3's virtual-hosted buckets, Lambda function URLs)."""
    name = hostname(host)
    return name is not None and name.endswith(".localhost")


def is_loopback_name(name: str) -> bool:
    if name in ("localhost", "") or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class FrontDoor:
    def __init__(self, settings: Settings, is_handler_uid: Callable[[int], bool] | None = None) -> None:
        # Whether a uid is one that Lambda handlers run as (the sandbox's, as root): such a peer is
        # not the user's own tool, whatever address it calls from.
        self.is_handler_uid = is_handler_uid
        allowed = set(settings.allow_hosts)
        bound = hostname(settings.host if ":" not in settings.host else f"[{settings.host}]")
        if settings.host not in ("0.0.0.0", "::", "") and bound:
            allowed.add(bound)
        self.allowed_hosts = frozenset(allowed)
        self.cors_origins = frozenset(settings.cors_origins)
        self._hosts: dict[str, bool] = {}

    # ------------------------------------------------------------------ Host
    def host_allowed(self, host: str) -> bool:
        """A missing Host is allowed: every browser sends one, so its absence is not a web page."""
        known = self._hosts.get(host)
        if known is None:
            name = hostname(host)
            known = name is not None and (is_loopback_name(name) or name in self.allowed_hosts)
            if len(self._hosts) < 256:  # a client sends the same few Host headers; a scanner gets no cache
                self._hosts[host] = known
        return known

    @staticmethod
    def host_is_loopback(host: str) -> bool:
        name = hostname(host)
        return name is not None and is_loopback_name(name)

    # ------------------------------------------------------------------ the user's own tools
    def own_tool_refusal(self, request: Request, what: str) -> str | None:
        """Why a state-changing own endpoint (reset, fault rules) refuses this request, or None: it
        must come from this machine (a loopback client), be addressed to a loopback name (not a
        name that merely resolves here: DNS rebinding), carry no foreign Origin (a web page), and
        not come from a Lambda handler's sandbox uid."""
        if not (_is_loopback_address(request.client_host) and self.host_is_loopback(request.headers.get("host", ""))):
            return f"{what} is only answered on loopback"
        foreign = self.foreign_origin(request.headers)
        if foreign is not None:
            return f"{what} is not answered to a web page ({foreign})"
        if self.is_handler_uid is not None and request.client_port:
            owner = socket_owner(request.client_port, request.server_port)
            if owner is not None and self.is_handler_uid(owner):
                return f"{what} is not answered to Lambda handlers"
        if DELIVERY_HEADER in request.headers:
            return f"{what} is not answered to onceflow's own deliveries (SNS, API destinations, HTTP tasks)"
        return None

    # ------------------------------------------------------------------ Origin
    def foreign_origin(self, headers: dict[str, str], content: bool = False) -> str | None:
        """What gives the request away as a cross-origin browser request ('Origin: ...' or
        'Sec-Fetch-Site: ...'), or None when it comes from onceflow's own pages, an allowed
        origin or no browser at all. A page a content host serves is never onceflow's own, even
        calling its own host (an S3 object or a function URL's answer is anyone's HTML), unless
        `content`: an unsigned S3 request, a bucket's page loading the bucket's public objects."""
        origin = headers.get("origin")
        if origin is not None:
            lowered = origin.lower()
            if lowered in self.cors_origins:
                return None
            host = headers.get("host", "").lower()
            if lowered not in (f"http://{host}", f"https://{host}") or (not content and is_content_host(host)):
                return f"Origin: {origin}"
        site = headers.get("sec-fetch-site")
        if site in ("cross-site", "same-site"):
            return f"Sec-Fetch-Site: {site}"
        if site == "same-origin" and not content and is_content_host(headers.get("host", "")):  # a GET sends no Origin
            return f"Sec-Fetch-Site: {site}"
        return None

    def allowed_origin(self, headers: dict[str, str]) -> str | None:
        """The request's Origin when it is one the user allowed (its answer carries CORS headers)."""
        origin = headers.get("origin")
        if origin is not None and self.cors_origins and origin.lower() in self.cors_origins:
            return origin
        return None

    def preflight(self, headers: dict[str, str]) -> tuple[int, list[tuple[str, str]]]:
        """The answer to a CORS preflight: 204 with the CORS headers for an allowed origin, else a
        403 without them (the browser then never sends the request)."""
        origin = self.allowed_origin(headers)
        if origin is None:
            return 403, [("vary", "Origin")]
        requested = headers.get("access-control-request-headers", "")
        answer = [("access-control-allow-origin", origin), ("access-control-allow-methods", PREFLIGHT_METHODS),
                  ("access-control-max-age", "600"), ("vary", "Origin")]
        if requested:
            answer.append(("access-control-allow-headers", requested))
        return 204, answer

    @staticmethod
    def cors_headers(origin: str) -> list[tuple[str, str]]:
        return [("access-control-allow-origin", origin), ("access-control-expose-headers", EXPOSED),
                ("vary", "Origin")]


def host_message(host: str) -> str:
    return (f"onceflow only answers requests addressed to a loopback address, localhost or a name allowed with "
            f"--allow-host, not Host: {host}")


def origin_message(evidence: str) -> str:
    return (f"onceflow does not answer requests a web page of another origin sends ({evidence}); allow an "
            "origin with --cors-origin")

