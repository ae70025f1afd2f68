"""sfn-0008: a data folder written before history rows were keyed by the execution's seq keeps
its histories, readable by ARN as before."""

from __future__ import annotations

from pathlib import Path

from onceflow.sfn.store import MIGRATIONS, SfnStore
from onceflow.store.db import Database

EXEC = ("INSERT INTO sfn_executions (arn, sm_arn, account, region, name, status, input, start, definition, "
        "role_arn, type, seq) VALUES (?, 'sm', '000000000000', 'us-east-1', 'e', 'RUNNING', '{}', 1.0, '{}', "
        "'r', 'STANDARD', ?)")
OLD_EVENT = "INSERT INTO sfn_events (exec_arn, id, prev, type, ts, details, fiber) VALUES (?,?,?,?,?,?,?)"


def test_old_histories_survive_the_migration(tmp_path: Path) -> None:
    path = str(tmp_path / "onceflow.db")
    old = Database(path)
    before = [m for m in MIGRATIONS if m[0] != "sfn-0008"]
    old.migrate(before)
    rows = {"arn:a": [(1, 0, "ExecutionStarted", 1.5, '{"input":"{}"}', "r"),
                      (-1, 0, "ExecutionStarted", 1.6, None, "r.~1"), (2, 1, "PassStateEntered", 1.7, "{}", "r")],
            "arn:b": [(1, 0, "ExecutionStarted", 2.5, '{"input":"[]"}', "r")]}
    with old.transaction() as conn:
        for seq, (arn, events) in enumerate(rows.items(), start=1):
            conn.execute(EXEC, (arn, seq))
            for e in events:
                conn.execute(OLD_EVENT, (arn, *e))
    old.close()

    db = Database(path)
    assert db.migrate(MIGRATIONS) == ["sfn-0008"]
    store = SfnStore(db)
    for arn, events in rows.items():
        assert [tuple(r) for r in store.events(arn)] == sorted(events)
        assert [tuple(r) for r in store.visible_events(arn)] == sorted(e for e in events if e[0] > 0)
        assert [tuple(r) for r in db.query("SELECT id, prev, type, ts, details, fiber FROM sfn_events "
                                           "WHERE exec_arn=? ORDER BY id", (arn,))] == sorted(events)
    assert [r[0] for r in db.query("SELECT DISTINCT exec_seq FROM sfn_history ORDER BY 1")] == [1, 2]
    db.close()
