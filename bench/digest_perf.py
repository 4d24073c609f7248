#!/usr/bin/env python3
"""Where the digest's time goes, from perf: SHA-256 against reading the page cache (issue #32).

    bench/digest_perf.py [--build _build] [--runs 5]

Runs, --runs times each, alternating:

  digest_bench --benchmark_filter=^BM_Sha256OneThread   kcheck's digest of about 1 GB of CUDA libraries
                                                         from the page cache, one thread (bench/digest_bench.cpp)
  openssl speed -seconds 2 -bytes 1048576 sha256         SHA-256 of a buffer in memory, one core: the bound

each once under `perf stat -e task-clock,page-faults,user_time,system_time`
(the CPU time spent in the process and in the kernel on its behalf) and once
under `perf record -e cpu-clock`, whose samples `perf report --sort
dso,symbol` sorts into: OpenSSL's SHA-256 block function (linked into
digest_bench with its symbols; the system's libcrypto that openssl speed
runs is stripped, so its samples are counted by library); copying in the
process (memcpy/memmove); the kernel copying the page cache out (read());
the kernel's other work (mapping the page cache into the process: populating
the page tables, unmapping them); everything else (start-up, the benchmark).
Prints each as median [min-max] over the runs, with the digest's GB/s (as
digest_bench reports it), the machine and the date. The SHA-256 share times
the SHA-256 rate alone (bench/paired_digest.py) is the digest's rate: the rest
of the samples is what keeps the digest below openssl speed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired import machine_line, spread  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CATEGORIES = (
    ("SHA-256 (OpenSSL's block function)", lambda dso, kernel, symbol: "sha256_block" in symbol),
    # The system's libcrypto is stripped: openssl speed's samples are counted by library.
    ("the system's libcrypto, symbols stripped (openssl speed: its SHA-256)",
     lambda dso, kernel, symbol: dso.startswith("libcrypto")),
    ("copying in the process (memcpy, memmove)", lambda dso, kernel, symbol: not kernel and re.search(
        r"mem(cpy|move)", symbol)),
    ("the kernel copying the page cache out (read)", lambda dso, kernel, symbol: kernel and re.search(
        r"copy_(user|to_user|to_iter|page_to_iter)|rep_movs|filemap_read|copy_mc", symbol)),
    ("the kernel mapping the page cache (populate, fault, unmap) and the rest of its work",
     lambda dso, kernel, symbol: kernel),
    ("everything else (start-up, the benchmark's loop)", lambda dso, kernel, symbol: True),
)


def perf_stat(command):
    """User and system seconds, task-clock ms and page faults of one run, and its stdout."""
    with tempfile.NamedTemporaryFile("r", suffix=".csv") as stat:
        result = subprocess.run(["perf", "stat", "-x", ",", "-o", stat.name, "-e",
                                 "task-clock,page-faults,user_time,system_time", "--"] + command,
                                capture_output=True, text=True, check=True)
        values = {}
        for line in stat.read().splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2] in ("task-clock", "page-faults", "user_time", "system_time"):
                values[fields[2]] = float(fields[0]) if fields[0][:1].isdigit() else 0.0
    return values, result.stdout


def perf_shares(command):
    """The share (%) of cpu-clock samples in each of CATEGORIES, for one run."""
    with tempfile.TemporaryDirectory() as scratch:
        data = os.path.join(scratch, "perf.data")
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "4999", "-o", data, "--"] + command,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "dso,symbol", "-g", "none",
                                 "--percent-limit", "0"], capture_output=True, text=True, check=True).stdout
    shares = {name: 0.0 for name, _ in CATEGORIES}
    for match in re.finditer(r"^\s+([\d.]+)%\s+(\S+)\s+\[([.k])\]\s+(\S+)", report, re.M):
        percent, dso, kind, symbol = float(match.group(1)), match.group(2), match.group(3), match.group(4)
        name = next(name for name, test in CATEGORIES if test(dso, kind == "k", symbol))
        shares[name] += percent
    return shares


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    digest = [os.path.join(arguments.build, "bench", "digest_bench"), "--benchmark_filter=^BM_Sha256OneThread",
              "--benchmark_min_time=2", "--benchmark_format=json"]
    openssl = ["openssl", "speed", "-seconds", "2", "-bytes", "1048576", "sha256"]
    programs = {"kcheck's digest": digest, "openssl speed": openssl}
    stats = {name: [] for name in programs}
    shares = {name: [] for name in programs}
    rates = []
    for run in range(arguments.runs):
        for name in (programs if run % 2 == 0 else reversed(list(programs))):
            values, stdout = perf_stat(programs[name])
            stats[name].append(values)
            if name == "kcheck's digest":
                rates.append(json.loads(stdout)["benchmarks"][0]["bytes_per_second"] / 1e9)
            shares[name].append(perf_shares(programs[name]))
    print(f"{machine_line()}; {arguments.runs} runs each\n")
    print(f"kcheck's digest (digest_bench, under perf stat): {spread(rates, 2)} GB/s\n")
    print("| | kcheck's digest | openssl speed sha256 |")
    print("| --- | ---: | ---: |")

    def row(label, values):
        print(f"| {label} | " + " | ".join(values) + " |")

    row("system time / task-clock (%, perf stat)",
        [spread([100 * v["system_time"] / 1e6 / v["task-clock"] for v in stats[name]], 1) for name in programs])
    row("user time / task-clock (%, perf stat)",
        [spread([100 * v["user_time"] / 1e6 / v["task-clock"] for v in stats[name]], 1) for name in programs])
    row("page faults (perf stat)", [spread([v["page-faults"] for v in stats[name]], 0) for name in programs])
    for category, _ in CATEGORIES:
        row(f"{category} (% of cpu-clock samples)",
            [spread([run[category] for run in shares[name]], 1) for name in programs])
    return 0


if __name__ == "__main__":
    sys.exit(main())
