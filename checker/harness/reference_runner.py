"""kcheck's reference helper: computes an op's expected outputs from a Python reference.

Started by kcheck_worker inside the worker's containment (the same process
tree, limits and mount view), never by kcheck itself:

    python -I -B reference_runner.py MANIFEST

MANIFEST (written by checker/harness/worker/python_reference.cpp) names the
reference and, per case, the op's input tensors as raw files (the kernel's own
values, bit-identical) and its scalars. Two kinds of reference:

- "expression": a Torch expression over the spec's argument names, e.g.
  "torch.nn.functional.silu(x[..., :d]) * x[..., d:]". It is data, never
  Python source: it is parsed with ast and evaluated by the small evaluator
  below, which knows names (the arguments, `torch`, `F`, `math`), constants,
  arithmetic, comparisons, subscripts, tuples and lists, calls, and public
  attributes (no name or attribute with a leading underscore). From a module
  it reaches only functions and values, and the few math submodules in
  MODULES (never `torch.os`, `torch.ops`, `torch.hub`, `torch.load`, ...);
  a string has no attributes (no str.format reaching into objects); no
  class is reachable (CompilationUnit, storages), nor any member that loads,
  saves or maps files or raw memory, sets process-wide state (set_*) or
  parses IR; exponents stay at or below 64. The worker bounds the helper's
  time (600 s per op).
- "python": "FILE:FUNCTION", a function of the kernel repository, imported
  from FILE (relative to the repository, inside it) and called with the
  inputs as keyword arguments. That is the author's code, run here because
  this process is contained like the kernel itself.

The result (a tensor, or a tuple/list of tensors: the op's outputs in order,
out arguments first, then what it returns) is written as float64 files, and
result.json lists them per case; a case whose reference raised gets its
message instead. Standard library and Torch only.
"""

import ast
import ctypes
import json
import math
import operator
import os
import sys
import types

import torch
import torch.nn.functional as F

MAX_EXPRESSION = 4000
# The modules an expression may reach through attributes, and the members of
# anything it may never touch (loading or writing files or code, the op
# registry, leaving Torch for NumPy or raw memory).
MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.linalg", "torch.special", "torch.fft", "math")
REFUSED_MEMBERS = {"load", "save", "load_library", "ops", "hub", "classes", "library", "compile", "jit",
                   "from_file", "frombuffer", "from_buffer", "manual_seed", "seed", "use_deterministic_algorithms",
                   "mro", "CompilationUnit", "import_ir_module", "parse_ir",
                   "numpy", "tofile", "storage", "untyped_storage", "data_ptr", "register_hook", "share_memory_",
                   "apply_", "map_", "pin_memory"}

_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.MatMult: operator.matmul,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert, ast.Not: operator.not_}
_COMPARE = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}


class ExpressionError(Exception):
    pass


