#!/usr/bin/env python3
"""KE015 against the real loader: the module KE015 flags fails to load with
"undefined symbol: <the symbol KE015 names>", and its near miss (the symbol
declared weak) loads. Each load runs in a fresh interpreter with
LD_BIND_NOW=1, so lazy binding cannot hide an unresolved function.

    ld_so_cross_check.py KCHECK FIRING_MODULE NEAR_MISS_MODULE [SYMBOL [LIBRARY_DIR]]

SYMBOL defaults to cuTensorMapEncodeTiled (judged by its family); with
LIBRARY_DIR (a Torch's lib/), kcheck runs with --library-path LIBRARY_DIR and
resolves the module's imports against those libraries.
"""
import json
import os
import subprocess
import sys


def load(module):
    code = "import ctypes, sys; ctypes.CDLL(sys.argv[1])"
    done = subprocess.run([sys.executable, "-c", code, module], capture_output=True, text=True,
                          env=dict(os.environ, LD_BIND_NOW="1"))
    return done.returncode, done.stderr


def ke015_report(kcheck, module, library_dir):
    libraries = ["--library-path", library_dir] if library_dir else []
    done = subprocess.run([kcheck, "--select", "KE015", "--format", "json"] + libraries + [module],
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def main(kcheck, firing, near_miss, symbol="cuTensorMapEncodeTiled", library_dir=""):
    status, stderr = load(firing)
    report = ke015_report(kcheck, firing, library_dir)
    messages = [f["message"] for f in report["findings"] if f["code"] == "KE015"]
    if len(messages) != 1 or symbol not in messages[0]:
        sys.exit(f"KE015 on {firing}: {messages}")
    if status == 0 or f"undefined symbol: {symbol}" not in stderr:
        sys.exit(f"the loader loaded {firing} (exit {status}): {stderr}")
    status, stderr = load(near_miss)
    report = ke015_report(kcheck, near_miss, library_dir)
    if status != 0 or report["findings"]:
        sys.exit(f"near miss: loader exit {status} ({stderr.strip()}), KE015 findings {report['findings']}")
    print(f"ld.so agrees with KE015{' (libraries of ' + library_dir + ')' if library_dir else ''}: the flagged "
          f"module fails with undefined symbol: {symbol}, the near miss loads")


if __name__ == "__main__":
    main(*sys.argv[1:])
