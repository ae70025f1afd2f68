"""REST-XML (S3): operations routed by method, path and query string from the model; members bound
to the URI, query string, headers (and `x-amz-meta-*` header maps) and an XML or blob payload, as
each member's `location` says; XML written with the model's locationName, flattened and
xmlNamespace; errors in S3's bare <Error> shape.

S3 sends several operations to one method and path (`PUT /{Bucket}/{Key+}` is PutObject,
CopyObject, UploadPart and UploadPartCopy): what tells them apart is which query keys and headers
the request carries. Every operation's route lists what it needs (the static query keys of its
requestUri, its required querystring and header members); the route that needs the most and finds
it all wins.
"""

from __future__ import annotations

import base64
import datetime as dt
import email.utils
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote
from xml.etree import ElementTree

from onceflow.errors import ServiceError
from onceflow.wire import s3_errors, safe_xml
from onceflow.wire.query import escape
from onceflow.wire.request import Response
from onceflow.wire.shapes import SerializationError, from_text, iso8601
from onceflow.wire.specs import ServiceSpec

if TYPE_CHECKING:
    from onceflow.awsmodels.model import OperationModel, Shape

NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/"
# The root element AWS names the body of outputs that have no payload member (the model leaves it out).
ROOTS = {
    "ListBuckets": "ListAllMyBucketsResult",
    "ListObjects": "ListBucketResult",
    "ListObjectsV2": "ListBucketResult",
    "ListObjectVersions": "ListVersionsResult",
    "ListParts": "ListPartsResult",
    "ListMultipartUploads": "ListMultipartUploadsResult",
    "CreateMultipartUpload": "InitiateMultipartUploadResult",
    "CompleteMultipartUpload": "CompleteMultipartUploadResult",
    "DeleteObjects": "DeleteResult",
    "GetBucketTagging": "Tagging",
    "GetObjectTagging": "Tagging",
    "GetBucketVersioning": "VersioningConfiguration",
    "GetBucketCors": "CORSConfiguration",
    "GetBucketLifecycleConfiguration": "LifecycleConfiguration",
    "GetBucketNotificationConfiguration": "NotificationConfiguration",
    "GetBucketAcl": "AccessControlPolicy",
    "GetObjectAcl": "AccessControlPolicy",
    "GetObjectAttributes": "GetObjectAttributesResponse",
    "GetBucketLocation": "LocationConstraint",
    "GetBucketAccelerateConfiguration": "AccelerateConfiguration",
    "GetBucketRequestPayment": "RequestPaymentConfiguration",
    "GetBucketWebsite": "WebsiteConfiguration",
    "GetBucketLogging": "BucketLoggingStatus",
}


# Error members S3 also sends as headers (the only thing a HEAD's 404 for a delete marker carries).
ERROR_HEADERS = {"DeleteMarker": "x-amz-delete-marker", "VersionId": "x-amz-version-id"}


class XmlInputError(Exception):
    """The XML body is not well formed or does not fit the shape (S3: MalformedXML)."""


@dataclass(frozen=True)
class XmlRoute:
    method: str
    kind: str  # "service" (/), "bucket" (/{Bucket}) or "object" (/{Bucket}/{Key+})
    static: tuple[tuple[str, str | None], ...]  # query keys of the requestUri (and their value, if fixed)
    query: tuple[str, ...]  # required querystring members' names
    headers: tuple[str, ...]  # required header members' names, lower-cased
    operation: OperationModel

    @property
    def weight(self) -> tuple[int, int, int]:
        return len(self.static), len(self.query), len(self.headers)


class Router:
    """The routes of a REST-XML service, grouped by (method, path kind) and tried heaviest first."""

    def __init__(self, spec: ServiceSpec) -> None:
        self.spec = spec
        groups: dict[tuple[str, str], list[XmlRoute]] = {}
        for op in spec.operations.values():
            if op.deprecated and op.name in ("GetBucketLifecycle", "PutBucketLifecycle", "GetBucketNotification",
                                             "PutBucketNotification"):
                continue  # their successors share the route
            route = _route_of(op)
            groups.setdefault((route.method, route.kind), []).append(route)
        for routes in groups.values():
            routes.sort(key=lambda r: r.weight, reverse=True)
        self.groups = groups

    def match(self, method: str, bucket: str | None, key: str | None, query: dict[str, list[str]],
              headers: dict[str, str]) -> OperationModel | None:
        kind = "service" if bucket is None else ("bucket" if key is None else "object")
        for route in self.groups.get((method, kind), ()):
            if all(k in query and (v is None or query[k][0] == v) for k, v in route.static) \
                    and all(k in query for k in route.query) and all(h in headers for h in route.headers):
                return route.operation
        return None


