"""S3's body checksums in process (s3/checksums.py): MB/s of each algorithm over one buffer, the
median of `--rounds`. CRC32 is zlib's, CRC32C and CRC64NVME awscrt's, SHA1/SHA256/MD5 hashlib's.

    PYTHONPATH=src python bench/bench_s3_checksums.py [--mb 64] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from onceflow.s3 import checksums


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    data = bytes(range(256)) * (args.mb * 4096)
    piece = 1024 * 1024  # the blob store hands digests 1 MB pieces
    for name in ("MD5", *checksums.ALGORITHMS):
        rates = []
        for _ in range(args.rounds):
            d = checksums.new(name)
            start = time.perf_counter()
            for i in range(0, len(data), piece):
                d.update(data[i:i + piece])
            d.digest()
            rates.append(args.mb / (time.perf_counter() - start))
        print(f"{name:10} {statistics.median(rates):8.0f} MB/s")


if __name__ == "__main__":
    main()
