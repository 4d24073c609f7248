"""kcheck's torch.compile baselines (embedded in kcheck, run as `python -c`).

    python -c SOURCE PLAN.json RESULT_FD

For every case of the plan (written by checker/harness/compiled_baselines.cpp)
it compiles the case's baseline (an expression of reference/ops/baseline_forms.cpp
or of the repository's kcheck-ops.toml, through kcheck's evaluator in
reference_runner.py, never exec'd) with torch.compile in each mode of the plan, checks the compiled result
against the eager one within the op's tolerance, and times it the way
kcheck_worker times the kernel (checker/harness/worker/op_timing.cpp): the
same rotation over buffer sets (so consecutive calls miss the cache) and,
where the case says so, over output_placements result blocks, one
warm-up pass, an estimate that sets how many calls one sample holds (about
target_sample_seconds), then `samples` samples; the median and interquartile
range of the per-call times, by device events on a GPU. The uncompiled
expression is timed the same way first: called from Python, it carries the
per-call overhead the compiled one carries too.

After each mode it times the variant's op itself (the plan's "library",
loaded here: this process is contained as kcheck_worker is) right beside the
compiled form, from Python as the compiled form is called, on the same
inputs and into the blocks the compiled calls wrote their results to (where
they wrote the same ones each round; else it says so): where
an output lies moves a memory-bound kernel by up to 0.9 %
on an H200 (issue #32), and the worker's own buffers lie elsewhere. That
pairing ("paired_median_us") compares the two kernels alone.

RESULT.json is rewritten after every mode of every case, so what finished
before a timeout is kept. Exit status 3: no usable Torch here (the reason is
RESULT.json's "problem").
"""
import json
import math
import os
import sys
import time


def write_result(fd, result):
    """The result, whole, as one record on kcheck's result pipe (descriptor
    `fd`): a NUL ends whatever else was written there, a NUL ends the record."""
    view = memoryview(b"\0" + json.dumps(result).encode() + b"\0")
    while view:
        view = view[os.write(fd, view):]


def first_line(error):
    text = str(error).strip().splitlines()
    return type(error).__name__ + (": " + text[0] if text else "")


def quantile(values, q):
    values = sorted(values)
    position = q * (len(values) - 1)
    below = int(math.floor(position))
    above = min(below + 1, len(values) - 1)
    fraction = position - below
    return values[below] * (1 - fraction) + values[above] * fraction


class Timer:
    """Seconds between start() and stop(): device events on a GPU, the clock on the CPU.

    On a GPU the start event is queued behind about half a millisecond of device
    sleep: while the device sleeps, Python queues the sample's first calls,
    so the sample times the device's work, not the tens of microseconds
    Python takes to issue its first call (a compiled function's guards and
    wrapper) while the device idles. Without it, a sample of six 270 us
    calls read up to 6% high, by how long that first call happened to take.
    A call-bound sample (Python slower than the device) reads low by at most
    the sleep over the sample, a few percent: the call-bound mark covers it."""

    SPACER_CYCLES = 1_000_000  # about 0.5 ms at the clock rates of current GPUs

    def __init__(self, torch, device):
        self.torch, self.device = torch, device
        self.events = device.type == "cuda"
        self.spacer = getattr(torch.cuda, "_sleep", None) if self.events else None
        if self.events:
            self.begin = torch.cuda.Event(enable_timing=True)
            self.end = torch.cuda.Event(enable_timing=True)

    def synchronize(self):
        if self.device.type == "cuda":
            self.torch.cuda.synchronize()
        elif self.device.type != "cpu":
            getattr(self.torch, self.device.type).synchronize()

    def start(self):
        if self.events:
            if self.spacer:
                self.spacer(self.SPACER_CYCLES)
            self.begin.record()
        else:
            self.synchronize()
            self.started = time.perf_counter()

    def stop(self):
        if self.events:
            self.end.record()
            self.end.synchronize()
            return self.begin.elapsed_time(self.end) / 1e3
        self.synchronize()
        return time.perf_counter() - self.started


