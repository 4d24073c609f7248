#!/usr/bin/env python3
"""kcheck's Python analyser and CPython's ast.parse, paired (issue #16).

    bench/paired_python.py [--build _build] [--rounds 5]

Runs `python_bench` (bench/python_bench.cpp: the whole standard library,
read into memory first, analysis time only) with ROUNDS repetitions of each
benchmark, interleaved at random by Google Benchmark so that both sides see
the same machine state, and prints per side the median [min-max] over the
repetitions of the wall time per pass, and the ratios ast / kcheck of the
repetitions paired in order, median [min-max]; with the machine and the date.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired import machine_line, spread  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))



def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    result = subprocess.run([os.path.join(arguments.build, "bench", "python_bench"),
                             f"--benchmark_repetitions={arguments.rounds}", "--benchmark_enable_random_interleaving=true",
                             "--benchmark_format=json"], capture_output=True, text=True, check=True)
    runs = [b for b in json.loads(result.stdout)["benchmarks"] if b.get("run_type") == "iteration"]
    seconds = {"kcheck": [], "ast": []}
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    for run in runs:
        side = "kcheck" if run["name"].startswith("BM_Kcheck") else "ast"
        seconds[side].append(run["real_time"] * scale[run["time_unit"]])
    print(f"{machine_line()}; {arguments.rounds} repetitions each, randomly interleaved\n")
    print("| side | wall time per pass (s) |")
    print("| --- | ---: |")
    print(f"| kcheck analyse_python_source, whole stdlib | {spread(seconds['kcheck'], 3)} |")
    print(f"| CPython ast.parse, whole stdlib | {spread(seconds['ast'], 3)} |")
    ratios = [a / k for a, k in zip(seconds["ast"], seconds["kcheck"])]
    print(f"\nratios ast / kcheck, repetitions paired in order: {spread(ratios, 1, 'x')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
