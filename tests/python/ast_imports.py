"""Test-only oracle: CPython's own `ast` view of Python files, as JSON.

Usage: ast_imports.py ROOT OUT.json
Walks every *.py file below ROOT (site-packages excluded: not the standard
library) and writes, per file relative to ROOT,
either {"imports": [[module, [names], level, line], ...]} in source order or
{"error": "..."} when `ast` cannot parse it.
"""
import ast
import json
import multiprocessing
import os
import sys


def imports_of(tree):
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((node.lineno, node.col_offset, [alias.name, [], 0, node.lineno]))
        elif isinstance(node, ast.ImportFrom):
            names = [alias.name for alias in node.names]
            found.append((node.lineno, node.col_offset, [node.module or "", names, node.level, node.lineno]))
    found.sort(key=lambda item: (item[0], item[1]))
    return [entry for _, _, entry in found]


def analyse(path):
    with open(path, "rb") as handle:
        source = handle.read()
    try:
        return {"imports": imports_of(ast.parse(source))}
    except (SyntaxError, ValueError) as error:
        return {"error": str(error)}


def python_files(root):
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in ("site-packages", "dist-packages", "__pycache__"))
        for name in sorted(files):
            path = os.path.join(directory, name)
            if name.endswith(".py") and os.path.isfile(path):
                yield path


def main():
    root, out = sys.argv[1], sys.argv[2]
    paths = list(python_files(root))
    with multiprocessing.Pool() as pool:
        results = pool.map(analyse, paths, chunksize=16)
    result = {os.path.relpath(path, root): entry for path, entry in zip(paths, results)}
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()
