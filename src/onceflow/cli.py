"""`onceflow serve | demo`: the command line. Builds the Settings once and hands them down."""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from onceflow import __version__
from onceflow.config import Settings, default_data_dir


def _serve_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=4566, help="port to listen on (default 4566; 0 picks a free one)")
    parser.add_argument("--data", type=Path, default=None,
                        help=f"data folder (default {default_data_dir()}, or $ONCEFLOW_DATA)")
    parser.add_argument("--in-memory", action="store_true", help="keep nothing: state lives in memory only")
    parser.add_argument("--account-id", default="000000000000", help="the default account id")
    parser.add_argument("--region", default="us-east-1", help="region for requests without a signature scope")
    parser.add_argument("--time-scale", type=float, default=1.0,
                        help="divide Step Functions waits, retry intervals and timeouts (and DynamoDB's"
                             " 5-minute point-in-time recovery lag) by this factor")
    parser.add_argument("--enforce-iam", action="store_true",
                        help="evaluate IAM policies for users too, not only for role sessions")
    parser.add_argument("--lambda-max-workers", type=int, default=None,
                        help="upper bound on live Lambda worker processes (default: 4 per CPU, at least 4)")
    parser.add_argument("--lambda-interpreter", action="append", default=[], metavar="RUNTIME=PATH",
                        help="run a Lambda runtime on another interpreter, e.g. python3.11=/usr/bin/python3.11")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="also answer requests whose Host is NAME (besides loopback addresses and localhost), "
                             "e.g. the service name in a compose network; repeatable")
    parser.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                        help="let web pages from ORIGIN (scheme://host[:port]) call the API from a browser; "
                             "repeatable")
    parser.add_argument("--root-key", action="append", default=[], metavar="ID:SECRET",
                        help="under --enforce-iam, the access keys that act as the account root, their signatures "
                             "verified with SECRET (default test:test); repeatable")
    parser.add_argument("--oidc-keys", action="append", default=[], metavar="ISSUER=FILE",
                        help="verify AssumeRoleWithWebIdentity tokens of the OpenID Connect issuer ISSUER "
                             "(https://...) with the JSON Web Key Set in FILE, as AWS verifies them with the keys "
                             "at the issuer's jwks_uri; other issuers' signatures are not checked; repeatable")
    parser.add_argument("--stack-answer-within", type=float, default=10.0, metavar="SECONDS",
                        help="CloudFormation stack operations answer when done or after this long, running on in "
                             "the background (default 10; 0 answers at once, as AWS does)")
    parser.add_argument("--event-loop", choices=("asyncio", "uvloop"), default="asyncio",
                        help="the server's event loop: asyncio's own (default), or uvloop's "
                             "(pip install 'onceflow[uvloop]')")
    parser.add_argument("--log-level", default="warning", help="server log level (default warning)")
    parser.add_argument("--faults", type=Path, default=None, metavar="FILE",
                        help="fault injection rules to load at start (JSON, or YAML with PyYAML installed)")
    parser.add_argument("--mock-config", type=Path, default=None, metavar="FILE",
                        help="Step Functions Local mock configuration (default $SFN_MOCK_CONFIG): start executions "
                             "on '<state machine arn>#<test case>' to run its mocked Task answers")


def settings_from(args: argparse.Namespace) -> Settings:
    if args.time_scale <= 0:
        raise SystemExit("onceflow: --time-scale must be greater than 0")
    if args.faults is not None:  # a bad rules file stops here, before the server starts
        from onceflow.faults.cli import read_rules_file

        read_rules_file(args.faults)
    mock_config = _mock_config_file(args)
    account = str(args.account_id)
    if not (len(account) == 12 and account.isdigit()):
        raise SystemExit("onceflow: --account-id must be 12 digits")
    interpreters = []
    for pair in args.lambda_interpreter:
        runtime, sep, path = pair.partition("=")
        if not sep or not runtime.startswith("python3.") or not path:
            raise SystemExit(f"onceflow: --lambda-interpreter takes RUNTIME=PATH, not {pair!r}")
        interpreters.append((runtime, path))
    if interpreters:  # (an import of onceflow.lambda_ is a tenth of the start-up: only when there are any)
        from onceflow.lambda_.interpreters import check_explicit

        try:  # a path that cannot run the workers fails here, not at every invoke
            check_explicit(tuple(interpreters))
        except ValueError as exc:
            raise SystemExit(f"onceflow: {exc}") from None
    extra: dict[str, Any] = {}
    if args.lambda_max_workers is not None:
        if args.lambda_max_workers < 1:
            raise SystemExit("onceflow: --lambda-max-workers must be at least 1")
        extra["lambda_max_workers"] = args.lambda_max_workers
    extra.update(_security_args(args))
    if args.stack_answer_within < 0:
        raise SystemExit("onceflow: --stack-answer-within must be 0 or more")
    extra["stack_answer_within_s"] = args.stack_answer_within
    if args.event_loop == "uvloop":
        # A missing package stops here, not in the server's thread (found, not imported: run_loop does).
        if importlib.util.find_spec("uvloop") is None:
            raise SystemExit("onceflow: --event-loop uvloop needs uvloop (pip install 'onceflow[uvloop]')")
        extra["event_loop"] = "uvloop"
    return Settings(
        host=args.host,
        port=args.port,
        data_dir=None if args.in_memory else (args.data or default_data_dir()),
        in_memory=args.in_memory,
        account_id=account,
        default_region=args.region,
        time_scale=args.time_scale,
        enforce_iam=args.enforce_iam,
        lambda_interpreters=tuple(interpreters),
        faults_file=args.faults,
        mock_config_file=mock_config,
        **extra,
    )


