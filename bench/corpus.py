"""The body of bench/corpus.sh (see there)."""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def kernel_dirs(corpus: Path, only: set[str]) -> list[Path]:
    return [d for d in sorted(corpus.iterdir()) if (d / "build.toml").is_file() and (not only or d.name in only)]


def config_row(kcheck: str, kernel: Path) -> tuple[str, str]:
    run = subprocess.run([kcheck, "config", str(kernel), "--format", "json"], capture_output=True, text=True)
    if run.returncode == 2:
        return "refused", run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "exit 2"
    report = json.loads(run.stdout)
    findings = [f for f in report.get("findings", []) if not f.get("suppressed")]
    if not findings:
        return "clean", ""
    shown = []
    for f in findings:  # one line per finding, long messages cut at their first clause
        message = f["message"].split(": upstream accepts")[0].split("; supported:")[0]
        shown.append(f"{f['code']} {f['severity']}: {message}")
    return "findings", "; ".join(shown)


def refusal(stderr: str) -> str:
    """kcheck's reason for exit 2: its last message, with the lines that continue it."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    starts = [i for i, line in enumerate(lines) if line.startswith("kcheck")]
    return " / ".join(line.strip() for line in lines[starts[-1] if starts else -1:])[:600]


def last_lines(text: str, count: int = 3) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[-count:])


def audit_summary(stdout: str) -> str:
    """The errors of each variant's self-audit (kcheck build --format json writes one report per variant)."""
    decoder, position, parts = json.JSONDecoder(), 0, []
    while True:
        while position < len(stdout) and stdout[position].isspace():
            position += 1
        if position >= len(stdout):
            break
        report, position = decoder.raw_decode(stdout, position)
        errors: dict[str, int] = {}
        for finding in report.get("findings", []):
            if finding.get("severity") == "error" and not finding.get("suppressed"):
                errors[finding["code"]] = errors.get(finding["code"], 0) + 1
        variant = Path(report.get("input", "?")).name
        parts.append(f"{variant}: " + (", ".join(f"{code} x{count}" for code, count in sorted(errors.items())) or "clean"))
    return "; ".join(parts)


LOADER_CHECK = ROOT / "bench" / "loader_check"


def stage_repository(kernel: Path, out: Path) -> None:
    """Makes OUT (its build/ written by kcheck build) a repository bench/harness_corpus.py runs, here or
    on the GPU machine (scripts/gpu-check.sh, KCHECK_HARNESS_REPOS): build.toml (the repo id
    LOCAL_KERNELS names) and tests/, the kernel's own tests with the kernels-loader check beside them."""
    shutil.copy(kernel / "build.toml", out / "build.toml")
    shutil.rmtree(out / "tests", ignore_errors=True)
    if (kernel / "tests").is_dir():
        shutil.copytree(kernel / "tests", out / "tests")
    (out / "tests").mkdir(exist_ok=True)
    shutil.copy(LOADER_CHECK / "test_kernels_loader.py", out / "tests" / "test_kernels_loader.py")


def loader_check(kcheck: str, python: str, out: Path, kernel: Path) -> tuple[list[str], list[str]]:
    """Each built variant imported by the `kernels` loader, inside kcheck's
    sandbox (`kcheck run --tests bench/loader_check`): the variants that
    loaded, and each that did not load or could not run here, with why."""
    stage_repository(kernel, out)
    command = [kcheck, "run", str(out), "--python", python, f"--tests={LOADER_CHECK}", "--format", "json"]
    run = subprocess.run(command, capture_output=True, text=True)
    try:
        dynamic = json.loads(run.stdout).get("dynamic", {})
    except json.JSONDecodeError:
        return [], ["loader not run: " + (last_lines(run.stderr, 1) or f"kcheck run exit {run.returncode}")]
    loaded, problems = [], []
    for test in dynamic.get("tests", []):
        if test.get("outcome") == "passed":
            loaded.append(test["variant"])
        else:
            problems.append(f"{test['variant']} not loaded: {test.get('message', '')[:200]}")
    for variant in dynamic.get("runs", []):
        if not variant.get("ran"):
            problems.append(f"{variant['variant']} not loaded here: {variant.get('reason', '')[:200]}")
    return loaded, problems


def errors_of(stdout: str) -> str:
    """The error findings of the report(s) kcheck printed."""
    decoder, position, errors = json.JSONDecoder(), 0, []
    while position < len(stdout):
        if stdout[position].isspace():
            position += 1
            continue
        report, position = decoder.raw_decode(stdout, position)
        errors += [f"{f['code']}: {f['message'][:160]}" for f in report.get("findings", []) if f.get("severity") == "error"]
    return "; ".join(errors)


