"""JSON text already in a response's wire shape, handed from a service to the JSON renderer as is.

DynamoDB stores each item as the JSON of its wire shape; a read that returns whole items can pass
that text through instead of decoding it and encoding it again (most of a 100-item Query's cost).
Only calls from the wire get it (`not ctx.internal`): onceflow's own callers need Python values.
"""

from __future__ import annotations


class RawJson(str):
    """One JSON value, as text."""

    __slots__ = ()


class RawJsonList(list[RawJson]):
    """A JSON array of RawJson values."""

    __slots__ = ()