def _mock_config_file(args: argparse.Namespace) -> Path | None:
    """--mock-config, else $SFN_MOCK_CONFIG (Step Functions Local's variable); a bad file stops here
    with one line and exit status 2, before the server starts."""
    path = args.mock_config or (Path(env) if (env := os.environ.get("SFN_MOCK_CONFIG")) else None)
    if path is None:
        return None
    from onceflow.sfn.mocks import MockConfigError, load_file

    try:
        load_file(path)
    except MockConfigError as exc:
        print(f"onceflow: mock configuration: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    return path


def _security_args(args: argparse.Namespace) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    hosts = []
    for name in args.allow_host:
        name = name.strip().lower().rstrip(".")
        if not name or "/" in name or name == "*":
            raise SystemExit(f"onceflow: --allow-host takes a host name or address, not {name!r}")
        hosts.append(name.strip("[]"))
    extra["allow_hosts"] = tuple(hosts)
    origins = []
    for origin in args.cors_origin:
        parts = urlsplit(origin)
        if origin == "*" or parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/") \
                or parts.query or parts.fragment:
            raise SystemExit(f"onceflow: --cors-origin takes an origin such as http://localhost:3000, not {origin!r}")
        origins.append(f"{parts.scheme}://{parts.netloc}".lower())
    extra["cors_origins"] = tuple(origins)
    if args.root_key:
        keys = []
        for pair in args.root_key:
            key_id, sep, secret = pair.partition(":")
            if not sep or not key_id or not secret:
                raise SystemExit(f"onceflow: --root-key takes ID:SECRET, not {pair!r}")
            keys.append((key_id, secret))
        extra["root_keys"] = tuple(keys)
    if args.oidc_keys:
        extra["oidc_keys"] = tuple(oidc_keys_arg(pair) for pair in args.oidc_keys)
    return extra


def oidc_keys_arg(pair: str) -> tuple[str, str]:
    """(issuer, key set file) of one --oidc-keys, the file read now so a bad one stops the start."""
    url, sep, path = pair.partition("=")
    if not sep or not url.startswith("https://") or not path:
        raise SystemExit(f"onceflow: --oidc-keys takes https://ISSUER=FILE, not {pair!r}")
    from onceflow.sts.web_identity_keys import load_jwks  # cryptography, only when keys are given

    try:
        if not load_jwks(Path(path)):
            raise ValueError("it holds no RSA or EC signing key")
    except ValueError as e:
        raise SystemExit(f"onceflow: --oidc-keys {url}: {e}") from None
    return url, str(Path(path).resolve())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="onceflow", description="A local, AWS-compatible serverless stack.")
    parser.add_argument("--version", action="version", version=f"onceflow {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _serve_args(sub.add_parser("serve", help="serve every service on one endpoint"))
    demo = sub.add_parser("demo", help="serve, provision the orders example and run the seed labs")
    _serve_args(demo)
    from onceflow.faults import cli as faults_cli

    faults_cli.add_parser(sub)
    from onceflow.prove import cli as prove_cli

    prove_cli.add_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "faults":
        return faults_cli.run(args)
    if args.command == "prove":
        return prove_cli.run(args)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = settings_from(args)

    from onceflow.server import Server, StartupError

    try:
        if args.command == "demo":
            from onceflow.demo import run_demo

            return run_demo(settings)
        Server(settings).run()
    except StartupError as exc:
        print(f"onceflow: {exc}", file=sys.stderr)
        return 1
    return 0
