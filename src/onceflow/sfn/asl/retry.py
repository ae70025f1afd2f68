"""Retry and Catch: which retrier or catcher handles an error, and how long to back off.

Retriers are scanned in order and the first whose ErrorEquals matches applies (it keeps its own
attempt counter for the state's lifetime, which the engine stores); when retries are exhausted
or none matched, catchers are scanned in order.
"""

from __future__ import annotations

import random
from typing import Any

# Errors no wildcard covers: AWS documents States.Runtime as neither retriable nor caught by
# States.ALL. (States.DataLimitExceeded is documented the same way, but a real-AWS recording
# shows a States.ALL catcher catching it, so it is deliberately not listed here.)
UNCATCHABLE = frozenset({"States.Runtime"})

DEFAULT_INTERVAL_SECONDS = 1
DEFAULT_MAX_ATTEMPTS = 3
DEFAULT_BACKOFF_RATE = 2.0


def error_matches(error_equals: list[str], error: str) -> bool:
    """Does a retrier's or catcher's ErrorEquals list cover `error`?

    Names match exactly (case-sensitive). States.ALL matches everything, States.TaskFailed
    everything but States.Timeout; States.Runtime is matched by nothing (AWS: it always fails the execution).
    """
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


def find_retrier(retriers: list[dict] | None, error: str) -> int | None:
    """Index of the first retrier whose ErrorEquals matches `error` (None if none does)."""
    for i, retrier in enumerate(retriers or []):
        if error_matches(retrier.get("ErrorEquals", []), error):
            return i
    return None


def find_catcher(catchers: list[dict] | None, error: str) -> int | None:
    """Index of the first catcher whose ErrorEquals matches `error` (None if none does)."""
    for i, catcher in enumerate(catchers or []):
        if error_matches(catcher.get("ErrorEquals", []), error):
            return i
    return None


def max_attempts(retrier: dict) -> int:
    """Retries allowed after the first attempt (0 = never retry)."""
    return int(retrier.get("MaxAttempts", DEFAULT_MAX_ATTEMPTS))


def should_retry(retrier: dict, retries_done: int) -> bool:
    """True while this retrier still allows another attempt (`retries_done` by this retrier)."""
    return retries_done < max_attempts(retrier)


def retry_delay_seconds(retrier: dict, attempt: int, rng: Any = None) -> float:
    """Delay before retry number `attempt` (1-based) of this retrier.

    IntervalSeconds * BackoffRate^(attempt-1), capped by MaxDelaySeconds; with JitterStrategy
    FULL a uniformly random delay in [0, that value]. `rng` lets the engine make the jitter
    reproducible (e.g. seeded by execution and event id) so a replay computes the same wake-up.
    """
    interval = float(retrier.get("IntervalSeconds", DEFAULT_INTERVAL_SECONDS))
    rate = float(retrier.get("BackoffRate", DEFAULT_BACKOFF_RATE))
    delay = interval * rate ** max(attempt - 1, 0)
    cap = retrier.get("MaxDelaySeconds")
    if cap is not None:
        delay = min(delay, float(cap))
    if retrier.get("JitterStrategy") == "FULL":
        delay = (rng or random).uniform(0, delay)
    return delay


def catch_output(error: str, cause: str) -> dict:
    """What a catcher passes on (before its ResultPath): Error then Cause, as AWS orders them."""
    return {"Error": error, "Cause": cause}
