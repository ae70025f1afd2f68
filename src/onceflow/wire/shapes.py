"""Walk a model shape (onceflow.awsmodels): turn wire values into handler params, and handler results into wire values.

Input conversion (all protocols): blobs -> bytes, timestamps -> aware datetimes, and every
constraint of the model checked (validate.py). Type mismatches raise SerializationError, which the
protocol renders as the service's SerializationException / MalformedInput.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import email.utils
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from onceflow.wire.validate import Problems, check_scalar, map_key_check, member_path, members_check

if TYPE_CHECKING:
    from onceflow.awsmodels.model import Shape

UTC = dt.UTC


class SerializationError(Exception):
    pass


def _java_class(value: Any) -> str:
    """The Java class coral's JSON reader sees for a JSON scalar (it names it in type errors)."""
    if isinstance(value, bool):
        return "java.lang.Boolean"
    if isinstance(value, str):
        return "java.lang.String"
    if isinstance(value, float) and not value.is_integer():
        return "java.lang.Double"
    if -32768 <= value <= 32767:
        return "java.lang.Short"
    return "java.lang.Integer" if -(2**31) <= value < 2**31 else "java.lang.Long"


def _mismatch(value: Any, expected: str) -> SerializationError:
    """Coral's SerializationException wording (recorded from DynamoDB; note its 'an String')."""
    if isinstance(value, dict):
        return SerializationError("Start of structure or map found where not expected.")
    if isinstance(value, list):
        return SerializationError("Start of list found where not expected")
    if expected == "List":
        return SerializationError("Expected list or null")
    if expected == "Map":
        return SerializationError("Expected map or null")
    if expected == "Structure":
        return SerializationError("Expected null")
    if expected == "Boolean" and isinstance(value, str):
        return SerializationError(f"'{value.upper()}' can not be converted to an Boolean")
    article = "a" if expected in ("Blob", "Timestamp") else "an"
    return SerializationError(f"class {_java_class(value)} can not be converted to {article} {expected}")


def parse_timestamp(value: Any) -> dt.datetime:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _mismatch(value, "Timestamp")
    if isinstance(value, (int, float)):
        try:
            return dt.datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise SerializationError(f"'{value}' can not be converted to a Timestamp") from exc
    try:
        return dt.datetime.fromtimestamp(float(value), UTC)
    except (ValueError, OverflowError, OSError):
        pass
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value)  # RFC 822, as REST headers carry it
        except (TypeError, ValueError, IndexError) as exc:
            raise SerializationError(f"Could not parse timestamp: {value}") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _blob(value: Any) -> bytes:
    if not isinstance(value, str):
        raise _mismatch(value, "Blob")
    if len(value) % 4:
        raise SerializationError(f"'{value}' can not be converted to a Blob: Base64 encoded length is expected a "
                                 f"multiple of 4 bytes but found: {len(value)}")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        bad = next((c for c in value if c not in _B64), "=")
        message = f"'{value}' can not be converted to a Blob: Invalid Base64 character: '{bad}'"
        raise SerializationError(message) from exc


_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def from_json(shape: Shape, value: Any, path: str, problems: Problems) -> Any:
    """Convert one JSON value of `shape`; `path` names it in validation messages."""
    convert = shape.__dict__.get(_CONVERTER)
    if convert is None:
        convert = _compile(shape)
    return convert(value, path, problems)


# Each shape's converter is built once and kept on the (long-lived, model-owned) shape itself: the
# walk then skips the dispatch on the shape's type, the checks of shapes without constraints and the
# member-name spelling, which were most of a small request's parse.
_CONVERTER = "_onceflow_from_json"
Converter = Callable[[Any, str, Problems], Any]


