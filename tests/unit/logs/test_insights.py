"""The Insights query language: parsing (names, errors with offsets) and running over events."""

from __future__ import annotations

import json

import pytest

from onceflow.logs.insights.evaluate import QueryError
from onceflow.logs.insights.query import Fields, QuerySyntaxError, Stats, parse
from onceflow.logs.insights.run import Event, needs_message, regex_of_glob, run

T0 = 1_700_000_000_000


def _events(messages: list[str]) -> list[Event]:
    return [Event(i, "1:/g", "s", T0 + i * 1000, T0 + i * 1000, m) for i, m in enumerate(messages)]


def _rows(text: str, messages: list[str]) -> list[dict[str, str]]:
    return [{f["field"]: f["value"] for f in r if f["field"] != "@ptr"} for r in run(parse(text),
                                                                                     _events(messages)).rows]


def test_columns_are_named_by_alias_or_as_written() -> None:
    q = parse("FIELDS a.b,  x * 2 AS y | Stats count(*), pct(l,  95) BY bin(5m)")
    fields, stats = q.commands
    assert isinstance(fields, Fields) and [i.name for i in fields.items] == ["a.b", "y"]
    assert isinstance(stats, Stats) and [i.name for i in stats.aggregates] == ["count(*)", "pct(l, 95)"]
    assert [i.name for i in stats.groups] == ["bin(5m)"]


@pytest.mark.parametrize(("text", "start", "message"), [
    ("fields a | filter b = = 1", 22, "unexpected symbol found = at line 1 and position 23"),
    ("fields a |", 10, "unexpected end of query at line 1 and position 10"),
    ("fields a ; b", 9, "unexpected symbol found ; at line 1 and position 10"),
])
def test_syntax_errors_name_the_token_and_its_offset(text: str, start: int, message: str) -> None:
    with pytest.raises(QuerySyntaxError) as e:
        parse(text)
    assert (e.value.start, str(e.value)) == (start, message)


@pytest.mark.parametrize("text", ["fields nosuch(a)", "filter a like /(/", "fields count(*)", "stats a by b",
                                  'parse @message "a=*" as x, y'])
def test_queries_that_parse_but_cannot_run(text: str) -> None:
    with pytest.raises(QueryError):
        run(parse(text), [])


def test_comparisons_coerce_numeric_strings_and_skip_missing_fields() -> None:
    msgs = [json.dumps({"n": 5}), "n=12", json.dumps({"n": "7"}), "no n here"]
    assert _rows("parse @message 'n=*' as n | filter n > 6 | fields n", msgs) == [{"n": "12"}, {"n": "7"}]
    assert _rows("filter n != 5 | fields n", msgs) == [{"n": "7"}]


def test_glob_pattern_captures_lazily_but_a_trailing_star_takes_the_rest() -> None:
    m = regex_of_glob("[*] user * said: *").search("[INFO] user bob said: a: b [c]")
    assert m.groups() == ("INFO", "bob", "a: b [c]")


def test_regex_like_is_linear_on_a_catastrophic_pattern() -> None:
    assert _rows("filter @message like /(a+)+$/ | fields @message", ["a" * 5000 + "b"]) == []


def test_aggregates_and_expressions_over_them() -> None:
    msgs = [json.dumps({"v": v, "k": k}) for v, k in ((1, "x"), (2, "x"), (3, "y"), (10, "y"))]
    assert _rows("stats sum(v) / count(*) as mean, count_distinct(k), pct(v, 50), earliest(k), latest(k)", msgs) == [
        {"mean": "4", "count_distinct(k)": "2", "pct(v, 50)": "2", "earliest(k)": "x", "latest(k)": "y"}]
    assert _rows("stats max(v) as top by k | sort top desc", msgs) == [{"k": "y", "top": "10"},
                                                                        {"k": "x", "top": "2"}]


def test_sort_by_an_aggregate_as_written_after_stats() -> None:
    msgs = [json.dumps({"k": k}) for k in "abacaa"]
    assert _rows("stats count(*) by k | sort count(*) desc | limit 2", msgs) == [
        {"k": "a", "count(*)": "4"}, {"k": "b", "count(*)": "1"}]


def test_lambda_report_lines_are_discovered() -> None:
    report = ("REPORT RequestId: r1\tDuration: 12.50 ms\tBilled Duration: 13 ms\tMemory Size: 128 MB\t"
              "Max Memory Used: 50 MB\t")
    rows = _rows('filter @type = "REPORT" | stats avg(@duration), max(@memorySize) as mem, count(*)',
                 ["START RequestId: r1 Version: $LATEST", "hello", report])
    assert rows == [{"avg(@duration)": "12.5", "mem": "128000000", "count(*)": "1"}]