def _route_of(op: OperationModel) -> XmlRoute:
    uri = op.http["requestUri"]
    path, _, static_query = uri.partition("?")
    kind = "object" if "{Key+}" in path else ("bucket" if "{Bucket}" in path else "service")
    static = []
    for part in static_query.split("&"):
        if part:
            name, eq, value = part.partition("=")
            static.append((name, value if eq else None))
    shape = op.input_shape
    query: list[str] = []
    headers: list[str] = []
    if shape is not None:
        for name in shape.required_members:
            member = shape.members[name]
            location = member.serialization.get("location")
            wire = member.serialization.get("name", name)
            if location == "querystring":
                query.append(wire)
            elif location == "header":
                headers.append(wire.lower())
    return XmlRoute(op.http.get("method", "GET"), kind, tuple(static), tuple(query), tuple(headers), op)


def split_path(raw_path: str, host_bucket: str | None) -> tuple[str | None, str | None]:
    """(bucket, key) of a path-style or virtual-hosted-style request; the key keeps its slashes."""
    path = raw_path[1:] if raw_path.startswith("/") else raw_path
    if host_bucket is not None:
        return host_bucket, (unquote(path) if path else None)
    if not path:
        return None, None
    bucket, slash, key = path.partition("/")
    return unquote(bucket), (unquote(key) if slash and key else None)


# ---------------------------------------------------------------------- requests
def parse(op: OperationModel, labels: dict[str, str], query: dict[str, list[str]], headers: dict[str, str],
          body: bytes | None) -> dict[str, Any]:
    """The input shape's members from the request; `body` None leaves a blob payload to the caller
    (a streamed upload). Raises ServiceError for a value that does not fit its shape."""
    shape = op.input_shape
    if shape is None:
        return {}
    params: dict[str, Any] = {}
    payload = shape.serialization.get("payload")
    for name, member in shape.members.items():
        location = member.serialization.get("location")
        wire = member.serialization.get("name", name)
        try:
            if location == "uri":
                if wire.rstrip("+") in labels:
                    params[name] = labels[wire.rstrip("+")]
            elif location == "querystring":
                if wire in query:
                    values = query[wire]
                    if member.type_name == "list":
                        params[name] = [_scalar(member.member, v) for v in values]
                    else:
                        params[name] = _scalar(member, values[0])
            elif location == "header":
                value = headers.get(wire.lower())
                if value is not None:
                    params[name] = _header_value(member, value)
            elif location == "headers":
                prefix = wire.lower()
                found = {k[len(prefix):]: v for k, v in headers.items() if k.startswith(prefix)}
                if found:
                    params[name] = found
        except (SerializationError, ValueError) as exc:
            raise s3_errors.invalid_argument(wire, str(exc)) from None
    if payload and body is not None:
        member = shape.members[payload]
        if member.type_name == "blob":
            params[payload] = body
        elif member.type_name == "string":
            if body:
                params[payload] = body.decode("utf-8", "replace")
        elif body.strip():
            try:
                params[payload] = from_xml(member, _root(body))
            except XmlInputError:
                raise s3_errors.malformed_xml() from None
    return params


def _root(body: bytes) -> ElementTree.Element:
    try:
        return safe_xml.parse(body)  # a DTD is refused: entities are never expanded
    except safe_xml.XmlRefused as exc:
        raise XmlInputError(str(exc)) from None


def _scalar(shape: Shape, text: str) -> Any:
    return from_text(shape, text)


