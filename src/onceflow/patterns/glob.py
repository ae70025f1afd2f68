"""Globs (`*` any run of characters, `?` exactly one) matched without backtracking.

Translating a glob to a backtracking regex (`a*a*a*...b` -> `a.*a.*a.*...b`) costs exponential
time on a near miss, and CPython's regex engine holds the GIL meanwhile, so one request froze
every other. Here a glob is cut at its stars into fixed-length segments (literal text and
one-character wildcards). The first segment must match at the start of the text, the last at its
end, and each one between is taken at its leftmost place after the previous one: for a
fixed-length segment the leftmost place is always the best choice, so no choice is ever undone.
A literal segment is found with str.find (linear, in C); a segment holding a wildcard by a
bit-parallel Shift-And scan, one step per character. Cost: O(len(text)) for globs of stars and
literals, O(len(text) * len(segment) / 64) at worst. A segment whose masks would be large (many
distinct characters in a long segment) is found by its longest literal chunk and checked in
place instead, and only short patterns are cached, so memory stays bounded too.

Who means what by `*`, `?` and `\\` is decided here, one function per dialect:
- IAM (Action, Resource, StringLike, ArnLike): `*` and `?`; no escapes (${*} and ${?} are literal).
- Step Functions Choice `StringMatches`: `*`; `\\*` is a literal star and `\\\\` a literal
  backslash (a backslash before any other character stands for that character); `?` is literal.
- CloudWatch Logs filter-pattern values: a `*` at the start or at the end; any other `*` is literal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

STAR = object()  # token: any run of characters, possibly empty
ANY = object()  # token: exactly one character


# Shift-And keeps one bit mask per distinct character of a segment: past this many bits (distinct
# characters x length) a segment is found by its longest literal chunk and checked in place instead,
# so that no pattern can make a compiled glob large.
_MASK_BITS = 1 << 20


def _bits(positions: Iterable[int], length: int) -> int:
    """An int with the given bits set, built in O(length) (or-ing shifted ones is quadratic)."""
    buf = bytearray((length + 7) // 8)
    for k in positions:
        buf[k >> 3] |= 1 << (k & 7)
    return int.from_bytes(buf, "little")


class _Segment:
    """A fixed-length run of literals and one-character wildcards between two stars."""

    __slots__ = ("accept", "anchor", "chunks", "length", "literal", "masks", "wild")

    def __init__(self, items: Sequence[object]) -> None:
        self.length = len(items)
        self.literal: str | None = None
        if all(isinstance(i, str) for i in items):
            self.literal = "".join(items)  # type: ignore[arg-type]
            return
        # Literal chunks with their offsets, for checking the segment at a fixed place.
        self.chunks: list[tuple[int, str]] = []
        start = None
        for k, item in enumerate([*items, ANY]):
            if isinstance(item, str):
                start = k if start is None else start
            elif start is not None:
                self.chunks.append((start, "".join(items[start:k])))  # type: ignore[arg-type]
                start = None
        positions: dict[str, list[int]] = {}
        for k, item in enumerate(items):
            if isinstance(item, str):
                positions.setdefault(item, []).append(k)
        self.masks: dict[str, int] | None = None
        self.anchor = max(self.chunks, key=lambda c: len(c[1])) if self.chunks else (0, "")
        if len(positions) * self.length > _MASK_BITS:
            return
        # Shift-And: bit k of the state is set when the first k+1 items match the text read so far.
        self.wild = _bits((k for k, item in enumerate(items) if item is ANY), self.length)
        self.masks = {c: self.wild | _bits(ks, self.length) for c, ks in positions.items()}
        self.accept = 1 << (self.length - 1)

    def at(self, text: str, pos: int) -> bool:
        """Whether the segment matches text[pos:pos+length] (the caller checked the length)."""
        if self.literal is not None:
            return text.startswith(self.literal, pos)
        return all(text.startswith(chunk, pos + offset) for offset, chunk in self.chunks)

    def find(self, text: str, start: int, end: int) -> int:
        """The leftmost p >= start with the segment matching text[p:p+length] inside [start, end)."""
        if self.literal is not None:
            return text.find(self.literal, start, end)
        if self.masks is None:
            return self._find_by_anchor(text, start, end)
        offset, chunk = self.anchor
        if chunk:  # no place can start before the first occurrence of the longest literal chunk
            first = text.find(chunk, start + offset, end - self.length + offset + len(chunk))
            if first < 0:
                return -1
            start = max(start, first - offset)
        masks, wild, accept, state = self.masks, self.wild, self.accept, 0
        for j in range(start, end):
            state = ((state << 1) | 1) & masks.get(text[j], wild)
            if state & accept:
                return j - self.length + 1
        return -1

    def _find_by_anchor(self, text: str, start: int, end: int) -> int:
        offset, chunk = self.anchor
        stop = end - self.length + offset + len(chunk)  # the anchor of the last place that fits
        p = text.find(chunk, start + offset, stop)
        while p >= 0:
            if self.at(text, p - offset):
                return p - offset
            p = text.find(chunk, p + 1, stop)
        return -1


class Glob:
    """A compiled glob: `matches(text)` is True when the whole text matches."""

    __slots__ = ("middle", "min_length", "segments", "starred")

    def __init__(self, tokens: Iterable[object]) -> None:
        pieces: list[list[object]] = [[]]
        for token in tokens:
            if token is STAR:
                pieces.append([])
            else:
                pieces[-1].append(token)
        self.starred = len(pieces) > 1
        first, *between, last = [_Segment(p) for p in pieces] if self.starred else [_Segment(pieces[0])] * 2
        # Empty segments between stars (`**`) constrain nothing.
        self.segments = (first, last)
        self.middle = tuple(s for s in between if s.length)
        self.min_length = first.length + last.length + sum(s.length for s in self.middle)
        if not self.starred:
            self.min_length = first.length

    def matches(self, text: str) -> bool:
        first, last = self.segments
        n = len(text)
        if not self.starred:
            return n == first.length and first.at(text, 0)
        if n < self.min_length or not first.at(text, 0):
            return False
        end = n - last.length
        if not last.at(text, end):
            return False
        pos = first.length
        for segment in self.middle:
            found = segment.find(text, pos, end)
            if found < 0:
                return False
            pos = found + segment.length
        return True


# ------------------------------------------------------------------------------------ dialects
def _iam_tokens(pattern: str, literal: frozenset[int]) -> list[object]:
    return [c if i in literal else STAR if c == "*" else ANY if c == "?" else c for i, c in enumerate(pattern)]


_CACHED_LENGTH = 256  # longer patterns compile on each use, so the caches stay small whatever comes


@lru_cache(maxsize=8192)
def _iam_glob(pattern: str, literal: frozenset[int]) -> Glob:
    return Glob(_iam_tokens(pattern, literal))


def iam_glob(pattern: str, literal: frozenset[int] = frozenset()) -> Glob:
    """IAM's wildcards: `*` any run, `?` one character, every other character literal. IAM has no
    escapes; the policy variables ${*} and ${?} stand for a literal star and question mark, and the
    evaluator passes their positions after substitution as `literal`."""
    return _iam_glob(pattern, literal) if len(pattern) <= _CACHED_LENGTH else Glob(_iam_tokens(pattern, literal))


def _sfn_tokens(pattern: str) -> list[object]:
    out: list[object] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            out.append(pattern[i + 1])
            i += 2
            continue
        out.append(STAR if c == "*" else c)
        i += 1
    return out


@lru_cache(maxsize=4096)
def _sfn_glob(pattern: str) -> Glob:
    return Glob(_sfn_tokens(pattern))


def sfn_glob(pattern: str) -> Glob:
    """Choice `StringMatches`: `*` any run; a backslash makes the next character literal."""
    return _sfn_glob(pattern) if len(pattern) <= _CACHED_LENGTH else Glob(_sfn_tokens(pattern))


def _logs_tokens(pattern: str) -> list[object]:
    lead = pattern.startswith("*")
    trail = pattern.endswith("*") and len(pattern) > 1
    core = pattern[1 if lead else 0 : len(pattern) - (1 if trail else 0)]
    return [*([STAR] if lead else []), *core, *([STAR] if trail else [])]


@lru_cache(maxsize=4096)
def logs_glob(pattern: str) -> Glob:
    """A filter-pattern value such as `Ev*`, `*ent` or `*ven*`: only an outer `*` is a wildcard."""
    return Glob(_logs_tokens(pattern))
