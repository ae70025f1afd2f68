"""The CloudFormation template engine (pure): reading JSON/YAML templates, parameters, conditions,
intrinsic functions, the order resources are made in and the outputs.

Errors are `TemplateError`s carrying AWS's ValidationError message; the service turns them into
ServiceErrors. Values a resource exposes (its Ref and attributes) come from the caller through
`Env.resources`/`Env.attributes`, so nothing here knows about other services.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from onceflow.patterns.regex import UnsupportedRegex, compile_linear

PSEUDO = ("AWS::AccountId", "AWS::Region", "AWS::StackName", "AWS::StackId", "AWS::Partition",
          "AWS::URLSuffix", "AWS::NoValue", "AWS::NotificationARNs")
FUNCTIONS = ("Fn::GetAtt", "Fn::Sub", "Fn::Join", "Fn::Select", "Fn::Split", "Fn::If", "Fn::Equals", "Fn::And",
             "Fn::Or", "Fn::Not", "Fn::FindInMap", "Fn::GetAZs", "Fn::Base64", "Fn::ImportValue", "Fn::Cidr",
             "Fn::Length", "Fn::ToJsonString", "Fn::Transform")


class TemplateError(Exception):
    """A template or its parameters are wrong: AWS's ValidationError with this message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _NoValue:
    """AWS::NoValue: the property (or list item) it stands for is removed."""


NO_VALUE = _NoValue()


# ------------------------------------------------------------------ reading
class _Loader(yaml.SafeLoader):
    """YAML as CloudFormation reads it: short-form tags, and dates kept as text (the version)."""


_Loader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _tag(loader: _Loader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "Condition":
        return {"Condition": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_Loader.add_multi_constructor("!", _tag)


# The most nodes a YAML template may stand for once its aliases are expanded. A template fits in
# 1 MB, so one without aliases has fewer; more is an alias bomb ("billion laughs"), which every
# later walk of the template (resolution, storage) would expand.
MAX_EXPANDED_NODES = 1_000_000
# The deepest nesting of collections a YAML template may have. Fixed here, not left to where the
# composer's recursion runs out: that depends on the process's recursion limit, which the JSONata
# library raises to 10,000 on its first use, so the same template was refused or read depending on
# whether a JSONata state machine had run first. Real templates nest a few dozen levels; AWS's own
# limit is UNCONFIRMED.
MAX_DEPTH = 256


def _load_yaml(text: str) -> Any:
    """yaml.load with _Loader, refusing a document whose aliases expand past MAX_EXPANDED_NODES."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, {}, 0) > MAX_EXPANDED_NODES:
            raise TemplateError("Template format error: YAML not well-formed.")
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _expanded_size(node: yaml.Node, sizes: dict[int, int], depth: int) -> int:
    """How many nodes `node` stands for with its aliases expanded; each distinct node sized once.
    Refuses nesting past MAX_DEPTH."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    if depth > MAX_DEPTH:
        raise TemplateError("Template format error: YAML not well-formed.")
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(item, sizes, depth + 1) for item in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes, depth + 1) + _expanded_size(v, sizes, depth + 1) for k, v in node.value)
    sizes[id(node)] = size
    return size


