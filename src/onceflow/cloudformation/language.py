"""The AWS::LanguageExtensions transform's Fn::ForEach: a `"Fn::ForEach::Name": [Identifier,
Collection, {OutputKey: OutputValue}]` entry of Resources, Outputs, Conditions or any mapping
becomes one entry per item of the collection (a list, or a Ref to a list parameter), with
`${Identifier}` / `&{Identifier}` (non-alphanumerics dropped) in keys and strings and
`Ref: Identifier` replaced by the item. Fn::Length and Fn::ToJsonString are plain functions of
template.py. Runs before the SAM transform, as AWS runs a template's transforms in order."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from onceflow.cloudformation.template import TemplateError

LANGUAGE = "AWS::LanguageExtensions"
PREFIX = "Fn::ForEach::"


def expand(doc: dict[str, Any], given: Mapping[str, str]) -> dict[str, Any]:
    """The document with every Fn::ForEach expanded and the transform taken off its Transform."""
    transforms = doc.get("Transform")
    listed = [transforms] if isinstance(transforms, str) else list(transforms or [])
    if LANGUAGE not in listed:
        return doc
    out = _walk(doc, _parameters(doc, given))
    rest = [t for t in listed if t != LANGUAGE]
    if rest:
        out["Transform"] = rest[0] if len(rest) == 1 else rest
    else:
        out.pop("Transform", None)
    return out


def _parameters(doc: dict[str, Any], given: Mapping[str, str]) -> dict[str, Any]:
    values = {}
    for name, spec in (doc.get("Parameters") or {}).items():
        value = given.get(name, (spec or {}).get("Default"))
        if value is not None:
            values[name] = value
    return values


def _walk(node: Any, params: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_walk(x, params) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if isinstance(key, str) and key.startswith(PREFIX):
            out.update(_walk(_loop(key, value, params), params))
        else:
            out[key] = _walk(value, params)
    return out


def _loop(key: str, value: Any, params: dict[str, Any]) -> dict[str, Any]:
    if not (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str) and isinstance(value[2], dict)):
        raise TemplateError(f"Template format error: {key} must be a list of an identifier, a collection and an "
                            "output map")
    ident, collection, template = value
    items = _collection(key, collection, params)
    out: dict[str, Any] = {}
    for item in items:
        for out_key, out_value in template.items():
            name = _replace(out_key, ident, item)
            if name == out_key and not out_key.startswith(PREFIX):
                raise TemplateError(f"Template format error: the output key {out_key} of {key} must use "
                                    f"${{{ident}}} or &{{{ident}}}")
            out[name] = _substitute(out_value, ident, item)
    return out


def _collection(key: str, collection: Any, params: dict[str, Any]) -> list[str]:
    if isinstance(collection, dict) and set(collection) == {"Ref"}:
        name = collection["Ref"]
        if name not in params:
            raise TemplateError(f"Template format error: {key} collection refers to unknown parameter {name}")
        collection = params[name]
    if isinstance(collection, str):
        collection = [x.strip() for x in collection.split(",")] if collection else []
    if not isinstance(collection, list) or not all(isinstance(x, str | int) for x in collection):
        raise TemplateError(f"Template format error: {key} collection must be a list of strings")
    return [str(x) for x in collection]


def _replace(text: str, ident: str, item: str) -> str:
    return text.replace(f"${{{ident}}}", item).replace(f"&{{{ident}}}", re.sub(r"[^A-Za-z0-9]", "", item))


def _substitute(node: Any, ident: str, item: str) -> Any:
    if isinstance(node, str):
        return _replace(node, ident, item)
    if isinstance(node, list):
        return [_substitute(x, ident, item) for x in node]
    if isinstance(node, dict):
        if set(node) == {"Ref"} and node["Ref"] == ident:
            return item
        return {(_replace(k, ident, item) if isinstance(k, str) else k): _substitute(v, ident, item)
                for k, v in node.items()}
    return node