def _compile(shape: Shape) -> Converter:
    kind = shape.type_name
    checked = bool(shape.metadata)  # check_scalar returns at once for a shape without constraints
    convert: Converter
    if kind == "structure":
        convert = _structure_converter(shape)
    elif kind == "timestamp":
        def convert(value: Any, path: str, problems: Problems) -> Any:
            return parse_timestamp(value)
    elif kind in _SCALARS or kind in ("list", "map"):
        read = _list_reader(shape) if kind == "list" else _map_reader(shape) if kind == "map" else _SCALARS[kind]

        def convert(value: Any, path: str, problems: Problems) -> Any:
            out = read(value, path, problems)
            if checked:
                check_scalar(shape, out, path, problems)
            return out
    else:  # document and others pass through
        def convert(value: Any, path: str, problems: Problems) -> Any:
            return value
    setattr(shape, _CONVERTER, convert)
    return convert


def _structure_converter(shape: Shape) -> Converter:
    members = shape.members
    steps = {name: member_path("", name) for name in members}
    required = [(name, member_path("", name)) for name in shape.required_members]

    def convert(value: Any, path: str, problems: Problems) -> Any:
        if not isinstance(value, dict):
            raise _mismatch(value, "Structure")
        out: dict[str, Any] = {}
        for name, step in required:
            if value.get(name) is None:
                problems.add(None, f"{path}.{step}" if path else step, "Member must not be null")
        for name, raw in value.items():
            mshape = members.get(name)
            if mshape is None or raw is None:
                continue  # AWS ignores members it does not know
            step = steps[name]
            out[name] = from_json(mshape, raw, f"{path}.{step}" if path else step, problems)
        return out

    return convert


def _list_reader(shape: Shape) -> Converter:
    member = shape.member
    whole = members_check(shape)
    if whole is not None:  # scalar members checked as one (validate.scalar_members_check)
        plain = _SCALARS[member.type_name]

        def read_whole(value: Any, path: str, problems: Problems) -> Any:
            if not isinstance(value, list):
                raise _mismatch(value, "List")
            out = [None if v is None else plain(v, path, problems) for v in value]
            whole(out, path, problems)
            return out

        return read_whole

    def read(value: Any, path: str, problems: Problems) -> Any:
        if not isinstance(value, list):
            raise _mismatch(value, "List")
        return [_element(member, v, f"{path}.{i + 1}.member", problems) for i, v in enumerate(value)]

    return read


def _map_reader(shape: Shape) -> Converter:
    vshape = shape.value
    keys = map_key_check(shape, shape.service_name)
    whole = members_check(shape)
    plain = _SCALARS[vshape.type_name] if whole is not None else None

    def read(value: Any, path: str, problems: Problems) -> Any:
        if not isinstance(value, dict):
            raise _mismatch(value, "Map")
        if keys is not None:
            keys(value, path, problems)
        if whole is not None and plain is not None:  # scalar values checked as one (validate.scalar_members_check)
            out = {k: None if v is None else plain(v, path, problems) for k, v in value.items()}
            whole(out, path, problems)
            return out
        return {k: _element(vshape, v, f"{path}.{k}.member", problems) for k, v in value.items()}

    return read


def _string(value: Any, path: str, problems: Problems) -> Any:
    if value.__class__ is not str:
        raise _mismatch(value, "String")
    return value


_BOOLEAN_WORDS = {"TRUE": True, "FALSE": False}


def _boolean(value: Any, path: str, problems: Problems) -> Any:
    if value.__class__ is float:
        return abs(value) >= 1  # coral reads a fractional number as a boolean
    if value.__class__ is str and value.upper() in _BOOLEAN_WORDS:
        # coral upper-cases a string and reads TRUE / FALSE as the boolean (its error quotes the
        # upper-cased text); AWS's own samples send {"BOOL": "false"} through Step Functions
        return _BOOLEAN_WORDS[value.upper()]
    if value.__class__ is not bool:
        raise _mismatch(value, "Boolean")
    return value


def _integer_reader(kind: str) -> Converter:
    name = "Integer" if kind == "integer" else "Long"

    def read(value: Any, path: str, problems: Problems) -> Any:
        if value.__class__ is float:
            value = _java_cast(value, kind)
        elif value.__class__ is not int:
            raise _mismatch(value, name)
        return _in_range(value, kind)

    return read


