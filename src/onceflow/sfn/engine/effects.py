"""What a program's generator yields when it must wait, and what it gets thrown.

A state handler yields one of these effects; the runtime (runner.py) turns it into a wait:
`Sleep` until a stored wake-up time, `Invoke` of a task call on the engine's pool, `AwaitToken`
for a task token's answer, `Spawn` of child programs (Parallel branches, Map iterations) and
`WaitAny` of them. `token_for` lives here too: a token is a pure function of where the task is,
so a replay computes the token it recorded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

Fx = Generator[Any, Any, Any]  # a program, a state handler or a step of one
Mark = tuple[int, int, int, int]  # Runtime.mark(): pending, writes, next id, last id


class _Unset:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()  # "no answer yet" (a token not answered) / "leave the timer as it is"


@dataclass(slots=True)
class Sleep:
    due: float  # wall-clock epoch seconds (already scaled)


@dataclass(slots=True)
class Invoke:
    call: Callable[[], Any]
    deadline: float | None = None  # wall clock; past it the fiber gets InvokeTimeout
    mark: Mark | None = None  # Runtime.mark() taken before the task's first event
    task_id: int | None = None  # the task's ...Started event: the key of its hand-over mark


@dataclass(slots=True)
class AwaitToken:
    token: str
    due: float | None  # task timeout, wall clock
    heartbeat: float | None  # HeartbeatSeconds scaled, or None


@dataclass(slots=True)
class Spawn:
    factories: list[Callable[[str], Fx]]  # fiber key -> the child's generator
    hidden: bool = False  # Distributed Map iterations: recorded, but not in the execution's history


@dataclass(slots=True)
class WaitAny:
    fibers: list[Any]  # runner.Fiber: the children a Spawn answered with


class InvokeTimeout(Exception):
    """Thrown into a fiber whose invocation outlived its TimeoutSeconds."""


class ReplayMismatch(Exception):
    """The program took another step than the recorded history shows."""


def token_for(arn: str, fiber: str, entered_id: int, attempt: int) -> str:
    """Deterministic, so that replay computes the token it recorded."""
    digest = hashlib.sha256(f"{arn}|{fiber}|{entered_id}|{attempt}".encode()).hexdigest()
    return "AQ" + digest + digest[:40][::-1]
