#!/usr/bin/env python3
"""`kcheck run --tests` over real kernel repositories: what was verified, and how.

    bench/harness_corpus.py KCHECK PYTHON REPOSITORY... [--timeout SECONDS] [--json-dir DIR]

--timeout bounds each variant's worker and, separately, its tests.

Each REPOSITORY is a kernel source tree (build.toml, tests/) whose build/
holds the variants to run (built by `kcheck build`). For each, runs
`kcheck run REPOSITORY --python PYTHON --tests --format json` and prints one
Markdown row: the variants run (or why not), the ops registered and how many
were verified (against a reference / by the kernel's own tests), the dtypes
an op refused (KD009), the kernel's tests (passed, failed, skipped), and the
findings by code. A failed test is listed under the table with its message.
The machine and date are printed first. Not part of CI: the repositories are
fetched (never committed) and, on a GPU, built for it beforehand.
"""
import argparse
import collections
import datetime
import json
import platform
import subprocess
import sys
from pathlib import Path


def run_one(kcheck, python, repository, timeout, json_dir):
    command = [kcheck, "run", str(repository), "--python", python, "--tests", "--timeout", str(timeout),
               "--tests-timeout", str(timeout), "--format", "json"]
    done = subprocess.run(command, capture_output=True, text=True)
    if json_dir:
        (Path(json_dir) / f"run-{repository.name}.json").write_text(done.stdout)
    try:
        return done.returncode, json.loads(done.stdout), done.stderr
    except json.JSONDecodeError:
        return done.returncode, None, done.stderr


def row(repository, status, report, stderr, failures):
    if report is None:
        reason = (stderr.strip().splitlines() or ["no report"])[-1]
        return f"| {repository.name} | not run (exit {status}): {reason} | | | | | |"
    dynamic = report.get("dynamic", {})
    runs = dynamic.get("runs", [])
    ran = [r["variant"] for r in runs if r["ran"]]
    not_run = [f"{r['variant']}: {r['reason']}" for r in runs if not r["ran"]]
    ops = dynamic.get("ops", [])
    how = collections.Counter(op["how"] for op in ops if op["verified"])
    verified = sum(how.values())
    verified_text = f"{verified} of {len(ops)}" + (
        " (" + ", ".join(f"{count} {kind}" for kind, count in sorted(how.items())) + ")" if how else "")
    refused = sorted({f"{op['op'].split('::')[-1]}: {','.join(op['unsupported_dtypes'])}"
                      for op in ops if op["unsupported_dtypes"]})
    tests = collections.Counter(t["outcome"] for t in dynamic.get("tests", []))
    for test in dynamic.get("tests", []):
        if test["outcome"] in ("failed", "error"):
            failures.append(f"{repository.name} {test['variant']}: {test['test']}: {test['message']}")
    codes = collections.Counter(f["code"] for f in report.get("findings", []) if not f.get("suppressed"))
    suite_problems = [f["message"] for f in report.get("findings", []) if f["code"] == "KD008"
                      and "did not run" in f["message"]]
    tests_text = ", ".join(f"{count} {outcome}" for outcome, count in sorted(tests.items())) or (
        suite_problems[0] if suite_problems else "none")
    variants = ", ".join(ran) or "none"
    if not_run:
        variants += "; not run: " + "; ".join(not_run)
    return (f"| {repository.name} | {variants} | {len(ops)} | {verified_text} | {'; '.join(refused) or '-'} | "
            f"{tests_text} | {', '.join(f'{c} x{n}' for c, n in sorted(codes.items())) or 'none'} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kcheck")
    parser.add_argument("python")
    parser.add_argument("repositories", nargs="+", type=Path)
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--json-dir")
    arguments = parser.parse_args()
    torch = subprocess.run([arguments.python, "-c", "import torch; print(torch.__version__, "
                            "torch.cuda.get_device_name() if torch.cuda.is_available() else 'cpu')"],
                           capture_output=True, text=True).stdout.strip()
    print(f"machine: {platform.node()} {platform.machine()}, torch {torch}, "
          f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print()
    print("| kernel | variants run | ops registered | verified (how) | dtypes refused (KD009) | its own tests | findings |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    failures = []
    status = 0
    for repository in arguments.repositories:
        code, report, stderr = run_one(arguments.kcheck, arguments.python, repository, arguments.timeout,
                                       arguments.json_dir)
        status = max(status, 1 if code == 2 else 0)
        print(row(repository, code, report, stderr, failures))
    if failures:
        print()
        print("Failed tests:")
        for failure in failures:
            print(f"- {failure}")
    sys.exit(status)


if __name__ == "__main__":
    main()
