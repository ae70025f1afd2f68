"""Field index policy documents and account-level selection criteria, checked as the model and
CloudWatchLogs-Field-Indexing-Syntax document them: shared by the log-group level policies
(index_policies.py) and the account-level FIELD_INDEX_POLICY ones (policies.py).

A document is a JSON object with `Fields` (names) and/or `FieldsV2` (name -> {"type": FIELD_INDEX or
FACET}), together at least 1 and at most 20 names of at most 100 characters, the two sets apart. A
field of the log's own starting with `@` is written `@@name`; of the generated fields only those the
syntax page lists may be indexed. An account policy selects log groups by `LogGroupNamePrefix IN
[...]`, or events by `DataSourceName IN [...] AND DataSourceType IN [...]`; no two policies' name
prefixes may be the same or overlap.
"""

from __future__ import annotations

import json
import re

from onceflow.errors import ServiceError
from onceflow.logs import errors
from onceflow.logs.json_docs import json_object

MAX_FIELDS = 20
MAX_FIELD_NAME = 100
TYPES = ("FIELD_INDEX", "FACET")
# The generated fields that may be indexed, as written (CloudWatchLogs-Field-Indexing-Syntax).
GENERATED = frozenset({"@logStream", "@ingestionTime", "@requestId", "@type", "@initDuration", "@duration",
                       "@billedDuration", "@memorySize", "@maxMemoryUsed", "@xrayTraceId", "@xraySegmentId"})
DEFAULTS = ("@logStream", "@aws.region", "@aws.account", "@source.log", "traceId")
_PREFIXES = re.compile(r'\s*LogGroupNamePrefix\s+IN\s+\[(.*)\]\s*', re.S)


def _invalid(message: str) -> ServiceError:
    return errors.invalid_parameter(message)


def index_fields(text: str) -> dict[str, str]:
    """A policy document's fields and their types, or the InvalidParameterException it earns."""
    doc = json_object(text)
    if doc is None:
        raise _invalid("Invalid policy document: it must be a JSON object")  # UNCONFIRMED wording
    plain, typed = doc.get("Fields", []), doc.get("FieldsV2", {})
    if not isinstance(plain, list) or not all(isinstance(f, str) for f in plain):
        raise _invalid("Invalid policy document: Fields must be an array of strings")  # UNCONFIRMED wording
    if not isinstance(typed, dict) or not all(isinstance(v, dict) and v.get("type") in TYPES for v in typed.values()):
        # UNCONFIRMED wording.
        raise _invalid("Invalid policy document: each FieldsV2 entry must have a type of FIELD_INDEX or FACET")
    if set(plain) & set(typed):
        raise _invalid("Invalid policy document: Fields and FieldsV2 must not name the same field")  # UNCONFIRMED
    fields = {**{f: "FIELD_INDEX" for f in plain}, **{k: v["type"] for k, v in typed.items()}}
    if not fields:
        raise _invalid("Invalid policy document: it must include at least one field index")  # UNCONFIRMED wording
    if len(fields) > MAX_FIELDS:
        # UNCONFIRMED wording; the quota is the model's and the syntax page's.
        raise _invalid(f"Invalid policy document: it can include at most {MAX_FIELDS} fields")
    for name in fields:
        _check_name(name)
    return fields


def _check_name(name: str) -> None:
    if not name or len(name) > MAX_FIELD_NAME:
        # UNCONFIRMED wording.
        raise _invalid(f"Invalid field name {name}: a field name can have 1 to {MAX_FIELD_NAME} characters")
    if name.startswith("@") and not name.startswith("@@") and name not in GENERATED:
        # UNCONFIRMED wording: a log's own @field is written @@field; other generated fields are not indexable.
        raise _invalid(f"Invalid field name {name}: {name} cannot be used as a field index")


def event_field(name: str) -> str:
    """The field an index name stands for in an event (`@@userId` is the log's own `@userId`)."""
    return name[1:] if name.startswith("@@") else name


def prefixes_of(criteria: str | None) -> list[str] | None:
    """The log group name prefixes an account policy selects, [] for data-source criteria, None for all."""
    if not criteria:
        return None
    m = _PREFIXES.fullmatch(criteria)
    if m is None:
        return []  # a data source selection applies event by event, not to the group as a whole
    try:
        names = json.loads(f"[{m.group(1)}]")
    except ValueError:
        return []
    return [n for n in names if isinstance(n, str)]


_DATA_SOURCE = re.compile(r'\s*DataSourceName\s+IN\s+\[.*\](\s+AND\s+DataSourceType\s+IN\s+\[.*\])?\s*', re.S)


def check_criteria(criteria: str | None, others: list[str | None]) -> None:
    """Refuse an account field index policy's selectionCriteria that is neither form, or whose name
    prefixes are the same as or overlap another policy's (`my-log` and `my-logging`)."""
    if not criteria:
        return
    if _DATA_SOURCE.fullmatch(criteria):
        return
    mine = prefixes_of(criteria) if _PREFIXES.fullmatch(criteria) else None
    if not mine:
        # UNCONFIRMED wording.
        raise errors.invalid_parameter('selectionCriteria must be LogGroupNamePrefix IN ["prefix", ...] or '
                                       'DataSourceName IN [...] AND DataSourceType IN [...]')
    for other in others:
        theirs = prefixes_of(other) if other and _PREFIXES.fullmatch(other) else []
        for a in mine:
            for b in theirs or []:
                if a.startswith(b) or b.startswith(a):
                    # UNCONFIRMED wording.
                    raise errors.invalid_parameter(f"The log group name prefix {a} overlaps the prefix {b} of "
                                                   "another field index policy")
