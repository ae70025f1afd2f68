"""The query protocol with XML responses (IAM, STS): form-encoded POST, Action=<Operation>."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl
from xml.sax.saxutils import escape as _escape

from onceflow.errors import ServiceError
from onceflow.wire import errors
from onceflow.wire.request import PAUSE_GC_PAST_FIELDS, Request, Response, collector_paused
from onceflow.wire.shapes import SerializationError, from_text, scalar_text
from onceflow.wire.specs import ServiceSpec
from onceflow.wire.validate import (
    Problems,
    check_map_keys,
    check_scalar,
    member_path,
    members_check,
    validation_failure,
)

if TYPE_CHECKING:
    from onceflow.awsmodels.model import OperationModel, Shape


def form_fields(request: Request) -> dict[str, str]:
    text = request.body.decode("utf-8", errors="replace") if request.body else ""
    fields = dict(parse_qsl(text, keep_blank_values=True))
    if request.query_string:
        for key, value in parse_qsl(request.query_string, keep_blank_values=True):
            fields.setdefault(key, value)
    return fields


# A literal CR would be read back as LF by any XML parser (line-end normalisation); AWS sends &#xD;.
_XML_ENTITIES = {"\r": "&#xD;"}
# Characters XML 1.0 cannot carry at all, not even as a character reference (botocore's parser
# refuses the whole answer): echoed from a request (a validation message quotes the value), they
# are replaced by U+FFFD.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def escape(text: str) -> str:
    if not text.isprintable():  # all the characters above are unprintable: the cheap test first
        text = _NOT_XML.sub("\ufffd", text)
    return _escape(text, _XML_ENTITIES)


class Form(dict[str, str]):
    """The form fields, with every dotted prefix of their names ('Tags', 'Tags.member',
    'Tags.member.1', ...) in a set: whether a list item or a structure is present is one lookup,
    which keeps parsing linear in the form's size (a scan per item made 10,000 tags take 16 s)."""

    def __init__(self, fields: dict[str, str]) -> None:
        super().__init__(fields)
        prefixes: set[str] = set()
        for key in fields:
            end = key.find(".")
            while end != -1:
                prefixes.add(key[:end])
                end = key.find(".", end + 1)
            prefixes.add(key)
        self.prefixes = prefixes


def parse(spec: ServiceSpec, op: OperationModel, fields: dict[str, str], validation_code: str) -> dict[str, Any]:
    if len(fields) <= PAUSE_GC_PAST_FIELDS:
        return _parse(spec, op, fields, validation_code)
    with collector_paused():
        return _parse(spec, op, fields, validation_code)


def _parse(spec: ServiceSpec, op: OperationModel, fields: dict[str, str], validation_code: str) -> dict[str, Any]:
    if op.input_shape is None:
        return {}
    problems = Problems()
    try:
        params = _structure(op.input_shape, Form(fields), "", "", problems)
    except SerializationError as exc:
        raise errors.malformed_query(str(exc)) from exc
    if problems.found and problems.outcome(spec.name, op.name) is not None:
        raise validation_failure(spec.name, validation_code, problems, op.name)
    return params


def _present(shape: Shape, fields: Form, key: str) -> bool:
    """Whether the form carries a value for `key`: the key itself for a scalar, a sub-key otherwise."""
    if shape.type_name in ("structure", "list", "map"):
        return key in fields.prefixes
    return key in fields


def _value(shape: Shape, fields: Form, key: str, path: str, problems: Problems) -> Any:
    kind = shape.type_name
    if kind == "structure":
        return _structure(shape, fields, key + ".", path, problems)
    if kind == "list":
        member = shape.member
        flattened = shape.serialization.get("flattened", False)
        item_name = member.serialization.get("name", "member")
        base = key if flattened else f"{key}.{item_name}"
        out = []
        i = 1
        whole = members_check(shape)  # scalar members checked as one (validate.scalar_members_check)
        while _present(member, fields, f"{base}.{i}"):
            if whole is not None:
                out.append(from_text(member, fields[f"{base}.{i}"]))
            else:
                out.append(_value(member, fields, f"{base}.{i}", f"{path}.{i}.member", problems))
            i += 1
        if whole is not None:
            whole(out, path, problems)
        check_scalar(shape, out, path, problems)
        return out
    if kind == "map":
        kname = shape.key.serialization.get("name", "key")
        vname = shape.value.serialization.get("name", "value")
        base = key if shape.serialization.get("flattened") else f"{key}.entry"
        out_map = {}
        i = 1
        vshape = shape.value
        values = members_check(shape)  # scalar values checked as one (validate.scalar_members_check)
        while f"{base}.{i}.{kname}" in fields:
            k = fields[f"{base}.{i}.{kname}"]
            if _present(vshape, fields, f"{base}.{i}.{vname}"):
                if values is not None:
                    out_map[k] = from_text(vshape, fields[f"{base}.{i}.{vname}"])
                else:
                    out_map[k] = _value(vshape, fields, f"{base}.{i}.{vname}", f"{path}.{k}.member", problems)
            else:
                problems.add(None, f"{path}.{k}.member", "Member must not be null")
            i += 1
        check_map_keys(shape, out_map, path, problems)
        if values is not None:
            values(out_map, path, problems)
        return out_map
    value = from_text(shape, fields[key])
    check_scalar(shape, value, path, problems)
    return value


