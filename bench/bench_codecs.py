"""What a faster JSON codec could give the DynamoDB path (issue 23, item 2), in process.

    python bench/bench_codecs.py [--n 20000]
    PYTHONPATH=<folder with orjson/msgspec> python bench/bench_codecs.py   # the candidates beside

For the bodies a one-item DynamoDB call carries, prints the microseconds the codec onceflow uses
takes (the shared decoder of wire/json_body.py and the encoder of wire/json_rpc.py) next to orjson's
and msgspec's when they are importable (they are not dependencies: this bench is how they were
judged), and next to the server's whole CPU per call measured over HTTP in the same run (GetItem and
PutItem through boto3, from /proc), so the codec's share of a call is read directly.

A stored item comes back as the JSON text it was written as (RawJson, spliced in by the encoder),
so a response's encode covers only its envelope; "Query100 decoded" shows what encoding 100 decoded
items would cost if that splice were not there.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))
from servers import spawn_onceflow  # noqa: E402

from onceflow.raw_json import RawJson  # noqa: E402
from onceflow.wire.json_body import load  # noqa: E402
from onceflow.wire.json_rpc import _encode  # noqa: E402

ITEM = {"pk": {"S": "k00042"}, "payload": {"S": "x" * 100}, "n": {"N": "42"}, "tags": {"SS": ["a", "b", "c"]}}
GET_REQUEST = json.dumps({"TableName": "bench", "Key": {"pk": {"S": "k00042"}}}).encode()
PUT_REQUEST = json.dumps({"TableName": "bench", "Item": ITEM}).encode()
GET_RESPONSE = {"Item": RawJson(json.dumps(ITEM, separators=(",", ":")))}
QUERY100_DECODED = {"Items": [dict(ITEM, pk={"S": f"k{i:05d}"}) for i in range(100)], "Count": 100,
                    "ScannedCount": 100}


def micros(fn: Callable[[], object], n: int) -> float:
    return 1e6 * min(timeit.repeat(fn, number=n, repeat=5)) / n


def bound(fn: Callable[[Any], object], arg: Any) -> Callable[[], object]:
    return lambda: fn(arg)


def candidates() -> dict[str, tuple[Callable[[bytes], Any], Callable[[Any], bytes]]]:
    found: dict[str, tuple[Callable[[bytes], Any], Callable[[Any], bytes]]] = {}
    try:
        orjson = importlib.import_module("orjson")
        found["orjson"] = (orjson.loads, orjson.dumps)
    except ImportError:
        pass
    try:
        msgspec = importlib.import_module("msgspec")
        dec, enc = msgspec.json.Decoder(), msgspec.json.Encoder()
        found["msgspec"] = (dec.decode, enc.encode)
    except ImportError:
        pass
    return found


def server_cpu_per_call(n: int) -> dict[str, float]:
    """The server process's CPU ms per GetItem and per PutItem over HTTP (one boto3 client)."""
    proc, url = spawn_onceflow(tempfile.mkdtemp(prefix="bench-codecs-"))
    try:
        ddb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                           aws_access_key_id="test", aws_secret_access_key="test")
        ddb.create_table(TableName="bench", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        calls = {"GetItem": lambda: ddb.get_item(TableName="bench", Key={"pk": {"S": "k00042"}}),
                 "PutItem": lambda: ddb.put_item(TableName="bench", Item=ITEM)}
        calls["PutItem"]()
        out = {}
        for name, call in calls.items():
            for _ in range(50):
                call()
            c0 = cpu_s(proc.pid)
            for _ in range(n):
                call()
            out[name] = 1000 * (cpu_s(proc.pid) - c0) / n
        return out
    finally:
        proc.terminate()
        proc.wait()


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20000, help="calls per codec figure")
    ap.add_argument("--http-calls", type=int, default=1000, help="calls per server CPU figure (0: skip)")
    opts = ap.parse_args()
    others = candidates()
    print("load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"{'body':18s} {'onceflow us':>12s} " + " ".join(f"{name + ' us':>12s}" for name in others))
    decoders = [decode for decode, _ in others.values()]
    encoders = [encode for _, encode in others.values()]
    rows: list[tuple[str, Callable[[], object], list[Callable[[], object]], int]] = [
        ("GetItem request", lambda: load(GET_REQUEST), [bound(d, GET_REQUEST) for d in decoders], opts.n),
        ("PutItem request", lambda: load(PUT_REQUEST), [bound(d, PUT_REQUEST) for d in decoders], opts.n),
        # the candidates cannot splice RawJson: they encode the item decoded (their best case)
        ("GetItem response", lambda: _encode(GET_RESPONSE).encode(), [bound(e, {"Item": ITEM}) for e in encoders],
         opts.n),
        ("Query100 decoded", lambda: _encode(QUERY100_DECODED).encode(),
         [bound(e, QUERY100_DECODED) for e in encoders], max(1, opts.n // 50)),
    ]
    for name, ours, theirs, n in rows:
        print(f"{name:18s} {micros(ours, n):12.2f} " + " ".join(f"{micros(f, n):12.2f}" for f in theirs))
    if opts.http_calls:
        for op, ms in server_cpu_per_call(opts.http_calls).items():
            print(f"server CPU per {op} over HTTP: {1000 * ms:.0f} us")


if __name__ == "__main__":
    main()
