"""What replication adds to a write: PutItem on a regional table next to the same on a global table of
2 and 3 replicas (each write is written to every replica in its own transaction, ddb/replicas.py).

    python bench/bench_ddb_global.py [--ops 1000]

Reports the mean wall time per PutItem from one boto3 client and the server's CPU per call (from /proc,
not disturbed by other load). Each replica's stream is on (going global turns it on), so the 2- and
3-replica runs also pay a stream record per replica; the regional run has a stream too, for fairness.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from serverproc import ServerProcess

REGIONS = ["us-east-1", "us-west-2", "eu-west-1"]
KEY = {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
       "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST",
       "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}}


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _run(server: ServerProcess, replicas: int, ops: int) -> tuple[float, float]:
    east = server.client("dynamodb", region=REGIONS[0])
    name = f"bench-{uuid.uuid4().hex[:8]}"
    east.create_table(TableName=name, **KEY)
    for region in REGIONS[1:replicas]:
        east.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": region}}])
    for i in range(50):  # warm the connection and the caches
        east.put_item(TableName=name, Item={"pk": {"S": f"w{i}"}})
    assert server.proc is not None
    pid = server.proc.pid
    cpu0, t0 = _cpu(pid), time.perf_counter()
    for i in range(ops):
        east.put_item(TableName=name, Item={"pk": {"S": f"k{i % 200}"}, "n": {"N": str(i)}})
    wall, cpu = time.perf_counter() - t0, _cpu(pid) - cpu0
    return wall / ops * 1000, cpu / ops * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, default=1000)
    args = ap.parse_args()
    with_dir = Path(f"/tmp/bench-ddb-global-{uuid.uuid4().hex[:6]}")
    server = ServerProcess(with_dir).start()
    try:
        print(f"{'replicas':>8} {'wall ms/put':>12} {'server cpu ms/put':>18}")
        for replicas in (1, 2, 3):
            wall, cpu = _run(server, replicas, args.ops)
            print(f"{replicas:>8} {wall:>12.3f} {cpu:>18.3f}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