def parse(text: str) -> dict[str, Any]:
    """The template document; AWS's 'not well-formed' error for bad JSON or YAML."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TemplateError(f"Template format error: JSON not well-formed. (line {exc.lineno}, "
                                f"column {exc.colno})") from None
        except (ValueError, RecursionError):  # a number past Python's 4300 digits, nesting past its parser
            raise TemplateError("Template format error: JSON not well-formed.") from None
    else:
        try:
            doc = _load_yaml(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
            raise TemplateError(f"Template format error: YAML not well-formed.{where}") from None
        except (ValueError, RecursionError):  # as for JSON: too deep, or an integer too long to convert
            raise TemplateError("Template format error: YAML not well-formed.") from None
    if not isinstance(doc, dict):
        raise TemplateError("Template format error: unsupported structure.")
    return doc


# ------------------------------------------------------------------ the template
@dataclass
class Template:
    doc: dict[str, Any]

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        return self.doc.get("Resources") or {}

    @property
    def parameters(self) -> dict[str, dict[str, Any]]:
        return self.doc.get("Parameters") or {}

    @property
    def description(self) -> str | None:
        d = self.doc.get("Description")
        return str(d) if d is not None else None

    @property
    def transforms(self) -> list[str]:
        t = self.doc.get("Transform")
        if t is None:
            return []
        return [t] if isinstance(t, str) else [str(x) for x in t]


def load(text: str) -> Template:
    """A template checked for what AWS checks before anything is made."""
    template = Template(parse(text))
    check(template)
    return template


def check(template: Template) -> None:
    res = template.doc.get("Resources")
    if not isinstance(res, dict) or not res:
        raise TemplateError("Template format error: At least one Resources member must be defined.")
    for name, body in res.items():
        if not isinstance(body, dict) or "Type" not in body:
            raise TemplateError(f"Template format error: [/Resources/{name}] Every Resources object must "
                                "contain a Type member.")
    known = set(res) | set(template.parameters) | set(PSEUDO)
    missing = sorted({r for body in res.values() for r in refs(body) if r not in known})
    if missing:
        raise TemplateError(f"Template format error: Unresolved resource dependencies [{', '.join(missing)}] in "
                            "the Resources block of the template")
    for name, body in res.items():
        deps = body.get("DependsOn")
        for d in [deps] if isinstance(deps, str) else deps or []:
            if d not in res:
                raise TemplateError(f"Template format error: Unresolved resource dependencies [{d}] in the "
                                    "Resources block of the template")
        _ = name
    order(template)


def refs(node: Any) -> set[str]:
    """Every name a node refers to through Ref, Fn::GetAtt and Fn::Sub."""
    found: set[str] = set()
    _refs(node, found, set())
    return found


def _refs(node: Any, found: set[str], local: set[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _refs(item, found, local)
    elif isinstance(node, dict):
        if len(node) == 1:
            (key, value), = node.items()
            if key == "Ref" and isinstance(value, str):
                if value not in local:
                    found.add(value)
                return
            if key == "Fn::GetAtt":
                target = value[0] if isinstance(value, list) and value else str(value).split(".", 1)[0]
                if isinstance(target, str):
                    found.add(target)
                return
            if key == "Fn::Sub":
                text, variables = (value, {}) if isinstance(value, str) else (value[0], value[1])
                names = set(variables) if isinstance(variables, dict) else set()
                for var in _SUB_VAR.findall(text if isinstance(text, str) else ""):
                    name = var.split(".", 1)[0]
                    if name not in names:
                        found.add(name)
                _refs(variables, found, local)
                return
        for value in node.values():
            _refs(value, found, local)


def dependencies(template: Template) -> dict[str, set[str]]:
    res = template.resources
    out: dict[str, set[str]] = {}
    for name, body in res.items():
        deps = {r for r in refs({k: v for k, v in body.items() if k != "DependsOn"}) if r in res}
        extra = body.get("DependsOn")
        deps |= {extra} if isinstance(extra, str) else set(extra or [])
        out[name] = deps
    return out


def order(template: Template) -> list[str]:
    """Resources in an order where each comes after what it depends on (template order otherwise)."""
    deps = dependencies(template)
    done: list[str] = []
    placed: set[str] = set()
    pending = list(deps)
    while pending:
        ready = [n for n in pending if deps[n] <= placed]
        if not ready:
            raise TemplateError(f"Circular dependency between resources: [{', '.join(sorted(pending))}]")
        for n in ready:
            done.append(n)
            placed.add(n)
        pending = [n for n in pending if n not in placed]
    return done


# ------------------------------------------------------------------ parameters and conditions
def resolve_parameters(template: Template, given: Mapping[str, str]) -> dict[str, Any]:
    """Parameter values: given ones, else defaults; AWS's errors for unknown or missing ones."""
    declared = template.parameters
    unknown = [k for k in given if k not in declared]
    if unknown:
        raise TemplateError(f"Parameters: [{', '.join(unknown)}] do not exist in the template")
    values: dict[str, Any] = {}
    missing = []
    for name, spec in declared.items():
        if name in given:
            raw: Any = given[name]
        elif "Default" in spec:
            raw = spec["Default"]
        else:
            missing.append(name)
            continue
        raw = "" if raw is None else raw
        kind = str(spec.get("Type", "String"))
        if kind.startswith("AWS::SSM::Parameter::Value<"):  # onceflow serves no SSM: no parameter exists
            raise TemplateError(f"Unable to fetch parameters [{raw}] from parameter store for this account.")
        if kind.startswith("List<") or kind == "CommaDelimitedList":
            values[name] = raw if isinstance(raw, list) else [s.strip() for s in str(raw).split(",")] if raw else []
        else:
            values[name] = str(raw).lower() if isinstance(raw, bool) else str(raw)
        allowed = spec.get("AllowedValues")
        if allowed is not None and values[name] not in [str(a) for a in allowed]:
            raise TemplateError(spec.get("ConstraintDescription") or
                                f"Parameter '{name}' must be one of AllowedValues")
        if kind == "Number":
            try:
                float(values[name])
            except ValueError:
                raise TemplateError(f"Parameter '{name}' must be a number.") from None
        _constraints(name, spec, values[name])
    if missing:
        raise TemplateError(f"Parameters: [{', '.join(missing)}] must have values")
    return values


