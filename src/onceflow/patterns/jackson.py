"""Jackson's refusals of JSON text, word for word: AWS's Java front ends quote them.

Two of Jackson's parsers, one scanner. `refusal(bytes)` is its UTF-8 byte parser, as Lambda reads an Invoke
payload ("Could not parse payload into json: " + this, location included). `text_refusal(str)` is its
parser of a String, as EventBridge reads an event pattern and Step Functions a definition or an input: its
columns count characters, it quotes the text (`[Source: (String)"..."; line: L, column: C]`) and it leaves
the character that ends an unrecognized token unread.

Recorded on AWS, UTF-8 (Lambda): "Unrecognized token 'Hello': was expecting (JSON String, Number, Array,
Object or token 'null', 'true' or 'false')" at column 7 of `Hello World`, "Unexpected character (''' (code
39)): expected a valid value (...)", "Invalid UTF-8 middle byte 0x2d", "Unexpected character ('-' (code 45))
in numeric value: expected digit (0-9) to follow minus sign, for valid numeric value", each followed by
"\\n at [Source: REDACTED (...); line: L, column: C]" (the current Jackson's redacted source). Recorded on
AWS, String (EventBridge's TestEventPattern, LocalStack's test_events_patterns snapshots): `this is ...` ->
token 'this' at column 5; `{"not": closed mark"` -> token 'closed' at column 15; `{'bad': 'quotation'}` ->
"Unexpected character (''' (code 39)): was expecting double-quote to start field name" at column 2, the
character itself. So this is a scanner with Jackson's rules, not Python's json, whose refusals read
differently and which takes NaN and Infinity, which Jackson refuses. UNCONFIRMED: the rarer texts (end of
input inside a number, bad escapes, control characters) and their columns are Jackson's code as we know it,
not recordings.

What Jackson takes is taken as it is: it reads one value and stops, so content after a complete value and
a payload of white space only are not refused here (UNCONFIRMED on AWS; Lambda's runtime then answers
Runtime.UnmarshalError, as Python's runtime client does for input it cannot load).
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

_SOURCE = "[Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: {}, column: {}]"
_VALUES = "(JSON String, Number, Array, Object or token 'null', 'true' or 'false')"
_PLUS_SIGN = (
    "JSON spec does not allow numbers to have plus signs: enable "
    "`JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS` to allow"
)
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_MAX_DEPTH = 1000  # Jackson's StreamReadConstraints default for nesting
_TOO_DEEP = (
    "Document nesting depth exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)"
)
_MAX_TOKEN = 256  # Jackson's longest unrecognized token quoted in an error; longer ones end in "..."
_ESCAPES = frozenset(b'"\\/bfnrt')
_HEX = frozenset(b"0123456789abcdefABCDEF")
_DIGITS = frozenset(b"0123456789")


def refusal(payload: bytes) -> str | None:
    """Jackson's parse error for `payload` with its location, or None when Jackson reads a value from it."""
    try:  # what Python's C parser takes as strict UTF-8 JSON, Jackson takes too: no byte-by-byte scan then
        value = json.loads(payload.decode("utf-8"), parse_constant=_non_standard)
    except ValueError:
        pass
    except RecursionError:  # deeper than this thread's stack lets Python's parser go
        if _bracket_depth(payload) > _MAX_DEPTH:
            return _TOO_DEEP
    else:  # but for depth: Jackson stops at 1000 levels, Python's parser at its recursion limit
        deep = payload.count(b"[") + payload.count(b"{") > _MAX_DEPTH and _depth(value) > _MAX_DEPTH
        return _TOO_DEEP if deep else None
    scanner = _Scanner(payload)
    try:
        scanner.document()
    except _Refused as refused:
        return f"{refused.message}\n at {_SOURCE.format(*refused.where)}"
    except RecursionError:  # within Jackson's depth but past our frames: the runtime's parser decides
        return _TOO_DEEP if _bracket_depth(payload) > _MAX_DEPTH else None
    return None


def text_refusal(text: str) -> tuple[str, int, int] | None:
    """Jackson's String parser's refusal of `text`: its reason (locations inside it quote `text`) and the
    1-based line and column it gives, or None when Jackson reads a value from it."""
    try:
        json.loads(text, parse_constant=_non_standard)
        return None
    except (ValueError, RecursionError):
        pass
    if nesting_depth(text) > _MAX_DEPTH:
        return _TOO_DEEP, 1, 1  # Jackson stops at the first level past the limit (column UNCONFIRMED)
    scanner = _Scanner(text.encode("utf-8", "surrogatepass"), source=text)
    try:
        scanner.document()
    except _Refused as refused:
        return (refused.message, *refused.where)
    except RecursionError:
        return None
    return None


_SNIPPET = 500  # Jackson quotes this many characters of a String source, then says how many it left out


