#!/usr/bin/env python3
"""kcheck scan without a cache, with a cold one and with a warm one, paired (issue #17).

    bench/paired_cache.py [--build _build] [--rounds 5] [--copies 4]

The corpus: every tree fixture of the build (`_build/fixtures/trees/*`, the
materialised test fixtures: built native modules, Python, metadata with
digests) that has a `build/` directory, `--copies` times over as distinct
repositories (copied: hard links would change their findings), laid out under a temporary directory. Each round
runs, one after the other, `kcheck scan --no-cache`, `kcheck scan --cache
DIR` on an empty DIR (cold) and the same again (warm), each as one process
(wall time by perf_counter), from a warm page cache, two threads. Prints per run
kind the median [min-max] over the rounds of wall time and of wall time per
repository, the cold/uncached ratio within each round, and the files the
cache directory holds after a cold scan; with the machine and the date.
Issue #17's goals: warm <= 0.3 ms per repository, cold <= 1.5x uncached.

Then, on the large corpus of bench/peers.py (torch and CUDA libraries, two
repositories, 3.57 GB), the same three runs each round under /usr/bin/time
-v: wall time and peak RSS, median [min-max] (goal: peak RSS <= 64 MB).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired import machine_line, spread, wall  # noqa: E402
from peers import ROOT, build_large_corpus  # noqa: E402
from peers import timed as timed_with_rss  # noqa: E402


def lay_out(fixtures, target, copies):
    count = 0
    for copy in range(copies):
        for name in sorted(os.listdir(fixtures)):
            source = os.path.join(fixtures, name)
            if not os.path.isdir(os.path.join(source, "build")):
                continue
            # cp -a: some fixtures hold named pipes and symlinks, copied as they are
            subprocess.run(["cp", "-a", source, os.path.join(target, f"copy{copy}-{name}")], check=True)
            count += 1
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--copies", type=int, default=4)
    arguments = parser.parse_args()
    kcheck = os.path.join(arguments.build, "kcheck")
    with tempfile.TemporaryDirectory(prefix="kcheck-paired-cache-") as work:
        corpus = os.path.join(work, "corpus")
        os.makedirs(corpus)
        repositories = lay_out(os.path.join(arguments.build, "fixtures", "trees"), corpus, arguments.copies)
        cache = os.path.join(work, "cache")
        scan = [kcheck, "scan", corpus, "--threads", "2", "--format", "json"]
        # Files changed within 2 s of a scan are racy (docs/scan.md): their
        # records serve only after a content check. A mirror is not that fresh.
        time.sleep(2.5)
        wall(scan + ["--no-cache"])  # page cache warm
        samples = {"uncached (--no-cache)": [], "cold cache": [], "warm cache (rescan)": []}
        cache_files = []
        for _ in range(arguments.rounds):
            samples["uncached (--no-cache)"].append(wall(scan + ["--no-cache"]))
            shutil.rmtree(cache, ignore_errors=True)
            samples["cold cache"].append(wall(scan + ["--cache", cache]))
            cache_files.append(sum(len(files) for _, _, files in os.walk(cache)))
            samples["warm cache (rescan)"].append(wall(scan + ["--cache", cache]))
    print(f"{machine_line()}; corpus: {repositories} repositories (tree fixtures x {arguments.copies}); "
          f"{arguments.rounds} rounds; --threads 2\n")
    print("| run | wall s | ms per repository |")
    print("| --- | ---: | ---: |")
    for name, walls in samples.items():
        print(f"| {name} | {spread(walls, 2)} | {spread([1000 * w / repositories for w in walls], 2)} |")
    ratios = [c / u for c, u in zip(samples["cold cache"], samples["uncached (--no-cache)"])]
    print(f"\ncold / uncached, same round: {spread(ratios, 2, 'x')}")
    print(f"files in the cache directory after a cold scan: {spread(cache_files, 0)}")

    large = build_large_corpus(os.path.join(arguments.build, "peer-corpus"))
    with tempfile.TemporaryDirectory(prefix="kcheck-paired-cache-large-") as work:
        cache = os.path.join(work, "cache")
        scan = [kcheck, "scan", large, "--threads", "2", "--format", "json"]
        runs = {"uncached (--no-cache)": [], "cold cache": [], "warm cache (rescan)": []}
        for _ in range(arguments.rounds):
            runs["uncached (--no-cache)"].append(timed_with_rss(scan + ["--no-cache"])[:3])
            shutil.rmtree(cache, ignore_errors=True)
            runs["cold cache"].append(timed_with_rss(scan + ["--cache", cache])[:3])
            runs["warm cache (rescan)"].append(timed_with_rss(scan + ["--cache", cache])[:3])
    print(f"\nlarge corpus ({large}: 43 ELF files, 3.57 GB, 2 repositories), /usr/bin/time -v:\n")
    print("| run | wall s | peak RSS MB |")
    print("| --- | ---: | ---: |")
    for name, samples in runs.items():
        print(f"| {name} | {spread([w for w, _, _ in samples], 2)} | {spread([r for _, _, r in samples], 0)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