def _structure(
    shape: Shape, fields: Form, prefix: str, path: str, problems: Problems
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    required = set(shape.required_members)
    for name, mshape in shape.members.items():
        wire_name = mshape.serialization.get("name", name)
        key = prefix + wire_name
        if not _present(mshape, fields, key):
            if name in required:
                problems.add(None, member_path(path, name), "Member must not be null")
            continue
        if mshape.type_name == "list" and fields.get(key) == "":
            out[name] = []  # botocore sends `Name=` for an empty list
            continue
        out[name] = _value(mshape, fields, key, member_path(path, name), problems)
    return out


# ---------------------------------------------------------------------------------- output
def _xml(shape: Shape, value: Any, name: str, parts: list[str]) -> None:
    kind = shape.type_name
    if kind == "structure":
        parts.append(f"<{name}>")
        _xml_members(shape, value, parts)
        parts.append(f"</{name}>")
    elif kind == "list":
        member = shape.member
        if shape.serialization.get("flattened"):
            for item in value:
                _xml(member, item, name, parts)
            return
        item_name = member.serialization.get("name", "member")
        parts.append(f"<{name}>")
        for item in value:
            _xml(member, item, item_name, parts)
        parts.append(f"</{name}>")
    elif kind == "map":
        kname = shape.key.serialization.get("name", "key")
        vname = shape.value.serialization.get("name", "value")
        flat = shape.serialization.get("flattened", False)  # SQS: <Attribute><Name/><Value/></Attribute>...
        if not flat:
            parts.append(f"<{name}>")
        for k, v in value.items():
            parts.append(f"<{name}>" if flat else "<entry>")
            _xml(shape.key, k, kname, parts)
            _xml(shape.value, v, vname, parts)
            parts.append(f"</{name}>" if flat else "</entry>")
        if not flat:
            parts.append(f"</{name}>")
    else:
        parts.append(f"<{name}>{escape(scalar_text(shape, value))}</{name}>")


def _xml_members(shape: Shape, value: dict[str, Any], parts: list[str]) -> None:
    for name, mshape in shape.members.items():
        if name in value and value[name] is not None:
            _xml(mshape, value[name], mshape.serialization.get("name", name), parts)


def render(spec: ServiceSpec, op: OperationModel, result: dict[str, Any] | None, request_id: str) -> Response:
    ns = spec.xml_namespace
    parts = [f'<{op.name}Response xmlns="{ns}">']
    out_shape = op.output_shape
    if out_shape is not None:
        wrapper = out_shape.serialization.get("resultWrapper") or f"{op.name}Result"
        parts.append(f"<{wrapper}>")
        _xml_members(out_shape, result or {}, parts)
        parts.append(f"</{wrapper}>")
    parts.append(f"<ResponseMetadata><RequestId>{request_id}</RequestId></ResponseMetadata></{op.name}Response>")
    return Response(200, "".join(parts).encode(), [("x-amzn-RequestId", request_id)], "text/xml")


def render_error(spec: ServiceSpec, err: ServiceError, request_id: str) -> Response:
    ns = spec.xml_namespace
    fault = "Sender" if err.sender_fault else "Receiver"
    # An error AWS answers without a message (IAM's ReportNotPresent) has no <Message> element at all.
    message = f"<Message>{escape(err.message)}</Message>" if err.message else ""
    # Modeled members beside the message (SNS's VerificationException Status), as elements of <Error>.
    message += "".join(f"<{k}>{escape(str(v))}</{k}>" for k, v in err.extra.items() if v is not None)
    body = (
        f'<ErrorResponse xmlns="{ns}"><Error><Type>{fault}</Type><Code>{escape(err.query_code or err.code)}</Code>'
        f"{message}</Error><RequestId>{request_id}</RequestId></ErrorResponse>"
    )
    return Response(err.status, body.encode(), [("x-amzn-RequestId", request_id)], "text/xml")

