"""kcheck's runner of a kernel's own tests (`kcheck run --tests`).

Started by kcheck inside the worker's containment, through the Python the
user gave (--python), never in kcheck's own process:

    python -I -B -c "<this file>" RESULTS_FD IMPORT_DIR TESTS_DIR ROOT_DIR LOCAL_KERNELS [PYTEST ARGS...]

IMPORT_DIR holds the variant under the kernel's package name (a link kcheck
made), so `import <name>` in a test imports the build under test; it is put
first on sys.path and on PYTHONPATH for the tests' own subprocesses.
LOCAL_KERNELS ("REPO_ID=VARIANT_PATH", or empty) is the `kernels` loader's
override, so `kernels.get_kernel(REPO_ID)` in a test loads the variant under
test; HF_HUB_OFFLINE=1 keeps the Hub out of it. pytest
runs TESTS_DIR with ROOT_DIR as its root and this module's Recorder as a
plugin, which writes its results (JSON) at the end on descriptor RESULTS_FD,
kcheck's result pipe (no file the tests can reach stands in for it): every test's outcome and
message, collection errors, and the ops that passing tests called through
torch.ops during their call phase (qualified names with the overload, for
"verified by the kernel's tests"). Exit status
3: pytest is not importable in this Python.
"""

import json
import os
import sys
import time

MAX_TESTS = 100000
MAX_MESSAGE = 500
MAX_OPS = 10000
SKIPPED_NAMESPACES = ("aten::", "prim::", "prims::", "_c10d_functional::", "profiler::", "inductor::")


def short(text):
    text = str(text or "")
    lines = [line for line in text.splitlines() if line.strip()]
    for line in lines:  # pytest's "E   assert ..." lines say what failed
        if line.startswith("E "):
            return line[1:].strip()[:MAX_MESSAGE]
    return (lines[-1] if lines else "")[:MAX_MESSAGE]


# What Torch raises when a test asks for a GPU that CUDA_VISIBLE_DEVICES or
# HIP_VISIBLE_DEVICES hides (hide_accelerators_from_a_cpu_variant).
HIDDEN_GPU_ERRORS = ("No CUDA GPUs are available", "No HIP GPUs are available")


