#!/usr/bin/env python3
"""Fails when a test of the suite did not run (issue #18: tests that cannot lie).

    scripts/no-skipped-tests.py BUILD_DIR JUNIT_XML [--report-only]

CTest counts a skipped test (exit 77, GTEST_SKIP) and a disabled one as not
failed: a suite that quietly stops running something still ends "100% tests
passed". This reads the JUnit file of that CTest run (--output-junit), lists
every test that did not run with the reason it printed, and exits 1 if one of
them has no label of MAY_SKIP (the labels come from `ctest --show-only`).
With --report-only (scripts/test.sh with KCHECK_REQUIRE_FULL_SUITE=OFF) it
lists them and exits 0.
"""
import json
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

# Labels whose tests skip by design where what they check does not exist:
#  core:     the process containment tests check what a containment mode
#            enforces, and skip where it has no namespace or overlay (the
#            subreaper fallback always: 3 skips on this machine);
#  security: each malformed-ELF case skips for a fixture that lacks the
#            section it mutates (no .dynsym, no .gnu.version_r).
# Every other label must run whole on a machine scripts/setup.sh set up (and
# the CUDA toolkit): the harness, reference, builder, lint, ELF, report tests.
# A GPU is not needed: no test skips for the lack of one.
MAY_SKIP = {"core", "security"}
# Single tests that may skip, and why: clang-tidy checks the files changed
# since the commit before HEAD, which a shallow clone does not have (the test
# says so in its output, listed below like every skip).
MAY_SKIP_TESTS = {"lint_changed_files_pass_clang_tidy"}


def labels_by_test(build_dir):
    shown = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"], check=True,
                           capture_output=True, text=True).stdout
    labels = {}
    for test in json.loads(shown)["tests"]:
        values = [p["value"] for p in test.get("properties", []) if p["name"] == "LABELS"]
        labels[test["name"]] = set(values[0]) if values else set()
    return labels


def reason(case):
    """The last lines the test printed: GoogleTest's and the scripts' skip messages end there."""
    out = (case.findtext("system-out") or "").strip().splitlines()
    return " | ".join(line.strip() for line in out[-3:] if line.strip()) or "(no output)"


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["--report-only"]):
        print(__doc__)
        return 2
    build_dir, junit = sys.argv[1], sys.argv[2]
    report_only = sys.argv[3:] == ["--report-only"]
    not_run = [case for case in ElementTree.parse(junit).getroot().iter("testcase")
               if case.get("status") in ("notrun", "disabled") or case.find("skipped") is not None]
    if not not_run:
        print("no-skipped-tests: every test ran")
        return 0
    labels = labels_by_test(build_dir)
    forbidden = 0
    for case in not_run:
        name = case.get("name")
        allowed = bool(labels.get(name, set()) & MAY_SKIP) or name in MAY_SKIP_TESTS
        forbidden += not allowed
        verdict = "may skip" if allowed else "MUST RUN"
        print(f"no-skipped-tests: {verdict}: {name} [{';'.join(sorted(labels.get(name, set())))}] "
              f"{case.get('status')}: {reason(case)}")
    if forbidden and not report_only:
        print(f"no-skipped-tests: {forbidden} test(s) did not run that must (labels other than "
              f"{', '.join(sorted(MAY_SKIP))}); install what they say they lack (scripts/setup.sh), "
              "or run with KCHECK_REQUIRE_FULL_SUITE=OFF to accept a smaller suite")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