def _constraints(name: str, spec: Mapping[str, Any], value: Any) -> None:
    """AllowedPattern, Min/MaxLength and Min/MaxValue, with AWS's messages (ConstraintDescription
    when the template gives one)."""
    texts = value if isinstance(value, list) else [value]
    problem = None
    for text in texts:
        if "AllowedPattern" in spec:
            try:
                matched = compile_linear(str(spec["AllowedPattern"])).fullmatch(text) is not None
            except UnsupportedRegex:
                matched = False
            if not matched:
                problem = f"Parameter '{name}' must match pattern {spec['AllowedPattern']}"
        if "MinLength" in spec and len(text) < int(spec["MinLength"]):
            problem = f"Parameter '{name}' must contain at least {spec['MinLength']} characters"
        if "MaxLength" in spec and len(text) > int(spec["MaxLength"]):
            problem = f"Parameter '{name}' must contain at most {spec['MaxLength']} characters"
        if "MinValue" in spec and _number(text) < float(spec["MinValue"]):
            problem = f"Parameter '{name}' must be a number not less than {spec['MinValue']}"
        if "MaxValue" in spec and _number(text) > float(spec["MaxValue"]):
            problem = f"Parameter '{name}' must be a number not greater than {spec['MaxValue']}"
        if problem is not None:
            raise TemplateError(spec.get("ConstraintDescription") or problem)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")  # compares false both ways: a Number parameter is checked as one already


@dataclass
class Env:
    """What intrinsic functions see: pseudo parameters, parameter values, made resources."""

    account: str
    region: str
    stack_name: str
    stack_id: str
    parameters: dict[str, Any]
    mappings: dict[str, Any] = field(default_factory=dict)
    conditions: dict[str, bool] = field(default_factory=dict)
    resources: dict[str, str] = field(default_factory=dict)  # logical id -> Ref value
    attributes: Callable[[str, str], Any] | None = None  # (logical id, attribute) -> value
    imports: Callable[[str], Any] | None = None  # export name -> value (Fn::ImportValue)

    def pseudo(self, name: str) -> Any:
        return {
            "AWS::AccountId": self.account, "AWS::Region": self.region, "AWS::StackName": self.stack_name,
            "AWS::StackId": self.stack_id, "AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com",
            "AWS::NoValue": NO_VALUE, "AWS::NotificationARNs": [],
        }[name]


