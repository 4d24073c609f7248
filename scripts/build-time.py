#!/usr/bin/env python3
"""Where a build's time went, from ninja's own log (BUILD/.ninja_log): the
job-seconds of every target's last build, in total and for the groups the
CONTRIBUTING.md names, and what that is in minutes at N parallel jobs. Numbers taken
while other work shares the cores are upper bounds.

Usage: scripts/build-time.py [BUILD_DIR] [JOBS]   (default: _build, nproc)
"""
import os
import pathlib
import sys

GROUPS = {
    "harness fixtures (Torch-linked)": lambda target: "harness_fixture" in target,
    "kcheck_worker (Torch-linked)": lambda target: "kcheck_worker" in target,
    # Compiling (CMakeFiles/<target>.dir/...o) and linking (the archive or executable itself).
    "tests (GoogleTest executables)": lambda target: target.startswith(("tests/CMakeFiles/kcheck_tests_",
                                                                         "tests/kcheck_tests_")),
    "kcheck libraries and executable": lambda target: (target.startswith(("CMakeFiles/kcheck_", "libkcheck_"))
                                                       or target in ("kcheck", "kcheck_macho_symbols.so"))
    and "kcheck_worker" not in target,
}


def main() -> int:
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "_build")
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else os.cpu_count() or 1
    last = {}  # target -> milliseconds of its last build (the log appends every run)
    for line in (build / ".ninja_log").read_text().splitlines():
        if line.startswith("#"):
            continue
        start, end, _mtime, target, _hash = line.split("\t")
        last[target] = int(end) - int(start)
    total = sum(last.values()) / 1000
    print(f"{build}: {len(last)} targets, {total:,.0f} job-seconds = {total / jobs / 60:.1f} min at {jobs} jobs")
    for name, belongs in GROUPS.items():
        seconds = sum(ms for target, ms in last.items() if belongs(target)) / 1000
        print(f"  {name}: {seconds:,.0f} job-seconds ({seconds / total:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