def time_calls(timer, call, rotation, samples, target_seconds, held=0):
    """(median, IQR) in seconds per call, as op_timing.cpp measures them. The
    last `held` results stay alive, so Torch's caching allocator hands the
    calls held + 1 result blocks in turn (the case's output_placements, as the
    worker's op writes its outputs: checker/harness/worker/timing_layout.h)."""
    rotation = max(rotation, 1)
    counter = [0]
    results = [None] * held

    def next_call():
        result = call(counter[0] % rotation)
        if held:
            results[counter[0] % held] = result
        counter[0] += 1

    for _ in range(rotation):
        next_call()
    timer.synchronize()
    timer.start()
    for _ in range(rotation):
        next_call()
    estimate = max(timer.stop() / rotation, 1e-9)
    batch = int(min(max(math.ceil(target_seconds / estimate), 1), 10000))
    batch = -(-batch // rotation) * rotation  # whole rounds over the sets, as op_timing.cpp
    per_call = []
    for _ in range(max(samples, 1)):
        timer.start()
        for _ in range(batch):
            next_call()
        per_call.append(timer.stop() / batch)
    return quantile(per_call, 0.5), quantile(per_call, 0.75) - quantile(per_call, 0.25)


def device_of(torch, backend):
    name = {"cuda": "cuda", "rocm": "cuda", "cpu": "cpu", "xpu": "xpu", "metal": "mps"}.get(backend, backend)
    return torch.device(name)


def load_evaluator(path):
    """kcheck's expression evaluator (reference_runner.py, written beside the plan):
    registered by name, as torch.compile looks a function's module up by it."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("kcheck_reference_runner", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def baseline_function(case, plan, evaluator):
    """The case's baseline as a function of its input tensors; scalars and sizes are constants.
    An expression (kcheck's own or the repository's) goes through kcheck's
    evaluator, a tree of closures: nothing here is compiled from text or
    exec'd. A repository's python:FILE:FUNCTION is imported from the
    repository (this process is contained like the kernel) and called with
    the inputs and scalars as keyword arguments, as a Python reference is."""
    inputs = [arg["name"] for arg in case["args"] if "shape" in arg and not arg.get("output")]
    scalars = {arg["name"]: scalar_of(arg) for arg in case["args"] if "shape" not in arg}
    if "python" in case:
        function = evaluator.repository_function(plan["repository"], case["python"])

        def baseline(*tensors):
            return function(**dict(zip(inputs, tensors)), **scalars)
        return baseline
    constants = dict(case["sizes"])
    constants.update(scalars)
    alias = "x" not in inputs and bool(inputs)  # kcheck's forms call the first input x
    expression = evaluator.compile_expression(case["expression"], inputs + list(constants) + (["x"] if alias else []))

    def baseline(*tensors):
        names = dict(constants)
        names.update(zip(inputs, tensors))
        if alias:
            names["x"] = tensors[0]
        return expression(names)
    return baseline


def scalar_of(arg):
    """A scalar argument's value: the wire form keeps an int as "int", a float as "value"."""
    return arg["int"] if "int" in arg else arg["value"]


def input_sets(case, torch, device, dtype):
    """The case's buffer sets of random inputs, seeded by the case. On a CUDA
    GPU they are drawn there, as kcheck_worker draws its own: a large case's
    four sets of 1-2 GiB would take seconds each from the CPU."""
    drawn_on = device if device.type == "cuda" else torch.device("cpu")
    generator = torch.Generator(device=drawn_on).manual_seed(case["seed"])
    sets = []
    for _ in range(max(case["buffer_sets"], 1)):
        tensors = []
        for arg in case["args"]:
            if "shape" not in arg or arg.get("output"):
                continue
            values = torch.rand(arg["shape"], generator=generator, dtype=torch.float32, device=drawn_on)
            values = values * (arg["high"] - arg["low"]) + arg["low"]
            tensors.append(values.to(device=device, dtype=dtype))
        sets.append(tensors)
    return sets


class KernelOp:
    """The variant's op, loaded into this process (contained like kcheck_worker,
    which loads the same library) to be timed beside the compiled form on the
    same buffers. None of its code runs until the first case asks for it."""

    def __init__(self, torch, library):
        self.torch, self.library, self.problem, self.loaded = torch, library, "", False

    def find(self, qualified):
        if not self.library:
            return None, "not timed beside it: no library of the variant was named"
        if not self.loaded:
            self.loaded = True
            try:
                self.torch.ops.load_library(self.library)
            except Exception as error:
                self.problem = "not timed beside it: loading the variant's library failed: " + first_line(error)
        if self.problem:
            return None, self.problem
        namespace, _, name = qualified.rpartition("::")
        try:
            return getattr(getattr(self.torch.ops, namespace), name), ""
        except Exception as error:
            return None, "not timed beside it: " + qualified + " is not registered: " + first_line(error)


def kernel_arguments(case, tensors, output):
    """The op's positional arguments (the op spec's order, as kcheck_worker
    passes them): the inputs of one buffer set, the scalars, and `output` as
    its output argument, if it has one."""
    inputs = iter(tensors)
    arguments = []
    for arg in case["args"]:
        if "shape" not in arg:
            arguments.append(scalar_of(arg))
        else:
            arguments.append(output if arg.get("output") else next(inputs))
    return arguments


def output_placements(case):
    """The result blocks every timing of the case rotates through (the worker's op's output blocks)."""
    return max(int(case.get("output_placements", 1)), 1)


def time_beside(case, plan, torch, kernel, timer, compiled, sets, expected, entry):
    """The op timed right after its compiled form, in this process, on the same
    inputs and into the very blocks the compiled calls wrote their results to
    (the caching allocator hands every call the block the last one freed; with
    output_placements blocks, the oldest of those held): where an output lies
    moved one kernel by up to 0.9 % on an H200 (bench/RESULTS.md, issue #32),
    so only this pairing compares the two kernels alone. Called from Python, as
    the compiled form is."""
    op, problem = kernel.find(case.get("op", ""))
    if op is None:
        entry["paired_problem"] = problem
        return
    outputs = sum(1 for arg in case["args"] if "shape" in arg and arg.get("output"))
    if outputs != 1:  # none: its result would lie wherever the allocator put it; several: the baseline has one
        entry["paired_problem"] = "not timed beside it: the op writes %d output arguments, not one" % outputs
        return
    try:
        placements = output_placements(case)
        # The blocks the compiled calls write with `placements` results alive,
        # as in their timing (time_calls' held results): as many blocks, or
        # one where every result shares it (a CUDA graph's pool). Each
        # address is read right after its call.
        held, first_round = [], set()
        for i in range(placements):
            held.append(compiled(*sets[i % len(sets)]))
            first_round.add(held[-1].data_ptr())
        del held
        blocks = {}  # the same blocks again, held while the op writes into them
        for i in range(placements):
            result = compiled(*sets[i % len(sets)])
            blocks.setdefault(result.data_ptr(), result)
        if set(blocks) != first_round:  # an allocator that moves them
            entry["paired_problem"] = "not timed beside it: the compiled calls did not write %s" % (
                "one result block" if placements == 1 else "the same result blocks each round")
            return
        blocks = list(blocks.values())
        block = blocks[0]
        arguments = [kernel_arguments(case, tensors, blocks[i % len(blocks)]) for i, tensors in enumerate(sets)]
        if block.is_floating_point():
            block.fill_(float("nan"))  # the compiled result is there: an op that writes nothing must not pass
        op(*arguments[0])
        if not torch.allclose(block.double(), expected.double(), rtol=case["rtol"], atol=case["atol"], equal_nan=True):
            error = (block.double() - expected.double()).abs().max().item()
            entry["paired_problem"] = "not timed beside it: the op's result differs from eager (max abs error %.3g)" % error
            return
        median, spread = time_calls(timer, lambda i: op(*arguments[i]), len(sets), plan["samples"],
                                    plan["target_sample_seconds"])
        entry["paired_median_us"], entry["paired_spread_us"] = median * 1e6, spread * 1e6
    except Exception as error:  # the op called from Python: a problem of this row, not of the compiled timing
        entry["paired_problem"] = "not timed beside it: calling the op from Python failed: " + first_line(error)


def run_case(case, plan, torch, evaluator, device, timer, entry, kernel=None):
    """Times the eager form from Python into `entry`, then yields one entry per mode:
    median and IQR in microseconds, compile seconds, or the problem."""
    dtype = getattr(torch, case["dtype"])
    sets = input_sets(case, torch, device, dtype)
    eager = baseline_function(case, plan, evaluator)
    expected = eager(*sets[0])
    # The same expression uncompiled, called from Python: beside kcheck_worker's
    # timing of it from C++, it shows how much of a compiled timing is Python's call overhead.
    held = output_placements(case) - 1
    median, spread = time_calls(timer, lambda i: eager(*sets[i]), len(sets), plan["samples"],
                                plan["target_sample_seconds"], held)
    entry["eager_median_us"], entry["eager_spread_us"] = median * 1e6, spread * 1e6
    for mode in plan["modes"]:
        if "python" in case:  # the author's code: timed eager only, never compiled by kcheck
            yield {"mode": mode, "median_us": 0.0, "spread_us": 0.0, "compile_seconds": 0.0,
                   "problem": "not compiled: a python: baseline is timed eager only"}
            continue
        entry = {"mode": mode, "median_us": 0.0, "spread_us": 0.0, "compile_seconds": 0.0, "problem": ""}
        try:
            torch._dynamo.reset()
            compiled = torch.compile(baseline_function(case, plan, evaluator), mode=mode, dynamic=False)
            started = time.perf_counter()
            got = compiled(*sets[0])
            timer.synchronize()
            entry["compile_seconds"] = time.perf_counter() - started
            if not torch.allclose(got.double(), expected.double(), rtol=case["rtol"], atol=case["atol"], equal_nan=True):
                error = (got.double() - expected.double()).abs().max().item()
                entry["problem"] = "the compiled result differs from eager (max abs error %.3g)" % error
            else:
                median, spread = time_calls(timer, lambda i: compiled(*sets[i]), len(sets), plan["samples"],
                                            plan["target_sample_seconds"], held)
                entry["median_us"], entry["spread_us"] = median * 1e6, spread * 1e6
                if kernel is not None:
                    time_beside(case, plan, torch, kernel, timer, compiled, sets, expected, entry)
        except Exception as error:  # a compile failure is a result, reported in its row
            entry["problem"] = "torch.compile failed: " + first_line(error)
        yield entry


def main():
    plan_path, result_fd = sys.argv[1], int(sys.argv[2])
    with open(plan_path) as file:
        plan = json.load(file)
    result = {"torch": "", "problem": "", "cases": []}
    try:
        import torch
        device = device_of(torch, plan["backend"])
        torch.empty(1, device=device)
    except Exception as error:
        result["problem"] = "no usable Torch in this Python for " + plan["backend"] + ": " + first_line(error)
        write_result(result_fd, result)
        sys.exit(3)
    result["torch"] = torch.__version__
    evaluator = load_evaluator(plan["evaluator"])
    timer = Timer(torch, device)
    kernel = KernelOp(torch, plan.get("library", ""))
    for case in plan["cases"]:
        entry = {"key": case["key"], "modes": []}
        result["cases"].append(entry)
        try:
            for mode_entry in run_case(case, plan, torch, evaluator, device, timer, entry, kernel):
                entry["modes"].append(mode_entry)
                write_result(result_fd, result)
        except Exception as error:  # the eager form itself failed: every mode says so
            entry["problem"] = "the eager form failed: " + first_line(error)
        write_result(result_fd, result)


if __name__ == "__main__":
    main()