@pytest.mark.parametrize(("text", "needed"), [
    ("stats count(*) by bin(1m)", False), ("stats count(*) by @logStream | sort @logStream", False),
    ("stats avg(latency) by bin(5m)", True), ("filter @message like /x/ | stats count(*)", True),
    ("filter @duration > 5 | fields @timestamp", True), ("limit 5", True),
])
def test_whether_a_query_needs_the_message_text(text: str, needed: bool) -> None:
    assert needs_message(parse(text)) is needed


def test_ppl_parses_into_the_cwli_commands() -> None:
    from onceflow.logs.insights import ppl
    from onceflow.logs.insights.query import Filter, Like, Limit, Sort

    query = ppl.parse("where like(msg, 'a_c%') | sort - @timestamp, n | head")
    where, order, head = query.commands
    assert isinstance(where, Filter) and isinstance(where.cond, Like)
    assert where.cond.pattern.pattern == "^a.c.*$"  # type: ignore[union-attr]
    assert isinstance(order, Sort) and [(k[2], k[1]) for k in order.keys] == [("@timestamp", True), ("n", False)]
    assert head == Limit(10)


def test_logs_migration_ids_are_unique() -> None:
    """A repeated id is skipped as applied: its table never comes (Insights' queries once took logs-0004)."""
    from onceflow.logs.insights.store import MIGRATIONS as INSIGHTS
    from onceflow.logs.resource_policies import MIGRATIONS as POLICIES
    from onceflow.logs.store import MIGRATIONS as LOGS

    ids = [m[0] for m in LOGS + INSIGHTS + POLICIES]
    assert len(ids) == len(set(ids))


def test_a_query_a_restart_interrupted_runs_again() -> None:
    import json as _json
    import time as _time

    from onceflow.logs.insights.service import Insights
    from onceflow.logs.insights.store import MIGRATIONS as INSIGHTS
    from onceflow.logs.insights.store import add_query
    from onceflow.logs.service import LogsService
    from onceflow.logs.store import MIGRATIONS as LOGS
    from onceflow.store.db import Database

    db = Database(":memory:")
    db.migrate(LOGS + INSIGHTS)
    logs = LogsService(db)
    base = int(_time.time() * 1000) - 60_000
    logs.append("1", "r", "/g", "s", [(base + i, f"n={i}") for i in range(3)])
    with db.transaction() as conn:  # as the server left it when it stopped mid-query
        add_query(conn, {"id": "q1", "account": "1", "region": "r", "query": "stats count(*) as n",
                         "groups": _json.dumps(["/g"]), "created": base // 1000, "start_ms": base - 1000,
                         "end_ms": base + 60_000, "lim": None, "status": "Running", "language": "CWLI"})
    insights = Insights(db, logs)
    insights.resume()
    for _ in range(200):
        got = insights.results("1", "r", "q1")
        if got["status"] == "Complete":
            break
        _time.sleep(0.02)
    insights.shutdown()
    assert got["status"] == "Complete"
    assert [{f["field"]: f["value"] for f in row} for row in got["results"]] == [{"n": "3"}]
    db.close()


# ------------------------------------------------------------------ jsonParse, structures, unnest (s13)
EVENTS_DOC = json.dumps({"events": [{"name": "exception"}, {"name": "user action"}]})
ACCOUNTS_DOC = json.dumps({"accounts": [{"accountId": "a", "droppedSpans": 2, "type": "internal"},
                                        {"accountId": "b", "droppedSpans": 3},
                                        {"accountId": "a", "droppedSpans": 5, "type": "internal"}]})


def test_unnest_gives_one_row_per_item_of_a_parsed_list() -> None:
    # AWS's CWL_QuerySyntax-Unnest example: two records, event.name exception and user action.
    q = "fields jsonParse(@message) as json_message | unnest json_message.events into event | display event.name"
    assert _rows(q, [EVENTS_DOC]) == [{"event.name": "exception"}, {"event.name": "user action"}]
    with pytest.raises(QuerySyntaxError):  # `into` and its field are required
        parse("fields jsonParse(@message) as j | unnest j.events")


def test_unnest_then_filter_and_stats_over_the_items() -> None:
    q = "fields jsonParse(@message) as js | unnest js.accounts into account | filter account.type = \"internal\""
    assert len(_rows(q + " | display account.accountId", [ACCOUNTS_DOC])) == 2
    q = ("fields jsonParse(@message) as accounts | unnest accounts.accounts into account"
         " | stats sum(account.droppedSpans) as n by account.accountId | sort n desc | limit 10")
    assert _rows(q, [ACCOUNTS_DOC]) == [{"account.accountId": "a", "n": "7"}, {"account.accountId": "b", "n": "3"}]


def test_unnest_takes_any_other_value_as_a_list_of_one() -> None:
    msgs = [json.dumps({"x": "[1, 2]"}), json.dumps({"x": "7"}), json.dumps({"x": "[]"}), "no x"]
    assert _rows("fields jsonParse(x) as v | unnest v into i | display i", msgs) == [
        {"i": "1"}, {"i": "2"}, {"i": "7"}]


