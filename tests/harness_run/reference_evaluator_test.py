#!/usr/bin/env python3
"""The reference expression evaluator of checker/harness/reference_runner.py:
what a repository's kcheck-ops.toml may write evaluates, and every attempt to
reach code, files or the process through it is refused (issue #27).

    reference_evaluator_test.py RUNNER.py        (a Python with Torch)
"""
import importlib.util
import sys

import torch

spec = importlib.util.spec_from_file_location("reference_runner", sys.argv[1])
runner = importlib.util.module_from_spec(spec)
sys.modules["reference_runner"] = runner  # as compile_baselines.py loads it: Dynamo looks modules up by name
spec.loader.exec_module(runner)

x = torch.arange(6, dtype=torch.float64).reshape(2, 3) - 2
failures = []

for expression, expected in [
    ("x * factor", x * 2.5),
    ("F.silu(x[..., :2]) * x[..., 1:]", torch.nn.functional.silu(x[..., :2]) * x[..., 1:]),
    ("torch.where(x > 0, x, 0)", torch.where(x > 0, x, 0)),
    ("x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)", x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)),
    ("torch.special.erf(x / math.sqrt(2))", torch.special.erf(x / 2 ** 0.5)),
    ("(x, -x)", (x, -x)),
]:
    got = runner.evaluate_expression(expression, {"x": x, "factor": 2.5})
    same = all(torch.allclose(a, b) for a, b in zip(got, expected)) if isinstance(got, tuple) else torch.allclose(got, expected)
    if not same:
        failures.append(f"{expression}: wrong value {got}")

for expression in [
    "__import__('os').system('true')",
    "torch.os.system('true')",
    "torch.ops.load_library('/tmp/x.so')",
    "torch.load('/etc/hostname')",
    "torch.hub.load('a', 'b')",
    "torch.serialization.load('/etc/hostname')",
    "torch.utils.cpp_extension.load_inline('a', 'b')",
    "torch.sys.modules",
    "x.__class__",
    "'{0.__class__}'.format(x)",
    "math.__loader__",
    "(lambda: 1)()",
    "[y for y in x]",
    "getattr(torch, 'load')",
    "open('/etc/hostname')",
    "x.numpy().tofile('/tmp/evil')",
    "torch.CompilationUnit('def f(p: str):\\n    return torch.from_file(p, False, 8)\\n').f('/etc/hostname')",
    "torch.save(x, '/tmp/evil.pt')",
    "torch.frombuffer(b'abcd', dtype=torch.uint8)",
    "x.set_(torch.UntypedStorage(4))",
    "torch.set_default_dtype(torch.float16)",
    "torch.Tensor.mro()",
    "torch.import_ir_module",
    "torch.parse_ir('graph()')",
    "2 ** 2 ** 40",
    "torch.get_device_module('cuda').caching_allocator_alloc(1)",
    "torch.get_device_module('cpu')",
]:
    try:
        runner.evaluate_expression(expression, {"x": x})
        failures.append(f"accepted: {expression}")
    except runner.ExpressionError:
        pass
    except Exception as error:  # refused by Python, not by the evaluator: it got too far
        failures.append(f"{expression}: not refused by the evaluator ({type(error).__name__}: {error})")

# The same closures under torch.compile: Dynamo traces them whole (no graph
# break), which is how `kcheck bench` compiles a repository's baseline expression.
expression = runner.compile_expression("F.silu(x[..., :d]) * x[..., d:] * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)",
                                       ["x", "d", "eps"])
def baseline(x):
    return expression({"x": x, "d": 1, "eps": 1e-6})
try:
    compiled = torch.compile(baseline, backend="eager", fullgraph=True)
    if not torch.allclose(compiled(x[:, :2]), baseline(x[:, :2])):
        failures.append("the compiled closures compute another value")
except Exception as error:
    failures.append(f"torch.compile cannot trace the closures whole: {type(error).__name__}: {error}")

if failures:
    print("FAIL:\n" + "\n".join(failures))
    sys.exit(1)
print("ok: the evaluator computes references and refuses every escape tried")