def source_location(text: str, line: int, column: int) -> str:
    """Jackson's location in a String source, as its messages end ("\\n at " + this). The cut past 500
    characters is Jackson's (JsonLocation) as we know it: UNCONFIRMED on AWS."""
    cut = f"[truncated {len(text) - _SNIPPET} chars]" if len(text) > _SNIPPET else ""
    return f'[Source: (String)"{text[:_SNIPPET]}"{cut}; line: {line}, column: {column}]'


_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def nesting_depth(text: str) -> int:
    """The deepest array/object nesting of a JSON text (strings skipped), in one linear scan."""
    depth = deepest = 0
    for m in _STRUCTURE.finditer(text):
        ch = m.group(0)
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _bracket_depth(payload: bytes) -> int:
    """How deep the brackets outside strings nest, from the bytes (for documents Python cannot parse)."""
    brackets = _STRING.sub(b"", payload).translate(None, _NOT_BRACKETS)
    return max(accumulate(1 if b in b"[{" else -1 for b in brackets), default=0)


def _depth(value: Any) -> int:
    """How deep the containers of a parsed value nest (iteratively: it may be deeper than the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is not None:
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _non_standard(word: str) -> Any:
    raise ValueError(word)  # NaN, Infinity, -Infinity: Python's json takes them, Jackson does not


class _Refused(Exception):
    def __init__(self, message: str, where: tuple[int, int]) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


def _char_desc(code: int) -> str:
    """How Jackson names a character in its errors (_getCharDesc)."""
    char = chr(code)
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return f"(CTRL-CHAR, code {code})"
    if code > 255:
        return f"'{char}' (code {code} / 0x{code:x})"
    return f"'{char}' (code {code})"


def _identifier_start(code: int) -> bool:  # Java's Character.isJavaIdentifierStart, near enough
    char = chr(code)
    return char.isidentifier() or char == "$" or 0xA2 <= code <= 0xA5  # currency signs start Java names


def _identifier_part(code: int) -> bool:  # Java's Character.isJavaIdentifierPart, near enough
    if code < 9 or 0x0E <= code <= 0x1B or 0x7F <= code <= 0x9F:  # Java's "ignorable" controls count
        return True
    return code != 0xB7 and (_identifier_start(code) or ("a" + chr(code)).isidentifier())  # Python's takes '·'


class _Scanner:
    """One pass over the bytes as Jackson's UTF-8 parser reads them, raising its first error."""

    def __init__(self, data: bytes, source: str | None = None) -> None:
        self.data = data
        self.source = source  # the String parser's text: columns count characters, a token's end stays unread
        self.pos = 0  # the next byte to read
        self.line = 1
        self.line_start = 0
        self.last = "null"  # the last token read (Jackson names it in some end-of-input errors)

    # ------------------------------------------------------------------ locations and errors
    def column(self, pos: int) -> int:
        """How many columns the line holds up to `pos`: bytes, or characters for the String parser."""
        if self.source is not None:
            return len(self.data[self.line_start:pos].decode("utf-8", "replace"))
        return pos - self.line_start

    def here(self) -> tuple[int, int]:
        return self.line, self.column(self.pos) + 1

    def at_previous(self) -> tuple[int, int]:  # Jackson points "unexpected character" at the character
        return self.line, self.column(self.pos)

    def location(self, where: tuple[int, int]) -> str:
        if self.source is not None:
            return source_location(self.source, *where)
        return _SOURCE.format(*where)

    def fail(self, message: str) -> _Refused:
        return _Refused(message, self.here())

    def unexpected(self, code: int, comment: str) -> _Refused:
        return _Refused(f"Unexpected character ({_char_desc(code)}): {comment}", self.at_previous())

    def unexpected_in_number(self, code: int, comment: str) -> _Refused:
        return self.fail(f"Unexpected character ({_char_desc(code)}) in numeric value: {comment}")

    def end_of_input(self, detail: str) -> _Refused:
        return self.fail(f"Unexpected end-of-input{detail}")

    # ------------------------------------------------------------------ bytes
    def at_end(self) -> bool:
        return self.pos >= len(self.data)

    def read(self) -> int:
        byte = self.data[self.pos]
        self.pos += 1
        return byte

    def skip_space(self) -> int:
        """The next byte past white space (consumed), or -1 at the end."""
        while not self.at_end():
            byte = self.read()
            if byte > 0x20:
                if byte == 0x2F:  # '/': comments are off in Jackson's defaults
                    raise self.unexpected(byte, "maybe a (non-standard) comment? (not recognized as one since "
                                                "Feature 'ALLOW_COMMENTS' not enabled for parser)")  # fmt: skip
                return byte
            if byte == 0x0A:
                self.line, self.line_start = self.line + 1, self.pos
            elif byte == 0x0D:
                if not self.at_end() and self.data[self.pos] == 0x0A:
                    self.pos += 1
                self.line, self.line_start = self.line + 1, self.pos
            elif byte not in (0x20, 0x09):
                raise self.fail(f"Illegal character ({_char_desc(byte)}): only regular white space "
                                "(\\r, \\n, \\t) is allowed between tokens")  # fmt: skip
        return -1

    def next_byte(self) -> int:
        if self.at_end():
            raise self.end_of_input(f" in {self.last}")
        return self.read()

    def decoded(self, byte: int) -> int:
        """The character a (consumed) byte starts, its other bytes read (Jackson's _decodeCharForError)."""
        if byte < 0x80:
            return byte
        width = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4 if byte & 0xF8 == 0xF0 else 0
        if not width:
            raise self.fail(f"Invalid UTF-8 start byte 0x{byte:x}")
        code = byte & (0x7F >> width)
        for _ in range(width - 1):
            follow = self.next_byte()
            if follow & 0xC0 != 0x80:
                raise self.fail(f"Invalid UTF-8 middle byte 0x{follow:x}")
            code = code << 6 | follow & 0x3F
        return code

    # ------------------------------------------------------------------ the grammar
    def document(self) -> None:
        first = self.skip_space()
        if first >= 0:
            self.value(first, "root")

    def value(self, byte: int, within: str) -> None:
        """A value that starts with `byte` (consumed); `within`: "root", "Object" or "Array"."""
        if byte == 0x22:
            self.string("string value")
            self.last = "VALUE_STRING"
        elif byte == 0x7B:
            self.container("Object", 0x7D)
        elif byte == 0x5B:
            self.container("Array", 0x5D)
        elif byte == 0x2D or byte in _DIGITS:
            self.number(byte, within)
        elif byte in b"tfn":
            word = {0x74: "true", 0x66: "false", 0x6E: "null"}[byte]
            self.literal(word, 1)
            self.last = {"true": "VALUE_TRUE", "false": "VALUE_FALSE", "null": "VALUE_NULL"}[word]
        elif byte == 0x4E:  # 'N'
            self.literal("NaN", 1)
            raise self.non_standard("NaN")
        elif byte == 0x49:  # 'I'
            self.literal("Infinity", 1)
            raise self.non_standard("Infinity")
        elif byte == 0x2B:  # '+'
            self.invalid_number_start(self.next_byte(), negative=False)
        elif byte in (0x2C, 0x7D) or (byte == 0x5D and within == "Array"):  # ',' '}' and ']' where a value goes
            raise self.unexpected(byte, "expected a value")
        else:
            self.unexpected_value(byte)

    def unexpected_value(self, byte: int) -> None:
        if _identifier_start(byte):  # the byte read as a Latin-1 character, as Jackson's UTF-8 parser does here
            raise self.unrecognized(chr(byte))
        raise self.unexpected(byte, f"expected a valid value {_VALUES}")

    def non_standard(self, word: str) -> _Refused:
        return self.fail(f"Non-standard token '{word}': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow")

    def unrecognized(self, matched: str) -> _Refused:
        """Jackson reads on to the end of the word (consuming the character that ends it) and quotes it."""
        token = matched
        while not self.at_end():
            start = self.pos
            code = self.decoded(self.read())
            if not _identifier_part(code):
                if self.source is not None:  # the String parser peeks at the character, the byte parser reads it
                    self.pos = start
                break
            token += chr(code)
            if len(token) >= _MAX_TOKEN:
                token += "..."
                break
        return self.fail(f"Unrecognized token '{token}': was expecting {_VALUES}")

    def literal(self, word: str, matched: int) -> None:
        for index in range(matched, len(word)):
            if self.at_end() or self.data[self.pos] != ord(word[index]):
                raise self.unrecognized(word[:index])
            self.pos += 1
        if not self.at_end():
            following = self.data[self.pos]
            if following >= 0x30 and following not in (0x5D, 0x7D):
                start = self.pos
                code = self.decoded(self.read())
                self.pos = start  # the word's end is read again, into the quoted token
                if _identifier_part(code):
                    raise self.unrecognized(word)

    def container(self, kind: str, closer: int) -> None:
        opened = self.at_previous()  # the column of the marker itself
        self.last = "START_OBJECT" if kind == "Object" else "START_ARRAY"
        first = True
        while True:
            byte = self.skip_space()
            if byte < 0:
                raise self.end_of_input(
                    f": expected close marker for {kind} (start marker at {self.location(opened)})"
                )
            if byte in (0x5D, 0x7D):
                if byte != closer:
                    raise self.fail(f"Unexpected close marker '{chr(byte)}': expected '{chr(closer)}' "
                                    f"(for {kind} starting at {self.location(opened)})")  # fmt: skip
                self.last = "END_OBJECT" if kind == "Object" else "END_ARRAY"
                return
            if not first:
                if byte != 0x2C:
                    raise self.unexpected(byte, f"was expecting comma to separate {kind} entries")
                byte = self.skip_space()
                if byte < 0:
                    raise self.end_of_input(f" within/between {kind} entries")
            first = False
            if kind == "Object":
                self.member(byte)
            else:
                self.value(byte, "Array")

    def member(self, byte: int) -> None:
        if byte != 0x22:
            raise self.unexpected(self.decoded(byte), "was expecting double-quote to start field name")
        self.string("name")
        self.last = "FIELD_NAME"
        colon = self.skip_space()
        if colon < 0:
            raise self.end_of_input(" within/between Object entries")
        if colon != 0x3A:
            raise self.unexpected(colon, "was expecting a colon to separate field name and value")
        byte = self.skip_space()
        if byte < 0:
            raise self.end_of_input(" within/between Object entries")
        self.value(byte, "Object")

    def string(self, what: str) -> None:
        """The rest of a string after its opening quote; `what`: "string value" or "name"."""
        while True:
            if self.at_end():
                if what == "name":
                    raise self.end_of_input(" in field name")
                raise self.end_of_input(": was expecting closing quote for a string value")
            byte = self.read()
            if byte == 0x22:
                return
            if byte == 0x5C:
                self.escape()
            elif byte < 0x20:
                raise self.fail(f"Illegal unquoted character ({_char_desc(byte)}): has to be escaped using "
                                f"backslash to be included in {what}")  # fmt: skip
            elif byte >= 0x80:
                self.multibyte(byte, what)

    def escape(self) -> None:
        if self.at_end():
            raise self.end_of_input(" in character escape sequence")
        byte = self.read()
        if byte == 0x75:  # 'u' and four hex digits
            for _ in range(4):
                if self.at_end():
                    raise self.end_of_input(" in character escape sequence")
                digit = self.read()
                if digit not in _HEX:
                    raise self.unexpected(digit, "expected a hex-digit for character escape sequence")
        elif byte not in _ESCAPES:
            code = self.decoded(byte)
            raise _Refused(f"Unrecognized character escape {_char_desc(code)}", self.at_previous())

    def multibyte(self, byte: int, what: str) -> None:
        if byte & 0xE0 != 0xC0 and byte & 0xF0 != 0xE0 and byte & 0xF8 != 0xF0:
            raise self.fail(f"Invalid UTF-8 start byte 0x{byte:x}")
        if what == "string value":
            self.last = "VALUE_STRING"  # Jackson has taken the string's token by now, not yet a name's
        self.decoded(byte)

    def number(self, byte: int, within: str) -> None:
        """A number from its first byte (consumed). Jackson names the token before it in an end of input here."""
        if byte == 0x2D:
            byte = self.next_byte()
            if byte not in _DIGITS:
                self.invalid_number_start(byte, negative=True)
        if byte == 0x30 and not self.at_end() and self.data[self.pos] in _DIGITS:
            raise self.fail("Invalid numeric value: Leading zeroes not allowed")
        following = self.digits()
        if following == 0x2E:  # '.'
            self.pos += 1
            if self.at_end():
                raise self.unexpected_in_number(0x2E, "Decimal point not followed by a digit")
            if self.data[self.pos] not in _DIGITS:
                raise self.unexpected_in_number(self.read(), "Decimal point not followed by a digit")
            following = self.digits()
        if following in (0x65, 0x45):  # 'e' 'E'
            self.pos += 1
            after = self.next_byte()
            if after in (0x2B, 0x2D):
                after = self.next_byte()
            if after not in _DIGITS:
                raise self.unexpected_in_number(after, "Exponent indicator not followed by a digit")
            following = self.digits()
        self.last = "VALUE_NUMBER_INT"
        if within == "root" and following >= 0 and following not in b" \t\r\n":
            self.pos += 1
            raise self.unexpected(following, "Expected space separating root-level values")

    def digits(self) -> int:
        """Reads on over digits; the byte after them, left unread, or -1 at the end."""
        while not self.at_end() and self.data[self.pos] in _DIGITS:
            self.pos += 1
        return -1 if self.at_end() else self.data[self.pos]

    def invalid_number_start(self, byte: int, negative: bool) -> None:
        """A sign not followed by a digit; `byte`, consumed, is what follows it."""
        sign = "-" if negative else "+"
        if byte == 0x49:  # 'I': "-INF" or "-Infinity", refused as non-standard
            byte = self.next_byte()
            if byte in (0x4E, 0x6E):
                word = f"{sign}INF" if byte == 0x4E else f"{sign}Infinity"
                self.literal(word, 3)
                raise self.non_standard(word)
        if not negative:
            raise self.unexpected_in_number(0x2B, _PLUS_SIGN)
        raise self.unexpected_in_number(byte, "expected digit (0-9) to follow minus sign, for valid numeric value")
