"""The oracle: one run's business items against the baseline's, item by item. An item is a
table's item, a queue's message (`sqs:<queue>`: a second identical send is one more message,
`duplicated`) or a bucket's object (`s3:<bucket>`: other content under its key is `replaced`).

- `duplicated`: an item the baseline does not have, or a number / list that the baseline changed
  went further in the same direction (a repeated increment or append);
- `replaced`: an item holds other content than the baseline left (under a conflicting input, any
  change to the baseline's items, whatever the numbers do);
- `lost`: a baseline item missing, or holding only part of the baseline's attributes.

A run that did not finish as the baseline did (FAILED where it SUCCEEDED) is judged on its effect
alone: all of the baseline's effect or none of it is `same` (not recovered is reported apart);
part of it is `lost`. Under a conflicting input, the other order must also be refused: one that
SUCCEEDED while our items stayed is `replaced` too (swallowed_conflict)."""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Any

from onceflow.prove.effects import Snapshot
from onceflow.prove.model import DUPLICATED, LOST, REPLACED, SAME, VERDICT_ORDER, Difference


def strip(snapshot: Snapshot, ignored: dict[str, set[str]]) -> Snapshot:
    """The snapshot without the ignored attributes (--ignore-attribute TABLE.ATTR)."""
    return {t: {k: {a: v for a, v in item.items() if a not in ignored.get(t, ())} for k, item in items.items()}
            for t, items in snapshot.items()}


def judge(initial: Snapshot, baseline: Snapshot, run: Snapshot, *, recovered: bool = True,
          conflict: bool = False, keys: dict[str, list[str]] | None = None) -> tuple[str, list[Difference]]:
    """(worst verdict, the differing items) of `run` against `baseline`, both from `initial`.
    `keys` names each table's key attributes: new items under generated keys (a uuid per call)
    are paired by their other attributes, so a run that wrote the same line under another uuid
    is `same`."""
    diffs: list[Difference] = []
    for table in sorted(baseline):
        before, want, got = initial.get(table, {}), baseline[table], run.get(table, {})
        paired = _pair_new(before, want, got, (keys or {}).get(table))
        for key in sorted(set(want) | set(got)):
            if key in paired:
                continue
            b, r, i = want.get(key), got.get(key), before.get(key)
            if b == r:
                continue
            verdict = _item_verdict(i, b, r, conflict)
            if verdict is not None:
                diffs.append(Difference(table, key, verdict, b, r))
    if not recovered and diffs and _is_nothing(initial, run, baseline):
        return SAME, []  # a clean failure: nothing of the baseline's effect happened
    worst = max((d.verdict for d in diffs), key=VERDICT_ORDER.index, default=SAME)
    return worst, diffs


def swallowed_conflict(initial: Snapshot, baseline: Snapshot) -> list[Difference]:
    """A conflicting order (same key, other content) that SUCCEEDED while the first order's items
    stayed: the workflow took it for the first (a conflict treated as success) and reported an
    order it did not store. It must be refused; the issue counts this `replaced`."""
    return [Difference(t, k, REPLACED, item, item,
                       "the conflicting order SUCCEEDED but was not stored: its content was taken for the first's")
            for t, items in baseline.items() for k, item in items.items() if initial.get(t, {}).get(k) != item]


def _pair_new(before: dict[str, Any], want: dict[str, Any], got: dict[str, Any],
              key_names: list[str] | None) -> set[str]:
    """The keys of new items of the baseline and of the run that match one another by content."""
    if not key_names:
        return set()
    def body(item: dict[str, Any]) -> str:
        return json.dumps({a: v for a, v in item.items() if a not in key_names}, sort_keys=True, default=str)
    ours = [k for k in want if k not in before and k not in got]
    theirs: dict[str, list[str]] = {}
    for k in got:
        if k not in before and k not in want:
            theirs.setdefault(body(got[k]), []).append(k)
    paired: set[str] = set()
    for k in ours:
        match = theirs.get(body(want[k]))
        if match:
            paired |= {k, match.pop()}
    return paired


def _is_nothing(initial: Snapshot, run: Snapshot, baseline: Snapshot) -> bool:
    return all(run.get(t, {}) == initial.get(t, {}) for t in baseline)


def _item_verdict(i: dict[str, Any] | None, b: dict[str, Any] | None, r: dict[str, Any] | None,
                  conflict: bool) -> str | None:
    if r is None:
        return LOST  # the baseline's item (or its survival) is missing
    if b is None:
        if i is None:
            # A new item: one more order (or ledger line) than the baseline wrote; a conflicting
            # order's own item under another key is that order's business, not a change to ours.
            return None if conflict else DUPLICATED
        return LOST  # the baseline deleted it; this run did not
    if conflict:
        return REPLACED
    if set(r) < set(b) and all(r[a] == b[a] for a in r):
        return LOST  # partly written
    changed = [a for a in set(b) | set(r) if b.get(a) != r.get(a)]
    verdicts = {_attribute_verdict((i or {}).get(a), b.get(a), r.get(a)) for a in changed}
    if REPLACED in verdicts or LOST in verdicts:
        return REPLACED
    return DUPLICATED if DUPLICATED in verdicts else REPLACED


def _attribute_verdict(i: Any, b: Any, r: Any) -> str:
    if b is None or r is None:
        return REPLACED
    nb, nr, ni = _number(b), _number(r), _number(i) if i is not None else Decimal(0)
    if nb is not None and nr is not None and ni is not None and nb != ni:
        step, got = nb - ni, nr - ni
        if (step > 0 and got > step) or (step < 0 and got < step):
            return DUPLICATED
        return REPLACED
    if "L" in b and "L" in r and len(r["L"]) > len(b["L"]) and r["L"][: len(b["L"])] == b["L"]:
        return DUPLICATED
    return REPLACED


def _number(value: Any) -> Decimal | None:
    if isinstance(value, dict) and set(value) == {"N"}:
        try:
            return Decimal(value["N"])
        except InvalidOperation:
            return None
    return None
