"""Input checks from the model's constraints, worded as AWS's coral validator words them.

`1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null`
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from onceflow.awsmodels.recorded import LAMBDA_RUNTIMES
from onceflow.errors import ServiceError

if TYPE_CHECKING:
    from onceflow.awsmodels.model import Shape

MAX_REPORTED = 10  # coral stops listing violations after ten


class Problems:
    """Collects constraint violations; the service's validation error is raised from them at the end.

    Each is kept as (path, constraint kind, constraint text), and its value beside it, so that a service
    whose own wording or own check differs from coral's for one member (SERVICE_WORDING, SERVICE_TEXT,
    SERVICE_CHECKED) can be honoured. The "Value '...' at ..." text is written only for the violations
    a message reports: quoting a 100,000-element value costs seconds.
    """

    def __init__(self) -> None:
        self.found: list[tuple[str, str, str]] = []
        self.values: list[Any] = []

    def add(self, value: Any, path: str, constraint: str, kind: str = "null") -> None:
        self.found.append((path, kind, constraint))
        self.values.append(value)

    def text(self, i: int, hide: bool = False) -> str:
        path, _, constraint = self.found[i]
        value = self.values[i]
        shown = "Value" if hide or value is SENSITIVE else f"Value {quoted(value)}"
        return f"{shown} at '{path}' failed to satisfy constraint: {constraint}"

    @property
    def items(self) -> list[str]:
        return [self.text(i) for i in range(len(self.found))]

    def message(self) -> str:
        return _message([self.text(i) for i in range(min(len(self.found), MAX_REPORTED))])

    def outcome(self, service: str, operation: str = "") -> str | None:
        """The validation message for `service` (and `operation`), or None when the service checks all
        of them itself."""
        found = list(enumerate(self.found))
        order = SERVICE_ORDER.get((service, operation))
        if order is not None:  # stable: members the order does not name keep their place after it
            found.sort(key=lambda f: order.index(f[1][0]) if f[1][0] in order else len(order))
        alone = [(i, f) for i, f in found if (service, f[0]) in SERVICE_ALONE]
        left: list[str] = []
        for i, (path, kind, _) in alone or found:
            value = self.values[i]
            leaf = path.rsplit(".", 1)[-1]
            if (service, leaf, kind) in SERVICE_CHECKED:
                continue
            wording: str | None = _lookup(SERVICE_WORDING, service, operation, leaf, kind)
            if wording is not None:
                return wording
            if len(left) < MAX_REPORTED:
                own = _lookup(SERVICE_TEXT, service, operation, leaf, kind)
                hide = (service, operation, leaf) in VALUE_LEFT_OUT
                left.append(own(path, value) if own is not None else self.text(i, hide))
        return _message(left) if left else None


def _lookup(table: dict[tuple[str, ...], Any], service: str, operation: str, leaf: str, kind: str) -> Any:
    got = table.get((service, operation, leaf, kind))
    return got if got is not None else table.get((service, leaf, kind))


def _message(items: list[str]) -> str:
    items = items[:MAX_REPORTED]
    noun = "error" if len(items) == 1 else "errors"
    return f"{len(items)} validation {noun} detected: " + "; ".join(items)


IAM_PATH_INVALID = ("The specified value for path is invalid. It must begin and end with / and contain only "
                    "alphanumeric characters and/or / characters.")
# (service[, operation], member, constraint kind) -> the service's own message, recorded from real AWS.
SERVICE_WORDING: dict[tuple[str, ...], str] = {
    ("logs", "logGroupName", "max"): "Invalid LogGroup or LogStream, both must have length less than or equal to 512.",
    ("logs", "logStreamName", "max"): "Invalid LogGroup or LogStream, both must have length less than or equal to 512.",
    # DynamoDB (recorded by nubo-db/dynamodb-conformance)
    ("dynamodb", "BatchGetItem", "requestItems", "min"): "The requestItems parameter is required for BatchGetItem",
    ("dynamodb", "BatchWriteItem", "requestItems", "min"): "The requestItems parameter is required for BatchWriteItem",
    ("dynamodb", "CreateTable", "tableName", "null"):
        "The parameter 'TableName' is required but was not present in the request",
    # IAM: a virtual MFA device's path outside the pathType pattern (LocalStack's test_iam_mfa snapshot,
    # test_virtual_mfa_device_errors, create-invalid-path-no-leading-slash/-no-trailing-slash-error, 2026-02-17).
    # Other operations' paths are taken to keep coral's wording (UNCONFIRMED: no recording either way).
    ("iam", "CreateVirtualMFADevice", "path", "pattern"): IAM_PATH_INVALID,
}


def _enum_in(order: str) -> Callable[[str, Any], str]:
    """An enum violation listing the values in the service's own order (its model's, not botocore's)."""
    return lambda path, value: (f"Value {quoted(value)} at '{path}' failed to satisfy constraint: "
                                f"Member must satisfy enum value set: [{order}]")