class Evaluator:
    """Evaluates the node kinds listed in the module's docstring, and nothing else."""

    def __init__(self, names):
        self.names = names

    def run(self, node):
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:
            raise ExpressionError("'%s' is not allowed in a reference expression" % type(node).__name__)
        return method(node)

    def eval_Expression(self, node):
        return self.run(node.body)

    def eval_Constant(self, node):
        if isinstance(node.value, (int, float, bool, str)) or node.value is None or node.value is Ellipsis:
            return node.value
        raise ExpressionError("constant %r is not allowed" % (node.value,))

    def eval_Name(self, node):
        if node.id.startswith("_") or node.id not in self.names:
            raise ExpressionError("unknown name '%s' (known: %s)" % (node.id, ", ".join(sorted(self.names))))
        return self.names[node.id]

    def eval_Attribute(self, node):
        if node.attr.startswith("_"):
            raise ExpressionError("attribute '%s' is not allowed" % node.attr)
        owner = self.run(node.value)
        if node.attr in REFUSED_MEMBERS or node.attr.startswith("set_") or "ir" in node.attr.split("_"):
            raise ExpressionError("'.%s' is not allowed in a reference expression" % node.attr)
        if isinstance(owner, str):
            raise ExpressionError("a string has no attributes in a reference expression")
        if isinstance(owner, types.ModuleType):
            value = getattr(owner, node.attr)
            if isinstance(value, types.ModuleType) and value.__name__ not in MODULES:
                raise ExpressionError("module %s is not allowed (only %s)" % (value.__name__, ", ".join(MODULES)))
        else:
            value = getattr(owner, node.attr)
        if isinstance(value, type):  # classes make objects kcheck does not vet (CompilationUnit, storages)
            raise ExpressionError("class %s is not allowed in a reference expression" % node.attr)
        return value

    def eval_Call(self, node):
        function = self.run(node.func)
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise ExpressionError("*arguments are not allowed")
            args.append(self.run(arg))
        kwargs = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise ExpressionError("**arguments are not allowed")
            kwargs[keyword.arg] = self.run(keyword.value)
        return function(*args, **kwargs)

    def eval_BinOp(self, node):
        if type(node.op) not in _BINARY:
            raise ExpressionError("operator '%s' is not allowed" % type(node.op).__name__)
        left, right = self.run(node.left), self.run(node.right)
        if isinstance(node.op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > 64:
            raise ExpressionError("an exponent above 64 is not allowed in a reference expression")
        return _BINARY[type(node.op)](left, right)

    def eval_UnaryOp(self, node):
        return _UNARY[type(node.op)](self.run(node.operand))

    def eval_Compare(self, node):
        left = self.run(node.left)
        result = True
        for op, right_node in zip(node.ops, node.comparators):
            if type(op) not in _COMPARE:
                raise ExpressionError("comparison '%s' is not allowed" % type(op).__name__)
            right = self.run(right_node)
            result = result & _COMPARE[type(op)](left, right)
            left = right
        return result

    def eval_IfExp(self, node):
        return self.run(node.body) if self.run(node.test) else self.run(node.orelse)

    def eval_Subscript(self, node):
        return self.run(node.value)[self.run(node.slice)]

    def eval_Index(self, node):  # Python 3.8
        return self.run(node.value)

    def eval_Slice(self, node):
        part = lambda n: None if n is None else self.run(n)
        return slice(part(node.lower), part(node.upper), part(node.step))

    def eval_ExtSlice(self, node):  # Python 3.8
        return tuple(self.run(d) for d in node.dims)

    def eval_Tuple(self, node):
        return tuple(self.run(e) for e in node.elts)

    def eval_List(self, node):
        return [self.run(e) for e in node.elts]


def evaluate_expression(text, arguments):
    if len(text) > MAX_EXPRESSION:
        raise ExpressionError("the expression is longer than %d characters" % MAX_EXPRESSION)
    names = {"torch": torch, "F": F, "math": math}
    names.update(arguments)
    return Evaluator(names).run(ast.parse(text, mode="eval"))


def repository_function(repository, reference):
    path_text, _, function_name = reference.rpartition(":")
    if not path_text or not function_name.isidentifier():
        raise ExpressionError("'%s' is not FILE:FUNCTION" % reference)
    root = os.path.realpath(repository)
    path = os.path.realpath(os.path.join(root, path_text))
    if os.path.commonpath([root, path]) != root or not os.path.isfile(path):
        raise ExpressionError("'%s' is no file inside the repository" % path_text)
    import importlib.util

    spec = importlib.util.spec_from_file_location("kcheck_reference_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    function = getattr(module, function_name, None)
    if not callable(function):
        raise ExpressionError("%s defines no function '%s'" % (path_text, function_name))
    return function


_DTYPES = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def read_arguments(case, directory, device):
    arguments = {}
    for arg in case["args"]:
        if arg.get("output"):
            continue
        if "file" in arg:
            dtype = _DTYPES[arg["dtype"]]
            with open(os.path.join(directory, os.path.basename(arg["file"])), "rb") as handle:
                data = bytearray(handle.read())
            tensor = torch.frombuffer(data, dtype=dtype) if data else torch.empty(0, dtype=dtype)
            arguments[arg["name"]] = tensor.reshape(arg["shape"]).to(device)
        elif "int" in arg:
            arguments[arg["name"]] = int(arg["int"])
        else:
            arguments[arg["name"]] = float(arg["value"])
    return arguments


def write_outputs(case_id, result, directory):
    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    entries = []
    for index, output in enumerate(outputs):
        if not isinstance(output, torch.Tensor):
            raise ExpressionError("the reference returned %s, not a tensor, as output %d" % (type(output).__name__, index))
        name = "%s-out%d.bin" % (case_id, index)
        values = output.detach().to("cpu", torch.float64).contiguous()
        with open(os.path.join(directory, name), "wb") as handle:
            handle.write(ctypes.string_at(values.data_ptr(), values.numel() * 8) if values.numel() else b"")
        entries.append({"file": name, "shape": list(values.shape)})
    return entries


def main():
    manifest_path = sys.argv[1]
    directory = os.path.dirname(os.path.abspath(manifest_path))
    with open(manifest_path, "rb") as handle:
        manifest = json.load(handle)
    device = manifest.get("device", "cpu")
    function = None
    setup_problem = ""
    try:
        if manifest["kind"] == "python":
            function = repository_function(manifest["repository"], manifest["reference"])
    except Exception as error:  # the author's module raised while it loaded
        setup_problem = "the reference %s could not be loaded: %s: %s" % (
            manifest["reference"], type(error).__name__, str(error).splitlines()[0][:300] if str(error) else "")
    results = []
    for case in manifest["cases"]:
        entry = {"id": case["id"]}
        try:
            if setup_problem:
                raise ExpressionError(setup_problem)
            arguments = read_arguments(case, directory, device)
            with torch.no_grad():
                if function is not None:
                    result = function(**arguments)
                else:
                    result = evaluate_expression(manifest["reference"], arguments)
            entry["outputs"] = write_outputs(case["id"], result, directory)
        except Exception as error:
            message = str(error).splitlines()[0][:300] if str(error) else ""
            entry["problem"] = setup_problem or "the reference raised %s: %s" % (type(error).__name__, message)
        results.append(entry)
    with open(os.path.join(directory, "result.json"), "w") as handle:
        json.dump({"cases": results}, handle)


if __name__ == "__main__":
    main()
