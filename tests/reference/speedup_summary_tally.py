#!/usr/bin/env python3
"""speedup_summary.py --decimals counts, by each measure, the rows whose
median is at >= 1 before rounding, and lists those under to five decimals
(issue #32 is judged by that count).

    speedup_summary_tally.py SPEEDUP_SUMMARY.py

Two made-up reports of two runs each: relu is above 1 by every measure;
silu is 0.9995x the faster Torch and 0.99950x on the same buffers (under
by both, though both round to 1.000); gelu has no pairing, so it is left out
of the same-buffers count and said to be. The rows give the op's median as
timed alone and beside the fastest compiled mode (relu's two runs 100.0
and 102.0 us alone, 100.5 and 102.5 beside; each result also has a slower
mode with a pairing of its own, which must not be read there, and which
--every-mode prints in a row of its own); --processes gives relu's
worker/beside ratio and the eager form's worker/Python ratio (1/1.01 in
every made-up result); tanh's eager form is faster than ours, so x best
Torch, each beside the op, is eager's 0.998 though the compiled pairing is
1.010. Exit 1 with the output if a line is not as expected."""
import json
import os
import subprocess
import sys
import tempfile


def result(op, ours, compiled, paired, speedup=2.0):
    # The fastest mode's pairing is the one to read; a slower mode beside it has a pairing of its own.
    fastest = {"mode": "default", "median_us": compiled}
    slower = {"mode": "max-autotune-no-cudagraphs", "median_us": compiled + 50.0, "paired_median_us": 1.0}
    if paired:
        fastest["paired_median_us"] = paired
    return {"op": "kernel::" + op, "dtype": "float32", "shape": "4x8", "median_us": ours, "speedup": speedup,
            "compile_speedup": compiled / ours, "percent_of_peak": 99.0, "compiled": [slower, fastest],
            "eager_median_us": 2.0 * ours, "eager_python_median_us": 2.0 * ours * 1.01}


def report(run):
    # Run 2 is 2 us slower all round than run 1, so each cell's median and range are two values.
    shift = 2.0 * (run - 1)
    return {"dynamic": {"devices": [{"name": "made-up GPU"}],
                        "benchmarks": [result("relu", 100.0 + shift, 101.0 + shift, 100.5 + shift),
                                       result("silu", 100.0, 99.95, 100.0),
                                       result("gelu", 100.0, 100.5, None),
                                       result("tanh", 100.0, 102.0, 101.0, speedup=0.998)]}}


def main(script):
    with tempfile.TemporaryDirectory() as directory:
        paths = []
        for run in (1, 2):
            path = os.path.join(directory, f"run-{run}.json")
            with open(path, "w") as file:
                json.dump(report(run), file)
            paths.append(path)
        output = subprocess.run([sys.executable, script, "--decimals", "--every-mode", "--processes", *paths],
                                capture_output=True, text=True, check=True).stdout
        # --every-mode is a part of --decimals: alone, the usage and exit 2
        alone = subprocess.run([sys.executable, script, "--every-mode", *paths], capture_output=True, text=True)
    expected = [
        "| relu | float32 | 4x8 | 2 | 1.010 [1.010-1.010] | default (2) | 99.0 [99.0-99.0] | 1.005 [1.005-1.005] (2) "
        "| 1.005 [1.005-1.005] (2) | 101.0 [100.0-102.0] / 101.5 [100.5-102.5] |",
        "| gelu | float32 | 4x8 | 2 | 1.005 [1.005-1.005] | default (2) | 99.0 [99.0-99.0] | - | - | - |",
        # tanh: eager (in the worker, on ours' inputs) is the faster Torch beside ours
        "| tanh | float32 | 4x8 | 2 | 0.998 [0.998-0.998] | eager (2) | 99.0 [99.0-99.0] | 1.010 [1.010-1.010] (2) "
        "| 0.998 [0.998-0.998] (2) | 100.0 [100.0-100.0] / 101.0 [101.0-101.0] |",
        "x best Torch: 2 of 4 rows have a median >= 1 (unrounded): under, silu float32 4x8 0.99950; "
        "tanh float32 4x8 0.99800",
        "x best Torch, each beside the op: 1 of 3 rows have a median >= 1 (unrounded) (1 rows without it left out): "
        "under, silu float32 4x8 0.99950; tanh float32 4x8 0.99800",
        # --every-mode: each mode's own pairing (relu's slower mode: 151.0 and 153.0 us over 1.0)
        "| relu | float32 | 4x8 | default | 2 | 102.0 [101.0-103.0] | 101.5 [100.5-102.5] | 1.005 [1.005-1.005] |",
        "| relu | float32 | 4x8 | max-autotune-no-cudagraphs | 2 | 152.0 [151.0-153.0] | 1.0 [1.0-1.0] "
        "| 152.000 [151.000-153.000] |",
        # gelu's default mode was timed in both runs and paired in none
        "| gelu | float32 | 4x8 | default | 0 of 2 | - | - | - |",
        # --processes: relu 100.0/100.5 and 102.0/102.5 beside the fastest mode (not the slower mode's 1.0);
        # eager 1.01 times slower from Python; gelu has no pairing
        "| relu | float32 | 4x8 | 0.9951 [0.9950-0.9951] (2) | 0.9901 [0.9901-0.9901] (2) |",
        "| gelu | float32 | 4x8 | - | 0.9901 [0.9901-0.9901] (2) |",
        "x compiled, same buffers: 2 of 3 rows have a median >= 1 (unrounded) (1 rows without it left out): "
        "under, silu float32 4x8 0.99950",
    ]
    missing = [line for line in expected if line not in output.splitlines()]
    if missing:
        print("expected lines missing:\n" + "\n".join(missing) + "\n--- output:\n" + output)
        return 1
    if alone.returncode != 2:
        print(f"--every-mode without --decimals: exit {alone.returncode}, not 2\n{alone.stdout}{alone.stderr}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
