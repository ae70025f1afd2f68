"""What a target receives: the event, `Input` (fixed JSON), `InputPath` (a part of the event) or
`InputTransformer` (variables read with JSON paths, put into a template).

Template rules as AWS's "input transformation" page gives them:
- A template that is JSON (it starts with `{`, `[` or `"`) has its placeholders filled as JSON: a
  placeholder inside a JSON string gets a string's raw (escaped) text, a placeholder outside one
  gets the value as JSON (a string with its quotes, a number, an object). `<aws.events.event>` and
  `<aws.events.event.json>` are JSON, never escaped.
- Any other template is text: each placeholder gets a string's raw text, other values as JSON.
- `<name>` that names no variable stays as written. A path that finds nothing gives null (JSON
  placement) or an empty text (inside a string or a text template) - UNCONFIRMED against AWS.

JSON paths here are EventBridge's subset: `$`, `.name` (dashes, underscores, slashes), `['name']`,
`[n]`, and `*` / `[*]` (which collect a list).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

PREDEFINED = ("aws.events.rule-arn", "aws.events.rule-name", "aws.events.event.ingestion-time",
              "aws.events.event", "aws.events.event.json", "aws.scheduler.schedule-arn",
              "aws.scheduler.scheduled-time", "aws.scheduler.execution-id", "aws.scheduler.attempt-number")
_STEP = re.compile(r"""\.([^.\[\]]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]|\[\*\]""")
_MISSING = object()


class PathError(ValueError):
    pass


def parse_path(path: str) -> list[str | int | None]:
    """Steps of a JSON path: names, indexes, None for a wildcard."""
    if not path.startswith("$"):
        raise PathError(path)
    steps: list[str | int | None] = []
    pos = 1
    while pos < len(path):
        m = _STEP.match(path, pos)
        if m is None:
            raise PathError(path)
        name, index, quoted, dquoted = m.groups()
        if name is not None:
            steps.append(None if name == "*" else name)
        elif index is not None:
            steps.append(int(index))
        elif quoted is not None or dquoted is not None:
            steps.append(quoted if quoted is not None else dquoted)
        else:
            steps.append(None)
        pos = m.end()
    return steps


def read_path(value: Any, path: str) -> Any:
    """The value at `path` (a list when it has a wildcard); _MISSING when nothing is there."""
    nodes, wild = [value], False
    for step in parse_path(path):
        nxt: list[Any] = []
        for node in nodes:
            if step is None:
                wild = True
                nxt.extend(node.values() if isinstance(node, dict) else node if isinstance(node, list) else [])
            elif isinstance(step, int):
                if isinstance(node, list) and step < len(node):
                    nxt.append(node[step])
            elif isinstance(node, dict) and step in node:
                nxt.append(node[step])
        nodes = nxt
    if wild:
        return nodes
    return nodes[0] if nodes else _MISSING


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _raw(value: Any) -> str:
    if value is _MISSING:
        return ""
    return value if isinstance(value, str) else _json(value)


def render_template(template: str, variables: dict[str, Any], raw_json: frozenset[str] = frozenset()) -> str:
    """Fill `<name>` placeholders; `raw_json` names values that are JSON text already."""
    is_json = template.lstrip()[:1] in ("{", "[", '"')
    out: list[str] = []
    in_string = False
    i, n = 0, len(template)
    while i < n:
        c = template[i]
        if c == "<":
            end = template.find(">", i + 1)
            name = template[i + 1:end] if end > 0 else None
            if name is not None and name in variables:
                value = variables[name]
                if name in raw_json:
                    out.append(value)
                elif not is_json:
                    out.append(_raw(value))
                elif in_string:
                    out.append(_json(_raw(value))[1:-1])  # a string's escaped text, without its quotes
                else:
                    out.append("null" if value is _MISSING else _json(value))
                i = end + 1
                continue
        if is_json:
            if c == "\\" and in_string:
                out.append(template[i:i + 2])
                i += 2
                continue
            if c == '"':
                in_string = not in_string
        out.append(c)
        i += 1
    return "".join(out)


def without_detail(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "detail"}


def target_input(target: dict[str, Any], event: dict[str, Any], context: dict[str, str]) -> str:
    """The text a target receives for `event` (context: the predefined variables' values)."""
    if "Input" in target:
        return str(target["Input"])
    if "InputPath" in target:
        found = read_path(event, target["InputPath"])
        return "null" if found is _MISSING else _json(found)
    transformer = target.get("InputTransformer")
    if not transformer:
        return _json(event)
    variables: dict[str, Any] = {name: read_path(event, path)
                                 for name, path in (transformer.get("InputPathsMap") or {}).items()}
    variables.update(context)
    variables["aws.events.event"] = _json(without_detail(event))
    variables["aws.events.event.json"] = _json(event)
    return render_template(transformer["InputTemplate"], variables,
                           frozenset({"aws.events.event", "aws.events.event.json"}))


def ingestion_time(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(ts * 1000) % 1000:03d}Z"
