"""A loaded state machine definition: typed, frozen nodes built once per definition text (load.py).

What every reader of a definition needs is decided here once: where a state goes next, its query
language (its own or its container's), its retriers and catchers with AWS's defaults, its Task
resource split up, its branches and item processor as programs of their own. The rest of a
state's fields stay readable through `State.fields` (a read-only view of its JSON object): the
state handlers evaluate those, and their paths and expressions are compiled once and cached by
text in paths.py, jsonata.py and intrinsics.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from onceflow.sfn.asl.resources import Resource

DEFAULT_INTERVAL_SECONDS = 1
DEFAULT_MAX_ATTEMPTS = 3
DEFAULT_BACKOFF_RATE = 2.0


@dataclass(frozen=True, slots=True)
class Retrier:
    error_equals: tuple[str, ...]
    interval_seconds: float = DEFAULT_INTERVAL_SECONDS
    max_attempts: int = DEFAULT_MAX_ATTEMPTS  # retries after the first attempt (0: never retry)
    backoff_rate: float = DEFAULT_BACKOFF_RATE
    max_delay_seconds: float | None = None
    full_jitter: bool = False


@dataclass(frozen=True, slots=True)
class Catcher:
    error_equals: tuple[str, ...]
    next: str
    fields: Mapping[str, Any]  # the catcher's object: ResultPath (JSONPath), Assign, Output (JSONata)

    @property
    def result_path(self) -> str | None:
        path: str | None = self.fields.get("ResultPath", "$")  # null: discard the error
        return path


@dataclass(frozen=True, slots=True)
class State:
    name: str
    type: str  # Task, Pass, Choice, Wait, Succeed, Fail, Parallel, Map
    query_language: str  # JSONPath or JSONata: the state's own, else its container's
    fields: Mapping[str, Any]  # the state's JSON object, read-only
    next: str | None  # None: the state ends its program (End, Succeed, Fail; Choice decides itself)
    retriers: tuple[Retrier, ...] = ()  # retry.py decides which one takes an error
    catchers: tuple[Catcher, ...] = ()
    resource: Resource | None = None  # Task: the Resource split up (None for one AWS would reject)
    branches: tuple[Program, ...] = ()  # Parallel
    processor: Program | None = None  # Map: ItemProcessor (or the older Iterator)

    # The state's other fields, read as from its JSON object.
    def __contains__(self, key: str) -> bool:
        return key in self.fields

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)

    @property
    def distributed(self) -> bool:
        """A Distributed Map: its iterations are a map run, their events kept out of the history."""
        return self.processor is not None and self.processor.mode == "DISTRIBUTED"


@dataclass(frozen=True, slots=True)
class Program:
    """StartAt + States: the machine, a Parallel branch or a Map's item processor."""

    start_at: str
    states: Mapping[str, State]
    query_language: str  # the default of its states
    mode: str = "INLINE"  # a Map processor's ProcessorConfig.Mode (INLINE or DISTRIBUTED)


@dataclass(frozen=True, slots=True)
class Machine:
    program: Program
    timeout_seconds: int | None  # the machine's TimeoutSeconds
    query_language: str
    text: str  # the definition as stored
