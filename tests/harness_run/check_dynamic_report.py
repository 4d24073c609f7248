#!/usr/bin/env python3
"""Checks a `kcheck run` or `kcheck bench` JSON report of a clean kernel.

    check_dynamic_report.py run REPORT.json OPS
    check_dynamic_report.py bench KCHECK KERNEL_DIR SCRATCH_DIR PYTHON

run: the report has variants, no finding at all, op checks for each of the
OPS (comma-separated) in float32, float16 and bfloat16, all passed, every
op it registered listed as verified against a reference, and the verdict
"pass".

bench: runs `kcheck bench` on KERNEL_DIR (small size, 3 samples): one KB001
note per benchmark result, a measured copy bandwidth, achieved bandwidth and
speed-up for every result, the seed recorded, the baseline timed eager and
under torch.compile (default mode); then again with --compile none, which
must say so in every result instead of a compiled timing; and with --baseline
pointing at a copy of that report whose medians are 100 times faster (no
spread), which must give a KB002 warning for every result the rerun measured
slower beyond its own noise (at least one), exit status 0 (warnings do not
fail the gate) and 1 with --strict; and with a baseline 100 times slower,
which must give no KB002 at all; nor a baseline twice as fast whose
interquartile ranges are so wide that the two runs' middle halves overlap
(slower, but within the noise). The device's matrix-multiply rate is measured.
"""
import json
import subprocess
import sys
from pathlib import Path


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def check_run(report_path, ops):
    report = json.loads(Path(report_path).read_text())
    if not report["variants"]:
        fail("no variants")
    if report["findings"]:
        fail(f"findings: {report['findings']}")
    checks = report.get("dynamic", {}).get("op_checks", [])
    for op in ops.split(","):
        for dtype in ("float32", "float16", "bfloat16"):
            mine = [c for c in checks if c["op"].endswith("::" + op) and c["dtype"] == dtype]
            if not mine:
                fail(f"no check of {op} in {dtype}")
            if not all(c["passed"] for c in mine):
                fail(f"{op} {dtype} failed: {mine}")
    ops = report["dynamic"]["ops"]
    unverified = [op for op in ops if not op["verified"] or op["how"] != "reference"]
    if not ops or unverified:
        fail(f"ops not verified against a reference: {unverified or 'none listed'}")
    if report["verdict"] != "pass":
        fail(f"verdict {report['verdict']}")
    print(f"ok: {len(checks)} op checks passed, {len(ops)} ops verified")


def kcheck_json(kcheck, arguments, output):
    done = subprocess.run([kcheck, *arguments, "--format", "json", "-o", str(output)], capture_output=True, text=True)
    if done.returncode == 2:
        fail(f"kcheck {' '.join(arguments)}: {done.stderr}")
    return done.returncode, json.loads(Path(output).read_text())


def kcheck_json_against(kcheck, common, report, measured, scratch, name, timing):
    """kcheck bench with --baseline: the first report, each result's (median, IQR) replaced by timing(median, IQR)."""
    for result, (median, spread) in zip(report["dynamic"]["benchmarks"], measured):
        result["median_us"], result["spread_us"] = timing(median, spread)
    (scratch / f"{name}-baseline.json").write_text(json.dumps(report))
    return kcheck_json(kcheck, common + ["--baseline", str(scratch / f"{name}-baseline.json")], scratch / f"{name}.json")


