"""Retry and Catch: which retrier or catcher handles an error, and how long to back off.

The one copy of these rules: the engine (states/errors.py), TestState and the console read them
from here, on the loaded nodes (nodes.Retrier, nodes.Catcher). Retriers are scanned in order and
the first whose ErrorEquals matches applies (it keeps its own attempt counter for the state's
lifetime, which the engine keeps); when retries are exhausted or none matched, catchers are
scanned in order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from onceflow.sfn.asl.nodes import Catcher, Retrier

# Errors no wildcard covers: AWS documents States.Runtime as neither retriable nor caught by
# States.ALL. (States.DataLimitExceeded is documented the same way, but a real-AWS recording
# shows a States.ALL catcher catching it, so it is deliberately not listed here.)
UNCATCHABLE = frozenset({"States.Runtime"})


def error_matches(error_equals: Sequence[str], error: str | None) -> bool:
    """Does a retrier's or catcher's ErrorEquals list cover `error`?

    Names match exactly (case-sensitive). States.ALL matches everything, States.TaskFailed
    everything but States.Timeout; States.Runtime is matched by nothing (AWS: it always fails the execution).
    """
    error = error or ""
    if error in UNCATCHABLE:
        return False
    for name in error_equals:
        if name == error:
            return True
        if name == "States.ALL":
            return True
        if name == "States.TaskFailed" and error != "States.Timeout":
            return True
    return False


def find_retrier(retriers: Sequence[Retrier], error: str | None) -> int | None:
    """Index of the first retrier whose ErrorEquals matches `error` (None if none does)."""
    return next((i for i, r in enumerate(retriers) if error_matches(r.error_equals, error)), None)


def find_catcher(catchers: Sequence[Catcher], error: str | None) -> Catcher | None:
    """The first catcher whose ErrorEquals matches `error` (None if none does)."""
    return next((c for c in catchers if error_matches(c.error_equals, error)), None)


def should_retry(retrier: Retrier, retries_done: int) -> bool:
    """True while this retrier still allows another attempt (`retries_done` by this retrier)."""
    return retries_done < retrier.max_attempts


def retry_delay_seconds(retrier: Retrier, attempt: int, rng: random.Random | None = None) -> float:
    """Delay before retry number `attempt` (1-based) of this retrier.

    IntervalSeconds * BackoffRate^(attempt-1), capped by MaxDelaySeconds; with JitterStrategy
    FULL a uniformly random delay in [0, that value]. `rng` lets the engine make the jitter
    reproducible (seeded by execution and event id) so a replay computes the same wake-up.
    """
    delay = retrier.interval_seconds * retrier.backoff_rate ** max(attempt - 1, 0)
    if retrier.max_delay_seconds is not None:
        delay = min(delay, retrier.max_delay_seconds)
    if retrier.full_jitter:
        delay = (rng or random.Random()).uniform(0, delay)
    return delay


def catch_output(error: str | None, cause: str | None) -> dict[str, str]:
    """What a catcher passes on (before its ResultPath): Error then Cause, as AWS orders them;
    a Fail state's missing error or cause stays missing."""
    return {k: v for k, v in (("Error", error), ("Cause", cause)) if v is not None}