def _batch_write_requests(path: str, value: Any) -> str:
    """BatchWriteItem names the whole RequestItems map, and both bounds of a table's request list."""
    table = path.split(".")[1]
    return (f"Value {quoted({table: value})} at 'requestItems' failed to satisfy constraint: Map value must satisfy "
            "constraint: [Member must have length less than or equal to 25, Member must have length greater than "
            "or equal to 1]")


def _batch_get_keys(path: str, value: Any) -> str:
    """BatchGetItem names the member as it was sent, without its value."""
    table = path.split(".")[1]
    return (f"Value at 'RequestItems.{table}.member.Keys' failed to satisfy constraint: Member must have length "
            "less than or equal to 100")


# Lambda checks a layer's runtimes against the runtimes open to new functions, as recorded.
_LAMBDA_RUNTIMES = ", ".join(LAMBDA_RUNTIMES)
# ListLayers' and ListLayerVersions' CompatibleRuntime, as recorded (2024-04), in AWS's order.
_LAMBDA_LAYER_RUNTIMES = (
    "ruby2.6, dotnetcore1.0, python3.7, nodejs8.10, nasa, ruby2.7, python2.7-greengrass, dotnetcore2.0, python3.8, "
    "java21, dotnet6, dotnetcore2.1, python3.9, java11, nodejs6.10, provided, dotnetcore3.1, dotnet8, java17, nodejs, "
    "nodejs4.3, java8.al2, go1.x, nodejs20.x, go1.9, byol, nodejs10.x, provided.al2023, python3.10, java8, nodejs12.x, "
    "python3.11, nodejs8.x, python3.12, nodejs14.x, nodejs8.9, python3.13, nodejs16.x, provided.al2, nodejs4.3-edge, "
    "nodejs18.x, ruby3.2, python3.4, ruby3.3, ruby2.5, python3.6, python2.7")


def _lambda_runtimes(path: str, value: Any) -> str:
    """A layer's CompatibleRuntimes: the list named once, as a plain enum of Lambda's own runtimes."""
    return f"Value {quoted(value)} at '{path}' failed to satisfy constraint: Member must satisfy enum value set: " \
           f"[{_LAMBDA_RUNTIMES}]"


def _java_structs(class_name: str, max_length: int) -> Callable[[str, Any], str]:
    """A list of structures over its model's max length, printed by Java's generated toString,
    `Class(member=value, ...)`, as Step Functions' validator prints them (coral elsewhere prints
    `{member=value}`)."""
    def text(path: str, value: Any) -> str:
        items = ", ".join(f"{class_name}(" + ", ".join(f"{k}={render_value(v)}" for k, v in item.items()) + ")"
                          if isinstance(item, dict) else render_value(item) for item in value)
        return f"Value '[{items}]' at '{path}' failed to satisfy constraint: Member must have length less than or " \
               f"equal to {max_length}"
    return text