class Recorder:
    def __init__(self, results_fd, gpus_hidden=False):
        self.results_fd = results_fd
        self.gpus_hidden = gpus_hidden
        self.written = False
        self.tests = {}
        self.order = []
        self.collect_errors = []
        self.collected = 0
        self.current = None  # the test whose call phase runs now
        self.ops_by_test = {}
        self.started = time.time()
        self.record_op_calls()

    def record_op_calls(self):
        """Notes each op called through torch.ops (packet or overload), by its qualified name."""
        try:
            import torch._ops as ops
        except Exception:
            return
        recorder = self

        def wrap(cls, name_of):
            original = cls.__call__

            def call(self, *args, **kwargs):
                try:
                    name = name_of(self)
                    called = recorder.ops_by_test.setdefault(recorder.current, set()) if recorder.current else None
                    if called is not None and len(called) < MAX_OPS and not name.startswith(SKIPPED_NAMESPACES):
                        called.add(name)
                except Exception:
                    pass
                return original(self, *args, **kwargs)

            cls.__call__ = call

        wrap(ops.OpOverloadPacket, lambda packet: packet._qualified_op_name)
        wrap(ops.OpOverload, lambda overload: overload._schema.name + (
            "." + overload._schema.overload_name if overload._schema.overload_name else ""))

    def pytest_runtest_call(self, item):
        self.current = item.nodeid

    def pytest_runtest_teardown(self, item):
        self.current = None

    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors.append({"id": report.nodeid or "(collection)", "message": short(report.longrepr)})

    def pytest_collection_finish(self, session):
        self.collected = len(session.items)

    def pytest_runtest_logreport(self, report):
        if report.nodeid not in self.tests:
            if len(self.order) >= MAX_TESTS:
                return
            self.order.append(report.nodeid)
            self.tests[report.nodeid] = {"id": report.nodeid, "outcome": "passed", "message": "", "seconds": 0.0}
        entry = self.tests[report.nodeid]
        entry["seconds"] += float(getattr(report, "duration", 0.0) or 0.0)
        if hasattr(report, "wasxfail"):
            entry["outcome"] = "xfailed" if report.skipped else "xpassed"
            entry["message"] = str(report.wasxfail)[:MAX_MESSAGE]
        elif report.failed and self.gpus_hidden and any(error in str(report.longrepr) for error in HIDDEN_GPU_ERRORS):
            # It asked for the GPU kcheck hid from a CPU variant's tests: it
            # tested nothing of this variant, so it neither fails nor passes.
            entry["outcome"] = "skipped"
            entry["message"] = ("needs a GPU, which kcheck hides from a CPU variant's tests: "
                                + short(report.longrepr))[:MAX_MESSAGE]
        elif report.failed:
            entry["outcome"] = "failed" if report.when == "call" else "error"
            entry["message"] = short(report.longrepr)
        elif report.skipped and entry["outcome"] == "passed":
            entry["outcome"] = "skipped"
            longrepr = report.longrepr
            entry["message"] = str(longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else "")[
                :MAX_MESSAGE]

    def pytest_sessionfinish(self, session, exitstatus):
        self.write(int(exitstatus))

    def write(self, exit_status):
        document = {
            "exit_status": exit_status,
            "collected": self.collected,
            "collect_errors": self.collect_errors[:100],
            "tests": [self.tests[nodeid] for nodeid in self.order],
            # Only the ops a passing test called, while it ran: a call at import
            # time, in a fixture, or in a test that failed or was skipped verifies nothing.
            "ops_called": sorted({name for nodeid, names in self.ops_by_test.items()
                                  if self.tests.get(nodeid, {}).get("outcome") == "passed" for name in names}),
        }
        # One record on kcheck's result pipe (descriptor results_fd): a NUL
        # ends whatever else was written there, a NUL ends the record.
        view = memoryview(b"\0" + json.dumps(document).encode() + b"\0")
        while view:
            view = view[os.write(self.results_fd, view):]
        self.written = True


def hide_accelerators_from_a_cpu_variant(import_dir):
    """A CPU variant's tests see no GPU (CUDA_VISIBLE_DEVICES and
    HIP_VISIBLE_DEVICES empty, read at the first CUDA or HIP call): kcheck
    runs every test against every variant, and conftests that pick `cuda`
    when one is present would hand GPU tensors to a CPU build. CPU is the
    compute token of the variant's directory name (torch211-cxx11-cpu-...,
    torch-stable-abi211-cpu-..., torch-cpu). A test that then fails because
    it asked for the hidden GPU is recorded as skipped, saying so. Returns
    whether the GPUs were hidden."""
    hidden = False
    for entry in os.listdir(import_dir):
        variant = os.path.basename(os.path.realpath(os.path.join(import_dir, entry)))
        if "cpu" in variant.split("-"):
            os.environ["CUDA_VISIBLE_DEVICES"] = ""
            os.environ["HIP_VISIBLE_DEVICES"] = ""
            hidden = True
    return hidden


def main():
    results_fd, import_dir, tests_dir, root_dir, local_kernels = sys.argv[1:6]
    extra = sys.argv[6:]
    gpus_hidden = hide_accelerators_from_a_cpu_variant(import_dir)
    sys.path.insert(0, import_dir)
    os.environ["PYTHONPATH"] = import_dir + os.pathsep + os.environ.get("PYTHONPATH", "")
    os.environ["HF_HUB_OFFLINE"] = "1"
    if local_kernels:
        os.environ["LOCAL_KERNELS"] = local_kernels
    try:
        import pytest
    except Exception as error:
        print("kcheck-tests: pytest cannot be imported in %s: %s" % (sys.executable, error))
        sys.exit(3)
    recorder = Recorder(int(results_fd), gpus_hidden)
    args = [tests_dir, "--rootdir", root_dir, "-p", "no:cacheprovider", "-q", "-rN"] + extra
    status = pytest.main(args, plugins=[recorder])
    if not recorder.written:
        recorder.write(int(status))
    sys.exit(0)


if __name__ == "__main__":
    main()
