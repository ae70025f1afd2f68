"""The 10000-character limit of the encoding and hash functions (AWS's intrinsic functions page),
counted as Java counts a string's length: a character outside the BMP is two UTF-16 units
(UNCONFIRMED: no AWS recording at the boundary with such characters)."""

from __future__ import annotations

import pytest

from onceflow.sfn.asl.errors import StateDataError
from onceflow.sfn.asl.intrinsics import evaluate_intrinsic


@pytest.mark.parametrize("call", ["States.Base64Encode($.s)", "States.Hash($.s, 'MD5')"])
def test_the_limit_counts_utf16_units(call: str) -> None:
    name = call.split("(")[0]
    evaluate_intrinsic(call, {"s": "a" * 10000}, {})
    evaluate_intrinsic(call, {"s": "🚀" * 5000}, {})
    for too_long in ("a" * 10001, "🚀" * 5001):
        with pytest.raises(StateDataError) as info:
            evaluate_intrinsic(call, {"s": too_long}, {})
        assert (info.value.error, info.value.cause) == ("States.Runtime", f"Invalid arguments in {name}")