def conditions(template: Template, env: Env) -> dict[str, bool]:
    """Each condition's value (a condition may name another)."""
    raw = template.doc.get("Conditions") or {}
    out: dict[str, bool] = {}

    def value(name: str, seen: tuple[str, ...]) -> bool:
        if name in out:
            return out[name]
        if name not in raw:
            raise TemplateError(f"Template format error: Unresolved condition dependencies [{name}] in the "
                                "Conditions block of the template")
        if name in seen:
            raise TemplateError(f"Circular dependency between conditions: [{', '.join(seen)}]")
        out[name] = bool(evaluate(raw[name], env, lambda n: value(n, (*seen, name))))
        return out[name]

    for name in raw:
        value(name, ())
    env.conditions = out
    return out


def included(body: Mapping[str, Any], env: Env) -> bool:
    cond = body.get("Condition")
    if cond is None:
        return True
    if cond not in env.conditions:
        raise TemplateError(f"Template format error: Unresolved condition dependencies [{cond}] in the "
                            "Conditions block of the template")
    return env.conditions[cond]


# ------------------------------------------------------------------ intrinsic functions
_SUB_VAR = re.compile(r"\$\{(?!!)([^}]*)\}")


def evaluate(node: Any, env: Env, condition: Callable[[str], bool] | None = None) -> Any:
    """A node with its intrinsic functions applied; NO_VALUE members are dropped."""
    if isinstance(node, list):
        return [v for v in (evaluate(i, env, condition) for i in node) if v is not NO_VALUE]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        (key, arg), = node.items()
        if key == "Ref":
            return _ref(str(arg), env)
        if key == "Condition" and condition is not None:
            return condition(str(arg))
        if key.startswith("Fn::"):
            return _function(key, arg, env, condition)
    out = {}
    for k, v in node.items():
        value = evaluate(v, env, condition)
        if value is not NO_VALUE:
            out[k] = value
    return out


def _ref(name: str, env: Env) -> Any:
    if name in PSEUDO:
        return env.pseudo(name)
    if name in env.parameters:
        return env.parameters[name]
    if name in env.resources:
        return env.resources[name]
    raise TemplateError(f"Template format error: Unresolved resource dependencies [{name}] in the Resources "
                        "block of the template")


def _getatt(arg: Any, env: Env) -> Any:
    if isinstance(arg, str):
        arg = arg.split(".", 1)
    if not isinstance(arg, list) or len(arg) != 2:
        raise TemplateError("Template error: every Fn::GetAtt object requires two non-empty parameters")
    name, attribute = arg[0], evaluate(arg[1], env)
    if name not in env.resources or env.attributes is None:
        raise TemplateError(f"Template error: instance of Fn::GetAtt references undefined resource {name}")
    return env.attributes(str(name), str(attribute))


