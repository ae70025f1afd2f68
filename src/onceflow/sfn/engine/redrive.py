"""What a redrive sets aside of an unfinished Map or Parallel state, so that only its failed or
aborted iterations and branches run again (AWS: "RedriveExecution reschedules and redrives only
the iterations and branches that failed or aborted").

A redrive replays the history (engine/state.py History): the state's opening events and its
successful children stay, so their replay gives back their results without running them; what
the state emitted when it failed (and everything after it), and every event of the children that
did not succeed, are superseded, so those children start over live. A child succeeded when its
program's last event is a ...StateExited (an End state, or Succeed): a failed one ends on a Fail
state or a failed Task; an aborted one stopped inside a state.

A Distributed Map's run goes on the same way: its children are hidden fibers of the parent, and
the Map records MapRunRedriven (states/distributed.redriven). Only a state whose run was a single attempt
(no Retry round) is redriven this way; otherwise the whole state runs again.
"""

from __future__ import annotations

from onceflow.sfn.engine.events import Event, emission_order

# The state's own events kept for the replay: they precede or record its successful children.
_KEPT = {
    "MapStateEntered": ("MapStateEntered", "MapStateStarted", "MapIterationStarted", "MapIterationSucceeded",
                        "MapRunStarted", "MapRunRedriven"),
    "ParallelStateEntered": ("ParallelStateEntered", "ParallelStateStarted"),
}
_STARTED = {"MapStateEntered": "MapStateStarted", "ParallelStateEntered": "ParallelStateStarted"}


def _direct_child(fiber: str) -> bool:
    """A fiber the root spawned itself ("r.<n>", or "r.~<n>" for a map run's child), not a grandchild."""
    head, _, rest = fiber.partition(".")
    return head == "r" and rest.removeprefix("~").isdigit()


def fanout_superseded(root: list[Event], events: list[Event], start_id: int) -> list[int] | None:
    """The ids to set aside for a partial redrive of the fan-out state entered at `start_id`
    (a top-level event), or None when the whole state must run again."""
    entered = next((e for e in root if e.id == start_id), None)
    if entered is None or entered.type not in _KEPT:
        return None
    mine = [e for e in root if e.id >= start_id]
    if sum(e.type == _STARTED[entered.type] for e in mine) != 1:
        return None  # retried, or failed before its children started
    first: dict[str, Event] = {}
    last: dict[str, Event] = {}
    for e in emission_order(events):
        first.setdefault(e.fiber, e)
        last[e.fiber] = e
    # Hidden events (a map run's children) have ids of their own, counting down: theirs belong
    # to the state when they came after it was entered.
    kids = [f for f, e in first.items() if f.startswith("r.")
            and (e.ts >= entered.ts if e.id < 0 else e.id > start_id)]
    failed = [f for f in kids if _direct_child(f) and not last[f].type.endswith("StateExited")]
    out = [e.id for e in mine if e.type not in _KEPT[entered.type]]
    out += [e.id for e in events if any(e.fiber == f or e.fiber.startswith(f + ".") for f in failed)]
    return out