def _header_value(shape: Shape, text: str) -> Any:
    if shape.type_name == "list":  # a header list is comma-separated (x-amz-object-attributes)
        return [_header_value(shape.member, part.strip()) for part in text.split(",") if part.strip()]
    if shape.type_name == "timestamp":
        try:
            parsed = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return from_text(shape, text)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)
    if shape.serialization.get("jsonvalue"):
        return text
    return from_text(shape, text)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def from_xml(shape: Shape, elem: ElementTree.Element) -> Any:
    """A value of `shape` from an element (structures by their members' wire names)."""
    kind = shape.type_name
    if kind == "structure":
        children: dict[str, list[ElementTree.Element]] = {}
        for child in elem:
            children.setdefault(_local(child.tag), []).append(child)
        out: dict[str, Any] = {}
        for name, member in shape.members.items():
            wire = member.serialization.get("name", name)
            if member.serialization.get("xmlAttribute"):
                value = next((v for k, v in elem.attrib.items() if _local(k) == wire.split(":")[-1]), None)
                if value is not None:
                    out[name] = value
                continue
            found = children.get(wire)
            if not found:
                continue
            if member.type_name == "list" and member.serialization.get("flattened"):
                out[name] = [from_xml(member.member, e) for e in found]
            else:
                out[name] = from_xml(member, found[0])
        return out
    if kind == "list":
        item = shape.member
        item_name = item.serialization.get("name", "member")
        return [from_xml(item, e) for e in elem if _local(e.tag) == item_name]
    if kind == "map":
        out_map = {}
        for entry in elem:
            k = entry.find("key")
            v = entry.find("value")
            if k is not None and v is not None:
                out_map[k.text or ""] = from_xml(shape.value, v)
        return out_map
    text = elem.text or ""
    try:
        if kind == "timestamp":
            return from_text(shape, text.strip())
        if kind in ("integer", "long", "boolean", "double", "float", "blob"):
            return from_text(shape, text.strip())
    except SerializationError as exc:
        raise XmlInputError(str(exc)) from None
    return text


# ---------------------------------------------------------------------- responses
@dataclass
class Rendered:
    """A response whose body may be a stream of chunks (GetObject): `length` is what Content-Length says."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes | Iterable[bytes]
    length: int | None
    content_type: str


def render(op: OperationModel, result: dict[str, Any] | None, request_id: str) -> Rendered:
    result = result or {}
    # An S3 answer whose status the model does not bind (206 for a range) names it `StatusCode`.
    status = int(result.get("StatusCode") or op.http.get("responseCode", 200))
    headers = request_headers(request_id)
    shape = op.output_shape
    if shape is None:
        return Rendered(status, headers, b"", 0, "application/xml")
    payload = shape.serialization.get("payload")
    body: bytes | Iterable[bytes] = b""
    length: int | None = None
    content_type = "application/xml"
    body_members: dict[str, Any] = {}
    for name, member in shape.members.items():
        value = result.get(name)
        if value is None:
            continue
        location = member.serialization.get("location")
        wire = member.serialization.get("name", name)
        if location == "statusCode":
            status = int(value)
        elif location == "header":
            headers.append((wire, header_text(member, value)))
        elif location == "headers":
            headers.extend((wire + k, str(v)) for k, v in value.items())
        elif name == payload:
            if member.type_name in ("blob", "string"):
                body = value.encode() if isinstance(value, str) else value
                content_type = ""
            else:
                root = member.serialization.get("name", name)
                body = document(root, member, value)
        elif location is None:
            body_members[name] = value
    if not payload and body_members:
        body = document(ROOTS.get(op.name, shape.serialization.get("name", op.name + "Result")), shape, body_members)
    if "ContentLength" in result:  # HeadObject's, a range's: the header says what the body would be
        length = int(result["ContentLength"])
    elif isinstance(body, bytes):
        length = len(body)
    named = next((v for k, v in headers if k.lower() == "content-type"), None)
    if named is not None:
        content_type = named
    elif content_type == "":
        content_type = "binary/octet-stream"
    headers = [(k, v) for k, v in headers if k.lower() not in ("content-type", "content-length")]
    return Rendered(status, headers, body, length, content_type)


def request_headers(request_id: str) -> list[tuple[str, str]]:
    return [("x-amz-request-id", request_id[:16].replace("-", "").upper()),
            ("x-amz-id-2", base64.b64encode(request_id.encode()).decode())]


def header_text(shape: Shape, value: Any) -> str:
    if shape.type_name == "timestamp":
        if isinstance(value, (int, float)):
            value = dt.datetime.fromtimestamp(value, dt.UTC)
        return email.utils.format_datetime(value.astimezone(dt.UTC), usegmt=True)
    if shape.type_name == "boolean":
        return "true" if value else "false"
    return str(value)


def document(root: str, shape: Shape, value: Any) -> bytes:
    """The XML document for `value`, a structure of `shape` (or a scalar root: GetBucketLocation)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    if shape.type_name == "structure" and len(shape.members) == 1 and root == "LocationConstraint":
        text = next(iter(value.values()), None) if isinstance(value, dict) else value
        out.append(f'<{root} xmlns="{NAMESPACE}">{escape(str(text)) if text else ""}</{root}>')
        return "".join(out).encode()
    attrs = f' xmlns="{NAMESPACE}"'
    out.append(f"<{root}{attrs}>")
    _members(out, shape, value)
    out.append(f"</{root}>")
    return "".join(out).encode()


