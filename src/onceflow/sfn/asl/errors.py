"""Step Functions runtime errors as data: the error name and cause a state fails with."""

from __future__ import annotations


class StatesError(Exception):
    """A failure the ASL error-handling machinery (Retry/Catch) sees: error name + cause text."""

    def __init__(self, error: str, cause: str = "") -> None:
        super().__init__(f"{error}: {cause}")
        self.error = error
        self.cause = cause
