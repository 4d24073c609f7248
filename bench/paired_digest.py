#!/usr/bin/env python3
"""kcheck's digest hashing beside `openssl speed sha256`, paired (issues #16, #17).

    bench/paired_digest.py [--build _build] [--before OLD_BUILD] [--rounds 5]

Each round runs `digest_bench` (bench/digest_bench.cpp: SHA-256 of about 1 GB
of CUDA libraries from the page cache, through 2 MiB mapped windows, one thread, as the
digest check and the scan cache do it; and, issue #32, the two halves of that
work apart: kcheck's SHA-256 of one cache-resident 1 MiB buffer, and the
page-cache read of the same windows without hashing) and `openssl speed
-seconds 2 -bytes 1048576 sha256` (one core, 1 MiB blocks in memory: the
library's bound on this CPU), one after the other in alternating order.
Prints each one's throughput (GB/s, 10^9 bytes) as median [min-max] over the
rounds and kcheck's share of openssl's within each round; with the machine
and the date. With --before, each round also runs OLD_BUILD's digest_bench
(an earlier digest.cpp) and prints this build's digest rate over its.
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired import machine_line, spread  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))



def kcheck_gbs(build):
    """GB/s of each digest_bench benchmark: the digest from the page cache, SHA-256 of a resident buffer, the read alone."""
    out = subprocess.run([os.path.join(build, "bench", "digest_bench"), "--benchmark_format=json"], capture_output=True,
                         text=True, check=True).stdout
    return {entry["name"].split("/")[0]: entry["bytes_per_second"] / 1e9 for entry in json.loads(out)["benchmarks"]}


def openssl_gbs():
    out = subprocess.run(["openssl", "speed", "-seconds", "2", "-bytes", "1048576", "sha256"], capture_output=True,
                         text=True, check=True).stdout
    return float(re.search(r"^sha256\s+([\d.]+)k", out, re.M).group(1)) * 1e3 / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("--before", help="a build directory whose bench/digest_bench holds an earlier digest")
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    kcheck, openssl, before = [], [], []
    steps = [lambda: kcheck.append(kcheck_gbs(arguments.build)), lambda: openssl.append(openssl_gbs())]
    if arguments.before:
        steps.append(lambda: before.append(kcheck_gbs(arguments.before)))
    for round_index in range(arguments.rounds):
        for step in (steps if round_index % 2 == 0 else reversed(steps)):
            step()
    sha_ni = " sha_ni" in open("/proc/cpuinfo").read()
    version = subprocess.run(["openssl", "version"], capture_output=True, text=True).stdout.strip()
    print(f"{machine_line()}; SHA extensions: {'yes' if sha_ni else 'no'}; {version}; {arguments.rounds} rounds\n")
    def rate(name):
        return [round_rates[name] for round_rates in kcheck]

    digest, resident, read = rate("BM_Sha256OneThread"), rate("BM_Sha256ResidentBuffer"), rate("BM_PageCacheReadOnly")
    print("| what | GB/s |")
    print("| --- | ---: |")
    print(f"| kcheck digest_bench (2 MiB mapped windows from the page cache + OpenSSL SHA-256, one thread) | {spread(digest, 2)} |")
    print(f"| openssl speed -bytes 1048576 sha256 (in memory, one core) | {spread(openssl, 2)} |")
    print(f"| kcheck's SHA-256 alone: hash_bytes over one cache-resident 1 MiB buffer, as openssl speed hashes | {spread(resident, 2)} |")
    print(f"| the page-cache read alone: the same mapped windows, every word summed, no hashing | {spread(read, 2)} |")
    if before:
        print(f"| kcheck digest_bench, {arguments.before} (before) | "
              f"{spread([r['BM_Sha256OneThread'] for r in before], 2)} |")
    shares = [100 * k / o for k, o in zip(digest, openssl)]
    print(f"\nkcheck / openssl, same round: {spread(shares, 0, ' %')}")
    print(f"kcheck's SHA-256 alone / openssl, same round: {spread([100 * r / o for r, o in zip(resident, openssl)], 0, ' %')}")
    # Were reading and hashing strictly one after the other, each byte would cost 1/resident + 1/read.
    serial = [1 / (1 / r + 1 / p) for r, p in zip(resident, read)]
    print(f"the two halves one after the other would give: {spread(serial, 2)} GB/s; the digest reaches "
          f"{spread([100 * d / s for d, s in zip(digest, serial)], 0, ' %')} of that")
    if before:
        print(f"this digest / the one before, same round: "
              f"{spread([d / b['BM_Sha256OneThread'] for d, b in zip(digest, before)], 2, 'x')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