def check_bench(kcheck, kernel_dir, scratch, python):
    scratch = Path(scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    common = ["bench", kernel_dir, "--sizes", "small", "--seed", "7", "--python", python]
    status, report = kcheck_json(kcheck, common + ["--samples", "3", "--compile", "default"], scratch / "bench.json")
    # The reruns compare medians only: compiling again would add minutes and prove nothing new.
    # Seven samples, so one preempted sample on a loaded machine does not widen the IQR.
    common += ["--samples", "7", "--compile", "none"]
    if status != 0:
        fail(f"bench exit status {status}: {report['findings']}")
    dynamic = report["dynamic"]
    if dynamic["seed"] != 7:
        fail(f"seed {dynamic['seed']} recorded, 7 given")
    results = dynamic["benchmarks"]
    if not results:
        fail("no benchmark results")
    if not dynamic["devices"] or dynamic["devices"][0]["copy_bandwidth_gbs"] <= 0:
        fail(f"no measured copy bandwidth: {dynamic['devices']}")
    if dynamic["devices"][0]["matmul_tflops"] <= 0 or dynamic["devices"][0]["matmul_dtype"] != "float32":
        fail(f"no measured matrix-multiply rate: {dynamic['devices']}")
    for result in results:
        if not (result["median_us"] > 0 and result["achieved_gbs"] > 0 and result["speedup"] > 0
                and result["percent_of_peak"] > 0 and result["repetitions"] == 3):
            fail(f"incomplete result {result}")
        # The op spec's baseline, timed beside the op: what a user would run instead.
        if not (result["eager"] and result["eager_median_us"] > 0 and result["eager_spread_us"] >= 0
                and abs(result["speedup"] - result["eager_median_us"] / result["median_us"]) < 1e-6 * result["speedup"]):
            fail(f"no eager Torch baseline in {result}")
        # The same expression under torch.compile, timed by the Python helper with the repo venv's Torch.
        compiled = result.get("compiled", [])
        if not (len(compiled) == 1 and compiled[0]["mode"] == "default" and compiled[0]["median_us"] > 0
                and not compiled[0].get("problem") and compiled[0]["compile_seconds"] > 0
                and result["eager_python_median_us"] > 0
                and abs(result["compile_speedup"] - compiled[0]["median_us"] / result["median_us"]) < 1e-6 * result["compile_speedup"]):
            fail(f"no torch.compile baseline in {result}")
        # The op itself timed beside it by the same helper on the same buffers, or why not: on the CPU
        # the compiled calls' small results need not reuse one block (time_beside_test.py covers both).
        paired, why = compiled[0].get("paired_median_us", 0), compiled[0].get("paired_problem", "")
        if not ((paired > 0 and not why) or (paired == 0 and why.startswith("not timed beside it: "))):
            fail(f"the op neither timed beside the compiled form nor said why not in {result}")
    notes = [f for f in report["findings"] if f["code"] == "KB001"]
    if len(notes) != len(results) or len(notes) != len(report["findings"]):
        fail(f"{len(notes)} KB001 notes for {len(results)} results: {report['findings']}")
    if not all("x (the op beside it, from Python: median " in note["message"] or "; not timed beside it: "
               in note["message"] for note in notes):
        fail(f"a KB001 note without the same-buffers ratio or why not: {notes}")

    measured = [(result["median_us"], result["spread_us"]) for result in dynamic["benchmarks"]]

    def against(name, timing):
        status, rerun = kcheck_json_against(kcheck, common, report, measured, scratch, name, timing)
        return status, [f for f in rerun["findings"] if f["code"] == "KB002"]

    status, regressions = against("slow", lambda median, spread: (median * 100, spread))
    if status != 0 or regressions:
        fail(f"faster than the baseline: status {status}, findings {regressions}")
    status, uncompiled = kcheck_json(kcheck, common, scratch / "uncompiled.json")
    if status != 0:
        fail(f"--compile none exit status {status}: {uncompiled['findings']}")
    for result in uncompiled["dynamic"]["benchmarks"]:
        if result.get("compiled") or result.get("compiled_problem") != "not timed: --compile none":
            fail(f"--compile none, yet {result}")
    status, regressions = against("noisy", lambda median, spread: (median / 2, median * 10))
    if status != 0 or regressions:
        fail(f"slower only within the noise: status {status}, findings {regressions}")
    # A baseline 100 times faster with no spread: every op is a regression unless
    # the rerun's own samples are that noisy (a loaded CI machine preempting a
    # microsecond op). The rule's judgement is checked against the rerun's own
    # numbers, and at least one op must be judged slower, so the test can fail.
    status, fast = kcheck_json_against(kcheck, common, report, measured, scratch, "fast",
                                       lambda median, spread: (median / 100, 0))
    regressions = [f for f in fast["findings"] if f["code"] == "KB002"]
    beyond_noise = [r for r, (median, _) in zip(fast["dynamic"]["benchmarks"], measured)
                    if r["median_us"] - r["spread_us"] / 2 > median / 100]
    if status != 0 or not beyond_noise or len(regressions) != len(beyond_noise):
        fail(f"status {status}, {len(regressions)} KB002 for {len(beyond_noise)} of {len(results)} results "
             f"slower beyond the noise")
    status, strict = kcheck_json(kcheck, common + ["--baseline", str(scratch / "fast-baseline.json"), "--strict"],
                                 scratch / "strict.json")
    if status != 1 or not [f for f in strict["findings"] if f["code"] == "KB002"]:
        fail(f"--strict with regressions exits {status}")
    print(f"ok: {len(results)} results, copy bandwidth {dynamic['devices'][0]['copy_bandwidth_gbs']:.1f} GB/s")


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"] and len(sys.argv) == 4:
        check_run(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["bench"] and len(sys.argv) == 6:
        check_bench(*sys.argv[2:])
    else:
        print(__doc__)
        sys.exit(2)
