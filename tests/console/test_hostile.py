"""Hostile values stored through the AWS APIs are shown inertly on every page that displays them:
markup in item attributes (names and values), state names, log lines, stream names and execution
inputs; quotes; a 100 KB string; non-UTF-8 bytes in binaries; and reflected query parameters."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from console_seed import BINARY, XSS, Page

ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


def inert(got: Page, *, escaped: bool = True) -> str:
    """No markup of ours from user data: the only <script> is the console's own, no raw img tag."""
    text = got.text
    assert "<script>alert" not in text and "<img" not in text and "onerror=alert(2)>" not in text
    assert len(re.findall(r"<script\b", text)) == (1 if "text/html" in got.headers.get("content-type", "") else 0)
    assert "Traceback" not in text
    if escaped:
        assert ESCAPED in text
    return text


def test_dynamodb_items(page: Callable[[str], Page], hostile: dict[str, Any]) -> None:
    text = inert(page(f"/dynamodb/{hostile['table']}"))
    assert "&#34;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;" in text
    assert "more characters" in text  # the 100 KB value is clipped in the table
    assert "b64:" + base64.b64encode(BINARY).decode()[:20] in text
    link = re.search(r'href="(/dynamodb/[^"]+/item\?key=[^"]+)"', text)
    assert link
    item = inert(page(link.group(1).replace("&amp;", "&")))
    assert len(item) > 100_000 and base64.b64encode(BINARY).decode() in item
    inert(page("/dynamodb"), escaped=False)
    queried = inert(page(f"/dynamodb/{hostile['table']}?pk={quote(XSS)}"))
    assert "<td>" + ESCAPED + "</td>" in queried


def test_binary_keys_page_and_link(page: Callable[[str], Page], hostile: dict[str, Any]) -> None:
    text = inert(page(f"/dynamodb/{hostile['btable']}"))
    link = re.search(r'href="(/dynamodb/[^"]+/item\?key=[^"]+)"', text)
    assert link
    item = inert(page(link.group(1).replace("&amp;", "&")))
    assert base64.b64encode(BINARY).decode() in item
    b64 = quote(base64.b64encode(BINARY).decode(), safe="")
    assert "<td>" + ESCAPED + "</td>" in inert(page(f"/dynamodb/{hostile['btable']}?pk={b64}"))
    assert page(f"/dynamodb/{hostile['btable']}?pk=not*base64").status == 400


def test_state_names_definitions_and_execution_inputs(page: Callable[[str], Page], hostile: dict[str, Any]) -> None:
    machine = hostile["machine"]
    detail = inert(page(f"/states/{machine}"))
    assert f'data-state="{ESCAPED}"' in detail and 'data-state="a&#34;b&#39;c&amp;d&lt;e&gt;"' in detail
    execution = inert(page(f"/states/{machine}/executions/hostile-input"))
    assert "node st-succeeded" in execution and "node st-failed" in execution
    assert len(execution) < 500_000  # the 100 KB input appears once, in full, not once per event
    inert(page(f"/states/{machine}/executions/hostile-input/idempotency"), escaped=False)
    status = page(f"/states/{machine}/executions/hostile-input/status.json")
    inert(status, escaped=False)
    assert json.loads(status.text)["states"][XSS]["status"] == "succeeded"
    inert(page("/states"), escaped=False)


def test_log_lines_and_stream_names(page: Callable[[str], Page], hostile: dict[str, Any]) -> None:
    group = quote(hostile["group"], safe="")
    text = inert(page(f"/logs/group?name={group}"))
    assert "&#34;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;" in text
    filtered = inert(page(f"/logs/group?name={group}&filter={quote(json.dumps(XSS))}"))
    assert f'value="&#34;{ESCAPED}&#34;"' in filtered  # the filter box reflects the pattern escaped
    assert filtered.count('<pre class="log">') == 2  # the XSS line and the 100 KB line that ends with it
    refused = page(f"/logs/group?name={group}&filter={quote(XSS)}")  # unquoted: not a valid pattern
    assert refused.status == 400 and "The filter pattern was refused" in inert(refused)
    inert(page(f"/logs/stream?group={group}&stream={quote(XSS)}"))
    inert(page("/logs?prefix=" + quote(XSS)))


def test_roles_and_reflected_parameters(page: Callable[[str], Page], hostile: dict[str, Any]) -> None:
    inert(page(f"/iam/roles/{hostile['role']}"))
    for path in ("/no/" + quote(XSS), "/states?status=" + quote(XSS), "/states?region=" + quote(XSS),
                 f"/states/{hostile['machine']}/keys?field=x&value=" + quote(XSS),
                 f"/states/{hostile['machine']}?status=" + quote(XSS)):
        got = page(path)
        assert got.status in (200, 400, 404), path
        inert(got, escaped=False)
