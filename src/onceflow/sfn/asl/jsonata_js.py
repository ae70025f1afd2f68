"""jsonata-js 2.0.6 semantics (what AWS runs) where jsonata-python departs from them: error
messages, numbers, and some functions of the library ($sort, $power, $number, $toMillis, the URL
functions, date/time pictures), installed on jsonata-python's classes when it is first used.

Messages: jsonata-js fills its templates with the error's fields, `{{x}}` as JSON.stringify(x) and
`{{{x}}}` as x itself, so strings appear quoted (`Argument 1 of function "abs" does not match
function signature`, as AWS's recorded causes show). jsonata-python formats its own templates
positionally with Python's str() and writes 'Object' for 'function'; `message` below rewrites the
evaluation errors from jsonata-js's templates and the exception's fields.

Numbers: jsonata-js has only doubles. Integers beyond 2^53 lose their last digits on the way in
(9007199254740993 reads as 9007199254740992) and results are written as JSON.stringify writes
doubles (`2**60` is 1152921504606847000, `1e21` is `1e+21`).
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
import re
from typing import Any

# jsonata-js's wording, for the evaluation errors whose jsonata-python template differs in more than
# 'Object' for 'function'. The placeholders name jsonata-js's error fields.
_TEMPLATES = {
    "T0410": "Argument {{index}} of function {{token}} does not match function signature",
    "T0412": "Argument {{index}} of function {{token}} must be an array of {{type}}",
    "D1001": "Number out of range: {{value}}",
    "D1002": "Cannot negate a non-numeric value: {{value}}",
    "T1003": "Key in object structure must evaluate to a string; got: {{value}}",
    "D1009": "Multiple key definitions evaluate to same key: {{value}}",
    "T2001": "The left side of the {{token}} operator must evaluate to a number",
    "T2002": "The right side of the {{token}} operator must evaluate to a number",
    "T2006": "The right side of the function application operator ~> must be a function",
    "T2007": "Type mismatch when comparing values {{value}} and {{value2}} in order-by clause",
    "T2009": "The values {{value}} and {{value2}} either side of operator {{token}} must be of the same data type",
    "T2010": "The expressions either side of operator {{token}} must evaluate to numeric or string values",
    "T2011": "The insert/update clause of the transform expression must evaluate to an object: {{value}}",
    "T2012": "The delete clause of the transform expression must evaluate to a string or array of strings: {{value}}",
    "D2014": "The size of the sequence allocated by the range operator (..) must not exceed 1e6.  "
             "Attempted to allocate {{value}}.",
    "D3010": "Second argument of replace function cannot be an empty string",
    "D3011": "Fourth argument of replace function must evaluate to a positive number",
    "D3030": "Unable to cast value to a number: {{value}}",
    "D3060": "The sqrt function cannot be applied to a negative number: {{value}}",
    "D3061": "The power function has resulted in a value that cannot be represented as a JSON number: "
             "base={{value}}, exponent={{exp}}",
    "D3070": "The single argument form of the sort function can only be applied to an array of strings "
             "or an array of numbers.  Use the second argument to specify a comparison function",
    "D3100": "The radix of the formatBase function must be between 2 and 36.  It was given {{value}}",
    "D3110": "The argument of the toMillis function must be an ISO 8601 formatted timestamp. Given {{value}}",
    "D3132": "Unknown component specifier {{value}} in date/time picture string",
    "D3130": "Formatting or parsing an integer as a sequence starting with {{value}} is not supported by this "
             "implementation",
    "D3140": "Malformed URL passed to ${{{functionName}}}(): {{value}}",
}

# Where jsonata-python keeps each field: its exceptions carry (location, current, expected, extra)
# positionally. Codes not listed keep jsonata-python's own message (with 'function' for 'Object').
_FIELDS: dict[str, tuple[str, ...]] = {
    "T0410": ("-", "index", "token"),
    "T0412": ("-", "index", "token", "type"),
    "D1001": ("-", "value"),
    "D1002": ("-", "-", "value"),  # (position, operator, value)
    "T1003": ("-", "value"),
    "D1009": ("-", "value"),
    "T2001": ("-", "token", "value"),
    "T2002": ("-", "token", "value"),
    "T2006": ("-",),
    "T2007": ("-", "value", "value2"),
    "T2009": ("-", "value", "value2", "token"),
    "T2010": ("-", "token", "value"),
    "T2011": ("-", "value"),
    "T2012": ("-", "value"),
    "D2014": ("-", "value"),
    "D3010": (),
    "D3011": (),
    "D3030": ("-", "value"),
    "D3060": ("-", "value"),
    "D3061": ("-", "value", "exp"),
    "D3070": ("-",),
    "D3100": ("value",),  # jsonata-python passes the radix as the location
    "D3110": ("-", "value"),
    "D3130": ("-", "value"),
    "D3132": ("-", "value"),
    "D3140": ("-", "functionName", "value"),
}

# jsonata-js names an array signature's item type in words (T0412); jsonata-python gives the letter.
_ARRAY_OF = {"a": "arrays", "b": "booleans", "f": "functions", "n": "numbers", "o": "objects", "s": "strings"}

# jsonata-python raises these two with the message as the code.
_CODES_BY_MESSAGE = {
    "Second argument of replace function cannot be an empty string": "D3010",
    "Fourth argument of replace function must evaluate to a positive number": "D3011",
}


# jsonata-python raises plain RuntimeErrors, with these messages, where jsonata-js throws these codes
# (date/time and integer pictures); the messages carry no value, so only the fixed ones are here.
_CODES_OF_PLAIN = {
    "In a decimal digit pattern, all digits must be from the same decimal group": "D3131",
    "The timezone integer format specifier cannot have more than four digits": "D3134",
    "No matching closing bracket ']' in date/time picture string": "D3135",
    "The date/time picture string is missing specifiers required to parse the timestamp": "D3136",
}


def plain_code(e: Exception) -> str | None:
    """The jsonata-js code of a plain error jsonata-python raised instead of a JException, if known."""
    return _CODES_OF_PLAIN.get(str(e)) if type(e) is RuntimeError else None


def code_of(e: Any) -> str:
    error = str(e.error)
    return _CODES_BY_MESSAGE.get(error, error)


def message(e: Any) -> str:
    """`CODE: message` for a jsonata-python JException, worded as jsonata-js words it."""
    code = code_of(e)
    template, names = _TEMPLATES.get(code), _FIELDS.get(code)
    if template is None or names is None:
        return f"{code}: " + re.sub(r"\bObject\b", "function", str(e))
    slots = (e.location, e.current, e.expected, e.extra)
    fields = {name: value for name, value in zip(names, slots, strict=False) if name != "-"}
    if code == "T0410" and fields.get("index") is None:
        # the port raised it without naming the argument (a null where a value is expected)
        return f"{code}: " + re.sub(r"\bObject\b", "function", str(e))
    if "type" in fields:
        fields["type"] = _ARRAY_OF.get(str(fields["type"]), fields["type"])
    text = re.sub(r"\{\{\{(\w+)\}\}\}", lambda m: str(fields.get(m.group(1))), template)
    text = re.sub(r"\{\{(\w+)\}\}", lambda m: stringify(fields.get(m.group(1))), text)
    return f"{code}: {text}"


def stringify(value: Any, keep_null: bool = False) -> str:
    """JSON.stringify as a template placeholder shows it (non-finite numbers are `null`). In
    jsonata-python's own values None is undefined (a member JSON.stringify leaves out); in state
    data (`keep_null`) it is JSON's null and stays."""
    from jsonata.utils import Utils  # imported on first use with the rest of jsonata-python

    if value is None or value is Utils.NULL_VALUE:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):  # lone surrogates escaped, as JSON.stringify writes them
        text = json.dumps(value, ensure_ascii=False)
        return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group(0)):04x}", text)
    if isinstance(value, (int, float)):
        x = float(value)
        return number_to_string(x) if math.isfinite(x) else "null"
    if isinstance(value, dict):
        members = (f"{json.dumps(str(k), ensure_ascii=False)}:{stringify(v, keep_null)}"
                   for k, v in value.items() if keep_null or v is not None)
        return "{" + ",".join(members) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(stringify(v, keep_null) for v in value) + "]"
    return "null"


