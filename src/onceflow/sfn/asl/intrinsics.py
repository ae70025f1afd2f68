"""The JSONPath-mode intrinsic functions (`States.Format(...)` and friends).

An expression is parsed once per text into a small tree (Call / Lit / PathArg) and evaluated
against the state input (`$`), the context object (`$$`) and the variables (`$name`).
A call whose arguments a function refuses fails with States.Runtime and the cause "Invalid
arguments in States.<Name>" (the engine prefixes the state's name), as AWS answers; a text that
is no intrinsic call at all (refused at creation, so only reached by direct use) is
States.IntrinsicFailure. A path argument that matches nothing raises PathNotFound (the caller
words it for its field).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import re
import uuid
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from onceflow.sfn.asl.budget import checkpoint
from onceflow.sfn.asl.errors import StateDataError
from onceflow.sfn.asl.paths import PathSyntaxError, compile_path, resolve_path, to_json

_NAME = re.compile(r"States\.[A-Za-z0-9]+")
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")
_ESCAPABLE = "'{}\\"
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_MAX_STRING = 10000  # AWS's documented limit on the string arguments of the encoding and hash functions
# "You can nest up to 10 intrinsic functions within a field" (AWS's intrinsic functions page): a
# deeper call is no valid intrinsic function call, so the definition is refused with the message of
# any invalid one (UNCONFIRMED: no AWS recording of a call nested 11 deep was found).
_MAX_NESTING = 10


@dataclass(frozen=True)
class Lit:
    value: Any
    raw: str | None = None  # a string literal's text with its escapes kept (States.Format needs them)


@dataclass(frozen=True)
class PathArg:
    path: str


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[Any, ...]


class IntrinsicSyntaxError(ValueError):
    pass


# --------------------------------------------------------------------------- parsing
@lru_cache(maxsize=4096)
def parse_intrinsic(text: str) -> Call:
    p = _Parser(text)
    p.space()
    call = p.call()
    p.space()
    if p.i != len(text):
        raise IntrinsicSyntaxError(f"unexpected text after the function call: {text[p.i:]!r}")
    return call


def is_intrinsic(text: Any) -> bool:
    return isinstance(text, str) and text.lstrip().startswith("States.")


def is_valid_intrinsic(text: str) -> bool:
    try:
        call = parse_intrinsic(text)
    except IntrinsicSyntaxError:
        return False
    return _known(call)


def _known(node: Any) -> bool:
    if isinstance(node, Call):
        return node.name in FUNCTIONS and all(_known(a) for a in node.args)
    return True


class _Parser:
    def __init__(self, text: str) -> None:
        self.s, self.i = text, 0

    def space(self) -> None:
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def call(self, depth: int = 1) -> Call:
        if depth > _MAX_NESTING:
            raise IntrinsicSyntaxError(f"intrinsic functions nest at most {_MAX_NESTING} deep")
        m = _NAME.match(self.s, self.i)
        if not m:
            raise IntrinsicSyntaxError(f"expected an intrinsic function at {self.i}")
        self.i = m.end()
        self.space()
        if not self.s.startswith("(", self.i):
            raise IntrinsicSyntaxError(f"expected '(' after {m.group(0)}")
        self.i += 1
        args: list[Any] = []
        self.space()
        if self.s.startswith(")", self.i):
            self.i += 1
            return Call(m.group(0), ())
        while True:
            self.space()
            args.append(self.arg(depth))
            self.space()
            if self.s.startswith(",", self.i):
                self.i += 1
            elif self.s.startswith(")", self.i):
                self.i += 1
                return Call(m.group(0), tuple(args))
            else:
                raise IntrinsicSyntaxError(f"expected ',' or ')' at {self.i}")

    def arg(self, depth: int) -> Any:
        rest = self.s[self.i:]
        if rest.startswith("'"):
            return self.string()
        if rest.startswith("States."):
            return self.call(depth + 1)
        if rest.startswith("$"):
            return self.path()
        for word, value in (("true", True), ("false", False), ("null", None)):
            if rest.startswith(word) and not rest[len(word):len(word) + 1].isalnum():
                self.i += len(word)
                return Lit(value)
        m = _NUMBER.match(self.s, self.i)
        if m:
            self.i = m.end()
            text = m.group(0)
            return Lit(float(text) if m.group(1) or m.group(2) else int(text))
        raise IntrinsicSyntaxError(f"unexpected argument at {self.i}: {rest[:20]!r}")

    def string(self) -> Lit:
        j, out = self.i + 1, []
        while j < len(self.s):
            c = self.s[j]
            if c == "\\":
                # AWS documents exactly four escapes: \' \{ \} \\ (and rejects e.g. \" at creation)
                if j + 1 >= len(self.s) or self.s[j + 1] not in _ESCAPABLE:
                    raise IntrinsicSyntaxError(f"illegal escape sequence at {j}")
                out.append(self.s[j:j + 2])
                j += 2
                continue
            if c == "'":
                raw = "".join(out)
                self.i = j + 1
                return Lit(re.sub(r"\\(.)", r"\1", raw, flags=re.S), raw)
            out.append(c)
            j += 1
        raise IntrinsicSyntaxError("unterminated string literal")

    def path(self) -> PathArg:
        depth, quote, j = 0, None, self.i
        while j < len(self.s):
            c = self.s[j]
            if quote:
                quote = None if c == quote else quote
            elif c in "'\"" and depth:
                quote = c
            elif c in "[(":
                depth += 1
            elif c in "])" and depth:
                depth -= 1
            elif depth == 0 and (c in ",)" or c.isspace()):
                break
            j += 1
        text = self.s[self.i:j]
        try:
            compile_path(text)
        except PathSyntaxError as e:
            raise IntrinsicSyntaxError(str(e)) from e
        self.i = j
        return PathArg(text)


# --------------------------------------------------------------------------- evaluation
def evaluate_intrinsic(expression: str, data: Any, context: Any, variables: dict[str, Any] | None = None) -> Any:
    try:
        call = parse_intrinsic(expression)
    except IntrinsicSyntaxError as e:
        raise StateDataError("States.IntrinsicFailure",
                             f"Invalid intrinsic function call '{expression}': {e}") from None
    return _eval_call(call, data, context, variables)


def _eval_call(call: Call, data: Any, context: Any, variables: dict[str, Any] | None) -> Any:
    checkpoint()  # an execution's deadline or StopExecution ends even a long run of calls
    if call.name not in FUNCTIONS:
        raise StateDataError("States.IntrinsicFailure", f"The function '{call.name}' is not supported")
    if call.name == "States.Format":
        if not call.args or not isinstance(call.args[0], Lit) or not isinstance(call.args[0].value, str):
            raise _fail(call.name, "The first argument must be a string literal")
        rest = [_eval_arg(a, data, context, variables) for a in call.args[1:]]
        return _format(call.args[0].raw or "", rest)
    args = [_eval_arg(a, data, context, variables) for a in call.args]
    return FUNCTIONS[call.name](call.name, args)  # type: ignore[misc]  # only States.Format is None, handled above


def _eval_arg(arg: Any, data: Any, context: Any, variables: dict[str, Any] | None) -> Any:
    if isinstance(arg, Lit):
        return arg.value
    if isinstance(arg, PathArg):
        return resolve_path(arg.path, data, context, variables)
    return _eval_call(arg, data, context, variables)


def _fail(name: str, why: str) -> StateDataError:
    """AWS's answer to arguments a function refuses: error States.Runtime, the cause naming only the
    function (independent AWS-run suites assert `States.Runtime` and "Invalid arguments in
    States.MathAdd" / ArrayPartition / ArrayRange / StringToJson; UNCONFIRMED that nothing follows
    the name). `why` is for the reader of the call site: AWS does not say which rule failed."""
    del why
    return StateDataError("States.Runtime", f"Invalid arguments in {name}")


def _arity(name: str, args: list[Any], low: int, high: int | None = None) -> None:
    high = low if high is None else high
    if not low <= len(args) <= high:
        want = str(low) if low == high else f"{low} to {high}"
        raise _fail(name, f"expected {want} argument(s), got {len(args)}")


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _want(name: str, value: Any, kind: str, position: int) -> Any:
    ok = {"string": isinstance(value, str), "array": isinstance(value, list),
          "object": isinstance(value, dict), "number": _is_num(value),
          "integer": _is_num(value) and math.isfinite(value), "boolean": isinstance(value, bool)}[kind]
    if not ok:
        raise _fail(name, f"argument {position} must be of type {kind}, got {to_json(value)}")
    # AWS truncates a fractional count, index or bound towards zero (Java's intValue): observed on
    # AWS, ArrayPartition(a, 2.4) and (a, 2.6) both chunk by 2, (a, 0.6) is refused, ArrayRange(1.6,
    # 1.4, 1) is [1], ArrayRange(1, 10, 0.49) is refused
    return int(value) if kind == "integer" else value


def _java_length(text: str) -> int:
    """A string's length as Java counts it (UTF-16 code units: a character outside the BMP counts
    two), which AWS's 10000-character limit is presumably measured in (UNCONFIRMED)."""
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return to_json(value)


