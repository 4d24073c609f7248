#!/usr/bin/env python3
"""The op timed beside a torch.compile mode (checker/harness/compile_baselines.py,
time_beside): on the same inputs and into the blocks the compiled calls wrote
their results to, or a problem that says why not; an int scalar reaches the
op as an int. Stand-ins for the compiled form and the op, on the CPU.

    time_beside_test.py COMPILE_BASELINES.py REFERENCE_RUNNER.py   (a Python with Torch)
"""
import importlib.util
import sys
import types

import torch

spec = importlib.util.spec_from_file_location("compile_baselines", sys.argv[1])
helper = importlib.util.module_from_spec(spec)
spec.loader.exec_module(helper)

failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)


CASE = {"dtype": "float32", "op": "test::scaled", "rtol": 1e-6, "atol": 1e-6,
        "args": [{"name": "out", "shape": [4, 8], "output": True},
                 {"name": "input", "shape": [4, 8], "output": False, "low": -1, "high": 1},
                 {"name": "factor", "int": 3}]}
PLAN = {"samples": 3, "target_sample_seconds": 1e-4}
sets = [[torch.rand(4, 8)] for _ in range(2)]
expected = sets[0][0] * 3


class OneBlock:
    """A compiled form whose every call returns the same block, as Torch's caching allocator hands it."""

    def __init__(self):
        self.block = torch.empty(4, 8)

    def __call__(self, x):
        return torch.mul(x, 3, out=self.block)


class Kernel:
    """KernelOp's interface around a Python function standing in for the op."""

    def __init__(self, op=None, problem=""):
        self.op, self.problem, self.calls = op, problem, []

    def find(self, qualified):
        self.calls.append(qualified)
        return (self.op, "") if self.op else (None, self.problem)


writes = []


def scaled(out, x, factor):
    writes.append((out.data_ptr(), type(factor)))
    return torch.mul(x, factor, out=out)


def run(compiled, kernel, case=CASE):
    entry = {}
    helper.time_beside(case, PLAN, torch, kernel, helper.Timer(torch, torch.device("cpu")), compiled, sets, expected,
                       entry)
    return entry


compiled = OneBlock()
kernel = Kernel(scaled)
entry = run(compiled, kernel)
expect(kernel.calls == ["test::scaled"], f"the op looked up by its qualified name: {kernel.calls}")
expect(entry.get("paired_median_us", 0) > 0 and entry.get("paired_spread_us", -1) >= 0
       and "paired_problem" not in entry, f"timed beside it: {entry}")
expect(writes and all(address == compiled.block.data_ptr() for address, _ in writes),
       "the op wrote into the compiled calls' block every time")
expect(all(kind is int for _, kind in writes), f"the int scalar reached the op as an int: {set(writes)}")

fresh = lambda x: x * 3  # a new block every call (an allocator that does not hand it back, a CUDA graph's pool)
entry = run(fresh, Kernel(scaled))
blocks = [fresh(sets[0][0]) for _ in range(2)]  # both alive: two different blocks
expect(blocks[0].data_ptr() != blocks[1].data_ptr(), "the stand-in really allocates")
expect(entry.get("paired_problem") == "not timed beside it: the compiled calls did not write one result block"
       and "paired_median_us" not in entry, f"no same block, no pairing: {entry}")

entry = run(OneBlock(), Kernel(lambda out, x, factor: torch.mul(x, factor + 1, out=out)))
expect(entry.get("paired_problem", "").startswith("not timed beside it: the op's result differs from eager")
       and "paired_median_us" not in entry, f"a wrong result is not timed: {entry}")

entry = run(OneBlock(), Kernel(lambda out, x, factor: out))
expect(entry.get("paired_problem", "").startswith("not timed beside it: the op's result differs from eager")
       and "paired_median_us" not in entry, f"an op that writes nothing is not timed: {entry}")

entry = run(OneBlock(), Kernel(problem="not timed beside it: loading the variant's library failed: OSError: x"))
expect(entry == {"paired_problem": "not timed beside it: loading the variant's library failed: OSError: x"},
       f"the library's problem is the row's: {entry}")


def raises(out, x, factor):
    raise RuntimeError("expected a CUDA tensor\nsecond line")


entry = run(OneBlock(), Kernel(raises))
expect(entry.get("paired_problem") == "not timed beside it: calling the op from Python failed: RuntimeError: "
       "expected a CUDA tensor", f"the op's error, first line: {entry}")

two_outputs = dict(CASE, args=CASE["args"] + [{"name": "second", "shape": [4, 8], "output": True}])
entry = run(OneBlock(), Kernel(scaled), two_outputs)
expect(entry == {"paired_problem": "not timed beside it: the op writes 2 output arguments, not one"},
       f"two outputs: {entry}")
