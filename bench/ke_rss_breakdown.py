#!/usr/bin/env python3
"""What kcheck's peak RSS holds while KE012 decompresses a library's device code (issue #32).

    bench/ke_rss_breakdown.py [--build _build] [--runs 5] [--threads 1] [--library FILE]

Runs `kcheck --threads N --select KE --format json FILE` `--runs` times. While
each run lasts it reads /proc/PID/smaps about every millisecond and keeps the
reading with the largest total Rss; it prints, per kind of mapping, the
median [min-max] over the runs of what that reading held (MB):

  anonymous over 8 MiB    anonymous mappings larger than 8 MiB: on
                          libcublasLt, zstd's streaming buffers (glibc maps an
                          allocation that large on its own: a frame's 8 MiB
                          window and two blocks); a thread's malloc arena that
                          large would count here too, so each such mapping is
                          listed with its size below the table
  heap                    [heap], the main thread's malloc arena (the output
                          chunk, zstd's context, the rules' own data)
  other anonymous         the other anonymous mappings (thread stacks, of
                          exactly 8 MiB, other threads' arenas, ...)
  the library             the audited file's pages mapped at that moment
  kcheck                  the executable's own pages (its code and data)
  shared libraries        libstdc++, libc and the rest

A reading every millisecond can miss the very peak by what changes in a
millisecond; /usr/bin/time's figure (bench/paired_ke_floor.py) is the peak
itself, and the total here is printed beside it for comparison.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired import machine_line, spread  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ["anonymous over 8 MiB", "heap", "other anonymous", "the library", "kcheck", "shared libraries"]
MAPPING = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$")


def kind_of(start, end, path, library, kcheck):
    if path == "[heap]":
        return "heap"
    if path == "" or path.startswith("["):
        return "anonymous over 8 MiB" if end - start > 8 << 20 else "other anonymous"
    if os.path.realpath(path) == library:
        return "the library"
    if os.path.realpath(path) == kcheck:
        return "kcheck"
    return "shared libraries"


def reading(pid, library, kcheck):
    """Rss in KB per kind of mapping, and (size, Rss) in KB of each anonymous
    mapping over 8 MiB; None once the process is gone."""
    try:
        with open(f"/proc/{pid}/smaps") as smaps:
            text = smaps.read()
    except OSError:
        return None
    held = dict.fromkeys(KINDS, 0)
    large = []
    kind = size = None
    for line in text.splitlines():
        mapping = MAPPING.match(line)
        if mapping:
            start, end = int(mapping.group(1), 16), int(mapping.group(2), 16)
            kind, size = kind_of(start, end, mapping.group(3), library, kcheck), (end - start) >> 10
        elif line.startswith("Rss:") and kind:
            held[kind] += int(line.split()[1])
            if kind == "anonymous over 8 MiB":
                large.append((size, int(line.split()[1])))
    return held, large


def peak_reading(command, library, kcheck):
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    best = None
    while process.poll() is None:
        taken = reading(process.pid, library, kcheck)
        if taken and (best is None or sum(taken[0].values()) > sum(best[0].values())):
            best = taken
        time.sleep(0.001)
    if process.returncode not in (0, 1):  # 1: findings
        sys.exit(f"{' '.join(command)} exited with {process.returncode}")
    if best is None:
        sys.exit(f"{' '.join(command)} ended before its memory could be read")
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--library", default="/usr/local/cuda/lib64/libcublasLt.so.13")
    arguments = parser.parse_args()
    kcheck = os.path.realpath(os.path.join(arguments.build, "kcheck"))
    library = os.path.realpath(arguments.library)
    if not os.access(kcheck, os.X_OK):
        sys.exit(f"no kcheck executable at {kcheck} (--build)")
    command = [kcheck, "--threads", str(arguments.threads), "--select", "KE", "--format", "json", library]
    readings, large = zip(*(peak_reading(command, library, kcheck) for _ in range(arguments.runs)))
    print(f"{machine_line()}; {os.path.basename(library)}; `{' '.join(command[1:6])}`; {arguments.runs} runs\n")
    print("| at the largest reading | MB |")
    print("| --- | ---: |")
    for kind in KINDS:
        print(f"| {kind} | {spread([r[kind] / 1024 for r in readings], 2)} |")
    print(f"| total | {spread([sum(r.values()) / 1024 for r in readings], 2)} |")
    print("\nanonymous mappings over 8 MiB at each run's largest reading (size MiB: resident MB):")
    for run, mappings in enumerate(large, 1):
        print(f"- run {run}: " + (", ".join(f"{size / 1024:.2f}: {rss / 1024:.2f}" for size, rss in mappings) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
