"""JSONata (`QueryLanguage: JSONata`): `{% ... %}` expressions with `$states`, variables and the
Step Functions additions ($partition, $range, $hash, $random, $uuid, $parse).

Expressions are compiled once per text (jsonata-python) and evaluated with per-call bindings.
Failures are States.QueryEvaluationError with AWS's wording; the engine adds the state prefix.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import random
import re
import threading
import uuid
from functools import lru_cache
from typing import Any

from onceflow.sfn.asl import budget as _budget
from onceflow.sfn.asl import jsonata_js as _js
from onceflow.sfn.asl.errors import StateDataError
from onceflow.sfn.asl.jsonata_js import js_number_text
from onceflow.sfn.asl.jsonata_regex import regex_engine

_NOTHING = object()


class _OnFirstUse:
    """A module imported when first used: jsonata-python costs a tenth of a second of server
    start-up, and most runs evaluate no JSONata."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self.name), attr)


jsonata: Any = _OnFirstUse("jsonata")
jsonata_utils: Any = _OnFirstUse("jsonata.utils")


def is_jsonata(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("{%") and value.endswith("%}") and len(value) >= 4


def expression_text(value: str) -> str:
    """The expression inside `{% ... %}`, as AWS quotes it in messages."""
    return value[2:-2].strip()


@lru_cache(maxsize=1)
def _stack_overflow() -> Any:
    """What jsonata-js says when recursion runs out of stack (jsonata-python's wording of D1011)."""
    return jsonata.JException("D1011", -1)


class _Compiled:
    """One parsed expression; jsonata-python keeps per-evaluation state on the object, hence the lock.

    Reentrant: while one evaluation runs long, the engine may run other fibers' states on the same
    thread (a timeout falling due), and they may evaluate the same expression; jsonata-python saves
    and restores its per-evaluation state around nested evaluations ($eval does the same)."""

    def __init__(self, text: str) -> None:
        self.expr = jsonata.Jsonata(text, regex_engine)  # regex literals on RE2: linear time
        self.expr.set_output_convert_nulls(False)  # keep null (NULL_VALUE) apart from undefined (None)
        self.lock = threading.RLock()


@lru_cache(maxsize=4096)
def compile_jsonata(text: str) -> _Compiled:
    """Parse once per text; raises jsonata's JException for a syntax error."""
    return _compile(text)


def _compile(text: str) -> _Compiled:
    _as_aws_runs_it()
    compiled = _Compiled(text)
    for name, fn in _additions().items():
        compiled.expr.register_function(name, fn)
    return compiled


# AWS implements JSONata 2.0.6 ("Transforming data with JSONata in Step Functions", section
# "Supported JSONata version"): `??` and `?:` came with 2.1.0, and a 2.0 parser reads their `?` as
# the conditional operator followed by a symbol that cannot start an expression (S0211).
_NEWER_OPERATORS = {"InfixCoalesce": "?", "InfixDefault": ":"}
_patched = False
_patch_lock = threading.Lock()


def _as_aws_runs_it() -> None:
    """Patch jsonata-python once, where it departs from the jsonata-js 2.0.6 AWS runs: its parser
    refuses the 2.1 operators, numbers become text as jsonata-js writes them, and $sort and $power
    fail as jsonata-js's do (D3070, D3061) rather than with Python's errors, and T0410 names the
    argument jsonata-js names (jsonata_js.py)."""
    global _patched
    if _patched:
        return
    with _patch_lock:
        if not _patched:
            _patch()
            _patched = True


def _patch() -> None:
    parser = importlib.import_module("jsonata.parser").Parser
    for cls_name, symbol in _NEWER_OPERATORS.items():
        def led(self: Any, left: Any, _symbol: str = symbol) -> Any:
            raise jsonata.JException("S0211", self.position, _symbol)
        getattr(parser, cls_name).led = led
    functions = importlib.import_module("jsonata.functions").Functions
    encoder = functions.Encoder
    plain_encode = encoder.encode

    def encode(self: Any, arg: Any) -> Any:
        if isinstance(arg, (int, float)) and not isinstance(arg, bool):
            return js_number_text(arg)
        return plain_encode(self, arg)
    encoder.encode = encode
    _js.patch_functions(functions, jsonata.Jsonata.static_frame, jsonata)
    _js.patch_signature(importlib.import_module("jsonata.signature").Signature, jsonata)
    _js.patch_pictures(importlib.import_module("jsonata.datetimeutils").DateTimeUtils, jsonata)


def _message(e: Exception) -> str:
    """jsonata's message as jsonata-js words it: the Python port writes 'Object' where the original
    says 'function' ("The sqrt function cannot be applied ...")."""
    return re.sub(r"\bObject\b", "function", str(e))


def _evaluate(compiled: _Compiled, text: str, bindings: dict[str, Any]) -> Any:
    """Evaluate on the shared parse, or on a private one while another thread uses it (so that an
    expression that runs long in one execution never makes another execution wait for it)."""
    if not compiled.lock.acquire(blocking=False):
        return _compile(text).expr.evaluate(None, bindings)
    try:
        return compiled.expr.evaluate(None, bindings)
    finally:
        compiled.lock.release()


def jsonata_syntax_error(text: str) -> str | None:
    """None when the expression parses, else jsonata's message (AWS shows it without the code)."""
    try:
        compile_jsonata(text)
    except jsonata.JException as e:
        return _message(e)
    except Exception as e:  # the port raises plain errors for a few malformed inputs
        return str(e) or type(e).__name__
    return None


def evaluate_jsonata(text: str, states: dict[str, Any], variables: dict[str, Any] | None = None, *,
                     field: str = "Output") -> Any:
    """Evaluate one `{% ... %}` string (or a bare expression) with `$states` and the variables bound.

    Raises StateDataError("States.QueryEvaluationError", ...) when the expression fails, returns
    nothing (undefined) or returns something that is not JSON (a function).
    """
    expr = expression_text(text) if is_jsonata(text) else text
    # $eval is not available on AWS (same page as above: "use $parse instead"): unbound, so calling
    # it fails as calling any non-function does (T1006; AWS's wording there is UNCONFIRMED). A
    # variable of that name still wins.
    bindings: dict[str, Any] = {"eval": None}
    bindings.update((k, _to_jsonata(v)) for k, v in (variables or {}).items())
    bindings["states"] = _to_jsonata(states)
    budget = _budget.current()
    if budget is not None:  # jsonata-python calls this on entry to every node it evaluates
        bindings["__evaluate_entry"] = budget.tick
    try:
        raw = _evaluate(compile_jsonata(expr), expr, bindings)
    except jsonata.JException as e:
        raise _threw(expr, field, _js.message(e)) from None
    except RecursionError:  # a non-terminating recursive function: jsonata's stack overflow error
        raise _threw(expr, field, f"{_stack_overflow().error}: {_stack_overflow()}") from None
    except Exception as e:  # jsonata-python surfaces some evaluation errors as plain exceptions
        raise _threw(expr, field, _plain_error(e)) from None
    if raw is None:
        raise StateDataError(
            "States.QueryEvaluationError",
            f"The JSONata expression '{expr}' specified for the field '{field}' returned nothing (undefined).")
    value = _plain(raw)
    if value is _NOTHING:
        raise StateDataError(
            "States.QueryEvaluationError",
            f"The JSONata expression '{expr}' specified for the field '{field}' returned an unsupported result type.")
    return value


def _plain_error(e: Exception) -> str:
    """A plain Python exception from the port, in jsonata's words where Python's leak through."""
    if isinstance(e, (ZeroDivisionError, OverflowError)) or str(e) == "math domain error":
        # jsonata-js computes x/0 and x%0 as Infinity or NaN, which its number checks refuse
        # (D1001, whose message always ends in JSON.stringify(Infinity), `null`); the port raises
        # Python's arithmetic errors instead. UNCONFIRMED: no AWS recording of an out-of-range
        # number was found.
        return f"D1001: Number out of range: {_js.stringify(math.inf)}"
    code = _js.plain_code(e)
    if code is not None:
        return _js.message(jsonata.JException(code, -1))
    return str(e) or type(e).__name__


def _to_jsonata(value: Any) -> Any:
    """JSON null must reach jsonata-python as its NULL_VALUE (a Python None reads as undefined)."""
    if value is None:
        return jsonata_utils.Utils.NULL_VALUE
    if isinstance(value, dict):
        return {k: _to_jsonata(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_jsonata(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return _js.number_in(value)
    return value


def _threw(expr: str, field: str, message: str) -> StateDataError:
    return StateDataError(
        "States.QueryEvaluationError",
        f"The JSONata expression '{expr}' specified for the field '{field}' threw an error during "
        f"evaluation. {message}")


def _plain(value: Any) -> Any:
    """jsonata-python's result as plain JSON values, or _NOTHING when it holds a function."""
    if value is jsonata_utils.Utils.NULL_VALUE:
        return None
    if isinstance(value, bool) or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return _js.number_out(value)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if v is None:  # undefined members are dropped, as jsonata-js does when serializing
                continue
            pv = _plain(v)
            if pv is _NOTHING:
                return _NOTHING
            out[k] = pv
        return out
    if isinstance(value, list):
        items = [_plain(v) for v in value if v is not None]
        return _NOTHING if any(v is _NOTHING for v in items) else items
    return _NOTHING


def evaluate_template(value: Any, states: dict[str, Any], variables: dict[str, Any] | None = None, *,
                      field: str = "Output") -> Any:
    """Walk objects and arrays and evaluate every `{% %}` string (Arguments, Output, Assign, ...).

    Nested failures name the field as AWS does: `Output/result`, `Assign/x`, `Output/list[0]`.
    """
    if is_jsonata(value):
        return evaluate_jsonata(value, states, variables, field=field)
    if isinstance(value, dict):
        return {k: evaluate_template(v, states, variables, field=f"{field}/{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [evaluate_template(v, states, variables, field=f"{field}[{i}]") for i, v in enumerate(value)]
    return value


def json_type(value: Any) -> str:
    """The JSON type name AWS uses in its messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    names: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return names.get(type(value), "unknown")


def expect_type(value: Any, expected: str, text: str, field: str) -> Any:
    """Check an evaluated field's type (e.g. Map `Items` must be an array) with AWS's message."""
    if json_type(value) != expected:
        expr = expression_text(text) if is_jsonata(text) else text
        shown = _js.stringify(value, keep_null=True)  # state data: a null member is printed
        raise StateDataError(
            "States.QueryEvaluationError",
            f"The JSONata expression '{expr}' specified for the field '{field}' returned an unexpected "
            f"result type. Expected '{expected}', but was '{json_type(value)}' for value: {shown}")
    return value


# --------------------------------------------------------------------------- Step Functions additions
# AWS's six functions ("Transforming data with JSONata in Step Functions"), bound with signatures so
# that a wrong argument is jsonata's T0410 as for any library function. What each does at its
# edges follows measurements on AWS published by another emulator's authors (floci-io/floci #2662,
# #2676) and LocalStack's AWS recording of `$range(1, 9, 9)` (a single item comes out bare, as a
# JSONata sequence of one does): integer arguments are truncated towards zero; `$range` includes
# its end and gives nothing for a zero step, a step away from the end or no step; `$partition`
# gives nothing for an empty array or a zero chunk size, and the whole array as one chunk without
# one; `$hash` gives nothing without an algorithm; `$random(seed)` draws as java.util.Random.
class AdditionError(ValueError):
    """A bad call of a Step Functions addition; surfaces as 'threw an error during evaluation'."""


def _fail(message: str) -> AdditionError:
    return AdditionError(message)


def _not_null(value: Any, index: int, name: str) -> Any:
    """jsonata-js refuses a null where its signature wants a string (T0410); jsonata-python's
    signature check lets null through."""
    if value is jsonata_utils.Utils.NULL_VALUE:
        raise jsonata.JException("T0410", -1, index, name)
    return value


def _whole(value: Any) -> int:
    return math.trunc(float(value))


_HASHES = {"MD5": "md5", "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512"}
# UNCONFIRMED: no safety bound is documented for $range (the measurements found an evaluation-wide
# memory limit instead, worded unknown); this one keeps a runaway range from exhausting the server.
_MAX_RANGE = 10_000_000


def _java_random(seed: int) -> float:
    """java.util.Random(seed).nextDouble(): the 48-bit linear congruential generator, 53 bits."""
    multiplier, mask = 0x5DEECE66D, (1 << 48) - 1
    state = (seed ^ multiplier) & mask
    halves = []
    for bits in (26, 27):
        state = (state * multiplier + 0xB) & mask
        halves.append(state >> (48 - bits))
    return float(((halves[0] << 27) + halves[1]) * 2.0**-53)


class _Dialect:
    """The additions as jsonata-python native functions (its arguments padded with None)."""

    @staticmethod
    def partition(array: Any, size: Any) -> Any:
        if not isinstance(array, list) or not array:
            return None
        if size is None:
            return [list(array)]
        n = _whole(size)
        if n < 0:
            raise _fail("D3137: Second argument must be zero or greater")
        if n == 0:
            return None
        return [array[i:i + n] for i in range(0, len(array), n)]

    @staticmethod
    def range(start: Any, end: Any, step: Any) -> Any:
        if step is None:
            return None
        a, b, s = _whole(start), _whole(end), _whole(step)
        if s == 0:
            return None
        values = range(a, b + (1 if s > 0 else -1), s)
        if len(values) > _MAX_RANGE:
            raise _fail(f"D3137: The result of $range must not contain more than {_MAX_RANGE} items")
        return jsonata_utils.Utils.create_sequence_from_iter(values)

    @staticmethod
    def hash(data: Any, algorithm: Any) -> Any:
        _not_null(data, 1, "hash")
        _not_null(algorithm, 2, "hash")
        if data is None or algorithm is None:
            return None
        if algorithm not in _HASHES:
            # UNCONFIRMED: AWS's wording (a D3137 error per the measurements above)
            raise _fail(f"D3137: The algorithm argument of $hash must be one of {', '.join(_HASHES)}")
        return hashlib.new(_HASHES[algorithm], str(data).encode()).hexdigest()

    @staticmethod
    def random(seed: Any) -> float:
        return random.random() if seed is None else _java_random(_whole(seed))

    @staticmethod
    def uuid() -> str:
        return str(uuid.uuid4())

    @staticmethod
    def parse(text: Any) -> Any:
        if _not_null(text, 1, "parse") is None:
            return None
        try:
            return _to_jsonata(json.loads(text))
        except ValueError:
            # UNCONFIRMED: AWS's wording (a D3137 error per the measurements above)
            raise _fail(f"D3137: The argument of $parse is not valid JSON: {text}") from None


_SIGNATURES = {"partition": "<an?:a>", "range": "<nnn?:a>", "hash": "<ss?:s>", "random": "<n?:n>",
               "uuid": "<:s>", "parse": "<s?:x>"}


@lru_cache(maxsize=1)
def _additions() -> dict[str, Any]:
    return {name: jsonata.Jsonata.function(name, signature, _Dialect, name)
            for name, signature in _SIGNATURES.items()}


# --------------------------------------------------------------------------- static checks
def top_level_references(text: str) -> list[str]:
    """Names a JSONata expression reads from the (absent) context item: AWS rejects them.

    Step Functions evaluates with no input document, so `phone` or `a.b` at the top level can
    only mean a mistake for `$states.input.phone`. Walks operators, calls, blocks, conditions and
    constructors; never into a path's later steps or predicates, where names are relative.
    """
    try:
        ast = compile_jsonata(text).expr.ast
    except Exception:
        return []
    found: list[str] = []
    _walk_references(ast, found)
    return list(dict.fromkeys(found))


def _walk_references(node: Any, found: list[str]) -> None:
    if node is None:
        return
    kind = getattr(node, "type", None)
    if kind == "name":
        found.append(str(node.value))
        return
    if kind == "path":
        steps = node.steps or []
        if steps:
            _walk_references(steps[0], found)
        return
    for attr in ("lhs", "rhs", "condition", "then", "_else", "expression", "body", "procedure"):
        child = getattr(node, attr, None)
        if child is not None and not isinstance(child, (str, int, float, bool, list)):
            _walk_references(child, found)
    for attr in ("arguments", "expressions"):
        for child in getattr(node, attr, None) or []:
            _walk_references(child, found)
    for pair in getattr(node, "lhs_object", None) or []:
        for child in pair:
            _walk_references(child, found)
