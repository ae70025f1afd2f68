"""The engine's fast paths write the very text the plain library calls write (the history is the check)."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime

import pytest

from onceflow.sfn.engine.states.common import iso
from onceflow.sfn.store import dumps, encode_details

COMPACT = {"separators": (",", ":"), "ensure_ascii": False}


def reference_iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def test_iso_matches_strftime_including_rounding_edges() -> None:
    rng = random.Random(7)
    stamps = [0.0, 1.0, 0.9999995, 0.0000005, 1764600000.9995, 1764600000.9999996, 1764600000.0005,
              1764600000.0015, 1764600001.4999995]
    stamps += [rng.uniform(0, 4e9) for _ in range(5000)]
    stamps += [rng.randint(0, 2**32) + rng.randint(0, 999_999) / 1e6 for _ in range(5000)]
    stamps += [rng.randint(0, 2**32) + 0.9999995 for _ in range(1000)]
    for ts in stamps:
        assert iso(ts) == reference_iso(ts), ts


def test_encode_details_matches_json_dumps() -> None:
    cases = [
        {"name": "P1", "input": '{"a":"é\\n\\"x"}', "inputDetails": {"truncated": False}},
        {"a": 1, "b": True, "c": None, "d": {"truncated": True}, "e": [1, {"x": "y"}], "f": 1.5e16},
        {"g": "\u2028\ud7ff\x00\x1f\\", "h": {"truncated": 0}, "i": {"truncated": False, "x": 1}},
        {},
    ]
    for details in cases:
        # json.dumps's text but for doubles, which are written as Java writes them (sfn/asl/json_text.py)
        assert encode_details(details) == json.dumps(details, **COMPACT).replace("1.5e+16", "1.5E16")


def test_dumps_matches_json_dumps_and_fails_alike() -> None:
    values = [None, True, 0, -7, 2**70, 1.5, 1e16, 1e-7, float("inf"), float("nan"), "", "é\u2028\"\\", [],
              {}, {"a": [1, 2.5, {"b": None}], "é": "x"}, [[[]]], {"n": 1}]
    java = {1e16: "1.0E16", 1e-7: "1.0E-7"}  # the doubles Java writes otherwise (sfn/asl/json_text.py)
    for value in values:
        java_text = java.get(value) if type(value) is float else None
        assert dumps(value) == (java_text or json.dumps(value, **COMPACT))
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps(loop)
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({"x": object()})
    assert dumps({"again": [1]}) == '{"again":[1]}'  # nothing left over from the failures


def test_entered_and_exited_texts_match_encode_details() -> None:
    from onceflow.sfn.engine import events as ev

    names = ["P1", "é \"quoted\" \\ \u2028", "\x00\x1f", ""]
    payloads = ['{"n":1}', '{"a":"é\\n\\"x"}', '"\u2028\\u0000"', "null", ""]
    for name in names:
        for text in payloads:
            for built, plain in ((ev.entered_details(name, text), ev.entered(name, None, text)),
                                 (ev.exited_details(name, text), ev.exited(name, None, None, text)),
                                 # the one-entry cache of the last quoted payload: by identity, never stale
                                 (ev.exited_details(name, text + " "), ev.exited(name, None, None, text + " "))):
                assert built == (plain, encode_details(plain))


@pytest.mark.parametrize("count", [1, 2, 3, 127, 128, 129, 300])
def test_append_events_stores_every_row_of_any_batch(count: int) -> None:
    from onceflow.sfn.engine.events import Event
    from onceflow.sfn.store import MIGRATIONS, SfnStore
    from onceflow.store.db import Database

    db = Database(":memory:")
    db.migrate(MIGRATIONS)
    store = SfnStore(db)
    arn = "arn:aws:states:us-east-1:000000000000:execution:m:é"
    events = [Event(i, i - 1, "PassStateEntered", 1764600000.5 + i, {"name": f"P{i}", "input": "{}"}, "r",
                    '{"pre":"built"}' if i % 3 == 0 else None) for i in range(1, count + 1)]
    events.append(Event(-1, 0, "ExecutionStarted", 2.0, None, "r.~1"))
    with db.transaction() as conn:
        for exec_arn in (arn, "other"):  # history rows belong to an execution's row (its seq)
            store.insert_execution(conn, {"arn": exec_arn, "sm_arn": "sm", "account": "000000000000",
                                          "region": "us-east-1", "name": "e", "status": "RUNNING", "input": "{}",
                                          "start": 1.0, "definition": "{}", "role_arn": "r", "type": "STANDARD"})
        store.append_events(conn, arn, events[: count // 2])
        store.append_events(conn, arn, events[count // 2:])
        store.append_events(conn, "other", events[:1])
    rows = [tuple(r) for r in db.query("SELECT exec_arn, id, prev, type, ts, details, fiber FROM sfn_events "
                                       "WHERE exec_arn=? ORDER BY id", (arn,))]
    expected = sorted((arn, e.id, e.prev, e.type, e.ts, e.text if e.text is not None else
                       None if e.details is None else encode_details(e.details), e.fiber) for e in events)
    assert rows == [tuple(x) for x in sorted(expected, key=lambda r: r[1])]
    assert len(db.query("SELECT 1 FROM sfn_events WHERE exec_arn='other'")) == 1