def _double_reader(kind: str) -> Converter:
    name = "Double" if kind == "double" else "Float"

    def read(value: Any, path: str, problems: Problems) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _mismatch(value, name)
        return _finite(value)

    return read


def _blob_reader(value: Any, path: str, problems: Problems) -> Any:
    return _blob(value)


_RANGES = {"integer": ("int", -(2**31), 2**31 - 1), "long": ("long", -(2**63), 2**63 - 1)}


def _java_cast(value: float, kind: str) -> int:
    """A JSON number with a fraction read into an integer member, as coral's (int)/(long) cast
    does: floored, infinities clamped to the type's bounds (never an OverflowError)."""
    if math.isfinite(value):
        return math.floor(value)
    _, low, high = _RANGES[kind]
    return 0 if math.isnan(value) else high if value > 0 else low


def _in_range(value: int, kind: str) -> int:
    """An integer member holds a Java int or long: a wider number is Jackson's range error."""
    java, low, high = _RANGES[kind]
    if low <= value <= high:
        return value
    text = str(value)
    raise SerializationError(f"Numeric value ({text[:40]}{'...' if len(text) > 40 else ''}) out of range of {java} "
                             f"({low} - {high})")


def _finite(value: float) -> float:
    """Infinity (1e400 parses as one) and numbers beyond a double are no value a handler can use."""
    try:
        if math.isfinite(value):
            return value
    except OverflowError:  # an int too large for a float
        pass
    text = str(value)
    raise SerializationError(f"Numeric value ({text[:40]}{'...' if len(text) > 40 else ''}) out of range of double")


def _element(shape: Shape, value: Any, path: str, problems: Problems) -> Any:
    if value is None:
        problems.add(None, path, "Member must not be null")
        return None
    return from_json(shape, value, path, problems)


_SCALARS: dict[str, Converter] = {
    "string": _string, "boolean": _boolean, "integer": _integer_reader("integer"), "long": _integer_reader("long"),
    "double": _double_reader("double"), "float": _double_reader("float"), "blob": _blob_reader,
}


# ---------------------------------------------------------------------------------- output
def json_default(value: Any) -> Any:
    """json.dumps hook: bytes -> base64 text, datetime -> epoch seconds (ms precision)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return round(value.timestamp(), 3)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def iso8601(value: Any) -> str:
    if isinstance(value, (int, float)):
        value = dt.datetime.fromtimestamp(value, UTC)
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        text: str = value.strftime("%Y-%m-%dT%H:%M:%S")
        if value.microsecond:
            text += f".{value.microsecond // 1000:03d}"
        return text + "Z"
    return str(value)


def scalar_text(shape: Shape, value: Any) -> str:
    """A scalar as text for XML bodies and HTTP headers."""
    kind = shape.type_name
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "timestamp":
        return iso8601(value)
    if kind == "blob":
        return base64.b64encode(value if isinstance(value, bytes) else str(value).encode()).decode("ascii")
    return str(value)


def from_text(shape: Shape, text: str) -> Any:
    """A scalar from text (query strings, form fields, headers)."""
    kind = shape.type_name
    try:
        if kind in ("integer", "long"):
            return _in_range(int(text), kind)
        if kind in ("double", "float"):
            return _finite(float(text))
    except ValueError as exc:
        raise SerializationError(f"STRING_VALUE can not be converted to {kind.capitalize()}") from exc
    if kind == "boolean":
        if text in ("1", "0"):
            return text == "1"
        if text.lower() not in ("true", "false"):
            raise SerializationError("boolean must follow xsd1.1 definition")  # coral's query reader
        return text.lower() == "true"
    if kind == "timestamp":
        return parse_timestamp(text)
    if kind == "blob":
        try:
            return base64.b64decode(text)
        except (binascii.Error, ValueError) as exc:
            raise SerializationError("Base64 encoded binary data is not valid") from exc
    return text


__all__ = [
    "SerializationError",
    "from_json",
    "from_text",
    "iso8601",
    "json_default",
    "scalar_text",
]