def _sub(arg: Any, env: Env) -> str:
    if isinstance(arg, str):
        text, variables = arg, {}
    elif isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str) and isinstance(arg[1], dict):
        text, variables = arg[0], {k: evaluate(v, env) for k, v in arg[1].items()}
    else:
        raise TemplateError("Template error: One or more Fn::Sub intrinsic functions don't specify expected "
                            "arguments. Specify a string as first argument, and an optional second argument to "
                            "specify a mapping of values to replace in the string")

    def one(m: re.Match[str]) -> str:
        var = m.group(1).strip()
        if var in variables:
            return _text(variables[var])
        if "." in var and var.split(".", 1)[0] in env.resources:
            return _text(_getatt(var.split(".", 1), env))
        return _text(_ref(var, env))

    return _SUB_VAR.sub(one, text).replace("${!", "${")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def _function(key: str, arg: Any, env: Env, condition: Callable[[str], bool] | None) -> Any:
    ev = lambda n: evaluate(n, env, condition)  # noqa: E731
    if key == "Fn::GetAtt":
        return _getatt(arg, env)
    if key == "Fn::Sub":
        return _sub(arg, env)
    if key == "Fn::Join":
        sep, items = _args(key, arg, 2)
        values = ev(items)
        if not isinstance(values, list):
            raise TemplateError("Template error: every Fn::Join object requires two parameters, (1) a string "
                                "delimiter and (2) a list of strings to be joined or a function that returns a "
                                "list of strings (such as Fn::GetAZs) to be joined.")
        return str(ev(sep)).join(_text(v) for v in values)
    if key == "Fn::Select":
        index, items = _args(key, arg, 2)
        values, i = ev(items), int(ev(index))
        if not isinstance(values, list) or not 0 <= i < len(values):
            raise TemplateError("Template error: Fn::Select cannot select nonexistent value at index " + str(i))
        return values[i]
    if key == "Fn::Split":
        sep, text = _args(key, arg, 2)
        return str(ev(text)).split(str(ev(sep)))
    if key == "Fn::If":
        name, yes, no = _args(key, arg, 3)
        if name not in env.conditions:
            raise TemplateError(f"Template error: unresolved condition dependency {name} in Fn::If")
        return ev(yes) if env.conditions[name] else ev(no)
    if key == "Fn::Equals":
        a, b = _args(key, arg, 2)
        return _text(ev(a)) == _text(ev(b))
    if key == "Fn::And":
        return all(bool(ev(c)) for c in arg)
    if key == "Fn::Or":
        return any(bool(ev(c)) for c in arg)
    if key == "Fn::Not":
        (c,) = _args(key, arg, 1)
        return not bool(ev(c))
    if key == "Fn::FindInMap":
        m, k1, k2 = (ev(a) for a in _args(key, arg, 3))
        try:
            return env.mappings[m][k1][k2]
        except (KeyError, TypeError):
            raise TemplateError(f"Template error: Unable to get mapping for {m}::{k1}::{k2}") from None
    if key == "Fn::GetAZs":
        region = ev(arg) or env.region
        return [f"{region}{z}" for z in "abc"]
    if key == "Fn::Base64":
        return base64.b64encode(_text(ev(arg)).encode()).decode()
    if key == "Fn::ImportValue":
        name = _text(ev(arg))
        if env.imports is None:
            raise TemplateError(f"No export named {name} found")
        return env.imports(name)
    if key == "Fn::Cidr":
        return _cidr(*_args(key, ev(arg), 3))
    if key == "Fn::Length":
        return len(ev(arg))
    if key == "Fn::ToJsonString":
        return json.dumps(ev(arg), separators=(",", ":"))
    raise TemplateError(f"Template error: Encountered unsupported function: {key} Supported functions are: "
                        f"[{', '.join(['Ref', *FUNCTIONS[:12]])}]")


def _cidr(block: Any, count: Any, bits: Any) -> list[str]:
    """Fn::Cidr: the first `count` subnets of `block` with `bits` host bits each."""
    try:
        network = ipaddress.ip_network(str(block), strict=False)
        n, host_bits = int(count), int(bits)
    except ValueError:
        raise TemplateError("Template error: Fn::Cidr requires an IP block in CIDR notation, a count and the "
                            "number of subnet bits") from None
    prefix = network.max_prefixlen - host_bits
    if not 1 <= n <= 256 or prefix < network.prefixlen or host_bits < 0 or n > 2 ** (prefix - network.prefixlen):
        raise TemplateError(f"Template error: Fn::Cidr cannot make {n} subnets of {host_bits} bits in {block}")
    subnets = network.subnets(new_prefix=prefix)
    return [str(next(subnets)) for _ in range(n)]


def _args(key: str, arg: Any, n: int) -> list[Any]:
    if not isinstance(arg, list) or len(arg) != n:
        raise TemplateError(f"Template error: {key} requires {n} arguments")
    return arg


def outputs(template: Template, env: Env) -> list[dict[str, Any]]:
    out = []
    for key, body in (template.doc.get("Outputs") or {}).items():
        if not included(body, env):
            continue
        item: dict[str, Any] = {"OutputKey": key, "OutputValue": _text(evaluate(body.get("Value"), env))}
        if body.get("Description") is not None:
            item["Description"] = str(body["Description"])
        export = (body.get("Export") or {}).get("Name")
        if export is not None:
            item["ExportName"] = _text(evaluate(export, env))
        out.append(item)
    return out
