"""CreateStateMachine's checks of a Map's ItemBatcher, ItemReader and ResultWriter objects.

Messages follow the checker's (AWS's) wording for the same kind of mistake elsewhere: unknown
fields, a value and its Path both given, integers out of range, enumerations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from onceflow.sfn.asl.jsonata import is_jsonata
from onceflow.sfn.asl.paths import is_valid_path

Add = Callable[[str, str], None]

MAX_BATCH_BYTES = 262144  # 256 KiB, a child execution's input limit
READERS = ("arn:aws:states:::s3:getObject", "arn:aws:states:::s3:listObjectsV2")
WRITER = "arn:aws:states:::s3:putObject"
_BATCHER = ("MaxItemsPerBatch", "MaxItemsPerBatchPath", "MaxInputBytesPerBatch", "MaxInputBytesPerBatchPath",
            "BatchInput")
_READER = ("Resource", "ReaderConfig", "Parameters", "Arguments")
_READER_CONFIG = ("InputType", "CSVHeaderLocation", "CSVHeaders", "CSVDelimiter", "MaxItems", "MaxItemsPath",
                  "ManifestType", "Transformation")
_WRITER = ("Resource", "Parameters", "Arguments", "WriterConfig")
_ENUMS = {
    "InputType": ("CSV", "JSON", "JSONL", "MANIFEST"),
    "CSVHeaderLocation": ("FIRST_ROW", "GIVEN"),
    "CSVDelimiter": ("COMMA", "PIPE", "SEMICOLON", "SPACE", "TAB"),
    "Transformation": ("NONE", "COMPACT", "FLATTEN"),
    "OutputType": ("JSON", "JSONL"),
}


def _object(value: Any, key: str, loc: str, add: Add) -> bool:
    if not isinstance(value, dict):
        add(f"The value for the field '{key}' must be an OBJECT", loc)
        return False
    return True


def _fields(obj: dict[str, Any], allowed: tuple[str, ...], loc: str, add: Add) -> None:
    for key in obj:
        if key not in allowed:
            add(f"Field '{key}' is not supported", loc)


def _enums(obj: dict[str, Any], loc: str, add: Add) -> None:
    for key, values in _ENUMS.items():
        if key in obj and obj[key] not in values and not is_jsonata(obj[key]):
            add(f"The field '{key}' should have one of these values: [{', '.join(values)}]", f"{loc}/{key}")


def _integer(obj: dict[str, Any], key: str, loc: str, lang: str, add: Add, upper: int | None = None) -> None:
    path = f"{key}Path"
    if key in obj and path in obj:
        add(f"Only one of these fields is allowed: [{key}, {path}]", loc)
    value = obj.get(key)
    if value is not None and not is_jsonata(value):
        ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
        if not ok or (upper is not None and value > upper):
            bound = f" between 1 and {upper}" if upper is not None else ""
            add(f"The value for the field '{key}' must be a positive integer{bound}", f"{loc}/{key}")
    if path in obj:
        if lang == "JSONata":
            add(f"The QueryLanguage is set to 'JSONata', but field '{path}' is only supported for the "
                f"'JSONPath' QueryLanguage", loc)
        elif not isinstance(obj[path], str) or not is_valid_path(obj[path]):
            add(f"The value for the field '{path}' must be a valid JSONPath", f"{loc}/{path}")


def _tolerance(state: dict[str, Any], loc: str, add: Add) -> None:
    for key in ("ToleratedFailureCount", "ToleratedFailurePercentage"):
        if key in state and f"{key}Path" in state:
            add(f"Only one of these fields is allowed: [{key}, {key}Path]", loc)
    count = state.get("ToleratedFailureCount")
    if count is not None and not is_jsonata(count) and not (
            isinstance(count, int) and not isinstance(count, bool) and count >= 0):
        add("The value for the field 'ToleratedFailureCount' must be a non-negative integer",
            f"{loc}/ToleratedFailureCount")
    pct = state.get("ToleratedFailurePercentage")
    if pct is not None and not is_jsonata(pct) and not (
            isinstance(pct, int | float) and not isinstance(pct, bool) and 0 <= pct <= 100):
        add("The value for the field 'ToleratedFailurePercentage' must be a number between 0 and 100",
            f"{loc}/ToleratedFailurePercentage")


def check_map_fields(state: dict[str, Any], loc: str, lang: str, add: Add,
                     template: Callable[[Any, str], None]) -> None:
    """`template` checks a JSONPath payload template (Parameters, BatchInput) as the state's own."""
    _tolerance(state, loc, add)
    if "ItemBatcher" in state:
        b, bloc = state["ItemBatcher"], f"{loc}/ItemBatcher"
        if _object(b, "ItemBatcher", bloc, add):
            _fields(b, _BATCHER, bloc, add)
            if not any(k in b for k in _BATCHER[:4]):
                add("At least one of these fields is required: [MaxItemsPerBatch, MaxItemsPerBatchPath, "
                    "MaxInputBytesPerBatch, MaxInputBytesPerBatchPath]", bloc)
            _integer(b, "MaxItemsPerBatch", bloc, lang, add)
            _integer(b, "MaxInputBytesPerBatch", bloc, lang, add, MAX_BATCH_BYTES)
            if lang == "JSONPath" and "BatchInput" in b:
                template(b["BatchInput"], f"{bloc}/BatchInput")
    if "ItemReader" in state:
        r, rloc = state["ItemReader"], f"{loc}/ItemReader"
        if _object(r, "ItemReader", rloc, add):
            _fields(r, _READER, rloc, add)
            _resource(r, READERS, rloc, add)
            config = r.get("ReaderConfig", {})
            if _object(config, "ReaderConfig", f"{rloc}/ReaderConfig", add):
                cloc = f"{rloc}/ReaderConfig"
                _fields(config, _READER_CONFIG, cloc, add)
                _enums(config, cloc, add)
                if r.get("Resource") == READERS[0] and "InputType" not in config:
                    add("These fields are required: [InputType]", cloc)
                if config.get("CSVHeaderLocation") == "GIVEN" and not isinstance(config.get("CSVHeaders"), list):
                    add("The field 'CSVHeaders' is required when 'CSVHeaderLocation' is 'GIVEN'", cloc)
                _integer(config, "MaxItems", cloc, lang, add, 100000000)
            _parameters(r, rloc, lang, add, template)
    if "ResultWriter" in state:
        w, wloc = state["ResultWriter"], f"{loc}/ResultWriter"
        if _object(w, "ResultWriter", wloc, add):
            _fields(w, _WRITER, wloc, add)
            if "Resource" in w or "WriterConfig" not in w:
                _resource(w, (WRITER,), wloc, add)
            if "WriterConfig" in w and _object(w["WriterConfig"], "WriterConfig", f"{wloc}/WriterConfig", add):
                _enums(w["WriterConfig"], f"{wloc}/WriterConfig", add)
            _parameters(w, wloc, lang, add, template)


def _resource(obj: dict[str, Any], allowed: tuple[str, ...], loc: str, add: Add) -> None:
    if "Resource" not in obj:
        add("These fields are required: [Resource]", loc)
    elif obj["Resource"] not in allowed:
        add(f"The field 'Resource' should have one of these values: [{', '.join(allowed)}]", f"{loc}/Resource")


def _parameters(obj: dict[str, Any], loc: str, lang: str, add: Add, template: Callable[[Any, str], None]) -> None:
    key = "Arguments" if lang == "JSONata" else "Parameters"
    wrong = "Parameters" if lang == "JSONata" else "Arguments"
    if wrong in obj:
        add(f"The QueryLanguage is set to '{lang}', but field '{wrong}' is only supported for the "
            f"'{'JSONPath' if wrong == 'Parameters' else 'JSONata'}' QueryLanguage", loc)
    if lang == "JSONPath" and key in obj:
        template(obj[key], f"{loc}/{key}")