# (service[, operation], member, constraint kind) -> the service's own text for that one violation, kept
# among the others in coral's "N validation errors detected" message. Recorded from real AWS.
SERVICE_TEXT: dict[tuple[str, ...], Callable[[str, Any], str]] = {
    # DynamoDB (recorded by nubo-db/dynamodb-conformance)
    ("dynamodb", "select", "enum"): _enum_in("SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES"),
    ("dynamodb", "attributeType", "enum"): _enum_in("B, N, S"),
    ("dynamodb", "Query", "limit", "min"): lambda path, value: (
        "Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1"),
    ("dynamodb", "BatchGetItem", "keys", "max"): _batch_get_keys,
    ("dynamodb", "BatchWriteItem", "member", "max"): _batch_write_requests,
    ("dynamodb", "BatchWriteItem", "member", "min"): _batch_write_requests,
    # DynamoDB, as observed on CreateTable (StreamSpecification with a lowercase view type)
    ("dynamodb", "streamViewType", "enum"): _enum_in("OLD_IMAGE, KEYS_ONLY, NEW_AND_OLD_IMAGES, NEW_IMAGE"),
    # Lambda (LocalStack's recordings of AWS, 2024-04)
    ("lambda", "compatibleRuntimes", "members"): _lambda_runtimes,
    ("lambda", "compatibleRuntime", "enum"): _enum_in(_LAMBDA_LAYER_RUNTIMES),
    # A function URL's InvokeMode (test_lambda.py test_lambda_url_invalid_invoke_mode, 2025-11)
    ("lambda", "invokeMode", "enum"): _enum_in("RESPONSE_STREAM, BUFFERED"),
    # An event source mapping's StartingPosition (event_source_mapping/test_api.py, 2025-02)
    ("lambda", "startingPosition", "enum"): _enum_in("LATEST, AT_TIMESTAMP, TRIM_HORIZON"),
    # Step Functions: an alias's routing configuration over two versions (LocalStack's recording of AWS,
    # test_sfn_api_aliasing.snapshot.json, too_many_routing, 2025-03)
    ("stepfunctions", "routingConfiguration", "max"): _java_structs("RoutingConfigurationListItem", 2),
    # ListExecutions' statusFilter in AWS's own order (test_sfn_api.snapshot.json, test_state_machine_status_filter,
    # list_executions_filter_exc, 2024-03)
    ("stepfunctions", "statusFilter", "enum"): _enum_in(
        "SUCCEEDED, TIMED_OUT, PENDING_REDRIVE, ABORTED, FAILED, RUNNING"),
}
# (service, member, constraint kind) the service checks itself, with another code: Lambda answers an
# unknown runtime with InvalidParameterValueException ("... or be a valid ARN"), not coral's check.
# SQS checks attribute names itself (InvalidAttributeName "Unknown Attribute X.").
SERVICE_CHECKED = {("lambda", "runtime", "enum"), ("sqs", "member", "enum")}
# Services that check map keys themselves, with their own rules and words: DynamoDB's attribute and
# table names (ddb/, recorded messages), SQS's attribute names (InvalidAttributeName).
SERVICE_KEYS_CHECKED = {"dynamodb", "dynamodbstreams", "sqs"}
# Map key shapes whose constraint list ends with "Member must not be null" (recorded from Lambda's
# UpdateAlias; DynamoDB's BatchGetItem and Lambda's environment variables list none).
KEY_NOT_NULL = {("lambda", "AdditionalVersion")}
# Services that report each bad member of a list of scalars at `<list>.N.member` (DynamoDB's and SQS's
# own recorded wordings and checks, SERVICE_CHECKED); coral elsewhere names the whole list once.
SERVICE_LIST_MEMBERS_EACH = {"dynamodb", "dynamodbstreams", "sqs"}
# (service, list or map shape) whose member constraints end with "Member must not be null": recorded from
# Lambda's architectures, layers, cors.allowMethods and routingConfig.additionalVersionWeights (the other
# Cors lists taken alike, UNCONFIRMED); Lambda's compatibleArchitectures, ACM's, CloudFormation's and
# Config's recordings list none.
LIST_MEMBER_NOT_NULL = {("lambda", "ArchitecturesList"), ("lambda", "LayerList"), ("lambda", "AllowMethodsList"),
                        ("lambda", "AllowOriginsList"), ("lambda", "HeadersList"),
                        ("lambda", "AdditionalVersionWeights")}  # fmt: skip
# (service, operation) -> member paths in the order the service lists their violations, where that is
# neither the model's order nor botocore's; members it does not name follow, in their own order.
# As recorded from IAM (LocalStack's snapshots, 2026-02): UpdateAccountPasswordPolicy
# (test_iam_account_password_policy, validation-errors) and CreateOpenIDConnectProvider (test_iam_oidc,
# multiple-validation-errors).
SERVICE_ORDER: dict[tuple[str, str], tuple[str, ...]] = {
    ("iam", "UpdateAccountPasswordPolicy"): ("minimumPasswordLength", "passwordReusePrevention", "maxPasswordAge"),
    ("iam", "CreateOpenIDConnectProvider"): ("clientIDList", "thumbprintList", "url"),
}
# (service, operation, member) whose value a violation leaves out ("Value at '...' failed ..."): recorded
# for the members above (the password policy's over their maximum; below the minimum taken alike,
# UNCONFIRMED). Whether IAM leaves every value out is not known: no recording shows either way.
VALUE_LEFT_OUT = {(service, operation, member) for (service, operation), members in SERVICE_ORDER.items()
                  for member in members} | {
    # a virtual MFA device's path over 512 characters (test_iam_mfa snapshot, create-path-too-long-error)
    ("iam", "CreateVirtualMFADevice", "path")}