def number_to_string(x: float) -> str:
    """ECMAScript's Number::toString of a finite double: shortest round-trip digits, plain
    notation from 1e-6 up to 1e21, exponent form outside (`1e-7`, `1.5e+21`)."""
    if x == 0:
        return "0"
    parts = decimal.Decimal(repr(abs(x))).normalize().as_tuple()
    ds = "".join(map(str, parts.digits))
    k, n = len(ds), len(ds) + int(parts.exponent)
    if k <= n <= 21:
        body = ds + "0" * (n - k)
    elif 0 < n <= 21:
        body = ds[:n] + "." + ds[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * -n + ds
    else:
        e = n - 1
        body = (ds[0] + ("." + ds[1:] if k > 1 else "")) + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return ("-" if x < 0 else "") + body


def js_number_text(value: float) -> str:
    """A number as jsonata-js's $string (and `&`) writes it: rounded to 15 significant digits, then
    Number::toString (`1e+21`, `100000000000000000000`, `1e-7`). The Python port writes `1e+20`."""
    return number_to_string(float(f"{float(value):.15g}"))


def number_in(value: int) -> int | float:
    """An input integer as jsonata-js holds it: a double, so beyond 2^53 the nearest one."""
    return value if abs(value) <= 2**53 else float(value)


def number_out(value: int | float) -> int | float | None:
    """A result number as a value json.dumps writes as JSON.stringify does: integral doubles below
    1e21 as their shortest digits (2**60 is 1152921504606847000, -0 is 0), others as floats (json
    writes `1e+21` as JSON.stringify does; `1e-07` for its `1e-7`, the same number), NaN and the
    infinities as null (UNCONFIRMED: no AWS recording of a result such as `$round(1.5, 400)`, NaN
    in jsonata-js, was found; null is what JSON.stringify writes for it)."""
    if isinstance(value, int) and abs(value) <= 2**53:
        return value
    x = float(value)
    if not math.isfinite(x):
        return None
    if x.is_integer() and abs(x) < 1e21:
        return int(x) if abs(x) <= 2**53 else int(decimal.Decimal(repr(x)))
    return x


# --------------------------------------------------------------------------- library functions
_RESERVED = ";/?:@&=+$,#"  # what decodeURI leaves escaped (decodeURIComponent decodes it)
_ESCAPES = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def url_decode(text: str, reserved: str) -> str:
    """decodeURI / decodeURIComponent: `%` must start a UTF-8 sequence of `%XX` escapes (else a
    ValueError, jsonata-js's D3140); escapes of `reserved` characters stay as written."""
    if re.search(r"%(?![0-9A-Fa-f]{2})", text):
        raise ValueError(text)

    def run(m: re.Match[str]) -> str:
        escapes = m.group(0)
        out, i = [], 0
        data = bytes.fromhex(escapes.replace("%", ""))
        while i < len(data):  # one character at a time, so a reserved one can keep its escape
            size = 1 if data[i] < 0x80 else 2 if data[i] >> 5 == 6 else 3 if data[i] >> 4 == 14 else 4
            char = data[i:i + size].decode("utf-8")  # strict: a bad sequence is a URIError
            out.append(escapes[3 * i:3 * (i + size)] if char in reserved else char)
            i += size
        return "".join(out)

    return _ESCAPES.sub(run, text)


# UNCONFIRMED which of jsonata-js's two spellings 2.0.6 has (`(-[01]\d)?` or `(-[01]\d)*`); they
# differ only for repeated date parts.
_ISO8601 = re.compile(r"\d{4}(-[01]\d)?(-[0-3]\d)?(T[0-2]\d:[0-5]\d:[0-5]\d)?(\.\d+)?([+-][0-2]\d:?[0-5]\d|Z)?\Z")
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?([Ee][-+]?[0-9]+)?\Z")  # what jsonata-js's $number casts

def _js_to_number(text: str) -> float:
    """ECMAScript's unary `+` of a numeric string (NaN where it is none; `1e400` is Infinity)."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def _shift_decimal(x: float, places: float) -> float:
    """jsonata-js's decimal shift: the number's text with `places` added to its exponent."""
    if not math.isfinite(x):  # `Infinity` and `NaN` have no exponent: `+"Infinitye2"` is NaN
        return math.nan
    mantissa, _, exponent = number_to_string(x).partition("e")
    power = (_js_to_number(exponent) + places) if exponent else places
    return _js_to_number(f"{mantissa}e{number_to_string(power) if math.isfinite(power) else 'NaN'}")


def js_round(arg: Any, precision: Any = None) -> Any:
    """jsonata-js's $round: half to even, at `precision` decimal places shifted through the number's
    text (so `$round(1.5, 400)` overflows to NaN there, where Python's Decimal refuses the precision)."""
    if arg is None:
        return None
    x = float(arg)
    shift = precision is not None and bool(precision) and not math.isnan(float(precision))
    if shift:
        x = _shift_decimal(x, float(precision))
    if math.isfinite(x):
        result = float(math.floor(x))
        if x - result >= 0.5:  # Math.round: the nearest integer, halves up
            result += 1
        if abs(result - x) == 0.5 and abs(math.fmod(result, 2)) == 1:
            result -= 1  # a half went up to an odd integer: to the even one below
    else:
        result = x
    if shift:
        result = _shift_decimal(result, -float(precision))
    if result == 0:
        return 0  # JSON has no -0
    return int(result) if result.is_integer() and abs(result) <= 2**53 else result


def patch_functions(functions: Any, static_frame: Any, jexception: Any) -> None:
    """$sort, $power and $number as jsonata-js runs them (installed on jsonata-python's Functions
    class): D3070 for a one-argument sort of mixed types, D3061 when a power is not a finite
    number, D3030 for a string that is not a JSON number (`" 12 "`, `"nan"`, `"1e1000"`), D3110
    for a one-argument $toMillis of a string that is not an ISO 8601 timestamp."""
    plain_sort = functions.sort
    plain_power = functions.power
    plain_number = functions.number
    plain_to_millis = functions.datetime_to_millis

    def sort(arr: Any, comparator: Any = None) -> Any:
        if comparator is None and isinstance(arr, list) and len(arr) > 1:
            numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in arr)
            if not numbers and not all(isinstance(v, str) for v in arr):
                raise jexception.JException("D3070", -1)
        return plain_sort(arr, comparator)

    def power(arg: Any, exp: Any) -> Any:
        if arg is None:
            return None
        try:
            result = float(arg) ** float(exp)
        except (OverflowError, ZeroDivisionError):
            result = math.inf
        if isinstance(result, complex) or not math.isfinite(result):  # Math.pow: NaN or Infinity
            raise jexception.JException("D3061", 1, arg, exp)
        return plain_power(arg, exp)

    def number(arg: Any) -> Any:
        if isinstance(arg, str) and not arg.startswith(("0x", "0B", "0O")):
            if not _DECIMAL.match(arg) or not math.isfinite(float(arg)):
                raise jexception.JException("D3030", -1, arg)
        return plain_number(arg)

    def to_millis(timestamp: Any, picture: Any = None) -> Any:
        if isinstance(timestamp, str) and picture is None and not _ISO8601.match(timestamp):
            raise jexception.JException("D3110", -1, timestamp)
        return plain_to_millis(timestamp, picture)

    def url_function(js_name: str, plain: Any, decode: bool, reserved: str) -> Any:
        def run(string: Any) -> Any:
            if not isinstance(string, str):
                return plain(string)
            try:
                return url_decode(string, reserved) if decode else plain(string.encode("utf-8").decode("utf-8"))
            except (UnicodeError, ValueError):  # encodeURI's and decodeURI's URIError
                raise jexception.JException("D3140", -1, js_name, string) from None
        return run

    urls = {"encodeUrlComponent": ("encode_url_component", False, ""), "encodeUrl": ("encode_url", False, ""),
            "decodeUrlComponent": ("decode_url_component", True, ""), "decodeUrl": ("decode_url", True, _RESERVED)}
    for js_name, (py_name, decode, reserved) in urls.items():
        fn = url_function(js_name, getattr(functions, py_name), decode, reserved)
        setattr(functions, py_name, staticmethod(fn))
        static_frame.lookup(js_name).method = fn

    functions.sort = staticmethod(sort)
    functions.power = staticmethod(power)
    functions.number = staticmethod(number)
    functions.datetime_to_millis = staticmethod(to_millis)
    functions.round = staticmethod(js_round)
    # the natives bound in jsonata-python's static frame hold the methods they were made with
    for name, fn in (("sort", sort), ("power", power), ("number", number), ("toMillis", to_millis),
                     ("round", js_round)):
        static_frame.lookup(name).method = fn


def patch_signature(signature: Any, jexception: Any) -> None:
    """T0410 names the first argument that breaks the signature, as jsonata-js finds it: the longest
    run of leading parameters whose pattern matches a prefix of the arguments' type letters.
    jsonata-python matches each run against all the letters, so it blames argument 1 whenever
    more arguments follow (`$match("a", "a")` is argument 2, the pattern)."""

    def throw_validation_error(self: Any, bad_args: Any, bad_sig: Any, function_name: Any) -> Any:
        pattern, good_to = "^", 0
        for param in self._params:
            pattern += param.regex
            found = re.match(pattern, bad_sig or "")
            if found is None:
                break
            good_to = found.end()
        raise jexception.JException("T0410", -1, good_to + 1, function_name)

    signature.throw_validation_error = throw_validation_error


# ECMAScript's Date holds times within 10^8 days of the epoch; beyond, a Date is invalid (NaN).
_JS_DATE_LIMIT_MS = 8.64e15
# Python's datetime holds years 1 to 9999; the Gregorian calendar repeats every 400 years (146097
# days, a whole number of weeks), so a time outside is formatted 400-year cycles away and its year
# moved back.
_CYCLE_MS = 146097 * 86_400_000
_PY_MIN_MS, _PY_MAX_MS = -62135596800000, 253402300799999
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


class _ShiftedDate(datetime.datetime):
    """A date whose year components (Y, X) read `year_shift` years later than its own."""

    year_shift = 0


class _JsNaN(float):
    """NaN as jsonata-js's decimal integer formatting writes it (`'' + NaN`)."""

    def __new__(cls) -> _JsNaN:
        return super().__new__(cls, math.nan)

    def __str__(self) -> str:
        return "NaN"

    def __abs__(self) -> _JsNaN:
        return self


def patch_pictures(datetime_utils: Any, jexception: Any) -> None:
    """Date/time and integer pictures as jsonata-js formats them: an unknown component (`[Q]`) is
    D3132 (not a KeyError), a numbering sequence (`$formatInteger(1, "")`) D3130 naming it, and
    $fromMillis takes any time a JavaScript Date holds (years past 9999 or before 1), writing the
    NaN fields of an invalid Date beyond it, as jsonata-js does, rather than failing in Python."""
    plain = datetime_utils._analyse_datetime_picture
    plain_format_integer = datetime_utils._format_integer
    plain_parse_integer = datetime_utils.parse_integer
    plain_fragment = datetime_utils._get_datetime_fragment
    plain_component = datetime_utils._format_component
    sequence = datetime_utils.Formats.SEQUENCE

    def analyse(picture: Any) -> Any:
        try:
            return plain(picture)
        except KeyError as e:  # no default presentation for the component
            raise jexception.JException("D3132", -1, e.args[0] if e.args else None) from None

    def format_integer(value: Any, fmt: Any) -> Any:
        if fmt.primary == sequence:
            raise jexception.JException("D3130", -1, fmt.token)
        return plain_format_integer(value, fmt)

    def parse_integer(value: Any, picture: Any) -> Any:
        if value is not None and picture is not None:
            fmt = datetime_utils._analyse_integer_picture(picture)
            if fmt.primary == sequence:
                raise jexception.JException("D3130", -1, fmt.token)
        return plain_parse_integer(value, picture)

    def fragment(date: Any, component: str) -> Any:
        value = plain_fragment(date, component)
        shift = getattr(date, "year_shift", 0)
        return str(int(value) + shift) if shift and component in "YX" else value

    def nan_integer(fmt: Any) -> str:
        """jsonata-js's _formatInteger of NaN: letters and roman numerals are empty, words recurse
        without end (a stack overflow), decimal digits are `NaN` padded and grouped."""
        if fmt.primary == datetime_utils.Formats.WORDS:
            raise RecursionError
        if fmt.primary in (datetime_utils.Formats.LETTERS, datetime_utils.Formats.ROMAN):
            return ""
        return str(plain_format_integer(_JsNaN(), fmt))

    def format_datetime(millis: Any, picture: Any, timezone: Any) -> str:
        offset_hours = offset_minutes = 0
        if timezone is not None:
            offset = int(timezone)
            offset_hours, offset_minutes = math.trunc(offset / 100), int(math.fmod(offset, 100))
        if picture is None:
            spec = analyse("[Y0001]-[M01]-[D01]T[H01]:[m01]:[s01].[f001][Z01:01t]")
        else:
            spec = analyse(picture)
        at = millis + (60 * offset_hours + offset_minutes) * 60 * 1000
        parts = []
        if abs(at) > _JS_DATE_LIMIT_MS:  # an invalid Date: every field of it is NaN
            for part in spec.parts:
                if part.type == "literal":
                    parts.append(part.value)
                elif part.component in "YMDdFWwXxHhmsf" and part.names is None:
                    parts.append(nan_integer(part.integerFormat))
                elif part.component in "YMDdFWwXxHhmsf":
                    # UNCONFIRMED: jsonata-js looks a name up at index NaN (undefined); only its
                    # title case writes it, the other cases throw a TypeError
                    parts.append("undefined")
                else:  # time zone, calendar, era, am/pm: not read from the date
                    parts.append(plain_component(_EPOCH, part, offset_hours, offset_minutes))
            return "".join(parts)
        cycles = 0
        if not _PY_MIN_MS <= at <= _PY_MAX_MS:
            cycles = math.floor((at - 946684800000) / _CYCLE_MS)  # to within 400 years from 2000
            at -= cycles * _CYCLE_MS
        moment = _EPOCH + datetime.timedelta(milliseconds=at)
        date = _ShiftedDate(moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second,
                            moment.microsecond, tzinfo=datetime.UTC)
        date.year_shift = 400 * cycles
        for part in spec.parts:
            parts.append(part.value if part.type == "literal"
                         else plain_component(date, part, offset_hours, offset_minutes))
        return "".join(parts)

    datetime_utils._analyse_datetime_picture = staticmethod(analyse)
    datetime_utils._format_integer = staticmethod(format_integer)
    datetime_utils.parse_integer = staticmethod(parse_integer)
    datetime_utils._get_datetime_fragment = staticmethod(fragment)
    datetime_utils.format_datetime = staticmethod(format_datetime)
