#!/usr/bin/env python3
"""kcheck's start-up and small audits, this build against an earlier one, paired (issue #17).

    bench/paired_startup.py --before OLD_KCHECK [--build _build] [--rounds 5] [--runs 40]

Each round runs, one after the other and in an order that alternates
between rounds, `--runs` times each:

  kcheck --version
  kcheck --format json VARIANT            one variant (the clean CPU tree fixture's)
  kcheck --select KE --format json FILE   the KE rules on libcublasLt.so.13 (the CLI, not a bench helper)
  readelf -d -V --dyn-syms FILE           what the KE rules read, printed by binutils

for this build's kcheck and for OLD_KCHECK (a kcheck built from an earlier
commit: `git worktree add /tmp/before <commit>` and build its `kcheck`
target). Prints per command the median [min-max] over the rounds of each
round's median wall time (perf_counter around the process), peak RSS
(/usr/bin/time, one run), and the paired ratio this build / OLD_KCHECK
within each round (issue #17's goal: <= 0.60 for --version and the one
variant audit; KE on libcublasLt <= 1.0x readelf and <= 8 MB).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired import machine_line, spread, wall  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY = "/usr/local/cuda/lib64/libcublasLt.so.13"


def wall_ms(command, runs):
    return statistics.median(1000 * wall(command) for _ in range(runs))


def peak_rss_mb(command):
    result = subprocess.run(["/usr/bin/time", "-v"] + command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1)) / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="an earlier kcheck executable")
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=40)
    arguments = parser.parse_args()
    variant = os.path.join(arguments.build, "fixtures", "trees", "clean_cpu_variants_from_template", "build",
                           "torch212-cxx11-cpu-x86_64-linux")
    kchecks = {"this build": os.path.join(arguments.build, "kcheck"), "before": arguments.before}
    commands = {}
    for who, kcheck in kchecks.items():
        commands[f"kcheck --version ({who})"] = [kcheck, "--version"]
        commands[f"kcheck one-variant audit ({who})"] = [kcheck, "--format", "json", variant]
        commands[f"kcheck --select KE libcublasLt ({who})"] = [kcheck, "--select", "KE", "--format", "json", LIBRARY]
    commands["readelf -d -V --dyn-syms libcublasLt"] = ["readelf", "-d", "-V", "--dyn-syms", LIBRARY]
    names = list(commands)
    samples = {name: [] for name in names}
    for round_index in range(arguments.rounds):
        for name in (names if round_index % 2 == 0 else list(reversed(names))):
            samples[name].append(wall_ms(commands[name], arguments.runs))
    rss = {name: peak_rss_mb(command) for name, command in commands.items()}
    print(f"{machine_line()}; {arguments.rounds} rounds of {arguments.runs} runs each; before: {arguments.before}\n")
    print("| command | wall ms | peak RSS MB |")
    print("| --- | ---: | ---: |")
    for name in names:
        print(f"| {name} | {spread(samples[name], 2)} | {rss[name]:.1f} |")
    print("\npaired ratios (same round):")
    for what in ("kcheck --version", "kcheck one-variant audit", "kcheck --select KE libcublasLt"):
        ratios = [a / b for a, b in zip(samples[f"{what} (this build)"], samples[f"{what} (before)"])]
        print(f"- {what}, this build / before: {spread(ratios, 2, 'x')}")
    ratios = [a / b for a, b in zip(samples["kcheck --select KE libcublasLt (this build)"],
                                    samples["readelf -d -V --dyn-syms libcublasLt"])]
    print(f"- kcheck --select KE libcublasLt (this build) / readelf: {spread(ratios, 2, 'x')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
