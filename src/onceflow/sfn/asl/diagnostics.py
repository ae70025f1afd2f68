"""The Diagnostic record shared by the definition checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # ERROR | WARNING
    code: str  # SCHEMA_VALIDATION_FAILED, MISSING_TRANSITION_TARGET, MISSING_END_STATE, ...
    message: str
    location: str | None = None  # "/States/A/Next"; AWS omits it for whole-workflow problems
    raw: bool = field(default=False, compare=False)  # message is AWS's whole InvalidDefinition text

    def as_api(self) -> dict[str, Any]:
        out = {"severity": self.severity, "code": self.code, "message": self.message}
        if self.location is not None:
            out["location"] = self.location
        return out


class SchemaErrors:
    """Collects schema diagnostics in the order they are found."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []
        self.raw_cause: str | None = None

    def add(self, message: str, location: str | None, code: str = "SCHEMA_VALIDATION_FAILED") -> None:
        self.items.append(Diagnostic("ERROR", code, message, location))

    def add_raw(self, message: str) -> None:
        if self.raw_cause is None:
            self.raw_cause = message
            self.items.append(Diagnostic("ERROR", "SCHEMA_VALIDATION_FAILED", message, None, raw=True))
