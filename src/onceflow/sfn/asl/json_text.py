"""Compact JSON as Step Functions writes it: no spaces, non-ASCII kept, doubles in Java's form.

AWS reads and writes state data with Jackson, which writes a double with Java's Double.toString:
plain digits from 1e-3 up to 1e7 (`0.001`, `1234567.5`), outside that a mantissa with at least
one decimal, `E` and a bare exponent (`1.0E-7`, `1.2345678E7`, `1.0E21`), where Python's json
writes `1e-07`, `12345678.0` and `1e+21`. Integers are not doubles in Jackson (int, long,
BigInteger) and keep every digit, as Python's do. UNCONFIRMED: no AWS recording of a state's
input or output holding such a double was found; the form is Jackson's DoubleNode serialisation
(AWS's parse errors are Jackson's words, sfn/json_input.py), digits as JDK 19+ picks them (the
shortest that read back, which is Python's repr).

`dumps` is the one encoder for payloads: json's C encoder, then, only when its text holds a
number token Java would write otherwise (a few searches that skip to a literal), its number tokens
rewritten in Java's form.
"""

from __future__ import annotations

import decimal
import json
import math
import re
from json.encoder import c_make_encoder  # type: ignore[attr-defined]  # json's own C encoder (None without it)
from json.encoder import encode_basestring as quote  # a JSON string literal, non-ASCII kept
from typing import Any

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

# Number tokens of Python's repr that Java writes otherwise: an exponent form (`1e-07`), eight
# integer digits or more (>= 1e7: `12345678.0`) or a fraction below 1e-3 (`0.0005`). Each pattern
# starts with a literal, so the regex engine skips to its occurrences as str.find does (one
# alternation of them scanned every position: twice the cost of encoding). A string holding such
# text also matches; the slow path then finds no double to change and writes the same text.
_EXPONENT = re.compile(r"e(?<=\de)[-+]\d")
_EIGHT_DIGITS = re.compile(r"\.(?<=\d{8}\.)")


def java_double(x: float) -> str:
    """Java's Double.toString of a finite double (Jackson writes doubles with it)."""
    if not math.isfinite(x):  # JSON holds none; Java's words for completeness
        return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
    text = repr(x)
    if x == 0 or 1e-3 <= abs(x) < 1e7:
        return text  # Python's fixed notation covers this range with the same digits
    sign, digits, exponent = decimal.Decimal(text).normalize().as_tuple()
    mantissa = "".join(map(str, digits))
    power = len(mantissa) - 1 + int(exponent)
    return f"{'-' if sign else ''}{mantissa[0]}.{mantissa[1:] or '0'}E{power}"


def _plain(value: Any) -> str:
    if c_make_encoder is None:  # no C accelerator: the library's own path
        return _ENCODER.encode(value)
    if type(value) is str:
        return quote(value)
    return "".join(c_make_encoder({}, _ENCODER.default, quote, None, ":", ",", False, False, True)(value, 0))


# The slow path's tokens: a string literal (kept as it is) or a number. It rewrites the C
# encoder's text rather than walking the value again, so no depth of nesting meets Python's
# recursion limit (a walk of a document nested 995 deep raised RecursionError).
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?')


def _java_token(match: re.Match[str]) -> str:
    token = match.group(0)
    if token[0] == '"' or ("." not in token and "e" not in token):
        return token  # a string, or an integer (never a double in Jackson)
    return java_double(float(token))


def dumps(value: Any) -> str:
    """Compact JSON as Step Functions writes it (no spaces, non-ASCII kept, Java's doubles).

    json.dumps with these options builds an encoder per call and JSONEncoder.encode a C encoder
    per call through Python-level set-up; this calls the C encoder json itself would (fresh
    circular-reference marks every time) without that set-up, which was most of a small payload's cost."""
    text = _plain(value)
    if "." in text and ("0.000" in text or _EIGHT_DIGITS.search(text) is not None):
        return _TOKEN.sub(_java_token, text)
    if ("e-" in text or "e+" in text) and _EXPONENT.search(text) is not None:
        return _TOKEN.sub(_java_token, text)
    return text
