"""Console fixtures: the seed system's executions on the session server, and a page fetcher.

`seeded` provisions the orders example under two prefixes and runs, through boto3, the
idempotency lab's three executions (after-write, repeated, different order) on one and the retry
lab's flaky and permanent orders on the other - what the learner compares with the console.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from console_seed import Lab, Page, fetch, seed_labs, store_hostile


@pytest.fixture(scope="session")
def page(endpoint: str) -> Callable[[str], Page]:
    return lambda path: fetch(endpoint + path)


@pytest.fixture(scope="session")
def seeded(aws: Callable[..., Any], endpoint: str) -> dict[str, Lab]:
    return seed_labs(aws, endpoint, uuid.uuid4().hex[:6])


@pytest.fixture(scope="session")
def hostile(aws: Callable[..., Any]) -> dict[str, Any]:
    return store_hostile(aws, uuid.uuid4().hex[:8])
