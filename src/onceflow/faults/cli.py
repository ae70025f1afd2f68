"""`onceflow faults add|list|clear` against a running server, and reading a rules file for
`onceflow serve --faults FILE` (JSON; YAML too when PyYAML is installed)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from onceflow.faults.rules import RuleError, parse_rules

PATH = "/_onceflow/faults"


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("faults", help="add, list or clear the fault injection rules of a running server")
    parser.add_argument("--endpoint", default=None,
                        help="the server (default $AWS_ENDPOINT_URL, else http://127.0.0.1:4566)")
    actions = parser.add_subparsers(dest="faults_command", required=True)
    add = actions.add_parser("add", help="add rules: JSON objects as arguments, or --file")
    add.add_argument("rules", nargs="*", help='a rule as JSON, e.g. \'{"service":"dynamodb","operation":"PutItem"}\'')
    add.add_argument("--file", type=Path, default=None, help="a JSON (or YAML) file of rules")
    add.add_argument("--replace", action="store_true", help="replace the rules instead of adding to them")
    actions.add_parser("list", help="the rules with how often each matched and fired")
    actions.add_parser("clear", help="remove every rule")


def read_rules_file(path: Path) -> Any:
    """The rules of a file: `{"rules": [...]}` or a list; checked here so `serve` stops on a bad one."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SystemExit(f"onceflow: cannot read {path}: {exc.strerror or exc}") from None
    data = _parse(text, path)
    try:
        parse_rules(data)
    except RuleError as exc:
        raise SystemExit(f"onceflow: {path}: {exc.message}") from None
    return data


def _parse(text: str, path: Path) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        json_error = exc
    try:
        import yaml  # optional: YAML rule files only where PyYAML is installed
    except ImportError:
        raise SystemExit(f"onceflow: {path} is not JSON ({json_error}); YAML needs PyYAML installed") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SystemExit(f"onceflow: {path} is neither JSON nor YAML: {exc}") from None


def run(args: argparse.Namespace) -> int:
    endpoint = (args.endpoint or os.environ.get("AWS_ENDPOINT_URL") or "http://127.0.0.1:4566").rstrip("/")
    if args.faults_command == "list":
        status, body = _request(endpoint, "GET")
    elif args.faults_command == "clear":
        status, body = _request(endpoint, "DELETE")
    else:
        rules: list[Any] = []
        if args.file is not None:
            data = read_rules_file(args.file)
            rules += data["rules"] if isinstance(data, dict) else data
        for text in args.rules:
            try:
                rule = json.loads(text)
            except ValueError as exc:
                print(f"onceflow: not a JSON rule: {text!r} ({exc})", file=sys.stderr)
                return 2
            rules += rule if isinstance(rule, list) else [rule]
        status, body = _request(endpoint, "POST" if args.replace else "PATCH", {"rules": rules})
    if status != 200:
        print(f"onceflow: {body.get('message', body)}", file=sys.stderr)
        return 1
    print(json.dumps(body, indent=2))
    return 0


def _request(endpoint: str, method: str, body: Any = None) -> tuple[int, dict[str, Any]]:
    import urllib.error  # here: `onceflow serve` parses its arguments with this module loaded
    import urllib.request

    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(endpoint + PATH, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        try:
            return err.code, json.loads(err.read())
        except ValueError:
            return err.code, {"message": f"HTTP {err.code}"}
    except (urllib.error.URLError, OSError) as exc:
        return 0, {"message": f"cannot reach {endpoint}: {getattr(exc, 'reason', exc)}"}
