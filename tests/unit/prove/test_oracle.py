"""The prove oracle on hand-made snapshots: one rule per case."""

from __future__ import annotations

from onceflow.prove.oracle import judge, strip

T = "orders"
K1 = '{"id":{"S":"o-1"}}'
K2 = '{"id":{"S":"o-2"}}'


def item(key: str, **attrs: object) -> dict:
    out = {"id": {"S": key}}
    for name, value in attrs.items():
        out[name] = {"N": str(value)} if isinstance(value, int) else value
    return out


BASE = {T: {K1: item("o-1", quantity=2, total=600)}}
EMPTY = {T: {}}


def test_same_items_are_same() -> None:
    assert judge(EMPTY, BASE, {T: {K1: item("o-1", quantity=2, total=600)}}) == ("same", [])


def test_an_extra_item_is_duplicated() -> None:
    verdict, diffs = judge(EMPTY, BASE, {T: {**BASE[T], K2: item("o-2", quantity=2, total=600)}})
    assert verdict == "duplicated" and [d.key for d in diffs] == [K2]


def test_a_number_that_went_further_is_duplicated_and_one_that_went_elsewhere_replaced() -> None:
    initial = {T: {K1: item("o-1", total=10)}}
    baseline = {T: {K1: item("o-1", total=12)}}
    assert judge(initial, baseline, {T: {K1: item("o-1", total=14)}})[0] == "duplicated"
    assert judge(initial, baseline, {T: {K1: item("o-1", total=11)}})[0] == "replaced"
    assert judge(initial, baseline, {T: {K1: item("o-1", total=9)}})[0] == "replaced"


def test_a_longer_list_with_the_baseline_as_prefix_is_duplicated() -> None:
    baseline = {T: {K1: item("o-1", log={"L": [{"S": "a"}]})}}
    run = {T: {K1: item("o-1", log={"L": [{"S": "a"}, {"S": "a"}]})}}
    assert judge(EMPTY, baseline, run)[0] == "duplicated"


def test_missing_or_partial_items_are_lost() -> None:
    assert judge(EMPTY, BASE, {T: {K1: item("o-1", quantity=2)}})[0] == "lost"
    baseline = {T: {K1: item("o-1", quantity=2), K2: item("o-2", quantity=1)}}
    assert judge(EMPTY, baseline, {T: {K1: item("o-1", quantity=2)}}, recovered=False)[0] == "lost"


def test_a_clean_failure_is_same_but_only_when_not_recovered() -> None:
    assert judge(EMPTY, BASE, EMPTY, recovered=False) == ("same", [])
    assert judge(EMPTY, BASE, EMPTY, recovered=True)[0] == "lost"


def test_under_a_conflict_any_change_is_replaced_and_the_other_orders_items_are_its_own() -> None:
    run = {T: {K1: item("o-1", quantity=2, total=1200)}}
    assert judge(EMPTY, BASE, run, conflict=True)[0] == "replaced"
    other = {T: {**BASE[T], K2: item("o-2", quantity=3, total=850)}}
    assert judge(EMPTY, BASE, other, conflict=True) == ("same", [])


def test_new_items_under_generated_keys_are_paired_by_content() -> None:
    baseline = {T: {'{"id":{"S":"u-1"}}': item("u-1", n=2)}}
    again = {T: {'{"id":{"S":"u-9"}}': item("u-9", n=2)}}
    twice = {T: {**again[T], '{"id":{"S":"u-8"}}': item("u-8", n=2)}}
    keys = {T: ["id"]}
    assert judge(EMPTY, baseline, again, keys=keys) == ("same", [])
    verdict, diffs = judge(EMPTY, baseline, twice, keys=keys)
    assert verdict == "duplicated" and len(diffs) == 1


def test_ignored_attributes_are_left_out() -> None:
    snap = {T: {K1: item("o-1", quantity=2, updated_at={"S": "now"})}}
    assert strip(snap, {T: {"updated_at"}}) == {T: {K1: item("o-1", quantity=2)}}
