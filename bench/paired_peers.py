#!/usr/bin/env python3
"""kcheck and kernel-abi-check paired in one run, round by round (issue #16).

On the large corpus of bench/peers.py (the torch wheel's libraries and the
CUDA toolkit's lib64 laid out as two kernel repositories), each round runs,
one after the other and in an order that alternates between rounds:

  kcheck scan --no-cache --select KE             every KE rule, no digest: like for like with kernel-abi-check
  kcheck scan --no-cache --threads 1             the whole audit (every rule, the SHA-256 digest of every byte), one thread
  kcheck scan --no-cache --threads 2             the same on two threads
  kernel-abi-check 0.14.1                        check_manylinux("manylinux_2_28") and check_python_abi("3.9") per file

each as one process under /usr/bin/time -v, from a warm page cache. Prints
per tool the median [min-max] over the rounds of wall time, CPU time and peak
RSS, and the paired ratios within each round, median [min-max]:
kernel-abi-check's wall time over each kcheck run's (issue #17's goal: the
two-thread whole audit faster, ratio > 1), and the whole audit's one-thread
wall time over its two-thread one (goal >= 1.8); with the machine, its load
and the date.

Usage: bench/paired_peers.py [--build _build] [--rounds 5] [--corpus DIR]
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired import machine_line, spread  # noqa: E402
from peers import KERNEL_ABI_CHECK, PYTHON, ROOT, build_large_corpus, elf_files, timed  # noqa: E402



def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--corpus", default=os.path.join(ROOT, "_build", "peer-corpus"))
    arguments = parser.parse_args()
    kcheck = os.path.join(arguments.build, "kcheck")
    corpus = build_large_corpus(arguments.corpus)
    files = elf_files(corpus)
    size = sum(os.path.getsize(f) for f in files) / 1e9
    with tempfile.NamedTemporaryFile("w", delete=False, suffix=".files") as listing:
        listing.write("\n".join(files))
    for path in files:  # every tool starts from a warm page cache
        with open(path, "rb") as handle:
            while handle.read(1 << 24):
                pass
    tools = {
        "kcheck scan --no-cache --select KE": [kcheck, "scan", corpus, "--no-cache", "--select", "KE", "--format", "json"],
        "kcheck scan --no-cache --threads 1 (whole audit)": [kcheck, "scan", corpus, "--no-cache", "--threads", "1",
                                                             "--format", "json"],
        "kcheck scan --no-cache --threads 2 (whole audit)": [kcheck, "scan", corpus, "--no-cache", "--threads", "2",
                                                             "--format", "json"],
        "kernel-abi-check 0.14.1": [PYTHON, "-c", KERNEL_ABI_CHECK, listing.name],
    }
    samples = {name: [] for name in tools}
    names = list(tools)
    for round_index in range(arguments.rounds):
        order = names if round_index % 2 == 0 else list(reversed(names))
        for name in order:
            wall, cpu, rss, code, _ = timed(tools[name])
            if code not in (0, 1):
                sys.exit(f"{name} exited {code}")
            samples[name].append((wall, cpu, rss))
    os.unlink(listing.name)

    print(f"{machine_line()}; corpus: {len(files)} ELF files, {size:.2f} GB; {arguments.rounds} rounds\n")
    print("| tool | wall s | CPU s | peak RSS MB |")
    print("| --- | ---: | ---: | ---: |")
    for name in names:
        walls, cpus, rsss = zip(*samples[name])
        print(f"| {name} | {spread(walls, 2)} | {spread(cpus, 2)} | {spread(rsss, 0)} |")
    peer = [wall for wall, _, _ in samples["kernel-abi-check 0.14.1"]]
    print("\npaired ratios (kernel-abi-check wall / kcheck wall, same round):")
    for name in names[:3]:
        ratios = [p / wall for p, (wall, _, _) in zip(peer, samples[name])]
        print(f"- vs {name}: {spread(ratios, 2, 'x')}")
    one, two = (samples[f"kcheck scan --no-cache --threads {n} (whole audit)"] for n in (1, 2))
    scaling = [a[0] / b[0] for a, b in zip(one, two)]
    print(f"\nwhole audit, one thread's wall time over two threads' (same round): {spread(scaling, 2, 'x')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
