"""ItemBatcher: a Distributed Map's items grouped into batches, one child workflow per batch.

Each batch is `{"Items": [...]}` plus `"BatchInput"` when the state has one. A batch closes when
it holds MaxItemsPerBatch items or when one more item would take its JSON over
MaxInputBytesPerBatch (an item too big on its own still makes a batch of one, as nothing else
could carry it).
"""

from __future__ import annotations

from typing import Any

from onceflow.sfn.asl.paths import to_json

_UNSET: Any = object()


def _size(value: Any) -> int:
    return len(to_json(value).encode())


def batches(items: list[Any], max_items: int | None, max_bytes: int | None,
            batch_input: Any = _UNSET) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    current: list[Any] = []
    base = {} if batch_input is _UNSET else {"BatchInput": batch_input}
    # The bytes of {"Items":[],...base} with the items' own bytes and commas added as they come.
    empty = _size({"Items": [], **base})
    used = empty

    def close() -> None:
        nonlocal current, used
        if current:
            out.append({**base, "Items": current})
        current, used = [], empty

    for item in items:
        size = _size(item) + (1 if current else 0)
        if current and max_bytes and used + size > max_bytes:
            close()
            size = _size(item)
        current.append(item)
        used += size
        if max_items and len(current) >= max_items:
            close()
    close()
    return out