def build_row(kcheck: str, kernel: Path, timeout: int, work: Path, python: str) -> tuple[str, float, str]:
    config = tomllib.loads((kernel / "build.toml").read_text())
    backends = [b for b in ("cpu", "cuda") if b in config["general"].get("backends", [])]
    out = work / kernel.name
    shutil.rmtree(out, ignore_errors=True)
    # Without cpu or cuda: kcheck build decides (Python-only variants, or a refusal naming why).
    command = [kcheck, "build", str(kernel)] + (["--backends", ",".join(backends)] if backends else []) + [
               "--cuda-capabilities", "9.0", "--torch", str(Path(python).parent.parent),
               "--output-dir", str(out / "build"), "--scratch-dir", str(out / "scratch"),
               "--build-timeout", str(timeout), "--format", "json"]
    start = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True)
    seconds = time.monotonic() - start
    failures = [line for line in run.stderr.splitlines() if " failed: " in line]
    failure_detail = ""
    if failures:  # the failing command's first error line, after "FAILED:"
        errors = [line for line in run.stderr.splitlines() if "error" in line and not line.startswith("kcheck build:")]
        failure_detail = failures[0].split(" failed: ")[0].replace("kcheck build: ", "") + ": " + (
            errors[0].strip() if errors else failures[0].split(" failed: ")[1])
    if "did not finish within" in run.stderr:
        return "compile limit", seconds, f"a variant compiled for over {timeout} s; audited: {audit_summary(run.stdout) or 'none'}"
    if run.returncode == 2:
        return "refused", seconds, refusal(run.stderr)
    if "has errors; nothing was built" in run.stderr:
        return "not built: build.toml errors", seconds, errors_of(run.stdout)
    if failures and not any((out / "build").glob("*/metadata.json")):
        return "build failed", seconds, failure_detail[:500]
    # A build counts only when the real loader imports it.
    loaded, problems = loader_check(kcheck, python, out, kernel)
    audit = ("audit passes" if run.returncode == 0 else "audit errors") + ": " + audit_summary(run.stdout)
    partly = f"; {failure_detail[:300]}" if failures else ""
    built = len(list((out / "build").glob("*/metadata.json")))
    result = "built and loaded" if len(loaded) == built else f"built, {len(loaded)} of {built} variants loaded here"
    said = ([f"loaded by kernels.get_kernel: {', '.join(loaded)}"] if loaded else []) + problems
    return result, seconds, "; ".join(said + [audit]) + partly


def source_bytes(kernel: Path) -> int:
    suffixes = {".cu", ".cuh", ".cpp", ".cc", ".c", ".h", ".hpp"}
    return sum(p.stat().st_size for p in kernel.rglob("*") if p.suffix in suffixes and p.is_file())


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--kcheck", default=str(ROOT / "_build/kcheck"))
    parser.add_argument("--build-timeout", type=int, default=1200)
    parser.add_argument("--only", default="")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--python", default=str(ROOT / ".venv/bin/python"),
                        help="the Python (with Torch and kernels) the built variants are loaded with")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "kcheck-corpus")
    parser.add_argument("--total-budget", type=int, default=0,
                        help="seconds for all builds; kernels left when it is spent are listed as not run")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    kernels = kernel_dirs(args.corpus, only)
    commit = subprocess.run(["git", "-C", str(args.corpus), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"corpus {args.corpus} ({commit or 'not a git checkout'}), {len(kernels)} kernels with build.toml; "
          f"{platform.node()}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}")
    print("\n## kcheck config\n\n| kernel | result | findings |\n| --- | --- | --- |")
    for kernel in kernels:
        result, detail = config_row(args.kcheck, kernel)
        print(f"| {kernel.name} | {result} | {cell(detail)} |", flush=True)
    if args.no_build:
        return 0
    print(f"\n## kcheck build --backends (cpu,cuda of the kernel's, else its own) --cuda-capabilities 9.0 "
          f"(limit {args.build_timeout} s per variant), then each variant loaded by the kernels loader\n")
    print("| kernel | result | time (s) | reason / variants |\n| --- | --- | ---: | --- |")
    # Smallest sources first, so a run with a total budget covers the most kernels.
    buildable = sorted(kernels, key=source_bytes)
    started = time.monotonic()
    for kernel in buildable:
        if args.total_budget and time.monotonic() - started > args.total_budget:
            print(f"| {kernel.name} | not run | | the run's total budget ({args.total_budget} s) was spent |", flush=True)
            continue
        result, seconds, reason = build_row(args.kcheck, kernel, args.build_timeout, args.work, args.python)
        print(f"| {kernel.name} | {result} | {seconds:.0f} | {cell(reason)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