def java_text(value: Any) -> str:
    """A value as AWS's Java prints it into text (States.Format's arguments, the `path == value` of
    runtime errors): strings bare, objects and arrays as Map/List toString writes them
    (`{Arg1=1, Arg2=[a, b]}`, as AWS recorded), the rest as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={java_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(java_text(v) for v in value) + "]"
    return to_json(value)


def _format(raw: str, args: list[Any]) -> str:
    out, k, j = [], 0, 0
    while j < len(raw):
        c = raw[j]
        if c == "\\" and j + 1 < len(raw):
            out.append(raw[j + 1])
            j += 2
        elif raw.startswith("{}", j):
            if k >= len(args):
                raise _fail("States.Format", "the number of arguments does not match the number of placeholders")
            out.append(java_text(args[k]))
            k += 1
            j += 2
        else:
            out.append(c)
            j += 1
    if k != len(args):
        raise _fail("States.Format", "the number of arguments does not match the number of placeholders")
    return "".join(out)


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values (Python's True == 1 must not hold here)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_num(a) and _is_num(b):
        equal: bool = a == b
        return equal
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def java_round(x: float) -> int:
    """Java's Math.round (half up towards +infinity): AWS's MathAdd rounds each argument this way."""
    return math.floor(x + 0.5)


# --------------------------------------------------------------------------- the functions
def _string_to_json(name: str, args: list[Any]) -> Any:
    _arity(name, args, 1)
    text = _want(name, args[0], "string", 1)
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except ValueError:
        raise _fail(name, f"the string is not valid JSON: {text}") from None


def _json_to_string(name: str, args: list[Any]) -> str:
    _arity(name, args, 1)
    return to_json(args[0])


def _array(name: str, args: list[Any]) -> list[Any]:
    return list(args)


def _partition(name: str, args: list[Any]) -> list[Any]:
    _arity(name, args, 2)
    arr, size = _want(name, args[0], "array", 1), _want(name, args[1], "integer", 2)
    if size <= 0:
        raise _fail(name, "the chunk size must be greater than 0")
    return [arr[i:i + size] for i in range(0, len(arr), size)]


def _contains(name: str, args: list[Any]) -> bool:
    _arity(name, args, 2)
    arr = _want(name, args[0], "array", 1)
    # AWS compares the values' Java text, not their JSON (observed on AWS by an AWS-run suite:
    # `true` is found in ["true"], 9007199254740991 in ["9007199254740991"], {"b":2,"a":1} is not
    # found in [{"a":1,"b":2}] (key order counts), false is not found in [0, 1])
    # (two numbers still compare by value, 1 == 1.0: UNCONFIRMED)
    target, wanted = args[1], java_text(args[1])
    return any((_is_num(x) and _is_num(target) and x == target) or java_text(x) == wanted for x in arr)


def _range(name: str, args: list[Any]) -> list[Any]:
    _arity(name, args, 3)
    start, end, step = (_want(name, a, "integer", i + 1) for i, a in enumerate(args))
    if step == 0:
        raise _fail(name, "the step must not be 0")
    count = max(0, (end - start) // step + 1)  # counted before anything is built: bounds may be huge
    if count > 1000:
        raise _fail(name, "the array would contain more than 1000 items")
    return [start + i * step for i in range(count)]


def _get_item(name: str, args: list[Any]) -> Any:
    _arity(name, args, 2)
    arr, idx = _want(name, args[0], "array", 1), _want(name, args[1], "integer", 2)
    if not arr:  # observed on AWS (AWS-run suite): any index of an empty array gives null
        return None
    if not 0 <= idx < len(arr):
        raise _fail(name, f"index {idx} is out of bounds for an array of length {len(arr)}")
    return arr[idx]


def _length(name: str, args: list[Any]) -> int:
    _arity(name, args, 1)
    return len(_want(name, args[0], "array", 1))


def _unique(name: str, args: list[Any]) -> list[Any]:
    _arity(name, args, 1)
    out: list[Any] = []
    for x in _want(name, args[0], "array", 1):
        if not any(json_equal(x, y) for y in out):
            out.append(x)
    return out


def _b64encode(name: str, args: list[Any]) -> str:
    _arity(name, args, 1)
    text = _want(name, args[0], "string", 1)
    if _java_length(text) > _MAX_STRING:
        raise _fail(name, f"the input string exceeds {_MAX_STRING} characters")
    return base64.b64encode(text.encode()).decode()


def _b64decode(name: str, args: list[Any]) -> str:
    _arity(name, args, 1)
    text = _want(name, args[0], "string", 1)
    if _java_length(text) > _MAX_STRING:
        raise _fail(name, f"the input string exceeds {_MAX_STRING} characters")
    return _lenient_b64decode(text).decode("utf-8", errors="replace")


_B64_ALPHABET = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_B64_ALPHABET.update({"-": 62, "_": 63})


def _lenient_b64decode(text: str) -> bytes:
    """AWS decodes leniently (observed by an AWS-run suite: '!!!invalid!!!', 'abc', 'ab==cd' and
    ' YWJjZA== ' all decode): characters outside the alphabet are skipped, the first '=' ends the
    data, and a short last group still yields its whole bytes (the behaviour of Apache Commons
    Codec's decoder; that AWS uses it is UNCONFIRMED)."""
    out, bits, count = bytearray(), 0, 0
    for c in text:
        if c == "=":
            break
        value = _B64_ALPHABET.get(c)
        if value is None:
            continue
        bits, count = (bits << 6) | value, count + 1
        if count == 4:
            out += bits.to_bytes(3, "big")
            bits, count = 0, 0
    if count == 2:
        out.append(bits >> 4)
    elif count == 3:
        out += (bits >> 2).to_bytes(2, "big")
    return bytes(out)


_HASHES = {"MD5": "md5", "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512"}


def _hash(name: str, args: list[Any]) -> str:
    _arity(name, args, 2)
    data = _text(args[0])
    algo = _want(name, args[1], "string", 2)
    if algo not in _HASHES:
        raise _fail(name, f"the hash algorithm must be one of {list(_HASHES)}, got {algo}")
    if _java_length(data) > _MAX_STRING:
        raise _fail(name, f"the input string exceeds {_MAX_STRING} characters")
    return hashlib.new(_HASHES[algo], data.encode()).hexdigest()


def _merge(name: str, args: list[Any]) -> dict[str, Any]:
    _arity(name, args, 3)
    left, right = _want(name, args[0], "object", 1), _want(name, args[1], "object", 2)
    # only `true` asks for the deep merge AWS does not offer; any other third argument (the string
    # 'false' too, as an AWS-run suite observed) merges shallowly
    if args[2] is True:
        raise _fail(name, "deep merging is not supported: the third argument must be false")
    return {**left, **right}


def _math_random(name: str, args: list[Any]) -> int:
    _arity(name, args, 2, 3)
    start, end = int(_want(name, args[0], "number", 1)), int(_want(name, args[1], "number", 2))
    if start >= end:
        raise _fail(name, "the start must be less than the end")
    rng = random.Random(int(_want(name, args[2], "number", 3))) if len(args) == 3 else random
    return rng.randrange(start, end)


def _math_add(name: str, args: list[Any]) -> int:
    _arity(name, args, 2)
    a, b = _want(name, args[0], "number", 1), _want(name, args[1], "number", 2)
    if not (math.isfinite(a) and math.isfinite(b)):
        raise _fail(name, "the operands must be finite")
    # Java ints (observed on AWS by an AWS-run suite): an operand or a sum outside the 32-bit
    # range is refused (2147483647 + 1, 3000000000 + 1), the bounds themselves are accepted
    total = java_round(a) + java_round(b)
    if not all(_INT_MIN <= v <= _INT_MAX for v in (java_round(a), java_round(b), total)):
        raise _fail(name, "the operands and their sum must be 32-bit integers")
    return total


def _split(name: str, args: list[Any]) -> list[Any]:
    _arity(name, args, 2)
    text, delims = _want(name, args[0], "string", 1), _want(name, args[1], "string", 2)
    if not delims:
        return [text]
    parts = re.split("[" + re.escape(delims) + "]", text)
    return [p for p in parts if p]


def _uuid(name: str, args: list[Any]) -> str:
    _arity(name, args, 0)
    return str(uuid.uuid4())


FUNCTIONS = {
    "States.Format": None,  # evaluated in _eval_call: it needs the raw template
    "States.StringToJson": _string_to_json,
    "States.JsonToString": _json_to_string,
    "States.Array": _array,
    "States.ArrayPartition": _partition,
    "States.ArrayContains": _contains,
    "States.ArrayRange": _range,
    "States.ArrayGetItem": _get_item,
    "States.ArrayLength": _length,
    "States.ArrayUnique": _unique,
    "States.Base64Encode": _b64encode,
    "States.Base64Decode": _b64decode,
    "States.Hash": _hash,
    "States.JsonMerge": _merge,
    "States.MathRandom": _math_random,
    "States.MathAdd": _math_add,
    "States.StringSplit": _split,
    "States.UUID": _uuid,
}
