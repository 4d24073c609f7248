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
  below (a tree of closures, see Compiler), which knows names (the arguments, `torch`, `F`, `math`), constants,
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


def checked_attribute(owner, attr):
    """owner.attr, where the owner (known only when the expression runs) allows it."""
    if isinstance(owner, str):
        raise ExpressionError("a string has no attributes in a reference expression")
    value = getattr(owner, attr)
    if not isinstance(owner, types.ModuleType):
        return value  # a tensor's or a value's member (the names above are vetted already)
    if isinstance(value, types.ModuleType) and value.__name__ not in MODULES:
        raise ExpressionError("module %s is not allowed (only %s)" % (value.__name__, ", ".join(MODULES)))
    if isinstance(value, type):  # classes make objects kcheck does not vet (CompilationUnit, storages)
        raise ExpressionError("class %s is not allowed in a reference expression" % attr)
    return value


def checked_result(value):
    """A call's result, vetted as an attribute's is: no module outside MODULES
    (torch.get_device_module("cuda") returns torch.cuda), no class."""
    if isinstance(value, types.ModuleType) and value.__name__ not in MODULES:
        raise ExpressionError("module %s is not allowed (only %s)" % (value.__name__, ", ".join(MODULES)))
    if isinstance(value, type):
        raise ExpressionError("class %s is not allowed in a reference expression" % value.__name__)
    return value


def checked_power(left, right):
    if isinstance(right, (int, float)) and abs(right) > 64:
        raise ExpressionError("an exponent above 64 is not allowed in a reference expression")
    return operator.pow(left, right)


class Compiler:
    """Turns the node kinds listed in the module's docstring, and nothing else,
    into a tree of closures: each takes the names (a dict) and returns the
    node's value. Nothing is compiled to Python code or exec'd; names and
    attributes are vetted here, once, and what depends on values (which
    module, which class) when the closures run. torch.compile traces the
    closures like any Python function."""

    def __init__(self, known):
        self.known = known

    def build(self, node):
        method = getattr(self, "build_" + type(node).__name__, None)
        if method is None:
            raise ExpressionError("'%s' is not allowed in a reference expression" % type(node).__name__)
        return method(node)

    def build_Expression(self, node):
        return self.build(node.body)

    def build_Constant(self, node):
        value = node.value
        if isinstance(value, (int, float, bool, str)) or value is None or value is Ellipsis:
            return lambda names: value
        raise ExpressionError("constant %r is not allowed" % (value,))

    def build_Name(self, node):
        name = node.id
        if name.startswith("_") or name not in self.known:
            raise ExpressionError("unknown name '%s' (known: %s)" % (name, ", ".join(sorted(self.known))))
        return lambda names: names[name]

    def build_Attribute(self, node):
        attr = node.attr
        if attr.startswith("_"):
            raise ExpressionError("attribute '%s' is not allowed" % attr)
        if attr in REFUSED_MEMBERS or attr.startswith("set_") or "ir" in attr.split("_"):
            raise ExpressionError("'.%s' is not allowed in a reference expression" % attr)
        owner = self.build(node.value)
        return lambda names: checked_attribute(owner(names), attr)

    def build_Call(self, node):
        function = self.build(node.func)
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise ExpressionError("*arguments are not allowed")
            args.append(self.build(arg))
        keywords = []
        for keyword in node.keywords:
            if keyword.arg is None:
                raise ExpressionError("**arguments are not allowed")
            keywords.append((keyword.arg, self.build(keyword.value)))
        return lambda names: checked_result(function(names)(*[arg(names) for arg in args],
                                                            **{key: value(names) for key, value in keywords}))

    def build_BinOp(self, node):
        if type(node.op) not in _BINARY:
            raise ExpressionError("operator '%s' is not allowed" % type(node.op).__name__)
        left, right = self.build(node.left), self.build(node.right)
        apply = checked_power if isinstance(node.op, ast.Pow) else _BINARY[type(node.op)]
        return lambda names: apply(left(names), right(names))

    def build_UnaryOp(self, node):
        apply, operand = _UNARY[type(node.op)], self.build(node.operand)
        return lambda names: apply(operand(names))

    def build_Compare(self, node):
        for op in node.ops:
            if type(op) not in _COMPARE:
                raise ExpressionError("comparison '%s' is not allowed" % type(op).__name__)
        left = self.build(node.left)
        steps = [(_COMPARE[type(op)], self.build(right)) for op, right in zip(node.ops, node.comparators)]

        def compare(names):
            value, result = left(names), True
            for apply, right in steps:
                right_value = right(names)
                result = result & apply(value, right_value)
                value = right_value
            return result
        return compare

    def build_IfExp(self, node):
        test, body, orelse = self.build(node.test), self.build(node.body), self.build(node.orelse)
        return lambda names: body(names) if test(names) else orelse(names)

    def build_Subscript(self, node):
        value, index = self.build(node.value), self.build(node.slice)
        return lambda names: value(names)[index(names)]

    def build_Index(self, node):  # Python 3.8
        return self.build(node.value)

    def build_Slice(self, node):
        parts = [None if part is None else self.build(part) for part in (node.lower, node.upper, node.step)]
        return lambda names: slice(*[None if part is None else part(names) for part in parts])

    def build_ExtSlice(self, node):  # Python 3.8
        dims = [self.build(d) for d in node.dims]
        return lambda names: tuple(d(names) for d in dims)

    def build_Tuple(self, node):
        elements = [self.build(e) for e in node.elts]
        return lambda names: tuple(e(names) for e in elements)

    def build_List(self, node):
        elements = [self.build(e) for e in node.elts]
        return lambda names: [e(names) for e in elements]


CONSTANT_NAMES = {"torch": torch, "F": F, "math": math}


def compile_expression(text, argument_names):
    """The expression as a function of a dict {argument name: value}."""
    if len(text) > MAX_EXPRESSION:
        raise ExpressionError("the expression is longer than %d characters" % MAX_EXPRESSION)
    body = Compiler(set(argument_names) | set(CONSTANT_NAMES)).build(ast.parse(text, mode="eval"))

    def function(arguments):
        names = dict(CONSTANT_NAMES)
        names.update(arguments)
        return body(names)
    return function


def evaluate_expression(text, arguments):
    return compile_expression(text, arguments.keys())(arguments)


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
