"""Fixtures of the kill -9 tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from entry_log import EntryLog


@pytest.fixture
def entry_log() -> Iterator[EntryLog]:
    log = EntryLog()
    yield log
    log.close()
