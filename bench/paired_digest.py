#!/usr/bin/env python3
"""kcheck's digest hashing beside `openssl speed sha256`, paired (issues #16, #17).

    bench/paired_digest.py [--build _build] [--rounds 5]

Each round runs `digest_bench` (bench/digest_bench.cpp: SHA-256 of about 1 GB
of CUDA libraries from the page cache, through 2 MiB mapped windows, one thread, as the
digest check and the scan cache do it) and `openssl speed -seconds 2 -bytes
1048576 sha256` (one core, 1 MiB blocks in memory: the library's bound on
this CPU), one after the other in alternating order. Prints each one's
throughput (GB/s, 10^9 bytes) as median [min-max] over the rounds and
kcheck's share of openssl's within each round; with the machine and the date.
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
    out = subprocess.run([os.path.join(build, "bench", "digest_bench"), "--benchmark_format=json"], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)["benchmarks"][0]["bytes_per_second"] / 1e9


def openssl_gbs():
    out = subprocess.run(["openssl", "speed", "-seconds", "2", "-bytes", "1048576", "sha256"], capture_output=True,
                         text=True, check=True).stdout
    return float(re.search(r"^sha256\s+([\d.]+)k", out, re.M).group(1)) * 1e3 / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    kcheck, openssl = [], []
    for round_index in range(arguments.rounds):
        if round_index % 2 == 0:
            kcheck.append(kcheck_gbs(arguments.build))
            openssl.append(openssl_gbs())
        else:
            openssl.append(openssl_gbs())
            kcheck.append(kcheck_gbs(arguments.build))
    sha_ni = " sha_ni" in open("/proc/cpuinfo").read()
    version = subprocess.run(["openssl", "version"], capture_output=True, text=True).stdout.strip()
    print(f"{machine_line()}; SHA extensions: {'yes' if sha_ni else 'no'}; {version}; {arguments.rounds} rounds\n")
    print("| what | GB/s |")
    print("| --- | ---: |")
    print(f"| kcheck digest_bench (2 MiB mapped windows from the page cache + OpenSSL SHA-256, one thread) | {spread(kcheck, 2)} |")
    print(f"| openssl speed -bytes 1048576 sha256 (in memory, one core) | {spread(openssl, 2)} |")
    shares = [100 * k / o for k, o in zip(kcheck, openssl)]
    print(f"\nkcheck / openssl, same round: {spread(shares, 0, ' %')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
