"""Logs Insights' query language as AWS documents it (CWL_QuerySyntax-operations-functions and the
stats page), through StartQuery/GetQueryResults on a real server: `^`, strcontains' number,
fromMillis/toMillis, the IP address functions, trim with characters, sortsFirst/sortsLast; and the documented
string, numeric, general and date functions that had no test of their own."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from logs_setup import query_rows

BASE = (int(time.time()) // 3600 - 2) * 3_600_000  # PutLogEvents refuses events weeks old
ROWS = [("10.1.2.3", 3, "b"), ("2001:db8::1", 10, "a"), ("not-an-ip", 2, "c")]


@pytest.fixture(scope="module")
def logs(aws: Callable[..., Any]) -> Any:
    return aws("logs")


@pytest.fixture(scope="module")
def group(logs: Any) -> str:
    name = f"/insights-s10/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=name)
    logs.create_log_stream(logGroupName=name, logStreamName="s")
    logs.put_log_events(logGroupName=name, logStreamName="s", logEvents=[
        {"timestamp": BASE + i * 1000, "message": json.dumps({"ip": ip, "n": n, "w": w})}
        for i, (ip, n, w) in enumerate(ROWS)])
    return name


def _rows(logs: Any, group: str, text: str) -> list[dict[str, str]]:
    return query_rows(logs, group, text, BASE)


def test_exponent_binds_tighter_than_multiplication(logs: Any, group: str) -> None:
    rows = _rows(logs, group, "fields 2 ^ 3 as p, 2 * 3 ^ 2 as r, n ^ 2 as sq | sort n asc | limit 1")
    assert rows == [{"p": "8", "r": "18", "sq": "4"}]


def test_strcontains_answers_one_or_zero(logs: Any, group: str) -> None:
    rows = _rows(logs, group, 'fields w, strcontains(w, "a") as has | sort w asc')
    assert [(r["w"], r["has"]) for r in rows] == [("a", "1"), ("b", "0"), ("c", "0")]
    assert [r["w"] for r in _rows(logs, group, 'filter strcontains(w, "b") | fields w')] == ["b"]


def test_from_and_to_millis(logs: Any, group: str) -> None:
    rows = _rows(logs, group, "fields toMillis(@timestamp) as ms, fromMillis(n * 1000) as t | sort n asc")
    assert [r["ms"] for r in rows] == [str(BASE + 2000), str(BASE), str(BASE + 1000)]
    assert [r["t"] for r in rows] == ["1970-01-01 00:00:02.000", "1970-01-01 00:00:03.000",
                                      "1970-01-01 00:00:10.000"]


def test_ip_address_functions(logs: Any, group: str) -> None:
    rows = _rows(logs, group, 'fields ip, isValidIp(ip) as v, isValidIpV4(ip) as v4, isValidIpV6(ip) as v6, '
                              'isIpInSubnet(ip, "10.0.0.0/8") as s, isIpv4InSubnet(ip, "10.1.0.0/16") as s4, '
                              'isIpv6InSubnet(ip, "2001:db8::/32") as s6 | sort n asc')
    got = {r["ip"]: (r["v"], r["v4"], r["v6"], r["s"], r["s4"], r["s6"]) for r in rows}
    assert got == {"10.1.2.3": ("true", "true", "false", "true", "true", "false"),
                   "2001:db8::1": ("true", "false", "true", "false", "false", "true"),
                   "not-an-ip": ("false", "false", "false", "false", "false", "false")}
    assert [r["ip"] for r in _rows(logs, group, "filter isValidIpV6(ip) | fields ip")] == ["2001:db8::1"]


def test_trim_functions_with_characters(logs: Any, group: str) -> None:
    rows = _rows(logs, group, 'fields ltrim("xyZfooxyZ", "xyZ") as l, rtrim("xyZfooxyZ", "xyZ") as r, '
                              'trim("xyZfooxyZ", "xyZ") as t, substr("xyZfooxyZ", 3, 3) as s | limit 1')
    assert rows == [{"l": "fooxyZ", "r": "xyZfoo", "t": "foo", "s": "foo"}]


def test_sorts_first_and_last(logs: Any, group: str) -> None:
    rows = _rows(logs, group, "stats sortsFirst(w) as fw, sortsLast(w) as lw, sortsFirst(n) as fn, "
                              "sortsLast(n) as ln")
    assert rows == [{"fw": "a", "lw": "c", "fn": "2", "ln": "10"}]  # numbers by value, not as text



def test_string_numeric_and_general_functions(logs: Any, group: str) -> None:
    rows = _rows(logs, group, 'filter n = 3 | fields concat(w, "-", n) as c, strlen(ip) as sl, toupper(w) as u, '
                              'tolower("AbC") as lo, replace(ip, ".", "_") as r, greatest(n, 5, 1) as g, '
                              'least(n, 5, 1) as l, abs(0 - n) as ab, ceil(n / 2) as ce, floor(n / 2) as fl, '
                              'sqrt(n * 3) as sq, log(1) as lg, coalesce(nothing, w) as co, isempty(nothing) as ie, '
                              'isblank("  ") as ib, ispresent(nothing) as pr')
    assert rows == [{"c": "b-3", "sl": "8", "u": "B", "lo": "abc", "r": "10_1_2_3", "g": "5", "l": "1", "ab": "3",
                     "ce": "2", "fl": "1", "sq": "3", "lg": "0", "co": "b", "ie": "true", "ib": "true",
                     "pr": "false"}]


def test_datefloor_dateceil_and_regex_match(logs: Any, group: str) -> None:
    rows = _rows(logs, group, "filter n = 10 | fields datefloor(@timestamp, 1m) as f, dateceil(@timestamp, 1m) as c")
    assert rows == [{"f": _shown(BASE), "c": _shown(BASE + 60_000)}]  # the event is 1 s after the hour
    assert sorted(r["w"] for r in _rows(logs, group, "filter w =~ /^[ab]$/ | fields w")) == ["a", "b"]


def _shown(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S.000")
