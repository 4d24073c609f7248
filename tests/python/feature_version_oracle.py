"""Test-only oracle: does CPython's parser accept each snippet at a feature version?

Reads JSON [{"source": ..., "feature_version": [3, 9]}, ...] on stdin and
writes a JSON list of booleans (accepted or not) to stdout. A snippet this
interpreter cannot parse at all (newer grammar) counts as rejected.
"""
import ast
import json
import sys

results = []
for snippet in json.load(sys.stdin):
    try:
        ast.parse(snippet["source"], feature_version=tuple(snippet["feature_version"]))
        results.append(True)
    except SyntaxError:
        results.append(False)
json.dump(results, sys.stdout)