def _members(out: list[str], shape: Shape, value: dict[str, Any]) -> None:
    for name, member in shape.members.items():
        v = value.get(name)
        if v is None or member.serialization.get("xmlAttribute"):
            continue
        wire = member.serialization.get("name", name)
        if member.type_name == "list" and member.serialization.get("flattened"):
            for item in v:
                _element(out, wire, member.member, item)
        else:
            _element(out, wire, member, v)


def _element(out: list[str], name: str, shape: Shape, value: Any) -> None:
    kind = shape.type_name
    if kind == "structure":
        attrs = ""
        for mname, member in shape.members.items():
            if member.serialization.get("xmlAttribute") and value.get(mname) is not None:
                wire = member.serialization.get("name", mname)
                ns = member.serialization.get("xmlNamespace") or shape.serialization.get("xmlNamespace")
                if ns and isinstance(ns, dict) and ns.get("prefix"):
                    attrs += f' xmlns:{ns["prefix"]}="{ns["uri"]}"'
                attrs += f' {wire}="{escape(str(value[mname]))}"'
        out.append(f"<{name}{attrs}>")
        _members(out, shape, value)
        out.append(f"</{name}>")
    elif kind == "list":
        item = shape.member
        item_name = item.serialization.get("name", "member")
        out.append(f"<{name}>")
        for entry in value:
            _element(out, item_name, item, entry)
        out.append(f"</{name}>")
    elif kind == "map":
        out.append(f"<{name}>")
        for k, v in value.items():
            out.append(f"<entry><key>{escape(str(k))}</key>")
            _element(out, "value", shape.value, v)
            out.append("</entry>")
        out.append(f"</{name}>")
    else:
        out.append(f"<{name}>{escape(_text(shape, value))}</{name}>")


def _text(shape: Shape, value: Any) -> str:
    kind = shape.type_name
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "timestamp":
        return iso8601(value)
    if kind == "blob":
        return base64.b64encode(value).decode()
    return str(value)


def query_of(query_string: str) -> dict[str, list[str]]:
    return parse_qs(query_string, keep_blank_values=True)


# ---------------------------------------------------------------------- errors
def render_error(err: ServiceError, request_id: str, head: bool = False) -> Response:
    """S3's <Error>: Code, Message, the modeled extras (BucketName, Key, ...), RequestId, HostId."""
    headers = request_headers(request_id)
    headers += [(name, str(err.extra[member]).lower() if member == "DeleteMarker" else str(err.extra[member]))
                for member, name in ERROR_HEADERS.items() if err.extra.get(member) is not None]
    if head:  # a HEAD answer has no body: the client reads the code from the status alone
        return Response(err.status, b"", headers, "application/xml")
    extra = "".join(f"<{k}>{escape(str(v))}</{k}>" for k, v in err.extra.items() if v is not None)
    text = (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{escape(err.code)}</Code><Message>'
            f"{escape(err.message)}</Message>{extra}<RequestId>{headers[0][1]}</RequestId>"
            f"<HostId>{headers[1][1]}</HostId></Error>")
    return Response(err.status, text.encode(), headers, "application/xml")