functional = dict(CASE, args=CASE["args"][1:])  # returns its result: it would not land in the shared block
entry = run(OneBlock(), Kernel(lambda x, factor: x * factor), functional)
expect(entry == {"paired_problem": "not timed beside it: the op writes 0 output arguments, not one"},
       f"no output argument: {entry}")



class RingBlocks:
    """A compiled form whose calls return `count` blocks in turn, as Torch's caching
    allocator hands them when the last count - 1 results are held."""

    def __init__(self, count):
        self.blocks, self.calls = [torch.empty(4, 8) for _ in range(count)], 0

    def __call__(self, x):
        self.calls += 1
        return torch.mul(x, 3, out=self.blocks[(self.calls - 1) % len(self.blocks)])


writes.clear()
ring = RingBlocks(2)
entry = run(ring, Kernel(scaled), dict(CASE, output_placements=2))
expect(entry.get("paired_median_us", 0) > 0 and "paired_problem" not in entry, f"two blocks, timed: {entry}")
expect({address for address, _ in writes} == {block.data_ptr() for block in ring.blocks},
       "with output_placements 2 the op wrote both of the compiled calls' blocks")
writes.clear()
one = OneBlock()  # every result in one block, as a CUDA graph's pool holds a mode's outputs
entry = run(one, Kernel(scaled), dict(CASE, output_placements=2))
expect(entry.get("paired_median_us", 0) > 0 and "paired_problem" not in entry
       and {address for address, _ in writes} == {one.block.data_ptr()},
       f"one block where two were asked for: paired into that one, as the compiled calls wrote it: {entry}")
entry = run(fresh, Kernel(scaled), dict(CASE, output_placements=2))
expect(entry.get("paired_problem") == "not timed beside it: the compiled calls did not write the same result blocks "
       "each round" and "paired_median_us" not in entry, f"blocks that move, no pairing: {entry}")


class Result:
    """A result whose life is counted: time_calls holds the last `held` of them."""
    live = 0
    most = 0

    def __init__(self):
        Result.live += 1
        Result.most = max(Result.most, Result.live)

    def __del__(self):
        Result.live -= 1


for held in (0, 3):
    Result.live = Result.most = 0
    helper.time_calls(helper.Timer(torch, torch.device("cpu")), lambda i: Result(), 2, 3, 1e-5, held)
    expect(Result.most == held + 1, f"held {held}: at most {Result.most} results alive at once, not {held + 1}")

sets_called = []
helper.time_calls(helper.Timer(torch, torch.device("cpu")), sets_called.append, 3, 4, 1e-9)
expect(len(sets_called) % 3 == 0 and all(sets_called.count(s) == len(sets_called) // 3 for s in range(3)),
       f"every sample whole rounds over the 3 sets: {len(sets_called)} calls")



class CompileFree:
    """Torch, with torch.compile the identity (no Inductor needed on this CPU)."""
    _dynamo = types.SimpleNamespace(reset=lambda: None)

    def compile(self, function, **options):
        return function

    def __getattr__(self, name):
        return getattr(torch, name)


held_asked = []
real_time_calls = helper.time_calls
helper.time_calls = lambda *args: (held_asked.append(args[5] if len(args) > 5 else 0), real_time_calls(*args))[1]
case = {"key": "k", "dtype": "float32", "expression": "x * 3", "sizes": {}, "seed": 1, "buffer_sets": 2,
        "output_placements": 2, "rtol": 1e-6, "atol": 1e-6,
        "args": [{"name": "out", "shape": [4, 8], "output": True},
                 {"name": "x", "shape": [4, 8], "output": False, "low": -1, "high": 1}]}
entry = {}
modes = list(helper.run_case(case, {"samples": 3, "target_sample_seconds": 1e-5, "modes": ["default"]}, CompileFree(),
                             helper.load_evaluator(sys.argv[2]), torch.device("cpu"),
                             helper.Timer(torch, torch.device("cpu")), entry))
helper.time_calls = real_time_calls
expect(held_asked == [1, 1] and entry.get("eager_median_us", 0) > 0 and modes and modes[0]["median_us"] > 0,
       f"eager and compiled each timed holding output_placements - 1 results: {held_asked}, {modes}")

missing = helper.KernelOp(torch, "")
expect(missing.find("test::scaled") == (None, "not timed beside it: no library of the variant was named"),
       "no library named")
broken = helper.KernelOp(torch, "/nonexistent/_kernel.abi3.so")
op, problem = broken.find("test::scaled")
expect(op is None and problem.startswith("not timed beside it: loading the variant's library failed: "),
       f"a library that does not load: {problem}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("time_beside: every case as expected")
