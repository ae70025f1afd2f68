"""IAM's Marker/MaxItems paging helper."""

from __future__ import annotations

import pytest

from onceflow.errors import ServiceError
from onceflow.iam.common import page


def collect(items: list[str], size: int) -> list[str]:
    seen: list[str] = []
    marker = None
    while True:
        chunk, marker = page(items, marker, size, lambda v: v)
        seen += chunk
        if marker is None:
            return seen


@pytest.mark.parametrize("size", [1, 2, 3, 5, 100])
def test_paging_follows_list_order_whatever_the_key(size: int) -> None:
    items = ["v5", "v4", "v3", "v2", "v1"]
    assert collect(items, size) == items


def test_default_page_is_100() -> None:
    items = [f"k{i:04d}" for i in range(250)]
    first, marker = page(items, None, None, lambda v: v)
    assert len(first) == 100 and marker is not None
    assert collect(items, 100) == items


def test_a_garbled_marker_is_a_validation_error() -> None:
    with pytest.raises(ServiceError) as info:
        page(["a"], "%%%", 10, lambda v: v)
    assert (info.value.code, info.value.status) == ("ValidationError", 400)
