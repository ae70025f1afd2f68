"""What a redrive sets aside of a Map or Parallel (engine/redrive.py), and the
emission order of a map run's hidden events (engine/state.py), on hand-written histories."""

from __future__ import annotations

from onceflow.sfn.engine.events import Event, emission_order
from onceflow.sfn.engine.state import History, redrive_superseded


def test_hidden_events_replay_in_the_order_they_were_emitted() -> None:
    events = [Event(-3, 0, "PassStateExited", 3.0, {"name": "P"}, "r.~1"),
              Event(-2, 0, "PassStateEntered", 2.0, {"name": "P"}, "r.~1"),
              Event(-1, 0, "PassStateEntered", 1.0, {"name": "Q"}, "r.~1"),
              Event(1, 0, "ExecutionStarted", 0.0, {}, "r")]
    assert [e.id for e in emission_order(events)] == [-1, -2, -3, 1]
    assert [e.id for e in History(events).by_fiber["r.~1"]] == [-1, -2, -3]


def test_a_parallel_keeps_its_successful_branch_and_a_map_run_its_successful_children() -> None:
    parallel = [
        Event(1, 0, "ExecutionStarted", 0.0, {}, "r"),
        Event(2, 1, "ParallelStateEntered", 1.0, {"name": "P"}, "r"),
        Event(3, 2, "ParallelStateStarted", 1.0, None, "r"),
        Event(4, 3, "PassStateEntered", 1.0, {"name": "A"}, "r.1"),
        Event(5, 4, "PassStateExited", 1.0, {"name": "A"}, "r.1"),
        Event(6, 5, "FailStateEntered", 1.0, {"name": "F"}, "r.2"),
        Event(7, 6, "WaitStateEntered", 1.0, {"name": "W"}, "r.3"),  # aborted when F failed
        Event(8, 7, "ParallelStateFailed", 1.0, None, "r"),
        Event(9, 8, "ExecutionFailed", 1.0, {"error": "E"}, "r"),
    ]
    assert redrive_superseded(parallel) == [6, 7, 8, 9]
    distributed = [
        Event(-4, 0, "FailStateEntered", 3.0, {"name": "F"}, "r.~2"),
        Event(-3, 0, "PassStateExited", 2.0, {"name": "A"}, "r.~1"),
        Event(-2, 0, "PassStateEntered", 2.0, {"name": "A"}, "r.~1"),
        Event(-1, 0, "PassStateExited", 0.5, {"name": "Old"}, "r.~0"),  # an earlier Map's child
        Event(1, 0, "ExecutionStarted", 0.0, {}, "r"),
        Event(2, 1, "MapStateEntered", 1.0, {"name": "M"}, "r"),
        Event(3, 2, "MapStateStarted", 1.0, {"length": 2}, "r"),
        Event(4, 3, "MapRunStarted", 1.0, {"mapRunArn": "arn"}, "r"),
        Event(5, 4, "MapRunFailed", 4.0, {"error": "E"}, "r"),
        Event(6, 5, "MapStateFailed", 4.0, None, "r"),
        Event(7, 6, "ExecutionFailed", 4.0, {"error": "E"}, "r"),
    ]
    assert redrive_superseded(distributed) == [-4, 5, 6, 7]
