"""Python runtimes' deprecation, as Lambda's runtimes page ("Lambda runtimes": supported and deprecated
runtimes) dates it: from its "block function create" day CreateFunction refuses the runtime, from its
"block function update" day UpdateFunctionConfiguration does too; a deprecated runtime not yet blocked
is taken as AWS takes it (its functions keep running; invocations are never blocked).

Each day starts at 00:00 UTC here (AWS says "midnight Pacific time": the hours between are not modelled).

The dates are the page's as others quoted it in 2026 (the page itself was not in reach): AWS moved most
block dates of the runtimes already deprecated to 2027-02-01 (create) / 2027-03-03 (update), python3.8's
among them (aws-cloudformation/cfn-lint#4532, June 2026: "E2531 -> W2531 for python3.8 since create-block
moved to future"); python3.10's deprecation notice (AWS Health, 2026-04) gives Oct 31 2026 / Feb 1 2027 /
Mar 3 2027. UNCONFIRMED: every date marked so below; re-check against the page when it changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from onceflow.lambda_ import errors


@dataclass(frozen=True)
class Lifecycle:
    deprecated: date
    block_create: date
    block_update: date


# Runtime -> its lifecycle. The runtimes not listed have no date yet.
LIFECYCLE: dict[str, Lifecycle] = {
    "python2.7": Lifecycle(date(2021, 7, 15), date(2021, 7, 15), date(2022, 5, 30)),
    "python3.6": Lifecycle(date(2022, 7, 18), date(2022, 7, 18), date(2022, 8, 29)),
    # UNCONFIRMED: python3.7's update block (2025-11-01 as last quoted; it may have moved to 2027-03-03 too)
    "python3.7": Lifecycle(date(2023, 12, 4), date(2024, 1, 9), date(2025, 11, 1)),
    "python3.8": Lifecycle(date(2024, 10, 14), date(2027, 2, 1), date(2027, 3, 3)),  # UNCONFIRMED: block dates
    "python3.9": Lifecycle(date(2025, 12, 15), date(2027, 2, 1), date(2027, 3, 3)),  # UNCONFIRMED: block dates
    "python3.10": Lifecycle(date(2026, 10, 31), date(2027, 2, 1), date(2027, 3, 3)),
    "python3.11": Lifecycle(date(2027, 6, 30), date(2027, 7, 31), date(2027, 8, 31)),  # UNCONFIRMED
}

# The runtime AWS's refusal recommends. UNCONFIRMED: AWS has also been seen to write "a supported runtime"
# instead of naming one ("We recommend you use a supported runtime while creating or updating functions.").
RECOMMENDED = "python3.13"


def today_utc() -> date:
    return datetime.now(UTC).date()


def blocked(runtime: str, operation: str, today: date) -> bool:
    """Whether `operation` ("create" or "update") refuses `runtime` on `today`."""
    life = LIFECYCLE.get(runtime)
    if life is None:
        return False
    return today >= (life.block_create if operation == "create" else life.block_update)


def check(runtime: str, operation: str, today: date) -> None:
    if blocked(runtime, operation, today):
        raise errors.invalid(
            f"The runtime parameter of {runtime} is no longer supported for creating or updating AWS Lambda "
            f"functions. We recommend you use the new runtime ({RECOMMENDED}) while creating or updating functions."
        )
