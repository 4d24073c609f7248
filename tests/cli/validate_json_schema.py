"""Validates a JSON document against a JSON schema (test helper; needs jsonschema).

usage: validate_json_schema.py SCHEMA DOCUMENT   -> exit 0 valid, 1 invalid (errors on stderr)
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
document = json.load(open(sys.argv[2]))
validator = jsonschema.validators.validator_for(schema)(schema)
errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
for error in errors:
    print(f"{'/'.join(map(str, error.path))}: {error.message}", file=sys.stderr)
sys.exit(1 if errors else 0)
