"""Validates a JSON document against a JSON schema (test helper; needs jsonschema).

usage: validate_json_schema.py SCHEMA DOCUMENT
  exit 0: valid; 1: invalid, one line per error on stderr ("<path>: <message>");
  2: the validator itself could not run (unreadable file, bad JSON, bad
  schema), so a test expecting "invalid" cannot pass on a crash.
"""
import json
import sys


def main() -> int:
    try:
        import jsonschema

        with open(sys.argv[1], encoding="utf-8") as schema_file:
            schema = json.load(schema_file)
        with open(sys.argv[2], encoding="utf-8") as document_file:
            document = json.load(document_file)
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
        validator = validator_class(schema)
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    except Exception as error:  # anything here is the validator's failure, not the document's
        print(f"validator error: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    for error in errors:
        print(f"{'/'.join(map(str, error.path))}: {error.message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