# (service, member path): a member whose violations the service reports alone, dropping the others.
# DynamoDB stops at an invalid table name (recorded by nubo-db/dynamodb-conformance).
SERVICE_ALONE = {("dynamodb", "tableName")}


SENSITIVE = object()  # the value of a problem in a sensitive member: coral leaves it out ("Value at ...")
# The key and value shapes of a Tag structure: coral leaves their values out too, though the models do
# not mark them sensitive (recorded: IAM's "Value at 'tags.1.member.key' failed to satisfy constraint:
# ...", SES's and SSM's alike). A map of tags (Lambda, SQS) still shows its keys (recorded from Lambda).
TAG_MEMBER_SHAPES = frozenset({"tagKeyType", "tagValueType", "TagKey", "TagValue"})


def quoted(value: Any) -> str:
    """A value as coral prints it: Java's toString in single quotes, or bare `null`."""
    return "null" if value is None else f"'{render_value(value)}'"


def render_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(render_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={render_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float):
        return _java_double(value)
    if isinstance(value, (bytes, bytearray)):
        return f"java.nio.HeapByteBuffer[pos=0 lim={len(value)} cap={len(value)}]"
    return str(value)


def _java_double(x: float) -> str:
    """A double as Java's Double.toString prints it: 2.0, 0.001, 1.0E7, 1.0E-4."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0 or 1e-3 <= abs(x) < 1e7:
        return repr(x)
    _, digits, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    shown = "".join(map(str, digits))
    return f"{'-' if x < 0 else ''}{shown[0]}.{shown[1:] or '0'}E{int(exponent) + len(shown) - 1}"


def java_length(text: str) -> int:
    """String length as Java counts it (UTF-16 code units): astral characters count twice."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def member_path(parent: str, name: str) -> str:
    step = name[:1].lower() + name[1:]
    return f"{parent}.{step}" if parent else step


# Java regex classes the models use, as Python character-class contents (inside [...]).
_JAVA_CLASSES = {
    "N": "\\d\u00b2\u00b3\u00b9\u00bc-\u00be\u2150-\u2189",
    "Z": " \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000",
    "ASCII": "\\x00-\\x7f",
    "Print": "\\x20-\\x7e",
}
_LETTER = "[^\\W\\d_]"  # a word character that is neither a digit nor '_': Java's \\p{L}
_CLASS_WITH_P = re.compile(r"\[(\^?)((?:[^\]\\]|\\.)*\\p\{\w+\}(?:[^\]\\]|\\.)*)\]")


@lru_cache(maxsize=4096)
def python_pattern(expr: str) -> str | None:
    """The model's (Java) pattern in Python's dialect, or None if it uses syntax we cannot translate.

    Java accepts \\p{L}/\\p{Z}/\\p{N}/\\p{ASCII}/\\p{Print}, UTF-16 surrogate pairs spelled as escapes,
    and `[\\w-_]` (a literal '-' after a class); Python's `re` accepts none of them.
    """
    text = expr.replace("\\uD800\\uDC00-\\uDBFF\\uDFFF", "\\U00010000-\\U0010FFFF")
    text = text.replace("\\w-_", "\\w\\-_")
    text = _CLASS_WITH_P.sub(_translate_class, text)
    text = text.replace("\\p{L}", _LETTER)
    for name, body in _JAVA_CLASSES.items():
        text = text.replace("\\p{" + name + "}", f"[{body}]")
    try:
        re.compile(text)
    except re.error:
        return None
    return text


def _translate_class(m: re.Match[str]) -> str:
    negated, body = m.group(1), m.group(2)
    for name, chars in _JAVA_CLASSES.items():
        body = body.replace("\\p{" + name + "}", chars)
    if "\\p{L}" not in body:
        return f"[{negated}{body}]"
    if negated:
        return m.group(0)  # leave untranslatable: compile fails and the check is skipped
    rest = body.replace("\\p{L}", "")
    return f"(?:{_LETTER}|[{rest}])" if rest else _LETTER


@lru_cache(maxsize=4096)
def _pattern(expr: str) -> re.Pattern[str] | None:
    text = python_pattern(expr)
    return re.compile(text) if text is not None else None


# (service, shape name) -> the pattern the service checks in place of its model's, where AWS is known to
# accept what the model's pattern refuses. The violation's text still quotes the model's pattern (what AWS
# words for a value both refuse is not recorded: UNCONFIRMED).
PATTERN_ACCEPTED: dict[tuple[str, str], str] = {
    # Logs' MetricNamespace is `[^:*$]*` in the model, yet AWS puts and describes the namespace
    # 'A.B-c_d/1#2:metricNamespace' (LocalStack's AWS-validated test_logs_metric_filters.py::
    # test_put_metric_filter_with_special_namespace). ':' is let through; '*' and '$' stay refused
    # (CloudWatch's documented namespace characters include ':' and neither of them; UNCONFIRMED for Logs).
    ("logs", "MetricNamespace"): "[^*$]*",
}


def _shape_pattern(shape: Shape) -> re.Pattern[str] | None:
    """The compiled pattern a string shape is checked against: PATTERN_ACCEPTED's, else its model's."""
    expr = PATTERN_ACCEPTED.get((shape.service_name, shape.name), shape.metadata["pattern"])
    return _pattern(expr)


def check_scalar(shape: Shape, value: Any, path: str, problems: Problems) -> None:
    """Length, range, enum and pattern constraints of one scalar or collection value.

    Every violated constraint is reported (coral lists a pattern and a length problem of the same value
    separately), in the order pattern, then length.
    """
    md = shape.metadata
    if not md:
        return
    shown = SENSITIVE if md.get("sensitive") or shape.name in TAG_MEMBER_SHAPES else value
    kind = shape.type_name
    if kind == "string":
        if "enum" in md:
            if value not in md["enum"]:
                problems.add(shown, path, "Member must satisfy enum value set: [" + ", ".join(md["enum"]) + "]", "enum")
            return
        if "pattern" in md:
            rx = _shape_pattern(shape)
            if rx is not None and rx.fullmatch(value) is None:
                problems.add(shown, path, f"Member must satisfy regular expression pattern: {md['pattern']}", "pattern")
        _length(md, java_length(value), shown, path, problems)
    elif kind in ("integer", "long", "double", "float"):
        if "min" in md and value < md["min"]:
            problems.add(shown, path, f"Member must have value greater than or equal to {md['min']}", "min")
        elif "max" in md and value > md["max"]:
            problems.add(shown, path, f"Member must have value less than or equal to {md['max']}", "max")
    elif kind in ("list", "map", "blob"):
        _length(md, len(value), shown, path, problems)


KeyCheck = Callable[[dict[str, Any], str, Problems], None]
MembersCheck = Callable[[Any, str, Problems], None]  # a list, or a map's values


def check_map_keys(shape: Shape, value: dict[str, Any], path: str, problems: Problems) -> None:
    """`map_key_check` of the shape, built on its first use and kept on the shape."""
    check: KeyCheck | None = shape.__dict__.get("_onceflow_key_check", _UNSET)
    if check is _UNSET:
        check = map_key_check(shape, shape.service_name)
        shape._onceflow_key_check = check  # type: ignore[attr-defined]  # the wire's cache on the shared shape
    if check is not None:
        check(value, path, problems)


def members_check(shape: Shape) -> MembersCheck | None:
    """`scalar_members_check` of a list or map shape, built on its first use and kept on the shape."""
    check: MembersCheck | None = shape.__dict__.get("_onceflow_members_check", _UNSET)
    if check is _UNSET:
        check = scalar_members_check(shape, shape.service_name)
        shape._onceflow_members_check = check  # type: ignore[attr-defined]  # the wire's cache on the shared shape
    return check


_UNSET: Any = object()
_CONSTRAINTS = ("enum", "min", "max", "pattern")
_NUMBERS = ("integer", "long", "double", "float")


def _member_rule(member: Shape, not_null: bool) -> tuple[str, Callable[[Any], bool]]:
    """One scalar member shape's constraints as coral lists them inside "[...]" (enum, then the upper
    bound, the lower bound, the pattern, and "Member must not be null" where the service adds it), and
    whether a value meets them all."""
    md = member.metadata
    numeric = member.type_name in _NUMBERS
    enum = frozenset(md["enum"]) if "enum" in md else None
    low, high = md.get("min"), md.get("max")
    rx = _shape_pattern(member) if "pattern" in md else None
    measure = "value" if numeric else "length"
    listed = []
    if enum is not None:  # UNCONFIRMED for map keys: where coral lists an enum among a key's constraints
        listed.append("Member must satisfy enum value set: [" + ", ".join(md["enum"]) + "]")
    if high is not None:
        listed.append(f"Member must have {measure} less than or equal to {high}")
    if low is not None:
        listed.append(f"Member must have {measure} greater than or equal to {low}")
    if "pattern" in md:
        listed.append(f"Member must satisfy regular expression pattern: {md['pattern']}")
    if not_null:
        listed.append("Member must not be null")

    def fits(v: Any) -> bool:
        if v is None:
            return False
        if enum is not None and v not in enum:
            return False
        if low is not None or high is not None:
            size = v if numeric else java_length(v)
            if (low is not None and size < low) or (high is not None and size > high):
                return False
        return numeric or rx is None or rx.fullmatch(v) is not None

    return "[" + ", ".join(listed) + "]", fits


def map_key_check(shape: Shape, service: str) -> KeyCheck | None:
    """The check of a map's keys against its key shape's constraints (None: it has none). One violation
    is reported for the map, listing every constraint of the key, as coral words it:
    `Value '{x=1}' at 'path' failed to satisfy constraint: Map keys must satisfy constraint: [...]`."""
    # UNCONFIRMED: recorded from Lambda (UpdateAlias, environment variables) and DynamoDB (BatchGetItem);
    # the other services' coral is taken to word it alike.
    key = shape.key
    if service in SERVICE_KEYS_CHECKED or key.type_name != "string" or not any(c in key.metadata for c in _CONSTRAINTS):
        return None  # (DynamoDB's items then pay nothing for it)
    listed, fits = _member_rule(key, (service, key.name) in KEY_NOT_NULL)
    constraint = "Map keys must satisfy constraint: " + listed
    hidden = bool(shape.metadata.get("sensitive"))

    def check(value: dict[str, Any], path: str, problems: Problems) -> None:
        if not all(fits(k) for k in value):
            problems.add(SENSITIVE if hidden else value, path, constraint, "mapkey")

    return check


def scalar_members_check(shape: Shape, service: str) -> MembersCheck | None:
    """The check of a list's scalar members (or a map's scalar values) against their shape's constraints
    (None: they have none, or the service reports each member itself). Coral names the whole list once,
    listing every constraint of its member: `Value '[foo]' at 'architectures' failed to satisfy constraint:
    Member must satisfy constraint: [Member must satisfy enum value set: [x86_64, arm64], Member must not be
    null]` (recorded from Lambda: architectures, layers, cors.allowMethods; alike from ACM, CloudFormation,
    Config, IoT), and a map as `Value '{2=2.0}' at 'routingConfig.additionalVersionWeights' ... Map value
    must satisfy constraint: [...]` (recorded from Lambda's CreateAlias)."""
    is_map = shape.type_name == "map"
    member = shape.value if is_map else shape.member
    if service in SERVICE_LIST_MEMBERS_EACH or member.type_name not in ("string", *_NUMBERS) or not any(
            c in member.metadata for c in _CONSTRAINTS):  # fmt: skip
        return None
    listed, fits = _member_rule(member, (service, shape.name) in LIST_MEMBER_NOT_NULL)
    constraint = ("Map value" if is_map else "Member") + " must satisfy constraint: " + listed
    hidden = bool(member.metadata.get("sensitive") or shape.metadata.get("sensitive"))
    floating = member.type_name in ("double", "float")  # Java prints a Double as 2.0

    def check(value: Any, path: str, problems: Problems) -> None:
        if all(fits(v) for v in (value.values() if is_map else value)):
            return
        if hidden:
            shown: Any = SENSITIVE
        elif floating:
            shown = ({k: _double(v) for k, v in value.items()} if is_map else [_double(v) for v in value])
        else:
            shown = value
        problems.add(shown, path, constraint, "members")

    return check


def _double(v: Any) -> Any:
    return float(v) if isinstance(v, int) and not isinstance(v, bool) else v


def _length(md: dict[str, Any], length: int, value: Any, path: str, problems: Problems) -> None:
    if "min" in md and length < md["min"]:
        problems.add(value, path, f"Member must have length greater than or equal to {md['min']}", "min")
    elif "max" in md and length > md["max"]:
        problems.add(value, path, f"Member must have length less than or equal to {md['max']}", "max")


def validation_failure(service: str, code: str, problems: Problems, operation: str = "") -> ServiceError:
    """The service's validation error for the collected problems (coral's namespace on JSON)."""
    message = problems.outcome(service, operation) or problems.message()
    namespace = "com.amazon.coral.validate" if code == "ValidationException" else None
    return ServiceError(code, message, 400, namespace=namespace)
