"""`onceflow prove STATE_MACHINE --input JSON | --input-file F [...]`: exit 0 SAFE, 1 UNSAFE, 2 usage error."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from onceflow.prove.model import DEFAULT_KINDS, KINDS, TIME_SCALE, ProveError, Run


def add_parser(sub: Any) -> None:
    p = sub.add_parser("prove", help="show that retries and re-executions never repeat, replace or lose an effect")
    p.add_argument("state_machine", metavar="STATE_MACHINE", help="the state machine's name or ARN")
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("--input", help="the execution input (JSON)")
    given.add_argument("--input-file", type=Path, help="a file holding the execution input (JSON)")
    p.add_argument("--data", type=Path, default=None, help="the data folder whose store is copied (default: the "
                   "default data folder); never written")
    p.add_argument("--endpoint", default=None, help="a running server (needs --data: its store is copied, not used)")
    p.add_argument("--business-table", action="append", default=[], metavar="T",
                   help="a business table, or queue sqs:NAME, or bucket s3:NAME (repeatable; default: every one "
                        "the baseline wrote)")
    p.add_argument("--ignore-table", action="append", default=[], metavar="T",
                   help="leave table (sqs:QUEUE, s3:BUCKET) T out (repeatable)")
    p.add_argument("--ignore-attribute", action="append", default=[], metavar="TABLE.ATTR",
                   help="leave an attribute out of the comparison (repeatable)")
    p.add_argument("--faults", default=None, metavar="KIND,...",
                   help=f"fault kinds to run, of {', '.join(KINDS)} (default: all but crash, which restarts a server "
                        f"per point: {', '.join(DEFAULT_KINDS)})")
    p.add_argument("--conflict-input", default=None, metavar="JSON",
                   help="also run an order with the same business key and other content after the first")
    p.add_argument("--json", type=Path, default=None, metavar="FILE", help="write every run's plan, ledger and diff")
    p.add_argument("--time-scale", type=float, default=TIME_SCALE,
                   help=f"divide waits, retry intervals and task timeouts by this (default {TIME_SCALE:g})")
    p.add_argument("--quiet", action="store_true", help="no progress line")


def run(args: argparse.Namespace) -> int:
    from onceflow.prove.proof import prove
    from onceflow.prove.report import table, write_json

    if args.input_file is not None:
        try:
            text = args.input_file.read_text(encoding="utf-8")
        except OSError as exc:
            return _usage(f"cannot read {args.input_file}: {exc.strerror or exc}")
    else:
        text = args.input
    kinds = None if args.faults is None else args.faults.split(",")
    show = not args.quiet and sys.stderr.isatty()

    def progress(n: int, total: int, r: Run) -> None:
        if show:
            done = n * 30 // total
            print(f"\r[{'#' * done}{'.' * (30 - done)}] {n}/{total} {r.kind} {r.point}"[:100].ljust(100), end="",
                  file=sys.stderr, flush=True)

    try:
        report = prove(args.state_machine, text, endpoint=args.endpoint, data=args.data,
                       business_tables=args.business_table, ignore_tables=args.ignore_table,
                       ignore_attributes=args.ignore_attribute, kinds=kinds, conflict_input=args.conflict_input,
                       time_scale=args.time_scale, progress=progress)
    except ProveError as exc:
        return _usage(str(exc))
    if show:
        print("\r" + " " * 100 + "\r", end="", file=sys.stderr)
    print(table(report))
    print(report.summary())
    if report.saved:
        print(f"kept for the console at /proofs/{report.id} ({report.saved})")
    if args.json is not None:
        write_json(report, args.json)
    return 0 if report.safe else 1


def _usage(message: str) -> int:
    print(f"onceflow prove: {message}", file=sys.stderr)
    return 2