def test_json_parse_members_and_stringify() -> None:
    q = ("fields jsonParse(@message) as js | fields js.accounts.1.accountId as second,"
         " jsonStringify(js.accounts.1) as s, js.accounts.9.accountId as none | display second, s, none")
    assert _rows(q, [ACCOUNTS_DOC]) == [{"second": "b", "s": '{"accountId":"b","droppedSpans":3}'}]
    assert _rows("fields jsonParse(@message) as js | display js", ["not json"]) == [{}]


def test_structures_group_dedup_and_count_distinct_by_their_json() -> None:
    msgs = [ACCOUNTS_DOC, ACCOUNTS_DOC, EVENTS_DOC]
    assert _rows("fields jsonParse(@message) as js | stats count(*) as n by js | sort n desc", msgs) == [
        {"js": json.dumps(json.loads(ACCOUNTS_DOC), separators=(",", ":")), "n": "2"},
        {"js": json.dumps(json.loads(EVENTS_DOC), separators=(",", ":")), "n": "1"}]
    assert _rows("fields jsonParse(@message) as js | stats count_distinct(js) as d", msgs) == [{"d": "2"}]
    assert len(_rows("fields jsonParse(@message) as js | display js | dedup js", msgs)) == 2


def test_unmask_shows_the_stored_value() -> None:
    assert _rows("fields unmask(@message) as m | display m", ["secret 4111"]) == [{"m": "secret 4111"}]



def test_filter_index_filters_and_names_its_fields() -> None:
    from onceflow.logs.insights.run import index_fields
    q = parse('filterIndex requestId = "r2" or requestId in ["r3"] | fields n')
    assert index_fields(q) == {"requestId"}
    msgs = [json.dumps({"requestId": r, "n": i}) for i, r in enumerate(["r1", "r2", "r3"])]
    assert _rows('filterIndex requestId = "r2" or requestId in ["r3"] | fields n | sort n asc', msgs) == [
        {"n": "1"}, {"n": "2"}]
    for bad in ("filterIndex n > 1", "filterIndex a = b", "filterIndex strlen(a) = 1"):
        with pytest.raises(QuerySyntaxError):
            parse(bad)


def test_source_command_parses_its_selection_and_runs_as_nothing() -> None:
    from onceflow.logs.insights.query import Source
    q = parse("SOURCE logGroups(namePrefix: ['/a', '/b'], class: ['INFREQUENT_ACCESS']) | fields n")
    assert q.commands[0] == Source(("/a", "/b"), None, ("INFREQUENT_ACCESS",))
    assert parse("source loggroups() | fields n").commands[0] == Source(None, None, ("STANDARD",))
    assert _rows("SOURCE logGroups() | fields n", [json.dumps({"n": 1})]) == [{"n": "1"}]
    for bad in ("fields n | SOURCE logGroups()", "SOURCE logGroups(namePrefix: ['a', 'b', 'c', 'd', 'e', 'f'])",
                "SOURCE logGroups(class: ['COLD'])", "SOURCE logGroups(namePrefix: ['a'], namePrefix: ['b'])"):
        with pytest.raises(QuerySyntaxError):
            parse(bad)


def test_hash_starts_a_comment_to_the_end_of_the_line() -> None:
    # CWL_QuerySyntax: "To create queries that contain comments, set off the comments with the hash character (#)."
    msgs = [json.dumps({"a": "x#1", "n": 1}), json.dumps({"a": "y", "n": 2})]
    q = "# the newest first\nfields a, n # both fields\n| filter a like /#/ # a regex with a hash\n| sort n"
    assert _rows(q, msgs) == [{"a": "x#1", "n": "1"}]
    assert _rows('fields `a` as h | filter h = "x#1" # in a string it is text', msgs) == [{"h": "x#1"}]


def test_a_leading_filter_index_skips_rather_than_scans() -> None:
    msgs = [json.dumps({"requestId": r}) for r in ("r1", "r2", "r3")]
    out = run(parse('filterIndex requestId in ["r2", "r3"] | filter requestId != "r3" | fields requestId'),
              _events(msgs))
    assert (out.scanned, out.skipped, out.matched, out.skipped_bytes) == (2, 1, 1, len(msgs[0]))
    later = run(parse('fields requestId | filterIndex requestId = "r2"'), _events(msgs))
    assert (later.scanned, later.skipped) == (3, 0)  # not leading: an ordinary filter's work


def test_json_nested_deeper_than_python_recurses_does_not_fail_the_query() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    # The deep message's fields are not discovered (its row shows none); the next one's are.
    assert _rows("fields a, n", ['{"a": ' + deep + ', "n": 1}', json.dumps({"n": 2})]) == [{}, {"n": "2"}]
    assert _rows("fields jsonParse(@message) as j | display j", [deep]) == [{}]
