"""Templates and the filters they use. Autoescaping is on for every template: user data (state
names, item attributes, log lines, inputs) can only ever reach the page as text."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined

from onceflow.console import graph

if TYPE_CHECKING:
    from onceflow.console.app import View

MAX_SHOWN = 4000  # characters of one value shown inline before "... N more characters"


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(loader=PackageLoader("onceflow.console", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(pretty=pretty, ts=timestamp, ddb=ddb_value, q=segment, clip=clip, size=size,
                       typed_json=typed_json, first_line=first_line,
                       compact=compact)
    env.globals.update(START=graph.START, END=graph.END)
    return env


def page(view: View, template: str, **context: Any) -> str:
    tpl = environment().get_template(template)
    return tpl.render(v=view, url=view.url, notes=view.notes, **context)


def url_for(view: View, path: str, **query: Any) -> str:
    settings = view.stack.settings
    params = {k: v for k, v in query.items() if v not in (None, "")}
    if view.account != settings.account_id:
        params.setdefault("account", view.account)
    if view.region != settings.default_region:
        params.setdefault("region", view.region)
    return path + ("?" + urlencode(params) if params else "")


def segment(value: Any) -> str:
    """A name as one URL path segment."""
    return quote(str(value), safe="")


def json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    return str(value)


def json_bytes(value: Any) -> bytes:
    """JSON whose text holds no <, > or & (as \\u escapes): inert even if something sniffs it as HTML."""
    text = json.dumps(value, default=json_default, ensure_ascii=False)
    text = text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return text.encode("utf-8")


def pretty(value: Any) -> str:
    """A JSON string (or a value) indented for reading; text that is not JSON comes back as is."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=json_default)


def compact(value: Any) -> str:
    """A history field as Step Functions stores it (compact JSON text); console.js indents it when opened."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=json_default)


def clip(value: Any, limit: int = MAX_SHOWN) -> str:
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def first_line(value: Any, limit: int = 160) -> str:
    text = str(value).strip().split("\n", 1)[0]
    return clip(text, limit)


def timestamp(value: Any) -> str:
    """datetime, epoch seconds (float) or epoch milliseconds (int, as Logs sends) -> UTC text."""
    if value is None or value == "":
        return ""
    if isinstance(value, datetime):
        moment = value.astimezone(UTC)
    elif isinstance(value, int) and value > 10**11:
        moment = datetime.fromtimestamp(value / 1000, UTC)
    elif isinstance(value, int | float):
        moment = datetime.fromtimestamp(value, UTC)
    else:
        return str(value)
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def size(value: Any) -> str:
    n = float(value or 0)
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(value)


def ddb_value(attr: Any) -> str:
    """One DynamoDB attribute value as a short text for a table cell."""
    if not isinstance(attr, dict) or len(attr) != 1:
        return clip(json.dumps(attr, default=json_default), 200)
    (kind, value), = attr.items()
    if kind in ("S", "N"):
        return clip(str(value), 200)
    if kind == "B":
        return clip("b64:" + base64.b64encode(bytes(value)).decode(), 200) if isinstance(value, bytes) else str(value)
    if kind == "BOOL":
        return "true" if value else "false"
    if kind == "NULL":
        return "null"
    return clip(json.dumps(_plain(attr), default=json_default, ensure_ascii=False), 200)


def _plain(attr: Any) -> Any:
    """Typed -> plain JSON (for nested L/M/sets in a cell)."""
    if not isinstance(attr, dict) or len(attr) != 1:
        return attr
    (kind, value), = attr.items()
    if kind == "M":
        return {k: _plain(v) for k, v in value.items()}
    if kind == "L":
        return [_plain(v) for v in value]
    if kind in ("SS", "NS"):
        return sorted(value)
    if kind == "BS":
        return [base64.b64encode(bytes(v)).decode() for v in value]
    if kind == "B":
        return base64.b64encode(bytes(value)).decode()
    return value


def typed_json(item: Any) -> str:
    """An item as the CLI prints it: typed JSON with binaries in base64."""
    return json.dumps(item, indent=2, ensure_ascii=False, default=json_default)


def epoch_ms(value: Any) -> int | None:
    """A history or API time (datetime, or epoch seconds) as epoch milliseconds, as Logs counts."""
    if isinstance(value, datetime):
        return int(value.timestamp() * 1000)
    if isinstance(value, int | float):
        return int(value * 1000)
    return None
