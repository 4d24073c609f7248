"""Test-only oracle: CPython's own `ast` view of Python files, as JSON.

Usage: ast_imports.py ROOT OUT.json
Walks every *.py file below ROOT (site-packages excluded: not the standard
library) and writes, per file relative to ROOT,
either {"imports": [[module, [names], level, line], ...]} in source order or
{"error": "..."} when `ast` cannot parse it.
"""
import ast
import json
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


def main():
    root, out = sys.argv[1], sys.argv[2]
    result = {}
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in ("site-packages", "dist-packages", "__pycache__"))
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            if not os.path.isfile(path):
                continue
            relative = os.path.relpath(path, root)
            with open(path, "rb") as handle:
                source = handle.read()
            try:
                result[relative] = {"imports": imports_of(ast.parse(source))}
            except (SyntaxError, ValueError) as error:
                result[relative] = {"error": str(error)}
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()
